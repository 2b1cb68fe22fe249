/**
 * The throttle's shared parts (src/redis/throttle.ts) against a real redis-server, the waiting
 * engine on the manual clock (its sleeps are the clock's; the windows and leases stay on the
 * server's): one wait is one `queued` event, and the total deadline ends a wait as the deadline's.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ThrottleStore } from '../../src/engine/shared';
import { createThrottle, normalizeThrottle, type ThrottlePolicy } from '../../src/engine/throttle';
import { createEngine, type StitchRun, stitch, type ThrottleOptions } from '../../src/index';
import { createRedisStore } from '../../src/redis/index';
import { createSharedThrottle } from '../../src/redis/throttle';
import { createManualClock } from '../helpers/clock';
import { createVendor, type Reply } from '../helpers/vendor';
import { serveRedis } from './clients';
import { redisServerPath } from './server';

const redis = serveRedis();

/** A vendor answering 200, a store on a fresh prefix, and an engine on the manual clock over it. */
async function setup() {
  const vendor = await createVendor({ respond: (): Reply => ({ status: 200, body: {} }) });
  const prefix = `t${randomUUID()}:`;
  const store = createRedisStore(redis.admin, { prefix });
  const clock = createManualClock();
  // No store timeout: its timers would sit among the waits' on the manual clock.
  const engine = createEngine({ store, clock, storeTimeout: Number.POSITIVE_INFINITY });
  return { vendor, prefix, store, clock, engine, [Symbol.asyncDispose]: () => vendor.close() };
}

/**
 * A stitch on the vendor's `/limited` under `throttle` and a shared rate of 1/min, whose one
 * grant another process (another engine, on the real clock) has just spent.
 */
async function spentRate(s: Awaited<ReturnType<typeof setup>>, throttle: ThrottleOptions, timeout?: number) {
  const on = (name: string, deadline?: number) =>
    stitch({
      name,
      url: s.vendor.url('/limited'),
      coalesce: false,
      circuit: false,
      retry: 1,
      timeout: deadline,
      throttle: { ...throttle, rate: '1/min' },
    });
  // The other process's call has no deadline: on the real clock, a busy machine must not fail it.
  const other = createEngine({ store: createRedisStore(redis.admin, { prefix: s.prefix }) });
  await on('spender')(undefined, { engine: other });
  return on('limited', timeout);
}

/** A stitch on the vendor's `/pooled` under one shared concurrency slot of `key`, waiting for none. */
const oneSharedSlot = (s: Awaited<ReturnType<typeof setup>>, key: string) =>
  stitch({
    name: 'pooled',
    url: s.vendor.url('/pooled'),
    coalesce: false,
    circuit: false,
    retry: false,
    throttle: { key, concurrency: 1, maxWait: 0, shared: { concurrency: true } },
  });

/** Resolves once the server's clock (the windows' clock) has moved `ms` on: round trips, no sleep. */
async function serverTimePasses(ms: number) {
  const now = async () => {
    const [seconds, micros] = (await redis.send(['TIME'])) as [string, string];
    return Number(seconds) * 1_000 + Number(micros) / 1_000;
  };
  const until = (await now()) + ms;
  while ((await now()) < until);
}

/** Resolves at the run's first `queued` event. */
async function queued(run: StitchRun<unknown>) {
  for await (const event of run.stream()) if (event.type === 'queued') return event;
}

const queuedEvents = async (run: StitchRun<unknown>) =>
  (await run.report()).events.filter((event) => event.type === 'queued');

describe.skipIf(!redisServerPath())('the shared throttle', () => {
  it('one wait, one queued event: a caller queued in this process, then for the shared rate, hears it once', async () => {
    await using s = await setup();
    const limited = await spentRate(s, { concurrency: 1 });

    const leaving = new AbortController();
    const first = limited(undefined, { engine: s.engine, signal: leaving.signal });
    expect(await queued(first)).toMatchObject({ key: s.vendor.origin, position: 1 });
    const staying = new AbortController();
    const second = limited(undefined, { engine: s.engine, signal: staying.signal });
    expect(await queued(second)).toMatchObject({ position: 1 });

    // The first leaves: the second takes this process's slot, then waits for the shared rate.
    expect(s.clock.pending()).toBe(1);
    leaving.abort(new Error('the user left'));
    expect(s.clock.pending()).toBe(0);
    await s.clock.untilPending();
    staying.abort(new Error('the user left too'));
    for (const run of [first, second]) {
      expect((await run.safe()).error).toMatchObject({ kind: 'aborted', requests: 0 });
      expect(await queuedEvents(run)).toHaveLength(1);
    }
    expect(s.vendor.requests()).toBe(1);
    expect(s.clock.pending()).toBe(0);
  });

  it('the total deadline ends a wait for the shared rate as the deadline’s, not as a maxWait never set', async () => {
    await using s = await setup();
    const limited = await spentRate(s, {}, 50);

    const late = limited(undefined, { engine: s.engine });
    expect(await queued(late)).toMatchObject({ position: 1 });
    await s.clock.advance(50);
    expect((await late.safe()).error).toMatchObject({
      kind: 'rate-limited',
      message: 'the total deadline passed while waiting for a throttle slot',
      requests: 0,
    });
    expect(s.clock.pending()).toBe(0);
  });

  it('a wait for a shared slot that the total deadline ends is the deadline’s, even when its timer fires just after the wait woke', async () => {
    await using s = await setup();
    await redis.send(['ZADD', `${s.prefix}slots:pool`, '99999999999999', 'a live holder']);
    const share = createSharedThrottle(s.store as ThrottleStore, s.clock);
    const policy = normalizeThrottle({ concurrency: 1, shared: { concurrency: true } }, 'pooled');
    const deadline = new AbortController();
    // What the engine passes: maxWait is the time left before the total deadline, which aborts `signal`.
    const taking = share(
      createThrottle(s.clock),
      'pool',
      policy as ThrottlePolicy,
      {
        signal: deadline.signal,
        maxWait: 50,
      },
      () => {},
    );
    const settled = taking.then(
      () => undefined,
      (error: unknown) => error,
    );
    // Refused, polled again at 10 and 30 ms; the next poll is set.
    for (let n = 0; n < 2; n++) {
      await s.clock.untilPending();
      await s.clock.next();
    }
    await s.clock.untilPending();
    // The deadline's timer is due at 50 ms and fires after anything the wait set for 50 ms itself,
    // as a real timer may (the host rounds each to the millisecond).
    const reason = new DOMException('The total timeout of 50 ms elapsed', 'TimeoutError');
    s.clock.schedule(50 - s.clock.now(), () => deadline.abort(reason));
    await s.clock.next();
    expect(await settled).toBe(reason);
    expect(s.clock.pending()).toBe(0);
  });

  it('a caller who leaves while its shared slot is being taken gives it back at once: the next call of the same tick gets it', async () => {
    await using s = await setup();
    const pooled = oneSharedSlot(s, 'pool');
    // Whatever the microtask the take has reached when the caller leaves.
    for (let hops = 0; hops < 8; hops++) {
      const controller = new AbortController();
      const left = pooled({ query: { hops } }, { engine: s.engine, signal: controller.signal });
      for (let n = 0; n < hops; n++) await Promise.resolve();
      controller.abort(new Error('superseded'));
      const next = pooled({ query: { hops, next: 1 } }, { engine: s.engine });
      expect((await left.safe()).error?.kind).toBe('aborted');
      const result = await next.safe();
      expect({ hops, kind: result.error?.kind, message: result.error?.message }).toEqual({
        hops,
        kind: undefined,
        message: undefined,
      });
    }
    expect(s.vendor.ledger.every((entry) => entry.query.get('next') === '1')).toBe(true);
  });

  it('a caller who leaves while Redis re-sends its take (NOSCRIPT after a flush) leaks no slot', async () => {
    await using s = await setup();
    const pooled = oneSharedSlot(s, 'flushed');
    // A restarted or failed-over Redis has no scripts: the take is sent again as EVAL.
    await redis.send(['SCRIPT', 'FLUSH']);
    const controller = new AbortController();
    const left = pooled(undefined, { engine: s.engine, signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('superseded'));
    expect((await left.safe()).error?.kind).toBe('aborted');
    // Round trips on the store's connection, each after the last: the re-sent take and any give
    // back after it land within a few.
    let held = Number.NaN;
    for (let trip = 0; trip < 8; trip++)
      held = Number(await redis.send(['ZCARD', `${s.prefix}slots:flushed`]));
    expect(held).toBe(0);
    expect((await pooled(undefined, { engine: s.engine }).safe()).error?.message).toBeUndefined();
  });
  it('stitches with different rates on one key: a shorter `per` neither forgets the longer one’s grants nor ends the key early', async () => {
    await using s = await setup();
    const calls = (name: string, rate: ThrottleOptions['rate']) =>
      stitch({
        name,
        url: s.vendor.url(`/${name}`),
        coalesce: false,
        circuit: false,
        retry: 1,
        throttle: { rate, maxWait: 0 },
      });
    const exportReport = calls('export', { count: 3, per: 60_000 });
    // 1 a ms: by the time it is called, every export grant has left its window.
    const search = calls('search', { count: 1, per: 1 });
    const outcome = async (run: StitchRun<unknown>) => (await run.safe()).error?.kind ?? 'ok';

    for (let n = 0; n < 3; n++)
      expect(await outcome(exportReport(undefined, { engine: s.engine }))).toBe('ok');
    // Each export request has ended (its grant is scored by its end), and is more than 1 ms old.
    await serverTimePasses(2);
    expect(await outcome(search(undefined, { engine: s.engine }))).toBe('ok');
    // The search's own window counted only what is within its 1 ms, and trimmed nothing the
    // export's 60 s window still counts: three grants in the last minute, so no fourth.
    for (let n = 0; n < 3; n++) {
      const refused = (await exportReport(undefined, { engine: s.engine }).safe()).error;
      expect(refused).toMatchObject({ kind: 'rate-limited', requests: 0 });
      expect(refused?.retryAfter).toBeGreaterThan(50_000);
    }
    expect(s.vendor.requests()).toBe(4);
    // The key lives as long as the longest window needs it, not 2 × the last caller's 1 ms.
    const pttl = Number(await redis.send(['PTTL', `${s.prefix}rate:${s.vendor.origin}`]));
    expect(pttl).toBeGreaterThan(100_000);
    expect(pttl).toBeLessThanOrEqual(120_000);
  });
  it('a longer `per` refused at its first call already makes the key keep its grants that long', async () => {
    await using s = await setup();
    const store = s.store as ThrottleStore;
    expect(await store.takeRate('mixed', { count: 1, per: 1_000 }, 'a')).toBe(0);
    // Refused (`a` is within its minute): the key keeps 2 minutes of grants from now on, so a
    // 1 s caller's take trims nothing it still counts, and the key outlives `a` by a minute.
    expect(await store.takeRate('mixed', { count: 1, per: 60_000 }, 'b')).toBeGreaterThan(50_000);
    expect(Number(await redis.send(['PTTL', `${s.prefix}rate:mixed`]))).toBeGreaterThan(100_000);
  });
  it('a take sent again with the same id (a client resending it after a lost answer) finds its grant: granted, not refused by itself', async () => {
    await using s = await setup();
    const store = s.store as ThrottleStore;
    const rate = { count: 1, per: 60_000 };
    expect(await store.takeRate('resent', rate, 'a')).toBe(0);
    // ioredis sends a command again after a reconnect: the grant it took the first time is this one.
    expect(await store.takeRate('resent', rate, 'a')).toBe(0);
    expect(Number(await redis.send(['ZCARD', `${s.prefix}rate:resent`]))).toBe(2);
    // Anyone else's take still counts it.
    expect(await store.takeRate('resent', rate, 'b')).toBeGreaterThan(50_000);
  });
});
