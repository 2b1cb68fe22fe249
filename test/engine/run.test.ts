import { describe, expect, it } from 'vitest';
import { StitchError } from '../../src/engine/errors';
import type { StitchEvent } from '../../src/engine/events';
import { emitTo, finishRun, type RunTally, StitchRun } from '../../src/engine/run';
import { createManualClock } from '../helpers/clock';
import { collect, eventTypes } from '../helpers/runs';

const tally = (over: Partial<RunTally> = {}): RunTally => ({
  attempts: 1,
  requests: 1,
  status: 200,
  source: 'live',
  idempotencyKey: undefined,
  ...over,
});

/** A run on a manual clock starting at 1 000 ms, with a sink that records what it is given. */
function setup() {
  const clock = createManualClock(1_000);
  const traced: StitchEvent[] = [];
  const run = new StitchRun<{ id: number }>('run-1', 'getUser', clock, (event) => traced.push(event));
  return { clock, run, traced };
}

const httpError = () =>
  new StitchError({ kind: 'http', message: 'HTTP 503', status: 503, attempts: 3, requests: 3 });
const abortError = (cause: unknown) =>
  new StitchError({ kind: 'aborted', message: 'user navigated away', cause, attempts: 1, requests: 1 });

/** Lets the event loop turn a few times (macrotasks, not a wall-clock sleep). */
async function turns(count: number) {
  for (let i = 0; i < count; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Reads a run's stream one event at a time, so a test can act while the stream waits for a live
 * event: `next()` resolves with whether it read one, `rest()` reads to the end.
 */
function reader(run: StitchRun<unknown>) {
  const stream = run.stream()[Symbol.asyncIterator]();
  const events: StitchEvent[] = [];
  const next = async () => {
    const result = await stream.next();
    if (!result.done) events.push(result.value);
    return !result.done;
  };
  const rest = async () => {
    while (await next()) {}
    return events;
  };
  return { next, rest };
}

describe('StitchRun: settling', () => {
  it('resolves with the data', async () => {
    const { run } = setup();
    const data = { id: 7 };
    finishRun(run, { ok: true, data }, tally());
    expect(await run).toBe(data);
  });

  it('rejects with the very error it was given', async () => {
    const { run } = setup();
    const error = httpError();
    finishRun(run, { ok: false, error }, tally({ status: 503 }));
    await expect(run).rejects.toBe(error);
    const caught = await run.then(
      () => 'resolved',
      (reason: unknown) => reason,
    );
    expect(caught).toBe(error);
  });

  it('safe() gives { ok, data, error } for both outcomes', async () => {
    const good = setup().run;
    finishRun(good, { ok: true, data: { id: 1 } }, tally());
    expect(await good.safe()).toEqual({ ok: true, data: { id: 1 }, error: null });

    const bad = setup().run;
    const error = httpError();
    finishRun(bad, { ok: false, error }, tally());
    const result = await bad.safe();
    expect(result).toEqual({ ok: false, data: null, error });
    expect(result.error).toBe(error);
  });

  it('ignores a second finish()', async () => {
    const { run } = setup();
    finishRun(run, { ok: true, data: { id: 1 } }, tally({ attempts: 1 }));
    finishRun(run, { ok: false, error: httpError() }, tally({ attempts: 9 }));
    expect(await run).toEqual({ id: 1 });
    const report = await run.report();
    expect(report.outcome).toBe('success');
    expect(report.attempts).toBe(1);
    expect(report.events.filter((e) => e.type === 'done')).toHaveLength(1);
    expect(report.events.some((e) => e.type === 'error')).toBe(false);
  });

  it('a failed run nobody awaits causes no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const failed = setup().run;
      finishRun(failed, { ok: false, error: httpError() }, tally());
      const cancelled = setup().run;
      finishRun(cancelled, { ok: false, error: abortError(new Error('gone')) }, tally());
      // Asking for a report or a safe result (and dropping it) must not create a rejection either.
      void failed.report();
      void cancelled.safe();
      await turns(5);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('StitchRun: events and report', () => {
  it('stamps events with clock time, run id and stitch name, and sends them to the sink', async () => {
    const { clock, run, traced } = setup();
    emitTo(run, { type: 'start', method: 'GET', url: 'https://api.example.com/users/7' });
    await clock.advance(40);
    emitTo(run, { type: 'response', attempt: 1, status: 200, elapsed: 40 });
    expect(traced).toEqual([
      {
        type: 'start',
        method: 'GET',
        url: 'https://api.example.com/users/7',
        at: 1_000,
        run: 'run-1',
        stitch: 'getUser',
      },
      { type: 'response', attempt: 1, status: 200, elapsed: 40, at: 1_040, run: 'run-1', stitch: 'getUser' },
    ]);
    // The report logs what the sink saw, in the same order, closing events included.
    finishRun(run, { ok: true, data: { id: 1 } }, tally());
    expect(eventTypes(traced)).toEqual(['start', 'response', 'success', 'done']);
    expect((await run.report()).events).toEqual(traced);
  });

  it('emit(payload, false) logs the event but keeps it from the sink', async () => {
    const { run, traced } = setup();
    emitTo(run, { type: 'coalesce', leader: 'run-0' }, false);
    expect(traced).toEqual([]);
    finishRun(run, { ok: true, data: { id: 1 } }, tally());
    expect(eventTypes((await run.report()).events)).toEqual(['coalesce', 'success', 'done']);
  });

  it('reports a success with every field', async () => {
    const { clock, run } = setup();
    emitTo(run, { type: 'start', method: 'POST', url: 'https://api.example.com/charges' });
    await clock.advance(250);
    finishRun(
      run,
      { ok: true, data: { id: 1 } },
      tally({ attempts: 2, requests: 2, status: 201, idempotencyKey: 'k-1' }),
    );
    const report = await run.report();
    expect(report).toMatchObject({
      ok: true,
      outcome: 'success',
      cancelled: false,
      source: 'live',
      attempts: 2,
      requests: 2,
      dispatched: true,
      status: 201,
      elapsed: 250,
      idempotencyKey: 'k-1',
    });
    expect('error' in report).toBe(false);
    expect(eventTypes(report.events)).toEqual(['start', 'success', 'done']);
    expect(report.events.at(-1)).toMatchObject({ type: 'done', outcome: 'success', elapsed: 250 });
    // Each report has its own copy of the log.
    const again = await run.report();
    expect(again.events).toEqual(report.events);
    expect(again.events).not.toBe(report.events);
  });

  it('reports a failure with its error summary and an error event', async () => {
    const { clock, run } = setup();
    await clock.advance(10);
    const error = new StitchError({
      kind: 'timeout',
      phase: 'total',
      message: 'too slow',
      attempts: 1,
      requests: 1,
    });
    finishRun(run, { ok: false, error }, tally({ status: undefined, source: 'coalesced' }));
    const report = await run.report();
    expect(report).toMatchObject({
      ok: false,
      outcome: 'error',
      cancelled: false,
      source: 'coalesced',
      status: undefined,
      elapsed: 10,
      error: { kind: 'timeout', name: 'TimeoutError', message: 'too slow', phase: 'total' },
    });
    expect('idempotencyKey' in report).toBe(false);
    expect(eventTypes(report.events)).toEqual(['error', 'done']);
    expect(report.events[0]).toMatchObject({ type: 'error', error: { kind: 'timeout', phase: 'total' } });
  });

  it('reports a cancellation as cancelled, with no error event, and 0 requests as not dispatched', async () => {
    const { run } = setup();
    const reason = new Error('user navigated away');
    emitTo(run, {
      type: 'cancel',
      phase: 'queued',
      dispatched: false,
      shared: false,
      reason: reason.message,
      attempt: 0,
    });
    finishRun(
      run,
      { ok: false, error: abortError(reason) },
      tally({ attempts: 0, requests: 0, status: undefined }),
    );
    const report = await run.report();
    expect(report).toMatchObject({
      ok: false,
      outcome: 'cancelled',
      cancelled: true,
      attempts: 0,
      requests: 0,
      dispatched: false,
      error: { kind: 'aborted', name: 'AbortError', message: 'user navigated away' },
    });
    expect(eventTypes(report.events)).toEqual(['cancel', 'done']);
    expect(report.events.at(-1)).toMatchObject({ type: 'done', outcome: 'cancelled' });
  });

  it('reports an http failure with its status', async () => {
    const { run } = setup();
    finishRun(run, { ok: false, error: httpError() }, tally({ status: 503, attempts: 3, requests: 3 }));
    const report = await run.report();
    expect(report.status).toBe(503);
    expect(report.error).toEqual({ kind: 'http', name: 'StitchError', message: 'HTTP 503', status: 503 });
  });
});

describe('StitchRun: stream()', () => {
  it('replays past events, then live ones, and ends after done', async () => {
    const { run } = setup();
    emitTo(run, { type: 'start', method: 'GET', url: 'https://api.example.com/x' });
    const stream = reader(run);
    expect(await stream.next()).toBe(true); // 'start', replayed
    // Nothing more is logged yet: the stream waits for the next live event.
    const live = stream.next();
    emitTo(run, {
      type: 'request',
      attempt: 1,
      method: 'GET',
      url: 'https://api.example.com/x',
      headers: {},
    });
    expect(await live).toBe(true);
    const nextLive = stream.next();
    emitTo(run, { type: 'response', attempt: 1, status: 200, elapsed: 0 });
    expect(await nextLive).toBe(true);
    finishRun(run, { ok: true, data: { id: 1 } }, tally());
    // An event after done is logged, but the stream has already ended.
    emitTo(run, { type: 'coalesce', leader: 'late' });
    const types = eventTypes(await stream.rest());
    expect(types).toEqual(['start', 'request', 'response', 'success', 'done']);
  });

  it('serves two concurrent streams to completion', async () => {
    const { run } = setup();
    const first = reader(run);
    const firstStart = first.next(); // waits: nothing is logged yet
    emitTo(run, { type: 'start', method: 'GET', url: 'https://api.example.com/x' });
    const second = reader(run);
    // Both have read 'start' and now wait, concurrently, for the live events.
    expect(await Promise.all([firstStart, second.next()])).toEqual([true, true]);
    const waiting = [first.rest(), second.rest()] as const;
    finishRun(run, { ok: false, error: httpError() }, tally());
    const [a, b] = await Promise.all(waiting);
    expect(eventTypes(a)).toEqual(['start', 'error', 'done']);
    expect(b).toEqual(a);
  });

  it('replays everything and ends at once for a run that already finished', async () => {
    const { run } = setup();
    emitTo(run, { type: 'start', method: 'GET', url: 'https://api.example.com/x' });
    finishRun(run, { ok: true, data: { id: 1 } }, tally());
    expect(eventTypes(await collect(run))).toEqual(['start', 'success', 'done']);
  });
});
