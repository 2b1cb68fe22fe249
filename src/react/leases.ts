import type { Engine, SafeResult, StitchError } from '../index';
import { sharedWeakMap } from './context';
import { type Follower, onAbort } from './follow';

/**
 * One suspended read, shared by every render that suspends on its key. React gives no sign when
 * it abandons a suspended render, so a lease asks: every half `abandonAfter` it resolves the
 * promise React waits on (a "ping"), and React, if it still wants the data, renders the
 * component again, which finds the lease and renews it. A lease that no render came back for
 * by the next tick after a ping is abandoned: its request is released (the socket closes when it
 * was the last reference), within `abandonAfter` of the last render. A read slower than
 * `abandonAfter` that React still waits for thus completes once, however slow.
 */
export interface Lease {
  /** The stitch it reads (leases of one stitch learn of each other's re-keys). */
  readonly stitch: string;
  readonly result: Promise<SafeResult<unknown>>;
  /** The `StitchScope` signal it was started under. */
  readonly scope: AbortSignal | undefined;
  settled: SafeResult<unknown> | undefined;
  /** What a suspending render throws: settles when the read does, or at the next ping. */
  wake: Promise<void>;
  /** Committed components suspended on it; a re-key or unmount of the last one releases it. */
  readonly holders: Set<object>;
}

interface LeaseState extends Lease {
  /** Follows the scope only: the readers' own signals are {@link LeaseState.signals}. */
  readonly link: Follower;
  /** A ping went out and no render has come back since. */
  awaiting: boolean;
  wakeUp: () => void;
  cancelTimer: () => void;
  /** The signals renders passed, each followed until the lease settles. */
  readonly signals: Map<AbortSignal, () => void>;
  /** A render passed no signal: no reader's abort can end the read, only its abandonment. */
  unsignalled: boolean;
  /**
   * A component that has not committed renewed it (a new mount, suspended): no holder, yet it
   * may still wait, which only a ping finds out.
   */
  unheld: boolean;
  /** Its failure was thrown to a render: it goes {@link FAILURE_SHOWN} ms after the first throw. */
  thrown: boolean;
}

const registry = /* @__PURE__ */ sharedWeakMap<Engine, Map<string, LeaseState>>('leases@1');

/** Per engine and key, how to let go of the data a suspended read left in the cache for its renders. */
const kept = /* @__PURE__ */ sharedWeakMap<Engine, Map<string, () => void>>('keptReads@1');

/**
 * Keeps the data of `key` in the cache (`hold` is a subscription to it) until a component
 * commits it ({@link keyShown}), or for `abandonAfter` ms if none does.
 */
function keepUntilShown(engine: Engine, key: string, hold: () => void, abandonAfter: number) {
  let byKey = kept.get(engine);
  if (!byKey) {
    byKey = new Map();
    kept.set(engine, byKey);
  }
  byKey.get(key)?.();
  const cancelTimer = engine.clock.schedule(abandonAfter, () => release());
  const release = () => {
    if (byKey.get(key) === release) byKey.delete(key);
    cancelTimer();
    hold();
  };
  byKey.set(key, release);
}

/** Whether a suspended read brought the data of `key` and no component has shown it yet. */
export const awaitsShowing = (engine: Engine, key: string): boolean => kept.get(engine)?.has(key) ?? false;

/**
 * A component committed `key` (or a server rendered it): it subscribes to the key's data itself,
 * which a suspended read no longer needs to keep in the cache.
 */
export function keyShown(engine: Engine, key: string): void {
  kept.get(engine)?.get(key)?.();
}

/** The leases of one engine, by key. */
export function leasesOf(engine: Engine): Map<string, Lease> {
  let byKey = registry.get(engine);
  if (!byKey) {
    byKey = new Map();
    registry.set(engine, byKey);
  }
  return byKey;
}

const abandoned = () => new DOMException('The suspended render was abandoned', 'AbortError');
const invalidatedRead = () =>
  new DOMException('Superseded: the key was invalidated while it was read', 'AbortError');
const superseded = () =>
  new DOMException('Superseded: the suspended component moved to another input', 'AbortError');

function freshWake(lease: LeaseState) {
  lease.wake = new Promise((resolve) => {
    lease.wakeUp = resolve;
  });
}

/** Asks React to render the lease's readers again: resolves what they wait on, and awaits a render. */
function ping(lease: LeaseState) {
  lease.awaiting = true;
  const wakeUp = lease.wakeUp;
  freshWake(lease);
  wakeUp();
}

/** Lets go of a lease's request now (a no-op once it settled) and forgets the lease. */
function release(engine: Engine, key: string, lease: LeaseState, reason: unknown) {
  forget(engine, key, lease);
  lease.link.abort(reason);
  lease.wakeUp();
}

/** Starts a lease for `key` on `link`; `start` sends the read on the link's signal. */
export function openLease(
  engine: Engine,
  key: string,
  options: {
    stitch: string;
    scope: AbortSignal | undefined;
    link: Follower;
    abandonAfter: number;
    start: () => Promise<SafeResult<unknown>>;
  },
): Lease {
  const byKey = leasesOf(engine) as Map<string, LeaseState>;
  const result = options.start();
  const lease: LeaseState = {
    stitch: options.stitch,
    result,
    scope: options.scope,
    settled: undefined,
    wake: Promise.resolve(),
    holders: new Set(),
    link: options.link,
    awaiting: false,
    wakeUp: () => {},
    cancelTimer: () => {},
    signals: new Map(),
    unsignalled: false,
    unheld: false,
    thrown: false,
  };
  freshWake(lease);
  // A ping and the release of a lease it found abandoned are a tick apart: together within one
  // `abandonAfter` of the last render.
  const period = options.abandonAfter / 2;
  const tick = () => {
    if (lease.awaiting) {
      release(engine, key, lease, abandoned());
      return;
    }
    lease.cancelTimer = engine.clock.schedule(period, tick);
    ping(lease);
  };
  lease.cancelTimer = engine.clock.schedule(period, tick);
  // Data for the key from elsewhere (another reader's request after an invalidation, a write)
  // ends the wait: the readers render it. The lease itself goes at its own end, or unrenewed. An
  // invalidation of the key before then lets go of the read (its answer predates the write): the
  // readers render again and read anew at once, as a mounted `useStitch` refetches.
  const invalidatedAt = engine.getSnapshot(key).invalidated;
  const unwatch = engine.subscribe(key, () => {
    if (lease.settled) return;
    const { data, invalidated } = engine.getSnapshot(key);
    if (invalidated > invalidatedAt && byKey.get(key) === lease) {
      release(engine, key, lease, invalidatedRead());
      return;
    }
    if (data === undefined) return;
    const wakeUp = lease.wakeUp;
    freshWake(lease);
    wakeUp();
  });
  result.then((settled) => {
    lease.settled = settled;
    lease.cancelTimer();
    lease.link.dispose();
    for (const off of lease.signals.values()) off();
    lease.signals.clear();
    // A success is in the cache by now, where its readers find it: the lease has done its work.
    // Its subscription stays until a component commits the key, so that `cacheSize` cannot evict
    // the data before React renders it (with more keys suspended at once than it, each read would
    // be sent again, without end). A failure is kept for the renders it wakes, as long as one
    // thrown (see FAILURE_SHOWN); one no render comes to see (its boundary went away) is then
    // forgotten: a later reader of the key reads it again, rather than showing an old failure.
    if (settled.ok) {
      forget(engine, key, lease);
      keepUntilShown(engine, key, unwatch, options.abandonAfter);
    } else {
      unwatch();
      if (byKey.get(key) === lease)
        lease.cancelTimer = engine.clock.schedule(FAILURE_SHOWN, () => forget(engine, key, lease));
    }
    lease.wakeUp();
  });
  // A new read of a stitch may be a component that moved off another key before any of its
  // renders committed (React keeps no identity for those): the other unsettled leases of the
  // stitch are pinged now, so one that nobody renders any more is let go at its next tick.
  for (const other of byKey.values()) {
    if (other.stitch !== lease.stitch || other.settled || other.holders.size > 0 || other.awaiting) continue;
    ping(other);
  }
  byKey.set(key, lease);
  return lease;
}

/**
 * A render came back for the lease: it is still wanted, by a reader on `signal`. The read is one
 * for all its readers: it ends when every signal they passed has aborted (at once, with the last
 * one's reason), never while a reader passed none. A reader whose own signal aborted re-renders
 * and shows that abort alone (see `useSuspenseStitch`); one on a live signal reads again.
 */
export function renewLease(
  engine: Engine,
  key: string,
  lease: Lease,
  signal: AbortSignal | undefined,
  held: boolean,
): void {
  const state = lease as LeaseState;
  state.awaiting = false;
  if (!held) state.unheld = true;
  if (!signal) {
    state.unsignalled = true;
    return;
  }
  if (state.signals.has(signal) || state.settled) return;
  state.signals.set(
    signal,
    onAbort(signal, (reason) => {
      const everyone = !state.unsignalled && [...state.signals.keys()].every((asked) => asked.aborted);
      if (!everyone) {
        // The reader on it renders again, and shows its abort; past many signals (one made per
        // render: each wake would register more, each of their aborts wake it again), the
        // abandon period's own pings do.
        if (state.signals.size <= WOKEN_SIGNALS) ping(state);
        return;
      }
      // Forgotten at once: each reader shows its own abort, and a reader on a live signal (a
      // boundary reset with a new one, a later mount) reads again.
      for (const asked of state.signals.keys()) {
        const ended = endedBy.get(asked) ?? [];
        ended.push({ engine, key, lease: state });
        endedBy.set(asked, ended);
      }
      release(engine, key, state, reason);
    }),
  );
}

/**
 * The reads each signal's abort ended, with every other reader's (one route's signal may end the
 * reads of several keys): what each had sent is its error's.
 */
const endedBy = /* @__PURE__ */ sharedWeakMap<
  AbortSignal,
  Array<{ engine: Engine; key: string; lease: LeaseState }>
>('endedReads@1');

/**
 * The error of the read of `key` that the abort of `signal` ended (with every other reader's
 * signal aborted): it says what the read had sent (`attempts`, `requests`, `url`). Until that
 * read has settled, the promise of its end, for a render to wait on. `undefined` when that abort
 * ended no read of the key.
 */
export function endedRead(
  signal: AbortSignal,
  engine: Engine,
  key: string,
): StitchError | Promise<unknown> | undefined {
  const ended = endedBy.get(signal)?.find((read) => read.engine === engine && read.key === key);
  if (!ended) return undefined;
  const settled = ended.lease.settled;
  // Aborted, not yet settled: what it sent is known once its run has said so.
  if (!settled) return ended.lease.result;
  return !settled.ok && settled.error.kind === 'aborted' ? settled.error : undefined;
}

/**
 * How many signals a lease follows and still wakes its readers at the abort of each: far more
 * than readers of one key have, far fewer than a signal made per render piles up.
 */
const WOKEN_SIGNALS = 32;

/**
 * How long (ms) a failure stays thrown to the renders of its key after the first. React renders a
 * failed component again before it shows the error boundary: at once under `act()`, but in a
 * browser only after the rest of its render, which may yield for as long as the page takes to
 * render. That render must throw the failure too: finding no lease, it would send the read again
 * (and on React 18, again at each failure, without end).
 */
export const FAILURE_SHOWN = 1_000;

/**
 * The failure of a settled lease was thrown to a render: kept for the renders React makes before
 * it shows the boundary, then forgotten, so a reset of the boundary reads again.
 */
export function failureThrown(engine: Engine, key: string, lease: Lease): void {
  const state = lease as LeaseState;
  if (state.thrown) return;
  state.thrown = true;
  state.cancelTimer();
  state.cancelTimer = engine.clock.schedule(FAILURE_SHOWN, () => forget(engine, key, state));
}

/** Forgets a settled lease now: its failure has been shown, or nobody came to see it. */
export function forget(engine: Engine, key: string, lease: Lease): void {
  const byKey = leasesOf(engine);
  if (byKey.get(key) === lease) byKey.delete(key);
  (lease as LeaseState).cancelTimer();
}

/**
 * `holder` (a committed component) no longer waits on the lease of `key`: it re-keyed or
 * unmounted. The last holder's departure releases the request at once.
 */
export function dropHolder(engine: Engine, key: string, lease: Lease, holder: object): void {
  if ((lease as LeaseState).holders.delete(holder)) letGo(engine, key, lease);
}

/**
 * Releases the request of `lease` at once, superseded, unless a committed component holds it. A
 * lease a new mount renewed is pinged instead: that reader, if it still waits, renders again and
 * renews it (its request goes on, sent once); if not, the next tick releases it.
 */
export function letGo(engine: Engine, key: string, lease: Lease): void {
  const state = lease as LeaseState;
  if (state.holders.size > 0 || state.settled) return;
  if (state.unheld) ping(state);
  else release(engine, key, state, superseded());
}
