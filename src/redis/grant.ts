/** What the shared rate and the shared concurrency limit both do while they ask the store. */
import { raceAbort } from '../engine/abort';

/** How long a caller waits for a shared grant or slot, and what it hears. */
export interface SharedWaitOptions {
  /** Aborting rejects at once with the signal's reason. */
  signal: AbortSignal;
  /** Longest wait in ms; past it, the wait rejects with a `rate-limited` StitchError. */
  maxWait: number;
  /** Called once, when the store's first answer is "wait". */
  onQueued: () => void;
}

/**
 * Awaits the store's answer to a take (0: taken, else ms to wait), or the abort of `signal`,
 * whichever comes first. A take that lands after the caller left is given back at once with
 * `giveBack`, off the call's path: nothing will be sent under it.
 */
export async function awaitGrant(
  taking: Promise<number>,
  signal: AbortSignal,
  giveBack: () => Promise<void>,
): Promise<number> {
  try {
    return await raceAbort(taking, signal);
  } catch (error) {
    taking.then((late) => (late === 0 ? giveBack() : undefined)).catch(() => {});
    throw error;
  }
}
