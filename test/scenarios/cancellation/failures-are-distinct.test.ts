/**
 * SPEC §5, fourth finding: in StitchAPI every failure was the same class with no `cause`;
 * `timeout.total` and `timeout.each` were byte-identical; a report had no cancellation flag; the
 * streams of a cancel and of a 503 differed only by a status field. Law 5: a cancellation has a
 * name everywhere (error, report, stream), is distinct from each timeout and from an outage, and
 * says whether a request had already left the process.
 */
import { describe, expect, it } from 'vitest';
import {
  isAbortError,
  type RunReport,
  type StandardSchemaV1,
  type StitchError,
  type StitchRun,
  stitch,
  type TimeoutOptions,
} from '../../../src/index';
import { uniqueKey } from '../../helpers/keys';
import { collect, rejection, startScenario, eventTypes as types, until } from '../../helpers/runs';

describe('timeouts: each and total are distinct, and neither is a cancel', () => {
  /**
   * Both deadlines are set on both stitches, one short and one long, so the engine has to tell
   * which one fired rather than report the only one there is.
   */
  async function timeOut(phase: 'each' | 'total') {
    const { vendor, engine, clock } = await startScenario();
    vendor.script('hold');
    const timeout: TimeoutOptions =
      phase === 'each' ? { each: 1_000, total: 60_000 } : { each: 60_000, total: 1_000 };
    const search = stitch({ name: uniqueKey('search'), url: vendor.url('/search'), retry: false, timeout });
    const run = search({ query: { q: phase } }, { engine });
    const events = collect(run);
    await vendor.arrival(1);
    await clock.untilPending(2);
    await clock.advance(1_000);
    const error = await rejection(run);
    // The deadline aborted the fetch itself: the vendor saw the socket close.
    const entry = await vendor.hangUp(1);
    expect(clock.pending()).toBe(0);
    return { vendor, error, entry, events: await events, report: await run.report() };
  }

  it.each(['each', 'total'] as const)(
    'timeout.%s: kind timeout, its own phase, socket closed',
    async (phase) => {
      const { vendor, error, entry, events, report } = await timeOut(phase);
      expect(error).toMatchObject({
        kind: 'timeout',
        name: 'TimeoutError',
        phase,
        dispatched: true,
        ambiguous: true,
      });
      expect(isAbortError(error)).toBe(false);
      expect(error.cause).toMatchObject({ name: 'TimeoutError' });
      expect(entry).toMatchObject({ hungUp: true, answered: false });
      expect(vendor.requests()).toBe(1);

      expect(report).toMatchObject({
        ok: false,
        outcome: 'error',
        cancelled: false,
        dispatched: true,
        error: { kind: 'timeout', name: 'TimeoutError', phase },
      });
      expect(events.find((event) => event.type === 'timeout')).toMatchObject({ phase, dispatched: true });
      expect(types(events)).toContain('error');
      expect(types(events)).not.toContain('cancel');
      expect(events.at(-1)).toMatchObject({ type: 'done', outcome: 'error' });
    },
  );

  it.each(['each', 'total'] as const)(
    'timeout.%s bounds an output validator that never settles: a timeout the breaker does not count',
    async (phase) => {
      const { vendor, engine, clock } = await startScenario({
        respond: () => ({ status: 200, body: { id: 7 } }),
      });
      let validating = () => {};
      const checking = new Promise<void>((resolve) => {
        validating = resolve;
      });
      const never: StandardSchemaV1<unknown, { id: number }> = {
        '~standard': {
          version: 1,
          vendor: 'test',
          validate: () => {
            validating();
            return new Promise(() => {});
          },
        },
      };
      const timeout: TimeoutOptions =
        phase === 'each' ? { each: 1_000, total: 60_000 } : { each: 60_000, total: 1_000 };
      const circuit = { key: uniqueKey('validated'), failures: 1 };
      const read = stitch({
        name: uniqueKey('validated'),
        url: vendor.url('/v'),
        retry: false,
        timeout,
        circuit,
        output: never,
      });
      const run = read(undefined, { engine });
      await checking;
      await clock.advance(1_000);
      // Answered in full: sent, yet nothing is in doubt.
      expect(await rejection(run)).toMatchObject({ kind: 'timeout', phase, requests: 1, ambiguous: false });
      expect(vendor.ledger.map((entry) => [entry.answered, entry.hungUp])).toEqual([[true, false]]);
      expect(clock.pending()).toBe(0);
      // The vendor answered in full: its breaker (one failure opens it) counted nothing.
      const plain = stitch({ name: uniqueKey('plain'), url: vendor.url('/p'), circuit });
      await expect(plain(undefined, { engine })).resolves.toEqual({ id: 7 });
    },
  );

  it('each, total and a caller cancel all differ in what they say', async () => {
    const each = await timeOut('each');
    await each.vendor.close();
    const total = await timeOut('total');
    await total.vendor.close();

    const { vendor, engine } = await startScenario();
    vendor.script('hold');
    const search = stitch({ name: uniqueKey('search'), url: vendor.url('/search'), retry: false });
    const controller = new AbortController();
    const run = search({ query: { q: 'cancel' } }, { engine, signal: controller.signal });
    await vendor.arrival(1);
    const reason = new Error('user navigated away');
    controller.abort(reason);
    const cancel = { error: await rejection(run), report: await run.report() };
    await vendor.hangUp(1);

    // [kind, name, timeout phase, cause, report outcome, report cancelled]
    const says = ({ error, report }: { error: StitchError; report: RunReport }) => [
      error.kind,
      error.name,
      error.phase,
      error.cause === reason ? 'the reason' : (error.cause as Error).name,
      report.outcome,
      report.cancelled,
    ];
    expect(says(each)).toEqual(['timeout', 'TimeoutError', 'each', 'TimeoutError', 'error', false]);
    expect(says(total)).toEqual(['timeout', 'TimeoutError', 'total', 'TimeoutError', 'error', false]);
    expect(says(cancel)).toEqual(['aborted', 'AbortError', undefined, 'the reason', 'cancelled', true]);
  });
});

describe('a cancel and a 503', () => {
  /** One run cancelled in flight and one answered 503, on the same stitch and engine. */
  async function cancelAndOutage() {
    const { vendor, engine } = await startScenario();
    vendor.script('hold', { status: 503, body: { error: 'busy' } });
    const search = stitch({ name: uniqueKey('search'), url: vendor.url('/search'), retry: false });

    const controller = new AbortController();
    const cancelled = search({ query: { q: 'cancel' } }, { engine, signal: controller.signal });
    const cancelEvents = collect(cancelled);
    await vendor.arrival(1);
    controller.abort(new Error('user navigated away'));
    const cancelError = await rejection(cancelled);
    await vendor.hangUp(1);

    const failed = search({ query: { q: 'outage' } }, { engine });
    const failEvents = collect(failed);
    const failError = await rejection(failed);
    return {
      cancel: { run: cancelled, error: cancelError, events: await cancelEvents },
      outage: { run: failed, error: failError, events: await failEvents },
    };
  }

  it('their errors and reports differ by kind, outcome and a cancelled flag', async () => {
    const { cancel, outage } = await cancelAndOutage();
    expect(cancel.error).toMatchObject({ kind: 'aborted', name: 'AbortError', status: undefined });
    expect(outage.error).toMatchObject({ kind: 'http', name: 'StitchError', status: 503 });
    expect(isAbortError(cancel.error)).toBe(true);
    expect(isAbortError(outage.error)).toBe(false);

    expect(await cancel.run.report()).toMatchObject({
      ok: false,
      outcome: 'cancelled',
      cancelled: true,
      error: { kind: 'aborted', name: 'AbortError' },
    });
    expect(await outage.run.report()).toMatchObject({
      ok: false,
      outcome: 'error',
      cancelled: false,
      status: 503,
      error: { kind: 'http', name: 'StitchError', status: 503 },
    });
  });

  it('their streams differ by event type: cancel versus error, and both end in done with an outcome', async () => {
    const { cancel, outage } = await cancelAndOutage();
    expect(types(cancel.events)).toContain('cancel');
    expect(types(cancel.events)).not.toContain('error');
    expect(types(outage.events)).toContain('error');
    expect(types(outage.events)).not.toContain('cancel');
    expect(cancel.events.find((event) => event.type === 'cancel')).toMatchObject({
      phase: 'in-flight',
      dispatched: true,
      reason: 'user navigated away',
    });
    expect(outage.events.find((event) => event.type === 'error')).toMatchObject({
      error: { kind: 'http', status: 503 },
    });
    expect(cancel.events.at(-1)).toMatchObject({ type: 'done', outcome: 'cancelled' });
    expect(outage.events.at(-1)).toMatchObject({ type: 'done', outcome: 'error' });
  });
});

describe('a cancel says whether a request had left (dispatched)', () => {
  it('before dispatch, while queued and in flight', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script('hold');
    const search = stitch({
      name: uniqueKey('search'),
      url: vendor.url('/search'),
      retry: false,
      throttle: { concurrency: 1 },
    });

    // Before dispatch: the signal was already aborted.
    const early = search(
      { query: { q: 'early' } },
      { engine, signal: AbortSignal.abort(new Error('early')) },
    );

    // In flight: the vendor holds it (and so it holds the only throttle slot).
    const flying = new AbortController();
    const inFlight = search({ query: { q: 'in-flight' } }, { engine, signal: flying.signal });
    await vendor.arrival(1);

    // Queued: behind the in-flight one.
    const waiting = new AbortController();
    const queued = search({ query: { q: 'queued' } }, { engine, signal: waiting.signal });
    await until(queued, 'queued');
    waiting.abort(new Error('queued'));
    flying.abort(new Error('in-flight'));

    // [cancel event phase, error.dispatched, report.dispatched, cancel event dispatched, requests, error.ambiguous]
    const says = async (run: StitchRun<unknown>) => {
      const error = await rejection(run);
      const report = await run.report();
      expect(report).toMatchObject({ outcome: 'cancelled', cancelled: true });
      const cancel = report.events.find((event) => event.type === 'cancel');
      if (cancel?.type !== 'cancel') throw new Error('no cancel event');
      return [
        cancel.phase,
        error.dispatched,
        report.dispatched,
        cancel.dispatched,
        report.requests,
        error.ambiguous,
      ];
    };
    expect(await says(early)).toEqual(['before-dispatch', false, false, false, 0, false]);
    expect(await says(queued)).toEqual(['queued', false, false, false, 0, false]);
    expect(await says(inFlight)).toEqual(['in-flight', true, true, true, 1, true]);
    await vendor.hangUp(1);
    expect(vendor.requests()).toBe(1);
  });
});
