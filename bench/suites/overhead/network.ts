/**
 * The overhead suite over the network: bare fetch against Stitch with every policy on, against a
 * keep-alive node:http vendor in another process, at concurrency 1 and 64, alternating in slices.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { log } from '../../lib/child';
import { median, percentile, RUNS } from '../../lib/stats';
import { bareCall, type Call, stitchCall } from './calls';

const NETWORK_CALLS = { 1: 1_000, 64: 4_000 } as const;
/** A run alternates fetch and Stitch in this many slices (ABBA…), so both see the same load on the machine. */
const SLICES = 4;
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
      const calls = { fetch: variants.fetch(), stitch: variants.stitch() };
      const tallies = { fetch: tally(), stitch: tally() };
      for (const name of ['fetch', 'stitch'] as const)
        await slice(calls[name], concurrency, WARM_UP, fresh());
      const size = NETWORK_CALLS[concurrency] / SLICES;
      for (let part = 0; part < SLICES; part++) {
        // fetch, stitch, stitch, fetch, …: neither always goes first.
        const order =
          (part + run) % 2 === 0 ? (['fetch', 'stitch'] as const) : (['stitch', 'fetch'] as const);
        for (const name of order) await slice(calls[name], concurrency, size, fresh(), tallies[name]);
      }
      for (const name of ['fetch', 'stitch'] as const) {
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
    const paired = (field: keyof LoadResult) => {
      const bare = runsOf('fetch', field);
      return runsOf('stitch', field).map((value, run) => value / (bare[run] ?? Number.NaN));
    };
    return {
      concurrency,
      calls: NETWORK_CALLS[concurrency],
      fetch: medians('fetch'),
      stitch: medians('stitch'),
      // The median of per-run ratios: each run measured both, interleaved, under the same load.
      ratio: Object.fromEntries(
        fields.map((field) => [field, median(paired(field))]),
      ) as unknown as LoadResult,
      runs: {
        fetch: Object.fromEntries(fields.map((field) => [field, runsOf('fetch', field)])),
        stitch: Object.fromEntries(fields.map((field) => [field, runsOf('stitch', field)])),
      },
    };
  });
  return { origin: 'forked node:http server on 127.0.0.1, keep-alive', slices: SLICES, rows };
}
