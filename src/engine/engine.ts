import type { EngineParts } from './attempt';
import { type CacheSnapshot, createCache, type DehydratedState } from './cache';
import { cacheKey, createCall } from './call';
import { type Circuit, type CircuitState, createCircuit } from './circuit';
import { type Clock, createRealClock } from './clock';
import { createCoalescer } from './coalescer';
import { checkEngineOptions } from './engineOptions';
import { fanOut, SECRET_HEADERS, SECRET_QUERY, type TraceSink } from './events';
import { createKeys } from './keys';
import { createLedger } from './ledger';
import type { StitchInput } from './request';
import { createRetryBudget } from './retry';
import { boundedShared, isSharedState, type SharedState, sharedRates, storeState } from './shared';
import type { StitchDefinition, StitchEngineLike } from './stitch';
import { boundedStore, createMemoryStore, type Store, timeBound } from './store';
import { createThrottle } from './throttle';

/** Everything `createEngine` accepts; all optional. */
export interface EngineOptions {
  /** @default globalThis.fetch (looked up per request, so test mocks installed later apply) */
  fetch?: typeof globalThis.fetch;
  /**
   * Where breakers and idempotency records live: a `Store`, or a store that shares state between
   * processes itself (`createRedisStore` from `stitch-fetch/redis`), which then also holds the
   * throttle's shared rate and the retry budget. @default an in-memory store
   */
  store?: Store | SharedState;
  /** Must have `now` (monotonic), `wallNow`, `schedule` and `sleep` (see {@link Clock}). @default the real clock */
  clock?: Clock;
  /** Sinks that see every event of every run, secrets redacted. @default none */
  trace?: TraceSink | readonly TraceSink[];
  /** More header or query names to redact, besides {@link SECRET_HEADERS} and {@link SECRET_QUERY}. @default [] */
  redact?: readonly string[];
  /** How many cache keys are kept (an integer ≥ 0, or `Infinity`); the least recently used go first, never one in use. @default 1000 */
  cacheSize?: number;
  /**
   * How long (ms, > 0) an operation of `store` may take before the call fails open without it
   * (`Infinity`: no bound). It never stretches a call's own deadline. @default 1000
   */
  storeTimeout?: number;
}

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
   * Marks the cached data of `stitch` (for one input, or all) stale, after a write that changed
   * it. Every mounted reader of such a key refetches at once (one coalesced request however many
   * read it), keeping the stale data on screen with `isFetching` until the new data replaces it;
   * a request in flight from before is not joined and its answer is not cached. A key nobody
   * reads is only marked stale: its next read fetches.
   */
  invalidate<TInput extends StitchInput>(stitch: StitchLike<unknown, TInput>, input?: TInput): void;
  /** The cached data, for a server render to hand to the client. */
  dehydrate(): DehydratedState;
  /** Takes in what `dehydrate` gave, without replacing newer data. */
  hydrate(state: DehydratedState): void;
}

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
  const shared = isSharedState(given)
    ? boundedShared(given, bound)
    : storeState(
        given
          ? boundedStore(given, clock.schedule, checked.storeTimeout)
          : createMemoryStore(() => clock.now()),
        () => clock.now(),
      );
  const configured = checked.redact.map((name) => name.toLowerCase());
  const secret = new Set([...SECRET_HEADERS, ...SECRET_QUERY, ...configured]);
  const circuit: Circuit = createCircuit({ shared });
  const parts: EngineParts = {
    fetch: checked.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    clock,
    circuit,
    throttle: createThrottle(clock),
    budget:
      shared.budget && shared.shareBudget
        ? shared.shareBudget({ budget: shared.budget }, createRetryBudget(clock), clock)
        : createRetryBudget(clock),
    rates: sharedRates(shared, clock),
    secret,
  };
  const cache = createCache(clock, checked.cacheSize);
  const keys = createKeys(secret);
  const { call, invalidate } = createCall({
    parts,
    cache,
    keys,
    coalescer: createCoalescer(),
    ledger: createLedger(shared),
    sink: fanOut(checked.sinks),
  });

  return {
    call,
    clock,
    circuitState: (key) => circuit.state(key),
    keyOf: (stitch, input) => cacheKey(keys, stitch.definition, input),
    subscribe: (key, listener) => cache.subscribe(key, listener),
    getSnapshot: (key) => cache.snapshot(key),
    invalidate(stitch, input) {
      const { definition } = stitch;
      if (input === undefined) {
        invalidate((key) => keys.belongsTo(key, definition.name));
        return;
      }
      const only = cacheKey(keys, definition, input);
      invalidate((key) => key === only);
    },
    dehydrate: () => cache.dehydrate(),
    hydrate: (state) => cache.hydrate(state),
  };
}

let fallback: Engine | undefined;

/** The engine stitches run on when a call names none; created on first use. */
export function defaultEngine(): Engine {
  fallback ??= createEngine();
  return fallback;
}
