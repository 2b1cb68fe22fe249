/**
 * Judges the issue's targets against the suites' results. Every verdict is computed from the
 * figures, never written by hand, so the report cannot claim what the run did not show.
 */
import { fixed, int, kB, percent, table, µs } from './format';
import type { BenchResults } from './results';
import type { Sample } from './stats';

export interface Verdict {
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

export function judge(results: BenchResults): Verdict[] {
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

    // Commits while typing: Stitch's median per StrictMode setting against TanStack Query's.
    const commits = [false, true].map((strict) => {
      const of = (library: string) =>
        search.rows.find((row) => row.library === library && row.strict === strict)?.renders.median;
      return { strict, stitch: of('stitch'), tanstack: of('tanstack') };
    });
    verdicts.push({
      target: 'Search: Stitch commits no more often than TanStack Query, with and without StrictMode',
      met: commits.every(
        ({ stitch, tanstack }) => stitch !== undefined && tanstack !== undefined && stitch <= tanstack,
      ),
      figure: commits
        .map(
          ({ strict, stitch, tanstack }) =>
            `${strict ? 'StrictMode' : 'plain'}: ${stitch === undefined ? '–' : int(stitch)} vs ${tanstack === undefined ? '–' : int(tanstack)}`,
        )
        .join('; '),
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

export function verdictTable(verdicts: Verdict[]): string {
  return table(
    ['target', 'met', 'measured'],
    verdicts.map((verdict) => [
      verdict.target,
      verdict.met === undefined ? '–' : verdict.met ? 'yes' : '**no**',
      verdict.figure,
    ]),
  );
}
