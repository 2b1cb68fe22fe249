/**
 * Issue 12, items 3, 6 and 7, end to end against a real vendor on 127.0.0.1:
 * - a duration past the host's 2^31-1 ms timer limit works (a 30-day `timeout.total` no longer
 *   fails every call after 1 ms);
 * - durations are measured on the monotonic clock: a wall-clock step back of an hour changes no
 *   breaker cooldown, throttle rate window or cache freshness;
 * - `timeout.total` bounds the breaker's write of an outcome: a caller is answered by its
 *   deadline however slow the store, and the throttle slot is not held while the record is written.
 * The first two run the engine's real clock under vitest's fake timers (which also move
 * `performance.now()`; `vi.setSystemTime` steps `Date.now()` alone); the last a manual clock.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createEngine, createMemoryStore, type Store, stitch } from '../../src/index';
import { createManualClock } from '../helpers/clock';
import { uniqueKey } from '../helpers/keys';
import { rejection, settledCount, startScenario } from '../helpers/runs';
import { createVendor, type Vendor } from '../helpers/vendor';

const DAY = 24 * 3_600_000;
const HOUR = 3_600_000;

afterEach(() => {
  vi.useRealTimers();
});

/** A vendor closed when the test ends, and an engine on the real clock. */
async function realClockScenario(): Promise<{ vendor: Vendor; engine: ReturnType<typeof createEngine> }> {
  const vendor = await createVendor();
  onTestFinished(() => vendor.close());
  return { vendor, engine: createEngine() };
}

describe('durations past 2^31-1 ms', () => {
  it('a 30-day timeout.total does not fire after 1 ms: the call waits for its answer', async () => {
    const { vendor, engine } = await realClockScenario();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    vendor.script('hold');
    const read = stitch({ name: uniqueKey('slow'), url: vendor.url('/report'), timeout: 30 * DAY });
    const run = read({}, { engine });
    await vendor.arrival(1);
    // Past the 1 ms that Node clamps an over-long timer to (not so far that fetch's own timers fire).
    vi.advanceTimersByTime(100);
    vendor.release(1, { body: { ready: true } });
    expect(await run).toEqual({ ready: true });
  });
});

describe('a wall-clock step back of an hour', () => {
  const stepBack = () => vi.setSystemTime(Date.now() - HOUR);

  it('does not keep a 200 ms breaker open: the probe goes out 200 ms later', async () => {
    const { vendor, engine } = await realClockScenario();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    vendor.script({ status: 503 });
    const read = stitch({
      name: uniqueKey('breaker'),
      url: vendor.url('/b'),
      retry: false,
      circuit: { failures: 1, cooldown: 200 },
    });
    await read({}, { engine }).safe();
    expect(await engine.circuitState(vendor.origin)).toMatchObject({ state: 'open' });
    stepBack();
    vi.advanceTimersByTime(200);
    expect(await read({}, { engine })).toEqual({ path: '/b', query: {} });
    expect(vendor.requests()).toBe(2);
    expect(await engine.circuitState(vendor.origin)).toEqual({ state: 'closed', failures: 0 });
  });

  it("does not stall a '2/s' throttle: the third call goes out a second after the first two", async () => {
    const { vendor, engine } = await realClockScenario();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const read = stitch({ name: uniqueKey('rate'), url: vendor.url('/t'), throttle: { rate: '2/s' } });
    await Promise.all([read({ query: { n: 1 } }, { engine }), read({ query: { n: 2 } }, { engine })]);
    stepBack();
    const third = read({ query: { n: 3 } }, { engine });
    vi.advanceTimersByTime(1_000);
    expect(await third).toEqual({ path: '/t', query: { n: '3' } });
  });

  it('does not keep serving a 200 ms-ttl entry: it is refetched 200 ms later', async () => {
    const { vendor, engine } = await realClockScenario();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const read = stitch({ name: uniqueKey('cached'), url: vendor.url('/c'), cache: { ttl: 200 } });
    await read({}, { engine });
    stepBack();
    vi.advanceTimersByTime(199);
    await read({}, { engine });
    expect(vendor.requests()).toBe(1);
    vi.advanceTimersByTime(1);
    await read({}, { engine });
    expect(vendor.requests()).toBe(2);
  });
});

/**
 * A store whose `update` answers only when the test opens its gate (a slow Redis, say);
 * `untilUpdates(n)` resolves once `n` updates are waiting on it.
 */
function gatedStore() {
  const inner = createMemoryStore();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const waiting: Array<() => void> = [];
  const store: Store = {
    ...inner,
    async update(key, transition, ttl) {
      waiting.shift()?.();
      await gate;
      return inner.update(key, transition, ttl);
    },
  };
  const untilUpdates = (n: number) =>
    Promise.all(Array.from({ length: n }, () => new Promise<void>((resolve) => waiting.push(resolve))));
  return { store, open, untilUpdates };
}

describe("timeout.total bounds the breaker's record of an outcome", () => {
  it('answers the caller by its deadline and frees the throttle slot while a slow store writes', async () => {
    const clock = createManualClock(0);
    const { store, open, untilUpdates } = gatedStore();
    const bothRecording = untilUpdates(2);
    const { vendor, engine } = await startScenario({ clock, engine: { store, storeTimeout: Infinity } });
    // One failure on record: a success resets it, so recording it needs a write.
    await store.set(`circuit:${vendor.origin}`, { state: 'closed', failures: 1 });
    const read = stitch({
      name: uniqueKey('recorded'),
      url: vendor.url('/r'),
      timeout: { total: 200 },
      throttle: { concurrency: 1 },
      coalesce: false,
    });
    const first = read({}, { engine });
    const second = read({}, { engine });
    const settled = settledCount([first, second]);
    // The second request goes out while the first's record is still being written.
    await vendor.arrival(2);
    await bothRecording;
    expect(settled()).toBe(0);
    await clock.advance(200);
    expect(settled()).toBe(2);
    expect(await first).toEqual({ path: '/r', query: {} });
    expect(await second).toEqual({ path: '/r', query: {} });
    // The record finishes after: the success still resets the count.
    open();
    await clock.advance(0);
    expect(await engine.circuitState(vendor.origin)).toEqual({ state: 'closed', failures: 0 });
  });
});

describe('timeout.total bounds the wait in a throttle queue', () => {
  it('callers queued behind a hung request, their deadlines passing with its own, send nothing', async () => {
    const clock = createManualClock(0);
    const { vendor, engine } = await startScenario({ clock });
    vendor.script('hold');
    const read = stitch({
      name: uniqueKey('queued'),
      url: vendor.url('/q'),
      timeout: { total: 200 },
      throttle: { concurrency: 1 },
      circuit: false,
      coalesce: false,
    });
    // One deadline at the same moment for all three: the first's, firing first, frees the slot
    // for the second before the second's own timer has run.
    const runs = [read({}, { engine }), read({}, { engine }), read({}, { engine })];
    await vendor.arrival(1);
    await clock.advance(200);
    const [first, ...queued] = await Promise.all(runs.map(rejection));
    expect(first).toMatchObject({ kind: 'timeout', phase: 'total', requests: 1 });
    for (const error of queued) {
      expect(error).toMatchObject({
        kind: 'rate-limited',
        message: 'the total deadline passed while waiting for a throttle slot',
        requests: 0,
        ambiguous: false,
      });
    }
    expect(vendor.requests()).toBe(1);
    expect(clock.pending()).toBe(0);
  });
});
