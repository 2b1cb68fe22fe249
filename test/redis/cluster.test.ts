/**
 * `createRedisStore` over the cluster clients of both libraries (node-redis `createCluster`,
 * ioredis `Cluster`) against a real three-master Redis Cluster: every operation is one command on
 * one key, sent to the node that serves its slot.
 */
import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type RunReport, stitch } from '../../src/index';
import { createRedisStore } from '../../src/redis/index';
import { createVendor, type Reply } from '../helpers/vendor';
import type { ClientKind } from './clients';
import { type RedisCluster, redisCliPath, redisServerPath, startRedisCluster } from './server';

/** A connected cluster client of `kind` over `cluster`; `close` ends it. */
async function connectCluster(kind: ClientKind, cluster: RedisCluster) {
  const [port] = cluster.ports;
  if (kind === 'ioredis') {
    const client = new Cluster([{ host: '127.0.0.1', port }]);
    client.on('error', () => {});
    await new Promise<void>((resolve) => client.once('ready', () => resolve()));
    return { client, close: async () => void client.disconnect() };
  }
  const client = createCluster({ rootNodes: [{ url: `redis://127.0.0.1:${port}` }] });
  client.on('error', () => {});
  await client.connect();
  return { client, close: async () => void client.destroy() };
}

const storeEvents = (report: RunReport) => report.events.filter((event) => event.type === 'store');

describe.skipIf(!redisServerPath() || !redisCliPath())('a Redis Cluster', () => {
  let cluster: RedisCluster | undefined;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  });
  afterAll(() => cluster?.stop());

  it.each<ClientKind>(['redis', 'ioredis'])(
    'a %s cluster client shares a breaker (and the retry budget), a rate, a concurrency slot and an idempotency record',
    async (kind) => {
      const vendor = await createVendor({
        respond: (entry): Reply =>
          entry.path === '/read' ? { status: 503, body: {} } : { status: 200, body: {} },
      });
      const { client, close } = await connectCluster(kind, cluster as RedisCluster);
      try {
        // Two engines on one store prefix, as two processes would be: what one writes, the other reads.
        const prefix = `t${randomUUID()}:`;
        const [one, two] = [0, 1].map(() => createEngine({ store: createRedisStore(client, { prefix }) }));
        const read = stitch({
          name: 'read',
          url: vendor.url('/read'),
          coalesce: false,
          retry: { attempts: 2, backoff: { base: 1 } },
          circuit: { key: 'vendor', failures: 2 },
        });
        const limited = stitch({
          name: 'limited',
          url: vendor.url('/limited'),
          circuit: false,
          throttle: { key: 'pool', rate: '1/min', concurrency: 1, shared: { concurrency: true }, maxWait: 0 },
        });
        const write = stitch({
          name: 'write',
          method: 'POST',
          url: vendor.url('/write'),
          circuit: false,
          idempotency: { keyOf: () => 'order-1' },
        });

        const runs = [
          // Two failures (the retry asked the budget) open the breaker for the other engine too.
          await read(undefined, { engine: one }).report(),
          await read(undefined, { engine: two }).report(),
          // One grant a minute, and a slot taken and freed: the other engine's call finds none left.
          await limited(undefined, { engine: one }).report(),
          await limited(undefined, { engine: two }).report(),
          // A keyed write recorded by one engine is answered from the record by the other.
          await write({ body: { n: 1 } }, { engine: one }).report(),
          await write({ body: { n: 1 } }, { engine: two }).report(),
        ];
        expect(runs.map(({ error, requests }) => ({ kind: error?.kind, requests }))).toEqual([
          { kind: 'http', requests: 2 },
          { kind: 'circuit-open', requests: 0 },
          { kind: undefined, requests: 1 },
          { kind: 'rate-limited', requests: 0 },
          { kind: undefined, requests: 1 },
          { kind: undefined, requests: 0 },
        ]);
        // None of it failed open: every command reached the node of its key's slot.
        expect(runs.flatMap(storeEvents)).toEqual([]);
        expect(vendor.requests()).toBe(4);
      } finally {
        await close();
        await vendor.close();
      }
    },
  );
});
