import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isStitchError } from '../../src/engine/errors';
import { normalizeTimeout, startDeadline } from '../../src/engine/timeout';
import { createManualClock } from '../helpers/clock';
import { thrownBy } from '../helpers/throws';

describe('startDeadline', () => {
  it('expires after ms with a TimeoutError DOMException reason and sets expired', async () => {
    const clock = createManualClock(500);
    const parent = new AbortController();
    const deadline = startDeadline(clock, 'each', 100, parent.signal);
    expect(deadline.phase).toBe('each');
    await clock.advance(99);
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.expired).toBe(false);
    await clock.advance(1);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired).toBe(true);
    const reason = deadline.signal.reason as DOMException;
    expect(reason).toBeInstanceOf(DOMException);
    expect(reason.name).toBe('TimeoutError');
    expect(reason.message).toContain('each');
    expect(parent.signal.aborted).toBe(false);
    expect(deadline.remaining()).toBe(0);
    deadline.dispose();
    expect(clock.pending()).toBe(0);
  });

  it("aborts with the parent's reason, identity kept, and does not count as expired", () => {
    const clock = createManualClock();
    const parent = new AbortController();
    const deadline = startDeadline(clock, 'total', 1_000, parent.signal);
    const reason = new Error('user navigated away');
    parent.abort(reason);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBe(reason);
    expect(deadline.expired).toBe(false);
    deadline.dispose();
    expect(clock.pending()).toBe(0);
  });

  it('starts aborted with the reason of an already-aborted parent, scheduling nothing', () => {
    const clock = createManualClock();
    const reason = new Error('too late');
    const deadline = startDeadline(clock, 'total', 1_000, AbortSignal.abort(reason));
    expect(deadline.signal.reason).toBe(reason);
    expect(deadline.expired).toBe(false);
    expect(clock.pending()).toBe(0);
  });

  it('dispose() cancels the timer and removes the parent listener, so nothing fires later', async () => {
    const clock = createManualClock();
    const parent = new AbortController();
    const deadline = startDeadline(clock, 'each', 100, parent.signal);
    expect(clock.pending()).toBe(1);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    deadline.dispose();
    expect(clock.pending()).toBe(0);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    await clock.advance(1_000);
    parent.abort(new Error('after dispose'));
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.expired).toBe(false);
    deadline.dispose();
  });

  it('drops its timer as soon as the parent aborts, so it can never fire as expired later', async () => {
    const clock = createManualClock();
    const parent = new AbortController();
    const deadline = startDeadline(clock, 'each', 100, parent.signal);
    parent.abort(new Error('caller left'));
    expect(clock.pending()).toBe(0);
    await clock.advance(200);
    expect(deadline.expired).toBe(false);
  });

  it('remaining() counts down on the clock', async () => {
    const clock = createManualClock(10_000);
    const deadline = startDeadline(clock, 'total', 300, new AbortController().signal);
    expect(deadline.remaining()).toBe(300);
    await clock.advance(120);
    expect(deadline.remaining()).toBe(180);
    deadline.dispose();
  });

  it('an unbounded deadline schedules nothing, never expires, and has Infinity remaining', async () => {
    const clock = createManualClock();
    const parent = new AbortController();
    const deadline = startDeadline(clock, 'total', undefined, parent.signal);
    expect(clock.pending()).toBe(0);
    expect(deadline.remaining()).toBe(Number.POSITIVE_INFINITY);
    await clock.advance(1_000_000);
    expect(deadline.signal.aborted).toBe(false);
    // It still follows its parent.
    parent.abort('stop');
    expect(deadline.signal.reason).toBe('stop');
    deadline.dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });

  it('an unbounded deadline is its parent signal: no controller, no listener', () => {
    const parent = new AbortController();
    const deadline = startDeadline(createManualClock(), 'total', undefined, parent.signal);
    expect(deadline.signal).toBe(parent.signal);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });
});

describe('normalizeTimeout', () => {
  it('refuses a value that is neither a number nor { each, total }', () => {
    for (const bad of ['5000', true, null]) {
      expect(() => normalizeTimeout(bad as never, 's')).toThrow(
        expect.objectContaining({ kind: 'config', field: 'timeout' }),
      );
    }
  });

  it('reads a number as total and fills in undefined for unbounded', () => {
    expect(normalizeTimeout(5_000, 's')).toEqual({ each: undefined, total: 5_000 });
    expect(normalizeTimeout({ each: 1_000, total: 4_000 }, 's')).toEqual({ each: 1_000, total: 4_000 });
    expect(normalizeTimeout({ each: 1_000 }, 's')).toEqual({ each: 1_000, total: undefined });
    expect(normalizeTimeout(undefined, 's')).toEqual({ each: undefined, total: undefined });
  });

  it('takes Infinity as no bound, and any finite length as it is', () => {
    expect(normalizeTimeout(Number.POSITIVE_INFINITY, 's')).toEqual({ each: undefined, total: undefined });
    const month = 30 * 24 * 3_600_000;
    expect(normalizeTimeout({ each: Number.POSITIVE_INFINITY, total: month }, 's')).toEqual({
      each: undefined,
      total: month,
    });
  });

  it.each<[unknown, string]>([
    [0, 'timeout'],
    [-5, 'timeout'],
    [Number.NaN, 'timeout'],
    ['30000', 'timeout'],
    [{ each: 0 }, 'timeout.each'],
    [{ each: -1, total: 10 }, 'timeout.each'],
    [{ total: Number.NaN }, 'timeout.total'],
    [{ each: 10, total: '1s' }, 'timeout.total'],
  ])('refuses %s, naming %s', (value, field) => {
    const error = thrownBy(() => normalizeTimeout(value as number, 'getUser'));
    expect(isStitchError(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'config', field, stitch: 'getUser' });
  });
});
