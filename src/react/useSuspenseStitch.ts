import { useContext, useEffect, useRef, useSyncExternalStore } from 'react';
import type { CallArgs, Engine, InputArg, Stitch, StitchInput } from '../index';
import { checkOptions, stitchName, USE_SUSPENSE_STITCH } from './checkOptions';
import { ScopeContext } from './context';
import { follow } from './follow';
import {
  awaitsShowing,
  dropHolder,
  endedRead,
  failureThrown,
  forget,
  keyShown,
  type Lease,
  leasesOf,
  letGo,
  openLease,
  renewLease,
} from './leases';
import { abortError, unmounted } from './observer';
import { useEngine } from './provider';
import { readInput } from './readInput';

/** A read this component waits on: its lease, on the engine and key it was opened for. */
interface Held {
  engine: Engine;
  key: string;
  lease: Lease;
}

/** Options of {@link useSuspenseStitch}. */
export interface UseSuspenseStitchOptions {
  /**
   * Aborts this component's suspended read: its error reaches this component's error boundary,
   * while other readers of the key keep theirs (the request is aborted, its socket closed, once
   * every reader's signal has aborted; never while a reader passed none). A new one in its place
   * counts from its first render, and after an abort reads again: a signal made per render (an
   * inline `AbortSignal.timeout(…)`) is a new one at each render, so a timeout that should end the
   * read needs a signal made once (`useMemo`, a route's).
   */
  signal?: AbortSignal | undefined;
  /**
   * React never says when it abandons a suspended render (its boundary unmounted, say). Every
   * half this many ms a suspended read asks React to render again, and one that no render came
   * back for is released: a read React abandoned goes within this many ms of its last render. A
   * slow read React still waits for is never cut, as long as React renders the component again
   * within half this after a ping (15 s at the default). @default 30_000
   */
  abandonAfter?: number | undefined;
}

/**
 * Like `useStitch`, for Suspense: returns data, suspends while it loads, throws a failure to the
 * nearest error boundary, sent once: the failure is thrown to the key's renders for a second
 * (React renders a failed component again before it shows the boundary, after the rest of a slow
 * render), so a boundary reset within it shows the failure again, and one after it reads again.
 * The suspended request is one reference, released at once when a committed component re-keys
 * or unmounts (unless a new mount still waits on it: it goes on for that one, sent once), or the
 * enclosing `StitchScope` resets or `signal` aborts; a render abandoned before its first commit
 * is released within `abandonAfter`. An invalidation of the key
 * refetches in the background, the invalidated data shown meanwhile; so does a mount or re-key
 * on cached data older than the stitch's `cache.ttl` (default 0), unless the hook's own
 * suspended read has just brought it.
 */
export function useSuspenseStitch<TData, TInput extends StitchInput>(
  stitch: Stitch<TData, TInput>,
  input: InputArg<TInput>,
  options: UseSuspenseStitchOptions = {},
): { data: TData; isFetching: boolean } {
  checkOptions('useSuspenseStitch', stitchName('useSuspenseStitch', stitch), options, USE_SUSPENSE_STITCH);
  // A write is never cached: its every answer would leave the read suspended, and send it again.
  readInput('useSuspenseStitch', stitch, input, true, ': use useStitchMutation');
  const engine = useEngine();
  const scope = useContext(ScopeContext);
  const key = engine.keyOf<TInput>(stitch, input) ?? stitch.definition.name;
  const subscribe = (listener: () => void) => engine.subscribe(key, listener);
  const read = () => engine.getSnapshot<TData>(key);
  // The same on a server: what it has prefetched (or hydrated) is rendered there too.
  const snapshot = useSyncExternalStore(subscribe, read, read);
  // The lease this component waits on, kept only once it has committed (before that, React keeps
  // no identity for it between renders, and the lease's pings find out whether it is still wanted).
  const held = useRef<Held | undefined>(undefined);
  const committed = useRef(false);
  // The key of the last commit: what is on screen.
  const shown = useRef<string | undefined>(undefined);
  // The lease of a transition still pending, perhaps, let go of by a render of the key on screen
  // (see below): a render of it renews it, one of yet another key supersedes it.
  const parked = useRef<Held | undefined>(undefined);
  useEffect(() => {
    shown.current = key;
    // After `useSyncExternalStore` subscribed to it: the data stays in use throughout.
    keyShown(engine, key);
  }, [engine, key]);

  useEffect(() => {
    committed.current = true;
    return () => {
      committed.current = false;
      // A microtask later, so StrictMode's simulated unmount and remount keep the lease.
      queueMicrotask(() => {
        if (committed.current) return;
        const [current, waiting] = [held.current, parked.current];
        held.current = parked.current = undefined;
        if (current) dropHolder(current.engine, current.key, current.lease, held);
        if (waiting) letGo(waiting.engine, waiting.key, waiting.lease);
      });
    };
  }, []);

  // Invalidated data stays on screen while one background read refreshes it (no suspense): a
  // reference like any reader's, let go when the component re-keys or unmounts. Under StrictMode
  // the simulated unmount lets go in the same tick, before anything was sent. `input` is read
  // through `key`; `options.signal` as it is when the refresh starts (one made per render must not
  // restart it at every render).
  const refresh = () => {
    const link = follow(options.signal, scope);
    const call = stitch(...([input, { engine, signal: link.signal, revalidate: true }] as CallArgs<TInput>));
    call.safe().then(() => link.dispose());
    return () => {
      link.abort(unmounted());
      link.dispose();
    };
  };
  const stale = snapshot.data !== undefined && snapshot.stale;
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above.
  useEffect(() => (stale ? refresh() : undefined), [engine, stitch, key, stale, snapshot.invalidated, scope]);
  // Data shown on mount or re-key that is older than the stitch's `cache.ttl` (default 0) is
  // refreshed the same way, as `useStitch` does, unless a suspended read has just brought it.
  const expired =
    snapshot.data !== undefined &&
    !snapshot.stale &&
    !awaitsShowing(engine, key) &&
    engine.clock.now() - (snapshot.updatedAt ?? Number.NEGATIVE_INFINITY) >=
      (stitch.definition.cache?.ttl ?? 0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: on mount and re-key only, as said above.
  useEffect(() => (expired ? refresh() : undefined), [engine, stitch, key, scope]);

  // A read on the provider's previous engine is let go at once, as a re-key's is.
  const previous = held.current;
  if (previous && (previous.engine !== engine || previous.key !== key || snapshot.data !== undefined)) {
    held.current = undefined;
    // A render of the key on screen while the lease is another key's may be React rendering the
    // committed key again while a transition to that other key still suspends: the lease is only
    // let go of here (a render that comes back for it renews it; else it goes within
    // `abandonAfter`). Releasing it would send the transition's read again at its next try.
    if (previous.engine === engine && previous.key !== key && key === shown.current) {
      previous.lease.holders.delete(held);
      parked.current = previous;
    } else dropHolder(previous.engine, previous.key, previous.lease, held);
  }
  // A render of neither the key on screen nor the parked one: React renders a newer input (the
  // next keystroke of a deferred value, the next route), so the parked read goes at once.
  const waiting = parked.current;
  if (waiting && (key !== shown.current || waiting.engine !== engine)) {
    parked.current = undefined;
    if (waiting.key !== key || waiting.engine !== engine) letGo(waiting.engine, waiting.key, waiting.lease);
  }
  if (snapshot.data !== undefined) {
    // On a server, where nothing commits, a render is final: the data a suspended read kept in
    // the cache for it is let go now, not `abandonAfter` later.
    if (typeof window === 'undefined') keyShown(engine, key);
    return { data: snapshot.data, isFetching: snapshot.fetching };
  }

  // This reader's own abort is its own error, whoever else reads the key.
  if (options.signal?.aborted) {
    const ended = endedRead(options.signal, engine, key);
    // A render may come before the read this abort ended has settled: it waits for it.
    if (ended instanceof Promise) throw ended;
    throw abortError(stitch, options.signal.reason, ended);
  }
  const byKey = leasesOf(engine);
  let lease = byKey.get(key);
  const outcome = lease?.settled;
  if (lease && outcome) {
    const spent = lease;
    // A failure under another scope is not this read's: like `useStitch`, it restarts on the new
    // scope. That is a reset (a new `resetKey`), even in the render that makes it, before the old
    // scope is aborted at its commit: a boundary reset in that same render reads again.
    const reset = spent.scope !== scope;
    // A success is in the snapshot by now; only a failure is left to report.
    if (!outcome.ok && !reset) {
      // Kept until React's own retry of this failed render has seen it too: a retry that found no
      // lease would send the request again instead of reaching the error boundary.
      failureThrown(engine, key, spent);
      throw outcome.error;
    }
    forget(engine, key, spent);
  }
  if (!lease || lease.settled) {
    const link = follow(scope);
    lease = openLease(engine, key, {
      stitch: stitch.definition.name,
      scope,
      link,
      abandonAfter: options.abandonAfter ?? 30_000,
      start: () => stitch(...([input, { engine, signal: link.signal }] as CallArgs<TInput>)).safe(),
    });
  }
  renewLease(engine, key, lease, options.signal, committed.current);
  if (committed.current) {
    lease.holders.add(held);
    held.current = { engine, key, lease };
  }
  throw lease.wake;
}
