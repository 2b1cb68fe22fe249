/** One Markdown table per measurement, and each suite's section of the results around its tables. */
import { fixed, int, kB, LABELS, percent, table, µs } from './format';
import type { BenchResults, BundleSuite, FaninSuite, OverheadSuite, SearchSuite } from './results';

function searchTable(suite: SearchSuite): string {
  return table(
    [
      'library',
      'StrictMode',
      'fetch calls',
      'requests started',
      'completed',
      'sockets hung up',
      'bytes sent',
      'renders (commits)',
      'render calls',
      'ms last key → results',
    ],
    suite.rows.map((row) => [
      row.label,
      row.strict ? 'yes' : 'no',
      int(row.fetchCalls.median),
      int(row.started.median),
      int(row.completed.median),
      int(row.hungUp.median),
      int(row.bytesSent.median),
      int(row.renders.median),
      int(row.renderCalls.median),
      fixed(row.lastKeyToResultsMs.median, 1),
    ]),
  );
}

function faninTable(suite: FaninSuite): string {
  return table(
    [
      'library',
      'StrictMode',
      'fetch calls',
      'requests sent',
      'ms to all resolved',
      'renders (commits)',
      'render calls',
    ],
    suite.rows.map((row) => [
      row.label,
      row.strict ? 'yes' : 'no',
      int(row.fetchCalls.median),
      int(row.requests.median),
      fixed(row.allResolvedMs.median, 1),
      int(row.renders.median),
      int(row.renderCalls.median),
    ]),
  );
}

function networkTable(suite: OverheadSuite): string {
  return table(
    [
      'concurrency',
      'calls/run',
      'fetch p50 ms',
      'fetch p99 ms',
      'fetch calls/s',
      'fetch CPU µs/call',
      'Stitch p50 ms',
      'Stitch p99 ms',
      'Stitch calls/s',
      'Stitch CPU µs/call',
      'p50 ×',
      'p99 ×',
      'CPU/call ×',
      'throughput (Stitch / fetch)',
      'throughput (fetch + signal / fetch)',
    ],
    suite.network.rows.map((row) => [
      String(row.concurrency),
      int(row.calls),
      fixed(row.fetch.p50, 3),
      fixed(row.fetch.p99, 3),
      int(row.fetch.throughput),
      fixed(row.fetch.cpuPerCallUs, 1),
      fixed(row.stitch.p50, 3),
      fixed(row.stitch.p99, 3),
      int(row.stitch.throughput),
      fixed(row.stitch.cpuPerCallUs, 1),
      fixed(row.ratio.p50, 2),
      fixed(row.ratio.p99, 2),
      fixed(row.ratio.cpuPerCallUs, 2),
      percent(row.ratio.throughput),
      percent(row.signalRatio.throughput),
    ]),
  );
}

function inProcessTable(suite: OverheadSuite): string {
  return table(
    ['in process, stub fetch', 'wall time per call', 'CPU time per call', 'CPU vs bare stub fetch'],
    suite.inProcess.rows.map((row) => [
      row.label,
      µs(row.wallNs),
      µs(row.cpuNs),
      row.name === 'fetchStub'
        ? '—'
        : `${row.cpuOverFetchStubNs >= 0 ? '+' : ''}${µs(row.cpuOverFetchStubNs)}`,
    ]),
  );
}

function bundleTable(suite: BundleSuite): string {
  const libraries = ['stitch', 'tanstack', 'swr', 'cockatiel'] as const;
  return table(
    ['what an app imports (min + gzip)', ...libraries.map((library) => LABELS[library] ?? library)],
    suite.rows.map((row) => [
      row.label,
      ...libraries.map((library) => {
        const size = row.sizes[library];
        return size ? kB(size.gzip) : 'n/a';
      }),
    ]),
  );
}

function sizeLimitTable(suite: BundleSuite): string {
  return table(
    ['size-limit budget (.size-limit.json)', 'size (min + gzip)', 'limit', 'passes'],
    suite.sizeLimit.map((check) => [
      check.name,
      kB(check.size),
      check.limit ?? kB(check.sizeLimit),
      check.passed ? 'yes' : '**no**',
    ]),
  );
}

export function sections(results: BenchResults): string[] {
  const { search, fanin, overhead, bundle } = results.suites;
  const out: string[] = [];
  if (search) {
    out.push(
      `### 1. Search as you type\n\n"${search.query}" (${search.query.length} characters) typed at one key per ${search.keyIntervalMs} ms into a node:http vendor answering after ${search.latencyMs} ms; React 19 on happy-dom in Node, Node's fetch. Median of ${search.runs} runs.\n\n${searchTable(search)}`,
    );
  }
  if (fanin) {
    out.push(
      `### 2. Fan-in\n\n${int(fanin.components)} components mount at once on one key (vendor latency ${fanin.latencyMs} ms). Median of ${fanin.runs} runs.\n\n${faninTable(fanin)}`,
    );
  }
  if (overhead) {
    out.push(
      `### 3. Engine overhead\n\nAgainst a ${overhead.network.origin} in another process. Stitch configured with ${JSON.stringify(overhead.policies)}; every call has its own URL, so nothing is coalesced or cached. Each run takes turns between bare fetch, fetch given an AbortSignal (what any library that can cancel a request must pass) and Stitch in ${overhead.network.slices} slices, the order rotating (so all see the same load on the machine); ratios are medians of the per-run ratios. _CPU µs/call_ is the client process's CPU time per call, the figure least disturbed by other load.\n\n${networkTable(overhead)}\n\n${inProcessTable(overhead)}`,
    );
  }
  if (bundle) {
    out.push(
      `### 4. Bundle size\n\n${bundle.settings}.\n\n${bundleTable(bundle)}\n\n${sizeLimitTable(bundle)}`,
    );
  }
  return out;
}
