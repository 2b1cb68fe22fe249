/**
 * Many processes, one truth: four Node processes, each an engine on one real redis-server, call
 * one flaky node:http vendor. The breaker, its half-open lease, a shared rate, a shared
 * concurrency limit and idempotency records hold across all of them (issue 16). Each test has its
 * own vendor and key prefix.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentLedger } from '../helpers/payments';
import { createVendor, type LedgerEntry, type Reply, type Vendor } from '../helpers/vendor';
import { type ClientKind, serveRedis } from './clients';
import { redisServerPath } from './server';
import { startWorkers, type Target, type WorkerCall, type WorkerResult } from './workers';

const redis = serveRedis();
const { send } = redis;
let pool: Awaited<ReturnType<typeof startWorkers>>;

beforeAll(async () => {
  if (!redisServerPath()) return;
  pool = await startWorkers(4, redis.server.url);
});
afterAll(async () => {
  pool?.stop();
});

/** A vendor answering `respond`, and the four workers aimed at it on a fresh key prefix. */
async function setup(respond: (entry: LedgerEntry) => Reply, client: ClientKind = 'redis') {
  const vendor: Vendor = await createVendor({ respond });
  const target: Target = { vendor: vendor.origin, prefix: `t${randomUUID()}:`, client };
  const workers = pool.workers.map((worker) => ({
    call: (call: WorkerCall) => worker.call(target, call),
    abort: (id: number) => worker.abort(id),
    one: async (call: WorkerCall) => (await worker.call(target, call).results)[0] as WorkerResult,
  }));
  return { vendor, workers, prefix: target.prefix, [Symbol.asyncDispose]: () => vendor.close() };
}

const down: Reply = { status: 503, body: { error: 'down' } };

/** Resolves once `count` of `promises` have settled, with which ones and their values. */
function firstSettled<T>(promises: Promise<T>[], count: number): Promise<Array<{ index: number; value: T }>> {
  const settled: Array<{ index: number; value: T }> = [];
  return new Promise((resolve) => {
    for (const [index, promise] of promises.entries()) {
      promise.then((value) => {
        settled.push({ index, value });
        if (settled.length === count) resolve([...settled]);
      });
    }
  });
}

/** Subscribes to writes of `key` (Redis's keyspace notifications); `next` resolves at the first. */
async function watchWrites(key: string): Promise<{ next: Promise<void> }> {
  await send(['CONFIG', 'SET', 'notify-keyspace-events', 'K$']);
  const subscriber = createClient({ url: redis.server.url });
  await subscriber.connect();
  let written: () => void = () => {};
  const write = new Promise<void>((resolve) => {
    written = resolve;
  });
  await subscriber.subscribe(`__keyspace@0__:${key}`, () => written());
  return { next: write.finally(() => subscriber.destroy()) };
}

/**
 * Follows the slots of a shared concurrency limit under `prefix` in Redis's own order of commands
 * (MONITOR): a take is a ZADD in the script, a release a ZREM, a refusal the script's ZRANGE for
 * its answer. `most` is the most slots held at once; `refused(n)` resolves after n more refusals.
 */
async function watchSlots(prefix: string) {
  const held = new Set<string>();
  let most = 0;
  let freed = 0;
  let refusals = 0;
  const waiting: Array<{ until: number; resolve: () => void }> = [];
  const monitor = createClient({ url: redis.server.url });
  await monitor.connect();
  await monitor.monitor((line: string) => {
    const command = /"(ZADD|ZREM|ZRANGE)" "([^"]*)"((?: "[^"]*")*)$/.exec(line);
    if (!command?.[2]?.startsWith(`${prefix}slots:`)) return;
    const args = [...(command[3] ?? '').matchAll(/"([^"]*)"/g)].map((match) => match[1] as string);
    if (command[1] === 'ZADD') held.add(args[1] as string);
    else if (command[1] === 'ZREM') freed += Number(held.delete(args[0] as string));
    else refusals++;
    most = Math.max(most, held.size);
    for (const waiter of waiting.filter((w) => refusals >= w.until)) waiter.resolve();
  });
  return {
    most: () => most,
    freed: () => freed,
    refused: (count: number) =>
      new Promise<void>((resolve) => waiting.push({ until: refusals + count, resolve })),
    stop: () => monitor.destroy(),
  };
}

describe.skipIf(!redisServerPath())('four processes on one Redis', () => {
  it.each(['redis', 'ioredis'] as const)(
    'the breaker opens after `failures` failures in total across the processes (%s)',
    async (client) => {
      await using s = await setup(() => down, client);
      for (const worker of s.workers) {
        expect(await worker.one({ stitch: 'read' })).toMatchObject({ ok: false, error: { kind: 'http' } });
      }
      // failures: 4, one in each process: the breaker is open for every one of them.
      for (const worker of s.workers) {
        expect(await worker.one({ stitch: 'read' })).toMatchObject({
          ok: false,
          error: { kind: 'circuit-open', requests: 0 },
        });
      }
      expect(s.vendor.requests()).toBe(4);
    },
  );

  it('in half-open exactly one probe goes out; its caller cancelling frees the lease at once', async () => {
    await using s = await setup((entry) => (entry.n <= 4 ? down : 'hold'));
    for (const worker of s.workers) await worker.one({ stitch: 'read' });
    const key = `${s.prefix}circuit:vendor`;
    // The cooldown (60 s) is over, as far as the server's clock is concerned.
    await send(['SET', key, JSON.stringify({ state: 'open', until: 0 }), 'PX', '60000']);

    const calls = s.workers.map((worker) => worker.call({ stitch: 'read' }));
    const refused = await firstSettled(
      calls.map((call) => call.results),
      3,
    );
    await s.vendor.arrival(5);
    for (const { value } of refused) {
      expect(value[0]).toMatchObject({ ok: false, error: { kind: 'circuit-open', requests: 0 } });
    }
    expect(s.vendor.requests()).toBe(5);

    // The probe's caller leaves: the lease is written free, long before its 60 s expiry...
    const probe = [0, 1, 2, 3].find((n) => !refused.some(({ index }) => index === n)) as number;
    const freed = await watchWrites(key);
    s.workers[probe]?.abort(calls[probe]?.id as number);
    expect((await calls[probe]?.results)?.[0]).toMatchObject({ error: { kind: 'aborted', requests: 1 } });
    await freed.next;
    expect(JSON.parse(String(await send(['GET', key])))).toEqual({ state: 'half-open', lease: null });
    // ...so the next caller, in another process, is the probe at once.
    const next = s.workers[(probe + 1) % 4]?.call({ stitch: 'read' });
    expect((await s.vendor.arrival(6)).path).toBe('/read');
    s.vendor.release(6, { status: 200, body: { ok: true } });
    expect((await next?.results)?.[0]).toMatchObject({ ok: true, requests: 1 });
    expect(JSON.parse(String(await send(['GET', key])))).toEqual({ state: 'closed', failures: 0 });
  });

  it('1,000 caller aborts spread over the processes never move the breaker', async () => {
    await using s = await setup(() => ({ fault: 'hang' }));
    const batches = s.workers.flatMap((worker) => [
      worker.call({ stitch: 'read', count: 125, abort: 'at-once' }).results,
      worker.call({ stitch: 'read', count: 125, abort: 'on-request' }).results,
    ]);
    const outcomes = (await Promise.all(batches)).flat();
    expect(outcomes).toHaveLength(1_000);
    expect(outcomes.every((outcome) => outcome.error?.kind === 'aborted')).toBe(true);
    expect(outcomes.filter((outcome) => outcome.requests === 1)).toHaveLength(500);
    // Nothing was counted: a clean success needs no write either, so the breaker has no entry.
    expect(await send(['GET', `${s.prefix}circuit:vendor`])).toBeNull();
  });

  it("a shared '20/s' rate: the vendor never sees more than 20 requests in any 1 s window", async () => {
    // When the vendor's handler ran: after the request arrived, before its answer left.
    const arrivals: number[] = [];
    await using s = await setup((entry) => {
      if (entry.path === '/limited') arrivals.push(performance.now());
      return { status: 200, body: {} };
    });
    // Every grant is a ZADD inside the script, scored `per` (1 s) after the server's time of the
    // grant (the request is out): MONITOR sees each. A request's end is a ZADD XX, not matched here.
    const grants: number[] = [];
    const monitor = createClient({ url: redis.server.url });
    await monitor.connect();
    await monitor.monitor((line: string) => {
      const zadd = /\[0 lua\] "ZADD" "[^"]*rate:[^"]*" "([\d.]+)"/.exec(line);
      if (zadd) grants.push(Number(zadd[1]) - 1_000);
    });
    const done = await Promise.all(
      s.workers.map((worker) => worker.call({ stitch: 'limited', count: 15 }).results),
    );
    await monitor.destroy();
    expect(done.flat().every((outcome) => outcome.ok && outcome.store === 0)).toBe(true);
    expect(grants).toHaveLength(60);
    expect(arrivals).toHaveLength(60);
    // On the server's clock: the 21st grant after any grant comes 1 s or more after it.
    grants.sort((a, b) => a - b);
    for (let i = 0; i + 20 < grants.length; i++) {
      expect((grants[i + 20] as number) - (grants[i] as number)).toBeGreaterThanOrEqual(1_000);
    }
    // At the vendor, however late a request arrived after its grant (a cold socket, a busy
    // machine): a grant counts until 1 s after its answer, and a request reaches the vendor before
    // that answer. 2 ms is for the clocks alone: the vendor's is this process's monotonic clock,
    // the windows are on Redis's wall clock, which NTP may slew by 0.05% (1 ms over these 2 s).
    const clocks = 2;
    arrivals.sort((a, b) => a - b);
    for (let i = 0; i + 20 < arrivals.length; i++) {
      expect((arrivals[i + 20] as number) - (arrivals[i] as number)).toBeGreaterThanOrEqual(1_000 - clocks);
    }
  });

  it('a shared concurrency of 3: the vendor never has more than 3 requests of the four processes in flight', async () => {
    // Requests the test has answered; the vendor holds every other one until the test says.
    let answered = 0;
    const inFlight: number[] = [];
    await using s = await setup((entry) => {
      inFlight.push(entry.n - answered);
      return 'hold';
    });
    const slots = await watchSlots(s.prefix);
    const calls = s.workers.map((worker) => worker.call({ stitch: 'pooled', count: 2 }).results);
    for (let n = 1; n <= 3; n++) await s.vendor.arrival(n);
    for (let next = 4; next <= 8; next++) {
      // The waiting processes asked again and were refused; none got through (a 4th would arrive).
      await Promise.race([slots.refused(4), s.vendor.arrival(next)]);
      expect(s.vendor.requests()).toBe(next - 1);
      answered++;
      s.vendor.release(next - 3);
      await s.vendor.arrival(next);
    }
    for (let n = 6; n <= 8; n++) {
      answered++;
      s.vendor.release(n);
    }
    const outcomes = (await Promise.all(calls)).flat();
    expect(outcomes).toHaveLength(8);
    expect(outcomes.every((outcome) => outcome.ok && outcome.requests === 1 && outcome.store === 0)).toBe(
      true,
    );
    expect(inFlight).toEqual([1, 2, 3, 3, 3, 3, 3, 3]);
    expect(slots.most()).toBe(3);
    await slots.stop();
  });

  it('a caller abort frees its shared slot at once: a waiter in another process goes through', async () => {
    await using s = await setup(() => 'hold');
    const slots = await watchSlots(s.prefix);
    const [first, second, third, fourth] = s.workers;
    const holders = [first, second, third].map((worker) => worker?.call({ stitch: 'pooled' }));
    for (let n = 1; n <= 3; n++) await s.vendor.arrival(n);
    // Two waiters in the fourth process; one leaves while it waits, at once and with 0 requests.
    const leaver = fourth?.call({ stitch: 'pooled' });
    const waiter = fourth?.call({ stitch: 'pooled' });
    await slots.refused(2);
    fourth?.abort(leaver?.id as number);
    expect((await leaver?.results)?.[0]).toMatchObject({ error: { kind: 'aborted', requests: 0 } });
    expect(s.vendor.requests()).toBe(3);

    // The first process's caller leaves in flight: its slot is freed (ZREM), not left to its 10 s lease.
    first?.abort(holders[0]?.id as number);
    expect((await holders[0]?.results)?.[0]).toMatchObject({ error: { kind: 'aborted', requests: 1 } });
    await s.vendor.arrival(4);
    expect(slots.freed()).toBe(1);
    expect(slots.most()).toBe(3);
    // Whichever request was the aborted one, it has no one left to answer.
    for (let n = 1; n <= 4; n++) s.vendor.release(n);
    expect((await waiter?.results)?.[0]).toMatchObject({ ok: true, requests: 1 });
    await Promise.all(holders.slice(1).map((holder) => holder?.results));
    await slots.stop();
  });

  it('a keyed write re-issued from another process after success sends nothing, returns the record', async () => {
    const payments = paymentLedger();
    await using s = await setup(payments.respond);
    const order = { body: { orderId: 'order-42', amount: 1_999 } };
    const first = await s.workers[0]?.one({ stitch: 'write', input: order });
    expect(first).toMatchObject({ ok: true, source: 'live', requests: 1 });
    const again = await s.workers[1]?.one({ stitch: 'write', input: order });
    expect(again).toMatchObject({ ok: true, source: 'recorded', requests: 0, data: first?.data });
    expect(s.vendor.requests()).toBe(1);
  });

  it('a keyed write re-issued while in flight elsewhere waits: the vendor sees one request', async () => {
    const payments = paymentLedger();
    payments.slow.add(1);
    await using s = await setup(payments.respond);
    const order = { body: { orderId: 'order-43', amount: 500 } };
    const first = s.workers[0]?.call({ stitch: 'write', input: order });
    await s.vendor.arrival(1);
    const again = s.workers[1]?.call({ stitch: 'write', input: order });
    expect(await again?.event).toMatchObject({ type: 'idempotency', status: 'waiting' });
    s.vendor.release(1, { status: 201, body: payments.charges.get('order-43') });

    const [[a], [b]] = (await Promise.all([first?.results, again?.results])) as [
      WorkerResult[],
      WorkerResult[],
    ];
    expect(a).toMatchObject({ ok: true, source: 'live', requests: 1 });
    expect(b).toMatchObject({ ok: true, source: 'recorded', requests: 0, data: a?.data });
    expect(s.vendor.requests()).toBe(1);
  });
});
