/**
 * Issue 12, items 3 and 6, on the real clock: a delay past the host's 2^31-1 ms timer limit is
 * chained (Node fires such a timer after 1 ms, and vitest's fake timers mimic that), and `now()`
 * is monotonic: a step of the wall clock (`Date.now`) does not move it; `wallNow()` follows it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS } from '../../src/engine/clock';
import { createRealClock } from '../../src/index';

const DAY = 24 * 3_600_000;

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('createRealClock: delays of any length', () => {
  it('fires a 30-day timer after 30 days, not after 1 ms', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const clock = createRealClock();
    const fired = vi.fn();
    clock.schedule(30 * DAY, fired);
    vi.advanceTimersByTime(1_000);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(30 * DAY - 1_001);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never hands the host a delay past its limit, and cancels mid-chain', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const clock = createRealClock();
    const fired = vi.fn();
    const cancel = clock.schedule(3 * MAX_TIMER_MS, fired);
    vi.advanceTimersByTime(MAX_TIMER_MS + 5);
    cancel();
    vi.advanceTimersByTime(3 * MAX_TIMER_MS);
    expect(fired).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
    expect(Math.max(...spy.mock.calls.map(([, ms]) => ms ?? 0))).toBeLessThanOrEqual(MAX_TIMER_MS);
  });

  it('an Infinity delay schedules nothing and never fires', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const fired = vi.fn();
    createRealClock().schedule(Number.POSITIVE_INFINITY, fired);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('createRealClock: monotonic now, wall-clock wallNow', () => {
  it('a wall-clock step back of an hour moves wallNow() but not now()', () => {
    const clock = createRealClock();
    const before = clock.now();
    const wall = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(wall - 3_600_000);
    expect(clock.now()).toBeGreaterThanOrEqual(before);
    expect(clock.now() - before).toBeLessThan(3_600_000);
    expect(clock.wallNow()).toBe(wall - 3_600_000);
  });

  it("follows a test's fake timers that replace performance (vitest's default): their time, not a jump back", () => {
    const clock = createRealClock();
    const before = clock.now();
    // Faked from a minute ahead, the fake's time is known: its origin, counting from 0. Read with
    // the real origin, it would be the process's start (a jump back by its uptime).
    const ahead = Date.now() + 60_000;
    vi.useFakeTimers({ now: ahead });
    expect(clock.now()).toBe(ahead);
    expect(ahead).toBeGreaterThan(before);
    vi.advanceTimersByTime(1_500);
    expect(clock.now()).toBe(ahead + 1_500);
  });
});
