import { describe, expect, it, vi } from 'vitest';
import { createManualClock } from '../../src/testing/index';

describe('createManualClock', () => {
  it('moves only when advanced, firing timers in due order', async () => {
    const clock = createManualClock(100);
    const fired: string[] = [];
    clock.schedule(20, () => fired.push('b'));
    clock.schedule(10, () => fired.push('a'));
    clock.schedule(20, () => fired.push('c'));
    expect(clock.now()).toBe(100);
    expect(clock.pending()).toBe(3);
    await clock.advance(15);
    expect(fired).toEqual(['a']);
    expect(clock.now()).toBe(115);
    await clock.advance(5);
    expect(fired).toEqual(['a', 'b', 'c']);
    expect(clock.pending()).toBe(0);
  });

  it('refuses a step back or a step that is not finite, naming the field, and stays where it was', async () => {
    const clock = createManualClock(1_000);
    for (const ms of [-500, Number.NaN, Number.POSITIVE_INFINITY]) {
      // Thrown as it is called, as its JSDoc says, not as a rejection.
      expect(() => clock.advance(ms)).toThrow(expect.objectContaining({ kind: 'config', field: 'ms' }));
    }
    expect(() => clock.stepWall(Number.NaN)).toThrow(
      expect.objectContaining({ kind: 'config', field: 'ms' }),
    );
    expect(clock.now()).toBe(1_000);
    expect(clock.wallNow()).toBe(1_000);
    // A start that is no time, and a count of timers that is none, would hang a test instead.
    for (const start of [Number.NaN, '5', Number.POSITIVE_INFINITY]) {
      expect(() => createManualClock(start as number)).toThrow(expect.objectContaining({ field: 'start' }));
    }
    for (const count of [Number.NaN, 'x', 1.5]) {
      expect(() => clock.untilPending(count as number)).toThrow(expect.objectContaining({ field: 'count' }));
    }
  });

  it('never fires a timer of Infinity ms, as the real clock never does: next() does not jump time to it', async () => {
    const clock = createManualClock(100);
    const never = vi.fn();
    clock.schedule(Number.POSITIVE_INFINITY, never);
    expect(clock.pending()).toBe(0);
    expect(await clock.next()).toBe(false);
    expect(never).not.toHaveBeenCalled();
    expect(clock.now()).toBe(100);
  });

  it('takes a negative or NaN delay as due at once, as the real clock does, without stopping the others', async () => {
    const clock = createManualClock(100);
    const fired: string[] = [];
    clock.schedule(Number.NaN, () => fired.push('nan'));
    clock.schedule(-5, () => fired.push('negative'));
    clock.schedule(10, () => fired.push('later'));
    await clock.advance(10);
    expect(fired).toEqual(['nan', 'negative', 'later']);
    expect(clock.now()).toBe(110);
    expect(clock.pending()).toBe(0);
  });

  it('sleep resolves after advance and leaves nothing pending', async () => {
    const clock = createManualClock();
    let done = false;
    const sleeping = clock.sleep(1_000).then(() => {
      done = true;
    });
    await clock.advance(999);
    expect(done).toBe(false);
    await clock.advance(1);
    await sleeping;
    expect(done).toBe(true);
    expect(clock.pending()).toBe(0);
  });

  it('an abort ends a sleep at once with its reason and cancels the timer', async () => {
    const clock = createManualClock();
    const controller = new AbortController();
    const reason = new Error('user left');
    const sleeping = clock.sleep(60_000, controller.signal);
    expect(clock.pending()).toBe(1);
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
    expect(clock.pending()).toBe(0);
  });

  it('a sleep on an already aborted signal schedules nothing', async () => {
    const clock = createManualClock();
    const reason = new Error('already');
    await expect(clock.sleep(10, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(clock.pending()).toBe(0);
  });

  it('timers scheduled by a firing timer run within the same advance', async () => {
    const clock = createManualClock();
    const at: number[] = [];
    const chain = async () => {
      await clock.sleep(10);
      at.push(clock.now());
      await clock.sleep(10);
      at.push(clock.now());
    };
    const running = chain();
    await clock.advance(25);
    await running;
    expect(at).toEqual([10, 20]);
    expect(clock.now()).toBe(25);
  });

  it('next() fires the earliest timer and reports when none is left', async () => {
    const clock = createManualClock();
    const cancel = clock.schedule(5, () => {});
    clock.schedule(50, () => {});
    cancel();
    expect(await clock.next()).toBe(true);
    expect(clock.now()).toBe(50);
    expect(await clock.next()).toBe(false);
  });

  it('next() first lets work under way schedule its timer, as advance() does', async () => {
    const clock = createManualClock();
    let fired = false;
    // A timer scheduled a few promise hops later, as the engine's backoff sleep is after a 503.
    void Promise.resolve()
      .then(() => undefined)
      .then(() => clock.schedule(100, () => (fired = true)));
    expect(await clock.next()).toBe(true);
    expect(fired).toBe(true);
    expect(clock.now()).toBe(100);
  });

  it('two advances not awaited in turn never move time back', async () => {
    const clock = createManualClock();
    const fired: number[] = [];
    // The second ends last: it must not set time back to its own end.
    await Promise.all([clock.advance(100), clock.advance(10)]);
    expect(clock.now()).toBe(100);
    clock.schedule(50, () => fired.push(clock.now()));
    await clock.advance(50);
    expect(fired).toEqual([150]);
  });
});

describe('untilPending', () => {
  it('resolves when the awaited number of timers is scheduled, at once if already', async () => {
    const clock = createManualClock();
    let reached = false;
    const waiting = clock.untilPending(2).then(() => {
      reached = true;
    });
    clock.schedule(10, () => {});
    await Promise.resolve();
    expect(reached).toBe(false);
    clock.schedule(20, () => {});
    await waiting;
    expect(reached).toBe(true);
    await clock.untilPending(1);
  });
});

describe('stepWall', () => {
  it('moves wallNow() alone: now() and the timers stay put', async () => {
    const clock = createManualClock(1_000);
    const fired: number[] = [];
    clock.schedule(100, () => fired.push(clock.now()));
    expect(clock.wallNow()).toBe(1_000);
    clock.stepWall(-3_600_000);
    expect(clock.now()).toBe(1_000);
    expect(clock.wallNow()).toBe(1_000 - 3_600_000);
    await clock.advance(100);
    expect(fired).toEqual([1_100]);
    expect(clock.wallNow()).toBe(1_100 - 3_600_000);
  });
});
