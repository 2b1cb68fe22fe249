/**
 * Suite 2, fan-in: 1,000 components mount at once, all reading one key, through Stitch,
 * TanStack Query or SWR, against the real node:http vendor (50 ms latency). Counts the requests
 * the vendor receives, the time from `root.render` to the commit where the last of the 1,000
 * shows data, and the commits of those components. Repeated under StrictMode.
 */
import { useLayoutEffect } from 'react';
import { runSuite } from '../lib/child';
import type { Library, View } from '../lib/libraries';
import { ledgerTotals, vendorIdle } from '../lib/searchVendor';
import { compareLibraries, session } from '../lib/session';
import { RUNS, sleep } from '../lib/stats';

export const COMPONENTS = 1_000;
export const LATENCY = 50;
/**
 * Rounds of the fan-in: three times the other suites' runs. A run takes a fraction of a second,
 * and its spread on the shared machine (about ±20 %) is wider than the gap between libraries.
 */
export const FANIN_RUNS = 3 * RUNS;
const KEY = 'fan-in';
const IDS = Array.from({ length: COMPONENTS }, (_, i) => `item-${i}`);

interface Probe {
  renderCalls: number;
  commits: number;
  resolved: number;
  /** When the last component first committed data. */
  allAt: number | undefined;
}

function Item({ useSearch, probe }: { useSearch: (query: string) => View; probe: Probe }) {
  const { data } = useSearch(KEY);
  probe.renderCalls += 1;
  const shown = data !== undefined;
  useLayoutEffect(() => {
    probe.commits += 1;
  });
  useLayoutEffect(() => {
    if (!shown) return;
    probe.resolved += 1;
    if (probe.resolved === COMPONENTS) probe.allAt = performance.now();
  }, [shown, probe]);
  return <li>{data ? data.items.length : '…'}</li>;
}

/** One run of one library: mount the 1,000 at once, wait until all show data and the vendor is idle. */
function mountOnce(library: Library, strict: boolean) {
  return session(library, LATENCY, strict, async ({ vendor, instance, render }) => {
    const probe: Probe = { renderCalls: 0, commits: 0, resolved: 0, allAt: undefined };
    const items = IDS.map((id) => <Item key={id} useSearch={instance.useSearch} probe={probe} />);
    const startedAt = performance.now();
    render(<ul>{items}</ul>);
    const deadline = startedAt + 20_000;
    while (probe.allAt === undefined && performance.now() < deadline) await sleep(5);
    if (probe.allAt === undefined)
      throw new Error(`${library.name}: not all components resolved within 20 s`);
    await vendorIdle(vendor, 100, 5_000);
    const totals = ledgerTotals(vendor);
    return {
      fetchCalls: instance.fetches(),
      requests: totals.started,
      completed: totals.completed,
      hungUp: totals.hungUp,
      allResolvedMs: probe.allAt - startedAt,
      renders: probe.commits,
      renderCalls: probe.renderCalls,
    };
  });
}

runSuite(async () => ({
  components: COMPONENTS,
  latencyMs: LATENCY,
  runs: FANIN_RUNS,
  rows: await compareLibraries('fan-in', mountOnce, FANIN_RUNS),
}));
