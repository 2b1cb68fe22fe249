/**
 * Issue 12, item 5: a store that answers garbage for the breaker is treated like an unreachable
 * one. The call goes ahead (the real vendor gets it), a `store` event says what was read, and the
 * breaker's write replaces the corrupt value, so the next call reads a sound state.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStore, stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { collect, startScenario } from '../helpers/runs';

describe('a store holding a corrupt breaker state', () => {
  it.each<[string, unknown]>([
    ['a string', 'garbage'],
    ['a number', 42],
    ['an empty object', {}],
    ['open without until', { state: 'open' }],
    ['open with until NaN', { state: 'open', until: Number.NaN }],
    ['closed with failures -1', { state: 'closed', failures: -1 }],
    ['half-open with a lease without expiry', { state: 'half-open', lease: { id: 'x' } }],
    ['closed with buckets that are not', { state: 'closed', failures: 0, buckets: 'many' }],
  ])(
    '%s: the call goes ahead, a store event says so, the next write replaces it',
    async (_label, garbage) => {
      const store = createMemoryStore();
      const { vendor, engine } = await startScenario({ engine: { store } });
      await store.set(`circuit:${vendor.origin}`, garbage);
      const read = stitch({ name: uniqueKey('read'), url: vendor.url('/x'), circuit: { failures: 1 } });

      const run = read({}, { engine });
      const events = collect(run);
      expect(await run).toEqual({ path: '/x', query: {} });
      expect(vendor.requests()).toBe(1);
      const said = (await events).filter((event) => event.type === 'store');
      expect(said).toHaveLength(1);
      expect(said[0]).toMatchObject({
        key: vendor.origin,
        error: expect.stringContaining('corrupt breaker state'),
      });

      expect(await store.get(`circuit:${vendor.origin}`)).toEqual({ state: 'closed', failures: 0 });
      expect(await engine.circuitState(vendor.origin)).toEqual({ state: 'closed', failures: 0 });
      const next = read({}, { engine });
      const nextEvents = collect(next);
      await next;
      expect((await nextEvents).some((event) => event.type === 'store')).toBe(false);
    },
  );

  it('circuitState never hands the garbage out', async () => {
    const store = createMemoryStore();
    const { vendor, engine } = await startScenario({ engine: { store } });
    await store.set(`circuit:${vendor.origin}`, { state: 'open' });
    expect(await engine.circuitState(vendor.origin)).toEqual({ state: 'closed', failures: 0 });
  });
});
