/**
 * An execution's lifetime: one controller for its work and its deadlines. The total deadline ends
 * it; an attempt's deadline ends that attempt's work only, and the execution goes on with a fresh
 * controller; ending it (its last caller left) stops both deadlines.
 */
import { describe, expect, it } from 'vitest';
import { Lifetime } from '../../src/engine/lifetime';
import { stitch } from '../../src/index';
import { createManualClock } from '../helpers/clock';
import { uniqueKey } from '../helpers/keys';
import { eventTypes, startScenario } from '../helpers/runs';

/** `signal` aborted with the `TimeoutError` of the `phase` deadline. */
function expectTimeout(signal: AbortSignal, phase: 'each' | 'total') {
  expect(signal.reason).toBeInstanceOf(DOMException);
  expect(signal.reason).toMatchObject({ name: 'TimeoutError', message: expect.stringContaining(phase) });
}

describe('Lifetime', () => {
  it('the total deadline aborts its signal with a TimeoutError and sets expired', async () => {
    const clock = createManualClock(500);
    const lifetime = new Lifetime(clock, 100);
    expect(lifetime.phase).toBe('total');
    expect(lifetime.remaining()).toBe(100);
    await clock.advance(99);
    expect(lifetime.signal.aborted).toBe(false);
    await clock.advance(1);
    expect(lifetime.expired).toBe(true);
    expect(lifetime.ended).toBeUndefined();
    expectTimeout(lifetime.signal, 'total');
    expect(lifetime.remaining()).toBe(0);
    lifetime.dispose();
    expect(clock.pending()).toBe(0);
  });

  it('end(reason) aborts with that reason, identity kept, and drops the timers: nothing expires later', async () => {
    const clock = createManualClock();
    const lifetime = new Lifetime(clock, 1_000);
    const attempt = lifetime.attempt(100);
    expect(clock.pending()).toBe(2);
    const reason = new Error('user navigated away');
    lifetime.end(reason);
    lifetime.end(new Error('a second end changes nothing'));
    expect(lifetime.ended).toEqual({ reason });
    expect(lifetime.signal.reason).toBe(reason);
    expect(attempt.signal.reason).toBe(reason);
    expect(clock.pending()).toBe(0);
    await clock.advance(2_000);
    expect(lifetime.expired).toBe(false);
    expect(attempt.expired).toBe(false);
  });

  it("an attempt's deadline shares the execution's signal: no controller of its own", () => {
    const lifetime = new Lifetime(createManualClock(), 1_000);
    const attempt = lifetime.attempt(100);
    expect(attempt.signal).toBe(lifetime.signal);
    attempt.dispose();
    lifetime.dispose();
  });

  it("an attempt's deadline aborts that attempt's work, and the execution goes on on a fresh signal", async () => {
    const clock = createManualClock();
    const lifetime = new Lifetime(clock, 1_000);
    const first = lifetime.attempt(100);
    await clock.advance(100);
    expect(first.expired).toBe(true);
    expect(first.signal.aborted).toBe(true);
    expectTimeout(first.signal, 'each');
    // The execution itself is neither ended nor expired: its next wait or attempt runs on.
    expect(lifetime.signal).not.toBe(first.signal);
    expect(lifetime.signal.aborted).toBe(false);
    expect(lifetime.expired).toBe(false);
    expect(lifetime.ended).toBeUndefined();
    first.dispose();
    const second = lifetime.attempt(100);
    expect(second.signal).toBe(lifetime.signal);
    second.dispose();
    // What is left is the total deadline's timer, which the lifetime's disposal drops.
    expect(clock.pending()).toBe(1);
    lifetime.dispose();
    expect(clock.pending()).toBe(0);
  });

  it("the total deadline drops a running attempt's timer: the attempt ends as the total's", async () => {
    const clock = createManualClock();
    const lifetime = new Lifetime(clock, 250);
    await clock.advance(200);
    const attempt = lifetime.attempt(100);
    expect(clock.pending()).toBe(2);
    await clock.advance(50);
    expect(lifetime.expired).toBe(true);
    expect(attempt.expired).toBe(false);
    expectTimeout(attempt.signal, 'total');
    expect(clock.pending()).toBe(0);
  });

  it('an unbounded lifetime schedules nothing, never expires, and has Infinity remaining', async () => {
    const clock = createManualClock();
    const lifetime = new Lifetime(clock, undefined);
    const attempt = lifetime.attempt(undefined);
    expect(clock.pending()).toBe(0);
    expect(lifetime.remaining()).toBe(Number.POSITIVE_INFINITY);
    await clock.advance(1_000_000);
    expect(lifetime.signal.aborted).toBe(false);
    lifetime.end('stop');
    expect(attempt.signal.reason).toBe('stop');
  });
});

describe('an attempt cut off by its own deadline, then retried (against the vendor)', () => {
  it('hangs up the first request, sends the second on a live signal, and leaves no timer', async () => {
    const { vendor, engine, clock } = await startScenario();
    vendor.script('hold', 'hold');
    const search = stitch({
      name: uniqueKey('search'),
      url: vendor.url('/search'),
      timeout: { each: 1_000, total: 10_000 },
      retry: { attempts: 2, backoff: { base: 50, jitter: 'none' }, budget: false },
    });
    const run = search({ query: { q: 'ada' } }, { engine });
    await vendor.arrival(1);
    await clock.untilPending(2);
    await clock.advance(1_000);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });
    await clock.untilPending(2);
    await clock.advance(50);
    await vendor.arrival(2);
    vendor.release(2, { status: 200, body: { total: 1 } });
    await expect(run).resolves.toEqual({ total: 1 });
    const report = await run.report();
    expect(report).toMatchObject({ ok: true, attempts: 2, requests: 2 });
    expect(eventTypes(report.events)).toEqual([
      'start',
      'request',
      'timeout',
      'retry',
      'request',
      'response',
      'success',
      'done',
    ]);
    expect(report.events.find((event) => event.type === 'timeout')).toMatchObject({ phase: 'each' });
    expect(clock.pending()).toBe(0);
  });
});
