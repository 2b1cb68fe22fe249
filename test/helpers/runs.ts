/**
 * Helpers for tests that drive whole runs end to end: a real vendor over HTTP, an engine on a
 * manual clock, and ways to await what a run settles with or emits. Nothing here knows about a
 * particular scenario; a test file keeps its own stitches and its own expectations.
 */
import { expect, onTestFinished, vi } from 'vitest';
import {
  type CacheSnapshot,
  createEngine,
  type Engine,
  type EngineOptions,
  isStitchError,
  type StitchError,
  type StitchEvent,
  type StitchRun,
} from '../../src/index';
import { createManualClock, type ManualClock } from './clock';
import { createVendor, type LedgerEntry, type Reply, type Vendor } from './vendor';

/** What {@link startScenario} starts for one test. */
export interface Scenario {
  vendor: Vendor;
  clock: ManualClock;
  engine: Engine;
}

/** Options of {@link startScenario}; all may be left out. */
export interface ScenarioOptions {
  /** Answers every request the vendor's script does not; see `createVendor`. @default an echo */
  respond?: (entry: LedgerEntry) => Reply | Promise<Reply>;
  /**
   * The clock the engine runs on. Pass one when something built before the engine has to read
   * it (a store's `now`, say). @default a manual clock set to the real now
   */
  clock?: ManualClock;
  /** The engine's other options (a store, trace sinks, ...); its clock is always `clock`. */
  engine?: Omit<EngineOptions, 'clock'>;
}

/**
 * Starts a vendor and an engine on a manual clock, for the test that calls it (it must be called
 * from inside a test). The vendor is closed when that test finishes, passed or failed, so a test
 * file needs no module-level vendor nor an `afterEach` of its own, and a test may start more than
 * one scenario without leaking the earlier vendors.
 *
 * The clock is manual so no backoff sleep or deadline depends on real time: a test moves time
 * itself, and can check `clock.pending()` to prove a run left no timer behind.
 */
export async function startScenario(options: ScenarioOptions = {}): Promise<Scenario> {
  const vendor = await createVendor(options.respond ? { respond: options.respond } : {});
  onTestFinished(() => vendor.close());
  const clock = options.clock ?? createManualClock(Date.now());
  const engine = createEngine({ ...options.engine, clock });
  return { vendor, clock, engine };
}

/**
 * Spies for the hooks that tell a cancel from a failure: a failed run fires `onError` (and
 * `onRetry` before each backoff), a cancelled one only `onCancel`. Pass them as a stitch's `hooks`.
 */
export function spyHooks() {
  return { onError: vi.fn(), onRetry: vi.fn(), onCancel: vi.fn() };
}

/**
 * The error a run rejects with; fails the test if it resolves. Anything that is not a
 * `StitchError` is rethrown as is, so a bug surfaces with its own stack rather than as a
 * mismatched expectation.
 */
export function rejection<TData>(run: StitchRun<TData>): Promise<StitchError> {
  return run.then(
    () => expect.fail('expected the run to reject'),
    (error: unknown) => {
      if (!isStitchError(error)) throw error;
      return error;
    },
  );
}

/**
 * Every event of a run, from its start to its 'done'. Start it before acting on the run and await
 * it after: the promise settles only once the run is over.
 */
export async function collect<TData>(run: StitchRun<TData>): Promise<StitchEvent[]> {
  const events: StitchEvent[] = [];
  for await (const event of run.stream()) events.push(event);
  return events;
}

/**
 * Resolves with this run's first event of `type` (past events included, so it cannot miss one
 * emitted before it was called). Rejects if the run ends without one, rather than hang the test.
 */
export async function until<TData, TType extends StitchEvent['type']>(
  run: StitchRun<TData>,
  type: TType,
): Promise<Extract<StitchEvent, { type: TType }>> {
  for await (const event of run.stream()) {
    if (event.type === type) return event as Extract<StitchEvent, { type: TType }>;
  }
  throw new Error(`the run ended without a '${type}' event`);
}

/** The types of `events`, in order: what most stream assertions compare. */
export function eventTypes(events: readonly StitchEvent[]): Array<StitchEvent['type']> {
  return events.map((event) => event.type);
}

/**
 * How many of `runs` have settled so far, either way: a counter to read after an abort, to prove
 * which callers settled at once and which still wait.
 */
export function settledCount(runs: readonly StitchRun<unknown>[]): () => number {
  let settled = 0;
  for (const run of runs) {
    run.then(
      () => settled++,
      () => settled++,
    );
  }
  return () => settled;
}

/** Resolves with the first snapshot of `key` that passes `test` (the current one included). */
export function snapshotWhere<TData>(
  engine: Engine,
  key: string,
  test: (snapshot: CacheSnapshot<TData>) => boolean,
): Promise<CacheSnapshot<TData>> {
  return new Promise((resolve) => {
    let unsubscribe: (() => void) | undefined;
    const check = () => {
      const snapshot = engine.getSnapshot<TData>(key);
      if (!test(snapshot)) return;
      unsubscribe?.();
      unsubscribe = () => {};
      resolve(snapshot);
    };
    unsubscribe = engine.subscribe(key, check);
    check();
  });
}
