/**
 * `createRedisStore` against a real redis-server, in this process: its failure modes (the server
 * stopped mid-run and back, a slow server), keys that all expire, and a server that forgot the
 * scripts. The multi-process contract is in processes.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createEngine,
  type EngineOptions,
  isStitchError,
  type RunReport,
  stitch,
  type ThrottleOptions,
} from '../../src/index';
import { createRedisStore, type NodeRedisClient, type RedisClient } from '../../src/redis/index';
import { createManualClock, type ManualClock } from '../../src/testing/index';
import { uniqueKey } from '../helpers/keys';
import { chargeStitch } from '../helpers/payments';
import { createVendor, type LedgerEntry, type Reply } from '../helpers/vendor';
import { type ClientKind, connect, ready, serveRedis } from './clients';
import { type LossyProxy, lossyProxy, redisServerPath } from './server';

const redis = serveRedis();
const { send } = redis;

/** An engine on a Redis store of a `kind` client, a fresh prefix and a vendor answering `respond`. */
async function setup(
  kind: ClientKind,
  respond: (entry: LedgerEntry) => Reply,
  engine: Omit<EngineOptions, 'store'> = {},
  url = redis.server.url,
) {
  const vendor = await createVendor({ respond });
  const { client, close } = await connect(kind, url);
  const prefix = `t${randomUUID()}:`;
  const store = createRedisStore(client, { prefix });
  const read = stitch({
    name: 'read',
    url: vendor.url('/read'),
    retry: 1,
    coalesce: false,
    circuit: { key: 'vendor', failures: 2 },
  });
  return {
    vendor,
    client,
    prefix,
    read,
    engine: createEngine({ ...engine, store }),
    [Symbol.asyncDispose]: async () => {
      await close();
      await vendor.close();
    },
  };
}

const ok: Reply = { status: 200, body: { ok: true } };

/**
 * Two round trips on `client`'s connection: a command sent before has answered, and what its
 * answer set off (a give-back, a release, a settle) has been sent and run, before the next call.
 */
async function settledOn(client: RedisClient): Promise<void> {
  await (client as NodeRedisClient).sendCommand(['PING']);
  await (client as NodeRedisClient).sendCommand(['PING']);
}

/** The idempotency record Redis holds for the key ending in `key` (its stitch's name before it). */
async function recordOf(prefix: string, key: string): Promise<unknown> {
  const [stored] = (await send(['KEYS', `${prefix}idempotency:*${JSON.stringify(key)}\\]`])) as string[];
  return stored === undefined ? undefined : JSON.parse(String(await send(['GET', stored])));
}

/**
 * A shared slot (concurrency 1, no wait) that `trouble` took with a store trouble around it (a
 * command given up on, an answer lost) is free again afterwards: the next call goes through.
 */
async function slotGivenBack(
  s: Awaited<ReturnType<typeof setup>>,
  name: string,
  trouble: (take: () => Promise<RunReport>) => Promise<RunReport>,
): Promise<void> {
  const pooled = pooledOn(s.vendor, name, { concurrency: 1, maxWait: 0 });
  // The script is known to the server by then, as in a running app: the take is one command.
  await pooled(undefined, { engine: s.engine });
  const report = await trouble(() => pooled(undefined, { engine: s.engine }).report());
  expect(report.events).toContainEqual(expect.objectContaining({ type: 'store', operation: 'concurrency' }));
  await expect(pooled(undefined, { engine: s.engine })).resolves.toEqual({ ok: true });
  expect(s.vendor.requests()).toBe(3);
}

/** The breaker of `setup`'s reads, open with its cooldown over (as far as the server's clock is concerned). */
const cooledDown = (prefix: string) =>
  send(['SET', `${prefix}circuit:vendor`, JSON.stringify({ state: 'open', until: 0 }), 'PX', '60000']);

/**
 * After `first`, a read whose admit met a store trouble, the probe lease that admit may have
 * taken does not hold: the next read probes and closes the breaker.
 */
async function probesAndCloses(
  s: Awaited<ReturnType<typeof setup>>,
  first: { events: readonly { type: string }[] },
): Promise<void> {
  expect(first.events).toContainEqual(expect.objectContaining({ type: 'store', operation: 'circuit' }));
  await expect(s.read(undefined, { engine: s.engine })).resolves.toEqual({ ok: true });
  expect(s.vendor.requests()).toBe(2);
  expect(JSON.parse(String(await send(['GET', `${s.prefix}circuit:vendor`])))).toMatchObject({
    state: 'closed',
  });
}

/** A stitch on the vendor's `/pooled` whose `throttle` shares its concurrency limit across processes. */
const pooledOn = (
  vendor: { url(path: string): string },
  name: string,
  throttle: Omit<ThrottleOptions, 'shared'>,
  timeout?: number,
) =>
  stitch({
    name,
    url: vendor.url('/pooled'),
    coalesce: false,
    circuit: false,
    throttle: { ...throttle, shared: { concurrency: true } },
    timeout,
  });
/** The calls and retries a shared retry budget's key holds, over all its buckets. */
async function budgetCounts(key: string) {
  const fields = (await send(['HKEYS', key])) as string[];
  const counts = (await send(['HVALS', key])) as string[];
  const total = (kind: string) =>
    fields.reduce((sum, field, i) => (field.startsWith(kind) ? sum + Number(counts[i]) : sum), 0);
  return { calls: total('c:'), retries: total('r:') };
}

const storeEvents = async (run: { report(): Promise<{ events: readonly { type: string }[] }> }) =>
  (await run.report()).events.filter((event) => event.type === 'store');

describe.skipIf(!redisServerPath())('createRedisStore', () => {
  describe.each(['redis', 'ioredis'] as const)('with a %s client', (kind) => {
    it('Redis stopped mid-run: calls go ahead with a store event; back: state is shared again', async () => {
      let reply = ok;
      await using s = await setup(kind, () => reply);
      const before = s.read(undefined, { engine: s.engine });
      await expect(before).resolves.toEqual({ ok: true });
      expect(await storeEvents(before)).toEqual([]);

      await redis.server.stop();
      reply = { status: 503, body: {} };
      const during = [s.read(undefined, { engine: s.engine }), s.read(undefined, { engine: s.engine })];
      for (const run of during) {
        expect((await run.safe()).error).toMatchObject({ kind: 'http', status: 503, requests: 1 });
        expect(await storeEvents(run)).toContainEqual(
          expect.objectContaining({ type: 'store', operation: 'circuit', key: 'vendor' }),
        );
      }
      // Failing open counted nothing: two failures did not open a breaker of `failures: 2`.
      expect(s.vendor.requests()).toBe(3);

      const back = ready(s.client);
      await redis.server.start();
      await back;
      for (let n = 0; n < 2; n++) await s.read(undefined, { engine: s.engine }).safe();
      // Both failures were counted in Redis: another engine (another process) sees it open.
      const other = createEngine({ store: createRedisStore(s.client, { prefix: s.prefix }) });
      const refused = await s.read(undefined, { engine: other }).safe();
      expect(refused.error).toMatchObject({ kind: 'circuit-open', requests: 0 });
      expect(s.vendor.requests()).toBe(5);
    });
  });

  it('Redis stopped: a shared rate falls back to this process’s own window, the budget to its own', async () => {
    await using s = await setup('redis', () => ({ status: 503, body: {} }));
    const limited = stitch({
      name: 'limited',
      url: s.vendor.url('/limited'),
      circuit: false,
      retry: { attempts: 2, backoff: { base: 1 } },
      throttle: { rate: '2/min', maxWait: 0 },
    });
    await redis.server.stop();
    try {
      const first = limited(undefined, { engine: s.engine });
      expect((await first.safe()).error).toMatchObject({ kind: 'http', status: 503, requests: 2 });
      const operations = (await storeEvents(first)).map(
        (event) => (event as { operation?: string }).operation,
      );
      expect(operations).toEqual(expect.arrayContaining(['rate', 'budget']));
      // Its own window still holds the rate: two grants a minute, both spent, so no third request.
      const second = await limited(undefined, { engine: s.engine }).safe();
      expect(second.error).toMatchObject({ kind: 'rate-limited', requests: 0 });
      expect(s.vendor.requests()).toBe(2);
    } finally {
      const back = ready(s.client);
      await redis.server.start();
      await back;
    }
  });

  it('Redis stopped: a shared concurrency limit falls back to this process’s own, with a store event', async () => {
    await using s = await setup('redis', () => 'hold');
    const pooled = pooledOn(s.vendor, 'pooled', { concurrency: 1, maxWait: 0 });
    await redis.server.stop();
    try {
      const first = pooled(undefined, { engine: s.engine });
      await s.vendor.arrival(1);
      // This process's own limit of 1 still holds: no second request while the first is out.
      const second = pooled(undefined, { engine: s.engine });
      expect((await second.safe()).error).toMatchObject({ kind: 'rate-limited', requests: 0 });
      s.vendor.release(1);
      await expect(first).resolves.toEqual({});
      expect(await storeEvents(first)).toEqual([
        expect.objectContaining({ operation: 'concurrency', key: s.vendor.origin }),
      ]);
      expect(s.vendor.requests()).toBe(1);
    } finally {
      const back = ready(s.client);
      await redis.server.start();
      await back;
    }
  });

  it('two engines share a concurrency limit: a waiter goes when the holder ends; maxWait, the deadline and the caller’s signal end a wait', async () => {
    await using s = await setup('ioredis', () => 'hold');
    const other = createEngine({ store: createRedisStore(s.client, { prefix: s.prefix }) });
    const throttle = { key: 'pool', concurrency: 1 };
    const pooled = pooledOn(s.vendor, 'pooled', throttle);
    const impatient = pooledOn(s.vendor, 'impatient', { ...throttle, maxWait: 0 });
    const hurried = pooledOn(s.vendor, 'hurried', throttle, 50);

    const holder = pooled(undefined, { engine: s.engine });
    await s.vendor.arrival(1);
    // The slot is a lease on the server's clock (10 s), so a crashed holder frees it in time.
    const pttl = Number(await send(['PTTL', `${s.prefix}slots:pool`]));
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(10_000);

    expect((await impatient(undefined, { engine: other }).safe()).error).toMatchObject({
      kind: 'rate-limited',
      requests: 0,
    });
    expect((await hurried(undefined, { engine: other }).safe()).error).toMatchObject({
      kind: 'rate-limited',
      message: 'the total deadline passed while waiting for a throttle slot',
      requests: 0,
    });
    const reason = new Error('the user left');
    const controller = new AbortController();
    const leaver = pooled(undefined, { engine: other, signal: controller.signal });
    const waiter = pooled(undefined, { engine: other });
    for await (const event of waiter.stream()) if (event.type === 'queued') break;
    controller.abort(reason);
    expect((await leaver.safe()).error).toMatchObject({ kind: 'aborted', cause: reason, requests: 0 });
    expect(s.vendor.requests()).toBe(1);

    s.vendor.release(1);
    await holder;
    await s.vendor.arrival(2);
    s.vendor.release(2);
    await expect(waiter).resolves.toEqual({});
    expect(await storeEvents(waiter)).toEqual([]);
    // The last release emptied the set, so the key is gone.
    expect(await send(['EXISTS', `${s.prefix}slots:pool`])).toBe(0);
  });

  it('a slot whose lease ended (its process crashed) is free for another', async () => {
    await using s = await setup('redis', () => ({ status: 200, body: {} }));
    const key = `${s.prefix}slots:pool`;
    await send(['ZADD', key, '99999999999999', 'a live holder']);
    const pooled = pooledOn(s.vendor, 'pooled', { key: 'pool', concurrency: 1, maxWait: 0 });
    expect((await pooled(undefined, { engine: s.engine }).safe()).error).toMatchObject({
      kind: 'rate-limited',
    });
    // Its lease ends, as far as the server's clock is concerned: the slot is taken over.
    await send(['ZADD', key, 'XX', '0', 'a live holder']);
    await expect(pooled(undefined, { engine: s.engine })).resolves.toEqual({});
    expect(s.vendor.requests()).toBe(1);
  });

  it('a slow Redis is bounded by storeTimeout, and never stretches the call’s own deadline', async () => {
    await using s = await setup('redis', () => ok, { storeTimeout: 100 });
    const bounded = createEngine({
      store: createRedisStore(s.client, { prefix: s.prefix }),
      storeTimeout: 60_000,
    });
    const deadline = stitch({ name: 'deadline', url: s.vendor.url('/d'), retry: 1, timeout: 150 });
    await send(['CLIENT', 'PAUSE', '3000', 'ALL']);
    try {
      // storeTimeout (100 ms) ends the wait for the breaker: the call goes ahead.
      const run = s.read(undefined, { engine: s.engine });
      await expect(run).resolves.toEqual({ ok: true });
      expect(await storeEvents(run)).toContainEqual(
        expect.objectContaining({ operation: 'circuit', error: 'the store did not answer within 100 ms' }),
      );
      // A 60 s storeTimeout cannot hold a call past its 150 ms total deadline.
      const late = await deadline(undefined, { engine: bounded }).safe();
      expect(late.error).toMatchObject({ kind: 'timeout', phase: 'total', requests: 0 });
    } finally {
      await send(['CLIENT', 'UNPAUSE']);
    }
  });

  it('a total deadline that ends a wait on a slow Redis for a shared rate says, in a store event, the store had not answered; a caller who leaves, or a write that ends the read, does not', async () => {
    // The caller below leaves once its wait has reached the store (the macrotask after it starts).
    let waiting = () => {};
    const trace = {
      handle: (event: { type: string }) => {
        if (event.type === 'start') setImmediate(() => waiting());
      },
    };
    await using s = await setup('redis', () => ok, { storeTimeout: 60_000, trace });
    const rated = stitch({
      name: 'rated',
      url: s.vendor.url('/rated'),
      retry: false,
      circuit: false,
      timeout: 150,
      throttle: { key: 'rated', rate: '5/s' },
    });
    await send(['CLIENT', 'PAUSE', '3000', 'ALL']);
    try {
      const late = rated(undefined, { engine: s.engine });
      expect((await late.safe()).error).toMatchObject({ kind: 'rate-limited', requests: 0 });
      expect(await storeEvents(late)).toEqual([
        expect.objectContaining({
          operation: 'rate',
          error: 'the store had not answered when the total deadline passed',
        }),
      ]);
      const leaving = new AbortController();
      waiting = () => leaving.abort(new Error('left'));
      const left = rated(undefined, { engine: s.engine, signal: leaving.signal });
      expect((await left.safe()).error).toMatchObject({ kind: 'aborted', cause: new Error('left') });
      expect(await storeEvents(left)).toEqual([]);
      // Nor does a write that ends the read (no deadline passed).
      waiting = () => s.engine.setData(rated, undefined, { written: true });
      const overwritten = rated(undefined, { engine: s.engine });
      expect((await overwritten.safe()).error).toMatchObject({ kind: 'aborted' });
      expect(await storeEvents(overwritten)).toEqual([]);
    } finally {
      await send(['CLIENT', 'UNPAUSE']);
    }
    expect(s.vendor.requests()).toBe(0);
  });

  describe('what a command the engine gave up on (storeTimeout) does once Redis answers again', () => {
    /**
     * Runs `call` while Redis is paused, past a 100 ms storeTimeout on a manual clock, then lets
     * Redis go on, and resolves once what the late command set off has reached it.
     */
    async function pastStoreTimeout<T>(
      client: RedisClient,
      clock: ManualClock,
      call: () => Promise<T>,
    ): Promise<T> {
      // WRITE mode holds every script (each operation is one) and lets UNPAUSE through.
      await send(['CLIENT', 'PAUSE', '60000', 'WRITE']);
      let answer: T;
      try {
        const running = call();
        // The store's answer is awaited, bounded: that bound is the clock's first timer.
        await clock.untilPending();
        await clock.advance(100);
        answer = await running;
      } finally {
        await send(['CLIENT', 'UNPAUSE']);
      }
      await settledOn(client);
      return answer;
    }

    it('a shared slot it takes is given back: the next call finds it free', async () => {
      const clock = createManualClock();
      await using s = await setup('redis', () => ok, { storeTimeout: 100, clock });
      await slotGivenBack(s, 'late-slot', (take) => pastStoreTimeout(s.client, clock, take));
    });

    it('a probe lease it takes is released: the next call probes, not refused by a half-open breaker', async () => {
      const clock = createManualClock();
      await using s = await setup('redis', () => ok, { storeTimeout: 100, clock });
      // The cooldown is over, as far as the server's clock is concerned.
      await cooledDown(s.prefix);
      const first = await pastStoreTimeout(s.client, clock, () =>
        s.read(undefined, { engine: s.engine }).report(),
      );
      await probesAndCloses(s, first);
    });

    it('a retry budget count it sends is counted once: not sent again with the next batch', async () => {
      const clock = createManualClock();
      await using s = await setup('redis', () => ok, { storeTimeout: 100, clock });
      const counted = stitch({
        name: 'counted',
        url: s.vendor.url('/counted'),
        circuit: { key: 'counted' },
        retry: { attempts: 2, budget: { window: 10_000 } },
      });
      const ping = () => (s.client as NodeRedisClient).sendCommand(['PING']);
      const countedCalls = async () => (await budgetCounts(`${s.prefix}budget:counted`)).calls;
      // Calls are sent in batches, at most once per tenth of the window.
      await counted(undefined, { engine: s.engine });
      await ping();
      await clock.advance(1_000);
      await pastStoreTimeout(s.client, clock, () => counted(undefined, { engine: s.engine }));
      expect(await countedCalls()).toBe(2);
      await clock.advance(1_000);
      await counted(undefined, { engine: s.engine });
      await ping();
      expect(await countedCalls()).toBe(3);
    });

    it('an idempotency claim it makes is settled: the key replays the answer instead of staying pending', async () => {
      const clock = createManualClock();
      await using s = await setup('redis', () => ({ status: 201, body: { charge: 1 } }), {
        storeTimeout: 100,
        clock,
      });
      const charge = chargeStitch(s.vendor, { keyOf: () => 'order-late' }, { circuit: false });
      const order = { body: { orderId: 'order-late', amount: 1 } };
      const first = await pastStoreTimeout(s.client, clock, () =>
        charge(order, { engine: s.engine }).report(),
      );
      expect(first.events).toContainEqual(
        expect.objectContaining({ type: 'store', operation: 'idempotency' }),
      );
      await expect(charge(order, { engine: s.engine })).resolves.toEqual({ charge: 1 });
      expect(s.vendor.requests()).toBe(1);
    });
  });

  describe('what a command whose answer was lost (the connection dropped after it ran) does once the client is ready again', () => {
    /**
     * Runs `call` while the proxy loses the next answer, then resolves once the client is ready
     * again and what the lost command set off (a give-back, a release, a settle) has reached Redis.
     * node-redis rejects a command whose connection drops; ioredis sends it again by itself.
     */
    async function answerLost<T>(
      client: RedisClient,
      proxy: LossyProxy,
      call: () => Promise<T>,
      what: 'command' | 'answer' = 'answer',
    ): Promise<T> {
      const lost = proxy.loseNext(what);
      // The connection it drops comes back once: its `ready` is awaited from before the drop.
      const back = ready(client);
      const answer = await call();
      await lost;
      await back;
      await settledOn(client);
      return answer;
    }

    async function setupLossy(respond: (entry: LedgerEntry) => Reply) {
      const proxy = await lossyProxy(redis.server.port);
      const s = await setup('redis', respond, {}, proxy.url);
      return {
        ...s,
        proxy,
        [Symbol.asyncDispose]: async () => {
          await s[Symbol.asyncDispose]();
          await proxy.close();
        },
      };
    }

    /**
     * Runs `call` on a vendor that holds it, and has the proxy lose the next command the client
     * sends once the vendor has answered (what the call gives back or settles as it ends), then
     * waits as {@link answerLost} does.
     */
    async function endingLost<T>(
      s: Awaited<ReturnType<typeof setupLossy>>,
      call: () => Promise<T>,
      reply: Exclude<Reply, 'hold'>,
    ): Promise<T> {
      const n = s.vendor.requests() + 1;
      const running = call();
      await s.vendor.arrival(n);
      return answerLost(
        s.client,
        s.proxy,
        async () => {
          s.vendor.release(n, reply);
          return running;
        },
        'command',
      );
    }

    it('a shared slot whose give-back a dropped connection lost is given back again: the next call finds it free', async () => {
      await using s = await setupLossy(() => 'hold');
      const pooled = pooledOn(s.vendor, 'lost-return', { concurrency: 1, maxWait: 0 });
      await endingLost(s, () => pooled(undefined, { engine: s.engine }), ok);
      // Answered as it arrives; a slot still held refuses it at once (maxWait 0).
      void s.vendor.arrival(2).then(() => s.vendor.release(2, ok));
      await expect(pooled(undefined, { engine: s.engine })).resolves.toEqual(ok.body);
    });

    it('an idempotency settle a dropped connection lost is sent again: the key replays the answer', async () => {
      await using s = await setupLossy(() => 'hold');
      const charge = chargeStitch(s.vendor, { keyOf: (input) => input.body.orderId }, { circuit: false });
      const created: Reply = { status: 201, body: { charge: 1 } };
      await endingLost(
        s,
        () => charge({ body: { orderId: 'order-warm', amount: 1 } }, { engine: s.engine }),
        created,
      );
      const order = { body: { orderId: 'order-settled', amount: 1 } };
      await endingLost(s, () => charge(order, { engine: s.engine }), created);
      // Settled in Redis: a claim left pending would hold the re-issue until its lease ends.
      expect(await recordOf(s.prefix, order.body.orderId)).toMatchObject({ state: 'done' });
      await expect(charge(order, { engine: s.engine })).resolves.toEqual({ charge: 1 });
      expect(s.vendor.requests()).toBe(2);
    });

    it('a shared slot it took is given back: the next call finds it free', async () => {
      await using s = await setupLossy(() => ok);
      await slotGivenBack(s, 'lost-slot', (take) => answerLost(s.client, s.proxy, take));
    });

    it('a probe lease it took is released: the next call probes, not refused by a half-open breaker', async () => {
      await using s = await setupLossy(() => ok);
      await cooledDown(s.prefix);
      // The scripts are known to the server, as in a running app: the admit is one command.
      await s.engine.circuitState('vendor');
      const first = await answerLost(s.client, s.proxy, () =>
        s.read(undefined, { engine: s.engine }).report(),
      );
      await probesAndCloses(s, first);
    });

    it('an idempotency claim it made is settled: the key replays the answer instead of staying pending', async () => {
      await using s = await setupLossy(() => ({ status: 201, body: { charge: 1 } }));
      const charge = chargeStitch(s.vendor, { keyOf: (input) => input.body.orderId }, { circuit: false });
      await charge({ body: { orderId: 'order-warm', amount: 1 } }, { engine: s.engine });
      const order = { body: { orderId: 'order-lost', amount: 1 } };
      const first = await answerLost(s.client, s.proxy, () => charge(order, { engine: s.engine }).report());
      expect(first.events).toContainEqual(
        expect.objectContaining({ type: 'store', operation: 'idempotency' }),
      );
      // Settled in Redis: a claim left pending would hold the re-issue until its lease ends.
      expect(await recordOf(s.prefix, order.body.orderId)).toMatchObject({ state: 'done' });
      await expect(charge(order, { engine: s.engine })).resolves.toEqual({ charge: 1 });
      expect(s.vendor.requests()).toBe(2);
    });
  });

  it('every key it writes has a time to live', async () => {
    await using s = await setup('redis', (entry) =>
      entry.path === '/charges' ? ok : { status: 503, body: {} },
    );
    const limited = stitch({
      name: 'limited',
      url: s.vendor.url('/limited'),
      // A window of no whole number of ms: still a key that expires.
      retry: { attempts: 2, backoff: { base: 1 }, budget: { window: 10_000.5 } },
      throttle: { rate: '5/s' },
      circuit: { key: 'limited', window: { minimum: 100 } },
    });
    const write = stitch({
      name: 'write',
      method: 'POST',
      url: s.vendor.url('/charges'),
      circuit: false,
      idempotency: { keyOf: () => 'order-1' },
    });
    await s.read(undefined, { engine: s.engine }).safe();
    await limited(undefined, { engine: s.engine }).safe();
    await write({ body: { orderId: 'order-1', amount: 1 } }, { engine: s.engine }).safe();
    // The rolling window ran in Lua: both failed attempts are in its buckets.
    expect(await s.engine.circuitState('limited')).toMatchObject({
      state: 'closed',
      failures: 2,
      buckets: [expect.objectContaining({ failures: 2, successes: 0 })],
    });
    const keys = (await send(['KEYS', `${s.prefix}*`])) as string[];
    expect(keys.map((key) => key.slice(s.prefix.length).split(':')[0]).sort()).toEqual(
      expect.arrayContaining(['budget', 'circuit', 'idempotency', 'rate']),
    );
    for (const key of keys) expect(Number(await send(['PTTL', key]))).toBeGreaterThan(0);
    // The budget (per breaker key) counted the call and its retry once each.
    const budget = `${s.prefix}budget:limited`;
    expect(await budgetCounts(budget)).toEqual({ calls: 1, retries: 1 });
  });

  it.each<[string, string[]]>([
    ['text that is not JSON', ['SET', 'garbage']],
    ['a number', ['SET', '42']],
    ['open without until', ['SET', '{"state":"open"}']],
    ['open with until null (NaN, as JSON writes it)', ['SET', '{"state":"open","until":null}']],
    ['closed with failures -1', ['SET', '{"state":"closed","failures":-1}']],
    ['half-open with a lease without expiry', ['SET', '{"state":"half-open","lease":{"id":"x"}}']],
    ['closed with buckets that are not', ['SET', '{"state":"closed","failures":0,"buckets":"many"}']],
    ['a list, not a string', ['RPUSH', 'x']],
  ])(
    'a corrupt breaker key (%s): the call goes ahead, a store event says so, the write replaces it',
    async (_label, [command, value]) => {
      await using s = await setup('redis', () => ok);
      const key = `${s.prefix}circuit:vendor`;
      await send([command as string, key, value as string]);
      // A read neither reports nor repairs: circuitState just never hands the garbage out.
      expect(await s.engine.circuitState('vendor')).toEqual({ state: 'closed', failures: 0 });

      const run = s.read(undefined, { engine: s.engine });
      await expect(run).resolves.toEqual({ ok: true });
      expect(s.vendor.requests()).toBe(1);
      const said = await storeEvents(run);
      expect(said).toHaveLength(1);
      expect(said[0]).toMatchObject({
        operation: 'circuit',
        key: 'vendor',
        error: expect.stringContaining('corrupt breaker state'),
      });

      expect(JSON.parse((await send(['GET', key])) as string)).toEqual({ state: 'closed', failures: 0 });
      const next = s.read(undefined, { engine: s.engine });
      await next;
      expect(await storeEvents(next)).toEqual([]);
    },
  );

  it.each([['garbage'], ['{"state":"pending"}'], ['{"state":"done"}'], ['{}']])(
    'a corrupt idempotency record (%s): the keyed write is sent, a store event says so',
    async (value) => {
      await using s = await setup('redis', () => ok);
      const write = stitch({
        name: uniqueKey('write'),
        method: 'POST',
        url: s.vendor.url('/charges'),
        idempotency: { keyOf: () => 'order-1' },
      });
      const record = JSON.stringify([write.definition.name, '', 'order-1']);
      await send(['SET', `${s.prefix}idempotency:${record}`, value]);
      const run = write({ body: { orderId: 'order-1', amount: 1 } }, { engine: s.engine });
      await expect(run).resolves.toEqual({ ok: true });
      expect(s.vendor.requests()).toBe(1);
      expect(await storeEvents(run)).toEqual([
        expect.objectContaining({ operation: 'idempotency', error: expect.stringContaining('unexpected') }),
      ]);
    },
  );

  it('a server that forgot its scripts (restarted, flushed) is sent them again', async () => {
    await using s = await setup('redis', () => ({ status: 503, body: {} }));
    await s.read(undefined, { engine: s.engine }).safe();
    await send(['SCRIPT', 'FLUSH']);
    const run = s.read(undefined, { engine: s.engine });
    await run.safe();
    expect(await storeEvents(run)).toEqual([]);
    expect((await s.engine.circuitState('vendor')).state).toBe('open');
  });

  it('refuses what is not a client, and a prefix that is not a string, naming the field', () => {
    const fieldOf = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return isStitchError(error) && error.kind === 'config' ? error.field : 'not a config error';
      }
      return 'accepted';
    };
    expect(fieldOf(() => createRedisStore({} as RedisClient))).toBe('client');
    expect(fieldOf(() => createRedisStore(redis.admin, { prefix: 7 as never }))).toBe('prefix');
    expect(fieldOf(() => createRedisStore(redis.admin, 'app:' as never))).toBe('options');
    // Another library's name: every process would share the default prefix, silently.
    expect(fieldOf(() => createRedisStore(redis.admin, { keyPrefix: 'app:' } as never))).toBe('keyPrefix');
    // One that cannot be read (a getter that throws) is named too, not a crash.
    const unreadable = Object.defineProperty({}, 'prefix', {
      get: () => {
        throw new Error('not loaded yet');
      },
      enumerable: true,
    });
    expect(fieldOf(() => createRedisStore(redis.admin, unreadable))).toBe('options');
  });
});
