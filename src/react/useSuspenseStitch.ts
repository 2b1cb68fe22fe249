import { useContext, useSyncExternalStore } from 'react';
import { type Engine, linkSignals, type SafeResult, type Stitch, type StitchInput } from '../index';
import { ScopeContext } from './context';
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
  if (lease?.settled) {
    byKey.delete(key);
    // A success is in the snapshot by now; only a failure is left to report.
    if (!lease.settled.ok) throw lease.settled.error;
  }
  if (!lease || lease.settled) {
    const link = linkSignals(options.signal, scope);
    const result = stitch(input, { engine, signal: link.signal }).safe();
    const started: Lease = { result, settled: undefined, cancelTimer: () => {} };
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
