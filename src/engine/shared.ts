/**
 * Shared state: what the breaker, idempotency records, and (with a networked store) the throttle's
 * rate, its concurrency slots and the retry budget keep between calls, as a handful of atomic
 * operations. Over the memory store or any `Store`, each policy builds its own on `Store.update`
 * (`storeCircuit`, `storeRecords`); `stitch-fetch/redis` implements them as Lua scripts, each one
 * round trip, timed by the Redis server's clock (the processes' own clocks cannot be compared).
 */
import type { CircuitCommand, CircuitLimits, CircuitState } from './circuit';
import type { Clock } from './clock';
import type { StoreOperation } from './events';
import { hasMethods } from './record';
import type { RetryBudget } from './retry';
import type { AcquireOptions, Release, Throttle, ThrottlePolicy } from './throttle';

/** A breaker operation's result: the state before and after, and the store's time (ms) it used. */
export interface CircuitChange {
  from: CircuitState;
  to: CircuitState;
  /** The time the operation ran at, on the store's clock: `until` and lease `expires` are on it too. */
  now: number;
  /**
   * Set when the store held a corrupt breaker state (a printable account of it): the operation
   * read it as closed and, unless it was a `read`, replaced it.
   */
  corrupt?: string | undefined;
}

/** What an idempotency record says about its key. */
export type Claim =
  /** Nobody holds the key: the caller now does, and sends. */
  | { status: 'claimed' }
  /** Another call holds the key and has not settled it yet. */
  | { status: 'pending' }
  /** A call under this key succeeded; `data` is what it resolved with. */
  | { status: 'done'; data: unknown };

/** A stored idempotency record. */
export type IdempotencyRecord = { state: 'pending'; owner: string } | { state: 'done'; data: unknown };

/** A rate as the throttle keeps it: `count` grants in any `per` ms. */
export interface RateLimits {
  count: number;
  per: number;
}

/** A retry budget as the retry policy keeps it. */
export interface BudgetLimits {
  ratio: number;
  floor: number;
  window: number;
}

/**
 * The operations behind breakers, idempotency records, shared rates, shared concurrency slots and
 * retry budgets. Each one is atomic where the state lives and keeps every entry under a time to
 * live.
 */
export interface SharedState {
  /**
   * Applies `command` to the breaker of `key` and returns what it changed: at once where the state
   * is in this process (the memory store), else as a promise.
   */
  circuit(
    key: string,
    command: CircuitCommand,
    limits: CircuitLimits,
  ): Promise<CircuitChange> | CircuitChange;
  /** Takes `key` for `owner` for `lease` ms unless a record holds it; says what holds it. */
  claim(key: string, owner: string, lease: number): Promise<Claim>;
  /**
   * Ends `owner`'s hold on `key`: with `outcome`, records it for `ttl` ms; without, frees the key
   * so it can be sent again. A record someone else now holds is left alone.
   */
  settle(key: string, owner: string, outcome: { data: unknown } | undefined, ttl: number): Promise<void>;
  /**
   * Present only where several processes share the state. Takes one grant of `rate` for `key`
   * under `id`; resolves 0 when taken, else how many ms until one may be.
   */
  takeRate?(key: string, rate: RateLimits, id: string): Promise<number>;
  /** Hands back grant `id` of `key` (nothing was sent under it). */
  returnRate?(key: string, id: string): Promise<void>;
  /**
   * With `takeRate`: grant `id` of `key` was used and its request has ended, so the window
   * counts it until `rate.per` from now (not from the grant; see docs/SCALING.md).
   */
  endRate?(key: string, id: string): Promise<void>;
  /**
   * Present only where several processes share the state. Takes (or, for an `id` that holds one,
   * renews) a slot of `key` for `lease` ms when fewer than `limit` are held; resolves 0 when it
   * holds it, else how many ms until the first lease ends.
   */
  takeSlot?(key: string, limit: number, id: string, lease: number): Promise<number>;
  /** Frees slot `id` of `key`. */
  returnSlot?(key: string, id: string): Promise<void>;
  /**
   * Present only where several processes share the state. Adds `calls` to the budget of `key`;
   * with `retry`, also takes one retry if it fits and says whether it did.
   */
  budget?(key: string, limits: BudgetLimits, calls: number, retry: boolean): Promise<boolean>;
  /**
   * With the rate and slot operations: the throttle's shared parts over `store` (these operations,
   * bounded by the engine). The code ships with the store, so an app whose store cannot share
   * never bundles it.
   */
  shareThrottle?(store: ThrottleStore, clock: Clock): SharedThrottle;
  /** With `budget`: the retry budget over `store`, falling back to `local` while it fails. */
  shareBudget?(store: BudgetStore, local: RetryBudget, clock: Clock): RetryBudget;
}

/** The operations a shared rate and a shared concurrency limit need. */
export type ThrottleStore = Required<
  Pick<SharedState, 'takeRate' | 'returnRate' | 'endRate' | 'takeSlot' | 'returnSlot'>
>;

/**
 * Waits for a throttle slot of `policy` under `key` when the store shares part of the throttle:
 * `throttle` is this process's own; `policy.maxWait` bounds the whole wait, measured on the
 * engine's clock from its start; `options.signal` ends it (the caller's abort, the total
 * deadline); `onStoreError` hears a shared part's store failure, after which the call goes on
 * without that part, or `UNANSWERED` when `options.signal` ended a wait on the store's answer.
 */
export type SharedThrottle = (
  throttle: Throttle,
  key: string,
  policy: ThrottlePolicy,
  options: AcquireOptions & { signal: AbortSignal },
  onStoreError: (operation: StoreOperation, error: unknown) => void,
) => Promise<Release>;

/** The operation a shared retry budget needs. */
export type BudgetStore = Required<Pick<SharedState, 'budget'>>;

/** A breaker's entry lasts at least this long (ms) after its last change: a day. */
const CIRCUIT_MIN_TTL = 86_400_000;

/**
 * How long (ms) a breaker's entry outlives its last change: long enough for every timer it holds,
 * and for consecutive failures spaced minutes apart to add up (a day, at least). Past it, a
 * breaker nobody used is forgotten: closed, no failure counted.
 */
export function circuitTtl(limits: CircuitLimits): number {
  return Math.max(CIRCUIT_MIN_TTL, 2 * (limits.cooldown + limits.probeTimeout) + (limits.window?.size ?? 0));
}

/** Whether `value` is a `SharedState` (a store that implements the operations itself, like Redis's). */
export function isSharedState(value: unknown): value is SharedState {
  return hasMethods(value, 'circuit', 'claim', 'settle');
}

/**
 * Bounds every operation of `shared` to `timeout` ms with `bound` (see `boundedStore`), so a slow
 * store rejects and the caller fails open.
 */
export function boundedShared(
  shared: SharedState,
  bound: <T>(operation: () => T | Promise<T>) => Promise<T>,
): SharedState {
  const { takeRate, returnRate, endRate, takeSlot, returnSlot, budget } = shared;
  const { shareThrottle, shareBudget } = shared;
  return {
    ...(shareThrottle && { shareThrottle }),
    ...(shareBudget && { shareBudget }),
    circuit: (key, command, limits) => bound(() => shared.circuit(key, command, limits)),
    claim: (key, owner, lease) => bound(() => shared.claim(key, owner, lease)),
    settle: (key, owner, outcome, ttl) => bound(() => shared.settle(key, owner, outcome, ttl)),
    ...(takeRate && { takeRate: (key, rate, id) => bound(() => takeRate.call(shared, key, rate, id)) }),
    ...(returnRate && { returnRate: (key, id) => bound(() => returnRate.call(shared, key, id)) }),
    ...(endRate && { endRate: (key, id) => bound(() => endRate.call(shared, key, id)) }),
    ...(takeSlot && {
      takeSlot: (key, limit, id, lease) => bound(() => takeSlot.call(shared, key, limit, id, lease)),
    }),
    ...(returnSlot && { returnSlot: (key, id) => bound(() => returnSlot.call(shared, key, id)) }),
    ...(budget && {
      budget: (key, limits, calls, retry) => bound(() => budget.call(shared, key, limits, calls, retry)),
    }),
  };
}
