import { getEventListeners } from 'node:events';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  createEngine,
  createMemoryStore,
  type Engine,
  type StitchEvent,
  type Store,
  stitch,
} from '../../src/index';
import { createManualClock } from '../helpers/clock';
import { uniqueKey } from '../helpers/keys';
import { eventTypes, rejection, snapshotWhere, startScenario } from '../helpers/runs';
import { flush } from '../helpers/schedulerFakes';

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** A fetch that answers every request with `{ ok: true }` and remembers what it was given. */
function stubFetch() {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    return json({ ok: true });
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls };
}

describe('createEngine', () => {
  it('200 calls on one long-lived signal leave 0 abort listeners on it', async () => {
    const { fetch } = stubFetch();
    const engine = createEngine({ fetch, clock: createManualClock() });
    const appWide = new AbortController();
    const search = stitch({ name: uniqueKey('search'), url: 'https://api.test/search', coalesce: false });
    const runs = Array.from({ length: 200 }, (_, i) =>
      search({ query: { q: String(i) } }, { engine, signal: appWide.signal }),
    );
    await Promise.all(runs);
    expect(getEventListeners(appWide.signal, 'abort')).toHaveLength(0);
  });

  it('a throwing trace sink does not break a run, and other sinks still see every event', async () => {
    const { fetch } = stubFetch();
    const seen: StitchEvent[] = [];
    const engine = createEngine({
      fetch,
      trace: [
        {
          handle() {
            throw new Error('broken sink');
          },
        },
        { handle: (event) => seen.push(event) },
      ],
    });
    const get = stitch({ name: uniqueKey('get'), url: 'https://api.test/thing' });
    await expect(get(undefined, { engine })).resolves.toEqual({ ok: true });
    expect(eventTypes(seen)).toEqual(['start', 'request', 'response', 'success', 'done']);
  });

  it('a sink that cancels the run as it hears an event: every sink and inspector hears the run in order', async () => {
    const { fetch } = stubFetch();
    const controller = new AbortController();
    const seen: StitchEvent[] = [];
    const inspected: string[] = [];
    const engine = createEngine({
      fetch,
      trace: [
        { handle: (event) => event.type === 'request' && controller.abort(new Error('over budget')) },
        { handle: (event) => seen.push(event) },
      ],
    });
    const stop = engine.inspect((event) => {
      if (event.type === 'run') inspected.push(event.event.type);
    });
    const get = stitch({ name: uniqueKey('guarded'), url: 'https://api.test/thing' });
    const run = get(undefined, { engine, signal: controller.signal });
    const { events } = await run.report();
    stop();
    expect(eventTypes(events)).toEqual(['start', 'request', 'cancel', 'done']);
    expect(eventTypes(seen)).toEqual(eventTypes(events));
    expect(inspected).toEqual(eventTypes(events));
  });

  it('redacts secret headers and configured query fields before an event leaves the engine', async () => {
    const { fetch, calls } = stubFetch();
    const seen: StitchEvent[] = [];
    const engine = createEngine({
      fetch,
      trace: { handle: (event) => seen.push(event) },
      redact: ['token', 'x-tenant-secret'],
    });
    const get = stitch({
      name: uniqueKey('secret'),
      url: 'https://api.test/me',
      headers: { authorization: 'Bearer s3cret-auth' },
    });
    const run = get(
      {
        query: { token: 's3cret-query', page: 2 },
        headers: { 'x-api-key': 's3cret-key', 'x-tenant-secret': 's3cret-t' },
      },
      { engine },
    );
    await run;
    const report = await run.report();
    const everything = JSON.stringify([seen, report]);
    expect(everything).not.toMatch(/s3cret/);
    expect(everything).toContain('page=2');
    // What went to the vendor was not redacted.
    expect(new Headers(calls[0]?.init.headers).get('authorization')).toBe('Bearer s3cret-auth');
    expect(calls[0]?.url).toContain('token=s3cret-query');
  });

  it('onRequest may set headers; hooks that throw do not change the outcome', async () => {
    const { fetch, calls } = stubFetch();
    const engine = createEngine({ fetch });
    const get = stitch({
      name: uniqueKey('hooks'),
      url: 'https://api.test/hooks',
      hooks: {
        onRequest: ({ headers }) => headers.set('x-trace', 'abc'),
        onResponse: () => {
          throw new Error('observer bug');
        },
      },
    });
    await expect(get(undefined, { engine })).resolves.toEqual({ ok: true });
    expect(new Headers(calls[0]?.init.headers).get('x-trace')).toBe('abc');
  });

  it('an onResponse that reads the body is a config error naming it: not retried, not a breaker failure', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { id: 7 } }) });
    let logged: Promise<unknown> | undefined;
    const get = stitch({
      name: uniqueKey('logger'),
      url: vendor.url('/users/7'),
      circuit: { failures: 1 },
      hooks: {
        onResponse: ({ response }) => {
          logged = response.json();
        },
      },
    });
    const error = await rejection(get(undefined, { engine }));
    expect(error).toMatchObject({ kind: 'config', field: 'hooks.onResponse', status: 200, retryable: false });
    expect(error.message).toContain('response.clone()');
    expect(vendor.requests()).toBe(1);
    expect(await engine.circuitState(new URL(vendor.url('/')).origin)).toMatchObject({ state: 'closed' });
    // The hook read it: the vendor answered, whatever the engine could not read.
    await expect(logged).resolves.toEqual({ id: 7 });
  });

  it.each([
    [
      'an error page longer than the error body kept',
      { status: 502, body: 'Bad gateway. '.repeat(300) },
      {},
      'http',
    ],
    ['a body over maxBodyBytes', { body: { items: 'x'.repeat(4_096) } }, { maxBodyBytes: 1_024 }, 'invalid'],
  ] as const)(
    'an onResponse that clones the body and never reads the clone: %s still settles',
    async (_, reply, options, kind) => {
      const { vendor, engine } = await startScenario();
      vendor.script(reply);
      const clones: Response[] = [];
      const get = stitch({
        name: uniqueKey('cloned'),
        url: vendor.url('/users'),
        retry: false,
        ...options,
        hooks: { onResponse: ({ response }) => void clones.push(response.clone()) },
      });
      expect(await rejection(get(undefined, { engine }))).toMatchObject({ kind });
      expect(clones).toHaveLength(1);
    },
  );

  it('a redefinition under a known name replaces the old stitch; the old one is then refused', async () => {
    const { fetch, calls } = stubFetch();
    const engine = createEngine({ fetch });
    const name = uniqueKey('dup');
    const first = stitch({ name, url: 'https://api.test/a' });
    await first(undefined, { engine });
    const second = stitch({ name, url: 'https://api.test/b' });
    await expect(second(undefined, { engine })).resolves.toEqual({ ok: true });
    const error = await first(undefined, { engine }).safe();
    expect(error.error).toMatchObject({ kind: 'config', field: 'name', requests: 0 });
    expect(error.error?.message).toMatch(/newer stitch.*its own name/);
    expect(calls.map((call) => call.url)).toEqual(['https://api.test/a', 'https://api.test/b']);
  });

  it('an older definition called first after a newer one of its name is refused, and the newer one keeps running', async () => {
    const { fetch, calls } = stubFetch();
    const engine = createEngine({ fetch });
    const name = uniqueKey('reload');
    const older = stitch({ name, url: 'https://api.test/a' });
    const newer = stitch({ name, url: 'https://api.test/b' });
    await expect(newer(undefined, { engine })).resolves.toEqual({ ok: true });
    // The module that held the old definition runs it for the first time on this engine.
    const old = await older(undefined, { engine }).safe();
    expect(old.error).toMatchObject({ kind: 'config', field: 'name', requests: 0 });
    expect(old.error?.message).toMatch(/newer stitch.*its own name/);
    await expect(newer(undefined, { engine })).resolves.toEqual({ ok: true });
    expect(calls.map((call) => call.url)).toEqual(['https://api.test/b', 'https://api.test/b']);
  });

  it('a write under a key the caller owns settles where there is no crypto at all', async () => {
    const { fetch, calls } = stubFetch();
    const engine = createEngine({ fetch });
    const charge = stitch({
      name: uniqueKey('charge'),
      method: 'POST',
      url: 'https://api.test/charges',
      idempotency: { keyOf: () => 'order-42' },
    });
    vi.stubGlobal('crypto', undefined);
    onTestFinished(() => void vi.unstubAllGlobals());
    await expect(charge({ body: { cents: 1 } }, { engine })).resolves.toEqual({ ok: true });
    await expect(charge({ body: { cents: 1 } }, { engine })).resolves.toEqual({ ok: true });
    expect(calls).toHaveLength(1);
  });

  it('bad input rejects the run with a config error and sends nothing', async () => {
    const { fetch, calls } = stubFetch();
    const engine = createEngine({ fetch });
    const get = stitch({ name: uniqueKey('input'), url: 'https://api.test/users/{id}' });
    // @ts-expect-error the missing param is a type error, and caught at run time for untyped callers
    const result = await get({ params: {} }, { engine }).safe();
    expect(result.error).toMatchObject({ kind: 'config', field: 'params.id', requests: 0 });
    expect(calls).toHaveLength(0);
  });

  it('a query or headers that is not a plain object is refused beside a cached or shared read, never served its data', async () => {
    const { fetch, calls } = stubFetch();
    const engine = createEngine({ fetch });
    const list = stitch({ name: uniqueKey('items'), url: 'https://api.test/items', cache: { ttl: 60_000 } });
    await list(undefined, { engine });
    await list({ headers: { 'x-tenant': 'a' } }, { engine });
    const odd = [
      { query: new URLSearchParams({ page: '2' }) },
      { query: new Map([['page', 3]]) },
      { headers: new Headers({ authorization: 'Bearer bob' }) },
      // Fetch's HeadersInit takes pairs; an input's headers do not, and must not key as plain ones.
      { headers: [['x-tenant', 'a']] },
    ];
    for (const input of odd) {
      // @ts-expect-error neither a Map nor a URLSearchParams nor a Headers is a query or headers record
      const result = await list(input, { engine }).safe();
      expect(result.error).toMatchObject({ kind: 'config', requests: 0 });
      expect(result.error?.message).toMatch(/must be a plain object/);
    }
    // Nor does one join a request in flight.
    const shared = stitch({ name: uniqueKey('shared'), url: 'https://api.test/items' });
    const leader = shared(undefined, { engine });
    const joiner = await shared({ query: new URLSearchParams({ page: '2' }) } as never, { engine }).safe();
    expect(joiner.error).toMatchObject({ kind: 'config', requests: 0 });
    await expect(leader).resolves.toEqual({ ok: true });
    expect(calls).toHaveLength(3);
  });

  it('a signal aborted before the call rejects at once with its reason and sends nothing', async () => {
    const { fetch, calls } = stubFetch();
    const engine = createEngine({ fetch });
    const reason = new Error('never mind');
    const run = stitch({ name: uniqueKey('pre'), url: 'https://api.test/x' })(undefined, {
      engine,
      signal: AbortSignal.abort(reason),
    });
    const result = await run.safe();
    expect(result.error?.cause).toBe(reason);
    expect(result.error?.dispatched).toBe(false);
    expect((await run.report()).cancelled).toBe(true);
    expect(calls).toHaveLength(0);
  });

  it('a malformed body is kind invalid and a failed validation carries the issues as cause', async () => {
    const engine = createEngine({
      fetch: async () => new Response('{"broken": ', { headers: { 'content-type': 'application/json' } }),
    });
    const malformed = await stitch({ name: uniqueKey('bad'), url: 'https://api.test/x' })(undefined, {
      engine,
    }).safe();
    expect(malformed.error?.kind).toBe('invalid');

    const issues = [{ message: 'expected a number at id' }];
    const schema = {
      '~standard': { version: 1 as const, vendor: 'test', validate: () => ({ issues }) },
    };
    const other = createEngine({ fetch: async () => json({ id: 'x' }) });
    const invalid = await stitch({ name: uniqueKey('schema'), url: 'https://api.test/x', output: schema })(
      undefined,
      {
        engine: other,
      },
    ).safe();
    expect(invalid.error).toMatchObject({ kind: 'invalid', dispatched: true });
    expect(invalid.error?.cause).toBe(issues);
  });

  it.each<[string, (engine: Engine) => unknown]>([
    ['invalidate', (engine) => engine.invalidate(undefined as never)],
    ['invalidate', (engine) => engine.invalidate('getUser' as never)],
    ['setData', (engine) => engine.setData({} as never, undefined, 1)],
    ['getData', (engine) => engine.getData(null as never, undefined)],
    ['keyOf', (engine) => engine.keyOf('getUser' as never, undefined)],
    ['listener', (engine) => engine.subscribe('key', 'refetch' as never)],
  ])(
    '%s given what is not a stitch (or a listener that is no function) is a config error naming it',
    (field, misuse) => {
      expect(() => misuse(createEngine())).toThrow(expect.objectContaining({ kind: 'config', field }));
    },
  );

  it('runs on the default engine when no engine is given', async () => {
    const fetch = vi.spyOn(globalThis, 'fetch').mockResolvedValue(json({ from: 'default' }));
    try {
      await expect(stitch({ name: uniqueKey('default'), url: 'https://api.test/d' })()).resolves.toEqual({
        from: 'default',
      });
    } finally {
      fetch.mockRestore();
    }
  });
});

/** A store whose every operation is `get`'s: one that fails, or one that never answers. */
const broken = (get: () => Promise<never>): Store => ({ get, set: get, delete: get, update: get });

/** A store that never answers. */
const hanging = () => broken(() => new Promise<never>(() => {}));

describe('an unreachable store', () => {
  it('a store that throws: the breaker fails open, the run is served, and the run says so', async () => {
    const { fetch, calls } = stubFetch();
    const engine = createEngine({
      fetch,
      store: broken(() => Promise.reject(new Error('ECONNREFUSED redis'))),
    });
    const run = stitch({ name: uniqueKey('store-down'), url: 'https://api.test/x' })(undefined, { engine });
    await expect(run).resolves.toEqual({ ok: true });
    expect(calls).toHaveLength(1);
    const store = (await run.report()).events.find((event) => event.type === 'store');
    expect(store).toMatchObject({ key: 'https://api.test', error: 'ECONNREFUSED redis' });
  });

  it('a store that hangs is given up on after storeTimeout, and nothing is left pending', async () => {
    const { fetch, calls } = stubFetch();
    const clock = createManualClock();
    const engine = createEngine({
      fetch,
      clock,
      storeTimeout: 250,
      store: hanging(),
    });
    const run = stitch({ name: uniqueKey('store-hangs'), url: 'https://api.test/x' })(undefined, { engine });
    await clock.untilPending();
    expect(calls).toHaveLength(0);
    await clock.advance(250);
    await expect(run).resolves.toEqual({ ok: true });
    expect(calls).toHaveLength(1);
    expect(eventTypes((await run.report()).events)).toContain('store');
    expect(clock.pending()).toBe(0);
  });
});

describe('a store write the engine gave up on (storeTimeout) lands later', () => {
  /** A memory store whose writes wait for `land()`: past the bound, as a slow network store's. */
  function slowWrites(clock: { now(): number }) {
    const memory = createMemoryStore(() => clock.now());
    let land = () => {};
    const landed = new Promise<void>((resolve) => {
      land = resolve;
    });
    const store: Store = {
      ...memory,
      update: async (key, transition, ttl) => {
        await landed;
        return memory.update(key, transition, ttl);
      },
    };
    return { memory, store, land };
  }

  it('a probe lease it took is released: the next call probes, not refused by a half-open breaker', async () => {
    const { fetch, calls } = stubFetch();
    const clock = createManualClock();
    const { memory, store, land } = slowWrites(clock);
    const engine = createEngine({ fetch, clock, store, storeTimeout: 100 });
    const read = stitch({
      name: uniqueKey('late-lease'),
      url: 'https://api.test/x',
      circuit: { key: 'late' },
    });
    // Open, its cooldown over.
    await memory.set('circuit:late', { state: 'open', until: 0 }, 60_000);
    const first = read(undefined, { engine });
    await clock.untilPending();
    await clock.advance(100);
    await expect(first).resolves.toEqual({ ok: true });
    land();
    await clock.advance(0);
    await expect(read(undefined, { engine })).resolves.toEqual({ ok: true });
    expect(calls).toHaveLength(2);
  });

  it('an idempotency claim it made is settled with the call: the key replays the answer', async () => {
    const { fetch, calls } = stubFetch();
    const clock = createManualClock();
    const { store, land } = slowWrites(clock);
    const engine = createEngine({ fetch, clock, store, storeTimeout: 100 });
    const charge = stitch({
      name: uniqueKey('late-claim'),
      method: 'POST',
      url: 'https://api.test/charges',
      circuit: false,
      idempotency: { keyOf: () => 'order-1' },
    });
    const first = charge({ body: {} }, { engine });
    await clock.untilPending();
    await clock.advance(100);
    await expect(first).resolves.toEqual({ ok: true });
    land();
    await clock.advance(0);
    const again = charge({ body: {} }, { engine });
    await expect(again).resolves.toEqual({ ok: true });
    expect((await again.report()).source).toBe('recorded');
    expect(calls).toHaveLength(1);
  });
});

it('an abort while the breaker waits on a slow store hands the throttle slot back at once', async () => {
  const { fetch } = stubFetch();
  const clock = createManualClock();
  const engine = createEngine({ fetch, clock, store: hanging(), storeTimeout: 10_000 });
  const read = stitch({
    name: uniqueKey('slow-store'),
    url: 'https://api.test/x',
    coalesce: false,
    throttle: { concurrency: 1 },
  });
  const leaving = new AbortController();
  const first = read(undefined, { engine, signal: leaving.signal });
  await clock.untilPending();
  leaving.abort(new Error('left'));
  await first.safe();
  const second = read(undefined, { engine });
  await clock.untilPending(2);
  await clock.advance(10_000);
  await expect(second).resolves.toEqual({ ok: true });
  expect(eventTypes((await second.report()).events)).not.toContain('queued');
});

it.each([
  ['the breaker', 'circuit', {}, undefined],
  [
    'an idempotency record',
    'idempotency',
    { method: 'POST', circuit: false, idempotency: { keyOf: () => 'k' } },
    { body: {} },
  ],
] as const)(
  'the total deadline ends a wait on a slow store for %s, sending nothing; a store event says why',
  async (_, operation, config, input) => {
    const { fetch, calls } = stubFetch();
    const clock = createManualClock();
    const engine = createEngine({ fetch, clock, store: hanging(), storeTimeout: 10_000 });
    const call = stitch({
      name: uniqueKey('slow-store-total'),
      url: 'https://api.test/x',
      timeout: 100,
      ...config,
    });
    const run = call(input as never, { engine });
    await clock.untilPending(2);
    await clock.advance(100);
    const result = await run.safe();
    expect(result.error).toMatchObject({ kind: 'timeout', phase: 'total', requests: 0 });
    expect(calls).toHaveLength(0);
    const events = (await run.report()).events;
    expect(events.find((event) => event.type === 'store')).toMatchObject({
      operation,
      error: 'the store had not answered when the total deadline passed',
    });
  },
);

describe('user code that throws, and calls that fail on their own', () => {
  const failing = (status: number) => async () => json({ error: 'down' }, status);

  it('a retry predicate that throws does not wedge the run: it settles, without a retry', async () => {
    const fetch = vi.fn(failing(503));
    const engine = createEngine({ fetch: fetch as unknown as typeof globalThis.fetch });
    const read = stitch({
      name: uniqueKey('bad-predicate'),
      url: 'https://api.test/x',
      retry: {
        attempts: 3,
        on: () => {
          throw new Error('bad predicate');
        },
      },
    });
    const result = await read(undefined, { engine }).safe();
    expect(result.error).toMatchObject({ kind: 'http', status: 503 });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('asks a retry predicate once per failure, with that failure', async () => {
    const fetch = vi.fn(failing(503));
    const engine = createEngine({ fetch: fetch as unknown as typeof globalThis.fetch });
    const asked: number[] = [];
    const read = stitch({
      name: uniqueKey('counted-predicate'),
      url: 'https://api.test/x',
      retry: {
        attempts: 3,
        backoff: { base: 0 },
        on: (error) => {
          asked.push(error.attempts);
          return true;
        },
      },
    });
    const result = await read(undefined, { engine }).safe();
    expect(result.error).toMatchObject({ kind: 'http', status: 503, attempts: 3, retryable: true });
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(asked).toEqual([1, 2, 3]);
  });

  it('a validator that throws is invalid: not retried, not counted by the breaker', async () => {
    const fetch = vi.fn(async () => json({ id: 1 }));
    const engine = createEngine({ fetch: fetch as unknown as typeof globalThis.fetch });
    const buggy = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: () => {
          throw new Error('validator bug');
        },
      },
    };
    const read = stitch({
      name: uniqueKey('buggy-schema'),
      url: 'https://api.test/x',
      output: buggy,
      circuit: { failures: 1 },
    });
    const result = await read(undefined, { engine }).safe();
    expect(result.error).toMatchObject({ kind: 'invalid', requests: 1, ambiguous: false });
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(await engine.circuitState('https://api.test')).toMatchObject({ state: 'closed', failures: 0 });
  });

  it("when a call's own failures open the breaker, it reports the vendor's answer, not circuit-open", async () => {
    const engine = createEngine({ fetch: failing(503) as unknown as typeof globalThis.fetch });
    const read = stitch({
      name: uniqueKey('self-opened'),
      url: 'https://api.test/x',
      retry: { attempts: 3, backoff: { base: 0 } },
      circuit: { failures: 2 },
    });
    const result = await read(undefined, { engine }).safe();
    expect(result.error).toMatchObject({ kind: 'http', status: 503, requests: 2 });
  });

  it("a retry the throttle gives up on (maxWait) reports the vendor's answer, not the wait for a slot", async () => {
    const clock = createManualClock();
    let calls = 0;
    let secondSent = () => {};
    const sent = new Promise<void>((resolve) => {
      secondSent = resolve;
    });
    let answerSecond = () => {};
    const fetch = async () => {
      calls += 1;
      if (calls === 1) return json({ error: 'down' }, 503);
      secondSent();
      await new Promise<void>((resolve) => {
        answerSecond = resolve;
      });
      return json({ ok: true });
    };
    const engine = createEngine({ fetch, clock });
    const read = stitch({
      name: uniqueKey('throttled-retry'),
      url: 'https://api.test/x',
      retry: { attempts: 3, backoff: { base: 100, jitter: 'none' } },
      throttle: { concurrency: 1, maxWait: 50 },
      circuit: false,
    });
    const first = read({ query: { q: 'a' } }, { engine });
    await clock.untilPending();
    // Another call takes the one slot while the first sleeps before its retry.
    const other = read({ query: { q: 'b' } }, { engine });
    await sent;
    // Retried at 100 ms, given up on at 150; retried again at 350, given up on at 400.
    await clock.advance(400);
    expect(await rejection(first)).toMatchObject({ kind: 'http', status: 503, requests: 1 });
    // Its trace still says what each retry met: the second, a wait for a slot, not another 503.
    const retries = (await first.report()).events.filter((event) => event.type === 'retry');
    expect(retries.map((event) => event.error.kind)).toEqual(['http', 'rate-limited']);
    answerSecond();
    await expect(other).resolves.toEqual({ ok: true });
  });

  it('once its own failures open the breaker, it retries no more: no backoff against an open breaker', async () => {
    const clock = createManualClock();
    const engine = createEngine({ fetch: failing(503) as unknown as typeof globalThis.fetch, clock });
    const onRetry = vi.fn();
    const read = stitch({
      name: uniqueKey('self-opened-slow'),
      url: 'https://api.test/x',
      retry: { attempts: 5, backoff: { base: 1_000, factor: 1, jitter: 'none' } },
      circuit: { failures: 2 },
      hooks: { onRetry },
    });
    const run = read(undefined, { engine });
    await clock.untilPending();
    await clock.advance(1_000);
    // The second failure opened the breaker, and that was the end: no retry announced or waited.
    const report = await run.report();
    expect(report).toMatchObject({ outcome: 'error', requests: 2, error: { kind: 'http', status: 503 } });
    const types = eventTypes(report.events);
    expect(types.filter((type) => type === 'retry')).toHaveLength(1);
    expect(types.slice(types.lastIndexOf('circuit'))).not.toContain('retry');
    expect(onRetry).toHaveBeenCalledTimes(1);
    expect(clock.pending()).toBe(0);
    expect(clock.now() - (report.events[0]?.at ?? 0)).toBe(1_000);
  });

  it('data that arrives after the last caller left is not cached', async () => {
    const memory = createMemoryStore();
    let gets = 0;
    let reached: () => void = () => {};
    const reachedRecord = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A windowed breaker reads the store once to admit and once to record a success: hold the record.
    const store: Store = {
      ...memory,
      get: async (key) => {
        gets += 1;
        if (gets === 2) {
          reached();
          await gate;
        }
        return memory.get(key);
      },
    };
    const engine = createEngine({ fetch: async () => json({ fresh: true }), store });
    const read = stitch({
      name: uniqueKey('late-data'),
      url: 'https://api.test/x',
      cache: { ttl: 60_000 },
      circuit: { window: {} },
    });
    const leaving = new AbortController();
    const run = read(undefined, { engine, signal: leaving.signal });
    await reachedRecord;
    leaving.abort(new Error('left'));
    await run.safe();
    const key = engine.keyOf(read, undefined) as string;
    // The execution is still held at its record, unsettled; but nobody reads for it any more,
    // so the key is no longer fetching.
    expect(engine.getSnapshot(key).fetching).toBe(false);
    const changes: unknown[] = [];
    engine.subscribe(key, () => changes.push(engine.getSnapshot(key)));
    release();
    // Its store read resolves on a promise: past the microtasks after it, it has settled.
    await flush();
    expect(engine.getSnapshot(key)).toMatchObject({ data: undefined, fetching: false });
    expect(changes).toEqual([]);
  });

  it('writes with coalesce on never share a request for bodies a key cannot describe', async () => {
    const { fetch, calls } = stubFetch();
    const engine = createEngine({ fetch });
    const upload = stitch({
      name: uniqueKey('upload'),
      method: 'POST',
      url: 'https://api.test/u',
      coalesce: true,
    });
    const first = new FormData();
    first.set('file', 'A');
    const second = new FormData();
    second.set('file', 'B');
    await Promise.all([upload({ body: first }, { engine }), upload({ body: second }, { engine })]);
    expect(calls).toHaveLength(2);
    await Promise.all([upload({ body: { n: 1 } }, { engine }), upload({ body: { n: 1 } }, { engine })]);
    expect(calls).toHaveLength(3);
  });
});

it('an attempt that sends nothing hands back its rate token with its slot', async () => {
  const clock = createManualClock();
  const engine = createEngine({ fetch: async () => json({ error: 'down' }, 503), clock });
  const read = stitch({
    name: uniqueKey('refund'),
    url: 'https://api.test/x',
    retry: false,
    circuit: { failures: 1, cooldown: 60_000 },
    throttle: { rate: '1/s', maxWait: 0 },
  });
  expect((await read(undefined, { engine }).safe()).error?.kind).toBe('http');
  clock.schedule(1_000, () => {});
  await clock.advance(1_000);
  // Both are refused by the open breaker; neither spends the one token the window holds.
  expect((await read(undefined, { engine }).safe()).error?.kind).toBe('circuit-open');
  expect((await read(undefined, { engine }).safe()).error?.kind).toBe('circuit-open');
});
