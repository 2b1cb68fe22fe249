/**
 * Signal plumbing: every child signal comes with `dispose()`, every listener is removed when its
 * work ends, and every abort carries a reason.
 */

/** The reason of an abort given none: the platform's own `AbortError`. */
export const defaultAbortReason = (): DOMException =>
  new DOMException('This operation was aborted', 'AbortError');

/** The reason a signal aborted with, never `undefined` (a bare `abort()` gets a DOMException). */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason === undefined ? defaultAbortReason() : signal.reason;
}

/** A signal derived from others, plus the means to detach it from them. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Aborts the linked signal with `reason` (its own sources are untouched). */
  abort(reason: unknown): void;
  /** Removes the listeners this link put on its sources. Idempotent. */
  dispose(): void;
}

/**
 * A controller that aborts when any source aborts, with that source's reason. Unlike
 * `AbortSignal.any`, the listeners on long-lived sources are removed by `dispose()`, so one
 * app-wide signal can feed thousands of calls without accumulating listeners.
 */
export function linkSignals(...sources: Array<AbortSignal | undefined>): LinkedSignal {
  const controller = new AbortController();
  const detachers: Array<() => void> = [keep(controller.signal)];
  const dispose = () => {
    for (const detach of detachers.splice(0)) detach();
  };
  const abort = (reason: unknown) => {
    dispose();
    if (!controller.signal.aborted) controller.abort(reason);
  };
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      abort(abortReason(source));
      break;
    }
    detachers.push(onAbortShared(source, () => abort(abortReason(source))));
  }
  return { signal: controller.signal, abort, dispose };
}

/** Calls `listener` once when `signal` aborts; returns a function that removes it. */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

/** The listeners of each shared signal, behind the one real listener it carries. */
const fanOuts = new WeakMap<AbortSignal, { listeners: Set<() => void>; detach: () => void }>();

/** Signals the engine made for one piece of work: their one real listener stays (see {@link keep}). */
const kept = new WeakSet<AbortSignal>();

/**
 * Marks `signal` as the engine's own, made for one execution or attempt: until the returned
 * function is called (when that work ends), {@link onAbortShared} leaves its single real
 * listener in place when the last one goes, so the many short waits of a call (body chunks,
 * admissions, deadlines) each cost a set entry, not an `addEventListener`/`removeEventListener`
 * pair (several microseconds apiece on Node). The returned function removes that listener if
 * nothing waits any more.
 */
export function keep(signal: AbortSignal): () => void {
  kept.add(signal);
  return () => {
    kept.delete(signal);
    const fanOut = fanOuts.get(signal);
    if (fanOut?.listeners.size !== 0) return;
    fanOut.detach();
    fanOuts.delete(signal);
  };
}

/**
 * Like {@link onAbort}, but however many listeners one signal gets this way, it carries a single
 * real listener, removed with the last of them (unless the engine {@link keep}s the signal): a
 * long-lived app signal shared by 10,000 calls neither trips Node's
 * `MaxListenersExceededWarning` nor keeps a listener once they are done. Listeners run in the
 * order they were added, as `addEventListener`'s do.
 */
export function onAbortShared(signal: AbortSignal, listener: () => void): () => void {
  let fanOut = fanOuts.get(signal);
  if (!fanOut) {
    const listeners = new Set<() => void>();
    const detach = onAbort(signal, () => {
      fanOuts.delete(signal);
      for (const each of [...listeners]) each();
    });
    fanOut = { listeners, detach };
    fanOuts.set(signal, fanOut);
  }
  const { listeners, detach } = fanOut;
  listeners.add(listener);
  return () => {
    if (!listeners.delete(listener) || listeners.size > 0 || kept.has(signal)) return;
    detach();
    if (fanOuts.get(signal) === fanOut) fanOuts.delete(signal);
  };
}

/**
 * Races `promise` against `signal`: rejects with the abort reason the moment the signal aborts,
 * without waiting for `promise`. The listener is removed when either side settles.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const detach = onAbortShared(signal, () => reject(abortReason(signal)));
    promise.then(
      (value) => {
        detach();
        resolve(value);
      },
      (error: unknown) => {
        detach();
        reject(error);
      },
    );
  });
}
