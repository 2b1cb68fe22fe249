/**
 * `prefetch(stitch, input, { signal, engine })`: an ordinary read that shares the cache and the
 * coalescer. It fills the cache for later readers, a reader joining it in flight shares its
 * request, and its abort releases only its own reference. Its promise never rejects. Against the
 * real vendor.
 */
import { describe, expect, it } from 'vitest';
import { prefetch, stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { startScenario } from '../helpers/runs';
import type { Vendor } from '../helpers/vendor';

const user = { id: 7, name: 'Ada' };
const input = { params: { id: 7 } };

const userStitch = (vendor: Vendor) =>
  stitch<typeof user, { params: { id: number } }>({
    name: uniqueKey('user'),
    url: vendor.url('/users/{id}'),
    retry: false,
    cache: { ttl: 60_000 },
  });

describe('prefetch', () => {
  it('fills the cache: a later read gets the data without a request', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: user }) });
    const getUser = userStitch(vendor);
    await expect(prefetch(getUser, input, { engine })).resolves.toEqual({
      ok: true,
      data: user,
      error: null,
    });
    const run = getUser(input, { engine });
    await expect(run).resolves.toEqual(user);
    expect((await run.report()).source).toBe('cache');
    expect(vendor.requests()).toBe(1);
  });

  it('a read that starts while it is in flight joins it: one request serves both', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const getUser = userStitch(vendor);
    const prefetched = prefetch(getUser, input, { engine });
    await vendor.arrival(1);
    const run = getUser(input, { engine });
    vendor.release(1, { body: user });
    await expect(run).resolves.toEqual(user);
    expect((await run.report()).source).toBe('coalesced');
    await expect(prefetched).resolves.toMatchObject({ ok: true, data: user });
    expect(vendor.requests()).toBe(1);
  });

  it('its abort releases its reference: the request goes on for a reader that joined it', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const getUser = userStitch(vendor);
    const loader = new AbortController();
    const prefetched = prefetch(getUser, input, { engine, signal: loader.signal });
    await vendor.arrival(1);
    const reader = new AbortController();
    const run = getUser(input, { engine, signal: reader.signal });

    const left = new Error('the route was left');
    loader.abort(left);
    const result = await prefetched;
    expect(result).toMatchObject({ ok: false, error: { kind: 'aborted', cause: left } });
    expect(vendor.ledger[0]).toMatchObject({ hungUp: false, answered: false });

    // The reader was the last reference: its abort hangs up.
    reader.abort(new Error('unmounted'));
    await run.safe();
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(engine.getData(getUser, input)).toBeUndefined();
  });

  it('alone, its abort hangs up, and the promise resolves with the abort instead of rejecting', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const getUser = userStitch(vendor);
    const loader = new AbortController();
    const prefetched = prefetch(getUser, input, { engine, signal: loader.signal });
    await vendor.arrival(1);
    const left = new Error('the route was left');
    loader.abort(left);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    const result = await prefetched;
    expect(result.ok).toBe(false);
    expect(result.error?.cause).toBe(left);
  });

  it('refuses a write: nothing is sent', async () => {
    const { vendor, engine } = await startScenario();
    const charge = stitch({ name: uniqueKey('charge'), method: 'POST', url: vendor.url('/charges') });
    await expect(prefetch(charge, {}, { engine })).resolves.toMatchObject({
      ok: false,
      error: { kind: 'config', field: 'method' },
    });
    expect(vendor.requests()).toBe(0);
  });

  it.each([undefined, null, {}, { definition: {} }])(
    'refuses %s as no stitch, resolving (a fire-and-forget loader never throws)',
    async (notStitch) => {
      await expect(prefetch(notStitch as never, {})).resolves.toMatchObject({
        ok: false,
        data: null,
        error: { kind: 'config', field: 'prefetch' },
      });
    },
  );
  it('refuses an option it does not take, a call option of writes too, as a config error naming it: nothing sent', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: user }) });
    const getUser = userStitch(vendor);
    for (const [option, value] of [
      ['idempotencyKey', 'k1'],
      ['idempotencyTtl', 5],
      ['bogus', 1],
    ] as const) {
      const result = await prefetch(getUser, input, { engine, [option]: value } as never);
      expect(result).toMatchObject({ ok: false, error: { kind: 'config', field: option } });
      expect(result.error?.message).toContain('is not an option (signal, engine, revalidate)');
    }
    expect(vendor.requests()).toBe(0);
  });
});
