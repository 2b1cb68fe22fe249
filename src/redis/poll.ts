/**
 * The one wait of the throttle's shared parts (a rate grant, a concurrency slot): ask the store;
 * while it answers "wait", sleep on the engine's clock and ask again. Nothing tells a process that
 * another one freed what it waits for, so it asks; the store's answer paces it.
 *
 * One measure bounds it, whatever is waited for: `maxWait` is the time the caller has waited on
 * the engine's clock since `started` (the shared acquire's start, read once). The total deadline
 * and the caller's abort reach it through `signal`, which every ask and every sleep takes.
 */
import { onAbortShared, raceAbort } from '../engine/abort';
import type { Clock } from '../engine/clock';
import { StitchError } from '../engine/errors';
import { lateOf } from '../engine/store';

/** How long a caller waits for a shared grant or slot, and what it hears. */
export interface SharedWaitOptions {
  /** Aborting rejects at once with the signal's reason; the engine aborts it at the total deadline too. */
  signal: AbortSignal;
  /** When the wait began, on the engine's clock: `maxWait` counts from here. */
  started: number;
  /** Longest wait in ms since `started`; past it, the wait rejects with a `rate-limited` StitchError. */
  maxWait: number;
  /** Called once, when the store's first answer is "wait". */
  onQueued: () => void;
  /** Called when `signal` ends the wait while the store has not answered an ask. */
  onUnanswered: () => void;
}

/** What is waited for: asked for again and again, given back if it comes after the caller left. */
export interface Wanted {
  /** Named in the error past `maxWait`: "shared concurrency slot of 'pool'". */
  what: string;
  /** Asks the store once: resolves 0 when granted, else ms to wait. */
  take(): Promise<number>;
  /** Gives back a grant that landed after its caller left, off the call's path. */
  giveBack(): Promise<void>;
  /**
   * How the store's "wait `n` ms" reads. Absent: `n` is exact, nothing is granted sooner (a rate
   * window), so the waiter asks again after `n` and, when `n` ends past `maxWait`, gives up at
   * once (with `retryAfter`) instead of waiting in vain. Present: `n` is only the latest a holder
   * leaves and one may leave sooner (a slot freed elsewhere), so it asks again after `first` ms,
   * doubling up to `last`, or after `n` when that is sooner.
   */
  poll?: { first: number; last: number };
}

/**
 * Awaits the store's answer to a take (0: taken, else ms to wait), or the abort of `signal`,
 * whichever comes first. A caller who leaves first gives the take back at once, by its id, off
 * the call's path (nothing will be sent under it): the server applies that after the take and
 * before any later caller's, so the next call of a re-key finds the slot free; and once more if
 * the take lands granted after that, or after the engine gave up on the store's answer.
 */
async function awaitGrant(wanted: Wanted, { signal, onUnanswered }: SharedWaitOptions): Promise<number> {
  const taking = wanted.take();
  // Sent from the abort itself, ahead of anything a later caller sends in the same tick.
  const leave = onAbortShared(signal, () => {
    wanted.giveBack().catch(() => {});
  });
  try {
    return await raceAbort(taking, signal);
  } catch (error) {
    // And again once the take lands granted after all: a store that re-sends it (Redis after a
    // NOSCRIPT) runs it after that first give-back. So too a take the engine gave up on (a slow
    // store, past `storeTimeout`), which still runs once the store answers again.
    if (signal.aborted) onUnanswered();
    const landing = signal.aborted
      ? taking.catch((failed: unknown) => lateOf<number>(failed))
      : lateOf<number>(error);
    // Granted, or its answer lost (it may have been): given back by its id either way.
    landing
      ?.then((late) => (late === 0 || late === undefined ? wanted.giveBack() : undefined))
      .catch(() => {});
    throw error;
  } finally {
    leave();
  }
}

/**
 * Takes `wanted`, waiting (abortably) while the store says to.
 * Rejects with the signal's reason on abort, with a `rate-limited` StitchError past `maxWait`,
 * and with the store's error when it fails.
 */
export async function waitFor(clock: Clock, wanted: Wanted, options: SharedWaitOptions): Promise<void> {
  const { signal, started, maxWait } = options;
  const { poll } = wanted;
  let step = poll ? poll.first : Number.POSITIVE_INFINITY;
  for (let asked = false; ; asked = true) {
    const wait = await awaitGrant(wanted, options);
    if (wait === 0) return;
    const left = started + maxWait - clock.now();
    if (left <= 0 || (!poll && wait > left)) {
      throw new StitchError({
        kind: 'rate-limited',
        message: `no ${wanted.what} within maxWait (${maxWait}ms)`,
        retryable: true,
        retryAfter: poll ? undefined : wait,
      });
    }
    if (!asked) options.onQueued();
    await clock.sleep(Math.min(wait, step, left), signal);
    if (poll) step = Math.min(2 * step, poll.last);
  }
}
