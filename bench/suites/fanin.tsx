/**
 * Suite 2, fan-in: 1,000 components mount at once, all reading one key, through Stitch,
 * TanStack Query or SWR, against the real node:http vendor (50 ms latency). Counts the requests
 * the vendor receives, the time from `root.render` to the commit where the last of the 1,000
 * shows data, and the commits of those components. Repeated under StrictMode.
 */
import { StrictMode, useLayoutEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { log, runSuite } from '../lib/child';
import { LIBRARIES, type Library, type View } from '../lib/libraries';
import { ledgerTotals, searchVendor, vendorIdle } from '../lib/searchVendor';
import { RUNS, sleep, summarize } from '../lib/stats';

export const COMPONENTS = 1_000;
export const LATENCY = 50;
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

async function mountOnce(library: Library, strict: boolean) {
  const vendor = await searchVendor(LATENCY);
  const instance = library.create(vendor.origin);
  const probe: Probe = { renderCalls: 0, commits: 0, resolved: 0, allAt: undefined };
  const container = document.createElement('div');
  document.body.appendChild(container);
  const root = createRoot(container);
  const { Provider } = instance;
  const items = IDS.map((id) => <Item key={id} useSearch={instance.useSearch} probe={probe} />);
  const tree = (
    <Provider>
      <ul>{items}</ul>
    </Provider>
  );
  const startedAt = performance.now();
  root.render(strict ? <StrictMode>{tree}</StrictMode> : tree);
  const deadline = startedAt + 20_000;
  while (probe.allAt === undefined && performance.now() < deadline) await sleep(5);
  if (probe.allAt === undefined) throw new Error(`${library.name}: not all components resolved within 20 s`);
  await vendorIdle(vendor, 100, 5_000);
  const totals = ledgerTotals(vendor);
  const result = {
    fetchCalls: instance.fetches(),
    requests: totals.started,
    completed: totals.completed,
    hungUp: totals.hungUp,
    allResolvedMs: probe.allAt - startedAt,
    renders: probe.commits,
    renderCalls: probe.renderCalls,
  };
  root.unmount();
  container.remove();
  instance.dispose();
  await vendor.close();
  return result;
}

type RunRecord = Awaited<ReturnType<typeof mountOnce>>;

runSuite(async () => {
  const records = new Map<string, RunRecord[]>();
  for (const library of LIBRARIES) await mountOnce(library, false); // warm-up
  for (let run = 0; run < RUNS; run++) {
    for (const strict of [false, true]) {
      for (let i = 0; i < LIBRARIES.length; i++) {
        const library = LIBRARIES[(i + run) % LIBRARIES.length] as Library;
        const id = `${library.name}${strict ? ':strict' : ''}`;
        records.set(id, [...(records.get(id) ?? []), await mountOnce(library, strict)]);
      }
    }
    log(`fan-in: run ${run + 1}/${RUNS}`);
  }
  return {
    components: COMPONENTS,
    latencyMs: LATENCY,
    runs: RUNS,
    rows: LIBRARIES.flatMap((library) =>
      [false, true].map((strict) => ({
        library: library.name,
        label: library.label,
        strict,
        ...summarize(records.get(`${library.name}${strict ? ':strict' : ''}`) ?? []),
      })),
    ),
  };
});
