import { type CancelTimer, type Clock, sleepOn } from '../engine/clock';
import { configError } from '../engine/errors';

/**
 * A clock that moves only when a test says so. `advance` moves both kinds of time together;
 * `stepWall` moves the wall clock alone, as NTP or a user changing the time would.
 */
export interface ManualClock extends Clock {
  /**
   * Steps the wall clock (`wallNow()`) by `ms`, back when negative, without moving the monotonic
   * `now()` or firing any timer: durations must not notice.
   * @throws StitchError (`config`, field `ms`) when `ms` is not finite.
   */
  stepWall(ms: number): void;
  /**
   * Moves time forward by `ms`, firing every timer that falls due in order of due time. After each
   * timer it lets pending promise callbacks run, so work a timer starts (a retry after a backoff
   * sleep, say) can schedule its own timers before time moves on.
   * @throws StitchError (`config`, field `ms`) when `ms` is negative or not finite: `now()` never goes back.
   */
  advance(ms: number): Promise<void>;
  /**
   * Lets pending promise callbacks run (as `advance` does), then advances to the next scheduled
   * timer and fires it; returns false when none is pending.
   */
  next(): Promise<boolean>;
  /** How many timers are still scheduled. A test that ends with `pending() === 0` leaked none. */
  pending(): number;
  /**
   * Resolves once at least `count` timers are scheduled (at once if they already are), so a test
   * can wait for the engine to reach a sleep or a deadline without polling.
   * @param count @default 1
   * @throws StitchError (`config`, field `count`) unless `count` is a whole number ≥ 0.
   */
  untilPending(count?: number): Promise<void>;
}

interface Timer {
  readonly id: number;
  readonly due: number;
  readonly callback: () => void;
}

/** Lets queued promise reactions run (a few hops deep) without involving any real timer. */
async function flushMicrotasks(): Promise<void> {
  for (let hop = 0; hop < 50; hop++) await Promise.resolve();
}

/**
 * Creates a manual clock starting at `start` ms. Timers due at the same moment fire in the order
 * they were scheduled.
 * @param start initial value of `now()` and of `wallNow()`. @default 0
 * @throws StitchError (`config`, field `start`) unless `start` is a finite number.
 */
export function createManualClock(start = 0): ManualClock {
  if (!Number.isFinite(start))
    throw configError(undefined, 'start', 'must be a finite number of milliseconds');
  let now = start;
  // The wall clock is the monotonic one plus whatever `stepWall` added.
  let wallOffset = 0;
  let nextId = 0;
  let timers: Timer[] = [];
  let waiters: Array<{ count: number; resolve: () => void }> = [];

  const schedule = (ms: number, callback: () => void): CancelTimer => {
    // Never due, as on the real clock: `next()` must not jump time to Infinity for it.
    if (ms === Number.POSITIVE_INFINITY) return () => {};
    // A negative or NaN delay is due at once, as the host's timers (and the real clock) take it.
    const timer: Timer = { id: nextId++, due: now + Math.max(0, ms || 0), callback };
    timers.push(timer);
    const ready = waiters.filter((waiter) => timers.length >= waiter.count);
    waiters = waiters.filter((waiter) => timers.length < waiter.count);
    for (const waiter of ready) waiter.resolve();
    return () => {
      timers = timers.filter((t) => t !== timer);
    };
  };

  const earliest = (): Timer | undefined =>
    timers.reduce<Timer | undefined>(
      (best, t) => (!best || t.due < best.due || (t.due === best.due && t.id < best.id) ? t : best),
      undefined,
    );

  const fire = async (timer: Timer) => {
    timers = timers.filter((t) => t !== timer);
    now = Math.max(now, timer.due);
    timer.callback();
    await flushMicrotasks();
  };

  return {
    now: () => now,
    wallNow: () => now + wallOffset,
    stepWall(ms) {
      if (!Number.isFinite(ms)) throw configError(undefined, 'ms', 'must be a finite number of milliseconds');
      wallOffset += ms;
    },
    schedule,
    sleep: sleepOn(schedule),
    pending: () => timers.length,
    untilPending(count = 1) {
      if (!(Number.isInteger(count) && count >= 0))
        throw configError(undefined, 'count', 'must be a whole number of timers ≥ 0');
      if (timers.length >= count) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ count, resolve }));
    },
    advance(ms) {
      // Thrown as it is called, as documented, not as a rejection.
      if (!(Number.isFinite(ms) && ms >= 0))
        throw configError(
          undefined,
          'ms',
          'must be a finite number of milliseconds ≥ 0: time never goes back',
        );
      const target = now + ms;
      return (async () => {
        await flushMicrotasks();
        for (let timer = earliest(); timer && timer.due <= target; timer = earliest()) await fire(timer);
        // Another advance, not awaited, may have moved time further meanwhile: never back.
        now = Math.max(now, target);
      })();
    },
    async next() {
      // As `advance` does: work already under way schedules its timer first.
      await flushMicrotasks();
      const timer = earliest();
      if (!timer) return false;
      await fire(timer);
      return true;
    },
  };
}
