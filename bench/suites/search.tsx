/**
 * Suite 1, search-as-you-type end to end. The same search box, written once, reads its results
 * through Stitch, TanStack Query or SWR; a "user" types a 12-character query at one key per
 * 50 ms into a real node:http vendor that answers after 300 ms. React runs on a happy-dom
 * document in Node and every library uses Node's fetch, so an abort closes a real socket and
 * the vendor's ledger shows it. Repeated under StrictMode.
 */
import { fireEvent } from '@testing-library/dom';
import { useLayoutEffect, useState } from 'react';
import { log, runSuite } from '../lib/child';
import type { Library, View } from '../lib/libraries';
import { ledgerTotals, vendorIdle } from '../lib/searchVendor';
import { compareLibraries, session } from '../lib/session';
import { RUNS, sleep } from '../lib/stats';

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
function typeOnce(library: Library, strict: boolean) {
  return session(library, LATENCY, strict, async ({ vendor, instance, container, render }) => {
    const probe: Probe = { renderCalls: 0, commits: 0, finalAt: undefined, lastCommitAt: 0 };
    render(<SearchBox useSearch={instance.useSearch} probe={probe} />);
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
    if (probe.finalAt === undefined)
      throw new Error(`${library.name}: the final results were never rendered`);
    return {
      fetchCalls: instance.fetches(),
      ...ledgerTotals(vendor),
      renders: probe.commits,
      renderCalls: probe.renderCalls,
      lastKeyToResultsMs: probe.finalAt - lastKeyAt,
      lastKeyToLastRenderMs: probe.lastCommitAt - lastKeyAt,
    };
  });
}

runSuite(async () => ({
  query: QUERY,
  keyIntervalMs: KEY_INTERVAL,
  latencyMs: LATENCY,
  runs: RUNS,
  rows: await compareLibraries('search', typeOnce),
}));
