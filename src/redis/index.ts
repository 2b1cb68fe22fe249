/**
 * `stitch-fetch/redis`: many processes, one truth. `createRedisStore(client)` gives an engine a
 * store that shares breakers (and their half-open lease), throttle rates (and, when asked, throttle
 * concurrency), retry budgets and idempotency records with every other process on the same Redis,
 * through the user's own `redis` or `ioredis` client. See docs/SCALING.md.
 * @module stitch-fetch/redis
 */
import type { CircuitState } from '../engine/circuit';
import { describeStored } from '../engine/circuitState';
import { checking, checkKnown, configError } from '../engine/errors';
import {
  type CircuitChange,
  type Claim,
  circuitTtl,
  type IdempotencyRecord,
  type SharedState,
} from '../engine/shared';
import { lateOf } from '../engine/store';
import { createSharedBudget } from './budget';
import {
  commandsOf,
  type IoRedisClient,
  type NodeRedisClient,
  type NodeRedisClusterClient,
  type RedisClient,
  scriptsOf,
} from './client';
import { BUDGET, CIRCUIT, CLAIM, END_RATE, SETTLE, TAKE_RATE, TAKE_SLOT } from './scripts';
import { createSharedThrottle } from './throttle';

export type { SharedState } from '../engine/shared';
export type { IoRedisClient, NodeRedisClient, NodeRedisClusterClient, RedisClient };

/** Options of {@link createRedisStore}. */
export interface RedisStoreOptions {
  /**
   * Put before every key Stitch writes, so several apps (or environments) can share one Redis
   * without sharing breakers. @default 'stitch:'
   */
  prefix?: string | undefined;
}

/** A reply that is not what the script returns: treated like an unreachable store. */
const garbage = (what: string) => new Error(`the Redis store answered ${what} with something unexpected`);

const isCircuitState = (value: unknown): value is CircuitState => {
  const s = value as Record<string, unknown> | null;
  if (typeof s !== 'object' || s === null) return false;
  if (s.state === 'closed') return typeof s.failures === 'number';
  if (s.state === 'open') return typeof s.until === 'number';
  const lease = s.lease as Record<string, unknown> | null;
  return (
    s.state === 'half-open' && (lease === null || (typeof lease === 'object' && typeof lease.id === 'string'))
  );
};

/** cjson writes an empty table as `{}`: a closed state's buckets come back as an array. */
const asState = (value: unknown): CircuitState => {
  if (!isCircuitState(value)) throw garbage('a breaker change');
  if (value.state === 'closed' && value.buckets !== undefined && !Array.isArray(value.buckets)) {
    return { ...value, buckets: [] };
  }
  return value;
};

const parse = (reply: unknown, what: string): unknown => {
  if (typeof reply !== 'string') throw garbage(what);
  try {
    return JSON.parse(reply);
  } catch {
    throw garbage(what);
  }
};

/**
 * Sends an operation that gives back or settles by its id (sending it twice does what sending it
 * once does): one whose answer a dropped connection lost is sent again once the client is ready
 * (and one the engine gave up on, once it has run: a second send that changes nothing), so a
 * slot, a grant or a claim is not held until its lease ends. It still fails as it did.
 */
async function again<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    lateOf(error)
      ?.then(operation)
      .catch(() => {});
    throw error;
  }
}

/** What a corrupt breaker key held: its JSON as the value it encodes, anything else as text. */
const describeRaw = (raw: string): string => {
  try {
    return describeStored(JSON.parse(raw));
  } catch {
    return describeStored(raw);
  }
};

/** The `prefix` of `options`, checked. */
function prefixOf(options: RedisStoreOptions): string {
  if (typeof options !== 'object' || options === null)
    throw configError(undefined, 'options', 'must be { prefix }');
  checkKnown(undefined, '', options, ['prefix']);
  const { prefix = 'stitch:' } = options;
  if (typeof prefix !== 'string') throw configError(undefined, 'prefix', 'must be a string');
  return prefix;
}

/**
 * Creates a store for `createEngine({ store })` that keeps breakers, throttle rates (a `rate` is
 * then shared across processes unless the throttle says `shared: false`), throttle concurrency
 * slots (when the throttle says `shared: { concurrency: true }`), retry budgets and idempotency
 * records in Redis. Every operation is one Lua script (one round trip) timed by the
 * server's clock, and every key it writes expires. The client must be connected (`await
 * client.connect()` for node-redis); while it is not, calls fail open with a `store` event.
 * @param client a connected `redis` (node-redis) or `ioredis` client, of one node or a cluster
 *   (`createCluster`, `new Cluster`); Stitch never closes it.
 * @throws StitchError of kind `'config'` naming `client`, `options` or `prefix` (one that cannot be
 *   read too: a getter that throws).
 */
export function createRedisStore(client: RedisClient, options: RedisStoreOptions = {}): SharedState {
  const send = checking(undefined, 'client', () => commandsOf(client));
  const run = scriptsOf(send);
  const prefix = checking(undefined, 'options', () => prefixOf(options));
  /** Takes member `id` (a grant, a slot) out of the sorted set `name`. */
  const forget = (name: string, id: string) => send(['ZREM', name, id], name);

  return {
    async circuit(key, command, limits): Promise<CircuitChange> {
      const args = [JSON.stringify(command), JSON.stringify(limits), String(Math.ceil(circuitTtl(limits)))];
      const reply = await run(CIRCUIT, `${prefix}circuit:${key}`, args);
      const change = parse(reply, 'a breaker change') as Record<string, unknown>;
      if (typeof change?.now !== 'number') throw garbage('a breaker change');
      const read = { from: asState(change.from), to: asState(change.to), now: change.now };
      if (typeof change.corrupt === 'string') return { ...read, corrupt: describeRaw(change.corrupt) };
      if (typeof change.kind === 'string') return { ...read, corrupt: `a Redis ${change.kind}` };
      return read;
    },
    async claim(key, owner, lease): Promise<Claim> {
      const pending: IdempotencyRecord = { state: 'pending', owner };
      const args = [JSON.stringify(pending), String(Math.ceil(lease))];
      const reply = await run(CLAIM, `${prefix}idempotency:${key}`, args);
      if (reply === null) return { status: 'claimed' };
      const record = parse(reply, 'an idempotency claim') as IdempotencyRecord;
      if (record?.state === 'done' && record.data !== undefined) return { status: 'done', data: record.data };
      if (record?.state === 'pending' && typeof record.owner === 'string')
        return record.owner === owner ? { status: 'claimed' } : { status: 'pending' };
      throw garbage('an idempotency claim');
    },
    async settle(key, owner, outcome, ttl) {
      const done: IdempotencyRecord | undefined = outcome && { state: 'done', data: outcome.data };
      const args = [owner, done ? JSON.stringify(done) : '', String(Math.ceil(ttl))];
      await again(() => run(SETTLE, `${prefix}idempotency:${key}`, args));
    },
    async takeRate(key, rate, id) {
      const reply = await run(TAKE_RATE, `${prefix}rate:${key}`, [String(rate.count), String(rate.per), id]);
      if (typeof reply !== 'number') throw garbage('a rate grant');
      return reply;
    },
    async returnRate(key, id) {
      await again(() => forget(`${prefix}rate:${key}`, id));
    },
    async endRate(key, id) {
      await again(() => run(END_RATE, `${prefix}rate:${key}`, [id]));
    },
    async takeSlot(key, limit, id, lease) {
      const args = [String(limit), String(Math.ceil(lease)), id];
      const reply = await run(TAKE_SLOT, `${prefix}slots:${key}`, args);
      if (typeof reply !== 'number') throw garbage('a concurrency slot');
      return reply;
    },
    async returnSlot(key, id) {
      await again(() => forget(`${prefix}slots:${key}`, id));
    },
    async budget(key, limits, calls, retry) {
      const args = [
        // Whole milliseconds: PEXPIRE takes nothing else (and Redis keeps what a failed script wrote).
        String(Math.ceil(limits.window)),
        String(limits.ratio),
        String(limits.floor),
        String(calls),
        retry ? '1' : '0',
      ];
      const reply = await run(BUDGET, `${prefix}budget:${key}`, args);
      if (reply !== 0 && reply !== 1) throw garbage('a retry budget');
      return reply === 1;
    },
    shareThrottle: createSharedThrottle,
    shareBudget: createSharedBudget,
  };
}
