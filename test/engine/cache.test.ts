import { describe, expect, it } from 'vitest';
import { createCache, type DehydratedState, normalizeCache } from '../../src/engine/cache';
import { StitchError } from '../../src/engine/errors';
import { createManualClock } from '../helpers/clock';

const policy = { ttl: 1_000, staleWhileRevalidate: 5_000, scope: undefined };

describe('createCache', () => {
  it('says fresh within ttl, stale within ttl + staleWhileRevalidate, none after', async () => {
    const clock = createManualClock();
    const cache = createCache(clock, 10);
    expect(cache.freshness('k', policy)).toBe('none');
    cache.store('k', { n: 1 });
    expect(cache.freshness('k', policy)).toBe('fresh');
    clock.schedule(0, () => {});
    await clock.advance(1_000);
    expect(cache.freshness('k', policy)).toBe('stale');
    await clock.advance(5_000);
    expect(cache.freshness('k', policy)).toBe('none');
    expect(cache.snapshot('k').data).toEqual({ n: 1 });
  });

  it('keeps snapshot identity until something changes, and tells subscribers once per change', () => {
    const cache = createCache(createManualClock(), 10);
    let calls = 0;
    const unsubscribe = cache.subscribe('k', () => calls++);
    const empty = cache.snapshot('k');
    expect(cache.snapshot('k')).toBe(empty);
    cache.fetching('k', true);
    const fetching = cache.snapshot('k');
    expect(fetching).not.toBe(empty);
    cache.fetching('k', true);
    expect(cache.snapshot('k')).toBe(fetching);
    expect(calls).toBe(1);
    cache.store('k', 'data');
    expect(calls).toBe(2);
    unsubscribe();
    cache.fetching('k', false);
    expect(calls).toBe(2);
  });

  it("keeps the URL a key's data answered, until other data replaces it (written, hydrated, dropped)", async () => {
    const clock = createManualClock();
    const cache = createCache(clock, 10);
    cache.store('k', 1, true, 'https://api.test/k?a=1');
    expect(cache.source('k')).toBe('https://api.test/k?a=1');
    cache.fetching('k', true);
    cache.fail('k', new StitchError({ kind: 'http', status: 503, message: '503' }));
    expect(cache.source('k')).toBe('https://api.test/k?a=1');
    cache.store('k', 2, true);
    expect(cache.source('k')).toBeUndefined();
    cache.store('k', 3, true, 'https://api.test/k?a=3');
    await clock.advance(1);
    cache.hydrate({ version: 1, entries: [['k', 4, clock.now()]] });
    expect(cache.source('k')).toBeUndefined();
    cache.store('k', 5, true, 'https://api.test/k?a=5');
    cache.drop((key) => key === 'k');
    expect(cache.source('k')).toBeUndefined();
  });

  it('a failure is kept beside the data and cleared by the next success', () => {
    const cache = createCache(createManualClock(), 10);
    cache.store('k', 'old');
    const error = new StitchError({ kind: 'http', status: 503, message: '503' });
    cache.fail('k', error);
    expect(cache.snapshot('k')).toMatchObject({ data: 'old', error });
    cache.store('k', 'new');
    expect(cache.snapshot('k').error).toBeUndefined();
  });

  it('evicts the least recently used entries beyond maxEntries, never one with subscribers', () => {
    const cache = createCache(createManualClock(), 2);
    cache.store('a', 1);
    cache.subscribe('a', () => {});
    cache.store('b', 2);
    cache.store('c', 3);
    cache.store('d', 4);
    expect(cache.snapshot('a').data).toBe(1);
    expect(cache.snapshot('b').data).toBeUndefined();
    expect(cache.snapshot('c').data).toBeUndefined();
    expect(cache.snapshot('d').data).toBe(4);
  });

  it('keeps nothing for keys subscribed to and let go of without a change; bounds the rest a microtask later', async () => {
    const cache = createCache(createManualClock(), 100);
    for (let i = 0; i < 1_000; i++) cache.subscribe(`keystroke-${i}`, () => {})();
    expect(cache.list()).toHaveLength(0);
    for (let i = 0; i < 1_000; i++) cache.store(`page-${i}`, i);
    await Promise.resolve();
    expect(cache.list()).toHaveLength(100);
    // Nor for a key whose read ended without data (a keystroke's, superseded): fresh data stays.
    const small = createCache(createManualClock(), 2);
    small.store('profile', 'kept');
    for (const key of ['q=a', 'q=ab', 'q=abc']) {
      const typing = small.subscribe(key, () => {});
      small.fetching(key, true);
      small.fetching(key, false);
      typing();
    }
    expect(small.list().map(([key]) => key)).toEqual(['profile']);
    // A reader that lets go and comes back at once keeps its entry.
    cache.store('shown', 1);
    const leave = cache.subscribe('shown', () => {});
    for (let i = 0; i < 200; i++) cache.subscribe(`next-${i}`, () => {})();
    leave();
    cache.subscribe('shown', () => {});
    await Promise.resolve();
    expect(cache.snapshot('shown').data).toBe(1);
    expect(cache.list()).toHaveLength(100);
  });

  it('never evicts a key whose request is in flight: its snapshot still says fetching', () => {
    const cache = createCache(createManualClock(), 1);
    cache.fetching('held', true);
    cache.store('other', 1);
    cache.store('another', 2);
    expect(cache.snapshot('held').fetching).toBe(true);
    expect(cache.snapshot('other').data).toBeUndefined();
    // Its request done, it is the most recently used of the idle ones.
    cache.store('held', 'data', true);
    expect(cache.list().map(([key]) => key)).toEqual(['held']);
  });

  it('a key whose last subscriber leaves is evictable again, as the most recently used', () => {
    const cache = createCache(createManualClock(), 1);
    const leave = cache.subscribe('a', () => {});
    cache.store('a', 1);
    for (const key of ['b', 'c']) cache.subscribe(key, () => {});
    cache.store('b', 2);
    leave();
    cache.store('c', 3);
    expect(cache.snapshot('a').data).toBeUndefined();
    expect(cache.snapshot('b').data).toBe(2);
    expect(cache.snapshot('c').data).toBe(3);
  });

  it('invalidate marks matching keys stale, keeps their data, and notifies each time', () => {
    const cache = createCache(createManualClock(), 10);
    let told = 0;
    cache.store('users:1', 1);
    cache.store('posts:1', 2);
    cache.subscribe('users:1', () => told++);
    cache.invalidate((key) => key.startsWith('users'));
    cache.invalidate((key) => key.startsWith('users'));
    expect(cache.snapshot('users:1')).toMatchObject({ data: 1, stale: true, invalidated: 2 });
    expect(cache.freshness('users:1', { ttl: 60_000, staleWhileRevalidate: 0, scope: undefined })).toBe(
      'none',
    );
    expect(cache.snapshot('posts:1')).toMatchObject({ data: 2, stale: false, invalidated: 0 });
    expect(told).toBe(2);
    cache.store('users:1', 3);
    expect(cache.snapshot('users:1')).toMatchObject({ data: 3, stale: false });
  });

  it('drop removes the data of matching keys and notifies', () => {
    const cache = createCache(createManualClock(), 10);
    let told = 0;
    cache.store('users:1', 1);
    cache.store('posts:1', 2);
    cache.subscribe('users:1', () => told++);
    cache.drop((key) => key.startsWith('users'));
    expect(cache.snapshot('users:1').data).toBeUndefined();
    expect(cache.snapshot('posts:1').data).toBe(2);
    expect(told).toBe(1);
  });

  it('dehydrate → hydrate carries data and its age; an older copy never replaces newer data', async () => {
    const serverClock = createManualClock(100);
    const server = createCache(serverClock, 10);
    server.store('k', { from: 'server' });
    await serverClock.advance(30);
    const state = JSON.parse(JSON.stringify(server.dehydrate()));
    // The client's monotonic clock has another origin (its wall clock agrees with the server's):
    // the data is 30 ms old on it too.
    for (const start of [200, 5_000_000, 0]) {
      const clock = createManualClock(start);
      clock.stepWall(serverClock.wallNow() - start);
      const client = createCache(clock, 10);
      client.hydrate(state);
      expect(client.snapshot('k')).toMatchObject({ data: { from: 'server' }, updatedAt: start - 30 });
      client.store('k', { from: 'client' });
      client.hydrate(state);
      expect(client.snapshot('k').data).toEqual({ from: 'client' });
    }
  });

  it('the same state taken in again (a provider that mounts again) has aged: it never replaces newer data', async () => {
    const server = createCache(createManualClock(100), 10);
    server.store('k', { v: 1 });
    const state = server.dehydrate();
    const clock = createManualClock(5_000);
    const client = createCache(clock, 10);
    client.hydrate(state);
    await clock.advance(10_000);
    client.store('k', { v: 2 });
    await clock.advance(10_000);
    client.hydrate(state);
    expect(client.snapshot('k')).toMatchObject({ data: { v: 2 }, updatedAt: 15_000 });
    // So has a copy of it (parsed again from the page on each render).
    client.hydrate(JSON.parse(JSON.stringify(state)));
    expect(client.snapshot('k')).toMatchObject({ data: { v: 2 }, updatedAt: 15_000 });
  });

  it('keeps data fetched while the state was on its way (told by the wall clocks)', async () => {
    const serverClock = createManualClock(1_000);
    const server = createCache(serverClock, 10);
    server.store('k', { n: 1 });
    const state = JSON.parse(JSON.stringify(server.dehydrate()));
    // The client (another monotonic origin, the same wall time) holds the state 5 s (a route's
    // payload kept until a click), fetching the key itself meanwhile.
    const clock = createManualClock(70_000);
    clock.stepWall(1_000 - 70_000);
    const client = createCache(clock, 10);
    await clock.advance(2_000);
    client.store('k', { n: 2 });
    await clock.advance(3_000);
    client.hydrate(state);
    expect(client.snapshot('k')).toMatchObject({ data: { n: 2 }, updatedAt: 72_000 });
    // A key it does not hold is taken in with the age it had when taken (the monotonic clocks'
    // say: the wall clocks may disagree).
    const other = createCache(clock, 10);
    other.hydrate(state);
    expect(other.snapshot('k')).toMatchObject({ data: { n: 1 }, updatedAt: 75_000 });
  });

  it('takes in a later state’s newer copy over an earlier state’s, in whichever order they come', async () => {
    const serverClock = createManualClock(1_000);
    const server = createCache(serverClock, 10);
    server.store('k', { n: 0 });
    const older = JSON.parse(JSON.stringify(server.dehydrate()));
    await serverClock.advance(50);
    server.store('k', { n: 1 });
    const newer = JSON.parse(JSON.stringify(server.dehydrate()));
    for (const order of [
      [older, newer],
      [newer, older],
    ]) {
      // Both arrive 200 ms after the second was taken (a layout's state, then a nested page's).
      const clock = createManualClock(90_000);
      clock.stepWall(serverClock.wallNow() + 200 - 90_000);
      const client = createCache(clock, 10);
      for (const state of order) client.hydrate(state);
      expect(client.snapshot('k').data).toEqual({ n: 1 });
    }
  });

  it('takes the copy fetched later from two servers, one whose wall clock runs a minute ahead', () => {
    const clock = createManualClock(50_000);
    const wall = clock.wallNow();
    // Server 1 (wall clock 60 s ahead) fetched v1 2 s before taking its state; server 2 (on
    // time) fetched v2 half a second before taking its own: 1.5 s later. Both were taken 10 ms ago.
    const skewed: DehydratedState = {
      version: 1,
      at: 5_000,
      wallAt: wall - 10 + 60_000,
      entries: [['k', { v: 1 }, 3_000]],
    };
    const onTime: DehydratedState = {
      version: 1,
      at: 9_000,
      wallAt: wall - 10,
      entries: [['k', { v: 2 }, 8_500]],
    };
    for (const order of [
      [skewed, onTime],
      [onTime, skewed],
    ] as const) {
      const client = createCache(clock, 10);
      for (const state of order) client.hydrate(state);
      expect(client.snapshot('k').data).toEqual({ v: 2 });
    }
  });

  it("a client wall clock behind the server's counts no time on the way", async () => {
    const server = createCache(createManualClock(10_000), 10);
    server.store('k', 1);
    const state = server.dehydrate();
    const clock = createManualClock(500);
    const client = createCache(clock, 10);
    client.store('k', 2);
    await clock.advance(1);
    client.hydrate(state);
    expect(client.snapshot('k')).toMatchObject({ data: 1, updatedAt: 501 });
  });

  it('a state without its time (written by hand) is read on the hydrating clock', () => {
    const client = createCache(createManualClock(200), 10);
    client.hydrate({ version: 1, entries: [['k', 1, 150]] });
    expect(client.snapshot('k').updatedAt).toBe(150);
  });
});

describe('normalizeCache', () => {
  it('fills defaults, reads a number as ttl, and refuses writes and bad values', () => {
    expect(normalizeCache(undefined, true, 's')).toEqual({
      ttl: 0,
      staleWhileRevalidate: 0,
      scope: undefined,
    });
    expect(normalizeCache(30_000, true, 's')?.ttl).toBe(30_000);
    expect(normalizeCache(false, true, 's')?.ttl).toBe(0);
    expect(normalizeCache(false, false, 's')).toBeUndefined();
    expect(normalizeCache(undefined, false, 's')).toBeUndefined();
    expect(() => normalizeCache({ ttl: 1 }, false, 's')).toThrow(expect.objectContaining({ field: 'cache' }));
    expect(() => normalizeCache({ ttl: -1 }, true, 's')).toThrow(
      expect.objectContaining({ field: 'cache.ttl' }),
    );
    expect(() => normalizeCache(Number.NaN, true, 's')).toThrow(expect.objectContaining({ field: 'cache' }));
  });
});

describe('hydrate', () => {
  it.each<[string, unknown, string]>([
    ['null', null, 'state'],
    ['a list', [], 'state'],
    ['another version', { version: 2, entries: [] }, 'state.version'],
    ['no entries', { version: 1 }, 'state.entries'],
    ['entries null', { version: 1, entries: null }, 'state.entries'],
    ['an entry null', { version: 1, entries: [['a', 1, 1], null] }, 'state.entries[1]'],
    ['a key that is not a string', { version: 1, entries: [[1, 1, 1]] }, 'state.entries[0]'],
    ['data undefined', { version: 1, entries: [['a', undefined, 1]] }, 'state.entries[0]'],
    ['a time that is not one', { version: 1, entries: [['a', 1, '1']] }, 'state.entries[0]'],
    ['a time NaN', { version: 1, entries: [['a', 1, Number.NaN]] }, 'state.entries[0]'],
    ['a wall time that is not one', { version: 1, wallAt: '1', entries: [] }, 'state.wallAt'],
  ])('refuses %s, naming `%s`', (_, state, field) => {
    const cache = createCache(createManualClock(), 10);
    expect(() => cache.hydrate(state as DehydratedState)).toThrow(
      expect.objectContaining({ kind: 'config', field }),
    );
  });

  it('takes in nothing from a state refused: not even the entries before the bad one', () => {
    const cache = createCache(createManualClock(), 10);
    cache.store('kept', 'before');
    const state = { version: 1, entries: [['kept', 'after', 1e15], ['new', 'taken', 1], null] };
    expect(() => cache.hydrate(state as unknown as DehydratedState)).toThrow(
      expect.objectContaining({ kind: 'config', field: 'state.entries[2]' }),
    );
    expect(cache.snapshot('kept').data).toBe('before');
    expect(cache.snapshot('new').data).toBeUndefined();
  });

  it('takes data stamped ahead of its clock as stamped now: it ages from now', async () => {
    const clock = createManualClock(1_000);
    const cache = createCache(clock, 10);
    cache.hydrate({ version: 1, entries: [['k', 'from a clock far ahead', 1e15]] });
    expect(cache.snapshot('k')).toMatchObject({ data: 'from a clock far ahead', updatedAt: 1_000 });
    const ttl = { ttl: 500, staleWhileRevalidate: 0, scope: undefined };
    expect(cache.freshness('k', ttl)).toBe('fresh');
    await clock.advance(500);
    expect(cache.freshness('k', ttl)).toBe('none');
  });
});

describe('clock skew', () => {
  it('data stamped in the future is never fresh under ttl 0, and fresh under a positive ttl', () => {
    const client = createCache(createManualClock(1_000), 10);
    client.hydrate({ version: 1, entries: [['k', 'from a server 5 s ahead', 6_000]] });
    expect(client.freshness('k', { ttl: 0, staleWhileRevalidate: 0, scope: undefined })).toBe('none');
    expect(client.freshness('k', { ttl: 1, staleWhileRevalidate: 0, scope: undefined })).toBe('fresh');
  });
});

describe('least recently used', () => {
  it('a cache hit counts as a use, so a hot key outlives keys written after it', () => {
    const cache = createCache(createManualClock(), 2);
    const fresh = { ttl: 1_000, staleWhileRevalidate: 0, scope: undefined };
    cache.store('hot', 1);
    cache.store('b', 2);
    expect(cache.freshness('hot', fresh)).toBe('fresh');
    cache.store('c', 3);
    expect(cache.snapshot('hot').data).toBe(1);
    expect(cache.snapshot('b').data).toBeUndefined();
  });

  it('a key read twice in a row is still moved up once another key became more recent', () => {
    const cache = createCache(createManualClock(), 2);
    const fresh = { ttl: 1_000, staleWhileRevalidate: 0, scope: undefined };
    cache.store('hot', 1);
    cache.store('b', 2);
    const leave = cache.subscribe('b', () => {});
    expect(cache.freshness('hot', fresh)).toBe('fresh');
    // The last reader of b leaving makes b the most recently used of the idle keys.
    leave();
    expect(cache.freshness('hot', fresh)).toBe('fresh');
    cache.store('c', 3);
    expect(cache.snapshot('hot').data).toBe(1);
    expect(cache.snapshot('b').data).toBeUndefined();
  });
});

describe('eviction against a model', () => {
  it('keeps exactly what a plain least-recently-used list keeps, through reads, subscribers, leaves and requests', () => {
    // A small seeded generator: the same sequence of operations on every run.
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % below;
    };
    const size = 4;
    const cache = createCache(createManualClock(), size);
    const fresh = { ttl: 1_000, staleWhileRevalidate: 0, scope: undefined };
    // The model: every key, least recently used first; which keys have readers, which a request
    // in flight (both in use: never evicted).
    let order: string[] = [];
    const readers = new Map<string, Array<() => void>>();
    const fetching = new Set<string>();
    const use = (key: string) => {
      order = [...order.filter((other) => other !== key), key];
    };
    const evict = () => {
      for (const key of [...order]) {
        if (order.length <= size) return;
        if (!readers.get(key)?.length && !fetching.has(key)) order = order.filter((other) => other !== key);
      }
    };
    for (let step = 0; step < 2_000; step++) {
      const key = `k${random(9)}`;
      const operation = random(6);
      if (operation === 0) {
        cache.store(key, step);
        use(key);
        evict();
      } else if (operation === 1 && order.includes(key)) {
        if (cache.freshness(key, fresh) !== 'none') use(key);
      } else if (operation === 2) {
        readers.set(key, [...(readers.get(key) ?? []), cache.subscribe(key, () => {})]);
        use(key);
      } else if (operation === 3) {
        const leave = readers.get(key)?.pop();
        if (leave) {
          leave();
          // A key left by its last reader is the most recently used of the idle ones.
          if (!readers.get(key)?.length && order.includes(key)) use(key);
        }
      } else if (operation === 4 && !fetching.has(key)) {
        cache.fetching(key, true);
        fetching.add(key);
        use(key);
        evict();
      } else if (operation === 5 && fetching.has(key)) {
        cache.fetching(key, false);
        fetching.delete(key);
        use(key);
        evict();
      }
      const held = cache.list().map(([listed]) => listed);
      expect(held.sort(), `step ${step}`).toEqual([...order].sort());
    }
  });
});
