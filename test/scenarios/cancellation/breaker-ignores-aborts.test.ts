/**
 * SPEC §5, first finding: in StitchAPI three aborted calls — even three that never opened a
 * socket — opened the breaker, and a fourth caller with no signal got "circuit open" with 0
 * requests sent. Law 1: a caller's abort is neutral; only what a dispatched attempt proves about
 * the vendor (here, a 503) counts.
 */
import { describe, expect, it } from 'vitest';
import {
  type CancelPhase,
  createMemoryStore,
  type Engine,
  type Stitch,
  type StitchConfig,
  type StitchRun,
  type Store,
  stitch,
} from '../../../src/index';
import { createManualClock, type ManualClock } from '../../helpers/clock';
import { uniqueKey } from '../../helpers/keys';
import { rejection, startScenario, until } from '../../helpers/runs';
import type { Vendor } from '../../helpers/vendor';

/**
 * The search every test here calls: its breaker opens after three failures, and it never retries,
 * so each call is exactly one attempt for the breaker to count (or not).
 */
function breakerSearch(vendor: Vendor, options: Pick<StitchConfig, 'throttle'> = {}) {
  return stitch({
    name: uniqueKey('search'),
    url: vendor.url('/search'),
    circuit: { failures: 3 },
    retry: false,
    ...options,
  });
}

/** A cancel that never left the process: it carries `reason`, sent nothing, and came in `phase`. */
async function expectUnsentCancel(run: StitchRun<unknown>, reason: Error, phase: CancelPhase) {
  const error = await rejection(run);
  expect(error).toMatchObject({ kind: 'aborted', dispatched: false, requests: 0 });
  expect(error.cause).toBe(reason);
  expect((await until(run, 'cancel')).phase).toBe(phase);
}

/**
 * Law 1's payoff: after aborts alone the breaker is closed with no failure counted, so a caller
 * with no signal is served. Returns that caller's run, for tests that look at its report; wrapped
 * in an object, since a run is a thenable and an async function would resolve to its data instead.
 */
async function expectClosedAndServing(vendor: Vendor, engine: Engine, search: Stitch) {
  expect(await engine.circuitState(vendor.origin)).toEqual({ state: 'closed', failures: 0 });
  const served = search({ query: { q: 'ada' } }, { engine });
  await expect(served).resolves.toEqual({ path: '/search', query: { q: 'ada' } });
  return { served };
}

/**
 * A memory store whose next breaker read can be held, so a test can abort a call while the
 * breaker is admitting it (after the queue, before anything is sent), and can wait for the
 * breaker's later reads (the one that records an attempt's outcome).
 */
function gatedStore(now: () => number) {
  const memory = createMemoryStore(now);
  let gate: { reached: () => void; open: Promise<void> } | undefined;
  let reads = 0;
  let waiters: Array<{ count: number; resolve: () => void }> = [];
  let writes = 0;
  const store: Store = {
    async get<T>(key: string) {
      if (key.startsWith('circuit:')) {
        reads += 1;
        const current = gate;
        gate = undefined;
        if (current) {
          current.reached();
          await current.open;
        }
        const value = await memory.get<T>(key);
        for (const waiter of waiters.filter((w) => reads >= w.count)) waiter.resolve();
        waiters = waiters.filter((w) => reads < w.count);
        return value;
      }
      return memory.get<T>(key);
    },
    set: (key, value, ttl) => memory.set(key, value, ttl),
    delete: (key) => memory.delete(key),
    update(key, transition, ttl) {
      if (key.startsWith('circuit:')) writes += 1;
      return memory.update(key, transition, ttl);
    },
  };
  return {
    store,
    /** Holds the next breaker read until `open()`; `reached` resolves when the engine makes it. */
    holdNextRead() {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      const reached = new Promise<void>((resolve) => {
        gate = { reached: resolve, open: opened };
      });
      return { reached, open };
    },
    /** Resolves once `count` breaker reads have been answered in all. */
    untilReads(count: number) {
      if (reads >= count) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ count, resolve }));
    },
    reads: () => reads,
    /** Breaker writes so far: a neutral outcome never writes. */
    writes: () => writes,
  };
}

describe('a caller abort is neutral to the breaker', () => {
  it('three in-flight aborts leave it closed with 0 failures, and a fourth caller is served', async () => {
    const { vendor, engine, clock } = await startScenario();
    vendor.script('hold', 'hold', 'hold');
    const search = breakerSearch(vendor);

    for (let n = 1; n <= 3; n++) {
      const controller = new AbortController();
      const reason = new Error(`keystroke ${n} superseded`);
      const run = search({ query: { q: `a${n}` } }, { engine, signal: controller.signal });
      await vendor.arrival(n);
      controller.abort(reason);
      const error = await rejection(run);
      expect(error).toMatchObject({ kind: 'aborted', dispatched: true, requests: 1 });
      expect(error.cause).toBe(reason);
      // The socket really closed: the vendor saw the client hang up, and never answered.
      expect(await vendor.hangUp(n)).toMatchObject({ hungUp: true, answered: false });
    }

    const { served } = await expectClosedAndServing(vendor, engine, search);
    expect(vendor.requests()).toBe(4);
    expect(await vendor.finished(4)).toMatchObject({ answered: true, hungUp: false });
    expect(vendor.ledger.map((entry) => [entry.n, entry.answered, entry.hungUp])).toEqual([
      [1, false, true],
      [2, false, true],
      [3, false, true],
      [4, true, false],
    ]);
    expect((await served.report()).outcome).toBe('success');
    expect(clock.pending()).toBe(0);
  });

  it('three calls aborted before they start send nothing and leave it closed', async () => {
    const { vendor, engine } = await startScenario();
    const search = breakerSearch(vendor);

    for (let n = 1; n <= 3; n++) {
      const reason = new Error(`gone ${n}`);
      const run = search({ query: { q: `a${n}` } }, { engine, signal: AbortSignal.abort(reason) });
      await expectUnsentCancel(run, reason, 'before-dispatch');
    }

    expect(vendor.requests()).toBe(0);
    await expectClosedAndServing(vendor, engine, search);
    expect(vendor.requests()).toBe(1);
    expect(await vendor.finished(1)).toMatchObject({ answered: true });
  });

  it('three calls aborted while queued behind a held request send nothing and leave it closed', async () => {
    const { vendor, engine, clock } = await startScenario();
    vendor.script('hold');
    const search = breakerSearch(vendor, { throttle: { concurrency: 1 } });

    const holder = search({ query: { q: 'holder' } }, { engine });
    await vendor.arrival(1);
    for (let n = 1; n <= 3; n++) {
      const controller = new AbortController();
      const reason = new Error(`left the queue ${n}`);
      const run = search({ query: { q: `queued${n}` } }, { engine, signal: controller.signal });
      expect(await until(run, 'queued')).toMatchObject({ position: 1 });
      controller.abort(reason);
      await expectUnsentCancel(run, reason, 'queued');
    }
    expect(vendor.requests()).toBe(1);

    vendor.release(1, { body: { q: 'holder' } });
    await expect(holder).resolves.toEqual({ q: 'holder' });
    await expectClosedAndServing(vendor, engine, search);
    // The holder and the fourth caller: the three queued aborts sent 0 requests.
    expect(vendor.requests()).toBe(2);
    expect(vendor.ledger.map((entry) => entry.query.get('q'))).toEqual(['holder', 'ada']);
    expect(vendor.ledger.every((entry) => entry.answered && !entry.hungUp)).toBe(true);
    expect(clock.pending()).toBe(0);
  });

  it('three calls aborted while the breaker admits them send nothing and leave it closed', async () => {
    // The store reads the engine's clock, so the clock comes first and is handed to the scenario.
    const clock = createManualClock(Date.now());
    const gated = gatedStore(clock.now);
    const { vendor, engine } = await startScenario({ clock, engine: { store: gated.store } });
    const search = breakerSearch(vendor);

    for (let n = 1; n <= 3; n++) {
      const controller = new AbortController();
      const reason = new Error(`aborted during admission ${n}`);
      const admitting = gated.holdNextRead();
      const readsBefore = gated.reads();
      const run = search({ query: { q: `a${n}` } }, { engine, signal: controller.signal });
      await admitting.reached;
      controller.abort(reason);
      await expectUnsentCancel(run, reason, 'before-dispatch');
      admitting.open();
      // The admission's read; a neutral outcome is not even read for, let alone written.
      await gated.untilReads(readsBefore + 1);
      await clock.advance(0); // lets any write that would follow the read land
    }

    expect(vendor.requests()).toBe(0);
    expect(gated.writes()).toBe(0);
    await expectClosedAndServing(vendor, engine, search);
    expect(vendor.requests()).toBe(1);
  });

  it('three 503s do open it: a fourth caller fails fast with circuit-open and sends nothing', async () => {
    const { vendor, engine } = await startScenario();
    const outage = { status: 503, body: { error: 'down for maintenance' } };
    vendor.script(outage, outage, outage);
    const search = breakerSearch(vendor);

    for (let n = 1; n <= 3; n++) {
      const error = await rejection(search({ query: { q: `a${n}` } }, { engine }));
      expect(error).toMatchObject({ kind: 'http', status: 503, dispatched: true });
    }
    expect((await engine.circuitState(vendor.origin)).state).toBe('open');

    const fourth = search({ query: { q: 'ada' } }, { engine });
    const error = await rejection(fourth);
    expect(error.kind).toBe('circuit-open');
    expect(error.requests).toBe(0);
    expect(error.dispatched).toBe(false);
    expect(error.retryAfter).toBeGreaterThan(0);
    expect(await fourth.report()).toMatchObject({ outcome: 'error', cancelled: false, requests: 0 });
    expect(vendor.requests()).toBe(3);
    expect(vendor.ledger.map((entry) => entry.query.get('q'))).toEqual(['a1', 'a2', 'a3']);
  });
});

/**
 * A search whose breaker opens on one failure: the vendor's first answer (a 503, scripted by the
 * caller) opens it, and the cooldown then passes, so the next call is the half-open probe.
 */
async function halfOpen(vendor: Vendor, engine: Engine, clock: ManualClock) {
  const search = stitch({
    name: uniqueKey('search'),
    url: vendor.url('/search'),
    circuit: { failures: 1, cooldown: 1_000 },
    retry: false,
  });
  expect((await rejection(search({ query: { q: 'a' } }, { engine }))).status).toBe(503);
  await clock.advance(1_000);
  return search;
}

describe('a caller who leaves hands back at once what it held', () => {
  // A re-key's next call comes in the same tick as the cancel: it must find the lease free, on the
  // engine's own store and on an async one (whose read may come before the release is written).
  it.each([
    ['the default store', () => undefined],
    ['an async store', (now: () => number) => createMemoryStore(now)],
  ])(
    'a cancelled half-open probe frees its lease for the next call of the same tick (%s)',
    async (_, makeStore) => {
      const clock = createManualClock(Date.now());
      const store = makeStore(clock.now);
      const { vendor, engine } = await startScenario({ clock, engine: store ? { store } : {} });
      vendor.script({ status: 503 }, 'hold');
      const search = await halfOpen(vendor, engine, clock);

      const probe = search({ query: { q: 'ad' } }, { engine });
      await vendor.arrival(2);
      const reason = new Error('superseded by the next keystroke');
      probe.cancel(reason);
      const next = search({ query: { q: 'ada' } }, { engine });

      expect((await rejection(probe)).cause).toBe(reason);
      await expect(next).resolves.toEqual({ path: '/search', query: { q: 'ada' } });
      expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
      expect(vendor.requests()).toBe(3);
      expect(await engine.circuitState(vendor.origin)).toEqual({ state: 'closed', failures: 0 });
    },
  );

  it('a would-be probe cancelled while an async store admits it frees the lease for the next call of the same tick', async () => {
    const clock = createManualClock(Date.now());
    const { vendor, engine } = await startScenario({
      clock,
      engine: { store: createMemoryStore(clock.now) },
    });
    vendor.script({ status: 503 });
    const search = await halfOpen(vendor, engine, clock);

    const controller = new AbortController();
    const probe = search({ query: { q: 'ad' } }, { engine, signal: controller.signal });
    // The admit is under way (the store answers a few microtasks later) when the keystroke comes.
    await Promise.resolve();
    controller.abort(new Error('superseded'));
    const next = search({ query: { q: 'ada' } }, { engine });

    expect((await rejection(probe)).requests).toBe(0);
    await expect(next).resolves.toEqual({ path: '/search', query: { q: 'ada' } });
    expect(vendor.requests()).toBe(2);
    expect(await engine.circuitState(vendor.origin)).toEqual({ state: 'closed', failures: 0 });
  });

  it('a cancelled slot holder frees its slot for the next call of the same tick (maxWait 0)', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script('hold');
    const search = breakerSearch(vendor, { throttle: { concurrency: 1, maxWait: 0 } });

    const holder = search({ query: { q: 'ad' } }, { engine });
    await vendor.arrival(1);
    holder.cancel(new Error('superseded'));
    const next = search({ query: { q: 'ada' } }, { engine });

    await expect(next).resolves.toEqual({ path: '/search', query: { q: 'ada' } });
    expect((await rejection(holder)).kind).toBe('aborted');
    expect(vendor.requests()).toBe(2);
  });
});
