/**
 * What `useSyncExternalStore` needs from the engine (SPEC §2, engine methods): `subscribe` and
 * `getSnapshot` per key, with a snapshot that keeps its identity until something in it changes
 * and a listener called once per change; `invalidate` for one input or a whole stitch; and
 * `dehydrate`/`hydrate` carrying data from a server render to the client without a second request.
 */
import { describe, expect, it, vi } from 'vitest';
import { HYDRATED_KEPT } from '../../../src/engine/cache';
import { type CacheSnapshot, createEngine, type Engine, type Stitch, stitch } from '../../../src/index';
import { createManualClock } from '../../helpers/clock';
import { uniqueKey } from '../../helpers/keys';
import { collect, eventTypes, startScenario } from '../../helpers/runs';
import type { Vendor } from '../../helpers/vendor';

interface User {
  id: number;
  name: string;
}

const ada: User = { id: 7, name: 'Ada' };
const input = { params: { id: 7 } };
const byId = (id: number) => ({ params: { id } });

function userStitch(vendor: Vendor, name = uniqueKey('user')) {
  return stitch<User>({ name, url: vendor.url('/users/{id}'), retry: false, cache: { ttl: 60_000 } });
}

function keyOf(engine: Engine, target: Stitch<User>, given: { params: { id: number } }): string {
  const key = engine.keyOf(target, given);
  if (key === undefined) throw new Error('a read must have a cache key');
  return key;
}

/** Records the snapshot each listener call sees. */
function watch(engine: Engine, key: string) {
  const seen: CacheSnapshot[] = [];
  const unsubscribe = engine.subscribe(key, () => seen.push(engine.getSnapshot(key)));
  return { seen, unsubscribe };
}

const state = ({ data, fetching, error }: CacheSnapshot) => ({ data, fetching, error });

describe('subscribe and getSnapshot', () => {
  it('keep identity between changes, show fetching then data, and call the listener once per change', async () => {
    const { vendor, engine, clock } = await startScenario();
    const getUser = userStitch(vendor);
    const key = keyOf(engine, getUser, input);
    const { seen, unsubscribe } = watch(engine, key);

    const empty = engine.getSnapshot(key);
    expect(engine.getSnapshot(key)).toBe(empty);
    expect(state(empty)).toEqual({ data: undefined, fetching: false, error: undefined });

    vendor.script('hold');
    const run = getUser(input, { engine });
    await vendor.arrival(1);
    const inFlight = engine.getSnapshot(key);
    expect(engine.getSnapshot(key)).toBe(inFlight);
    expect(state(inFlight)).toEqual({ data: undefined, fetching: true, error: undefined });
    expect(seen).toEqual([inFlight]);

    vendor.release(1, { body: ada });
    await expect(run).resolves.toEqual(ada);
    const done = engine.getSnapshot(key);
    expect(engine.getSnapshot(key)).toBe(done);
    expect(done).toMatchObject({ data: ada, fetching: false, error: undefined, updatedAt: clock.now() });

    // Every call saw a new snapshot that differs from the one before: no call without a change,
    // and every state the test observed was announced.
    expect(seen.at(-1)).toBe(done);
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]).not.toBe(seen[i - 1]);
      expect({ ...seen[i] }).not.toEqual({ ...seen[i - 1] });
    }
    const calls = seen.length;

    // A read served from the cache and a change to another key change nothing here.
    await expect(getUser(input, { engine })).resolves.toEqual(ada);
    await getUser(byId(8), { engine });
    expect(seen).toHaveLength(calls);
    expect(engine.getSnapshot(key)).toBe(done);

    unsubscribe();
    engine.invalidate(getUser, input);
    expect(seen).toHaveLength(calls);
    expect(engine.getSnapshot(key)).toMatchObject({ data: ada, stale: true });
  });
});

describe('fetching', () => {
  it('stays true while any request for the key is out, even when an aborted one ends after its successor began', async () => {
    const { vendor, engine } = await startScenario();
    const user = userStitch(vendor);
    const key = keyOf(engine, user, input);
    vendor.script('hold', 'hold');
    const leaving = new AbortController();
    const first = user(input, { engine, signal: leaving.signal });
    await vendor.arrival(1);
    leaving.abort(new Error('left'));
    await first.safe();
    const second = user(input, { engine });
    await vendor.arrival(2);
    await vendor.hangUp(1);
    expect(engine.getSnapshot(key).fetching).toBe(true);
    vendor.release(2, { body: ada });
    await second;
    expect(engine.getSnapshot(key)).toMatchObject({ fetching: false, data: ada });
  });

  it('keeps the data of the later-started request when an earlier one answers last', async () => {
    const { vendor, engine } = await startScenario();
    const name = uniqueKey('racing');
    const user = stitch<User>({ name, url: vendor.url('/users/{id}'), retry: false, coalesce: false });
    const key = keyOf(engine, user, input);
    vendor.script('hold', 'hold');
    const older = user(input, { engine });
    await vendor.arrival(1);
    const newer = user(input, { engine });
    await vendor.arrival(2);
    vendor.release(2, { body: { id: 7, name: 'new' } });
    await newer;
    vendor.release(1, { body: { id: 7, name: 'old' } });
    await older;
    expect(engine.getSnapshot<User>(key).data?.name).toBe('new');
  });
});

describe('invalidate', () => {
  it('(stitch, input) marks that entry only stale and tells its subscribers; the next read of it fetches', async () => {
    const { vendor, engine } = await startScenario();
    const getUser = userStitch(vendor);
    await Promise.all([getUser(byId(1), { engine }), getUser(byId(2), { engine })]);
    expect(vendor.requests()).toBe(2);
    const [one, two] = [keyOf(engine, getUser, byId(1)), keyOf(engine, getUser, byId(2))];
    const kept = engine.getSnapshot(two);
    const [onOne, onTwo] = [vi.fn(), vi.fn()];
    engine.subscribe(one, onOne);
    engine.subscribe(two, onTwo);

    engine.invalidate(getUser, byId(1));
    // Each invalidation is news (a second write needs a second refetch): subscribers hear both.
    engine.invalidate(getUser, byId(1));
    expect(onOne).toHaveBeenCalledTimes(2);
    expect(onTwo).not.toHaveBeenCalled();
    // The data stays, for readers to show while they refetch; no cache lookup serves it.
    expect(engine.getSnapshot(one)).toMatchObject({
      data: { path: '/users/1', query: {} },
      stale: true,
      invalidated: 2,
    });
    expect(engine.getSnapshot(two)).toBe(kept);

    const refetched = getUser(byId(1), { engine });
    await expect(refetched).resolves.toEqual({ path: '/users/1', query: {} });
    expect((await refetched.report()).source).toBe('live');
    const cached = getUser(byId(2), { engine });
    await cached;
    expect((await cached.report()).source).toBe('cache');
    expect(vendor.requests()).toBe(3);
  });

  it('(stitch) marks every entry of that stitch stale and none of another stitch, even one whose name extends it', async () => {
    const { vendor, engine } = await startScenario();
    const getUser = userStitch(vendor);
    const getArchived = userStitch(vendor, `${getUser.definition.name}-archived`);
    await Promise.all([
      getUser(byId(1), { engine }),
      getUser(byId(2), { engine }),
      getArchived(byId(1), { engine }),
    ]);
    expect(vendor.requests()).toBe(3);
    const keys = [keyOf(engine, getUser, byId(1)), keyOf(engine, getUser, byId(2))];
    const otherKey = keyOf(engine, getArchived, byId(1));
    const other = engine.getSnapshot(otherKey);
    const listeners = keys.map((key) => {
      const listener = vi.fn();
      engine.subscribe(key, listener);
      return listener;
    });
    const onOther = vi.fn();
    engine.subscribe(otherKey, onOther);

    engine.invalidate(getUser);
    for (const listener of listeners) expect(listener).toHaveBeenCalledOnce();
    for (const key of keys) expect(engine.getSnapshot(key)).toMatchObject({ stale: true, invalidated: 1 });
    expect(onOther).not.toHaveBeenCalled();
    expect(engine.getSnapshot(otherKey)).toBe(other);

    const archived = getArchived(byId(1), { engine });
    await archived;
    expect((await archived.report()).source).toBe('cache');
    await getUser(byId(2), { engine });
    expect(vendor.requests()).toBe(4);
  });
});

describe('dehydrate and hydrate', () => {
  it('carry data through JSON to a second engine, whose read then sends no request', async () => {
    const { vendor, engine: server, clock } = await startScenario();
    const getUser = userStitch(vendor);
    vendor.script({ body: ada });
    await getUser(input, { engine: server });
    expect(vendor.requests()).toBe(1);

    const state = JSON.parse(JSON.stringify(server.dehydrate()));
    const clientClock = createManualClock(clock.now());
    const client = createEngine({ clock: clientClock });
    const key = keyOf(client, getUser, input);
    const listener = vi.fn();
    client.subscribe(key, listener);
    client.hydrate(state);
    expect(listener).toHaveBeenCalledOnce();
    expect(client.getSnapshot(key)).toMatchObject({ data: ada, fetching: false });

    const run = getUser(input, { engine: client });
    const events = await collect(run);
    await expect(run).resolves.toEqual(ada);
    expect(vendor.requests()).toBe(1);
    expect(eventTypes(events)).not.toContain('request');
    expect((await run.report()).source).toBe('cache');

    // The hydrated entry ages from when the server stored it, like any other.
    await clientClock.advance(60_000);
    const expired = getUser(input, { engine: client });
    await expect(expired).resolves.toEqual({ path: '/users/7', query: {} });
    expect(vendor.requests()).toBe(2);
  });

  it('with cacheSize 0, keep what they take in for the readers still to come (their siblings’ fetches too), then let it go', async () => {
    const { vendor, engine: server } = await startScenario();
    const getUser = userStitch(vendor);
    vendor.script({ body: ada }, { body: { ...ada, id: 8 } });
    await getUser(input, { engine: server });
    await getUser(byId(8), { engine: server });
    const taken = JSON.parse(JSON.stringify(server.dehydrate()));

    const clock = createManualClock();
    const client = createEngine({ cacheSize: 0, clock });
    const { seen } = watch(client, keyOf(client, getUser, input));
    client.hydrate(taken);
    expect(seen.map(state)).toEqual([{ data: ada, fetching: false, error: undefined }]);
    // A sibling's write (or fetch) before the reader of id 8 commits takes nothing it was given.
    client.setData(getUser, byId(9), { ...ada, id: 9 });
    expect(client.getData(getUser, byId(8))).toEqual({ ...ada, id: 8 });
    // Once its reader has come and gone, it is evicted as any key nobody reads.
    const { unsubscribe } = watch(client, keyOf(client, getUser, byId(8)));
    unsubscribe();
    client.setData(getUser, byId(9), { ...ada, id: 9, name: 'Ada L.' });
    expect(client.getData(getUser, byId(8))).toBeUndefined();
    expect(client.getData(getUser, input)).toEqual(ada);
    // What no reader came for goes too, a few seconds on.
    client.hydrate(taken);
    await clock.advance(HYDRATED_KEPT);
    client.setData(getUser, byId(9), { ...ada, id: 9, name: 'Ada Lovelace' });
    expect(client.getData(getUser, byId(8))).toBeUndefined();
  });

  it('never lets an older server copy replace newer data the client already has', async () => {
    const { vendor, engine: server, clock } = await startScenario();
    const getUser = userStitch(vendor);
    vendor.script({ body: ada }, { body: { ...ada, name: 'Ada Lovelace' } });
    await getUser(input, { engine: server });
    const state = JSON.parse(JSON.stringify(server.dehydrate()));

    const clientClock = createManualClock(clock.now());
    const client = createEngine({ clock: clientClock });
    await clientClock.advance(10);
    await getUser(input, { engine: client });
    const newer = client.getSnapshot(keyOf(client, getUser, input));

    client.hydrate(state);
    expect(client.getSnapshot(keyOf(client, getUser, input))).toBe(newer);
    expect(newer.data).toEqual({ ...ada, name: 'Ada Lovelace' });
  });
});
