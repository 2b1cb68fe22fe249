import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createMemoryStore } from '../../src/engine/store';

/** A memory store on a hand-moved time source. */
function setup(start = 1_000) {
  let now = start;
  const store = createMemoryStore(() => now);
  return {
    store,
    advance(ms: number) {
      now += ms;
    },
  };
}

describe('createMemoryStore', () => {
  it('times TTLs on the monotonic clock by default: a wall-clock step expires nothing', async () => {
    const wall = Date.now.bind(Date);
    let step = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => wall() + step);
    onTestFinished(() => {
      vi.restoreAllMocks();
    });
    const store = createMemoryStore();
    await store.set('record', 'charged', 60_000);
    step = 24 * 3_600_000;
    expect(await store.get('record')).toBe('charged');
  });

  it('gets undefined for a missing key and what was set for a present one', async () => {
    const { store } = setup();
    expect(await store.get('missing')).toBeUndefined();
    const value = { state: 'closed', failures: 0 };
    await store.set('breaker', value);
    expect(await store.get('breaker')).toEqual(value);
  });

  it('keeps an entry without ttl forever', async () => {
    const { store, advance } = setup();
    await store.set('k', 1);
    advance(1e12);
    expect(await store.get('k')).toBe(1);
  });

  it('expires an entry exactly ttl ms after it was set, on the injected clock', async () => {
    const { store, advance } = setup();
    await store.set('k', 'v', 100);
    advance(99);
    expect(await store.get('k')).toBe('v');
    advance(1);
    expect(await store.get('k')).toBeUndefined();
  });

  it('replaces a value and its ttl on set', async () => {
    const { store, advance } = setup();
    await store.set('k', 'old', 10);
    await store.set('k', 'new', 1_000);
    advance(500);
    expect(await store.get('k')).toBe('new');
  });

  it('deletes, and set(undefined) deletes too', async () => {
    const { store } = setup();
    await store.set('a', 1);
    await store.set('b', 2);
    await store.delete('a');
    await store.set('b', undefined);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('b')).toBeUndefined();
    await store.delete('never-set');
  });

  it('update passes the current value and stores and resolves the new one', async () => {
    const { store } = setup();
    const seen: unknown[] = [];
    const first = await store.update<number>('count', (current) => {
      seen.push(current);
      return (current ?? 0) + 1;
    });
    const second = await store.update<number>('count', (current) => {
      seen.push(current);
      return (current ?? 0) + 1;
    });
    expect(seen).toEqual([undefined, 1]);
    expect([first, second]).toEqual([1, 2]);
    expect(await store.get('count')).toBe(2);
  });

  it('update returning undefined deletes the entry', async () => {
    const { store } = setup();
    await store.set('k', 'v');
    expect(await store.update('k', () => undefined)).toBeUndefined();
    expect(await store.get('k')).toBeUndefined();
  });

  it('update sees an expired entry as missing and applies its ttl', async () => {
    const { store, advance } = setup();
    await store.set('k', 5, 10);
    advance(10);
    expect(await store.update<number>('k', (current) => (current ?? 0) + 1, 50)).toBe(1);
    advance(49);
    expect(await store.get('k')).toBe(1);
    advance(1);
    expect(await store.get('k')).toBeUndefined();
  });

  it('update is atomic: concurrent increments lose nothing', async () => {
    const { store } = setup();
    await Promise.all(
      Array.from({ length: 100 }, () => store.update<number>('hits', (current) => (current ?? 0) + 1)),
    );
    expect(await store.get('hits')).toBe(100);
  });

  it('a transition that throws rejects and leaves the value as it was', async () => {
    const { store } = setup();
    await store.set('k', 'kept');
    await expect(
      store.update('k', () => {
        throw new Error('bad transition');
      }),
    ).rejects.toThrow('bad transition');
    expect(await store.get('k')).toBe('kept');
  });

  it('keeps separate stores separate', async () => {
    const a = setup().store;
    const b = setup().store;
    await a.set('k', 'a');
    expect(await b.get('k')).toBeUndefined();
  });
});
