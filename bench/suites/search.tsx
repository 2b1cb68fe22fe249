/**
 * Suite 1, search-as-you-type end to end. The same search box, written once, reads its results
 * through Stitch, TanStack Query or SWR; a "user" types a 12-character query at one key per
 * 50 ms into a real node:http vendor that answers after 300 ms. React runs on a happy-dom
 * document in Node and every library uses Node's fetch, so an abort closes a real socket and
 * the vendor's ledger shows it. Repeated under StrictMode.
 */
import { fireEvent } from '@testing-library/dom';
import { StrictMode, useLayoutEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { log, runSuite } from '../lib/child';
import { LIBRARIES, type Library, type View } from '../lib/libraries';
import { ledgerTotals, searchVendor, vendorIdle } from '../lib/searchVendor';
import { RUNS, sleep, summarize } from '../lib/stats';

export const QUERY = 'cancellation'; // 12 characters
export const KEY_INTERVAL = 50;
export const LATENCY = 300;

/** What one component instance observed. */
interface Probe {
  renderCalls: number;
  commits: number;
  /** When results of the final query were first committed. */
  finalAt: number | undefined;
  lastCommitAt: number;
}

function SearchBox({ useSearch, probe }: { useSearch: (query: string) => View; probe: Probe }) {
  const [query, setQuery] = useState('');
  const { data } = useSearch(query);
  probe.renderCalls += 1;
  useLayoutEffect(() => {
    const now = performance.now();
    probe.commits += 1;
    probe.lastCommitAt = now;
    if (probe.finalAt === undefined && data?.query === QUERY) probe.finalAt = now;
  });
  const placeholder = data !== undefined && data.query !== query;
  return (
    <div>
      <input aria-label="Search" value={query} onChange={(event) => setQuery(event.target.value)} />
      <ul style={{ opacity: placeholder ? 0.5 : 1 }}>
        {data?.items.map((item) => (
          <li key={item.id}>{item.name}</li>
        ))}
      </ul>
    </div>
  );
}

/** One run of one library: mount, type, wait until the vendor is idle, count. */
async function typeOnce(library: Library, strict: boolean) {
  const vendor = await searchVendor(LATENCY);
  const instance = library.create(vendor.origin);
  const probe: Probe = { renderCalls: 0, commits: 0, finalAt: undefined, lastCommitAt: 0 };
  const container = document.createElement('div');
  document.body.appendChild(container);
  const root = createRoot(container);
  const { Provider } = instance;
  const tree = (
    <Provider>
      <SearchBox useSearch={instance.useSearch} probe={probe} />
    </Provider>
  );
  root.render(strict ? <StrictMode>{tree}</StrictMode> : tree);
  await sleep(KEY_INTERVAL);
  const input = container.querySelector('input') as HTMLInputElement;
  let lastKeyAt = 0;
  for (let length = 1; length <= QUERY.length; length++) {
    if (length > 1) await sleep(KEY_INTERVAL);
    lastKeyAt = performance.now();
    fireEvent.input(input, { target: { value: QUERY.slice(0, length) } });
  }
  const idle = await vendorIdle(vendor, 150, 10_000);
  if (!idle) log(`${library.name}: the vendor did not go idle within 10 s`);
  if (probe.finalAt === undefined) throw new Error(`${library.name}: the final results were never rendered`);
  const totals = ledgerTotals(vendor);
  const result = {
    fetchCalls: instance.fetches(),
    ...totals,
    renders: probe.commits,
    renderCalls: probe.renderCalls,
    lastKeyToResultsMs: probe.finalAt - lastKeyAt,
    lastKeyToLastRenderMs: probe.lastCommitAt - lastKeyAt,
  };
  root.unmount();
  container.remove();
  instance.dispose();
  await vendor.close();
  return result;
}

type RunRecord = Awaited<ReturnType<typeof typeOnce>>;

runSuite(async () => {
  const records = new Map<string, RunRecord[]>();
  // Warm-up: the first React render in a process pays for JIT and module initialisation.
  for (const library of LIBRARIES) await typeOnce(library, false);
  for (let run = 0; run < RUNS; run++) {
    for (const strict of [false, true]) {
      // Rotate the order so no library always runs first (or right after a given other one).
      for (let i = 0; i < LIBRARIES.length; i++) {
        const library = LIBRARIES[(i + run) % LIBRARIES.length] as Library;
        const id = `${library.name}${strict ? ':strict' : ''}`;
        const record = await typeOnce(library, strict);
        records.set(id, [...(records.get(id) ?? []), record]);
      }
    }
    log(`search: run ${run + 1}/${RUNS}`);
  }
  return {
    query: QUERY,
    keyIntervalMs: KEY_INTERVAL,
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
