/**
 * Per-key throttle: a concurrency limit and/or a sliding-window rate, with a FIFO queue.
 * Law 3 lives here: a queued caller that aborts leaves the queue at once (not when a slot frees,
 * as in cockatiel's bulkhead), and no slot, timer or listener outlives its waiter.
 */
import { abortReason, onAbort } from './abort';
import type { CancelTimer, Clock } from './clock';
import type { ThrottleValue } from './definition';
import { checkKnown, configError, StitchError } from './errors';
import { GrantTimes } from './grantTimes';
import type { Part } from './parts';
import type { SharedState, SharedThrottle } from './shared';

/** The `throttle` option of a stitch. At least one of `concurrency` and `rate` is required. */
export interface ThrottleOptions {
  /**
   * Callers with the same key share its slots and rate window: each waits under its own stitch's
   * limits, counting what every caller of the key holds. @default the URL's origin (set by the engine)
   */
  key?: string | undefined;
  /** Most slots held at once. @default Infinity (no concurrency limit) */
  concurrency?: number | undefined;
  /**
   * Most grants in any sliding window: `'10/s'`, `'100/min'`, `'5/100ms'`, `'2/h'`, or
   * `{ count, per }` with `per` in ms. @default undefined (no rate limit)
   */
  rate?: string | { count: number; per: number } | undefined;
  /** Longest wait in the queue, in ms; `0` fails at once instead of queueing. @default Infinity */
  maxWait?: number | undefined;
  /**
   * What holds across every process on the engine's store (`stitch-fetch/redis`). `true` shares
   * the `rate`; `false` shares nothing; `{ concurrency: true }` also shares `concurrency`, so at
   * most that many attempts run at once in all processes together (each slot a lease in the
   * store, see docs/SCALING.md). With a store that cannot share, both are per process whatever
   * this says. @default true (the rate is shared, `concurrency` is per process)
   */
  shared?: boolean | SharedThrottleOptions | undefined;
}

/** The object form of `throttle.shared`. */
export interface SharedThrottleOptions {
  /** Whether `rate` holds across processes. @default true */
  rate?: boolean | undefined;
  /**
   * Whether `concurrency` holds across processes; it needs a finite `concurrency`. The limit
   * still holds in each process when the store fails. @default false
   */
  concurrency?: boolean | undefined;
}

/** A validated `throttle` option, defaults filled in. */
export interface ThrottlePolicy {
  /** @default undefined (the engine falls back to the URL's origin) */
  key: string | undefined;
  /** @default Infinity */
  concurrency: number;
  /** @default undefined (no rate limit) */
  rate: { count: number; per: number } | undefined;
  /** @default Infinity */
  maxWait: number;
  /** What the store shares when it can. @default { rate: true, concurrency: false } */
  shared: { rate: boolean; concurrency: boolean };
  /** The engine's throttles, which the policy brings with it (an engine makes them on first use). */
  part: Part<Throttles>;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, min: 60_000, h: 3_600_000 };
const RATE = /^\s*(\d+)\s*\/\s*(\d*)\s*(ms|s|min|m|h)\s*$/;

/**
 * Parses `'<count>/<unit>'` or `'<count>/<n><unit>'` (units ms, s, m|min, h) into a count per ms.
 * @returns undefined when the string is not a positive rate.
 * @default the window's multiplier is 1 (`'10/s'` is `'10/1s'`)
 */
export function parseRate(rate: string): { count: number; per: number } | undefined {
  const match = RATE.exec(rate);
  if (!match) return undefined;
  const [, count = '', multiplier = '', unit = ''] = match;
  const per = (multiplier === '' ? 1 : Number(multiplier)) * (UNIT_MS[unit] ?? Number.NaN);
  return Number(count) > 0 && per > 0 ? { count: Number(count), per } : undefined;
}

const isPositiveInteger = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) > 0;

/** Validates `throttle.shared`: a boolean, or `{ rate?, concurrency? }` of booleans. */
function normalizeShared(
  shared: ThrottleOptions['shared'],
  concurrency: number | undefined,
  stitchName: string,
): ThrottlePolicy['shared'] {
  if (shared === undefined || typeof shared === 'boolean') {
    return { rate: shared ?? true, concurrency: false };
  }
  if (typeof shared !== 'object' || shared === null) {
    throw configError(stitchName, 'throttle.shared', 'must be a boolean or { rate?, concurrency? }');
  }
  checkKnown(stitchName, 'throttle.shared.', shared, ['rate', 'concurrency']);
  const { rate = true, concurrency: sharedConcurrency = false } = shared;
  if (typeof rate !== 'boolean') throw configError(stitchName, 'throttle.shared.rate', 'must be a boolean');
  if (typeof sharedConcurrency !== 'boolean') {
    throw configError(stitchName, 'throttle.shared.concurrency', 'must be a boolean');
  }
  if (sharedConcurrency && (concurrency === undefined || concurrency === Infinity)) {
    throw configError(stitchName, 'throttle.shared.concurrency', 'needs a `throttle.concurrency` to share');
  }
  return { rate, concurrency: sharedConcurrency };
}

/**
 * Validates a `throttle` option and fills its defaults.
 * @returns undefined for `undefined` or `false` (no throttle).
 * @throws StitchError of kind `'config'` naming the field at fault (`throttle.concurrency`, ...).
 * @default undefined (no throttle)
 */
export function normalizeThrottle(
  value: ThrottleOptions | false | undefined,
  stitchName: string,
): ThrottlePolicy | undefined {
  if (value === undefined || value === false) return undefined;
  if (typeof value !== 'object' || value === null) {
    throw configError(stitchName, 'throttle', 'must be an object or false');
  }
  checkKnown(stitchName, 'throttle.', value, ['key', 'concurrency', 'rate', 'maxWait', 'shared']);
  const { key, concurrency, rate, maxWait, shared } = value;
  if (key !== undefined && (typeof key !== 'string' || key === '')) {
    throw configError(stitchName, 'throttle.key', 'must be a non-empty string');
  }
  if (concurrency !== undefined && !isPositiveInteger(concurrency) && concurrency !== Infinity) {
    throw configError(stitchName, 'throttle.concurrency', 'must be a positive integer (Infinity: no limit)');
  }
  if (rate !== undefined && typeof rate === 'object' && rate !== null)
    checkKnown(stitchName, 'throttle.rate.', rate, ['count', 'per']);
  const parsed =
    typeof rate === 'string'
      ? parseRate(rate)
      : rate && isPositiveInteger(rate.count) && Number.isFinite(rate.per) && rate.per > 0
        ? { count: rate.count, per: rate.per }
        : undefined;
  if (rate !== undefined && parsed === undefined) {
    throw configError(stitchName, 'throttle.rate', "must look like '10/s', '5/100ms' or { count, per: ms }");
  }
  if (maxWait !== undefined && !(typeof maxWait === 'number' && maxWait >= 0)) {
    throw configError(stitchName, 'throttle.maxWait', 'must be a number of ms, 0 or more');
  }
  if (concurrency === undefined && parsed === undefined) {
    throw configError(stitchName, 'throttle', 'needs `concurrency` or `rate` (use `false` for no throttle)');
  }
  return {
    key,
    concurrency: concurrency ?? Infinity,
    rate: parsed,
    maxWait: maxWait ?? Infinity,
    shared: normalizeShared(shared, concurrency, stitchName),
    part: throttles,
  };
}

/**
 * The throttle as a value: `throttle: throttle({ concurrency: 4, rate: '10/s' })`, keyed by the
 * URL's origin unless `key` is set. Validated when the stitch is defined.
 */
export function throttle(options: ThrottleOptions): ThrottleValue {
  return {
    policy: 'throttle',
    // `{}` for a missing argument, so the error says what a throttle needs.
    resolve: (name: string) =>
      normalizeThrottle(options === undefined ? {} : options, name) as ThrottlePolicy,
  };
}

/**
 * Gives a slot back; calling it again does nothing. `unused`: nothing was sent under the slot
 * (the breaker refused, the caller left first), so its rate token goes back too.
 */
export type Release = (unused?: boolean) => void;

/** Per-call options of {@link Throttle.acquire}. */
export interface AcquireOptions {
  /** Aborting rejects at once with the signal's reason (identity kept) and holds no slot. @default undefined */
  signal?: AbortSignal | undefined;
  /** Longest wait in ms; the smaller of this and `policy.maxWait` applies. @default Infinity */
  maxWait?: number | undefined;
  /** Called synchronously with the 1-based queue position when the caller has to wait. @default undefined */
  onQueued?: (position: number) => void;
}

/** A throttle shared by every stitch of one engine; limits are kept per key. */
export interface Throttle {
  /**
   * Waits for a slot under `policy`, counting what every caller of `key` holds (callers whose
   * policies differ each wait under their own).
   * The promise settles a microtask after the grant, so an abort in the same tick as the grant
   * still rejects it and hands the slot back. An abort after it resolved is the caller's to see:
   * the engine re-checks `signal.aborted` after `await` and releases before doing any work.
   */
  acquire(key: string, policy: ThrottlePolicy, options?: AcquireOptions): Promise<Release>;
  /**
   * Takes a slot at once when nothing stands in the way (nobody queued, a slot and a rate token
   * free), else returns `undefined` and takes nothing: the uncontended path costs no promise.
   */
  tryAcquire(key: string, policy: ThrottlePolicy): Release | undefined;
  /** Slots held and callers waiting for `key` (both 0 for a key never seen or dropped). */
  stats(key: string): { active: number; queued: number };
  /** The keys with anything held, queued or still inside the rate window. */
  keys(): string[];
}

/** A waiter's life: each state carries what must be undone when it leaves. */
type WaiterState =
  | { status: 'queued'; cancelTimeout: CancelTimer }
  | { status: 'granted'; refund: () => void }
  | { status: 'done' };

interface Waiter {
  state: WaiterState;
  /** The limits this waiter is granted under. */
  readonly policy: ThrottlePolicy;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (release: Release) => void;
  readonly reject: (error: unknown) => void;
  readonly detachAbort: () => void;
}

interface KeyState {
  /** The longest rate window of the key's policies: grants are kept that long (0: none is kept). */
  per: number;
  /** Granted and not yet released, including grants whose promise has not settled yet. */
  active: number;
  readonly queue: Waiter[];
  /** Times of the grants still inside the rate window. */
  readonly grants: GrantTimes;
  /** The one wake-up timer per key, set only while the queue waits on the rate window. */
  cancelWake: CancelTimer | undefined;
  /** When `cancelWake` is due. */
  wakeAt: number;
}

const noop = () => {};

/** How often (ms of the engine's clock) a throttle lets go of the keys left idle. */
const SWEEP_EVERY = 60_000;

/**
 * Creates a throttle over `clock`. Idle keys are dropped once nothing is held, queued or still
 * inside the rate window; a key with rate history is pruned the next time it is used, or by the
 * sweep a use of any key runs at most once a minute, since a clean-up timer would outlive the work
 * (and `clock.pending()` must reach 0).
 * @param observe hears the slots held and callers queued for a key after each change. @default none
 */
export function createThrottle(
  clock: Clock,
  observe?: (key: string, active: number, queued: number) => void,
): Throttle {
  const keys = new Map<string, KeyState>();
  // The longest rate window each key has had, kept when the idle key is dropped: from the first
  // call of a stitch with a rate on a key on, the grants of every stitch on it are kept that long,
  // so they count for that rate whichever stitch comes next; until a sweep finds none left.
  const windows = new Map<string, number>();

  const prune = (state: KeyState) => {
    state.grants.dropUntil(clock.now() - state.per);
  };

  // Keys used once (a throttle per tenant's origin) would stay, their grants never pruned: every
  // so often, the keys nothing holds or waits for and whose grants are all past go.
  let sweptAt = clock.now();
  const sweep = (now: number) => {
    sweptAt = now;
    for (const [key, state] of keys) {
      if (state.active > 0 || state.queue.length > 0) continue;
      prune(state);
      if (state.grants.size > 0) continue;
      keys.delete(key);
      // No grant within its longest window is left to count: that window goes with the key.
      windows.delete(key);
      observe?.(key, 0, 0);
    }
  };

  /** Ms until `policy`'s rate window admits one more grant (0: it does now). Expects a pruned state. */
  const rateDelay = (state: KeyState, { rate }: ThrottlePolicy): number => {
    const oldest = rate ? state.grants.fromEnd(rate.count) : undefined;
    return rate && oldest !== undefined ? oldest + rate.per - clock.now() : 0;
  };

  const rateLimited = (state: KeyState, policy: ThrottlePolicy, waited: number) => {
    prune(state);
    const delay = rateDelay(state, policy);
    return new StitchError({
      kind: 'rate-limited',
      message: `waited longer than maxWait (${waited}ms) for a throttle slot`,
      retryable: true,
      // Only the rate window gives an honest estimate; when to expect a release is unknowable.
      retryAfter: delay > 0 ? delay : undefined,
    });
  };

  /** Grants to the head of the queue while limits allow; arms or disarms the wake-up timer. */
  const pump = (key: string, state: KeyState) => {
    prune(state);
    for (let head = state.queue[0]; head && state.active < head.policy.concurrency; head = state.queue[0]) {
      const delay = rateDelay(state, head.policy);
      if (delay > 0) {
        // A new head (the one before it left) may be due sooner than the timer set for that one.
        const due = clock.now() + delay;
        if (!state.cancelWake || due < state.wakeAt) {
          state.cancelWake?.();
          state.wakeAt = due;
          state.cancelWake = clock.schedule(delay, () => {
            state.cancelWake = undefined;
            pump(key, state);
          });
        }
        observe?.(key, state.active, state.queue.length);
        return;
      }
      grant(key, state, state.queue.shift() as Waiter);
    }
    // Empty, or waiting on a release (which pumps): no timer needed either way.
    state.cancelWake?.();
    state.cancelWake = undefined;
    if (state.active === 0 && state.queue.length === 0 && state.grants.size === 0) keys.delete(key);
    observe?.(key, state.active, state.queue.length);
  };

  /** Takes a slot (and a rate token) of `key`; the release gives them back. */
  const take = (key: string, state: KeyState): Release => {
    const grantedAt = clock.now();
    state.active++;
    if (state.per > 0) state.grants.push(grantedAt);
    let released = false;
    return (unused = false) => {
      if (released) return;
      released = true;
      if (unused) state.grants.remove(grantedAt);
      state.active--;
      pump(key, state);
    };
  };

  /**
   * Takes the slot now, settles a microtask later. The abort listener stays on until then:
   *
   *   holder.release() → grant: active++ ─┐  signal.abort() (same tick) → leave: refund, reject
   *                                       └─ microtask: settle → already 'done', nothing to do
   */
  const grant = (key: string, state: KeyState, waiter: Waiter) => {
    if (waiter.state.status === 'queued') waiter.state.cancelTimeout();
    const release = take(key, state);
    // A grant that never reached its caller sent nothing, so its rate token goes back too.
    const refund = () => release(true);
    waiter.state = { status: 'granted', refund };
    queueMicrotask(() => {
      if (waiter.state.status !== 'granted') return;
      // A platform abort (AbortSignal.timeout) may run microtasks before our listener fires.
      if (waiter.signal?.aborted) return leave(key, state, waiter, abortReason(waiter.signal));
      waiter.state = { status: 'done' };
      waiter.detachAbort();
      waiter.resolve(release);
    });
  };

  /** Rejects a waiter, undoing whatever it holds: its queue place and timer, or its slot. */
  const leave = (key: string, state: KeyState, waiter: Waiter, error: unknown) => {
    const left = waiter.state;
    if (left.status === 'done') return;
    waiter.state = { status: 'done' };
    waiter.detachAbort();
    waiter.reject(error);
    if (left.status === 'granted') return left.refund();
    left.cancelTimeout();
    state.queue.splice(state.queue.indexOf(waiter), 1);
    pump(key, state);
  };

  /** The state of `key`, keeping grants as long as `policy`'s rate window too, pruned to now. */
  const stateOf = (key: string, policy: ThrottlePolicy): KeyState => {
    const now = clock.now();
    if (now - sweptAt >= SWEEP_EVERY) sweep(now);
    const state = keys.get(key) ?? {
      per: windows.get(key) ?? 0,
      active: 0,
      queue: [],
      grants: new GrantTimes(),
      cancelWake: undefined,
      wakeAt: 0,
    };
    keys.set(key, state);
    if (policy.rate && policy.rate.per > state.per) {
      state.per = policy.rate.per;
      windows.set(key, state.per);
    }
    prune(state);
    return state;
  };

  /** FIFO: with anyone queued ahead, a free slot is theirs, not ours. */
  const mustWait = (state: KeyState, policy: ThrottlePolicy) =>
    state.queue.length > 0 || state.active >= policy.concurrency || rateDelay(state, policy) > 0;

  const tryAcquire = (key: string, policy: ThrottlePolicy): Release | undefined => {
    const state = stateOf(key, policy);
    if (mustWait(state, policy)) return undefined;
    const release = take(key, state);
    observe?.(key, state.active, state.queue.length);
    return release;
  };

  const acquire = (key: string, policy: ThrottlePolicy, options: AcquireOptions = {}): Promise<Release> => {
    const { signal, onQueued } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const state = stateOf(key, policy);
    const maxWait = Math.max(0, Math.min(policy.maxWait, options.maxWait ?? Infinity));
    const waits = mustWait(state, policy);
    if (waits && maxWait === 0) return Promise.reject(rateLimited(state, policy, 0));

    return new Promise<Release>((resolve, reject) => {
      // A slot or token freeing at the very moment maxWait ends (its timer due with this one,
      // and maybe behind it) is the waiter's: a wait of maxWait is within it.
      const giveUp = () => {
        pump(key, state);
        if (waiter.state.status === 'queued') leave(key, state, waiter, rateLimited(state, policy, maxWait));
      };
      const cancelTimeout = waits && maxWait < Infinity ? clock.schedule(maxWait, giveUp) : noop;
      const waiter: Waiter = {
        state: { status: 'queued', cancelTimeout },
        policy,
        signal,
        resolve,
        reject,
        detachAbort: signal ? onAbort(signal, () => leave(key, state, waiter, abortReason(signal))) : noop,
      };
      state.queue.push(waiter);
      pump(key, state);
      if (waiter.state.status !== 'queued') return;
      // A throwing callback must not strand a queued waiter whose promise already rejected.
      try {
        onQueued?.(state.queue.indexOf(waiter) + 1);
      } catch (error) {
        leave(key, state, waiter, error);
      }
    });
  };

  const stats = (key: string) => {
    const state = keys.get(key);
    return { active: state?.active ?? 0, queued: state?.queue.length ?? 0 };
  };

  return { acquire, tryAcquire, stats, keys: () => [...keys.keys()] };
}

/** An engine's throttles: this process's own, and the parts a store shares across processes. */
export interface Throttles {
  readonly local: Throttle;
  /** Present when the store can share the throttle's rate and slots. */
  readonly shared: SharedThrottle | undefined;
}

/** The throttle's shared parts over `shared`, when it can share them across processes. */
function sharedThrottle(shared: SharedState, clock: Clock): SharedThrottle | undefined {
  const { takeRate, returnRate, endRate, takeSlot, returnSlot, shareThrottle } = shared;
  if (!takeRate || !returnRate || !endRate || !takeSlot || !returnSlot || !shareThrottle) return undefined;
  return shareThrottle({ takeRate, returnRate, endRate, takeSlot, returnSlot }, clock);
}

/** The throttles part; each change of a key's queue goes to the engine's inspectors. */
const throttles: Part<Throttles> = {
  name: 'stitch-fetch/throttles@1',
  create: ({ clock, shared, notify }) => ({
    local: createThrottle(clock, (key, active, queued) =>
      notify(() => ({ type: 'throttle', key, active, queued, at: clock.now() })),
    ),
    shared: shared && sharedThrottle(shared, clock),
  }),
  current: ({ local }, at) => local.keys().map((key) => ({ type: 'throttle', key, ...local.stats(key), at })),
};
