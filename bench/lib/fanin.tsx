/**
 * One fan-in: 1,000 components mount at once, all reading one key, through one library, against
 * the real node:http vendor (50 ms latency). What the fan-in suite times and what
 * `npm run bench:instructions` counts.
 */
import { useLayoutEffect } from 'react';
import type { Library, View } from './libraries';
import { ledgerTotals, vendorIdle } from './searchVendor';
import { session } from './session';

export const COMPONENTS = 1_000;
export const LATENCY = 50;
const KEY = 'fan-in';
const IDS = Array.from({ length: COMPONENTS }, (_, i) => `item-${i}`);

interface Probe {
  renderCalls: number;
  commits: number;
  resolved: number;
  /** Called with the time the last component first committed data. */
  allShown: (at: number) => void;
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
    if (probe.resolved === COMPONENTS) probe.allShown(performance.now());
  }, [shown, probe]);
  return <li>{data ? data.items.length : '…'}</li>;
}

/**
 * Mounts the 1,000 at once, waits until all show data and the vendor is idle, and tears down;
 * fails when they have not all resolved within `limit` ms.
 */
export function mountOnce(library: Library, strict: boolean, limit = 20_000) {
  return session(library, LATENCY, strict, async ({ vendor, instance, render }) => {
    let allShown = (_at: number) => {};
    let late: ReturnType<typeof setTimeout> | undefined;
    const shown = new Promise<number>((resolve, reject) => {
      allShown = resolve;
      late = setTimeout(
        () => reject(new Error(`${library.name}: not all components resolved within ${limit} ms`)),
        limit,
      );
    });
    const probe: Probe = { renderCalls: 0, commits: 0, resolved: 0, allShown };
    const items = IDS.map((id) => <Item key={id} useSearch={instance.useSearch} probe={probe} />);
    const startedAt = performance.now();
    render(<ul>{items}</ul>);
    const allAt = await shown.finally(() => clearTimeout(late));
    await vendorIdle(vendor, 100, 5_000);
    const totals = ledgerTotals(vendor);
    return {
      fetchCalls: instance.fetches(),
      requests: totals.started,
      completed: totals.completed,
      hungUp: totals.hungUp,
      allResolvedMs: allAt - startedAt,
      renders: probe.commits,
      renderCalls: probe.renderCalls,
    };
  });
}
