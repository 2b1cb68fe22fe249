/** Connects a `redis` (node-redis) or `ioredis` client to a test server, closed by the caller. */
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import type { RedisClient } from '../../src/redis/index';
import { HOW_TO_RUN, type RedisServer, redisServerPath, startRedis } from './server';

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

/** What {@link serveRedis} gives a test file once its `beforeAll` ran. */
export interface RedisSession {
  server: RedisServer;
  /** Sends one raw command on an admin connection (`['GET', key]`). */
  send(args: string[]): Promise<unknown>;
  /** The admin connection's client. */
  readonly admin: RedisClient;
}

/**
 * Starts a redis-server and an admin connection for the calling test file, and stops both after
 * it. On a machine without redis-server nothing starts (the suite skips, see `redis.setup.ts`).
 */
export function serveRedis(): RedisSession {
  let admin: Awaited<ReturnType<typeof connect>> | undefined;
  const adminClient = () => {
    if (!admin) throw new Error(HOW_TO_RUN);
    return admin.client;
  };
  const session = {
    server: undefined as unknown as RedisServer,
    send: (args: string[]) =>
      (adminClient() as { sendCommand(a: string[]): Promise<unknown> }).sendCommand(args),
    get admin() {
      return adminClient();
    },
  };
  beforeAll(async () => {
    if (!redisServerPath()) return;
    session.server = await startRedis();
    admin = await connect('redis', session.server.url);
  });
  afterAll(async () => {
    await admin?.close();
    await session.server?.stop();
  });
  return session;
}
