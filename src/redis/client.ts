/**
 * The little Stitch needs of a user's Redis client: send one command, know whether it is
 * connected, run a script by its SHA-1 (loading it once if the server does not know it).
 */
import { createHash } from 'node:crypto';
import { configError } from '../engine/errors';
import { StoreLate } from '../engine/store';

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
      const ready = () => client.status === 'ready';
      return (args) => {
        if (!ready()) return Promise.reject(notReady(client.status));
        const [command = '', ...rest] = args;
        return answerOf(client, ready, client.call(command, ...rest));
      };
    }
    if (typeof client.sendCommand === 'function') {
      const ready = () => client.isReady;
      return (args) =>
        ready() ? answerOf(client, ready, client.sendCommand(args)) : Promise.reject(notReady('not ready'));
    }
  }
  throw configError(undefined, 'client', 'must be a connected `redis` (node-redis) or `ioredis` client');
}

const notReady = (status: string) => new Error(`the Redis client is not connected (${status})`);

/** Whether `error` is the server's own answer (`ERR …`, `NOSCRIPT …`, `OOM …`): the command ran, or was refused. */
const isReply = (error: unknown) => /^[A-Z]{2,}[A-Z_-]*\b/.test(String((error as Error)?.message));

/** The clients' own `ready` event, once for every command waiting on it. */
const readiness = new WeakMap<object, Promise<undefined>>();

/**
 * Resolves once `client` is ready again (never, for a client that cannot say so): a command whose
 * answer was lost is undone then, on a connection that can carry it.
 */
function readyAgain(client: RedisClient, ready: () => boolean): Promise<undefined> {
  if (ready()) return Promise.resolve(undefined);
  const events = client as { once?: (event: 'ready', listener: () => void) => unknown };
  if (typeof events.once !== 'function') return new Promise(() => {});
  let waiting = readiness.get(client);
  if (!waiting) {
    waiting = new Promise((resolve) => {
      events.once?.('ready', () => {
        readiness.delete(client);
        resolve(undefined);
      });
    });
    readiness.set(client, waiting);
  }
  return waiting;
}

/**
 * A sent command's answer. One lost on the way back (the connection dropped after the command
 * left: node-redis rejects it then) may have run: it fails as a {@link StoreLate}, so what it took
 * is undone by its id once the client is ready again, rather than held until its lease ends.
 */
function answerOf(client: RedisClient, ready: () => boolean, sending: Promise<unknown>): Promise<unknown> {
  return sending.catch((error: unknown) => {
    if (isReply(error)) throw error;
    const said = `the Redis connection dropped before the answer (${(error as Error)?.message ?? String(error)})`;
    throw new StoreLate(said, readyAgain(client, ready), error);
  });
}

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
