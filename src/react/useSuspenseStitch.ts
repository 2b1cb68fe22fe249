import { useContext, useSyncExternalStore } from 'react';
import { type Engine, linkSignals, type SafeResult, type Stitch, type StitchInput } from '../index';
import { ScopeContext } from './context';
import { invoke } from './invoke';
import { useEngine } from './provider';

/** Options of {@link useSuspenseStitch}. */
export interface UseSuspenseStitchOptions {
  /** Aborts the suspended request (its error then reaches the error boundary). */
  signal?: AbortSignal;
  /**
   * A suspended render that React abandons (its boundary unmounted) never says so; if no render
   * for the key comes back within this many ms, the request is released. @default 30_000
   */
  abandonAfter?: number;
}

/** One suspended read: the request it holds and when it counts as abandoned. */
interface Lease {
  readonly result: Promise<SafeResult<unknown>>;
  /** The `StitchScope` signal it was started under. */
  readonly scope: AbortSignal | undefined;
  settled: SafeResult<unknown> | undefined;
  cancelTimer: () => void;
}

const leases = new WeakMap<Engine, Map<string, Lease>>();

/**
 * Like `useStitch`, for Suspense: returns data, suspends while it loads, throws a failure to the
 * nearest error boundary. The suspended request is one reference, released when the enclosing
 * `StitchScope` resets, when `signal` aborts, or when React abandons the render.
 */
export function useSuspenseStitch<TData, TInput extends StitchInput>(
  stitch: Stitch<TData, TInput>,
  input: TInput | undefined,
  options: UseSuspenseStitchOptions = {},
): { data: TData; isFetching: boolean } {
  const engine = useEngine();
  const scope = useContext(ScopeContext);
  const key = engine.keyOf(stitch, input) ?? stitch.definition.name;
  const subscribe = (listener: () => void) => engine.subscribe(key, listener);
  const snapshot = useSyncExternalStore(subscribe, () => engine.getSnapshot<TData>(key));
  if (snapshot.data !== undefined) return { data: snapshot.data, isFetching: snapshot.fetching };

  const byKey = leases.get(engine) ?? new Map<string, Lease>();
  leases.set(engine, byKey);
  let lease = byKey.get(key);
  const outcome = lease?.settled;
  if (lease && outcome) {
    const spent = lease;
    // A scope reset is not this read's failure: like `useStitch`, it restarts on the new scope.
    const reset = spent.scope !== scope && spent.scope?.aborted === true;
    // A success is in the snapshot by now; only a failure is left to report.
    if (!outcome.ok && !reset) {
      // Kept until React's own synchronous retry of this failed render has seen it too: a retry
      // that found no lease would send the request again instead of reaching the error boundary.
      queueMicrotask(() => {
        if (byKey.get(key) === spent) byKey.delete(key);
      });
      throw outcome.error;
    }
    byKey.delete(key);
  }
  if (!lease || lease.settled) {
    const link = linkSignals(options.signal, scope);
    const result = invoke(stitch, input, { engine, signal: link.signal }).safe();
    const started: Lease = { result, scope, settled: undefined, cancelTimer: () => {} };
    result.then((settled) => {
      started.settled = settled;
      started.cancelTimer();
      link.dispose();
    });
    lease = started;
    byKey.set(key, lease);
    const ms = options.abandonAfter ?? 30_000;
    const abandon = () => {
      if (byKey.get(key) === started) byKey.delete(key);
      link.abort(new DOMException('The suspended render was abandoned', 'AbortError'));
    };
    lease.cancelTimer = engine.clock.schedule(ms, abandon);
  }
  throw lease.result;
}
