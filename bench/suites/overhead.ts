/**
 * Suite 3, engine overhead.
 *
 * Over the network: bare `fetch` + `res.json()` against Stitch with retry, timeout (each and
 * total), circuit breaker and throttle (concurrency and rate) all configured, none of them ever
 * triggered, against a keep-alive node:http vendor in another process on 127.0.0.1. Each call
 * has its own URL (`?i=n`), so Stitch's coalescer never merges two calls. At concurrency 1 and
 * 64: p50 and p99 latency, throughput, the client's CPU per call, and Stitch's ratio to bare
 * fetch. The two alternate in slices within each run, so both see the same load on the machine.
 *
 * In process, with a stub fetch that resolves a Response at once: wall and CPU ns per call for
 * (a) a cache hit, (b) the full pipeline, (c) each of 100 callers coalesced onto one execution;
 * the same policies composed with cockatiel, `wrap(timeout, retry, circuitBreaker, bulkhead)`,
 * around the same stub; Stitch with its policies switched on one by one; and what one pipeline
 * call allocates that Node makes costly (AbortControllers, timers, events).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import {
  bulkhead,
  ConsecutiveBreaker,
  circuitBreaker,
  ExponentialBackoff,
  handleAll,
  retry,
  TimeoutStrategy,
  timeout,
  wrap,
} from 'cockatiel';
import { createEngine, type Engine, type StitchConfig, type StitchRun, stitch } from '../../src/index';
import { log, runSuite } from '../lib/child';
import { median, percentile, RUNS } from '../lib/stats';

/** The Stitch configuration under test: every policy on, sized so none ever triggers. */
export const POLICIES = {
  retry: { attempts: 3 },
  timeout: { each: 2_000, total: 8_000 },
  circuit: { failures: 5, cooldown: 30_000 },
  throttle: { concurrency: 256, rate: '200000/s' },
} satisfies Partial<StitchConfig>;

const NETWORK_CALLS = { 1: 1_000, 64: 4_000 } as const;
/** A run alternates fetch and Stitch in this many slices (ABBA…), so both see the same load on the machine. */
const SLICES = 4;
const WARM_UP = 200;

type Call = (i: number) => Promise<unknown>;

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

async function startVendor(): Promise<{ origin: string; child: ChildProcess }> {
  const child = fork(fileURLToPath(new URL('./loopbackVendor.mjs', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [message] = (await once(child, 'message')) as [{ port: number }];
  return { origin: `http://127.0.0.1:${message.port}`, child };
}

/** A fresh engine and stitch per measurement, so no state (breaker, rate window) carries over. */
function stitchCall(
  origin: string,
  fetch?: typeof globalThis.fetch,
  policies: Partial<StitchConfig> = POLICIES,
): { call: (i: number) => StitchRun<unknown>; engine: Engine } {
  const engine = createEngine(fetch ? { fetch } : {});
  const item = stitch<unknown, { query: { i: number } }>({
    name: 'item',
    url: `${origin}/item`,
    ...policies,
  });
  return { engine, call: (i) => item({ query: { i } }, { engine }) };
}

const bareCall =
  (origin: string, fetch: typeof globalThis.fetch = globalThis.fetch): Call =>
  async (i) =>
    (await fetch(`${origin}/item?i=${i}`)).json();

async function network() {
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

const STUB_BODY = JSON.stringify({ id: 7, name: 'Ada Lovelace', email: 'ada@example.com', active: true });
const stubFetch: typeof globalThis.fetch = async () =>
  new Response(STUB_BODY, { headers: { 'content-type': 'application/json' } });
const STUB_ORIGIN = 'http://stub.invalid';

/** Per call: wall-clock ns, and CPU ns of this process (less exposed to other load on the machine). */
interface PerCall {
  wallNs: number;
  cpuNs: number;
}

/** Times `body`, which makes `calls` calls; returns the cost per call. */
async function perCall(calls: number, body: () => Promise<void>): Promise<PerCall> {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await body();
  const wall = Number(process.hrtime.bigint() - started);
  const used = process.cpuUsage(cpu);
  return { wallNs: wall / calls, cpuNs: ((used.user + used.system) * 1_000) / calls };
}

/** Sequential calls: the cost of each of `count` awaited calls. */
function sequential(call: Call, count: number): Promise<PerCall> {
  return perCall(count, async () => {
    for (let i = 0; i < count; i++) await call(i);
  });
}

const cockatielPolicy = () =>
  wrap(
    timeout(POLICIES.timeout.total, TimeoutStrategy.Cooperative),
    retry(handleAll, { maxAttempts: POLICIES.retry.attempts - 1, backoff: new ExponentialBackoff() }),
    circuitBreaker(handleAll, {
      halfOpenAfter: POLICIES.circuit.cooldown,
      breaker: new ConsecutiveBreaker(POLICIES.circuit.failures),
    }),
    bulkhead(POLICIES.throttle.concurrency, Number.MAX_SAFE_INTEGER),
  );

const JOINERS = 100;

/** Stitch with the policies switched on one by one, to show what each costs (no failures). */
const LADDER: Array<{ name: string; label: string; policies: Partial<StitchConfig> }> = [
  {
    name: 'ladderNone',
    label: 'Stitch, no policies (retry, circuit off)',
    policies: { retry: false, circuit: false },
  },
  { name: 'ladderRetry', label: 'Stitch with retry', policies: { retry: POLICIES.retry, circuit: false } },
  {
    name: 'ladderTimeout',
    label: 'Stitch with retry and timeouts',
    policies: { retry: POLICIES.retry, timeout: POLICIES.timeout, circuit: false },
  },
  {
    name: 'ladderCircuit',
    label: 'Stitch with retry, timeouts and circuit breaker',
    policies: { retry: POLICIES.retry, timeout: POLICIES.timeout, circuit: POLICIES.circuit },
  },
];

interface Measurement {
  label: string;
  count: number;
  /** Cost per call (per joiner for `coalesced100`). */
  measure: (count: number) => Promise<PerCall>;
}

const inProcess: Record<string, Measurement> = {
  fetchStub: {
    label: 'bare stub fetch + res.json()',
    count: 10_000,
    measure: (count) => sequential(bareCall(STUB_ORIGIN, stubFetch), count),
  },
  cacheHit: {
    label: '(a) Stitch cache hit',
    count: 10_000,
    async measure(count) {
      const engine = createEngine({ fetch: stubFetch });
      const item = stitch({
        name: 'cached',
        url: `${STUB_ORIGIN}/item`,
        ...POLICIES,
        cache: { ttl: 3_600_000 },
      });
      await item({ query: { i: 0 } }, { engine });
      return sequential(async () => item({ query: { i: 0 } }, { engine }), count);
    },
  },
  pipeline: {
    label: '(b) Stitch full pipeline (retry + timeout + circuit + throttle)',
    count: 4_000,
    async measure(count) {
      const { call } = stitchCall(STUB_ORIGIN, stubFetch);
      return sequential(async (i) => call(i), count);
    },
  },
  coalesced100: {
    label: `(c) Stitch full pipeline, ${JOINERS} coalesced joiners (per joiner)`,
    count: 60,
    async measure(count) {
      const { call } = stitchCall(STUB_ORIGIN, stubFetch);
      return perCall(count * JOINERS, async () => {
        for (let batch = 0; batch < count; batch++) {
          await Promise.all(Array.from({ length: JOINERS }, () => call(batch)));
        }
      });
    },
  },
  cockatiel: {
    label: 'cockatiel wrap(timeout, retry, circuitBreaker, bulkhead) + stub fetch',
    count: 10_000,
    measure(count) {
      const policy = cockatielPolicy();
      const call: Call = (i) =>
        policy.execute(async ({ signal }) =>
          (await stubFetch(`${STUB_ORIGIN}/item?i=${i}`, { signal })).json(),
        );
      return sequential(call, count);
    },
  },
  ...Object.fromEntries(
    LADDER.map(({ name, label, policies }): [string, Measurement] => [
      name,
      {
        label,
        count: 4_000,
        async measure(count) {
          const { call } = stitchCall(STUB_ORIGIN, stubFetch, policies);
          return sequential(async (i) => call(i), count);
        },
      },
    ]),
  ),
};

/**
 * What one full-pipeline call allocates that Node makes costly: AbortControllers and timers
 * (counted by wrapping the globals the engine reads at call time), and the events its run logs.
 */
async function allocations(calls: number) {
  const { call } = stitchCall(STUB_ORIGIN, stubFetch);
  const NativeController = globalThis.AbortController;
  const nativeSetTimeout = globalThis.setTimeout;
  let controllers = 0;
  let timers = 0;
  let events = 0;
  globalThis.AbortController = class extends NativeController {
    constructor() {
      super();
      controllers += 1;
    }
  };
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    timers += 1;
    return nativeSetTimeout(...args);
  }) as typeof setTimeout;
  try {
    for (let i = 0; i < calls; i++) {
      const run = call(i);
      await run;
      events += run.events.length;
    }
  } finally {
    globalThis.AbortController = NativeController;
    globalThis.setTimeout = nativeSetTimeout;
  }
  const count = 20_000;
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) new AbortController().abort();
  const used = process.cpuUsage(cpu);
  const controllerNs = ((used.user + used.system) * 1_000) / count;
  return {
    abortControllersPerCall: controllers / calls,
    timersPerCall: timers / calls,
    eventsPerCall: events / calls,
    nsPerAbortController: controllerNs,
  };
}

async function stub() {
  const names = Object.keys(inProcess);
  const runs: Record<string, PerCall[]> = {};
  // Warm-up: every path compiled and optimised before anything is recorded.
  for (const name of names) await inProcess[name]?.measure(Math.ceil((inProcess[name]?.count ?? 0) / 2));
  for (let run = 0; run < RUNS; run++) {
    // Rotated, and reversed every other run, so no measurement always follows the same one.
    const order = names.map((_, i) => names[(i + run) % names.length] as string);
    if (run % 2 === 1) order.reverse();
    for (const name of order) {
      const entry = inProcess[name];
      if (!entry) continue;
      runs[name] = [...(runs[name] ?? []), await entry.measure(entry.count)];
    }
    log(`overhead (in-process): run ${run + 1}/${RUNS}`);
  }
  const wall = (name: string) => (runs[name] ?? []).map((run) => run.wallNs);
  const cpu = (name: string) => (runs[name] ?? []).map((run) => run.cpuNs);
  return {
    rows: names.map((name) => ({
      name,
      label: inProcess[name]?.label ?? name,
      wallNs: median(wall(name)),
      cpuNs: median(cpu(name)),
      cpuOverFetchStubNs: median(cpu(name)) - median(cpu('fetchStub')),
      runs: { wallNs: wall(name), cpuNs: cpu(name) },
    })),
    allocations: await allocations(200),
  };
}

runSuite(async () => {
  // In process first, on a fresh heap; the network part's heap and sockets do not matter to it.
  const stubbed = await stub();
  return { policies: POLICIES, network: await network(), inProcess: stubbed };
});
