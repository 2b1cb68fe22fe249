import { abortReason } from './abort';

/** Cancels a scheduled callback; calling it twice is harmless. */
export type CancelTimer = () => void;

/**
 * The engine's only source of time. Inject one with `createEngine({ clock })` so tests can step
 * time by hand (see `createManualClock` in `stitch-fetch/testing`) and assert that no timer is left.
 *
 * Two kinds of time: `now()` is **monotonic** (it never goes back, whatever the system clock does)
 * and measures every duration (deadlines, backoff, breaker cooldowns, cache freshness, throttle
 * windows, event times); `wallNow()` is the system's wall clock, used only where a date from
 * outside is compared (an HTTP-date `Retry-After`) or shown to people.
 */
export interface Clock {
  /**
   * Monotonic milliseconds. The real clock counts from the epoch as it stood when the process
   * started (`performance.timeOrigin + performance.now()`), so values read like timestamps, but
   * a wall-clock step (NTP, a user changing the time) never moves them.
   */
  now(): number;
  /** Wall-clock milliseconds since the epoch; may step back or forward. */
  wallNow(): number;
  /** Runs `callback` after `ms` milliseconds (any length; `Infinity` never); returns a function that cancels it. */
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

/** The longest delay a host timer takes as given; past it Node and browsers fire after ~1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * This process's monotonic time in ms, from the wall time at its start: the real clock's `now`.
 */
export const monotonicNow = (): number => {
  // Read once per `performance`: its `timeOrigin` is a getter, and the clock is read many times
  // per call. A test's fake timers (vitest's, sinon's) put a `performance` of their own in its
  // place, counting from their own origin: read again, time goes on from where it was.
  const now = performance;
  if (now !== measured) {
    measured = now;
    origin = now.timeOrigin;
  }
  return origin + now.now();
};
let measured: Performance | undefined;
let origin = 0;

/**
 * The real clock: a monotonic `now()`, `Date.now()` as wall time, and the host's timers. A delay
 * longer than 2^31-1 ms is chained (timer after timer), since hosts clamp it to 1 ms.
 */
export function createRealClock(): Clock {
  const schedule = (ms: number, callback: () => void): CancelTimer => {
    if (ms === Number.POSITIVE_INFINITY) return () => {};
    // A negative or NaN delay is due at once, as the host's timers take it.
    let remaining = Math.max(0, ms || 0);
    let id: ReturnType<typeof setTimeout>;
    const arm = () => {
      const step = Math.min(remaining, MAX_TIMER_MS);
      remaining -= step;
      id = setTimeout(remaining > 0 ? arm : callback, step);
    };
    arm();
    return () => clearTimeout(id);
  };
  return {
    now: monotonicNow,
    wallNow: () => Date.now(),
    schedule,
    sleep: sleepOn(schedule),
  };
}
