/**
 * What the overhead suite (and the instruction counts, bench/callgrind) call: Stitch with every
 * policy on (sized so none ever triggers), bare `fetch` + `res.json()`, and the same policies
 * composed with cockatiel and TanStack Query's `fetchQuery`, each taking the call's number
 * (`?i=n`, so no two calls coalesce), around a real fetch or the in-process stub.
 */

import { QueryClient } from '@tanstack/query-core';
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
import {
  circuit,
  createEngine,
  type Engine,
  type StitchConfig,
  type StitchRun,
  stitch,
  retry as stitchRetry,
  throttle,
} from '../../../src/index';

/** Every policy on, sized so none ever triggers: the settings, as the tables print them. */
export const SETTINGS = {
  retry: { attempts: 3 },
  timeout: { each: 2_000, total: 8_000 },
  circuit: { failures: 5, cooldown: 30_000 },
  throttle: { concurrency: 256, rate: '200000/s' },
};

/** {@link SETTINGS} as the Stitch configuration under test, its policies as values. */
export const POLICIES = {
  retry: stitchRetry(SETTINGS.retry),
  timeout: SETTINGS.timeout,
  circuit: circuit(SETTINGS.circuit),
  throttle: throttle(SETTINGS.throttle),
} satisfies Partial<StitchConfig>;

export type Call = (i: number) => Promise<unknown>;

const STUB_BODY = JSON.stringify({ id: 7, name: 'Ada Lovelace', email: 'ada@example.com', active: true });

/** A fetch that resolves a small JSON Response at once: the in-process arms' network. */
export const stubFetch: typeof globalThis.fetch = async () =>
  new Response(STUB_BODY, { headers: { 'content-type': 'application/json' } });

/** The origin the in-process arms call (the stub never resolves it). */
export const STUB_ORIGIN = 'http://stub.invalid';

/** What the measured stitch takes. */
type ItemInput = { query: { i: number } };

/**
 * A fresh engine and stitch per measurement, so no state (breaker, rate window) carries over;
 * `cacheSize` is the engine's. @default the engine's default
 */
export function stitchCall(
  origin: string,
  fetch?: typeof globalThis.fetch,
  policies: Partial<Omit<StitchConfig, 'input'>> = POLICIES,
  cacheSize?: number,
): { call: (i: number) => StitchRun<unknown>; engine: Engine } {
  const engine = createEngine({ ...(fetch && { fetch }), ...(cacheSize && { cacheSize }) });
  const item = stitch<unknown, ItemInput>({
    name: 'item',
    url: `${origin}/item`,
    ...policies,
  });
  return { engine, call: (i) => item({ query: { i } }, { engine }) };
}

/** Bare `fetch` + `res.json()`: the baseline every other call is compared with. */
export const bareCall =
  (origin: string, fetch: typeof globalThis.fetch = globalThis.fetch): Call =>
  async (i) =>
    (await fetch(`${origin}/item?i=${i}`)).json();

/**
 * Stitch with every policy on and a cache entry that stays fresh for an hour: resolves once the
 * entry is stored, with a call that is a cache hit every time (it ignores its number).
 */
export async function cacheHitCall(origin: string, fetch: typeof globalThis.fetch): Promise<Call> {
  const engine = createEngine({ fetch });
  const item = stitch({ name: 'cached', url: `${origin}/item`, ...POLICIES, cache: { ttl: 3_600_000 } });
  await item({ query: { i: 0 } }, { engine });
  return async () => item({ query: { i: 0 } }, { engine });
}

/** How many callers join one execution in the coalescing measurements. */
export const JOINERS = 100;

/** {@link JOINERS} callers of `call` with the same number, so all but the first join its execution. */
export const joinBatch = (call: Call, batch: number): Promise<unknown[]> =>
  Promise.all(Array.from({ length: JOINERS }, () => call(batch)));

/** {@link SETTINGS} composed with cockatiel, `wrap(timeout, retry, circuitBreaker, bulkhead)`, around `fetch`. */
export function cockatielCall(origin: string, fetch: typeof globalThis.fetch): Call {
  const policy = wrap(
    timeout(SETTINGS.timeout.total, TimeoutStrategy.Cooperative),
    retry(handleAll, { maxAttempts: SETTINGS.retry.attempts - 1, backoff: new ExponentialBackoff() }),
    circuitBreaker(handleAll, {
      halfOpenAfter: SETTINGS.circuit.cooldown,
      breaker: new ConsecutiveBreaker(SETTINGS.circuit.failures),
    }),
    bulkhead(SETTINGS.throttle.concurrency, Number.MAX_SAFE_INTEGER),
  );
  return (i) =>
    policy.execute(async ({ signal }) => (await fetch(`${origin}/item?i=${i}`, { signal })).json());
}

/** TanStack Query's `fetchQuery` (query-core, retry off, nothing kept) around `fetch`, a key per number. */
export function tanstackCall(origin: string, fetch: typeof globalThis.fetch): Call {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: 0 } } });
  return (i) =>
    client.fetchQuery({
      queryKey: ['item', i],
      queryFn: async ({ signal }) => (await fetch(`${origin}/item?i=${i}`, { signal })).json(),
    });
}
