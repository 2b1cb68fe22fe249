/**
 * Turns the suites' results into the printed tables and bench/RESULTS.md, and judges the
 * issue's targets against them. Every verdict is computed from the figures, never written by
 * hand, so the file cannot claim what the run did not show.
 */
import type { Sample } from './stats';

export const SUITES = ['search', 'fanin', 'overhead', 'bundle'] as const;
export type SuiteName = (typeof SUITES)[number];

type Library = 'stitch' | 'tanstack' | 'swr';

interface SearchRow {
  library: Library;
  label: string;
  strict: boolean;
  fetchCalls: Sample;
  started: Sample;
  completed: Sample;
  hungUp: Sample;
  bytesSent: Sample;
  renders: Sample;
  renderCalls: Sample;
  lastKeyToResultsMs: Sample;
  lastKeyToLastRenderMs: Sample;
}

interface SearchSuite {
  query: string;
  keyIntervalMs: number;
  latencyMs: number;
  runs: number;
  rows: SearchRow[];
}

interface FaninRow {
  library: Library;
  label: string;
  strict: boolean;
  fetchCalls: Sample;
  requests: Sample;
  completed: Sample;
  hungUp: Sample;
  allResolvedMs: Sample;
  renders: Sample;
  renderCalls: Sample;
}

interface FaninSuite {
  components: number;
  latencyMs: number;
  runs: number;
  rows: FaninRow[];
}

interface Load {
  p50: number;
  p99: number;
  throughput: number;
  cpuPerCallUs: number;
}

interface OverheadSuite {
  policies: Record<string, unknown>;
  network: {
    origin: string;
    slices: number;
    rows: Array<{
      concurrency: number;
      calls: number;
      fetch: Load;
      stitch: Load;
      ratio: Load;
      runs: Record<'fetch' | 'stitch', Record<keyof Load, number[]>>;
    }>;
  };
  inProcess: {
    rows: Array<{
      name: string;
      label: string;
      wallNs: number;
      cpuNs: number;
      cpuOverFetchStubNs: number;
      runs: { wallNs: number[]; cpuNs: number[] };
    }>;
    allocations: {
      abortControllersPerCall: number;
      timersPerCall: number;
      eventsPerCall: number;
      nsPerAbortController: number;
    };
  };
}

interface BundleSuite {
  settings: string;
  sizeLimit: Array<{ name: string; passed: boolean; size: number; sizeLimit: number; limit?: string }>;
  rows: Array<{
    id: string;
    label: string;
    sizes: Partial<Record<Library | 'cockatiel', { imports: string; minified: number; gzip: number }>>;
  }>;
  breakdown: { total: number; modules: Array<{ module: string; minified: number }> };
}

export interface BenchResults {
  date: string;
  command: string;
  wallTimeSeconds: number;
  runsPerMeasurement: number;
  machine: {
    os: string;
    arch: string;
    cpus: number;
    cpuModel: string;
    cpuSpeedMHz: number;
    osCpus: Array<{ model: string; speed: number }>;
    memoryGB: number;
    loadAverageAtStart: number[];
    loadAverageAtEnd: number[];
  };
  versions: Record<string, string>;
  suites: { search?: SearchSuite; fanin?: FaninSuite; overhead?: OverheadSuite; bundle?: BundleSuite };
}

const LABELS: Record<string, string> = {
  stitch: 'Stitch',
  tanstack: 'TanStack Query',
  swr: 'SWR',
  cockatiel: 'cockatiel',
};

const kB = (bytes: number) => `${(bytes / 1000).toFixed(2)} kB`;
const int = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–');
const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const µs = (ns: number) => `${fixed(ns / 1000, 1)} µs`;
const percent = (ratio: number) => `${fixed(ratio * 100, 1)} %`;

/** A Markdown table, padded so it also reads as a table in a terminal. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) =>
    Math.max(3, cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

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

interface Verdict {
  target: string;
  met: boolean | undefined;
  figure: string;
  explanation?: string;
}

/** Zips per-run values of `fields` into one record per run. */
function perRun<TKey extends string>(row: Record<TKey, Sample>, fields: TKey[]): Array<Record<TKey, number>> {
  const first = row[fields[0] as TKey];
  return (first?.runs ?? []).map((_, run) =>
    Object.fromEntries(fields.map((field) => [field, row[field].runs[run] as number])),
  ) as Array<Record<TKey, number>>;
}

function judge(results: BenchResults): Verdict[] {
  const { search, overhead, bundle } = results.suites;
  const verdicts: Verdict[] = [];

  if (search) {
    const stitchRows = search.rows.filter((row) => row.library === 'stitch');
    const failures: string[] = [];
    for (const row of stitchRows) {
      perRun(row, ['fetchCalls', 'started', 'completed', 'hungUp']).forEach((run, index) => {
        const superseded = run.fetchCalls - run.completed;
        // Requests that never reached the vendor were aborted before they left the client.
        const aborted = run.hungUp + (run.fetchCalls - run.started);
        if (run.completed > 1 || aborted !== superseded) {
          failures.push(
            `run ${index + 1}${row.strict ? ' (StrictMode)' : ''}: ${run.completed} completed, ${aborted} of ${superseded} superseded requests aborted`,
          );
        }
      });
    }
    const plain = stitchRows.find((row) => !row.strict);
    verdicts.push({
      target: 'Search: Stitch completes ≤ 1 request per settled query and aborts every superseded one',
      met: failures.length === 0,
      figure: plain
        ? `${int(plain.completed.median)} completed, ${int(plain.hungUp.median)} hung up of ${int(plain.started.median)} started (median; every run checked, with and without StrictMode)`
        : '–',
      explanation: failures.length > 0 ? `Runs that missed it: ${failures.join('; ')}.` : undefined,
    });

    const swrRows = search.rows.filter((row) => row.library === 'swr');
    const swrAll = swrRows.every((row) =>
      perRun(row, ['fetchCalls', 'completed']).every((run) => run.completed === run.fetchCalls),
    );
    const swrPlain = swrRows.find((row) => !row.strict);
    verdicts.push({
      target: 'Search: SWR completes all of them (the behaviour Stitch is measured against)',
      met: swrAll,
      figure: swrPlain
        ? `${int(swrPlain.completed.median)} completed of ${int(swrPlain.fetchCalls.median)} fetches, ${int(swrPlain.bytesSent.median)} bytes sent`
        : '–',
      explanation: swrAll
        ? undefined
        : 'SWR aborted or skipped a request in at least one run; see the per-run figures.',
    });
  }

  if (overhead) {
    const at64 = overhead.network.rows.find((row) => row.concurrency === 64);
    const ratio = at64?.ratio.throughput ?? Number.NaN;
    const met = ratio >= 0.95;
    const rows = Object.fromEntries(overhead.inProcess.rows.map((row) => [row.name, row]));
    const a = overhead.inProcess.allocations;
    const ladder = ['ladderNone', 'ladderRetry', 'ladderTimeout', 'ladderCircuit', 'pipeline']
      .map((name) => rows[name])
      .filter((row) => row !== undefined)
      .map((row) => `${row.label} ${µs(row.cpuNs)}`)
      .join(', ');
    const baseShare =
      ((rows.ladderNone?.cpuOverFetchStubNs ?? Number.NaN) as number) /
      ((rows.pipeline?.cpuOverFetchStubNs ?? Number.NaN) as number);
    verdicts.push({
      target: 'Overhead: the full pipeline keeps ≥ 95 % of bare fetch throughput at concurrency 64',
      met,
      figure: `${percent(ratio)} of bare fetch throughput (${int(at64?.stitch.throughput ?? Number.NaN)} vs ${int(at64?.fetch.throughput ?? Number.NaN)} calls/s)`,
      explanation: met
        ? undefined
        : [
            `At concurrency 64 the client process is CPU-bound (${results.machine.cpus} cores, shared with the vendor's process and, on this machine, with whatever else runs: load average ${results.machine.loadAverageAtStart.join(' / ')} at the start), so every microsecond the engine spends per call comes straight off throughput: a Stitch call used ${fixed(at64?.ratio.cpuPerCallUs ?? Number.NaN, 2)}× the client CPU of a bare fetch (${fixed(at64?.stitch.cpuPerCallUs ?? Number.NaN, 1)} vs ${fixed(at64?.fetch.cpuPerCallUs ?? Number.NaN, 1)} µs).`,
            `In process, with a stub fetch, a full-pipeline call takes ${µs(rows.pipeline?.cpuNs ?? Number.NaN)} of CPU against ${µs(rows.fetchStub?.cpuNs ?? Number.NaN)} for the bare stub fetch: ${µs(rows.pipeline?.cpuOverFetchStubNs ?? Number.NaN)} of engine work per call, against ${µs(rows.cockatiel?.cpuOverFetchStubNs ?? Number.NaN)} for cockatiel's four policies.`,
            `With the policies switched on one by one (CPU per call: ${ladder}), ${baseShare >= 0.5 ? `${percent(baseShare)} of that engine work is already there with every policy off: it is the per-call machinery (run, cache key, coalescer, signals, events), not any one policy.` : `only ${percent(baseShare)} of that engine work is there with every policy off: the policies themselves cost the rest.`}`,
            `Counted per full-pipeline call: ${fixed(a.abortControllersPerCall, 1)} AbortControllers${a.abortControllersPerCall === 3 ? " (the coalescer's, the total deadline's, the attempt deadline's)" : ''} at ${µs(a.nsPerAbortController)} of CPU each (with an abort) on this Node, ${fixed(a.timersPerCall, 1)} timers${a.timersPerCall === 2 ? ' (total and attempt deadlines)' : ''} and ${fixed(a.eventsPerCall, 1)} event objects logged on the run although nobody reads them, plus the run object and its promises.`,
            'Meeting the target would take fewer of those per call (one controller and one timer per call, with the deadlines folded together; events built only when a stream, report or sink can see them), not weaker guarantees.',
          ].join(' '),
    });
  }

  if (bundle) {
    const hooks = bundle.rows.find((row) => row.id === 'hooks')?.sizes.stitch;
    const app = bundle.rows.find((row) => row.id === 'app')?.sizes.stitch;
    const worst = Math.max(hooks?.gzip ?? Number.NaN, app?.gzip ?? Number.NaN);
    const met = worst <= 8_000;
    const top = bundle.breakdown.modules
      .slice(0, 8)
      .map(
        (module) =>
          `${module.module} ${fixed(module.minified / 1000, 1)} kB (${fixed((module.minified / bundle.breakdown.total) * 100, 0)} %)`,
      )
      .join(', ');
    const tanstack = bundle.rows.find((row) => row.id === 'app')?.sizes.tanstack;
    const swr = bundle.rows.find((row) => row.id === 'app')?.sizes.swr;
    verdicts.push({
      target: 'Bundle: engine + hooks ≤ 8 kB min + gzip',
      met,
      figure: `useStitch + StitchProvider ${kB(hooks?.gzip ?? Number.NaN)}; with stitch() and createEngine, as the search component imports them, ${kB(app?.gzip ?? Number.NaN)}`,
      explanation: met
        ? undefined
        : [
            `${kB(worst - 8_000)} over. The hooks reach almost the whole engine: useStitch needs the engine (createEngine, through defaultEngine) and every module behind a call, so nothing of the pipeline tree-shakes away.`,
            `Largest modules of that bundle, minified before gzip (${kB(bundle.breakdown.total)} in all): ${top}.`,
            `For scale, with the same settings: TanStack Query's equivalent imports ${kB(tanstack?.gzip ?? Number.NaN)}, SWR's ${kB(swr?.gzip ?? Number.NaN)} (neither has a breaker, throttle, retry budget, idempotency keys or attempt-level tracing).`,
            'The size-limit budgets in .size-limit.json are set just above the sizes as built, so they stop growth; they do not pretend the 8 kB target is met.',
          ].join(' '),
    });
  }
  return verdicts;
}

function verdictTable(verdicts: Verdict[]): string {
  return table(
    ['target', 'met', 'measured'],
    verdicts.map((verdict) => [
      verdict.target,
      verdict.met === undefined ? '–' : verdict.met ? 'yes' : '**no**',
      verdict.figure,
    ]),
  );
}

function sections(results: BenchResults): string[] {
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
      `### 3. Engine overhead\n\nAgainst a ${overhead.network.origin} in another process. Stitch configured with ${JSON.stringify(overhead.policies)}; every call has its own URL, so nothing is coalesced or cached. Each run alternates fetch and Stitch in ${overhead.network.slices} slices (so both see the same load on the machine); ratios are medians of the per-run ratios. _CPU µs/call_ is the client process's CPU time per call, the figure least disturbed by other load.\n\n${networkTable(overhead)}\n\n${inProcessTable(overhead)}`,
    );
  }
  if (bundle) {
    out.push(
      `### 4. Bundle size\n\n${bundle.settings}.\n\n${bundleTable(bundle)}\n\n${sizeLimitTable(bundle)}`,
    );
  }
  return out;
}

/** The tables and verdicts, as printed at the end of `npm run bench`. */
export function renderTables(results: BenchResults): string {
  return [...sections(results), `### Targets\n\n${verdictTable(judge(results))}`].join('\n\n');
}

function everyRun(results: BenchResults): string {
  const lines: string[] = [];
  const list = (values: number[], digits: number) => values.map((value) => fixed(value, digits)).join(', ');
  const { search, fanin, overhead } = results.suites;
  if (search) {
    lines.push('**Search**', '');
    for (const row of search.rows) {
      const fields = Object.entries(row).filter(([, value]) => typeof value === 'object') as Array<
        [string, Sample]
      >;
      lines.push(
        `- ${row.label}${row.strict ? ' (StrictMode)' : ''}: ${fields.map(([name, value]) => `${name} [${list(value.runs, name.endsWith('Ms') ? 1 : 0)}]`).join('; ')}`,
      );
    }
    lines.push('');
  }
  if (fanin) {
    lines.push('**Fan-in**', '');
    for (const row of fanin.rows) {
      const fields = Object.entries(row).filter(([, value]) => typeof value === 'object') as Array<
        [string, Sample]
      >;
      lines.push(
        `- ${row.label}${row.strict ? ' (StrictMode)' : ''}: ${fields.map(([name, value]) => `${name} [${list(value.runs, name.endsWith('Ms') ? 1 : 0)}]`).join('; ')}`,
      );
    }
    lines.push('');
  }
  if (overhead) {
    lines.push(
      '**Engine overhead, network** (p50/p99 in ms, throughput in calls/s, client CPU in µs per call)',
      '',
    );
    for (const row of overhead.network.rows) {
      for (const name of ['fetch', 'stitch'] as const) {
        const runs = row.runs[name];
        lines.push(
          `- concurrency ${row.concurrency}, ${name}: p50 [${list(runs.p50, 3)}]; p99 [${list(runs.p99, 3)}]; throughput [${list(runs.throughput, 0)}]; client CPU µs/call [${list(runs.cpuPerCallUs, 1)}]`,
        );
      }
    }
    lines.push('', '**Engine overhead, in process** (ns per call, wall / CPU)', '');
    for (const row of overhead.inProcess.rows) {
      lines.push(
        `- ${row.label.trim()}: wall [${list(row.runs.wallNs, 0)}]; CPU [${list(row.runs.cpuNs, 0)}]`,
      );
    }
    const a = overhead.inProcess.allocations;
    lines.push(
      '',
      `Per full-pipeline call: ${fixed(a.abortControllersPerCall, 2)} AbortControllers, ${fixed(a.timersPerCall, 2)} timers, ${fixed(a.eventsPerCall, 2)} events; one \`new AbortController()\` + \`abort()\` costs ${fixed(a.nsPerAbortController, 0)} ns of CPU here.`,
    );
  }
  return lines.join('\n');
}

/** bench/RESULTS.md. */
export function renderMarkdown(results: BenchResults): string {
  const { machine, versions } = results;
  const verdicts = judge(results);
  const unmet = verdicts.filter((verdict) => verdict.explanation !== undefined);
  const bundle = results.suites.bundle;
  return `${[
    '# Benchmarks',
    '',
    `Generated by \`${results.command}\` (\`node bench/run.mjs\`) on ${results.date}; wall time ${results.wallTimeSeconds} s, build included. Every figure is the median of ${results.runsPerMeasurement} runs; every run's value is listed at the end and in \`bench/results/latest.json\`. These are measurements, not tests: nothing here has a threshold in \`npm test\`. The size budgets live in \`.size-limit.json\` and are enforced by \`npm run check\`.`,
    '',
    '## Machine and versions',
    '',
    `- \`os.cpus()\`: ${machine.cpus} × ${machine.cpuModel} (${machine.cpuSpeedMHz > 0 ? `${machine.cpuSpeedMHz} MHz` : 'speed not reported'}), ${machine.memoryGB} GB memory, ${machine.os} ${machine.arch}`,
    `- load average (1, 5, 15 min) ${machine.loadAverageAtStart.join(' / ')} at the start, ${machine.loadAverageAtEnd.join(' / ')} at the end: other work on the machine shares its cores, so absolute timings are noisy; compare libraries within one run`,
    ...Object.entries(versions).map(([name, version]) => `- ${name} ${version}`),
    "- React runs in development mode (StrictMode only exists there) on a happy-dom document; every library uses Node's own fetch, so an abort closes a real socket, as the vendor's ledger shows.",
    '',
    '## Targets',
    '',
    verdictTable(verdicts),
    '',
    ...(unmet.length > 0
      ? [
          '### Targets not met, and why',
          '',
          ...unmet.flatMap((verdict) => [`**${verdict.target}.** ${verdict.explanation}`, '']),
        ]
      : []),
    '## Results',
    '',
    sections(results).join('\n\n'),
    '',
    '### What the columns mean',
    '',
    '- _fetch calls_: calls the library made to `fetch`; _requests started_: requests that reached the vendor; _completed_: responses the vendor finished writing; _sockets hung up_: requests whose client closed the connection first (an abort); _bytes sent_: response body bytes the vendor wrote.',
    '- _renders (commits)_: commits of the component(s) that read the data (a layout effect without dependencies); _render calls_: calls of their render function (StrictMode calls it twice).',
    "- _ms last key → results_: from the last keystroke to the first commit showing the final query's results. _ms to all resolved_: from `root.render` to the commit where the last of the components shows data.",
    '- In-process figures are per call, awaited one after the other; (c) is per caller, 100 callers joining one execution.',
    ...(bundle
      ? [
          `- Bundle sizes: ${bundle.settings}. Imports per library: ${bundle.rows
            .flatMap((row) =>
              Object.entries(row.sizes).map(
                ([library, size]) => `${row.label} / ${LABELS[library] ?? library}: \`${size?.imports}\``,
              ),
            )
            .join('; ')}.`,
        ]
      : []),
    '',
    '## Every run',
    '',
    everyRun(results),
    '',
  ].join('\n')}`;
}
