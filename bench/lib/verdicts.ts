/**
 * Judges the issue's targets against the suites' results. Every verdict is computed from the
 * figures, never written by hand, so the report cannot claim what the run did not show.
 */
import { fixed, int, kB, percent, table, µs } from './format';
import type { BenchResults } from './results';
import { median, type Sample } from './stats';

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
  const { search, fanin, overhead, bundle } = results.suites;
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

  if (fanin) {
    const runsOf = (library: string, strict: boolean) =>
      fanin.rows.find((row) => row.library === library && row.strict === strict)?.allResolvedMs;
    // Each round ran both libraries back to back: the median of their per-round ratios pairs
    // them, as the overhead's slices do, beside the medians of all runs.
    const against = [false, true].map((strict) => {
      const stitch = runsOf('stitch', strict);
      const tanstack = runsOf('tanstack', strict);
      const paired = median(
        (stitch?.runs ?? []).map((ms, round) => ms / (tanstack?.runs[round] ?? Number.NaN)),
      );
      return { strict, stitch: stitch?.median, tanstack: tanstack?.median, paired };
    });
    const met = against.every(
      ({ stitch, tanstack, paired }) =>
        stitch !== undefined && tanstack !== undefined && stitch <= tanstack && paired <= 1,
    );
    // Each library's fastest and slowest run, beside the medians: how far apart the runs are.
    const spread = (library: string, strict: boolean) => {
      const runs = runsOf(library, strict)?.runs ?? [];
      return `${fixed(Math.min(...runs), 1)}-${fixed(Math.max(...runs), 1)} ms`;
    };
    verdicts.push({
      target:
        'Fan-in: 1,000 components on one key resolve no slower than TanStack Query, with and without StrictMode',
      met,
      explanation: met
        ? undefined
        : `The runs of each: ${against
            .map(
              ({ strict }) =>
                `${strict ? 'StrictMode' : 'plain'}, Stitch ${spread('stitch', strict)} and TanStack Query ${spread('tanstack', strict)}`,
            )
            .join('; ')}.`,
      figure: `${against
        .map(
          ({ strict, stitch, tanstack, paired }) =>
            `${strict ? 'StrictMode' : 'plain'}: ${fixed(stitch ?? Number.NaN, 1)} vs ${fixed(tanstack ?? Number.NaN, 1)} ms (${fixed(paired, 2)} × paired)`,
        )
        .join('; ')}; median of ${fanin.runs} runs, and of the per-round ratios`,
    });
  }

  if (overhead) {
    const rows = Object.fromEntries(overhead.inProcess.rows.map((row) => [row.name, row]));
    const over = (name: string) => rows[name]?.cpuOverFetchStubNs ?? Number.NaN;
    const cpu = (name: string) => rows[name]?.cpuNs ?? Number.NaN;
    const a = overhead.inProcess.allocations;
    const perCall = `Counted per full-pipeline call: ${fixed(a.abortControllersPerCall, 1)} AbortControllers, ${fixed(a.timersPerCall, 1)} timers and ${fixed(a.eventsPerCall, 1)} events logged on the run (an AbortController with an abort costs ${µs(a.nsPerAbortController)} of CPU on this Node).`;
    // The paired slices: each slice's overhead over the bare fetch of the same round, as a ratio.
    const { cpuNs: slices } = overhead.inProcess.paired;
    const overBare = (name: string) =>
      (slices[name] ?? []).map((ns, round) => ns - (slices.fetchStub?.[round] ?? Number.NaN));
    const pairedRatio = (name: string, peer: string) => {
      const peers = overBare(peer);
      return median(overBare(name).map((ns, round) => ns / (peers[round] ?? Number.NaN)));
    };
    const pairedOver = (name: string) => median(overBare(name));
    const rounds = `median of ${slices.fetchStub?.length ?? 0} paired slices`;
    const ratio = pairedRatio('pipeline', 'cockatiel');
    verdicts.push({
      target:
        "Overhead: the full pipeline's CPU over a bare stub fetch ≤ 1.3 × cockatiel's wrap(timeout, retry, breaker, bulkhead)",
      met: ratio <= 1.3,
      figure: `${fixed(ratio, 2)} × (${µs(pairedOver('pipeline'))} vs ${µs(pairedOver('cockatiel'))} per call; ${rounds}; one after the other: ${fixed(over('pipeline') / over('cockatiel'), 2)} ×)`,
      explanation: ratio <= 1.3 ? undefined : perCall,
    });
    const none = pairedRatio('ladderNone', 'tanstack');
    verdicts.push({
      target: "Overhead: Stitch with no policies ≤ TanStack Query's fetchQuery (CPU over a bare stub fetch)",
      met: none <= 1,
      figure: `${fixed(none, 2)} × (${µs(pairedOver('ladderNone'))} vs ${µs(pairedOver('tanstack'))} per call; ${rounds}; one after the other: ${µs(over('ladderNone'))} vs ${µs(over('tanstack'))})`,
    });
    for (const [name, what] of [
      ['cacheHit', 'a cache hit'],
      ['coalesced100', 'a coalesced joiner'],
    ] as const) {
      // Each slice against the bare fetch of the same round, as the ratios above.
      const bare = slices.fetchStub ?? [];
      const share = median((slices[name] ?? []).map((ns, round) => ns / (bare[round] ?? Number.NaN)));
      verdicts.push({
        target: `Overhead: ${what} costs ≤ 30 % of a bare stub fetch's CPU`,
        met: share <= 0.3,
        figure: `${percent(share)} (${µs(median(slices[name] ?? []))} vs ${µs(median(bare))} per call; ${rounds}; one after the other: ${percent(cpu(name) / cpu('fetchStub'))})`,
      });
    }
    // Paired slices on warm engines: what the subscribed keys, or a large full cache, add over
    // the pipeline's overhead.
    const { plainNs, subscribedNs, largeNs } = overhead.inProcess.crowding;
    const addedBy = (slicesOf: number[]) => median(slicesOf) - median(plainNs);
    const crowded = (over('pipeline') + addedBy(subscribedNs)) / over('pipeline');
    const large = (over('pipeline') + addedBy(largeNs)) / over('pipeline');
    verdicts.push({
      target:
        'Cache: eviction is O(1) amortised: 11,000 subscribed keys, or a full cache of 10,000 entries, add ≤ 10 % to a call',
      met: crowded <= 1.1 && large <= 1.1,
      figure: `subscribed: ${fixed(crowded, 2)} × (${µs(addedBy(subscribedNs))} added to ${µs(over('pipeline'))} over the stub); full cache of 10,000: ${fixed(large, 2)} × (${µs(addedBy(largeNs))} added); ${plainNs.length} paired slices`,
    });
    const at64 = overhead.network.rows.find((row) => row.concurrency === 64);
    const throughput = at64?.ratio.throughput ?? Number.NaN;
    // The same pipeline's CPU over its baseline on the loopback and on the stub, in this run.
    const overNetwork =
      ((at64?.stitch.cpuPerCallUs ?? Number.NaN) - (at64?.fetch.cpuPerCallUs ?? Number.NaN)) * 1_000;
    const overStub = pairedOver('pipeline');
    verdicts.push({
      target:
        'Overhead: the full pipeline keeps ≥ 85 % of bare fetch throughput at concurrency 64 on loopback',
      met: throughput >= 0.85,
      figure: `${percent(throughput)} (${int(at64?.stitch.throughput ?? Number.NaN)} vs ${int(at64?.fetch.throughput ?? Number.NaN)} calls/s)`,
      explanation:
        throughput >= 0.85
          ? undefined
          : `The client process is CPU-bound at concurrency 64 (${results.machine.cpus} cores, shared with the vendor and other load: load average ${results.machine.loadAverageAtStart.join(' / ')} at the start): a Stitch call used ${fixed(at64?.ratio.cpuPerCallUs ?? Number.NaN, 2)} × the client CPU of a bare fetch. Passing fetch an AbortSignal alone, as any library that can cancel a request must, keeps ${percent(at64?.signalRatio.throughput ?? Number.NaN)} of bare fetch's throughput here. Over the loopback the pipeline adds ${µs(overNetwork)} of CPU per call, ${fixed(overNetwork / overStub, 1)} × the ${µs(overStub)} it adds over the in-process stub: the same code costs more between real responses than back to back on the stub, so a saving measured on the stub carries over in part only. ${perCall}`,
    });
  }

  if (bundle) {
    const sizeOf = (id: string, library: 'stitch' | 'tanstack' | 'swr') =>
      bundle.rows.find((row) => row.id === id)?.sizes[library]?.gzip ?? Number.NaN;
    const top = bundle.breakdown.modules
      .slice(0, 8)
      .map(
        (module) =>
          `${module.module} ${fixed(module.minified / 1000, 1)} kB (${fixed((module.minified / bundle.breakdown.total) * 100, 0)} %)`,
      )
      .join(', ');
    const app = sizeOf('app', 'stitch');
    verdicts.push({
      target:
        "Bundle: the search component's import (stitch and retry from stitch-fetch/lite, createEngine, useStitch, StitchProvider, skipToken) ≤ 9.5 kB min + gzip",
      met: app <= 9_500,
      figure: `${kB(app)} (TanStack Query ${kB(sizeOf('app', 'tanstack'))}, SWR ${kB(sizeOf('app', 'swr'))})`,
      explanation:
        app <= 9_500
          ? undefined
          : `Largest modules of that bundle, minified before gzip (${kB(bundle.breakdown.total)} in all): ${top}. Policies are values now (only retry is in this bundle; the main entry's stitch, which takes options objects and has the default breaker, weighs ${kB(sizeOf('app-main', 'stitch'))} here), so what is left is the engine's core itself: the call, request, cache, coalescer, run (its events, report and stream), send and the hooks' observer.`,
    });
    const call = sizeOf('call', 'stitch');
    verdicts.push({
      target: 'Bundle: a bare import { stitch } (from stitch-fetch/lite) ≤ 6 kB min + gzip',
      met: call <= 6_000,
      figure: `${kB(call)} (the main entry's: ${kB(sizeOf('call-main', 'stitch'))})`,
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
