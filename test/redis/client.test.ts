/**
 * The client adapter (src/redis/client.ts) over fakes of the clients' shapes, no server needed:
 * what each client is sent, and what a failure in the client itself is reported as.
 */
import { describe, expect, it } from 'vitest';
import { StoreLate } from '../../src/engine/store';
import { commandsOf, scriptsOf } from '../../src/redis/client';
import type { NodeRedisClusterClient, RedisClient } from '../../src/redis/index';

describe('the Redis client adapter', () => {
  it('sends a node-redis cluster client each command with its key, so it goes to the node of that slot', async () => {
    const sent: unknown[][] = [];
    const cluster: NodeRedisClusterClient = {
      isReady: true,
      masters: [],
      sendCommand: async (...call) => {
        sent.push(call);
        return 0;
      },
    };
    const send = commandsOf(cluster);
    await scriptsOf(send)('return 0', 'stitch:rate:a', ['1']);
    await send(['ZREM', 'stitch:slots:b', 'id'], 'stitch:slots:b');
    expect(sent).toEqual([
      ['stitch:rate:a', false, ['EVALSHA', expect.any(String), '1', 'stitch:rate:a', '1']],
      ['stitch:slots:b', false, ['ZREM', 'stitch:slots:b', 'id']],
    ]);
  });

  it('a TypeError in the client is its own failure, not a connection that dropped: nothing to undo', async () => {
    // What a client of a shape Stitch does not expect throws (a node-redis cluster client sent a
    // single node's arguments read `args.forEach` of undefined).
    const bug = new TypeError("Cannot read properties of undefined (reading 'forEach')");
    const client: RedisClient = {
      isReady: true,
      sendCommand: async () => {
        throw bug;
      },
    };
    const failed = await commandsOf(client)(['ZREM', 'k', 'id'], 'k').catch((error: unknown) => error);
    expect(failed).not.toBeInstanceOf(StoreLate);
    expect(failed).toMatchObject({
      message: `the Redis client failed (TypeError: ${bug.message})`,
      cause: bug,
    });
  });
});
