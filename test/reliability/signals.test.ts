/**
 * Issue 12, items 8 and 10, against a real vendor on 127.0.0.1:
 * - `ambiguous` is true whenever a dispatched request of the run may have had an effect that was
 *   never seen answered: also when the cancel (or the final failure) comes later in the run;
 * - one long-lived signal shared by 10,000 concurrent calls carries one abort listener, prints
 *   no `MaxListenersExceededWarning`, and keeps no listener once the calls are over.
 */
import { getEventListeners, once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type StitchRun, stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { rejection, startScenario, until } from '../helpers/runs';

describe('ambiguous: a dispatched request of the run went unanswered', () => {
  const write = (url: string) =>
    stitch({
      name: uniqueKey('charge'),
      method: 'POST',
      url,
      idempotency: true,
      timeout: { each: 100 },
      retry: { attempts: 2, backoff: { base: 1_000, jitter: 'none' }, budget: false },
    });

  it('a cancel during the backoff after an unanswered write attempt', async () => {
    const { vendor, engine, clock } = await startScenario();
    vendor.script({ fault: 'hang' });
    const controller = new AbortController();
    const run = write(vendor.url('/charges'))(
      { body: { cents: 100 } },
      { engine, signal: controller.signal },
    );
    await vendor.arrival(1);
    await clock.advance(100);
    await until(run, 'retry');
    const reason = new Error('user closed the page');
    controller.abort(reason);
    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'aborted', requests: 1, dispatched: true, ambiguous: true });
    expect(error.cause).toBe(reason);
  });

  it('a cancel during the backoff after a connection reset', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script({ fault: 'reset' });
    const controller = new AbortController();
    const run = write(vendor.url('/charges'))(
      { body: { cents: 100 } },
      { engine, signal: controller.signal },
    );
    await until(run, 'retry');
    controller.abort(new Error('gone'));
    expect(await rejection(run)).toMatchObject({ kind: 'aborted', ambiguous: true });
  });

  it('a final http error after an earlier attempt timed out in flight', async () => {
    const { vendor, engine, clock } = await startScenario();
    vendor.script({ fault: 'hang' }, { status: 503, body: { down: true } });
    const run = write(vendor.url('/charges'))({ body: { cents: 100 } }, { engine });
    await vendor.arrival(1);
    await clock.advance(100);
    await until(run, 'retry');
    await clock.advance(1_000);
    expect(await rejection(run)).toMatchObject({ kind: 'http', status: 503, requests: 2, ambiguous: true });
  });

  it('stays false when every request was answered', async () => {
    const { vendor, engine, clock } = await startScenario();
    vendor.script({ status: 503 }, { status: 503 });
    const run = write(vendor.url('/charges'))({ body: { cents: 100 } }, { engine });
    await until(run, 'retry');
    await clock.advance(1_000);
    expect(await rejection(run)).toMatchObject({ kind: 'http', ambiguous: false });
  });
});

describe('ambiguous: a write whose connection was refused sent nothing', () => {
  it('is not ambiguous: no server was reached', async () => {
    // A port nobody listens on any more: the connection is refused.
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const { engine } = await startScenario();
    const charge = stitch({
      name: uniqueKey('charge'),
      method: 'POST',
      url: `http://127.0.0.1:${port}/charges`,
    });
    const run = charge({ body: { cents: 100 } }, { engine });
    const error = await rejection(run);
    // Nor did a request leave the process: none is counted, and the run says none was dispatched.
    expect(error).toMatchObject({ kind: 'network', ambiguous: false, dispatched: false, requests: 0 });
    expect(await run.report()).toMatchObject({ dispatched: false, requests: 0, attempts: 1 });
  });
});

describe('one abort listener per signal, however many calls share it', () => {
  const CALLS = 10_000;

  /** Collects the process warnings emitted while the test runs. */
  function warnings(): Error[] {
    const seen: Error[] = [];
    const listener = (warning: Error) => seen.push(warning);
    process.on('warning', listener);
    onTestFinished(() => void process.off('warning', listener));
    return seen;
  }

  /** 10,000 calls of one read on one signal, its one request held at the vendor. */
  async function tenThousandOnOneSignal() {
    const seen = warnings();
    const { vendor, engine } = await startScenario();
    vendor.script('hold');
    const read = stitch({ name: uniqueKey('shared'), url: vendor.url('/feed') });
    const controller = new AbortController();
    const runs: StitchRun<unknown>[] = [];
    for (let i = 0; i < CALLS; i++) runs.push(read({}, { engine, signal: controller.signal }));
    await vendor.arrival(1);
    const maxListenerWarnings = () =>
      seen.filter((warning) => warning.name === 'MaxListenersExceededWarning');
    return { vendor, controller, runs, maxListenerWarnings };
  }

  it('10,000 calls in flight on one signal: one listener, no warning, none left after', async () => {
    const { vendor, controller, runs, maxListenerWarnings } = await tenThousandOnOneSignal();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    vendor.release(1, { body: { items: [] } });
    const results = await Promise.all(runs);
    expect(results).toHaveLength(CALLS);
    expect(vendor.requests()).toBe(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(maxListenerWarnings()).toEqual([]);
  }, 30_000);

  it('an abort reaches all 10,000 with its reason, and leaves no listener', async () => {
    const { vendor, controller, runs, maxListenerWarnings } = await tenThousandOnOneSignal();
    const reason = new Error('route changed');
    controller.abort(reason);
    const results = await Promise.all(runs.map((run) => run.safe()));
    expect(results.every((result) => result.error?.kind === 'aborted' && result.error.cause === reason)).toBe(
      true,
    );
    await vendor.hangUp(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(maxListenerWarnings()).toEqual([]);
  }, 30_000);
});

describe('a body read ends on the abort even when the fetch in use ignores its signal', () => {
  /** A `fetch` that answers `status` at once with a body that never ends, and ignores its signal. */
  const deafFetch = (status: number, cancelled: unknown[]) =>
    (async () => {
      const body = new ReadableStream({ cancel: (reason) => void cancelled.push(reason) });
      return new Response(body, { status, headers: { 'content-type': 'application/json' } });
    }) as typeof globalThis.fetch;

  it.each([
    ['a success body', 200],
    ['an error body', 503],
  ])('%s: the caller’s abort rejects at once with its reason and cancels the stream', async (_, status) => {
    const cancelled: unknown[] = [];
    const fetch = deafFetch(status, cancelled);
    const { engine } = await startScenario({ engine: { fetch } });
    const read = stitch({ name: uniqueKey('deaf'), url: 'http://127.0.0.1:9/stream', retry: false });
    const controller = new AbortController();
    const run = read(undefined, { engine, signal: controller.signal });
    await until(run, 'response');
    const reason = new Error('user navigated away');
    controller.abort(reason);
    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'aborted', dispatched: true });
    expect(error.cause).toBe(reason);
    expect(cancelled).toHaveLength(1);
  });
});
