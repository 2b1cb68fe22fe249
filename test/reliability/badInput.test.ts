/**
 * Issue 12, item 2: bad input ends as a `StitchError` of kind `config` naming the field, with
 * nothing sent and nothing counted (the breaker below opens on one failure, so any counted
 * attempt would show). A call never throws synchronously: it returns a run that rejects. A
 * `ReadableStream` body is supported: sent once with `duplex: 'half'`, never retried.
 * Generated hostile inputs: `badInput.property.test.ts`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  createEngine,
  type Engine,
  type StitchConfig,
  type StitchInput,
  type StitchRun,
  stitch,
} from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { type ChargeInput, chargeStitch } from '../helpers/payments';
import { eventTypes, rejection, startScenario } from '../helpers/runs';
import type { Vendor } from '../helpers/vendor';

/** A charge's body, for the writes below. */
const order: ChargeInput['body'] = { orderId: 'order-42', amount: 1 };

/** A write that would retry (it carries a key) and a breaker that opens on one failure. */
function charge(vendor: Vendor) {
  return stitch({
    name: uniqueKey('charge'),
    method: 'POST',
    url: vendor.url('/charges/{id}'),
    idempotency: true,
    retry: { attempts: 3, backoff: { base: 0 }, budget: false },
    circuit: { failures: 1 },
  });
}

/** Calls without letting a synchronous throw escape the test's own expectations. */
function callSafely(call: () => StitchRun<unknown>): StitchRun<unknown> {
  let run: StitchRun<unknown> | undefined;
  expect(() => {
    run = call();
  }).not.toThrow();
  return run as StitchRun<unknown>;
}

/** The run rejected as `config` naming `field`, with nothing sent, nothing counted. */
async function expectRefused(
  run: StitchRun<unknown>,
  vendor: Vendor,
  engine: Engine,
  field: string | RegExp,
) {
  const error = await rejection(run);
  expect(error).toMatchObject({
    kind: 'config',
    requests: 0,
    attempts: 0,
    dispatched: false,
    retryable: false,
  });
  expect(error.field).toMatch(field);
  expect(vendor.requests()).toBe(0);
  expect(await engine.circuitState(vendor.origin)).toEqual({ state: 'closed', failures: 0 });
  expect((await run.report()).requests).toBe(0);
  return error;
}

describe('bad input is a config error: nothing sent, nothing counted', () => {
  it.each(['key\r\nx-injected: 1', 'key\nx', 'key\0x', 'key\x1bx', 'key\x7f', ' padded '])(
    'an idempotency key %j',
    async (key) => {
      const { vendor, engine } = await startScenario();
      const run = callSafely(() => charge(vendor)({ params: { id: 1 } }, { engine, idempotencyKey: key }));
      await expectRefused(run, vendor, engine, 'idempotencyKey');
    },
  );

  it('a keyOf that gives a key with CR/LF, or no string at all', async () => {
    const { vendor, engine } = await startScenario();
    for (const key of ['a\r\nb', 42]) {
      const keyed = stitch({
        name: uniqueKey('keyed'),
        method: 'POST',
        url: vendor.url('/k'),
        idempotency: { keyOf: () => key as string },
        circuit: { failures: 1 },
      });
      await expectRefused(keyed({}, { engine }), vendor, engine, 'idempotency.keyOf');
    }
  });

  it.each([undefined, null])('a header value %s says so, naming the header', async (value) => {
    const { vendor, engine } = await startScenario();
    const headers = { 'x-trace': value } as unknown as Record<string, string>;
    const run = callSafely(() => charge(vendor)({ params: { id: 1 }, headers }, { engine }));
    const error = await expectRefused(run, vendor, engine, 'headers.x-trace');
    expect(error.message).toContain(`is ${value}: leave the header out`);
  });

  it.each(['a\r\nx-injected: 1', 'a\nb', 'a\0b', 'a\x01b', 'a\x1b[0m', 'a\x7f'])(
    'a header value %j',
    async (value) => {
      const { vendor, engine } = await startScenario();
      const run = callSafely(() =>
        charge(vendor)({ params: { id: 1 }, headers: { 'x-note': value } }, { engine }),
      );
      await expectRefused(run, vendor, engine, 'headers.x-note');
    },
  );

  it('a param that is a lone surrogate is refused naming it', async () => {
    const { vendor, engine } = await startScenario();
    const run = callSafely(() => charge(vendor)({ params: { id: '\uD800' } }, { engine }));
    await expectRefused(run, vendor, engine, 'params.id');
  });

  it('a param that makes the URL invalid (a space in the host) is refused, its error quoting no secret', async () => {
    const { vendor, engine } = await startScenario();
    const tenant = stitch({
      name: uniqueKey('tenant'),
      url: 'http://{tenant}.localhost/items?api_key=SECRET_TEMPLATE_KEY',
      circuit: { failures: 1 },
    });
    const run = callSafely(() => tenant({ params: { tenant: 'acme corp' } }, { engine }));
    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'config', field: 'params', requests: 0 });
    expect(error.cause).toBeUndefined();
    expect(JSON.stringify(await run.report())).not.toContain('SECRET_TEMPLATE_KEY');
    expect(vendor.requests()).toBe(0);
  });

  it('a cyclic query or params rejects (no RangeError thrown out of the call)', async () => {
    const { vendor, engine } = await startScenario();
    const query: Record<string, unknown> = { q: 'x' };
    query.self = query;
    const params: Record<string, unknown> = { id: 1 };
    params.self = params;
    await expectRefused(
      callSafely(() => charge(vendor)({ params: { id: 1 }, query } as StitchInput, { engine })),
      vendor,
      engine,
      'query.self',
    );
    await expectRefused(
      callSafely(() => charge(vendor)({ params } as StitchInput, { engine })),
      vendor,
      engine,
      'params.self',
    );
  });

  it.each<[string, unknown]>([
    ['an object', { a: 1 }],
    ['a function', () => 'source code'],
    ['a symbol', Symbol('s')],
    ['NaN', Number.NaN],
    ['a list holding an object', ['a', { b: 1 }]],
  ])('a query value that is %s', async (_label, value) => {
    const { vendor, engine } = await startScenario();
    const run = callSafely(() =>
      charge(vendor)({ params: { id: 1 }, query: { q: value } } as StitchInput, { engine }),
    );
    await expectRefused(run, vendor, engine, 'query.q');
  });

  it.each<[string, string, Record<string, unknown>]>([
    ['a misspelt field', 'qurey', { qurey: { q: 'ada' } }],
    ["axios's name for the body", 'data', { data: { amount: 5 } }],
    ['a call option put in the input', 'signal', { signal: new AbortController().signal }],
  ])('an input with %s names it; one given as undefined is left out', async (_label, field, extra) => {
    const { vendor, engine } = await startScenario();
    const run = callSafely(() => charge(vendor)({ params: { id: 1 }, ...extra } as StitchInput, { engine }));
    await expectRefused(run, vendor, engine, field);
    expect((await rejection(run)).message).toContain('is not an input field (params, query, body, headers)');
    const none = { params: { id: 1 }, [field]: undefined } as StitchInput;
    await expect(charge(vendor)(none, { engine })).resolves.toMatchObject({ path: '/charges/1' });
  });

  it('an input with a misspelt field is refused beside a cached or in-flight read of the input without it', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const search = stitch({ name: uniqueKey('search'), url: vendor.url('/search'), cache: { ttl: 60_000 } });
    const misspelt = { qurey: { q: 'ada' } } as StitchInput;
    const inFlight = search({}, { engine });
    await vendor.arrival(1);
    expect(await rejection(search(misspelt, { engine }))).toMatchObject({ kind: 'config', field: 'qurey' });
    vendor.release(1);
    await inFlight;
    expect(await rejection(search(misspelt, { engine }))).toMatchObject({ kind: 'config', field: 'qurey' });
    expect(vendor.requests()).toBe(1);
  });

  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  it.each<[string, unknown]>([
    ['a Map', new Map([['a', 1]])],
    ['a Set', new Set([1])],
    ['a function', () => 1],
    ['a symbol', Symbol('s')],
    ['a Map inside an object', { nested: { map: new Map() } }],
    ['a function inside a list', [1, () => 1]],
    ['a bigint', { n: 10n }],
    ['Infinity', { n: Number.POSITIVE_INFINITY }],
    ['a cycle', cyclic],
    // What JSON would send as {} (or a forgotten await): nothing the caller meant.
    ['a Promise', Promise.resolve({ amount: 5 })],
    ['an Error', new TypeError('bad')],
    ['a RegExp inside an object', { pattern: /ab+c/ }],
    ['a Response', new Response('{}')],
    // Sendable alone, but lost inside JSON: an upload whose file never arrives.
    ['a File inside an object', { name: 'ada', avatar: new File(['png'], 'ada.png') }],
    ['a Blob inside a list', [new Blob(['x'])]],
    ['an ArrayBuffer inside an object', { bytes: new ArrayBuffer(4) }],
    ['a FormData inside an object', { form: new FormData() }],
    ['URLSearchParams inside an object', { params: new URLSearchParams('a=1') }],
    ['a ReadableStream inside an object', { stream: new ReadableStream() }],
    ['a SharedArrayBuffer', new SharedArrayBuffer(4)],
  ])('a body that is %s', async (_label, body) => {
    const { vendor, engine } = await startScenario();
    const run = callSafely(() => charge(vendor)({ params: { id: 1 }, body }, { engine }));
    await expectRefused(run, vendor, engine, 'body');
  });

  it.each<[string, unknown]>([
    ['a signal that is not an AbortSignal', { signal: { aborted: false } }],
    ['a revalidate that is not a boolean', { revalidate: 'yes' }],
  ])('%s', async (_label, options) => {
    const { vendor, engine } = await startScenario();
    const run = callSafely(() =>
      charge(vendor)({ params: { id: 1 } }, { ...(options as object), engine } as never),
    );
    await expectRefused(run, vendor, engine, /^(signal|revalidate)$/);
  });

  it('an engine option that is not an engine, or an input whose getter throws: a run that rejects', async () => {
    const { vendor, engine } = await startScenario();
    const read = charge(vendor);
    const notAnEngine = callSafely(() => read({ params: { id: 1 } }, { engine: {} as Engine }));
    expect(await rejection(notAnEngine)).toMatchObject({ kind: 'config', field: 'engine' });
    // Nor is null: only an engine left out means the process's default one.
    const nullEngine = callSafely(() => read({ params: { id: 1 } }, { engine: null as unknown as Engine }));
    expect(await rejection(nullEngine)).toMatchObject({ kind: 'config', field: 'engine' });
    const hostile = Object.defineProperty({}, 'params', {
      get() {
        throw new Error('getter says no');
      },
    });
    const run = callSafely(() => read(hostile, { engine }));
    expect(await rejection(run)).toMatchObject({ kind: 'config', requests: 0 });
    expect(vendor.requests()).toBe(0);
    // Each is a run like any other: its events run from a start to done, under ids of their own.
    for (const refused of [notAnEngine, run]) {
      expect(eventTypes((await refused.report()).events)).toEqual(['start', 'error', 'done']);
    }
    expect(notAnEngine.id).not.toBe(
      callSafely(() => read({ params: { id: 1 } }, { engine: {} as Engine })).id,
    );
  });

  it.each(['signal', 'engine', 'idempotencyTtl', 'revalidate'])(
    'a call option whose getter throws (%s): a config error naming that option, with the throw as cause',
    async (option) => {
      const { vendor, engine } = await startScenario();
      const thrown = new Error('getter says no');
      const options = Object.defineProperty(option === 'engine' ? {} : { engine }, option, {
        enumerable: true,
        get() {
          throw thrown;
        },
      });
      const run = callSafely(() => charge(vendor)({ params: { id: 1 } }, options as never));
      expect(await rejection(run)).toMatchObject({
        kind: 'config',
        field: option,
        cause: thrown,
        requests: 0,
      });
      expect(vendor.requests()).toBe(0);
    },
  );

  it('a function of the stitch that throws (cache.scope, idempotency.keyOf): a config error naming it', async () => {
    const { vendor, engine } = await startScenario();
    const thrown = new Error('no principal');
    const scoped = stitch({
      name: uniqueKey('scoped'),
      url: vendor.url('/scoped'),
      cache: {
        ttl: 1_000,
        scope: () => {
          throw thrown;
        },
      },
    });
    const keyed = stitch({
      name: uniqueKey('keyed'),
      method: 'POST',
      url: vendor.url('/keyed'),
      idempotency: {
        keyOf: () => {
          throw thrown;
        },
      },
    });
    for (const [run, field] of [
      [scoped(undefined, { engine }), 'cache.scope'],
      [keyed({ body: {} }, { engine }), 'idempotency.keyOf'],
    ] as const) {
      const error = await rejection(run);
      expect(error).toMatchObject({ kind: 'config', field, requests: 0 });
      expect(error.cause).toBe(thrown);
    }
    expect(vendor.requests()).toBe(0);
  });

  it('a cache.scope that gives no string (a promise of the principal) is a config error: users are never keyed alike', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { id: 1 } }) });
    const scoped = stitch({
      name: uniqueKey('async-scope'),
      url: vendor.url('/account'),
      cache: { ttl: 60_000, scope: (async () => 'alice') as never },
    });
    for (let i = 0; i < 2; i++) {
      const error = await rejection(scoped(undefined, { engine }));
      expect(error).toMatchObject({ kind: 'config', field: 'cache.scope', requests: 0 });
    }
    expect(vendor.requests()).toBe(0);
  });

  it('a validator that returns no result: kind invalid saying so, nothing sent; not a network failure', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { id: 1 } }) });
    const broken = {
      '~standard': { version: 1 as const, vendor: 'hand', validate: () => undefined as never },
    };
    const checked = stitch({ name: uniqueKey('checked'), url: vendor.url('/in'), input: broken });
    const refused = await rejection(checked({}, { engine }));
    expect(refused).toMatchObject({ kind: 'invalid', requests: 0 });
    expect(refused.message).toContain('returned undefined, not a result');
    expect(vendor.requests()).toBe(0);

    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/out'), output: broken, retry: false });
    const invalid = await rejection(read(undefined, { engine }));
    expect(invalid).toMatchObject({ kind: 'invalid', requests: 1 });
    expect(invalid.message).toContain('returned undefined, not a result');
  });

  it('an output validator that gives undefined: kind invalid (undefined is no data to the cache), nothing stored', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { id: 1 } }) });
    const discards = {
      '~standard': { version: 1 as const, vendor: 'hand', validate: () => ({ value: undefined }) },
    };
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/out'), output: discards, retry: false });
    const invalid = await rejection(read(undefined, { engine }));
    expect(invalid).toMatchObject({ kind: 'invalid', requests: 1 });
    expect(invalid.message).toContain('gave undefined, which means no data (give null for nothing)');
    expect(engine.getSnapshot(engine.keyOf(read, undefined) ?? '')).toMatchObject({
      data: undefined,
      fetching: false,
    });
  });
});

it('a body of another realm (a vm context) is sent as the body type it is, not refused as JSON', async () => {
  const { vendor, engine } = await startScenario();
  const upload = stitch({ name: uniqueKey('upload'), method: 'PUT', url: vendor.url('/files/1') });
  const bytes = runInNewContext('new Uint8Array([104, 105]).buffer') as ArrayBuffer;
  expect(bytes instanceof ArrayBuffer).toBe(false);
  await upload({ body: bytes }, { engine });
  expect(vendor.ledger.map((entry) => entry.body)).toEqual(['hi']);
});

/** Starts `server` on 127.0.0.1, closed when the test finishes; its origin. */
async function serve(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A body of 16 KiB chunks, endless until `over()`; from then on it ends after 200 more reads, so
 * a send that goes on pulling it fails its test rather than spin forever. `end` is the reason the
 * stream was cancelled with, or `'read to its end'`.
 */
function endlessUntil(over: () => boolean) {
  let readsAfter = 0;
  let ended!: (how: unknown) => void;
  const end = new Promise((resolve) => {
    ended = resolve;
  });
  const body = new ReadableStream<Uint8Array>({
    pull(stream) {
      if (over() && ++readsAfter > 200) {
        stream.close();
        ended('read to its end');
      } else stream.enqueue(new Uint8Array(16_384));
    },
    cancel: (reason) => ended(reason),
  });
  return { body, end };
}

describe('a ReadableStream body', () => {
  const streamOf = (...chunks: string[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });

  /** A PUT of a body to the vendor's `/f`, with `options` besides. */
  const putter = (vendor: Vendor, options: Partial<StitchConfig> = {}) =>
    stitch({ name: uniqueKey('upload'), method: 'PUT', url: vendor.url('/f'), ...options });

  it('is sent once, in full, and never retried even with a key (it cannot be replayed)', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script({ status: 503, body: { down: true } });
    const upload = stitch({
      name: uniqueKey('upload'),
      method: 'PUT',
      url: vendor.url('/files/1'),
      idempotency: true,
      retry: { attempts: 3, backoff: { base: 0 } },
      circuit: { failures: 5 },
    });
    const error = await rejection(upload({ body: streamOf('chunk-1,', 'chunk-2') }, { engine }));
    expect(error).toMatchObject({ kind: 'http', status: 503, attempts: 1, requests: 1 });
    expect(vendor.ledger.map((e) => e.body)).toEqual(['chunk-1,chunk-2']);

    expect(await upload({ body: streamOf('again') }, { engine })).toEqual({ path: '/files/1', query: {} });
    expect(vendor.ledger[1]?.body).toBe('again');
  });

  it('a 307 of a stream body is refused (it cannot be sent twice), a 303 is followed without it', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script(
      { status: 307, headers: { location: '/again' }, body: '' },
      { status: 303, headers: { location: '/done' }, body: '' },
    );
    const upload = putter(vendor);
    const error = await rejection(upload({ body: streamOf('once') }, { engine }));
    expect(error).toMatchObject({ kind: 'http', status: 307, requests: 1, retryable: false });
    expect(await upload({ body: streamOf('twice') }, { engine })).toEqual({ path: '/done', query: {} });
    expect(vendor.ledger.map((e) => [e.method, e.path, e.body])).toEqual([
      ['PUT', '/f', 'once'],
      ['PUT', '/f', 'twice'],
      ['GET', '/done', ''],
    ]);
  });

  it.each<[string, () => ReadableStream]>([
    [
      'whose read fails midway',
      () => {
        let pulls = 0;
        return new ReadableStream({
          pull(controller) {
            pulls += 1;
            if (pulls === 1) controller.enqueue(new TextEncoder().encode('part of it,'));
            else controller.error(new Error('disk read failed'));
          },
        });
      },
    ],
    ['that gives a chunk that is not bytes', () => new ReadableStream({ pull: (c) => c.enqueue('text') })],
  ])(
    'one %s is the caller’s fault, not the vendor’s: config, naming body, never retried nor counted by the breaker',
    async (_, make) => {
      const { vendor, engine } = await startScenario();
      const upload = putter(vendor, {
        retry: { attempts: 3, backoff: { base: 0 } },
        circuit: { failures: 1, cooldown: 60_000 },
      });
      const error = await rejection(upload({ body: make() }, { engine }));
      expect(error).toMatchObject({ kind: 'config', field: 'body', attempts: 1, retryable: false });
      expect(error.message).toContain('the request body stream failed');
      expect(error.cause).toBeInstanceOf(Error);
      // The breaker (one failure opens it) heard nothing against the vendor: the next call goes out.
      expect(await upload({ body: streamOf('whole') }, { engine })).toEqual({ path: '/f', query: {} });
      expect(vendor.ledger.at(-1)?.body).toBe('whole');
    },
  );

  it('a request never sent leaves its stream as it was: unlocked, unread, to send again', async () => {
    const { vendor, engine } = await startScenario();
    const upload = putter(vendor, { throttle: { concurrency: 1, maxWait: 0 } });
    vendor.script('hold');
    const first = upload({ body: streamOf('first') }, { engine });
    await vendor.arrival(1);
    const body = streamOf('kept');
    expect((await upload({ body }, { engine }).safe()).error).toMatchObject({
      kind: 'rate-limited',
      requests: 0,
    });
    expect(body.locked).toBe(false);
    vendor.release(1);
    await first;
    await upload({ body }, { engine });
    expect(vendor.ledger.at(-1)?.body).toBe('kept');
  });

  it('an upload the vendor never reads, aborted: the caller’s stream is cancelled with the reason, the socket closed', async () => {
    // A vendor that takes the request and never reads its body nor answers.
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let hungUp!: () => void;
    const hangUp = new Promise<void>((resolve) => {
      hungUp = resolve;
    });
    let taken: IncomingMessage | undefined;
    const server = createServer((request) => {
      taken = request;
      request.socket.on('close', hungUp);
      arrived();
    });
    const origin = await serve(server);
    const controller = new AbortController();
    const { body, end } = endlessUntil(() => controller.signal.aborted);
    const upload = stitch({ name: uniqueKey('upload'), method: 'PUT', url: `${origin}/f` });
    const run = upload({ body }, { engine: createEngine(), signal: controller.signal });
    await arrival;
    const reason = new Error('the user closed the dialog');
    controller.abort(reason);
    expect(await rejection(run)).toMatchObject({ kind: 'aborted', cause: reason });
    expect(await end).toBe(reason);
    // The vendor reads again (a paused socket hears no hang-up) and finds the socket closed.
    taken?.resume();
    await hangUp;
  });

  it.each([
    ['a 303 to a GET', 303],
    ['a long error page', 413],
  ] as const)(
    'an upload the vendor answers without reading (%s): the caller’s stream is let go, the call settles',
    async (_, status) => {
      let answered = false;
      const server = createServer((request, response) => {
        if (request.method === 'GET') response.end(JSON.stringify({ done: true }));
        else if (status === 303) response.writeHead(303, { location: '/done' }).end();
        else response.writeHead(413, { 'content-type': 'text/html' }).end('Too large. '.repeat(10_000));
        answered = true;
      });
      const origin = await serve(server);
      const { body, end } = endlessUntil(() => answered);
      const upload = stitch({
        name: uniqueKey('upload'),
        method: 'POST',
        url: `${origin}/f`,
        retry: false,
      });
      const result = await upload({ body }, { engine: createEngine() }).safe();
      expect(result.ok ? result.data : result.error.status).toEqual(status === 303 ? { done: true } : 413);
      expect(await end).toBeInstanceOf(DOMException);
    },
  );

  it('a stream already read or locked is refused as config', async () => {
    const { vendor, engine } = await startScenario();
    const stream = streamOf('x');
    stream.getReader();
    const upload = putter(vendor, { circuit: { failures: 1 } });
    await expectRefused(upload({ body: stream }, { engine }), vendor, engine, 'body');
  });
});

describe('the idempotency key’s header set by hand', () => {
  it('in a call’s input headers is refused, naming it, nothing sent: the engine would replace it', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { ok: true } }) });
    const run = chargeStitch(vendor)({ body: order, headers: { 'idempotency-key': 'order-42' } }, { engine });
    await expectRefused(run, vendor, engine, 'headers.idempotency-key');
    expect((await rejection(run)).message).toContain('idempotencyKey');
  });

  it('beside a caller’s own key on a stitch without idempotency (input or stitch headers) is refused too', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { ok: true } }) });
    const byInput = chargeStitch(vendor, false)(
      { body: order, headers: { 'Idempotency-Key': 'mine' } },
      { engine, idempotencyKey: 'k' },
    );
    await expectRefused(byInput, vendor, engine, 'headers.Idempotency-Key');
    const headed = chargeStitch(vendor, false, { headers: { 'Idempotency-Key': 'stitch' } });
    await expectRefused(
      headed({ body: order }, { engine, idempotencyKey: 'k' }),
      vendor,
      engine,
      /idempotency-key/i,
    );
    // Without a key of the caller's, the stitch's header is its own business: sent as it is.
    await expect(headed({ body: order }, { engine })).resolves.toEqual({ ok: true });
    expect(vendor.ledger[0]?.headers['idempotency-key']).toBe('stitch');
  });

  it('set by the engine’s headers hook or onRequest does not replace the call’s key, on any attempt', async () => {
    let answered = 0;
    const { vendor } = await startScenario({
      respond: () => (answered++ === 0 ? { status: 503, body: {} } : { body: { ok: true } }),
    });
    const engine = createEngine({ headers: ({ attempt }) => ({ 'Idempotency-Key': `hook-${attempt}` }) });
    const seen: Array<string | null> = [];
    const charge = chargeStitch(vendor, true, {
      retry: { attempts: 2, backoff: { base: 0 } },
      hooks: {
        onRequest: ({ headers }) => {
          // It sees the headers as they leave (a signer signs the key that is sent), then meddles.
          seen.push(headers.get('idempotency-key'));
          headers.set('idempotency-key', 'on-request');
        },
      },
    });
    await expect(charge({ body: order }, { engine, idempotencyKey: 'order-42' })).resolves.toEqual({
      ok: true,
    });
    expect(vendor.ledger.map((entry) => entry.headers['idempotency-key'])).toEqual(['order-42', 'order-42']);
    expect(seen).toEqual(['order-42', 'order-42']);
  });

  it('in a stitch’s headers is refused when it is defined, naming it (a custom header too)', () => {
    const define = (idempotency: true | { header: string }, headers: Record<string, string>) => () =>
      stitch({ name: uniqueKey('charge'), method: 'POST', url: 'https://api.test/c', idempotency, headers });
    expect(define(true, { 'Idempotency-Key': 'x' })).toThrow(
      expect.objectContaining({ kind: 'config', field: 'headers.Idempotency-Key' }),
    );
    expect(define({ header: 'X-Request-Id' }, { 'x-request-id': 'x' })).toThrow(
      expect.objectContaining({ kind: 'config', field: 'headers.x-request-id' }),
    );
    expect(define(true, { 'X-Request-Id': 'x' })).not.toThrow();
  });
});

describe('a request fetch refuses before sending it', () => {
  it('is a config error naming fetch: nothing counted as sent, not retried, not a breaker failure', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { ok: true } }) });
    const charge = chargeStitch(vendor, true, { circuit: { failures: 1 } });
    // Node's fetch will not send an Expect header, and says so only as it sends.
    const run = charge({ body: order, headers: { expect: '100-continue' } }, { engine });
    const error = await rejection(run);
    expect(error).toMatchObject({
      kind: 'config',
      field: 'fetch',
      attempts: 1,
      requests: 0,
      dispatched: false,
      ambiguous: false,
      retryable: false,
    });
    expect(error.cause).toBeInstanceOf(Error);
    expect(await engine.circuitState(vendor.origin)).toEqual({ state: 'closed', failures: 0 });
    // The same write without the header goes through: the breaker never opened.
    await expect(charge({ body: order }, { engine })).resolves.toEqual({ ok: true });
    expect(vendor.requests()).toBe(1);
  });

  it('a port fetch will not connect to (6000) is that config error: nothing sent, not retried, no breaker failure', async () => {
    const { engine } = await startScenario();
    const circuit = { key: uniqueKey('x11'), failures: 1 };
    const read = stitch({ name: uniqueKey('x11'), url: 'http://127.0.0.1:6000/x', retry: 3, circuit });
    const error = await rejection(read(undefined, { engine }));
    expect(error).toMatchObject({
      kind: 'config',
      field: 'fetch',
      attempts: 1,
      requests: 0,
      ambiguous: false,
    });
    expect(await engine.circuitState(circuit.key)).toEqual({ state: 'closed', failures: 0 });
  });

  it('with no fetch on the platform, every call is that config error, saying how to give one', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { ok: true } }) });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/x') });
    vi.stubGlobal('fetch', undefined);
    onTestFinished(() => void vi.unstubAllGlobals());
    const error = await rejection(read(undefined, { engine }));
    expect(error).toMatchObject({ kind: 'config', field: 'fetch', attempts: 1, requests: 0 });
    expect((error.cause as Error).message).toContain('createEngine({ fetch })');
    expect(vendor.requests()).toBe(0);
  });
});
