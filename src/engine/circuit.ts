/**
 * The circuit breaker: a state machine kept in the engine's shared state, so servers can share one
 * breaker through a networked store. Every change is a command (admit, a call's outcome, a probe's
 * outcome) that the store applies atomically: {@link circuitStep} in this process, a Lua script in
 * Redis, each timed by the store's own clock. A caller's abort is a `'neutral'` outcome: it neither opens
 * nor closes the breaker, and a neutral probe hands its lease to the next caller.
 */
import { onAbortShared } from './abort';
import { asState, CLOSED, describeStored, readCircuit } from './circuitState';
import type { CircuitValue } from './definition';
import { checkKnown, configError } from './errors';
import { safely } from './events';
import { andThen, isPending, type Maybe } from './maybe';
import type { Part } from './parts';
import { isRecord } from './record';
import { type CircuitChange, circuitTtl, type SharedState } from './shared';
import { type LocalStore, lateOf, type Store } from './store';

/** One slice of a rolling window: the outcomes recorded from `start` (clock ms) on. */
export interface Bucket {
  start: number;
  successes: number;
  failures: number;
}

/** Breaker state as stored under `circuit:${key}`. */
export type CircuitState =
  /** `failures`: consecutive failures, or in rolling mode the failures still inside the window. */
  | { state: 'closed'; failures: number; buckets?: Bucket[] }
  /** `until`: clock time from which the next caller may probe. */
  | { state: 'open'; until: number }
  /** `lease`: the one probe allowed through, until `expires`; `null` when the next caller may probe. */
  | { state: 'half-open'; lease: { id: string; expires: number } | null };

/** Rolling-window mode: open when `failures / total >= ratio` and `total >= minimum`. */
export interface CircuitWindow {
  /** Window length in ms. @default 60_000 */
  size: number;
  /** How many time slices the window is cut into; each expires as a whole. @default 10 */
  buckets: number;
  /** Failure ratio, in (0, 1], that opens the breaker. @default 0.5 */
  ratio: number;
  /** Calls the window must hold before the ratio counts, so one early failure cannot open it. @default 10 */
  minimum: number;
}

/** The `circuit` option of a stitch. */
export interface CircuitOptions {
  /** Which breaker a call counts against. @default the URL's origin */
  key?: string | undefined;
  /**
   * Consecutive failures that open the breaker (ignored in rolling-window mode): a success resets
   * the count, as does a day without any failure. @default 5
   */
  failures?: number | undefined;
  /** How long (ms) the breaker stays open before one probe may go through. @default 30_000 */
  cooldown?: number | undefined;
  /** How long (ms) a probe holds its lease, so a hung probe cannot wedge the breaker. @default cooldown */
  probeTimeout?: number | undefined;
  /** Opens on a failure ratio over a rolling time window, not a consecutive count. @default undefined */
  window?: { [Field in keyof CircuitWindow]?: CircuitWindow[Field] | undefined } | undefined;
  /** Which HTTP statuses prove the vendor unhealthy. @default status >= 500 */
  failureStatus?: ((status: number) => boolean) | undefined;
}

/** `CircuitOptions` validated, with every default filled in. */
export interface CircuitPolicy {
  /** `undefined`: the engine keys the breaker by the URL's origin. */
  key: string | undefined;
  failures: number;
  cooldown: number;
  probeTimeout: number;
  window: CircuitWindow | undefined;
  isFailureStatus: (status: number) => boolean;
  /** The engine's breakers, which the policy brings with it (an engine makes them on first use). */
  part: Part<Breakers>;
}

/** What one attempt proved about the vendor; a caller's abort, a 4xx, an undispatched try: `'neutral'`. */
export type CircuitOutcome = 'success' | 'failure' | 'neutral';

/** A caller let through by the breaker. */
export interface Admission {
  /** True when this caller holds the half-open lease. */
  readonly probe: boolean;
  /**
   * Records this attempt's outcome; only the first call counts. `'neutral'` changes nothing,
   * except that a probe's neutral outcome frees the lease so the next caller can probe.
   * Returns a promise only while a store write is under way (never when the state is in this
   * process); it never rejects: a store error goes to `onStoreError`.
   */
  record(outcome: CircuitOutcome): Promise<void> | undefined;
}

/** `admit`'s answer: an admission, or how long (ms) until trying again makes sense. */
export type AdmitResult =
  | { admitted: true; admission: Admission }
  | { admitted: false; retryAfter: number; state: 'open' | 'half-open' };

/** A change of `state`, reported for the `'circuit'` trace event. */
export interface CircuitTransition {
  key: string;
  from: CircuitState['state'];
  to: CircuitState['state'];
}

/** Hears a committed change of `state`. */
export type TransitionListener = (transition: CircuitTransition) => void;

/** One caller's ears on the breaker: what its admit and its admission's `record` caused. */
export interface CircuitObserver {
  transition?: TransitionListener | undefined;
  /** The store failed during this call's admit or record; the breaker failed open. */
  storeError?: (error: unknown) => void;
}

/** What `createCircuit` returns. */
export interface Circuit {
  /**
   * Lets a call through or fails it fast: at once over the engine's own memory store, as a promise
   * over another store. Never throws or rejects: an unreachable store admits (fails open).
   * @param observer hears the transitions and store failures this admit and its admission's
   * `record` cause, so the engine can put them in this run's trace. @default none
   * @param signal the caller's: one who leaves while the store still admits frees the lease this
   * admit may take, at once (the store applies that before any later caller's admit). @default none
   */
  admit(
    key: string,
    policy: CircuitPolicy,
    observer?: CircuitObserver,
    signal?: AbortSignal,
  ): Maybe<AdmitResult>;
  /** The stored state, as last written (an `open` past its `until` turns half-open on the next admit). */
  state(key: string): Promise<CircuitState>;
  /** Lets go of what this process counted for `key`, once the store no longer keeps its state. */
  forget(key: string): void;
}

/** What a breaker change needs of the policy. */
export type CircuitLimits = Pick<CircuitPolicy, 'failures' | 'cooldown' | 'probeTimeout' | 'window'>;

/**
 * One breaker change, as plain data so a store can apply it where the state lives. `read` changes
 * nothing; `admit` takes the probe lease if it is free; `call` and `probe` record an outcome.
 */
export type CircuitCommand =
  | { type: 'read' }
  | { type: 'admit'; lease: string }
  | { type: 'call'; outcome: CircuitOutcome }
  | { type: 'probe'; lease: string; outcome: CircuitOutcome };

/** Handed out when the store is unreachable: the call goes ahead and nothing is counted. */
const UNCOUNTED: Admission = { probe: false, record: () => undefined };

/**
 * Validates the `circuit` option and fills its defaults.
 * @param value `false` turns the breaker off; `true` or `undefined` turn it on with defaults.
 * @default enabled, keyed by origin, 5 consecutive failures, 30 s cooldown
 * @throws StitchError of kind `'config'` naming the field at fault, e.g. `circuit.failures`.
 */
export function normalizeCircuit(
  value: CircuitOptions | boolean | undefined,
  stitchName: string,
): CircuitPolicy | undefined {
  if (value === false) return undefined;
  const options: CircuitOptions = value === true || value === undefined ? {} : value;
  const check = (ok: boolean, field: string, problem: string) => {
    if (!ok) throw configError(stitchName, field, problem);
  };
  const positive = (input: unknown, field: string, integer: boolean, fallback: number): number => {
    if (input === undefined) return fallback;
    const ok =
      typeof input === 'number' && input > 0 && (integer ? Number.isInteger(input) : Number.isFinite(input));
    check(ok, field, integer ? 'must be a positive integer' : 'must be a positive number');
    return input as number;
  };
  check(typeof options === 'object' && options !== null, 'circuit', 'must be an object or a boolean');
  checkKnown(stitchName, 'circuit.', options, [
    'key',
    'failures',
    'cooldown',
    'probeTimeout',
    'window',
    'failureStatus',
  ]);
  const { key, failureStatus, window: w } = options;
  check(
    key === undefined || (typeof key === 'string' && key !== ''),
    'circuit.key',
    'must be a non-empty string',
  );
  check(
    failureStatus === undefined || typeof failureStatus === 'function',
    'circuit.failureStatus',
    'must be a function',
  );
  check(w === undefined || isRecord(w), 'circuit.window', 'must be an object');
  if (w) checkKnown(stitchName, 'circuit.window.', w, ['size', 'buckets', 'ratio', 'minimum']);
  const ratio = w?.ratio ?? 0.5;
  check(typeof ratio === 'number' && ratio > 0 && ratio <= 1, 'circuit.window.ratio', 'must be in (0, 1]');
  const cooldown = positive(options.cooldown, 'circuit.cooldown', false, 30_000);
  return {
    key,
    failures: positive(options.failures, 'circuit.failures', true, 5),
    cooldown,
    probeTimeout: positive(options.probeTimeout, 'circuit.probeTimeout', false, cooldown),
    window: w && {
      size: positive(w.size, 'circuit.window.size', false, 60_000),
      buckets: positive(w.buckets, 'circuit.window.buckets', true, 10),
      ratio,
      minimum: positive(w.minimum, 'circuit.window.minimum', true, 10),
    },
    isFailureStatus: failureStatus ?? ((code) => code >= 500),
    part: breakers,
  };
}

/**
 * The breaker as a value: `circuit: circuit({ failures: 5 })`, keyed by the URL's origin unless
 * `key` is set. Validated when the stitch is defined.
 * @default 5 consecutive failures, 30 s cooldown
 */
export function circuit(options: CircuitOptions = {}): CircuitValue {
  return { policy: 'circuit', resolve: (name: string) => normalizeCircuit(options, name) as CircuitPolicy };
}

/** A pure state change: returns its input unchanged when there is nothing to do. */
type Step = (s: CircuitState) => CircuitState;

/** Adds one outcome to the bucket for `now`, dropping the buckets that have left the window. */
function tally(buckets: Bucket[], window: CircuitWindow, now: number, field: 'successes' | 'failures') {
  const width = window.size / window.buckets;
  const start = Math.floor(now / width) * width;
  const current = buckets.find((b) => b.start === start) ?? { start, successes: 0, failures: 0 };
  const kept = buckets.filter((b) => b !== current && b.start > now - window.size);
  kept.push({ ...current, [field]: current[field] + 1 });
  return kept;
}

/**
 * The outcome of a call admitted while closed. It only counts while still closed: a late failure
 * must not extend an open breaker, a late success must not close one.
 */
const afterCall =
  (outcome: CircuitOutcome, policy: CircuitLimits, now: number): Step =>
  (s) => {
    if (s.state !== 'closed' || outcome === 'neutral') return s;
    const open: CircuitState = { state: 'open', until: now + policy.cooldown };
    const { window } = policy;
    if (!window) {
      if (outcome === 'success') return s.failures === 0 ? s : CLOSED;
      return s.failures + 1 >= policy.failures ? open : { state: 'closed', failures: s.failures + 1 };
    }
    const buckets = tally(s.buckets ?? [], window, now, outcome === 'failure' ? 'failures' : 'successes');
    const failures = buckets.reduce((n, b) => n + b.failures, 0);
    const total = buckets.reduce((n, b) => n + b.successes, failures);
    // Only a failure can raise the ratio, so only a failure can open it.
    if (outcome === 'failure' && total >= window.minimum && failures / total >= window.ratio) return open;
    return { state: 'closed', failures, buckets };
  };

/**
 * A probe's outcome. It only counts while the probe still holds its lease (it may have expired and
 * passed to another caller). A neutral outcome frees the lease for the next caller.
 */
const afterProbe =
  (leaseId: string, outcome: CircuitOutcome, policy: CircuitLimits, now: number): Step =>
  (s) => {
    if (s.state !== 'half-open' || s.lease?.id !== leaseId) return s;
    if (outcome === 'success') return CLOSED;
    if (outcome === 'failure') return { state: 'open', until: now + policy.cooldown };
    return { state: 'half-open', lease: null };
  };

/** An admit: takes the probe lease once the cooldown is over and no live lease is held. */
const afterAdmit =
  (leaseId: string, policy: CircuitLimits, now: number): Step =>
  (s) => {
    const free =
      s.state === 'open' ? now >= s.until : s.state === 'half-open' && (!s.lease || now >= s.lease.expires);
    return free ? { state: 'half-open', lease: { id: leaseId, expires: now + policy.probeTimeout } } : s;
  };

/**
 * The pure state change `command` makes at time `now`; it returns its input unchanged when there
 * is nothing to do. Redis's breaker script mirrors it.
 */
export function circuitStep(command: CircuitCommand, limits: CircuitLimits, now: number): Step {
  switch (command.type) {
    case 'admit':
      return afterAdmit(command.lease, limits, now);
    case 'call':
      return afterCall(command.outcome, limits, now);
    case 'probe':
      return afterProbe(command.lease, command.outcome, limits, now);
    default:
      return (s) => s;
  }
}

const limitsOf = ({ failures, cooldown, probeTimeout, window }: CircuitPolicy): CircuitLimits => ({
  failures,
  cooldown,
  probeTimeout,
  window,
});

/**
 * Creates a breaker over `shared`, timed by the store's clock (see {@link CircuitChange}).
 * @param deps.onTransition called after each committed change of `state`, whoever caused it. @default none
 * @param deps.onStoreError called when the store throws; the breaker then fails open. @default none
 * @param deps.onChange called after each committed write, with the state stored and how long
 *   the store keeps it (ms). @default none
 */
export function createCircuit(deps: {
  shared: Pick<SharedState, 'circuit'>;
  onTransition?: TransitionListener | undefined;
  onStoreError?: (error: unknown) => void;
  onChange?: (key: string, state: CircuitState, ttl: number) => void;
}): Circuit {
  const { shared, onTransition, onStoreError, onChange } = deps;
  // Lease ids must not collide across processes sharing one store, hence the random prefix.
  const leasePrefix = Math.random().toString(36).slice(2, 10);
  let leases = 0;
  // How many failures this breaker has recorded per key: a call admitted with none counted finds
  // out at its end whether others failed meanwhile, when its success must reset them.
  const failures = new Map<string, number>();

  /** Applies `command` where the state lives and reports a change of state. */
  const transact = (
    key: string,
    command: CircuitCommand,
    policy: CircuitPolicy,
    caller?: CircuitObserver,
  ): Maybe<CircuitChange> =>
    andThen(shared.circuit(key, command, limitsOf(policy)), (change) => {
      const { from, to, corrupt } = change;
      // A corrupt value is reported like an unreachable store; the store read it as closed and
      // overwrote it.
      if (corrupt !== undefined) {
        storeFailed(new Error(`the store held a corrupt breaker state (${corrupt}); read as closed`), caller);
      }
      if (to !== from) safely(onChange, key, to, circuitTtl(limitsOf(policy)));
      if (to.state !== from.state) {
        const transition = { key, from: from.state, to: to.state };
        // A listener that throws must not fail the call, nor undo what the store committed.
        safely(onTransition, transition);
        safely(caller?.transition, transition);
      }
      return change;
    });

  const storeFailed = (error: unknown, caller: CircuitObserver | undefined) => {
    safely(onStoreError, error);
    safely(caller?.storeError, error);
  };

  /**
   * `cleanSince`: for a call a closed breaker admitted with no failure counted and no window, how
   * many failures of the key this breaker had recorded when the call asked. Its success then
   * changes nothing unless that count moved, so it is not written: the happy path costs the
   * admit alone. `undefined` for any other call.
   */
  const admission = (
    key: string,
    policy: CircuitPolicy,
    leaseId: string | undefined,
    cleanSince: number | undefined,
    caller: CircuitObserver | undefined,
  ): Admission => {
    let recorded = false;
    return {
      probe: leaseId !== undefined,
      record(outcome) {
        if (recorded) return;
        recorded = true;
        if (outcome === 'failure') failures.set(key, (failures.get(key) ?? 0) + 1);
        const unchanged = outcome === 'success' && cleanSince === (failures.get(key) ?? 0);
        if (leaseId === undefined && (outcome === 'neutral' || unchanged)) return;
        const command: CircuitCommand =
          leaseId === undefined ? { type: 'call', outcome } : { type: 'probe', lease: leaseId, outcome };
        const failed = (error: unknown) => storeFailed(error, caller);
        try {
          const written = transact(key, command, policy, caller);
          if (isPending(written)) return written.then(() => {}, failed);
        } catch (error) {
          failed(error);
        }
      },
    };
  };

  /**
   * What the admit's stored state means for the caller holding `leaseId`, who asked when this
   * breaker had recorded `failed` failures of the key.
   */
  const verdict = (
    key: string,
    policy: CircuitPolicy,
    leaseId: string,
    caller: CircuitObserver | undefined,
    failed: number,
    { to: s, now }: CircuitChange,
  ): AdmitResult => {
    if (s.state === 'closed') {
      const cleanSince = s.failures === 0 && !policy.window ? failed : undefined;
      return { admitted: true, admission: admission(key, policy, undefined, cleanSince, caller) };
    }
    if (s.state === 'open') return { admitted: false, retryAfter: Math.max(0, s.until - now), state: 'open' };
    if (s.lease?.id === leaseId)
      return { admitted: true, admission: admission(key, policy, leaseId, undefined, caller) };
    // Another caller holds the lease: worth retrying once it could have expired.
    const retryAfter = Math.max(0, (s.lease?.expires ?? now) - now);
    return { admitted: false, retryAfter, state: 'half-open' };
  };

  return {
    admit(key, policy, caller, signal) {
      const leaseId = `${leasePrefix}-${++leases}`;
      // An unreachable store admits: the call goes ahead and nothing is counted.
      const failOpen = (error: unknown): AdmitResult => {
        storeFailed(error, caller);
        return { admitted: true, admission: UNCOUNTED };
      };
      // Counted before the store answers: a failure recorded while the answer travels (a Redis
      // round trip) came after what the store saw.
      const failed = failures.get(key) ?? 0;
      try {
        const change = transact(key, { type: 'admit', lease: leaseId }, policy, caller);
        if (!isPending(change)) return verdict(key, policy, leaseId, caller, failed, change);
        // Released by its id, whether this admit turns out to take the lease or not.
        const leave = signal
          ? onAbortShared(signal, () => {
              admission(key, policy, leaseId, undefined, caller).record('neutral');
            })
          : () => {};
        return change.then(
          (done) => {
            leave();
            return verdict(key, policy, leaseId, caller, failed, done);
          },
          (error: unknown) => {
            leave();
            // An admit the engine gave up on (`storeTimeout`) may still land (the operation, or
            // the store write under it) and take the probe lease, for a call that went ahead
            // uncounted: released by its id once it has (a lease it did not take is left alone).
            lateOf(error)
              ?.then(() => admission(key, policy, leaseId, undefined, undefined).record('neutral'))
              .catch(() => {});
            return failOpen(error);
          },
        );
      } catch (error) {
        return failOpen(error);
      }
    },
    state: (key) => readCircuit(shared, undefined, key),
    forget: (key) => {
      failures.delete(key);
    },
  };
}

/**
 * A breaker change over any `Store`, timed by `now`: it reads first and writes only when the state
 * would change (a closed breaker costs one read); `update` re-runs the step on the value it holds,
 * so a read gone stale in between is harmless. Over the engine's own {@link LocalStore}, which
 * answers at once, a change takes no promise.
 */
export function storeCircuit(store: Store | LocalStore, now: () => number): SharedState['circuit'] {
  return (key, command, limits) => {
    const storeKey = `circuit:${key}`;
    const at = now();
    const step = circuitStep(command, limits, at);
    return andThen(store.get<unknown>(storeKey), (read) => {
      const seen = asState(read);
      const corrupt = seen === undefined ? { corrupt: describeStored(read) } : {};
      const current = seen ?? CLOSED;
      // A step that changes nothing is not written. But a corrupt value is written over, whatever
      // the step; and what a probe lease depends on is read again by the update, in the order the
      // changes were issued (this read may predate a lease taken or let go just before it, by a
      // probe whose caller left at once): a half-open state, or a probe's record on an open one.
      const leaseMayMove =
        seen?.state === 'half-open' || (seen?.state === 'open' && command.type === 'probe');
      const unchanged = seen !== undefined && !leaseMayMove && step(current) === current;
      if (command.type === 'read' || unchanged) return { from: current, to: current, now: at, ...corrupt };
      // Overwritten on each call of the transition; the store commits the last call's result.
      let from = current;
      const written = store.update<unknown>(
        storeKey,
        (stored) => {
          from = asState(stored) ?? CLOSED;
          return step(from);
        },
        circuitTtl(limits),
      );
      return andThen(written, (to) => ({ from, to: asState(to) ?? CLOSED, now: at, ...corrupt }));
    });
  };
}

/**
 * An engine's breakers, and the state it last wrote per key (what a new inspector hears first),
 * for as long as the store keeps it.
 */
export interface Breakers {
  readonly circuit: Circuit;
  /** The states written that the store still keeps. */
  written(): Array<[key: string, state: CircuitState]>;
}

/** How often (ms) the breakers part lets go of the states the store no longer keeps. */
const SWEEP_EVERY = 60_000;

/** The breakers part: over the store's own operation where it has one, else over the engine's store. */
const breakers: Part<Breakers> = {
  name: 'stitch-fetch/breakers@1',
  create({ shared, store, clock, notify }) {
    // A breaker per origin of a multi-tenant app is many keys: each goes when the store's does.
    const written = new Map<string, { state: CircuitState; until: number }>();
    let sweptAt = clock.now();
    const sweep = (now: number) => {
      sweptAt = now;
      for (const [key, { until }] of written) {
        if (until > now) continue;
        written.delete(key);
        circuit.forget(key);
      }
    };
    const circuit: Circuit = createCircuit({
      shared: shared ?? { circuit: storeCircuit(store, () => clock.now()) },
      onChange(key, state, ttl) {
        const now = clock.now();
        if (now - sweptAt >= SWEEP_EVERY) sweep(now);
        written.set(key, { state, until: now + ttl });
        notify(() => ({ type: 'circuit', key, state, at: now }));
      },
    });
    return {
      circuit,
      written() {
        sweep(clock.now());
        return [...written].map(([key, { state }]) => [key, state]);
      },
    };
  },
  current: (part, at) => part.written().map(([key, state]) => ({ type: 'circuit', key, state, at })),
};
