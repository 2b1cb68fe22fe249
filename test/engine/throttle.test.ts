import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { StitchError } from '../../src/engine/errors';
import {
  createThrottle,
  normalizeThrottle,
  parseRate,
  type ThrottleOptions,
  type ThrottlePolicy,
} from '../../src/engine/throttle';
import { createEngine, type StitchEvent, stitch } from '../../src/index';
import { createManualClock } from '../helpers/clock';
import { uniqueKey } from '../helpers/keys';
import { startScenario } from '../helpers/runs';
import { thrownBy } from '../helpers/throws';

const policyOf = (options: ThrottleOptions): ThrottlePolicy => {
  const policy = normalizeThrottle(options, 'test');
  if (!policy) throw new Error('expected a policy');
  return policy;
};

/** Records how a promise settled, so a test can look without awaiting it. */
function track<T>(promise: Promise<T>) {
  const seen: { status: 'pending' | 'fulfilled' | 'rejected'; value?: T; error?: unknown } = {
    status: 'pending',
  };
  promise.then(
    (value) => Object.assign(seen, { status: 'fulfilled', value }),
    (error: unknown) => Object.assign(seen, { status: 'rejected', error }),
  );
  return seen;
}

function setup() {
  const clock = createManualClock();
  const throttle = createThrottle(clock);
  /** Lets settled grants reach their callers without moving time. */
  const flush = () => clock.advance(0);
  return { clock, throttle, key: uniqueKey('throttle'), flush };
}

describe('concurrency', () => {
  it('queues the third caller and hands it the slot a release frees', async () => {
    const { clock, throttle, key, flush } = setup();
    const policy = policyOf({ concurrency: 2 });
    const onQueued = vi.fn();
    const first = await throttle.acquire(key, policy, { onQueued });
    await throttle.acquire(key, policy, { onQueued });
    expect(onQueued).not.toHaveBeenCalled();

    const third = track(throttle.acquire(key, policy, { onQueued }));
    expect(onQueued).toHaveBeenCalledExactlyOnceWith(1);
    expect(throttle.stats(key)).toEqual({ active: 2, queued: 1 });
    await flush();
    expect(third.status).toBe('pending');

    first();
    await flush();
    expect(third.status).toBe('fulfilled');
    expect(throttle.stats(key)).toEqual({ active: 2, queued: 0 });
    expect(clock.pending()).toBe(0);
  });

  it('grants waiters in FIFO order', async () => {
    const { throttle, key, flush } = setup();
    const policy = policyOf({ concurrency: 1 });
    let holder = await throttle.acquire(key, policy);
    const positions: number[] = [];
    const order: number[] = [];
    const waiters = [1, 2, 3, 4, 5].map((n) =>
      throttle.acquire(key, policy, { onQueued: (position) => positions.push(position) }).then((release) => {
        order.push(n);
        return release;
      }),
    );
    expect(positions).toEqual([1, 2, 3, 4, 5]);
    for (const [index, waiter] of waiters.entries()) {
      holder();
      holder = await waiter;
      await flush();
      // One grant per release, to the head of the queue: nobody overtook, nobody got two.
      expect(order).toEqual([1, 2, 3, 4, 5].slice(0, index + 1));
    }
    expect(order).toEqual([1, 2, 3, 4, 5]);
    holder();
    expect(throttle.stats(key)).toEqual({ active: 0, queued: 0 });
  });

  it('a second release of the same slot frees nothing more', async () => {
    const { throttle, key, flush } = setup();
    const policy = policyOf({ concurrency: 1 });
    const holder = await throttle.acquire(key, policy);
    const next = track(throttle.acquire(key, policy));
    const after = track(throttle.acquire(key, policy));
    holder();
    holder();
    await flush();
    expect(next.status).toBe('fulfilled');
    expect(after.status).toBe('pending');
    expect(throttle.stats(key)).toEqual({ active: 1, queued: 1 });
  });
});

describe('abort (law 3)', () => {
  it('a queued caller leaves at once, over 100 rounds, leaking no slot, timer or listener', async () => {
    const { clock, throttle, key } = setup();
    const policy = policyOf({ concurrency: 1, maxWait: 60_000 });
    const signals: AbortSignal[] = [];
    const signal = () => {
      const controller = new AbortController();
      signals.push(controller.signal);
      return controller;
    };

    for (let round = 0; round < 100; round++) {
      const holder = await throttle.acquire(key, policy, { signal: signal().signal });
      const waiter = signal();
      const queued = throttle.acquire(key, policy, { signal: waiter.signal });
      expect(throttle.stats(key).queued).toBe(1);
      const reason = new Error(`round ${round}`);
      waiter.abort(reason);
      expect(throttle.stats(key).queued).toBe(0);
      // The holder still holds its slot, so only the abort can settle this.
      await expect(queued).rejects.toBe(reason);

      holder();
      const fresh = throttle.acquire(key, policy, { signal: signal().signal });
      expect(throttle.stats(key)).toEqual({ active: 1, queued: 0 });
      (await fresh)();
    }

    expect(throttle.stats(key)).toEqual({ active: 0, queued: 0 });
    expect(clock.pending()).toBe(0);
    expect(signals.filter((s) => getEventListeners(s, 'abort').length > 0)).toHaveLength(0);
  });

  it('an abort in the same tick as the grant hands the slot back', async () => {
    const { clock, throttle, key, flush } = setup();
    const policy = policyOf({ concurrency: 1, maxWait: 1_000 });
    const holder = await throttle.acquire(key, policy);
    const controller = new AbortController();
    const waiter = track(throttle.acquire(key, policy, { signal: controller.signal }));
    const reason = new Error('navigated away');

    holder(); // grants the slot to the waiter...
    controller.abort(reason); // ...which aborts before it could see it
    await flush();
    expect(waiter).toMatchObject({ status: 'rejected', error: reason });
    expect(throttle.stats(key)).toEqual({ active: 0, queued: 0 });

    const fresh = track(throttle.acquire(key, policy));
    await flush();
    expect(fresh.status).toBe('fulfilled');
    expect(clock.pending()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('an abort in the same tick as an immediate grant gives back the slot and its rate token', async () => {
    const { throttle, key, flush } = setup();
    const policy = policyOf({ concurrency: 1, rate: '1/s' });
    const controller = new AbortController();
    const granted = track(throttle.acquire(key, policy, { signal: controller.signal }));
    controller.abort('superseded');
    await flush();
    expect(granted).toMatchObject({ status: 'rejected', error: 'superseded' });

    const fresh = track(throttle.acquire(key, policy));
    await flush();
    expect(fresh.status).toBe('fulfilled');
  });

  it('a signal found aborted when the grant settles (its event not yet delivered) still hands back', async () => {
    const { throttle, key, flush } = setup();
    const policy = policyOf({ concurrency: 1 });
    // A platform abort (AbortSignal.timeout) can let microtasks run before every listener is called.
    const lagging = {
      aborted: false,
      reason: undefined as unknown,
      addEventListener() {},
      removeEventListener() {},
    };
    const granted = track(throttle.acquire(key, policy, { signal: lagging as unknown as AbortSignal }));
    Object.assign(lagging, { aborted: true, reason: 'timed out' });
    await flush();
    expect(granted).toMatchObject({ status: 'rejected', error: 'timed out' });
    expect(throttle.stats(key)).toEqual({ active: 0, queued: 0 });
  });

  it('an already aborted signal rejects with its reason and takes nothing', async () => {
    const { throttle, key } = setup();
    const reason = new Error('too late');
    const onQueued = vi.fn();
    const acquiring = throttle.acquire(key, policyOf({ concurrency: 1 }), {
      signal: AbortSignal.abort(reason),
      onQueued,
    });
    await expect(acquiring).rejects.toBe(reason);
    expect(onQueued).not.toHaveBeenCalled();
    expect(throttle.stats(key)).toEqual({ active: 0, queued: 0 });
  });

  it('a throwing onQueued leaves the queue rather than strand a slot', async () => {
    const { throttle, key, flush } = setup();
    const policy = policyOf({ concurrency: 1 });
    const holder = await throttle.acquire(key, policy);
    const boom = new Error('boom');
    const failing = throttle.acquire(key, policy, {
      onQueued: () => {
        throw boom;
      },
    });
    await expect(failing).rejects.toBe(boom);
    holder();
    const fresh = track(throttle.acquire(key, policy));
    await flush();
    expect(fresh.status).toBe('fulfilled');
  });
});

describe('tryAcquire (the uncontended path, no promise)', () => {
  it('takes a free slot at once, and takes nothing while the limit is reached or someone waits', async () => {
    const { throttle, key, flush } = setup();
    const policy = policyOf({ concurrency: 1 });
    const held = throttle.tryAcquire(key, policy);
    expect(held).toBeTypeOf('function');
    expect(throttle.stats(key)).toEqual({ active: 1, queued: 0 });
    expect(throttle.tryAcquire(key, policy)).toBeUndefined();
    const waiter = track(throttle.acquire(key, policy));
    expect(throttle.stats(key)).toEqual({ active: 1, queued: 1 });
    held?.();
    await flush();
    expect(waiter.status).toBe('fulfilled');
    // FIFO: the waiter holds the slot now; a try takes nothing and jumps no queue.
    expect(throttle.tryAcquire(key, policy)).toBeUndefined();
    waiter.value?.();
    expect(throttle.stats(key)).toEqual({ active: 0, queued: 0 });
  });

  it('takes a rate token, and an unused release gives it back', async () => {
    const { throttle, key } = setup();
    const policy = policyOf({ concurrency: 5, rate: '1/s' });
    const first = throttle.tryAcquire(key, policy);
    first?.();
    expect(throttle.tryAcquire(key, policy)).toBeUndefined();
    const unused = policyOf({ concurrency: 5, rate: '1/s' });
    const other = uniqueKey('throttle');
    throttle.tryAcquire(other, unused)?.(true);
    expect(throttle.tryAcquire(other, unused)).toBeTypeOf('function');
  });
});

describe('rate', () => {
  it("'2/s' makes the third caller wait until 1000 ms after the first grant", async () => {
    const { clock, throttle, key, flush } = setup();
    const policy = policyOf({ rate: '2/s' });
    await throttle.acquire(key, policy);
    await clock.advance(300);
    await throttle.acquire(key, policy);
    const onQueued = vi.fn();
    const third = track(throttle.acquire(key, policy, { onQueued }));
    expect(onQueued).toHaveBeenCalledExactlyOnceWith(1);
    expect(clock.pending()).toBe(1); // one wake-up timer for the key

    await clock.advance(699);
    expect(third.status).toBe('pending');
    await clock.advance(1);
    expect(third.status).toBe('fulfilled');
    expect(clock.pending()).toBe(0);

    // Grants at 300 and 1000 now fill the window: the next one waits for 300 to expire.
    const fourth = track(throttle.acquire(key, policy));
    await clock.advance(299);
    expect(fourth.status).toBe('pending');
    await clock.advance(1);
    await flush();
    expect(fourth.status).toBe('fulfilled');
    expect(clock.pending()).toBe(0);
  });

  it('keeps one timer per key however many callers wait', async () => {
    const { clock, throttle, key } = setup();
    const policy = policyOf({ rate: '1/100ms' });
    await throttle.acquire(key, policy);
    const waiters = [1, 2, 3].map(() => track(throttle.acquire(key, policy)));
    expect(clock.pending()).toBe(1);
    await clock.advance(300);
    expect(waiters.map((w) => w.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(clock.pending()).toBe(0);
  });
});

describe('maxWait', () => {
  it("rejects with 'rate-limited' after maxWait and leaves nothing behind", async () => {
    const { clock, throttle, key } = setup();
    const policy = policyOf({ concurrency: 1, maxWait: 500 });
    await throttle.acquire(key, policy);
    const waiter = track(throttle.acquire(key, policy));
    await clock.advance(499);
    expect(waiter.status).toBe('pending');
    await clock.advance(1);
    expect(waiter.status).toBe('rejected');
    expect(waiter.error).toBeInstanceOf(StitchError);
    expect(waiter.error).toMatchObject({
      kind: 'rate-limited',
      message: 'waited longer than maxWait (500ms) for a throttle slot',
      retryable: true,
      retryAfter: undefined,
    });
    expect(throttle.stats(key)).toEqual({ active: 1, queued: 0 });
    expect(clock.pending()).toBe(0);
  });

  it('uses the smaller of the policy and the call, and estimates retryAfter from the rate window', async () => {
    const { clock, throttle, key } = setup();
    const policy = policyOf({ rate: '1/s', maxWait: 5_000 });
    await throttle.acquire(key, policy);
    const waiter = track(throttle.acquire(key, policy, { maxWait: 200 }));
    await clock.advance(200);
    expect(waiter.error).toMatchObject({ kind: 'rate-limited', retryAfter: 800 });
    expect(clock.pending()).toBe(0);
  });

  it("a rate token freeing at the very moment maxWait ends is the waiter's: a wait of maxWait is within it", async () => {
    const { clock, throttle, key } = setup();
    const policy = policyOf({ rate: '1/s', maxWait: 1_000 });
    await throttle.acquire(key, policy);
    // Its maxWait timer is scheduled before the wake-up timer the queue arms, both due at 1,000.
    const waiter = track(throttle.acquire(key, policy));
    await clock.advance(1_000);
    expect(waiter.status).toBe('fulfilled');
    expect(throttle.stats(key)).toEqual({ active: 2, queued: 0 });
    expect(clock.pending()).toBe(0);
  });

  it('maxWait 0 rejects at once without queueing when no slot is free', async () => {
    const { clock, throttle, key } = setup();
    const policy = policyOf({ concurrency: 1, maxWait: 0 });
    const holder = await throttle.acquire(key, policy);
    const onQueued = vi.fn();
    const acquiring = throttle.acquire(key, policy, { onQueued });
    expect(throttle.stats(key)).toEqual({ active: 1, queued: 0 });
    await expect(acquiring).rejects.toMatchObject({ kind: 'rate-limited' });
    expect(onQueued).not.toHaveBeenCalled();
    expect(clock.pending()).toBe(0);
    holder();
    await expect(throttle.acquire(key, policy)).resolves.toBeTypeOf('function');
  });
});

describe('parseRate', () => {
  it.each([
    ['10/s', { count: 10, per: 1_000 }],
    ['100/min', { count: 100, per: 60_000 }],
    ['100/m', { count: 100, per: 60_000 }],
    ['5/100ms', { count: 5, per: 100 }],
    ['2/h', { count: 2, per: 3_600_000 }],
    [' 3 / 2s ', { count: 3, per: 2_000 }],
  ])('%s', (text, expected) => {
    expect(parseRate(text)).toEqual(expected);
  });

  it.each(['', '10', '10/', '/s', '0/s', '5/0ms', '-1/s', '1.5/s', '10/d', '10 per s'])(
    'rejects %j',
    (text) => {
      expect(parseRate(text)).toBeUndefined();
    },
  );
});

describe('normalizeThrottle', () => {
  it('fills defaults and means no throttle for undefined or false', () => {
    expect(normalizeThrottle(undefined, 'x')).toBeUndefined();
    expect(normalizeThrottle(false, 'x')).toBeUndefined();
    expect(normalizeThrottle({ concurrency: 4 }, 'x')).toEqual({
      key: undefined,
      concurrency: 4,
      rate: undefined,
      maxWait: Infinity,
      shared: { rate: true, concurrency: false },
      part: expect.any(Object),
    });
    expect(normalizeThrottle({ key: 'api', rate: { count: 3, per: 50 }, maxWait: 0 }, 'x')).toEqual({
      key: 'api',
      concurrency: Infinity,
      rate: { count: 3, per: 50 },
      maxWait: 0,
      shared: { rate: true, concurrency: false },
      part: expect.any(Object),
    });
    expect(normalizeThrottle({ rate: '1/s', shared: false }, 'x')?.shared).toEqual({
      rate: false,
      concurrency: false,
    });
    expect(normalizeThrottle({ concurrency: 2, shared: { concurrency: true } }, 'x')?.shared).toEqual({
      rate: true,
      concurrency: true,
    });
  });

  it.each<[unknown, string]>([
    [{ concurrency: 0 }, 'throttle.concurrency'],
    [{ concurrency: 1.5 }, 'throttle.concurrency'],
    [{ concurrency: '4' }, 'throttle.concurrency'],
    [{ rate: '10 per second' }, 'throttle.rate'],
    [{ rate: { count: 0, per: 1_000 } }, 'throttle.rate'],
    [{ rate: { count: 1, per: Infinity } }, 'throttle.rate'],
    [{ rate: null }, 'throttle.rate'],
    [{ rate: { count: 1, per: '1000' } }, 'throttle.rate'],
    [{ concurrency: 1, maxWait: -1 }, 'throttle.maxWait'],
    [{ concurrency: 1, maxWait: Number.NaN }, 'throttle.maxWait'],
    [{ concurrency: 1, shared: 'yes' }, 'throttle.shared'],
    [{ concurrency: 1, shared: null }, 'throttle.shared'],
    [{ concurrency: 1, shared: { rate: 1 } }, 'throttle.shared.rate'],
    [{ concurrency: 1, shared: { concurrency: 'yes' } }, 'throttle.shared.concurrency'],
    [{ rate: '1/s', shared: { concurrency: true } }, 'throttle.shared.concurrency'],
    [{ concurrency: 1, key: '' }, 'throttle.key'],
    [{ maxWait: 100 }, 'throttle'],
    [{}, 'throttle'],
    [true, 'throttle'],
  ])('%j is a config error on %s', (value, field) => {
    const thrown = thrownBy(() => normalizeThrottle(value as ThrottleOptions, 'searchUsers'));
    expect(thrown).toBeInstanceOf(StitchError);
    expect(thrown).toMatchObject({ kind: 'config', field, stitch: 'searchUsers' });
  });
});

describe('release(unused)', () => {
  it('gives the rate token back with the slot when nothing was sent', async () => {
    const clock = createManualClock();
    const throttle = createThrottle(clock);
    const policy = normalizeThrottle({ rate: '1/s', maxWait: 0 }, 's') as NonNullable<
      ReturnType<typeof normalizeThrottle>
    >;
    const first = await throttle.acquire('k', policy);
    first(true);
    const second = await throttle.acquire('k', policy);
    second();
    await expect(throttle.acquire('k', policy)).rejects.toMatchObject({ kind: 'rate-limited' });
  });
});

describe('throttle.shared: { concurrency: true } on a store that cannot share (the memory store)', () => {
  it('keeps the limit per engine, as a process would, with no store event', async () => {
    const held: Array<() => void> = [];
    let sent: () => void = () => {};
    const fetch = (() =>
      new Promise<Response>((resolve) => {
        held.push(() => resolve(Response.json({})));
        sent();
      })) as typeof globalThis.fetch;
    const sentCount = (count: number) =>
      new Promise<void>((resolve) => {
        sent = () => held.length >= count && resolve();
        sent();
      });
    const clock = createManualClock();
    const [one, other] = [createEngine({ fetch, clock }), createEngine({ fetch, clock })];
    const pooled = stitch({
      name: uniqueKey('pooled'),
      url: 'https://api.test/pooled',
      coalesce: false,
      throttle: { concurrency: 1, maxWait: 0, shared: { concurrency: true } },
    });
    const first = pooled(undefined, { engine: one });
    const second = pooled(undefined, { engine: other });
    await sentCount(2);
    const third = await pooled(undefined, { engine: one }).safe();
    expect(third.error).toMatchObject({ kind: 'rate-limited', requests: 0 });
    for (const release of held) release();
    await Promise.all([first, second]);
    const events = [...(await first.report()).events, ...(await second.report()).events];
    expect(events.filter((event) => event.type === 'store')).toEqual([]);
  });
});

describe('two stitches with other limits on one key (an origin)', () => {
  /**
   * A held vendor, and stitches `a` and `b` on its origin with their own throttles; `sent` lists
   * the paths of the requests the engine has sent, as it sends them.
   */
  async function twoLimits(a: ThrottleOptions, b: ThrottleOptions) {
    const sent: string[] = [];
    const handle = (event: StitchEvent) => {
      if (event.type === 'request') sent.push(new URL(event.url).pathname);
    };
    const scenario = await startScenario({ respond: () => 'hold', engine: { trace: { handle } } });
    const named = (name: string, throttle: ThrottleOptions) =>
      stitch({
        name: uniqueKey(name),
        url: scenario.vendor.url(`/${name}`),
        retry: false,
        coalesce: false,
        throttle,
      });
    return { ...scenario, a: named('a', a), b: named('b', b), sent };
  }

  it("each waits under its own concurrency: b's call does not let a second call of a through", async () => {
    const { vendor, engine, clock, a, b, sent } = await twoLimits({ concurrency: 1 }, { rate: '100/s' });
    const first = a(undefined, { engine });
    await vendor.arrival(1);
    const second = a(undefined, { engine });
    const other = b(undefined, { engine });
    await clock.advance(0);
    expect(sent).toEqual(['/a']);
    vendor.release(1);
    await first;
    await vendor.arrival(3);
    expect(sent).toEqual(['/a', '/a', '/b']);
    vendor.release(2);
    vendor.release(3);
    await Promise.all([second, other]);
  });

  it('the front waiter leaving wakes the next on its own window, not the longer one set for the front', async () => {
    const { vendor, engine, clock, a, b, sent } = await twoLimits({ rate: '1/5s' }, { rate: '1/1s' });
    const first = a(undefined, { engine });
    await vendor.arrival(1);
    vendor.release(1);
    await first;
    const route = new AbortController();
    const waiting = a(undefined, { engine, signal: route.signal }).safe();
    const other = b(undefined, { engine });
    await clock.advance(200);
    route.abort(new Error('left'));
    await waiting;
    await clock.advance(799);
    expect(sent).toEqual(['/a']);
    await clock.advance(1);
    await vendor.arrival(2);
    expect(sent).toEqual(['/a', '/b']);
    vendor.release(2);
    await other;
  });

  it('a rate counts the calls of a stitch without one, also after the key went idle and was dropped', async () => {
    const { vendor, engine, clock, a, b, sent } = await twoLimits(
      { rate: '2/s', maxWait: 0 },
      { concurrency: 5 },
    );
    const first = a(undefined, { engine });
    await vendor.arrival(1);
    // Answered past its rate window: its release finds the key idle, and drops it.
    await clock.advance(1_500);
    vendor.release(1);
    await first;
    const others = [b(undefined, { engine }), b(undefined, { engine })];
    await vendor.arrival(3);
    const refused = await a(undefined, { engine }).safe();
    expect(refused.error).toMatchObject({ kind: 'rate-limited', requests: 0 });
    expect(sent).toEqual(['/a', '/b', '/b']);
    vendor.release(2);
    vendor.release(3);
    await Promise.all(others);
  });

  it("each waits under its own rate: b's call does not let a second call of a into a's window", async () => {
    const { vendor, engine, clock, a, b, sent } = await twoLimits({ rate: '1/s' }, { concurrency: 10 });
    const first = a(undefined, { engine });
    await vendor.arrival(1);
    vendor.release(1);
    await first;
    const second = a(undefined, { engine });
    const other = b(undefined, { engine });
    await clock.advance(999);
    expect(sent).toEqual(['/a']);
    await clock.advance(1);
    await vendor.arrival(3);
    expect(sent).toEqual(['/a', '/a', '/b']);
    vendor.release(2);
    vendor.release(3);
    await Promise.all([second, other]);
  });
});
