/**
 * The overhead suite over the network: bare fetch, fetch given an AbortSignal, and Stitch with
 * every policy on, against a keep-alive node:http vendor in another process, at concurrency 1 and
 * 64, taking turns in slices.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { log } from '../../lib/child';
import { median, percentile, RUNS } from '../../lib/stats';
import { bareCall, type Call, stitchCall } from './calls';

const NETWORK_CALLS = { 1: 1_000, 64: 4_000 } as const;
/** A run takes turns in this many slices, the order rotating, so all see the same load on the machine. */
const SLICES = 4;
/** Bare fetch, fetch given an AbortSignal (what any library that can cancel must pass), Stitch. */
const VARIANTS = ['fetch', 'signal', 'stitch'] as const;
type Variant = (typeof VARIANTS)[number];
const WARM_UP = 200;

interface LoadResult {
  p50: number;
  p99: number;
  /** Calls per second. */
  throughput: number;
  /** CPU time of this (client) process per call, µs: what bounds throughput once the CPU is the limit. */
  cpuPerCallUs: number;
}

/** The state of one variant across the slices of a run. */
interface Tally {
  latencies: number[];
  elapsed: number;
  cpuUs: number;
  calls: number;
}

const tally = (): Tally => ({ latencies: [], elapsed: 0, cpuUs: 0, calls: 0 });

/** Runs `total` calls, `concurrency` at a time, adding their latencies, wall time and CPU to `into`. */
async function slice(call: Call, concurrency: number, total: number, offset: number, into?: Tally) {
  const latencies = new Float64Array(total);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < total; i = next++) {
      const started = performance.now();
      await call(offset + i);
      latencies[i] = performance.now() - started;
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (!into) return;
  for (const latency of latencies) into.latencies.push(latency);
  into.elapsed += elapsed;
  into.cpuUs += used.user + used.system;
  into.calls += total;
}

function finish(result: Tally): LoadResult {
  const sorted = result.latencies.sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    throughput: (result.calls / result.elapsed) * 1_000,
    cpuPerCallUs: result.cpuUs / result.calls,
  };
}

/** Forks bench/suites/loopbackVendor (bundled next to this suite's bundle, whose URL is import.meta.url). */
async function startVendor(): Promise<{ origin: string; child: ChildProcess }> {
  const child = fork(fileURLToPath(new URL('./loopbackVendor.mjs', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [message] = (await once(child, 'message')) as [{ port: number }];
  return { origin: `http://127.0.0.1:${message.port}`, child };
}

export async function network() {
  const { origin, child } = await startVendor();
  const variants = {
    fetch: () => bareCall(origin),
    signal: (): Call => async (i) =>
      (await fetch(`${origin}/item?i=${i}`, { signal: new AbortController().signal })).json(),
    stitch: (): Call => {
      const { call } = stitchCall(origin);
      return async (i) => call(i);
    },
  };
  const results: Record<string, LoadResult[]> = {};
  // Every call gets a URL of its own, across runs too.
  let offset = 0;
  const fresh = () => {
    offset += 100_000;
    return offset;
  };
  // Warm both paths (JIT, the connection pool) before anything is recorded.
  for (const make of Object.values(variants)) await slice(make(), 64, 1_000, fresh());
  for (let run = 0; run < RUNS; run++) {
    for (const concurrency of [1, 64] as const) {
      const calls = { fetch: variants.fetch(), signal: variants.signal(), stitch: variants.stitch() };
      const tallies = { fetch: tally(), signal: tally(), stitch: tally() };
      for (const name of VARIANTS) await slice(calls[name], concurrency, WARM_UP, fresh());
      const size = NETWORK_CALLS[concurrency] / SLICES;
      for (let part = 0; part < SLICES; part++) {
        // The order rotates each slice: none always goes first.
        for (let turn = 0; turn < VARIANTS.length; turn++) {
          const name = VARIANTS[(turn + part + run) % VARIANTS.length] as Variant;
          await slice(calls[name], concurrency, size, fresh(), tallies[name]);
        }
      }
      for (const name of VARIANTS) {
        const id = `${name}@${concurrency}`;
        results[id] = [...(results[id] ?? []), finish(tallies[name])];
      }
    }
    log(`overhead (network): run ${run + 1}/${RUNS}`);
  }
  child.disconnect();
  const fields = ['p50', 'p99', 'throughput', 'cpuPerCallUs'] as const;
  const rows = ([1, 64] as const).map((concurrency) => {
    const runsOf = (name: string, field: keyof LoadResult) =>
      (results[`${name}@${concurrency}`] ?? []).map((result) => result[field]);
    const medians = (name: string) =>
      Object.fromEntries(
        fields.map((field) => [field, median(runsOf(name, field))]),
      ) as unknown as LoadResult;
    const paired = (name: Variant, field: keyof LoadResult) => {
      const bare = runsOf('fetch', field);
      return runsOf(name, field).map((value, run) => value / (bare[run] ?? Number.NaN));
    };
    const ratios = (name: Variant) =>
      Object.fromEntries(
        fields.map((field) => [field, median(paired(name, field))]),
      ) as unknown as LoadResult;
    return {
      concurrency,
      calls: NETWORK_CALLS[concurrency],
      fetch: medians('fetch'),
      signal: medians('signal'),
      stitch: medians('stitch'),
      // The median of per-run ratios: each run measured all three, interleaved, under the same load.
      ratio: ratios('stitch'),
      signalRatio: ratios('signal'),
      runs: Object.fromEntries(
        VARIANTS.map((name) => [
          name,
          Object.fromEntries(fields.map((field) => [field, runsOf(name, field)])),
        ]),
      ),
    };
  });
  return { origin: 'forked node:http server on 127.0.0.1, keep-alive', slices: SLICES, rows };
}
