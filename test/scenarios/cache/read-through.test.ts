/**
 * The read-through cache (SPEC §2 "Cache and coalescer"): data stored within `ttl` answers a read
 * with no request; past `ttl`, within `staleWhileRevalidate`, readers get the stale data at once
 * while exactly one background request refreshes it; only a successful, un-cancelled execution
 * is stored, and a shared failure is recorded beside the old data without replacing it.
 */
import { describe, expect, it } from 'vitest';
import { stitch } from '../../../src/index';
import { uniqueKey } from '../../helpers/keys';
import {
  collect,
  eventTypes,
  rejection,
  settledCount,
  snapshotWhere,
  startScenario,
} from '../../helpers/runs';
import type { Vendor } from '../../helpers/vendor';

interface Price {
  sku: string;
  cents: number;
}

const input = { params: { sku: 'tea' } };
const v1: Price = { sku: 'tea', cents: 100 };
const v2: Price = { sku: 'tea', cents: 200 };
const v3: Price = { sku: 'tea', cents: 300 };

function priceStitch(vendor: Vendor, cache: { ttl: number; staleWhileRevalidate?: number }) {
  return stitch<Price>({ name: uniqueKey('price'), url: vendor.url('/prices/{sku}'), retry: false, cache });
}

/**
 * A price cached with `ttl: 1_000` (v1), then expired by the clock. The vendor holds request 2
 * and answers v3 to request 3.
 */
async function expiredPrice() {
  const { vendor, engine, clock } = await startScenario();
  const getPrice = priceStitch(vendor, { ttl: 1_000 });
  const key = engine.keyOf(getPrice, input) as string;
  vendor.script({ body: v1 }, 'hold', { body: v3 });
  await getPrice(input, { engine });
  const storedAt = engine.getSnapshot(key).updatedAt;
  await clock.advance(1_000);
  return { vendor, engine, getPrice, key, storedAt };
}

describe('cache: { ttl }', () => {
  it('answers a second call within ttl from the cache with no request; past ttl, a new request goes out', async () => {
    const { vendor, engine, clock } = await startScenario();
    const getPrice = priceStitch(vendor, { ttl: 1_000 });
    vendor.script({ body: v1 }, { body: v2 });

    const first = getPrice(input, { engine });
    await expect(first).resolves.toEqual(v1);
    expect((await first.report()).source).toBe('live');

    const second = getPrice(input, { engine });
    const events = await collect(second);
    await expect(second).resolves.toEqual(v1);
    expect(eventTypes(events)).toContain('cache');
    expect(eventTypes(events)).not.toContain('request');
    expect(events.find((event) => event.type === 'cache')).toMatchObject({ hit: 'fresh' });
    expect(await second.report()).toMatchObject({ source: 'cache', requests: 0, dispatched: false });
    expect(vendor.requests()).toBe(1);

    await clock.advance(999);
    await expect(getPrice(input, { engine })).resolves.toEqual(v1);
    expect(vendor.requests()).toBe(1);

    await clock.advance(1);
    const expired = getPrice(input, { engine });
    await expect(expired).resolves.toEqual(v2);
    expect(vendor.requests()).toBe(2);
    const report = await expired.report();
    expect(report).toMatchObject({ source: 'live', requests: 1 });
    expect(eventTypes(report.events)).not.toContain('cache');
  });
});

describe('cache: { ttl, staleWhileRevalidate }', () => {
  it('past ttl, 50 readers get the stale data at once while exactly one background request refreshes it', async () => {
    const { vendor, engine, clock } = await startScenario();
    const getPrice = priceStitch(vendor, { ttl: 1_000, staleWhileRevalidate: 5_000 });
    const key = engine.keyOf(getPrice, input) as string;
    vendor.script({ body: v1 }, 'hold');
    await expect(getPrice(input, { engine })).resolves.toEqual(v1);

    await clock.advance(1_000);
    const readers = Array.from({ length: 50 }, () => getPrice(input, { engine }));
    const settled = settledCount(readers);
    // The refresh is held by the vendor: the readers cannot have waited for it.
    await vendor.arrival(2);
    expect(settled()).toBe(50);
    expect(await Promise.all(readers)).toEqual(Array.from({ length: 50 }, () => v1));
    expect(vendor.requests()).toBe(2);
    expect(vendor.ledger[1]).toMatchObject({ answered: false, hungUp: false });

    const reports = await Promise.all(readers.map((reader) => reader.report()));
    for (const report of reports) {
      expect(report).toMatchObject({ ok: true, source: 'stale', requests: 0 });
      expect(report.events.find((event) => event.type === 'cache')).toMatchObject({ hit: 'stale' });
      expect(eventTypes(report.events)).not.toContain('request');
    }
    expect(engine.getSnapshot(key)).toMatchObject({ data: v1, fetching: true });

    vendor.release(2, { body: v2 });
    const refreshed = await snapshotWhere<Price>(
      engine,
      key,
      (snapshot) => snapshot.data?.cents === v2.cents,
    );
    expect(refreshed).toMatchObject({ data: v2, updatedAt: clock.now(), error: undefined });
    expect(engine.getSnapshot(key).data).toEqual(v2);

    const next = getPrice(input, { engine });
    await expect(next).resolves.toEqual(v2);
    const report = await next.report();
    expect(report.source).toBe('cache');
    expect(report.events.find((event) => event.type === 'cache')).toMatchObject({ hit: 'fresh' });
    expect(vendor.requests()).toBe(2);
  });

  it('a failed background refresh keeps the stale data, records the error, and readers still get the data', async () => {
    const { vendor, engine, clock } = await startScenario();
    const getPrice = priceStitch(vendor, { ttl: 1_000, staleWhileRevalidate: 5_000 });
    const key = engine.keyOf(getPrice, input) as string;
    vendor.script({ body: v1 }, 'hold');
    await getPrice(input, { engine });
    const storedAt = engine.getSnapshot(key).updatedAt;

    await clock.advance(1_000);
    await expect(getPrice(input, { engine })).resolves.toEqual(v1);
    await vendor.arrival(2);
    vendor.release(2, { status: 503, body: { error: 'busy' } });

    const failed = await snapshotWhere(engine, key, (snapshot) => snapshot.error !== undefined);
    expect(failed.error).toMatchObject({ kind: 'http', status: 503 });
    expect(failed).toMatchObject({ data: v1, updatedAt: storedAt });

    const reader = getPrice(input, { engine });
    await expect(reader).resolves.toEqual(v1);
    expect((await reader.report()).source).toBe('stale');
  });
});

/**
 * A price cached as v1 with `ttl: 1_000` and a minute of `staleWhileRevalidate`, then stale by
 * the clock; the vendor holds requests 2 and 3.
 */
async function stalePrice() {
  const { vendor, engine, clock } = await startScenario();
  const getPrice = priceStitch(vendor, { ttl: 1_000, staleWhileRevalidate: 60_000 });
  vendor.script({ body: v1 }, 'hold', 'hold');
  await getPrice(input, { engine });
  await clock.advance(1_000);
  return { vendor, engine, getPrice, key: engine.keyOf(getPrice, input) as string };
}

describe('a background refresh, held by the stale reads that started or joined it', () => {
  it('goes on while one holds it; the last to let go (signal or cancel) hangs it up; one nobody can cancel holds it', async () => {
    const { vendor, engine, getPrice, key } = await stalePrice();

    const route = new AbortController();
    const byRoute = getPrice(input, { engine, signal: route.signal });
    const byHook = getPrice(input, { engine });
    expect(await Promise.all([byRoute, byHook])).toEqual([v1, v1]);
    await vendor.arrival(2);
    route.abort(new Error('route left'));
    // The other read holds it still.
    expect(engine.getSnapshot(key)).toMatchObject({ fetching: true });
    byHook.cancel(new Error('re-keyed'));
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true, answered: false });
    expect(engine.getSnapshot(key)).toMatchObject({ data: v1, fetching: false, error: undefined });

    // A read that cannot be cancelled (no signal, its run let be) holds its refresh to the end.
    await expect(getPrice(input, { engine })).resolves.toEqual(v1);
    await vendor.arrival(3);
    vendor.release(3, { body: v2 });
    await snapshotWhere<Price>(engine, key, (snapshot) => snapshot.data?.cents === v2.cents);
    expect(vendor.ledger[2]).toMatchObject({ answered: true, hungUp: false });
  });
});

describe('a background refresh its last holder let go of', () => {
  it('is not handed to a stale read that comes as it unwinds: that read starts one of its own', async () => {
    const { vendor, engine, getPrice, key } = await stalePrice();
    // Abort the previous call, start the next, in one go (a search box's keystroke).
    const previous = new AbortController();
    await expect(getPrice(input, { engine, signal: previous.signal })).resolves.toEqual(v1);
    await vendor.arrival(2);
    previous.abort(new Error('next keystroke'));
    await expect(getPrice(input, { engine, signal: new AbortController().signal })).resolves.toEqual(v1);
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    expect((await vendor.arrival(3)).path).toBe('/prices/tea');
    expect(engine.getSnapshot(key)).toMatchObject({ fetching: true });
  });
});

describe('a background refresh an invalidation superseded', () => {
  it('refreshes nothing, so the next stale hit starts one of its own', async () => {
    const { vendor, engine, clock } = await startScenario();
    const getPrice = priceStitch(vendor, { ttl: 1_000, staleWhileRevalidate: 10_000 });
    const key = engine.keyOf(getPrice, input) as string;
    vendor.script({ body: v1 }, 'hold', { body: v2 }, 'hold');
    await getPrice(input, { engine });
    await clock.advance(1_500);
    await expect(getPrice(input, { engine })).resolves.toEqual(v1);
    await vendor.arrival(2);

    // A write made the refresh in flight outdated: its answer will not be kept.
    engine.invalidate(getPrice);
    await expect(getPrice(input, { engine })).resolves.toEqual(v2);
    await clock.advance(1_500);
    await expect(getPrice(input, { engine })).resolves.toEqual(v2);
    expect((await vendor.arrival(4)).path).toBe('/prices/tea');

    vendor.release(2, { body: v1 });
    vendor.release(4, { body: v3 });
    await snapshotWhere<Price>(engine, key, (snapshot) => snapshot.data?.cents === v3.cents);
    await expect(getPrice(input, { engine })).resolves.toEqual(v3);
    expect(vendor.requests()).toBe(4);
  });
});

describe('only a successful, un-cancelled execution is stored', () => {
  it('an execution aborted by its only reference caches nothing; the next call sends a new request', async () => {
    const { vendor, engine } = await startScenario();
    const getPrice = priceStitch(vendor, { ttl: 60_000 });
    const key = engine.keyOf(getPrice, input) as string;
    vendor.script('hold', { body: v2 });

    const controller = new AbortController();
    const run = getPrice(input, { engine, signal: controller.signal });
    await vendor.arrival(1);
    controller.abort(new Error('navigated away'));
    expect(await rejection(run)).toMatchObject({ kind: 'aborted' });
    await vendor.hangUp(1);

    expect(engine.getSnapshot(key)).toMatchObject({
      data: undefined,
      updatedAt: undefined,
      error: undefined,
    });
    const next = getPrice(input, { engine });
    await expect(next).resolves.toEqual(v2);
    expect(vendor.requests()).toBe(2);
    expect((await next.report()).source).toBe('live');
  });

  it('an aborted refresh leaves the old data as it was, still expired, and records no error', async () => {
    const { vendor, engine, getPrice, key, storedAt } = await expiredPrice();
    const first = new AbortController();
    const second = new AbortController();
    const refreshes = [
      getPrice(input, { engine, signal: first.signal }),
      getPrice(input, { engine, signal: second.signal }),
    ];
    await vendor.arrival(2);
    first.abort(new Error('left'));
    second.abort(new Error('left too'));
    await Promise.all(refreshes.map(rejection));
    await vendor.hangUp(2);

    expect(engine.getSnapshot(key)).toMatchObject({ data: v1, updatedAt: storedAt, error: undefined });
    await expect(getPrice(input, { engine })).resolves.toEqual(v3);
    expect(vendor.requests()).toBe(3);
  });

  it('a shared failure (503, retry false) reaches every caller, is set on the snapshot and keeps the old data', async () => {
    const { vendor, engine, getPrice, key, storedAt } = await expiredPrice();
    const callers = [getPrice(input, { engine }), getPrice(input, { engine })];
    await vendor.arrival(2);
    vendor.release(2, { status: 503, body: { error: 'busy' } });
    const errors = await Promise.all(callers.map(rejection));
    for (const error of errors) expect(error).toMatchObject({ kind: 'http', status: 503, requests: 1 });
    expect(vendor.requests()).toBe(2);

    const snapshot = engine.getSnapshot(key);
    expect(snapshot.error).toMatchObject({ kind: 'http', status: 503 });
    expect(snapshot).toMatchObject({ data: v1, updatedAt: storedAt });

    // The failure did not make the old data fresh: the next read asks again, and its success clears the error.
    await expect(getPrice(input, { engine })).resolves.toEqual(v3);
    expect(vendor.requests()).toBe(3);
    expect(engine.getSnapshot(key)).toMatchObject({ data: v3, error: undefined });
  });
});
