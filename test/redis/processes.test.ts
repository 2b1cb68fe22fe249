/**
 * Many processes, one truth: four Node processes, each an engine on one real redis-server, call
 * one flaky node:http vendor. The breaker, its half-open lease, a shared rate and idempotency
 * records hold across all of them (issue 16).
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../src/redis/index';
import { paymentLedger } from '../helpers/payments';
import { createVendor, type Reply, type Vendor } from '../helpers/vendor';
import { connect } from './clients';
import { type RedisServer, redisServerPath, startRedis } from './server';
import { startWorkers, type Worker, type WorkerResult } from './workers';

let server: RedisServer;
let admin: { client: RedisClient; close(): Promise<void> };
const send = (args: string[]) =>
  (admin.client as { sendCommand(args: string[]): Promise<unknown> }).sendCommand(args);

beforeAll(async () => {
  if (!redisServerPath()) return;
  server = await startRedis();
  admin = await connect('redis', server.url);
});
afterAll(async () => {
  await admin?.close();
  await server?.stop();
});

/** A vendor answering `respond`, and four workers on a fresh key prefix. */
async function setup(respond: (n: number) => Reply, client: 'redis' | 'ioredis' = 'redis') {
  const vendor: Vendor = await createVendor({ respond: (entry) => respond(entry.n) });
  const prefix = `t${randomUUID()}:`;
  const workers = await startWorkers(4, { redis: server.url, vendor: vendor.origin, prefix, client });
  return { vendor, workers, prefix, [Symbol.asyncDispose]: () => vendor.close() };
}

const results = async (worker: Worker, call: Parameters<Worker['call']>[0]) => worker.call(call).results;
const one = async (worker: Worker, call: Parameters<Worker['call']>[0]) => (await results(worker, call))[0];
const down: Reply = { status: 503, body: { error: 'down' } };

/** Resolves once `count` of `promises` have settled, with which ones and their values. */
function firstSettled<T>(promises: Promise<T>[], count: number): Promise<Array<{ index: number; value: T }>> {
  const settled: Array<{ index: number; value: T }> = [];
  return new Promise((resolve) => {
    promises.forEach((promise, index) =>
      promise.then((value) => {
        settled.push({ index, value });
        if (settled.length === count) resolve([...settled]);
      }),
    );
  });
}

/** Subscribes to writes of `key` (Redis's keyspace notifications); `next` resolves at the first. */
async function watchWrites(key: string): Promise<{ next: Promise<void> }> {
  await send(['CONFIG', 'SET', 'notify-keyspace-events', 'K$']);
  const subscriber = createClient({ url: server.url });
  await subscriber.connect();
  let written: () => void = () => {};
  const write = new Promise<void>((resolve) => {
    written = resolve;
  });
  await subscriber.subscribe(`__keyspace@0__:${key}`, () => written());
  return { next: write.finally(() => subscriber.destroy()) };
}

describe.skipIf(!redisServerPath())('four processes on one Redis', () => {
  describe.each(['redis', 'ioredis'] as const)('the breaker (%s clients)', (client) => {
    it('opens after `failures` failures in total across the processes, not per process', async () => {
      await using s = await setup(() => down, client);
      for (const worker of s.workers) {
        expect(await one(worker, { stitch: 'read' })).toMatchObject({ ok: false, error: { kind: 'http' } });
      }
      // failures: 4, one each: the breaker is open for everyone.
      for (const worker of s.workers) {
        expect(await one(worker, { stitch: 'read' })).toMatchObject({
          ok: false,
          error: { kind: 'circuit-open', requests: 0 },
        });
      }
      expect(s.vendor.requests()).toBe(4);
    });
  });

  it('in half-open, exactly one probe goes out; its caller cancelling frees the lease at once', async () => {
    await using s = await setup((n) => (n <= 4 ? down : 'hold'));
    for (const worker of s.workers) await one(worker, { stitch: 'read' });
    const key = `${s.prefix}circuit:vendor`;
    // The cooldown (60 s) is over, as far as the server's clock is concerned.
    await send(['SET', key, JSON.stringify({ state: 'open', until: 0 }), 'PX', '60000']);

    const calls = s.workers.map((worker) => worker.call({ stitch: 'read' }));
    const refused = await firstSettled(
      calls.map((call) => call.results),
      3,
    );
    await s.vendor.arrival(5);
    expect(refused.map(({ value: [result] }) => result)).toEqual(
      Array(3).fill(expect.objectContaining({ error: { kind: 'circuit-open', requests: 0 } })),
    );
    expect(s.vendor.requests()).toBe(5);

    // The probe's caller leaves: the lease is written free (well before its 60 s expiry)...
    const probe = [0, 1, 2, 3].find((n) => !refused.some(({ index }) => index === n)) as number;
    const freed = await watchWrites(key);
    (s.workers[probe] as Worker).abort((calls[probe] as { id: number }).id);
    expect((await (calls[probe] as { results: Promise<WorkerResult[]> }).results)[0]).toMatchObject({
      error: { kind: 'aborted', requests: 1 },
    });
    await freed.next;
    expect(JSON.parse(String(await send(['GET', key])))).toEqual({ state: 'half-open', lease: null });
    // ...so the next caller, in another process, probes at once.
    const other = s.workers[(probe + 1) % 4] as Worker;
    const next = other.call({ stitch: 'read' });
    expect((await s.vendor.arrival(6)).path).toBe('/read');
    s.vendor.release(6, { status: 200, body: { ok: true } });
    expect((await next.results)[0]).toMatchObject({ ok: true, requests: 1 });
    expect(JSON.parse(String(await send(['GET', key])))).toMatchObject({ state: 'closed', failures: 0 });
  });
});
