import { abortReason } from './abort';

/** Cancels a scheduled callback; calling it twice is harmless. */
export type CancelTimer = () => void;

/**
 * The engine's only source of time. Inject one with `createEngine({ clock })` so tests can step
 * time by hand (see `createManualClock` in `stitch-fetch/testing`) and assert that no timer is left.
 */
export interface Clock {
  /** Wall-clock milliseconds since the epoch (an HTTP-date `Retry-After` is compared with it). */
  now(): number;
  /** Runs `callback` after `ms` milliseconds; returns a function that cancels it. */
  schedule(ms: number, callback: () => void): CancelTimer;
  /**
   * Resolves after `ms` milliseconds. An abort of `signal` rejects at once with the signal's
   * reason and cancels the timer, leaving no listener behind.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Builds `sleep` on top of `schedule`, so every clock shares one abortable implementation.
 * The abort listener and the timer are both released whichever fires first.
 */
export function sleepOn(schedule: Clock['schedule']) {
  return (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = () => {
        cancel();
        reject(abortReason(signal as AbortSignal));
      };
      const cancel = schedule(ms, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}

/** The real clock: `Date.now()` and the host's timers. */
export function createRealClock(): Clock {
  const schedule = (ms: number, callback: () => void): CancelTimer => {
    const id = setTimeout(callback, Math.max(0, ms));
    return () => clearTimeout(id);
  };
  return { now: () => Date.now(), schedule, sleep: sleepOn(schedule) };
}
