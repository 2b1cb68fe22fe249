/**
 * The hooks' own signals, where a call or a wait needs one (a debounce, a mutation, a suspended
 * read, a caller's signal and a scope's together): it follows the hook's cancel and the scope's
 * (or the caller's) signal. A scope signal outlives thousands of calls, so it carries a
 * single real listener whatever number of hooks follow it (Node warns past 10), with the calls
 * following it in a set behind it: each call leaves the set when it ends, and the listener goes
 * with the last of them.
 */

/** The listeners behind each signal's one real `abort` listener, in the order they were added. */
const followers = new WeakMap<AbortSignal, Set<(reason: unknown) => void>>();

/** The one real listener, the same function on every signal (so adding it again adds nothing). */
function fire(this: AbortSignal) {
  for (const run of followers.get(this) ?? []) run(this.reason);
}

function off(signal: AbortSignal, listener: (reason: unknown) => void) {
  const listeners = followers.get(signal);
  listeners?.delete(listener);
  if (!listeners?.size) signal.removeEventListener('abort', fire);
}

/** Calls `listener` with the signal's reason when it aborts; returns a function that removes it. */
export function onAbort(signal: AbortSignal, listener: (reason: unknown) => void): () => void {
  followers.set(signal, (followers.get(signal) ?? new Set()).add(listener));
  signal.addEventListener('abort', fire);
  return () => off(signal, listener);
}

/** One call's signal and the means to end it. */
export interface Follower {
  readonly signal: AbortSignal;
  /** Aborts this call's signal with `reason` (its sources are untouched). */
  abort(reason: unknown): void;
  /** Stops following the sources: call it when the call ends. Idempotent. */
  dispose(): void;
  /**
   * Follows `sources` instead, from now on (aborting at once if one has): the call keeps its
   * signal when the component hands it new ones. Nothing once this signal has aborted.
   */
  follow(...sources: Array<AbortSignal | undefined>): void;
}

/** A signal that aborts with the reason of the first of `sources` to abort (at once if one has). */
export function follow(...sources: Array<AbortSignal | undefined>): Follower {
  const controller = new AbortController();
  let followed: Array<AbortSignal | undefined> = [];
  const dispose = () => {
    for (const source of followed) if (source) off(source, abort);
    followed = [];
  };
  const abort = (reason: unknown) => {
    dispose();
    controller.abort(reason);
  };
  const to = (next: Array<AbortSignal | undefined>) => {
    if (controller.signal.aborted) return;
    dispose();
    followed = next;
    for (const source of next) {
      if (source?.aborted) abort(source.reason);
      else if (source && !controller.signal.aborted) onAbort(source, abort);
    }
  };
  to(sources);
  return { signal: controller.signal, abort, dispose, follow: (...next) => to(next) };
}
