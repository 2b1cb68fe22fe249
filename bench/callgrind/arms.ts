/**
 * The arms whose instructions per call are counted: each sets up its calls around the in-process
 * stub fetch (from the overhead suite's calls.ts, so both measure the same thing) and returns one
 * step, the unit the count loop repeats, with how many callers a step serves.
 */
import {
  bareCall,
  cacheHitCall,
  cockatielCall,
  JOINERS,
  joinBatch,
  POLICIES,
  STUB_ORIGIN,
  stitchCall,
  stubFetch,
  tanstackCall,
} from '../suites/overhead/calls';

export const ARM_NAMES = [
  'bare',
  'cockatiel',
  'tanstack',
  'pipeline',
  'noPolicies',
  'cacheHit',
  'joiner',
] as const;
/** The in-process arms (bench/callgrind/arm.ts runs them). */
export type StubArmName = (typeof ARM_NAMES)[number];

export interface Arm {
  label: string;
  /** Callers one step serves: the count is divided by steps × callers. */
  callers: number;
  /** Steps counted per arm (fewer where a step is many calls). */
  steps: number;
  /**
   * Steps run before counting. At least 20 even for the joiners: code that runs once per step
   * (the joiners' one execution) must have run often enough to be compiled and given its
   * feedback, or the count takes those first runs in and varies with them.
   */
  warmUpSteps: number;
  /** Builds the arm's state; the step it returns takes the step's number. */
  setup: () => Promise<(step: number) => Promise<unknown>>;
}

/** How many calls are counted per arm (joiners: this many callers, in steps of {@link JOINERS}). */
export const CALLS = Math.max(100, Number(process.env.BENCH_CALLS ?? 2_000) || 2_000);

const single = (label: string, setup: Arm['setup']): Arm => ({
  label,
  callers: 1,
  steps: CALLS,
  warmUpSteps: 200,
  setup,
});

export const ARMS: Record<StubArmName, Arm> = {
  bare: single('bare stub fetch + res.json()', async () => bareCall(STUB_ORIGIN, stubFetch)),
  cockatiel: single('cockatiel wrap(timeout, retry, circuitBreaker, bulkhead) + stub fetch', async () =>
    cockatielCall(STUB_ORIGIN, stubFetch),
  ),
  tanstack: single('TanStack Query fetchQuery (query-core, retry off) + stub fetch', async () =>
    tanstackCall(STUB_ORIGIN, stubFetch),
  ),
  pipeline: single(
    'Stitch full pipeline (retry + timeout + circuit + throttle)',
    async () => stitchCall(STUB_ORIGIN, stubFetch).call,
  ),
  noPolicies: single(
    'Stitch, no policies (retry, circuit off)',
    async () => stitchCall(STUB_ORIGIN, stubFetch, { retry: false, circuit: false }).call,
  ),
  cacheHit: single('Stitch cache hit', () => cacheHitCall(STUB_ORIGIN, stubFetch)),
  joiner: {
    label: `Stitch full pipeline, ${JOINERS} coalesced joiners (per joiner)`,
    callers: JOINERS,
    steps: Math.ceil(CALLS / JOINERS),
    warmUpSteps: 20,
    async setup() {
      const { call } = stitchCall(STUB_ORIGIN, stubFetch, POLICIES);
      return (step) => joinBatch(call, step);
    },
  },
};
