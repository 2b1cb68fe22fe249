/**
 * The little Stitch needs of a user's Redis client: send one command, know whether it is
 * connected, run a script by its SHA-1 (loading it once if the server does not know it).
 */
import { createHash } from 'node:crypto';
import { configError } from '../engine/errors';

/** A `redis` (node-redis 4+) client, as far as Stitch uses it. */
export interface NodeRedisClient {
  /** Sends one command, name first (`['EVALSHA', sha, …]`). */
  sendCommand(args: string[]): Promise<unknown>;
  readonly isReady: boolean;
}

/** An `ioredis` client, as far as Stitch uses it. */
export interface IoRedisClient {
  /** Sends one command by name, with its arguments. */
  call(command: string, ...args: string[]): Promise<unknown>;
  readonly status: string;
}

/** A connected client of either library. */
export type RedisClient = NodeRedisClient | IoRedisClient;

/** Runs `script` on `keys` and `args`: one round trip (two the first time after a server restart). */
export type ScriptRunner = (script: string, keys: string[], args: string[]) => Promise<unknown>;

/** Sends one command. */
export type CommandSender = (args: string[]) => Promise<unknown>;

const isIoRedis = (client: RedisClient): client is IoRedisClient =>
  typeof (client as IoRedisClient).call === 'function' && 'status' in client;

/**
 * Wraps `client`. A client that is not connected (never connected, or reconnecting after the
 * server went away) fails at once instead of queueing the command, so a call fails open now
 * rather than at `storeTimeout`.
 * @throws StitchError of kind `'config'` (field `client`) for anything else.
 */
export function commandsOf(client: RedisClient): CommandSender {
  if (typeof client === 'object' && client !== null) {
    if (isIoRedis(client)) {
      return (args) => {
        if (client.status !== 'ready') return Promise.reject(notReady(client.status));
        const [command = '', ...rest] = args;
        return client.call(command, ...rest);
      };
    }
    if (typeof client.sendCommand === 'function') {
      return (args) => (client.isReady ? client.sendCommand(args) : Promise.reject(notReady('not ready')));
    }
  }
  throw configError(undefined, 'client', 'must be a connected `redis` (node-redis) or `ioredis` client');
}

const notReady = (status: string) => new Error(`the Redis client is not connected (${status})`);

/** Runs scripts by SHA-1, falling back to sending the source once the server says it lacks it. */
export function scriptsOf(send: CommandSender): ScriptRunner {
  const shas = new Map<string, string>();
  return async (script, keys, args) => {
    let sha = shas.get(script);
    if (sha === undefined) {
      sha = createHash('sha1').update(script).digest('hex');
      shas.set(script, sha);
    }
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await send(['EVALSHA', sha, ...tail]);
    } catch (error) {
      // A restarted (or flushed) server forgot the script: EVAL sends it and caches it again.
      if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
      return send(['EVAL', script, ...tail]);
    }
  };
}
