/**
 * Signal plumbing for the hooks, on the platform's AbortController alone: `stitch-fetch/react`
 * uses only what any adapter of the engine could use, its public API and the platform.
 */

/** A signal that follows others, with the means to abort it and to unhook it from them. */
export interface Link {
  readonly signal: AbortSignal;
  /** Aborts the linked signal with `reason` (its sources are untouched). */
  abort(reason: unknown): void;
  /** Removes the listeners this link put on its sources (a long-lived scope keeps none). Idempotent. */
  dispose(): void;
}

/** Calls `listener` once when `signal` aborts; returns a function that removes it. */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

/** A signal that aborts when any of `sources` does, with that source's reason. */
export function follow(...sources: Array<AbortSignal | undefined>): Link {
  const controller = new AbortController();
  let detachers: Array<() => void> = [];
  const dispose = () => {
    for (const detach of detachers) detach();
    detachers = [];
  };
  const abort = (reason: unknown) => {
    dispose();
    if (!controller.signal.aborted) controller.abort(reason);
  };
  for (const source of sources) {
    if (source?.aborted) {
      abort(source.reason);
      break;
    }
    if (source) detachers.push(onAbort(source, () => abort(source.reason)));
  }
  return { signal: controller.signal, abort, dispose };
}

/** What a cancellation's reason says, for the error a hook shows. */
export function messageOf(reason: unknown): string {
  if (typeof reason === 'object' && reason !== null && 'message' in reason) return String(reason.message);
  return typeof reason === 'string' ? reason : 'The operation was aborted';
}
