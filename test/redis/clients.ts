/** Connects a `redis` (node-redis) or `ioredis` client to a test server, closed by the caller. */
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import type { RedisClient } from '../../src/redis/index';

export type ClientKind = 'redis' | 'ioredis';

/** A connected client; `close` ends it. Both reconnect every 50 ms while the server is away. */
export async function connect(
  kind: ClientKind,
  url: string,
): Promise<{ client: RedisClient; close(): Promise<void> }> {
  if (kind === 'ioredis') {
    const client = new Redis(url, { retryStrategy: () => 50, maxRetriesPerRequest: 1 });
    client.on('error', () => {});
    await new Promise<void>((resolve) => client.once('ready', () => resolve()));
    return { client, close: async () => void client.disconnect() };
  }
  const client = createClient({ url, socket: { reconnectStrategy: () => 50 } });
  client.on('error', () => {});
  await client.connect();
  return { client, close: async () => void client.destroy() };
}

/** Resolves once `client` (re)connects and is ready for commands. */
export function ready(client: RedisClient): Promise<void> {
  const emitter = client as unknown as { once(event: 'ready', listener: () => void): void };
  return new Promise((resolve) => emitter.once('ready', resolve));
}
