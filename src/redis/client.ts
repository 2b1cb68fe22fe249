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

/** A `redis` (node-redis 4.6+) cluster client (`createCluster`), as far as Stitch uses it. */
export interface NodeRedisClusterClient {
  /** Sends one command, name first, to the node that serves `firstKey`'s slot. */
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
  ): Promise<unknown>;
  readonly isReady: boolean;
  /** The cluster's masters: what tells a cluster client from a single-node one. */
  readonly masters: readonly unknown[];
}

/** An `ioredis` client, as far as Stitch uses it. */
export interface IoRedisClient {
  /** Sends one command by name, with its arguments. */
  call(command: string, ...args: string[]): Promise<unknown>;
  readonly status: string;
}

/** A connected client of either library (for node-redis, a single node or a cluster). */
export type RedisClient = NodeRedisClient | NodeRedisClusterClient | IoRedisClient;

/**
 * Runs `script` on `key` (its only key: one cluster slot) and `args`: one round trip (two the
 * first time after a server restart).
 */
export type ScriptRunner = (script: string, key: string, args: string[]) => Promise<unknown>;

/**
 * Sends one command on `key`, its only key: a cluster client sends it to the node of that key's
 * slot. Every command Stitch sends (each script included) touches one key, so one slot.
 */
export type CommandSender = (args: string[], key: string) => Promise<unknown>;

const isIoRedis = (client: RedisClient): client is IoRedisClient =>
  typeof (client as IoRedisClient).call === 'function' && 'status' in client;

// node-redis's cluster client takes (firstKey, isReadonly, args) where a single node's takes
// (args): sent the single node's way, it fails in the client, before anything is sent.
const isNodeRedisCluster = (client: RedisClient): client is NodeRedisClusterClient =>
  Array.isArray((client as NodeRedisClusterClient).masters);

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
      // Never read-only: the scripts write, and a read must see the master's latest write.
      const sending = isNodeRedisCluster(client)
        ? (args: string[], key: string) => client.sendCommand(key, false, args)
        : (args: string[]) => client.sendCommand(args);
      return (args, key) =>
        ready() ? answerOf(client, ready, sending(args, key)) : Promise.reject(notReady('not ready'));
    }
  }
  throw configError(undefined, 'client', 'must be a connected `redis` (node-redis) or `ioredis` client');
}

const notReady = (status: string) => new Error(`the Redis client is not connected (${status})`);

/** Whether `error` is the server's own answer (`ERR …`, `NOSCRIPT …`, `OOM …`): the command ran, or was refused. */
const isReply = (error: unknown) => /^[A-Z]{2,}[A-Z_-]*\b/.test(String((error as Error)?.message));

/**
 * Whether `error` is the client's own failure to handle the call (a `TypeError`, say, from a
 * client of another shape): nothing lost on the way, nothing to undo.
 */
const isClientBug = (error: unknown) =>
  error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError;

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
    if (isClientBug(error)) throw new Error(`the Redis client failed (${String(error)})`, { cause: error });
    const said = `the Redis connection dropped before the answer (${(error as Error)?.message ?? String(error)})`;
    throw new StoreLate(said, readyAgain(client, ready), error);
  });
}

/** Runs scripts by SHA-1, falling back to sending the source once the server says it lacks it. */
export function scriptsOf(send: CommandSender): ScriptRunner {
  const shas = new Map<string, string>();
  return async (script, key, args) => {
    let sha = shas.get(script);
    if (sha === undefined) {
      sha = createHash('sha1').update(script).digest('hex');
      shas.set(script, sha);
    }
    const tail = ['1', key, ...args];
    try {
      return await send(['EVALSHA', sha, ...tail], key);
    } catch (error) {
      // A restarted (or flushed) server forgot the script: EVAL sends it and caches it again.
      if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
      return send(['EVAL', script, ...tail], key);
    }
  };
}
