/**
 * A caller that joins a read in flight does not build a request of its own: the execution's first
 * caller built it from an input with the same key. Joining must still refuse what a build would
 * refuse, and show the same URL. Against the real vendor.
 */
import { describe, expect, it } from 'vitest';
import { type StitchConfig, type StitchEvent, type StitchInput, stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { rejection, startScenario } from '../helpers/runs';
import type { Vendor } from '../helpers/vendor';

describe('joining a read in flight', () => {
  it('joins with the URL its leader sent (secrets redacted) and one request in all', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const search = stitch<unknown, StitchInput>({ name: uniqueKey('search'), url: vendor.url('/search') });
    const input = { query: { q: 'ada', token: 'sk-secret-token' } };
    const leader = search(input, { engine });
    await vendor.arrival(1);
    const joiner = search({ query: { token: 'sk-secret-token', q: 'ada' } }, { engine });
    vendor.release(1, { status: 200, body: { total: 1 } });
    await expect(joiner).resolves.toEqual({ total: 1 });
    await expect(leader).resolves.toEqual({ total: 1 });
    expect(vendor.requests()).toBe(1);
    const shown = vendor.url('/search?q=ada&token=%5Bredacted%5D');
    expect((await leader.report()).events[0]).toMatchObject({ type: 'start', url: shown });
    const joined = await joiner.report();
    expect(joined.source).toBe('coalesced');
    expect(joined.events[0]).toMatchObject({ type: 'start', method: 'GET', url: shown });
  });

  it('refuses an input a request could not be built from, even when its key matches a read in flight', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const list = stitch<unknown, StitchInput>({ name: uniqueKey('list'), url: vendor.url('/items') });
    const leader = list(undefined, { engine });
    await vendor.arrival(1);
    // Both have the key of "no input" (a null body and a list are nothing a key records).
    const withNullBody = await rejection(list({ body: null }, { engine }));
    expect(withNullBody).toMatchObject({ kind: 'config', field: 'body' });
    const notAnObject = await rejection(list([] as unknown as StitchInput, { engine }));
    expect(notAnObject).toMatchObject({ kind: 'config', field: 'input' });
    vendor.release(1, { status: 200, body: [] });
    await expect(leader).resolves.toEqual([]);
    expect(vendor.requests()).toBe(1);
  });
});

describe('when a request leaves: a microtask after its call, whatever the policies', () => {
  const policies: Record<string, Partial<StitchConfig>> = {
    none: { retry: false, circuit: false },
    defaults: {},
    all: {
      timeout: { each: 1_000, total: 5_000 },
      throttle: { concurrency: 2, rate: '10/s' },
      circuit: { failures: 3 },
    },
  };

  it.each(Object.entries(policies))(
    'a call cancelled in the same tick sends nothing (%s)',
    async (_, policy) => {
      let handed = 0;
      const fetch: typeof globalThis.fetch = (input, init) => {
        handed += 1;
        return globalThis.fetch(input, init);
      };
      const { vendor, engine } = await startScenario({ engine: { fetch } });
      const item = stitch({ name: uniqueKey('item'), url: vendor.url('/item'), ...policy });
      const controller = new AbortController();
      const run = item(undefined, { engine, signal: controller.signal });
      const reason = new Error('superseded');
      controller.abort(reason);
      expect(await rejection(run)).toMatchObject({ kind: 'aborted', cause: reason });
      const report = await run.report();
      expect(report.events.find((event) => event.type === 'cancel')).toMatchObject({ dispatched: false });
      expect(report.events.filter((event) => event.type === 'request')).toEqual([]);
      expect(handed).toBe(0);
      expect(vendor.requests()).toBe(0);
    },
  );

  it.each(Object.entries(policies))(
    'a caller that joins in the same tick sees the shared request (%s)',
    async (_, policy) => {
      const { vendor, engine } = await startScenario({ respond: () => 'hold' });
      const item = stitch({ name: uniqueKey('item'), url: vendor.url('/item'), ...policy });
      const leader = item(undefined, { engine });
      const joiner = item(undefined, { engine });
      await vendor.arrival(1);
      vendor.release(1, { status: 200, body: { n: 1 } });
      await expect(joiner).resolves.toEqual({ n: 1 });
      await expect(leader).resolves.toEqual({ n: 1 });
      const report = await joiner.report();
      expect(report.source).toBe('coalesced');
      expect(report.events.filter((event) => event.type === 'request')).toHaveLength(1);
      expect(vendor.requests()).toBe(1);
    },
  );
});

describe('a cache hit', () => {
  const items = (vendor: Vendor) =>
    stitch<unknown, StitchInput>({
      name: uniqueKey('items'),
      url: vendor.url('/items'),
      cache: { ttl: 60_000 },
    });

  it('shows the URL of the request whose answer it serves, as a joiner shows its leader’s', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { total: 2 } }) });
    const list = items(vendor);
    await list({ query: { b: 2, a: 1, token: 'sk-secret' } }, { engine });
    // The same key (keys sort their fields), its fields in another order.
    const hit = list({ query: { a: 1, token: 'sk-secret', b: 2 } }, { engine });
    await expect(hit).resolves.toEqual({ total: 2 });
    const report = await hit.report();
    expect(report.source).toBe('cache');
    expect(report.events[0]).toMatchObject({
      type: 'start',
      url: vendor.url('/items?b=2&a=1&token=%5Bredacted%5D'),
    });
    expect(vendor.requests()).toBe(1);
  });

  it('on data written with setData, shows the URL of its own request (built, so checked)', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { total: 2 } }) });
    const list = items(vendor);
    await list({ query: { b: 2, a: 1 } }, { engine });
    engine.setData(list, { query: { a: 1, b: 2 } }, () => ({ total: 3 }));
    const hit = list({ query: { a: 1, b: 2 } }, { engine });
    await expect(hit).resolves.toEqual({ total: 3 });
    expect((await hit.report()).events[0]).toMatchObject({
      type: 'start',
      url: vendor.url('/items?a=1&b=2'),
    });
    expect(vendor.requests()).toBe(1);
  });
});

describe('an abort from a listener of the call’s own first events', () => {
  // A trace sink (or an inspector: the devtools) hears a call's first events while the call is
  // still joining, before it listens to its caller's signal: an abort there must still count.
  /** A vendor that holds every request, and an engine whose sink aborts `controller` on `type`. */
  async function abortedOn(type: StitchEvent['type'], reason: unknown) {
    const controller = new AbortController();
    const handle = (event: StitchEvent) => {
      if (event.type === type && !controller.signal.aborted) controller.abort(reason);
    };
    const scenario = await startScenario({ respond: () => 'hold', engine: { trace: { handle } } });
    return { ...scenario, signal: controller.signal };
  }

  it('on its coalesce event: the joiner leaves at once with its reason, the leader is served', async () => {
    const reason = new Error('the joiner leaves');
    const { vendor, engine, signal } = await abortedOn('coalesce', reason);
    const read = stitch<unknown, StitchInput>({ name: uniqueKey('read'), url: vendor.url('/read') });
    const leader = read(undefined, { engine });
    await vendor.arrival(1);
    const joiner = read(undefined, { engine, signal });
    expect(await rejection(joiner)).toMatchObject({ kind: 'aborted', cause: reason });
    vendor.release(1, { status: 200, body: { ok: true } });
    await expect(leader).resolves.toEqual({ ok: true });
    expect(vendor.ledger.map((entry) => [entry.answered, entry.hungUp])).toEqual([[true, false]]);
  });

  it('on its queued event: the waiter leaves the queue at once with its reason and sends nothing', async () => {
    const reason = new Error('the waiter leaves');
    const { vendor, engine, signal } = await abortedOn('queued', reason);
    const read = stitch<unknown, StitchInput>({
      name: uniqueKey('read'),
      url: vendor.url('/read'),
      throttle: { concurrency: 1 },
    });
    const holder = read({ query: { n: 1 } }, { engine });
    await vendor.arrival(1);
    const waiter = read({ query: { n: 2 } }, { engine, signal });
    expect(await rejection(waiter)).toMatchObject({ kind: 'aborted', cause: reason });
    expect((await waiter.report()).requests).toBe(0);
    // The slot goes to the next caller, not to the one that left.
    const next = read({ query: { n: 3 } }, { engine });
    vendor.release(1, { status: 200, body: { n: 1 } });
    await expect(holder).resolves.toEqual({ n: 1 });
    expect((await vendor.arrival(2)).query.get('n')).toBe('3');
    vendor.release(2, { status: 200, body: { n: 3 } });
    await expect(next).resolves.toEqual({ n: 3 });
    expect(vendor.requests()).toBe(2);
  });
});

describe("a read started from the cache's own notification", () => {
  it('joins the request whose start the notification tells of: one request', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const todos = stitch<unknown, StitchInput>({ name: uniqueKey('todos'), url: vendor.url('/todos') });
    const key = engine.keyOf(todos, undefined) as string;
    const reads: Array<ReturnType<typeof todos>> = [];
    // An adapter's reader: it reads the key when the cache says a request for it started.
    engine.subscribe(key, () => {
      if (engine.getSnapshot(key).fetching && reads.length === 0) reads.push(todos(undefined, { engine }));
    });
    const first = todos(undefined, { engine });
    await vendor.arrival(1);
    vendor.release(1, { status: 200, body: ['a'] });
    await expect(first).resolves.toEqual(['a']);
    await expect(reads[0]).resolves.toEqual(['a']);
    expect((await (reads[0] as ReturnType<typeof todos>).report()).source).toBe('coalesced');
    expect(vendor.requests()).toBe(1);
  });
});
