/**
 * Issue 8, faults: what Stitch does when the vendor misbehaves, proven against a real `node:http`
 * vendor. Every scenario asserts what the vendor saw (its ledger: requests, hang-ups, bytes sent,
 * open sockets), not only what the caller got: a timeout that leaves the socket open, or a size
 * limit that drains the body anyway, would pass a caller-side test and still hurt production.
 * Time is a manual clock; the test moves it, and waits only on the vendor's and the run's promises.
 */
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  type CircuitState,
  type Engine,
  type StitchEvent,
  type StitchRun,
  type Store,
  stitch,
} from '../../src/index';
import type { ManualClock } from '../helpers/clock';
import { uniqueKey } from '../helpers/keys';
import { collect, eventTypes, rejection, settledCount, startScenario, until } from '../helpers/runs';
import type { LedgerEntry, Vendor } from '../helpers/vendor';

const closed = (failures: number): CircuitState => ({ state: 'closed', failures });

/**
 * Settles `runs` while moving the manual clock only from one scheduled timer (a backoff sleep) to
 * the next: each step waits for either every run to settle or a timer to be pending, never for
 * wall-clock time.
 */
async function settleAll(clock: ManualClock, runs: readonly StitchRun<unknown>[]) {
  let done = false;
  const all = Promise.all(runs.map((run) => run.safe())).then((results) => {
    done = true;
    return results;
  });
  while (!done) {
    await Promise.race([all, clock.untilPending()]);
    if (!done) await clock.next();
  }
  return all;
}

/**
 * After a client hang-up, no socket of the vendor still carries an exchange: every request in the
 * ledger is over, and the hung-up one's own connection is closed (`hangUp` resolves only then). At
 * most one connection stays open, and it is idle: Node 20's fetch answers an abort by opening a
 * fresh, unused connection (nodejs/undici#5845), a client habit rather than a leak.
 */
async function expectNothingOpen(vendor: Vendor) {
  for (const entry of vendor.ledger) await vendor.finished(entry.n);
  expect(vendor.openSockets()).toBeLessThanOrEqual(1);
}

/** The events of `type` in `events`. */
const ofType = <TType extends StitchEvent['type']>(events: readonly StitchEvent[], type: TType) =>
  events.filter((event): event is Extract<StitchEvent, { type: TType }> => event.type === type);

describe('a broken connection', () => {
  it('reset mid-body: kind network, the breaker counts one failure per attempt, the vendor cut both', async () => {
    const { vendor, engine, clock } = await startScenario();
    vendor.script(
      { fault: 'reset-mid-body', partial: '{"items": [1, 2' },
      { fault: 'reset-mid-body', partial: '{"items": [1, 2' },
    );
    const list = stitch({
      name: uniqueKey('list'),
      url: vendor.url('/items'),
      retry: { attempts: 2, backoff: { base: 10, jitter: 'none' } },
      circuit: { failures: 5 },
    });
    const run = list({}, { engine });
    const events = collect(run);
    await settleAll(clock, [run]);
    const error = await rejection(run);

    expect(error).toMatchObject({ kind: 'network', attempts: 2, requests: 2, dispatched: true });
    expect(error.cause).toBeDefined();
    // Each attempt was counted once, however many layers saw the failure (fetch, body, retry).
    expect(await engine.circuitState(vendor.origin)).toEqual(closed(2));
    expect(eventTypes(await events)).toEqual([
      'start',
      'request',
      'response',
      'retry',
      'request',
      'response',
      'error',
      'done',
    ]);

    // The vendor: two requests, each cut after the partial body; no connection left open.
    expect(vendor.requests()).toBe(2);
    for (const n of [1, 2]) {
      const entry = await vendor.finished(n);
      expect(entry).toMatchObject({ answered: false, bytesSent: '{"items": [1, 2'.length });
    }
    expect(vendor.openSockets()).toBe(0);
    expect(clock.pending()).toBe(0);
  });
});

describe('a browser that is offline', () => {
  it("fails its fetch without reaching the vendor: not the vendor's failure (the breaker counts none), nothing ambiguous", async () => {
    let online = false;
    vi.stubGlobal('navigator', {
      get onLine() {
        return online;
      },
    });
    onTestFinished(() => void vi.unstubAllGlobals());
    // What a browser's fetch does offline: it rejects at once, with no code to tell why.
    const browserFetch: typeof fetch = (url, init) =>
      online ? fetch(url, init) : Promise.reject(new TypeError('Failed to fetch'));
    const { vendor, engine, clock } = await startScenario({ engine: { fetch: browserFetch } });
    const list = stitch({
      name: uniqueKey('list'),
      url: vendor.url('/items'),
      retry: false,
      circuit: { failures: 2 },
    });
    for (let call = 0; call < 3; call++) {
      const error = await rejection(list({}, { engine }));
      // Nothing left the browser: no request counted, nothing dispatched.
      expect(error).toMatchObject({ kind: 'network', ambiguous: false, requests: 0, dispatched: false });
      expect(error.message).toContain('failed (offline)');
    }
    expect(await engine.circuitState(vendor.origin)).toEqual(closed(0));

    online = true;
    vendor.script({ body: { items: [1] } });
    await expect(list({}, { engine })).resolves.toEqual({ items: [1] });
    expect(vendor.requests()).toBe(1);

    // Sent online, cut as the network went away: it may have reached the vendor (ambiguous), but
    // the breaker still counts nothing against the vendor.
    vendor.script('hold');
    const cut = list({}, { engine });
    await vendor.arrival(2);
    online = false;
    vendor.release(2, { fault: 'reset' });
    expect(await rejection(cut)).toMatchObject({ kind: 'network', ambiguous: true, requests: 1 });
    expect(await engine.circuitState(vendor.origin)).toEqual(closed(0));
    expect(clock.pending()).toBe(0);
  });
});

describe('a vendor that stalls', () => {
  it('a response that never comes: timeout.each fires, kind timeout phase each, the socket is hung up', async () => {
    const { vendor, engine, clock } = await startScenario();
    vendor.script({ fault: 'hang' });
    const slow = stitch({
      name: uniqueKey('slow'),
      url: vendor.url('/slow'),
      retry: false,
      timeout: { each: 1_000 },
      circuit: { failures: 5 },
    });
    const run = slow({}, { engine });
    await vendor.arrival(1);
    await clock.untilPending();
    await clock.advance(999);
    expect(vendor.ledger[0]).toMatchObject({ hungUp: false, answered: false });
    await clock.advance(1);

    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'timeout', name: 'TimeoutError', phase: 'each', dispatched: true });
    expect(ofType((await run.report()).events, 'timeout')).toMatchObject([
      { phase: 'each', dispatched: true },
    ]);
    // A per-attempt timeout proves the vendor slow: it counts.
    expect(await engine.circuitState(vendor.origin)).toEqual(closed(1));

    // The deadline aborted the fetch itself: the vendor saw the client hang up, nothing left open.
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false, bytesSent: 0 });
    await expectNothingOpen(vendor);
    expect(vendor.requests()).toBe(1);
    expect(clock.pending()).toBe(0);
  });

  it.each(['injected', 'global'])(
    'through the %s fetch ignoring its signal, the deadlines still end the call on time',
    async (where) => {
      // What a fetch wrapper (or a mock, a polyfill) that drops `signal` does: the platform's
      // fetch never hears the abort.
      const platform = globalThis.fetch;
      const deaf: typeof fetch = (input, init) => {
        const { signal: _dropped, ...rest } = init ?? {};
        return platform(input, rest);
      };
      if (where === 'global') {
        globalThis.fetch = deaf;
        onTestFinished(() => {
          globalThis.fetch = platform;
        });
      }
      const { vendor, engine, clock } = await startScenario(
        where === 'global' ? {} : { engine: { fetch: deaf } },
      );
      vendor.script({ fault: 'hang' }, { fault: 'hang' });
      for (const timeout of [{ each: 1_000 }, { total: 1_000 }]) {
        const slow = stitch({ name: uniqueKey('slow'), url: vendor.url('/slow'), retry: false, timeout });
        const run = slow({}, { engine });
        await vendor.arrival(vendor.requests() === 0 ? 1 : 2);
        await clock.untilPending();
        await clock.advance(1_000);
        expect(await rejection(run)).toMatchObject({ kind: 'timeout', phase: Object.keys(timeout)[0] });
      }
      expect(vendor.requests()).toBe(2);
    },
  );

  it('a body that drips past timeout.each: progress does not extend the deadline, the socket is hung up', async () => {
    const { vendor, engine, clock } = await startScenario();
    const chunks = ['{"items": [', '1, ', '2, ', '3]}'];
    const dripped = '{"items": [1, ';
    vendor.script({ fault: 'slow-body', headers: { 'content-type': 'application/json' }, chunks });
    const drip = stitch({
      name: uniqueKey('drip'),
      url: vendor.url('/drip'),
      retry: false,
      timeout: { each: 1_000 },
    });
    const run = drip({}, { engine });
    const settled = settledCount([run]);
    // The head arrived: the run is reading the body, under the attempt's deadline.
    await until(run, 'response');
    vendor.drip(1);
    await clock.advance(400);
    vendor.drip(1);
    await clock.advance(400);
    expect(settled()).toBe(0);
    await clock.advance(200);

    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'timeout', phase: 'each', dispatched: true, status: undefined });
    const entry = await vendor.hangUp(1);
    expect(entry).toMatchObject({ hungUp: true, answered: false });
    expect(entry.bytesSent).toBe(dripped.length);
    await expectNothingOpen(vendor);
    expect(clock.pending()).toBe(0);
  });
});

describe('a body that is not what was asked for', () => {
  it('malformed JSON: kind invalid with its cause, not retried, and the breaker does not count it', async () => {
    const { vendor, engine, clock } = await startScenario();
    vendor.script({ status: 503, body: 'down' }, { fault: 'malformed-json' });
    const read = stitch({
      name: uniqueKey('read'),
      url: vendor.url('/read'),
      // Three attempts allowed, but neither a 503 (not in `on`) nor an invalid body is retried.
      retry: { attempts: 3, on: [] },
      circuit: { failures: 5 },
    });
    await rejection(read({ query: { n: 1 } }, { engine }));
    expect(await engine.circuitState(vendor.origin)).toEqual(closed(1));

    const run = read({ query: { n: 2 } }, { engine });
    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'invalid', status: 200, requests: 1 });
    expect(error.message).toMatch(/not valid JSON/);
    expect(error.cause).toBeInstanceOf(SyntaxError);
    // Neutral: neither a failure (still 1) nor a success (which would reset it to 0).
    expect(await engine.circuitState(vendor.origin)).toEqual(closed(1));

    expect(vendor.requests()).toBe(2);
    expect(await vendor.finished(2)).toMatchObject({ answered: true, hungUp: false });
    expect(vendor.ledger[1]?.bytesSent).toBe('{"broken": '.length);
    expect(clock.pending()).toBe(0);
  });

  it('a wrong content type (text/html on a JSON stitch): kind invalid naming it, not retried', async () => {
    const { vendor, engine } = await startScenario();
    const page = '<html><body>Sign in</body></html>';
    vendor.script({ headers: { 'content-type': 'text/html; charset=utf-8' }, body: page });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/read'), circuit: { failures: 5 } });
    const error = await rejection(read({}, { engine }));
    expect(error).toMatchObject({ kind: 'invalid', status: 200, retryable: false });
    expect(error.message).toContain("content-type 'text/html; charset=utf-8'");
    expect(await engine.circuitState(vendor.origin)).toEqual(closed(0));
    expect(vendor.requests()).toBe(1);
    expect(await vendor.finished(1)).toMatchObject({ answered: true, bytesSent: page.length });
  });

  it('an empty body is data null, for a 200 and a 204', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script({ status: 200, body: '' }, { status: 204, body: '' });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/read'), retry: false });
    await expect(read({ query: { n: 1 } }, { engine })).resolves.toBeNull();
    await expect(read({ query: { n: 2 } }, { engine })).resolves.toBeNull();
    expect(vendor.ledger.map((entry) => [entry.answered, entry.bytesSent])).toEqual([
      [true, 0],
      [true, 0],
    ]);
  });

  it('a 10 MB body against maxBodyBytes 1 MB: kind invalid naming maxBodyBytes; the socket is closed, not drained', async () => {
    const { vendor, engine, clock } = await startScenario();
    const limit = 1_000_000;
    const total = 10 * 1024 * 1024;
    // The first chunk alone passes the limit; the other ~9 MB are only sent if the client keeps reading.
    const first = `[${'1,'.repeat(limit / 2)}`;
    const rest = `${'2,'.repeat((total - first.length - 2) / 2)}2]`;
    vendor.script({
      fault: 'slow-body',
      headers: { 'content-type': 'application/json' },
      chunks: [first, rest],
    });
    const big = stitch({
      name: uniqueKey('big'),
      url: vendor.url('/big'),
      maxBodyBytes: limit,
      circuit: { failures: 5 },
    });
    const run = big({}, { engine });
    await until(run, 'response');
    vendor.drip(1);

    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'invalid', status: 200, requests: 1 });
    expect(error.message).toContain(`maxBodyBytes (${limit})`);
    // The vendor saw the client hang up after the first chunk: the rest was never asked for.
    const entry = await vendor.hangUp(1);
    expect(entry).toMatchObject({ hungUp: true, answered: false, bytesSent: first.length });
    expect(entry.bytesSent).toBeLessThan(total);
    await expectNothingOpen(vendor);
    // A body too big for this client says nothing about the vendor's health, and is not retried.
    expect(await engine.circuitState(vendor.origin)).toEqual(closed(0));
    expect(vendor.requests()).toBe(1);
    expect(clock.pending()).toBe(0);
  });
});

describe('an error answer whose body the deadline cuts', () => {
  it('is the vendor’s status, not a timeout: the vendor answered, nothing is in doubt', async () => {
    const { vendor, engine, clock } = await startScenario();
    vendor.script({ fault: 'slow-body', status: 503, chunks: ['bus', 'y'] });
    const pay = stitch({
      name: uniqueKey('pay'),
      method: 'POST',
      url: vendor.url('/pay'),
      timeout: { each: 1_000 },
      circuit: { failures: 5 },
    });
    const run = pay({ body: {} }, { engine });
    await until(run, 'response');
    await clock.advance(1_000);
    expect(await rejection(run)).toMatchObject({ kind: 'http', status: 503, ambiguous: false, requests: 1 });
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    // A 503 still counts against the vendor's breaker, as any 503 does.
    expect(await engine.circuitState(vendor.origin)).toEqual(closed(1));
  });
});

describe('Retry-After', () => {
  const YEAR_SECONDS = 365 * 24 * 60 * 60;
  /** Clock time between the first two arrivals at the vendor. */
  const gap = (arrivals: readonly number[]) => (arrivals[1] ?? Number.NaN) - (arrivals[0] ?? Number.NaN);

  /** A vendor that answers 503 with `retryAfter` first, then 200, and records the clock at each arrival. */
  async function retryAfterScenario(retryAfter: string) {
    const arrivals: number[] = [];
    let clockRef: ManualClock | undefined;
    const scenario = await startScenario({
      respond: (entry: LedgerEntry) => {
        arrivals.push(clockRef?.now() ?? Number.NaN);
        return entry.n === 1
          ? { status: 503, headers: { 'retry-after': retryAfter }, body: 'busy' }
          : { body: { ok: true } };
      },
    });
    clockRef = scenario.clock;
    return { ...scenario, arrivals };
  }

  it('of a year is capped by retryAfter.max: the second request comes after exactly the cap', async () => {
    const { vendor, engine, clock, arrivals } = await retryAfterScenario(String(YEAR_SECONDS));
    const read = stitch({
      name: uniqueKey('read'),
      url: vendor.url('/read'),
      retry: { attempts: 2, retryAfter: { max: 5_000 } },
    });
    const run = read({}, { engine });
    expect(await until(run, 'retry')).toMatchObject({ delay: 5_000 });
    await clock.advance(4_999);
    expect(vendor.requests()).toBe(1);
    await clock.advance(1);
    await vendor.arrival(2);
    await expect(run).resolves.toEqual({ ok: true });
    expect(gap(arrivals)).toBe(5_000);
    expect(vendor.requests()).toBe(2);
    expect(clock.pending()).toBe(0);
  });

  it('of a year past the total deadline fails at once with the 503: no sleep, no second request', async () => {
    const { vendor, engine, clock } = await retryAfterScenario(String(YEAR_SECONDS));
    const read = stitch({
      name: uniqueKey('read'),
      url: vendor.url('/read'),
      retry: { attempts: 3 },
      timeout: { total: 10_000 },
    });
    const run = read({}, { engine });
    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'http', status: 503, attempts: 1 });
    expect(ofType((await run.report()).events, 'retry')).toHaveLength(0);
    // Failing happened without time passing: nothing slept until the deadline.
    expect((await run.report()).elapsed).toBe(0);
    expect(clock.pending()).toBe(0);
    expect(vendor.requests()).toBe(1);
  });

  it.each(['soon', '1.5', '-3', '2025-01-01', 'Thu, 99 Foo 9999 99:99:99 GMT', '   '])(
    'garbage (%j) is ignored: the backoff applies',
    async (garbage) => {
      const { vendor, engine, clock, arrivals } = await retryAfterScenario(garbage);
      const read = stitch({
        name: uniqueKey('read'),
        url: vendor.url('/read'),
        retry: { attempts: 2, backoff: { base: 250, jitter: 'none' } },
      });
      const run = read({}, { engine });
      expect(await until(run, 'retry')).toMatchObject({ delay: 250 });
      await clock.advance(250);
      await expect(run).resolves.toEqual({ ok: true });
      expect(gap(arrivals)).toBe(250);
      expect(vendor.requests()).toBe(2);
    },
  );
});

describe('a 503 storm under the retry budget', () => {
  it('50 calls x 5 attempts against an all-503 vendor: requests ≤ calls + floor + ratio x calls', async () => {
    const { vendor, engine, clock } = await startScenario({
      respond: () => ({ status: 503, body: 'unavailable' }),
    });
    const calls = 50;
    const budget = { ratio: 0.2, floor: 2 };
    const read = stitch({
      name: uniqueKey('storm'),
      url: vendor.url('/storm'),
      retry: { attempts: 5, backoff: { base: 10, jitter: 'none' }, budget },
      // The breaker would also cut the storm short; this test isolates the budget.
      circuit: false,
    });
    const traced: StitchEvent[] = [];
    const runs = Array.from({ length: calls }, (_, i) => read({ query: { i } }, { engine }));
    for (const run of runs) void collect(run).then((events) => traced.push(...events));
    const results = await settleAll(clock, runs);

    expect(results.every((result) => !result.ok && result.error.status === 503)).toBe(true);
    const ceiling = calls + budget.floor + budget.ratio * calls;
    const requests = vendor.requests();
    expect(requests).toBeLessThanOrEqual(ceiling);
    expect(requests).toBeLessThan(calls * 5);
    // The budget let some retries through (a quiet key still retries), each one a real request.
    expect(requests).toBeGreaterThan(calls);
    expect(ofType(traced, 'retry')).toHaveLength(requests - calls);
    expect(clock.pending()).toBe(0);
  });
});

describe('a store that fails', () => {
  /** A stitch with a breaker, on `engine`, against `vendor`. */
  const guarded = (vendor: Vendor) =>
    stitch({
      name: uniqueKey('guarded'),
      url: vendor.url('/guarded'),
      retry: false,
      circuit: { failures: 1 },
    });

  /** Two calls in a row are both served, each with a 'store' event; nothing is counted anywhere. */
  async function expectFailOpen(vendor: Vendor, engine: Engine, run: StitchRun<unknown>, clue: RegExp) {
    await expect(run).resolves.toEqual({ path: '/guarded', query: {} });
    const store = ofType((await run.report()).events, 'store');
    expect(store.length).toBeGreaterThanOrEqual(1);
    expect(store[0]).toMatchObject({ key: vendor.origin });
    expect(store[0]?.error).toMatch(clue);
    expect(eventTypes((await run.report()).events)).toContain('store');
    expect(await vendor.finished(vendor.requests())).toMatchObject({ answered: true });
    return engine;
  }

  it('a store that rejects: the breaker fails open, the run carries a store event, requests are served', async () => {
    const down = new Error('ECONNREFUSED redis:6379');
    const rejecting: Store = {
      get: () => Promise.reject(down),
      set: () => Promise.reject(down),
      delete: () => Promise.reject(down),
      update: () => Promise.reject(down),
    };
    const { vendor, engine, clock } = await startScenario({ engine: { store: rejecting } });
    const read = guarded(vendor);
    await expectFailOpen(vendor, engine, read({}, { engine }), /ECONNREFUSED/);
    // A vendor failure cannot be recorded either, and must not wedge later calls.
    vendor.script({ status: 500, body: 'boom' });
    await rejection(read({}, { engine }));
    await expectFailOpen(vendor, engine, read({}, { engine }), /ECONNREFUSED/);
    expect(vendor.requests()).toBe(3);
    expect(clock.pending()).toBe(0);
  });

  it('a store that throws synchronously: the breaker fails open just the same', async () => {
    const boom = () => {
      throw new Error('store client not connected');
    };
    const throwing = { get: boom, set: boom, delete: boom, update: boom } as unknown as Store;
    const { vendor, engine, clock } = await startScenario({ engine: { store: throwing } });
    const read = guarded(vendor);
    await expectFailOpen(vendor, engine, read({}, { engine }), /not connected/);
    await expectFailOpen(vendor, engine, read({}, { engine }), /not connected/);
    expect(vendor.requests()).toBe(2);
    // The storeTimeout timer of each operation ends with it, even when the store throws.
    expect(clock.pending()).toBe(0);
  });

  it('an abort while the breaker waits on a hanging store: the caller leaves at once and nothing is sent', async () => {
    const never = () => new Promise<never>(() => {});
    const hanging: Store = { get: never, set: never, delete: never, update: never };
    const { vendor, engine, clock } = await startScenario({ engine: { store: hanging, storeTimeout: 250 } });
    const read = guarded(vendor);
    const controller = new AbortController();
    const run = read({}, { engine, signal: controller.signal });
    await clock.untilPending();
    const reason = new Error('the user left');
    controller.abort(reason);
    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'aborted', requests: 0, dispatched: false });
    expect(error.cause).toBe(reason);
    // Once the store is given up on, the abandoned execution sees its abort and sends nothing.
    await clock.advance(250);
    expect(vendor.requests()).toBe(0);
    expect(clock.pending()).toBe(0);
    // The execution stopped waiting on the store with the abort; what runs on is only the store
    // operation's own deadline, which ended above without a request.
  });

  it('a store that hangs: each operation gives up after storeTimeout, the breaker fails open', async () => {
    const never = () => new Promise<never>(() => {});
    const hanging: Store = { get: never, set: never, delete: never, update: never };
    const { vendor, engine, clock } = await startScenario({
      engine: { store: hanging, storeTimeout: 250 },
    });
    const read = guarded(vendor);
    for (let call = 1; call <= 2; call++) {
      const run = read({}, { engine });
      // Nothing leaves while the breaker waits on the store...
      await clock.untilPending();
      await clock.advance(249);
      expect(vendor.requests()).toBe(call - 1);
      // ...and the call goes ahead once the store is given up on.
      await clock.advance(1);
      await expectFailOpen(vendor, engine, run, /did not answer within 250 ms/);
    }
    expect(vendor.requests()).toBe(2);
    expect(clock.pending()).toBe(0);
  });
});
