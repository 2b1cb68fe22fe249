/**
 * Signal plumbing: every child signal comes with `dispose()`, every listener is removed when its
 * work ends, and every abort carries a reason.
 */
import { hasMethods } from './record';

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
  // Its waits' listeners are real again once `dispose` releases it, which `abort` does first.
  const detachers: Array<() => void> = [own(controller.signal).release];
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

/**
 * The listeners of each shared signal, behind the one real listener it carries (none on a signal
 * the engine owns: see {@link own}).
 */
interface FanOut {
  readonly listeners: Set<() => void>;
  /** Removes the real listener, if there is one. */
  detach: () => void;
}

const fanOuts = new WeakMap<AbortSignal, FanOut>();

/** Signals the engine made for one piece of work and aborts itself (see {@link own}). */
const owned = new WeakSet<AbortSignal>();

/** Runs the listeners of `signal`'s fan-out once: it aborted. */
function fire(signal: AbortSignal): void {
  const fanOut = fanOuts.get(signal);
  if (!fanOut) return;
  fanOuts.delete(signal);
  for (const each of [...fanOut.listeners]) each();
}

/** Puts the one real listener on `signal` for its fan-out. */
const listen = (signal: AbortSignal) => onAbort(signal, () => fire(signal));

/** What the owner of a signal does with it (see {@link own}). */
export interface Owned {
  /** Runs the waits on the signal: call it right after each abort of it. */
  aborted(): void;
  /** Gives the signal up (its work is over): a wait still on it gets a real listener. Idempotent. */
  release(): void;
}

/**
 * Marks `signal` as the engine's own: made for one execution or attempt, and aborted only by the
 * code that made it, which calls `aborted()` right after. Until `release()`, the many short waits
 * of a call on it (body chunks, admissions, store round trips) cost a set entry each and the
 * signal carries no listener of the engine at all: an `addEventListener`/`removeEventListener`
 * pair costs microseconds on Node, on every call.
 */
export function own(signal: AbortSignal): Owned {
  owned.add(signal);
  return {
    aborted: () => fire(signal),
    release() {
      if (!owned.delete(signal)) return;
      const fanOut = fanOuts.get(signal);
      if (!fanOut) return;
      if (fanOut.listeners.size === 0) fanOuts.delete(signal);
      else fanOut.detach = listen(signal);
    },
  };
}

/**
 * Like {@link onAbort}, but however many listeners one signal gets this way, it carries a single
 * real listener, removed with the last of them (a signal the engine {@link own}s carries none): a
 * long-lived app signal shared by 10,000 calls neither trips Node's
 * `MaxListenersExceededWarning` nor keeps a listener once they are done. Listeners run in the
 * order they were added, as `addEventListener`'s do.
 */
export function onAbortShared(signal: AbortSignal, listener: () => void): () => void {
  let fanOut = fanOuts.get(signal);
  if (!fanOut) {
    fanOut = { listeners: new Set(), detach: owned.has(signal) ? () => {} : listen(signal) };
    fanOuts.set(signal, fanOut);
  }
  const entry = fanOut;
  entry.listeners.add(listener);
  return () => {
    // An owned signal keeps its (listener-free) fan-out for the next wait of its call.
    if (!entry.listeners.delete(listener) || entry.listeners.size > 0 || owned.has(signal)) return;
    entry.detach();
    if (fanOuts.get(signal) === entry) fanOuts.delete(signal);
  };
}

/** Whether `value` is an AbortSignal (of any realm: a test DOM's, say), or absent. */
export function isSignalOrNone(value: unknown): value is AbortSignal | undefined {
  return (
    value === undefined ||
    (hasMethods(value, 'addEventListener', 'removeEventListener') &&
      typeof (value as AbortSignal).aborted === 'boolean')
  );
}

/**
 * Races `promise` against `signal`: rejects with the abort reason the moment the signal aborts,
 * without waiting for `promise`. The listener is removed when either side settles.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // Nobody waits for `promise` now: its failure must not surface as an unhandled rejection.
    promise.catch(() => {});
    return Promise.reject(abortReason(signal));
  }
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
