/**
 * The overhead suite in process, with a stub fetch that resolves a Response at once: wall and CPU
 * ns per call of Stitch (cache hit, full pipeline, coalesced joiners, policies one by one), of
 * cockatiel's equivalent policies, and what one pipeline call allocates.
 */

import type { StitchConfig } from '../../../src/index';
import { log } from '../../lib/child';
import { median, RUNS } from '../../lib/stats';
import {
  bareCall,
  type Call,
  cacheHitCall,
  cockatielCall,
  JOINERS,
  joinBatch,
  POLICIES,
  STUB_ORIGIN,
  stitchCall,
  stubFetch,
  tanstackCall,
} from './calls';

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

/** Keys read elsewhere while the pipeline runs: eviction must not walk them on every store. */
const SUBSCRIBED = 11_000;

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

const MEASUREMENTS: Record<string, Measurement> = {
  fetchStub: {
    label: 'bare stub fetch + res.json()',
    count: 10_000,
    measure: (count) => sequential(bareCall(STUB_ORIGIN, stubFetch), count),
  },
  cacheHit: {
    label: '(a) Stitch cache hit',
    count: 10_000,
    async measure(count) {
      return sequential(await cacheHitCall(STUB_ORIGIN, stubFetch), count);
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
          await joinBatch(call, batch);
        }
      });
    },
  },
  tanstack: {
    label: 'TanStack Query fetchQuery (query-core, retry off) + stub fetch',
    count: 10_000,
    measure: (count) => sequential(tanstackCall(STUB_ORIGIN, stubFetch), count),
  },
  cockatiel: {
    label: 'cockatiel wrap(timeout, retry, circuitBreaker, bulkhead) + stub fetch',
    count: 10_000,
    measure: (count) => sequential(cockatielCall(STUB_ORIGIN, stubFetch), count),
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
 * `arms` taking turns in `rounds` rounds of one slice of `calls` calls each, every arm warm first,
 * the order rotating each round (so none always follows the same one) and every invocation with
 * its own number: all see the same load on the machine and the same garbage left by the others.
 * An arm named in `batched` makes that many calls per invocation (a batch of joiners), so its
 * slices have `calls / batched` invocations. CPU ns per call of each slice, per arm.
 */
async function takeTurns(
  arms: Record<string, Call>,
  rounds: number,
  calls: number,
  batched: Record<string, number> = {},
) {
  const names = Object.keys(arms);
  let next = 0;
  const slice = async (name: string) => {
    const call = arms[name] as Call;
    const per = batched[name] ?? 1;
    return (await sequential(async () => call(next++), Math.ceil(calls / per))).cpuNs / per;
  };
  for (const name of names) await slice(name);
  const cpuNs: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < names.length; turn++) {
      const name = names[(turn + round) % names.length] as string;
      cpuNs[name]?.push(await slice(name));
    }
  }
  return cpuNs;
}

/** The size of the large cache, filled before it is measured: every call then evicts one entry. */
const LARGE_CACHE = 10_000;

/**
 * Whether subscribed keys or a large cache slow a call (eviction must walk neither): the full
 * pipeline on three engines, one where {@link SUBSCRIBED} other keys have a reader and one with a
 * full cache of {@link LARGE_CACHE} entries, taking turns in 15 slices of 500.
 */
async function crowding() {
  const crowded = stitchCall(STUB_ORIGIN, stubFetch);
  for (let key = 0; key < SUBSCRIBED; key++) crowded.engine.subscribe(`reader ${key}`, () => {});
  const large = stitchCall(STUB_ORIGIN, stubFetch, POLICIES, LARGE_CACHE);
  for (let i = 0; i < LARGE_CACHE; i++) await large.call(-1 - i);
  const {
    plainNs = [],
    subscribedNs = [],
    largeNs = [],
  } = await takeTurns(
    { plainNs: stitchCall(STUB_ORIGIN, stubFetch).call, subscribedNs: crowded.call, largeNs: large.call },
    15,
    500,
  );
  return { plainNs, subscribedNs, largeNs };
}

const PAIRED_CALLS = 1_000;

/**
 * The targets' ratios on equal terms: bare fetch, cockatiel, TanStack Query, Stitch's full
 * pipeline, Stitch with no policies, a cache hit and batches of {@link JOINERS} callers of one
 * execution (per caller) taking turns in 15 slices of {@link PAIRED_CALLS} calls.
 */
async function paired() {
  const joined = stitchCall(STUB_ORIGIN, stubFetch).call;
  const cpuNs = await takeTurns(
    {
      fetchStub: bareCall(STUB_ORIGIN, stubFetch),
      cockatiel: cockatielCall(STUB_ORIGIN, stubFetch),
      tanstack: tanstackCall(STUB_ORIGIN, stubFetch),
      pipeline: stitchCall(STUB_ORIGIN, stubFetch).call,
      ladderNone: stitchCall(STUB_ORIGIN, stubFetch, { retry: false, circuit: false }).call,
      cacheHit: await cacheHitCall(STUB_ORIGIN, stubFetch),
      coalesced100: (batch) => joinBatch(joined, batch),
    },
    15,
    PAIRED_CALLS,
    { coalesced100: JOINERS },
  );
  return { callsPerSlice: PAIRED_CALLS, cpuNs };
}

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
      events += (await call(i).report()).events.length;
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

export async function inProcess() {
  const names = Object.keys(MEASUREMENTS);
  const runs: Record<string, PerCall[]> = {};
  // Warm-up: every path compiled and optimised before anything is recorded.
  for (const name of names)
    await MEASUREMENTS[name]?.measure(Math.ceil((MEASUREMENTS[name]?.count ?? 0) / 2));
  for (let run = 0; run < RUNS; run++) {
    // Rotated, and reversed every other run, so no measurement always follows the same one.
    const order = names.map((_, i) => names[(i + run) % names.length] as string);
    if (run % 2 === 1) order.reverse();
    for (const name of order) {
      const entry = MEASUREMENTS[name];
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
      label: MEASUREMENTS[name]?.label ?? name,
      wallNs: median(wall(name)),
      cpuNs: median(cpu(name)),
      cpuOverFetchStubNs: median(cpu(name)) - median(cpu('fetchStub')),
      runs: { wallNs: wall(name), cpuNs: cpu(name) },
    })),
    crowding: await crowding(),
    paired: await paired(),
    allocations: await allocations(200),
  };
}
