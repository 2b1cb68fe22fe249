import { type Engine, isAbortError, type SafeResult } from '../index';
import type { Follower } from './follow';

/**
 * One suspended read, shared by every render that suspends on its key. React gives no sign when
 * it abandons a suspended render, so a lease asks: every `abandonAfter` ms it resolves the
 * promise React waits on (a "ping"), and React, if it still wants the data, renders the
 * component again, which finds the lease and renews it. A lease that no render came back for
 * within a period after a ping is abandoned: its request is released (the socket closes when it
 * was the last reference). A read slower than `abandonAfter` that React still waits for thus
 * completes once, however slow.
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
  readonly link: Follower;
  /** A ping went out and no render has come back since. */
  awaiting: boolean;
  wakeUp: () => void;
  cancelTimer: () => void;
}

const registry = new WeakMap<Engine, Map<string, LeaseState>>();

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
  const byKey = leasesOf(engine) as Map<string, LeaseState>;
  if (byKey.get(key) === lease) byKey.delete(key);
  lease.cancelTimer();
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
  };
  freshWake(lease);
  const tick = () => {
    if (lease.awaiting) {
      release(engine, key, lease, abandoned());
      return;
    }
    lease.cancelTimer = engine.clock.schedule(options.abandonAfter, tick);
    ping(lease);
  };
  lease.cancelTimer = engine.clock.schedule(options.abandonAfter, tick);
  result.then((settled) => {
    lease.settled = settled;
    lease.cancelTimer();
    lease.link.dispose();
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

/** A render came back for the lease: it is still wanted. */
export function renewLease(lease: Lease): void {
  (lease as LeaseState).awaiting = false;
}

const signalIds = new WeakMap<AbortSignal, number>();
let lastSignalId = 0;

/**
 * Where the lease of a read of `key` on `signal` is kept: one per key and signal. Readers of a key
 * with different signals (one with none) are each a reference on the engine's request, so one's
 * abort reaches its own boundary and leaves the others' read going; a reader handed a new signal
 * takes a lease on it, and the old one's abort no longer counts.
 */
export function leaseId(key: string, signal: AbortSignal | undefined): string {
  if (!signal) return key;
  let id = signalIds.get(signal);
  if (id === undefined) {
    id = ++lastSignalId;
    signalIds.set(signal, id);
  }
  return `${key}\u0000${id}`;
}

/**
 * The lease of a read of `key` on another signal that failed other than by an abort, and where it
 * is kept: that failure is the key's, for a read on any signal (one made per render would
 * otherwise send the request again at every render of the failure).
 */
export function failedRead(engine: Engine, key: string): [string, Lease] | undefined {
  for (const entry of leasesOf(engine)) {
    const [id, lease] = entry;
    const failed = lease.settled?.ok === false && !isAbortError(lease.settled.error);
    if (failed && (id === key || id.startsWith(`${key}\u0000`))) return entry;
  }
  return undefined;
}

/**
 * `holder` (a committed component) no longer waits on the lease of `key`: it re-keyed or
 * unmounted. The last holder's departure releases the request at once.
 */
export function dropHolder(engine: Engine, key: string, lease: Lease, holder: object): void {
  const state = lease as LeaseState;
  if (!state.holders.delete(holder) || state.holders.size > 0 || state.settled) return;
  release(engine, key, state, superseded());
}
