import { describe, expect, it } from 'vitest';
import { GrantTimes } from '../../src/engine/grantTimes';

describe('GrantTimes', () => {
  it('holds the grants after the horizon, and counts from the latest', () => {
    const times = new GrantTimes();
    for (const time of [10, 20, 20, 30]) times.push(time);
    times.dropUntil(15);
    expect(times.size).toBe(3);
    expect([times.fromEnd(1), times.fromEnd(3), times.fromEnd(4)]).toEqual([30, 20, undefined]);
    times.dropUntil(30);
    expect(times.size).toBe(0);
    times.push(40);
    expect(times.fromEnd(1)).toBe(40);
  });

  it('forgets one grant handed back, never one already out of the window', () => {
    const times = new GrantTimes();
    for (const time of [10, 20, 20]) times.push(time);
    times.remove(20);
    expect([times.size, times.fromEnd(1), times.fromEnd(2)]).toEqual([2, 20, 10]);
    times.dropUntil(10);
    times.remove(10);
    expect([times.size, times.fromEnd(1)]).toEqual([1, 20]);
  });

  it('stays exact across the compaction of a long window', () => {
    const times = new GrantTimes();
    for (let time = 1; time <= 5_000; time++) {
      times.push(time);
      times.dropUntil(time - 100);
      expect(times.size).toBe(Math.min(time, 100));
      expect(times.fromEnd(times.size)).toBe(Math.max(1, time - 99));
    }
  });
});
