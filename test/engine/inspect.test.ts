import { describe, expect, it, vi } from 'vitest';
import { createInspector } from '../../src/engine/inspect';
import { createEngine, type InspectEvent, type StitchEvent, stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { rejection, snapshotWhere, startScenario, until } from '../helpers/runs';

const ofType = <TType extends InspectEvent['type']>(events: InspectEvent[], type: TType) =>
  events.filter((event): event is Extract<InspectEvent, { type: TType }> => event.type === type);

describe('createInspector', () => {
  it('builds nothing while nobody listens, once per change for any number of listeners, and nothing after the last leaves', () => {
    const inspector = createInspector();
    const build = vi.fn((): InspectEvent => ({ type: 'throttle', key: 'k', active: 1, queued: 0, at: 0 }));
    inspector.notify(build);
    expect(inspector.active).toBe(false);
    expect(build).not.toHaveBeenCalled();

    const first = vi.fn();
    const second = vi.fn();
    const leaveFirst = inspector.subscribe(first);
    const leaveSecond = inspector.subscribe(second);
    inspector.notify(build);
    expect(build).toHaveBeenCalledTimes(1);
    expect(first).toHaveBeenCalledWith(build.mock.results[0]?.value);
    expect(second).toHaveBeenCalledTimes(1);

    leaveFirst();
    leaveFirst();
    leaveSecond();
    expect(inspector.active).toBe(false);
    inspector.notify(build);
    expect(build).toHaveBeenCalledTimes(1);
    expect(first).toHaveBeenCalledTimes(1);
  });

  it('a listener that throws does not stop the others', () => {
    const inspector = createInspector();
    const heard = vi.fn();
    inspector.subscribe(() => {
      throw new Error('broken listener');
    });
    inspector.subscribe(heard);
    inspector.notify(() => ({ type: 'throttle', key: 'k', active: 0, queued: 0, at: 0 }));
    expect(heard).toHaveBeenCalledTimes(1);
  });
});

describe('engine.inspect', () => {
  it('pushes run events (as a sink sees them), cache changes with their readers, and stops on unsubscribe', async () => {
    const traced: StitchEvent[] = [];
    const { vendor, engine } = await startScenario({ engine: { trace: { handle: (e) => traced.push(e) } } });
    const get = stitch({ name: uniqueKey('inspect-cache'), url: vendor.url('/thing'), cache: 1_000 });
    const seen: InspectEvent[] = [];
    const stop = engine.inspect((event) => seen.push(event));
    const key = engine.keyOf(get, undefined) as string;
    const leave = engine.subscribe(key, () => {});

    await get(undefined, { engine });
    expect(ofType(seen, 'run').map(({ event }) => event)).toEqual(traced);
    const cache = ofType(seen, 'cache').filter((event) => event.key === key);
    expect(cache.map(({ snapshot, readers }) => [snapshot?.fetching, snapshot?.data, readers])).toEqual([
      [false, undefined, 1],
      [true, undefined, 1],
      // The answer and the end of fetching are one change.
      [false, { path: '/thing', query: {} }, 1],
    ]);

    leave();
    expect(ofType(seen, 'cache').at(-1)).toMatchObject({ key, readers: 0 });
    stop();
    const heard = seen.length;
    engine.invalidate(get);
    await get(undefined, { engine });
    expect(seen).toHaveLength(heard);
  });

  it("carries a read's refetch and an entry's invalidate, so a tool can act on a key alone", async () => {
    const { vendor, engine } = await startScenario();
    const get = stitch({ name: uniqueKey('inspect-actions'), url: vendor.url('/thing'), cache: 60_000 });
    const seen: InspectEvent[] = [];
    engine.inspect((event) => seen.push(event));
    const key = engine.keyOf(get, { query: { q: 'ada' } }) as string;
    await get({ query: { q: 'ada' } }, { engine });
    const [read] = ofType(seen, 'read');
    expect(read).toMatchObject({ key, stitch: get.definition.name });

    read?.refetch();
    await snapshotWhere(engine, key, (snapshot) => !snapshot.fetching);
    expect(vendor.ledger.map((entry) => entry.url)).toEqual(['/thing?q=ada', '/thing?q=ada']);

    ofType(seen, 'cache').at(-1)?.invalidate();
    expect(engine.getSnapshot(key)).toMatchObject({ stale: true, invalidated: 1 });
  });

  it('pushes throttle queue depth as callers queue, get slots and leave', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script('hold', 'hold');
    const key = uniqueKey('lane');
    const get = stitch({
      name: uniqueKey('inspect-throttle'),
      url: vendor.url('/slow'),
      throttle: { key, concurrency: 1 },
      coalesce: false,
    });
    const depths: Array<[number, number]> = [];
    engine.inspect((event) => {
      if (event.type === 'throttle' && event.key === key) depths.push([event.active, event.queued]);
    });
    const first = get(undefined, { engine });
    const queued = new AbortController();
    const second = get(undefined, { engine, signal: queued.signal });
    await until(second, 'queued');
    expect(depths.at(-1)).toEqual([1, 1]);
    queued.abort(new Error('left the queue'));
    await rejection(second);
    expect(depths.at(-1)).toEqual([1, 0]);
    await vendor.arrival(1);
    vendor.release(1);
    await first;
    expect(depths.at(-1)).toEqual([0, 0]);
  });

  it('pushes each breaker write with its next probe time, and replays it to a late listener', async () => {
    const { vendor, engine, clock } = await startScenario({ respond: () => ({ status: 503 }) });
    const key = uniqueKey('breaker');
    const get = stitch({
      name: uniqueKey('inspect-circuit'),
      url: vendor.url('/down'),
      retry: 1,
      circuit: { key, failures: 2, cooldown: 5_000 },
    });
    const states: unknown[] = [];
    engine.inspect((event) => {
      if (event.type === 'circuit' && event.key === key) states.push(event.state);
    });
    await rejection(get(undefined, { engine }));
    await rejection(get(undefined, { engine }));
    expect(states).toEqual([
      { state: 'closed', failures: 1 },
      { state: 'open', until: clock.now() + 5_000 },
    ]);

    const late: InspectEvent[] = [];
    engine.inspect((event) => late.push(event));
    expect(ofType(late, 'circuit')).toEqual([
      { type: 'circuit', key, state: { state: 'open', until: clock.now() + 5_000 }, at: clock.now() },
    ]);
  });

  it('replays the breakers the store still keeps and the throttle keys in use, not every key ever used', async () => {
    const { vendor, engine, clock } = await startScenario({ respond: () => ({ status: 503 }) });
    // A breaker and a rate per tenant, as a multi-tenant app keys them.
    const callFor = (tenant: string) =>
      stitch({
        name: uniqueKey('per-tenant'),
        url: vendor.url('/t'),
        retry: false,
        circuit: { key: tenant, failures: 5, cooldown: 1_000 },
        throttle: { key: tenant, rate: '10/s' },
      })(undefined, { engine });
    const tenants = [0, 1, 2].map((n) => uniqueKey(`tenant-${n}`));
    for (const tenant of tenants) await rejection(callFor(tenant));
    const replayed = (type: 'circuit' | 'throttle') => {
      const seen: InspectEvent[] = [];
      engine.inspect((event) => seen.push(event))();
      return ofType(seen, type).map((event) => event.key);
    };
    expect(replayed('circuit')).toEqual(tenants);
    expect(replayed('throttle')).toEqual(tenants);

    // Two days on, the store keeps none of their breakers, and their rate windows are long past.
    await clock.advance(2 * 86_400_000);
    const later = uniqueKey('tenant-later');
    await rejection(callFor(later));
    expect(replayed('circuit')).toEqual([later]);
    expect(replayed('throttle')).toEqual([later]);
  });

  it('keys subscribed to and let go of that never loaded (an adapter’s) leave nothing behind, and push out no data', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { ok: true } }) });
    const small = createEngine({ cacheSize: 2 });
    const rows = stitch({ name: uniqueKey('rows'), url: vendor.url('/rows'), cache: 3_600_000 });
    for (const cache of [engine, small]) {
      await rows({ query: { page: 0 } }, { engine: cache });
      for (let page = 1; page <= 50; page++)
        cache.subscribe(cache.keyOf(rows, { query: { page } }) as string, () => {})();
      const entries: InspectEvent[] = [];
      cache.inspect((event) => entries.push(event))();
      expect(ofType(entries, 'cache')).toHaveLength(1);
      expect((await rows({ query: { page: 0 } }, { engine: cache }).report()).source).toBe('cache');
    }
    expect(vendor.requests()).toBe(2);
  });

  it('refuses a listener that is not a function, naming the field', async () => {
    const { engine } = await startScenario();
    expect(() => engine.inspect('devtools' as never)).toThrowError(
      expect.objectContaining({ kind: 'config', field: 'listener' }),
    );
  });
});
