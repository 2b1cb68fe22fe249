/**
 * What the overhead suite calls: Stitch with every policy on (sized so none ever triggers), and
 * bare `fetch` + `res.json()`, each taking the call's number (`?i=n`, so no two calls coalesce).
 */
import { createEngine, type Engine, type StitchConfig, type StitchRun, stitch } from '../../../src/index';

/** The Stitch configuration under test: every policy on, sized so none ever triggers. */
export const POLICIES = {
  retry: { attempts: 3 },
  timeout: { each: 2_000, total: 8_000 },
  circuit: { failures: 5, cooldown: 30_000 },
  throttle: { concurrency: 256, rate: '200000/s' },
} satisfies Partial<StitchConfig>;

export type Call = (i: number) => Promise<unknown>;

/** What the measured stitch takes. */
type ItemInput = { query: { i: number } };

/** A fresh engine and stitch per measurement, so no state (breaker, rate window) carries over. */
export function stitchCall(
  origin: string,
  fetch?: typeof globalThis.fetch,
  policies: Partial<Omit<StitchConfig, 'input'>> = POLICIES,
): { call: (i: number) => StitchRun<unknown>; engine: Engine } {
  const engine = createEngine(fetch ? { fetch } : {});
  const item = stitch<unknown, ItemInput>({
    name: 'item',
    url: `${origin}/item`,
    ...policies,
  });
  return { engine, call: (i) => item({ query: { i } }, { engine }) };
}

export const bareCall =
  (origin: string, fetch: typeof globalThis.fetch = globalThis.fetch): Call =>
  async (i) =>
    (await fetch(`${origin}/item?i=${i}`)).json();
