import { raceAbort } from './abort';
import { type CacheSnapshot, createCache, type DehydratedState } from './cache';
import { cacheKey, createCall } from './call';
import type { CircuitState } from './circuit';
import { readCircuit } from './circuitState';
import { type Clock, createRealClock } from './clock';
import { createCoalescer } from './coalescer';
import type { EngineParts } from './context';
import type { StitchDefinition, StitchEngineLike } from './definition';
import { Emitter } from './emitter';
import { checkEngineOptions, type EngineOptions, type FetchLike, NoFetch } from './engineOptions';
import { configError } from './errors';
import { fanOut, headersShown, SECRET_HEADERS, SECRET_QUERY, type StitchEvent, safely } from './events';
import { createInspector, type InspectListener } from './inspect';
import type { InputArg } from './invoke';
import { createKeys } from './keys';
import { checkHeadersHook } from './outgoing';
import { createParts } from './parts';
import { checkKeyInput, type StitchInput } from './request';
import { boundedShared, isSharedState } from './shared';
import { boundedStore, createLocalStore, timeBound } from './store';

/** Anything that carries a stitch definition: a stitch itself, or its `definition`. */
export type StitchLike<TData = unknown, TInput extends StitchInput = StitchInput> = {
  readonly definition: StitchDefinition<TData, TInput>;
};

/** Runs stitches: owns the store, cache, coalescer, breakers, throttles and retry budgets. */
export interface Engine extends StitchEngineLike {
  /** The engine's clock. */
  readonly clock: Clock;
  /**
   * The stored state of the breaker for `key` (a URL origin unless a stitch sets `circuit.key`).
   * An `open` breaker whose cooldown has passed reads `open` until the next call is let through
   * as its half-open probe.
   */
  circuitState(key: string): Promise<CircuitState>;
  /** The cache key of a read for `input`; `undefined` for a write. */
  keyOf<TInput extends StitchInput>(
    stitch: StitchLike<unknown, TInput>,
    input: TInput | undefined,
  ): string | undefined;
  /** Calls `listener` whenever the snapshot of `key` changes; returns the unsubscribe function. */
  subscribe(key: string, listener: () => void): () => void;
  /** The current snapshot of `key`; the same object until something in it changes. */
  getSnapshot<TData = unknown>(key: string): CacheSnapshot<TData>;
  /**
   * How many subscribers `key` has now (mounted readers): an adapter that writes during a render
   * (a provider taking a server's state in) leaves a key someone shows for after the commit.
   */
  readers(key: string): number;
  /**
   * Marks the cached data of `stitch` (for one input, or all) stale, after a write that changed
   * it. Every mounted reader of such a key refetches at once (one coalesced request however many
   * read it), keeping the stale data on screen with `isFetching` until the new data replaces it;
   * a request in flight from before is not joined and its answer is not cached. A key nobody
   * reads is only marked stale: its next read fetches.
   * @throws StitchError of kind `'config'` naming the field for an input no call could send (a
   * misspelt field or param), which would mark nothing.
   */
  invalidate<TInput extends StitchInput>(stitch: StitchLike<unknown, TInput>, input?: TInput): void;
  /**
   * Calls `listener` after each invalidation (`invalidate`, a mutation's `invalidates`, or an
   * inspector's) with a test of the cache keys it hits, whether the cache holds them or not: for
   * state kept outside the cache (the pages of `useStitchInfinite`) to refetch as the cache's
   * mounted readers do. Returns the unsubscribe function.
   */
  onInvalidate(listener: (matches: (key: string) => boolean) => void): () => void;
  /**
   * Writes the cached data of a read (an optimistic update, or a write's answer): `updater` is
   * the new data, or a function of the current data (`undefined` when there is none) returning
   * it; `undefined`, or the current data itself, leaves the key as it was (nothing is aborted,
   * nobody re-renders): return a new object, as React state asks, since one changed in place is
   * the current data. Otherwise a request in flight for the key is aborted first
   * (its socket closed), with a `DOMException` `AbortError` naming this `setData` as the reason,
   * so its late answer never replaces the written data; mounted readers show the written data
   * (one render per write) and no error. A function is always taken as an updater.
   * @returns the data now in the cache.
   * @throws StitchError of kind `'config'` for a write stitch (only reads are cached), for a
   * definition a newer one of its name replaced (after a hot reload, as a call of it is refused),
   * or naming the field for an input no call could send (a misspelt field or param).
   */
  setData<TData, TInput extends StitchInput>(
    stitch: StitchLike<TData, TInput>,
    input: InputArg<TInput>,
    updater: NoInfer<TData> | ((current: NoInfer<TData> | undefined) => NoInfer<TData> | undefined),
  ): TData | undefined;
  /**
   * The cached data of a read for `input`, whatever its age; `undefined` without any.
   * @throws StitchError of kind `'config'` for a write stitch (only reads are cached), for a
   * definition a newer one of its name replaced, or naming the field for an input no call could
   * send.
   */
  getData<TData, TInput extends StitchInput>(
    stitch: StitchLike<TData, TInput>,
    input: InputArg<TInput>,
  ): TData | undefined;
  /**
   * The cached data, for a server render to hand to the client, with the time it was taken: the
   * client reads each entry's age, whatever its own clock's origin.
   */
  dehydrate(): DehydratedState;
  /**
   * Takes in what `dehydrate` gave, without replacing newer data. Each entry keeps the age it had
   * when the state was taken (its `at`), on this engine's clock. Data this engine fetched while the
   * state was on its way (told by its `wallAt`, as far as the wall clocks agree) is kept too. Data
   * stamped ahead of the clock is taken in as stamped now.
   * @throws StitchError of kind `'config'` naming the field (`state.entries[2]`, say) for a state
   * of any other shape, and then takes in nothing.
   */
  hydrate(state: DehydratedState): void;
  /**
   * Pushes to `listener` every traced event of the runs started while it listens (and the rest
   * of those of a run that started before, while someone else listened), and each
   * change of a cache entry, a breaker and a throttle queue, as it happens. It first hears the
   * state as it stands: one event per cache entry, per throttle key in use and per breaker this
   * engine has written. Nothing is built for it when nobody listens. Returns the unsubscribe
   * function.
   */
  inspect(listener: InspectListener): () => void;
}

/**
 * A `fetch`, bounded by its `init.signal` whether or not it honours it (the platform's does): the
 * abort (a cancel, a timeout) ends the wait at once, and an answer that lands after it has its
 * body cancelled, freeing its socket.
 */
function boundedFetch(fetch: FetchLike): FetchLike {
  return (input, init) => {
    const sending = fetch(input, init);
    const signal = init?.signal;
    if (!signal) return sending;
    return raceAbort(sending, signal).catch((error: unknown) => {
      if (signal.aborted)
        sending.then(
          (late) => late.body?.cancel().catch(() => {}),
          () => {},
        );
      throw error;
    });
  };
}

/** The platform's `fetch`, looked up per request (a test's mock installed later applies). */
const globalFetch: FetchLike = (input, init) => {
  if (typeof globalThis.fetch !== 'function') throw new NoFetch();
  return globalThis.fetch(input, init);
};

/**
 * Creates an isolated engine; tests and apps that want isolation make their own.
 * @throws StitchError of kind `'config'` naming the option at fault (`cacheSize`, `clock.now`, ...).
 */
export function createEngine(options?: EngineOptions): Engine {
  const checked = checkEngineOptions(options);
  const clock = checked.clock ?? createRealClock();
  // The memory store answers at once; only a store of the user's (networked, say) may hang.
  const given = checked.store;
  const bound = timeBound(clock.schedule, checked.storeTimeout);
  const shared = isSharedState(given) ? boundedShared(given, bound) : undefined;
  // A store that implements the shared operations (Redis's) serves every part; the engine's own
  // memory store then holds nothing.
  const store =
    given && !isSharedState(given)
      ? boundedStore(given, clock.schedule, checked.storeTimeout)
      : createLocalStore(() => clock.now());
  const configured = checked.redact.map((name) => name.toLowerCase());
  const secret = new Set([...SECRET_HEADERS, ...SECRET_QUERY, ...configured]);
  const inspector = createInspector();
  // Breakers, throttles and retry budgets: made by the first stitch whose policy needs them.
  const made = createParts({ clock, shared, store, notify: (build) => inspector.notify(build) });
  const parts: EngineParts = {
    // The global fetch is looked up per request (a test's mock installed later applies), and
    // bounded too: a mock or polyfill that ignores the signal must not outlive a deadline.
    fetch: boundedFetch(checked.fetch ?? globalFetch),
    clock,
    use: made.use,
    secret,
    shown: headersShown(secret),
    headers: checkHeadersHook(options?.headers),
  };
  const invalidated = new Emitter<(key: string) => boolean>();
  /** Invalidates the keys `matches` accepts in the cache, then tells the listeners of `onInvalidate`. */
  const invalidateWhere = (matches: (key: string) => boolean) => {
    invalidate(matches);
    invalidated.emit(matches);
  };
  const invalidateKey = (key: string) => () => invalidateWhere((other) => other === key);
  const cache = createCache(clock, checked.cacheSize, (key, snapshot, readers) => {
    if (!inspector.active) return;
    inspector.notify(() => ({
      type: 'cache',
      key,
      snapshot,
      readers,
      at: clock.now(),
      invalidate: invalidateKey(key),
    }));
  });
  const keys = createKeys(secret);
  const traced = fanOut(checked.sinks);
  const inspected = (event: StitchEvent) => {
    traced?.(event);
    inspector.notify(() => ({ type: 'run', event }));
  };
  const { call, invalidate, write, register } = createCall({
    parts,
    cache,
    keys,
    coalescer: createCoalescer(() => parts.clock.now()),
    inspector,
    // Chosen per run: a run started while nobody inspects pays nothing per event for inspection.
    sink: () => (inspector.active ? inspected : traced),
  });

  /**
   * The cache key of a read, for `setData` and `getData`; a write has none. The definition takes
   * its name over first, as a call does: data written through a new definition (after a hot
   * reload) is not dropped by its first call, nor is the old one's read through it.
   */
  const dataKey = (stitch: StitchLike<unknown, never>, input: unknown, method: string) => {
    checkStitch(stitch, method);
    register(stitch.definition);
    checkKeyInput(stitch.definition, input);
    const key = cacheKey(keys, stitch.definition, input as never);
    if (key === undefined) throw configError(stitch.definition.name, method, 'applies to GET and HEAD only');
    return key;
  };

  return {
    call,
    clock,
    circuitState: (key) => readCircuit(shared, store, key),
    keyOf: (stitch, input) => {
      checkStitch(stitch, 'keyOf');
      return cacheKey(keys, stitch.definition, input);
    },
    subscribe: (key, listener) => {
      checkListener(listener);
      return cache.subscribe(key, listener);
    },
    getSnapshot: (key) => cache.snapshot(key),
    readers: (key) => cache.readers(key),
    invalidate(stitch, input) {
      checkStitch(stitch, 'invalidate');
      const { definition } = stitch;
      if (input === undefined) {
        invalidateWhere((key) => keys.belongsTo(key, definition.name));
        return;
      }
      checkKeyInput(definition, input);
      const only = cacheKey(keys, definition, input);
      invalidateWhere((key) => key === only);
    },
    onInvalidate(listener) {
      checkListener(listener);
      const off = invalidated.on(listener);
      return () => void off();
    },
    setData(stitch, input, updater) {
      const key = dataKey(stitch as never, input, 'setData');
      const current = cache.snapshot<never>(key).data;
      const data = typeof updater === 'function' ? (updater as (data: unknown) => never)(current) : updater;
      const name = stitch.definition.name;
      // The current data itself (a rollback with nothing to undo) is no write: nothing aborted.
      if (data !== undefined && data !== current)
        write(key, data, new DOMException(`Overwritten by engine.setData('${name}')`, 'AbortError'));
      return data ?? current;
    },
    getData: (stitch, input) => cache.snapshot<never>(dataKey(stitch as never, input, 'getData')).data,
    dehydrate: () => cache.dehydrate(),
    hydrate: (state) => cache.hydrate(state),
    inspect(listener) {
      checkListener(listener);
      const at = clock.now();
      for (const [key, snapshot, readers] of cache.list())
        safely(listener, { type: 'cache', key, snapshot, readers, at, invalidate: invalidateKey(key) });
      for (const event of made.current(at)) safely(listener, event);
      return inspector.subscribe(listener);
    },
  };
}

/** Where the default engine lives: one per process, whichever copy of the package (ESM, CJS) asks. */
const DEFAULT_ENGINE = /* @__PURE__ */ Symbol.for('stitch-fetch.defaultEngine');

/** The engine stitches run on when a call names none; created on first use, one per process. */
export function defaultEngine(): Engine {
  const holder = globalThis as { [DEFAULT_ENGINE]?: Engine };
  holder[DEFAULT_ENGINE] ??= createEngine();
  return holder[DEFAULT_ENGINE];
}

/** Whether `value` is a stitch (of either entry, any copy of the package): it has a named definition. */
export const isStitchLike = (value: unknown): value is StitchLike<unknown, never> =>
  typeof (value as StitchLike<unknown, never> | null)?.definition?.name === 'string';

/** What an engine method is given as a stitch must be one: anything else is a `config` error naming the method. */
function checkStitch(stitch: unknown, method: string): void {
  if (!isStitchLike(stitch)) throw configError(undefined, method, 'takes a stitch first');
}

/** A listener given to the engine must be a function: anything else is a `config` error now, not a TypeError later. */
function checkListener(listener: unknown): void {
  if (typeof listener !== 'function') throw configError(undefined, 'listener', 'must be a function');
}
