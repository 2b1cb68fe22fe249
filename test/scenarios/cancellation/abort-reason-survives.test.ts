/**
 * SPEC §5, second finding: in StitchAPI `retry` turned `abort(new Error('user navigated away'))`
 * into a generic `Error('aborted')`, fired `onError`/`onRetry` and a `retry` progress event.
 * Law 2: the reason survives, by identity, wherever the abort lands and with or without retry;
 * law 1: an abort fires only `onCancel` and emits `cancel`, never `error` or `retry`.
 */
import { describe, expect, it } from 'vitest';
import { isAbortError, type RetryOptions, StitchError, type StitchEvent, stitch } from '../../../src/index';
import { uniqueKey } from '../../helpers/keys';
import { collect, eventTypes, rejection, spyHooks, startScenario, until } from '../../helpers/runs';
import type { Reply } from '../../helpers/vendor';

async function setup() {
  return { ...(await startScenario()), hooks: spyHooks() };
}

/** Law 2, in full: the caller's reason itself, under a name and kind nobody has to parse. */
function expectCancelledBy(error: StitchError, reason: unknown, message: string) {
  expect(error).toBeInstanceOf(StitchError);
  expect(error.cause).toBe(reason);
  expect(error.name).toBe('AbortError');
  expect(error.kind).toBe('aborted');
  expect(error.message).toBe(message);
  expect(isAbortError(error)).toBe(true);
}

/** Law 1, on the hooks: a cancel is neither a failure nor a reason to try again. */
function expectNoErrorOrRetry(hooks: ReturnType<typeof spyHooks>) {
  expect(hooks.onError).not.toHaveBeenCalled();
  expect(hooks.onRetry).not.toHaveBeenCalled();
}

/** A cancelled run's own stream: a 'cancel' in `phase`, no 'error', no 'retry', 'done' as cancelled. */
function expectCancelStream(events: StitchEvent[], phase: string) {
  const types = eventTypes(events);
  expect(types).not.toContain('error');
  expect(types).not.toContain('retry');
  expect(events.filter((event) => event.type === 'cancel')).toEqual([
    expect.objectContaining({ type: 'cancel', phase }),
  ]);
  expect(events.at(-1)).toMatchObject({ type: 'done', outcome: 'cancelled' });
}

const retryModes: Array<[string, false | RetryOptions]> = [
  ['without retry', false],
  ['with retry: { attempts: 3 }', { attempts: 3 }],
];

describe.each(retryModes)('%s', (_, retry) => {
  /**
   * One cancellable search on this mode's `retry`, its first request answered with `reply`; its
   * stream is collected from the start, so the test sees every event whatever it awaits first.
   */
  async function startSearch(reply: Reply = 'hold') {
    const { vendor, engine, clock, hooks } = await setup();
    vendor.script(reply);
    const search = stitch({ name: uniqueKey('search'), url: vendor.url('/search'), retry, hooks });
    const controller = new AbortController();
    const run = search({ query: { q: 'ada' } }, { engine, signal: controller.signal });
    return { vendor, clock, hooks, controller, run, events: collect(run) };
  }

  it('an abort in flight rejects with the very reason, fires only onCancel and hangs up', async () => {
    const { vendor, clock, hooks, controller, run, events } = await startSearch();
    await vendor.arrival(1);

    const reason = new Error('user navigated away');
    controller.abort(reason);
    const error = await rejection(run);
    expectCancelledBy(error, reason, 'user navigated away');
    expect(error).toMatchObject({ dispatched: true, requests: 1, ambiguous: true });

    // The socket closed; by the time the vendor sees it, a wrongly retried abort would have
    // called onRetry and scheduled its backoff sleep on the manual clock.
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });
    expect(vendor.requests()).toBe(1);
    expectNoErrorOrRetry(hooks);
    expect(hooks.onCancel).toHaveBeenCalledOnce();
    expect(hooks.onCancel).toHaveBeenCalledWith(
      expect.objectContaining({ reason, phase: 'in-flight', dispatched: true }),
    );
    expect(clock.pending()).toBe(0);

    const stream = await events;
    expectCancelStream(stream, 'in-flight');
    expect(stream.find((event) => event.type === 'cancel')).toMatchObject({
      dispatched: true,
      reason: 'user navigated away',
    });
    expect(await run.report()).toMatchObject({
      outcome: 'cancelled',
      cancelled: true,
      requests: 1,
      error: { kind: 'aborted', name: 'AbortError', message: 'user navigated away' },
    });
  });

  it('an abort while queued in the throttle rejects at once with the very reason', async () => {
    const { vendor, engine, clock, hooks } = await setup();
    vendor.script('hold');
    const search = stitch({
      name: uniqueKey('search'),
      url: vendor.url('/search'),
      retry,
      hooks,
      throttle: { concurrency: 1 },
    });
    const holder = search({ query: { q: 'holder' } }, { engine });
    await vendor.arrival(1);

    const controller = new AbortController();
    const run = search({ query: { q: 'queued' } }, { engine, signal: controller.signal });
    const events = collect(run);
    await until(run, 'queued');
    const reason = new Error('user navigated away');
    controller.abort(reason);
    const error = await rejection(run);
    expectCancelledBy(error, reason, 'user navigated away');
    expect(error).toMatchObject({ dispatched: false, requests: 0, ambiguous: false });
    expectCancelStream(await events, 'queued');
    expect(hooks.onCancel).toHaveBeenCalledOnce();
    expect(hooks.onCancel).toHaveBeenCalledWith(
      expect.objectContaining({ reason, phase: 'queued', dispatched: false }),
    );

    // The slot it waited for goes to nobody else's loss: the holder finishes, nothing more is sent.
    vendor.release(1);
    await expect(holder).resolves.toEqual({});
    expect(vendor.requests()).toBe(1);
    expectNoErrorOrRetry(hooks);
    expect(clock.pending()).toBe(0);
  });

  it('an abort while the body is being read rejects with the very reason and hangs up', async () => {
    const { vendor, clock, hooks, controller, run, events } = await startSearch({
      fault: 'slow-body',
      headers: { 'content-type': 'application/json' },
      chunks: ['{"a":', '1}'],
    });
    await until(run, 'response');
    vendor.drip(1);

    const reason = new Error('user navigated away');
    controller.abort(reason);
    expectCancelledBy(await rejection(run), reason, 'user navigated away');
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });
    expect(vendor.requests()).toBe(1);
    expectCancelStream(await events, 'body');
    expectNoErrorOrRetry(hooks);
    expect(hooks.onCancel).toHaveBeenCalledOnce();
    expect(clock.pending()).toBe(0);
  });

  it('a string reason is the cause as given', async () => {
    const { vendor, hooks, controller, run, events } = await startSearch();
    await vendor.arrival(1);

    controller.abort('superseded by a newer keystroke');
    expectCancelledBy(
      await rejection(run),
      'superseded by a newer keystroke',
      'superseded by a newer keystroke',
    );
    await vendor.hangUp(1);
    expect(vendor.requests()).toBe(1);
    expectCancelStream(await events, 'in-flight');
    expectNoErrorOrRetry(hooks);
  });

  it('abort() with no reason: the cause is the platform AbortError the signal carries', async () => {
    const { vendor, hooks, controller, run, events } = await startSearch();
    await vendor.arrival(1);

    controller.abort();
    const reason = controller.signal.reason as DOMException;
    expect(reason).toBeInstanceOf(DOMException);
    expect(reason.name).toBe('AbortError');
    const error = await rejection(run);
    expectCancelledBy(error, reason, reason.message);
    expect(isAbortError(error.cause)).toBe(true);
    await vendor.hangUp(1);
    expect(vendor.requests()).toBe(1);
    expectCancelStream(await events, 'in-flight');
    expectNoErrorOrRetry(hooks);
  });
});

describe('an abort during a backoff sleep', () => {
  it('ends the sleep at once, with the very reason, and leaves no timer behind', async () => {
    const { vendor, engine, clock, hooks } = await setup();
    vendor.script({ status: 503, body: { error: 'busy' } });
    const search = stitch({
      name: uniqueKey('search'),
      url: vendor.url('/search'),
      retry: { attempts: 3, backoff: { base: 1_000, jitter: 'none' } },
      hooks,
    });
    const controller = new AbortController();
    const run = search({ query: { q: 'ada' } }, { engine, signal: controller.signal });
    const events = collect(run);

    // The 503 is retried (that is the vendor's failure, not the caller's): the run sleeps.
    expect(await until(run, 'retry')).toMatchObject({ attempt: 1, delay: 1_000, error: { status: 503 } });
    await clock.untilPending();
    expect(clock.pending()).toBe(1);

    const reason = new Error('user navigated away');
    controller.abort(reason);
    // Settles without the clock moving: the sleep did not have to run out.
    const error = await rejection(run);
    expectCancelledBy(error, reason, 'user navigated away');
    expect(error).toMatchObject({ dispatched: true, requests: 1, ambiguous: false });
    expect(clock.pending()).toBe(0);

    const stream = await events;
    const types = eventTypes(stream);
    expect(types).not.toContain('error');
    // One retry, the 503's, emitted before the abort; the abort itself adds none.
    expect(types.filter((type) => type === 'retry')).toHaveLength(1);
    expect(types.indexOf('retry')).toBeLessThan(types.indexOf('cancel'));
    expect(stream.find((event) => event.type === 'cancel')).toMatchObject({
      phase: 'backoff',
      dispatched: true,
      reason: 'user navigated away',
    });
    expect(stream.at(-1)).toMatchObject({ type: 'done', outcome: 'cancelled' });

    expect(hooks.onRetry).toHaveBeenCalledOnce();
    expect(hooks.onRetry).toHaveBeenCalledWith(expect.objectContaining({ attempt: 1, delay: 1_000 }));
    expect(hooks.onError).not.toHaveBeenCalled();
    expect(hooks.onCancel).toHaveBeenCalledOnce();
    expect(hooks.onCancel).toHaveBeenCalledWith(
      expect.objectContaining({ reason, phase: 'backoff', dispatched: true }),
    );
    // Only the 503 went out, and it was answered; nothing followed.
    expect(vendor.requests()).toBe(1);
    expect(await vendor.finished(1)).toMatchObject({ answered: true, hungUp: false });
    await clock.advance(10_000);
    expect(vendor.requests()).toBe(1);
  });
});
