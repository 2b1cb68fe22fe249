/**
 * Idempotency records on the default (memory) store: a keyed write that succeeded answers its
 * re-issue from the record; a re-issue while it is in flight waits for it; a key whose run failed
 * or was cancelled can be sent again. The same contract holds across processes on Redis
 * (test/redis/processes.test.ts).
 */
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  createEngine,
  createMemoryStore,
  type IdempotencyOptions,
  type Store,
  stitch,
} from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { type Charge, type ChargeInput, chargeStitch as charge, paymentLedger } from '../helpers/payments';
import { rejection, startScenario, until } from '../helpers/runs';
import type { Vendor } from '../helpers/vendor';

const order: ChargeInput = { body: { orderId: 'order-42', amount: 1_999 } };
const owned = { idempotencyKey: 'order-42' };

async function setup(store?: Store) {
  const payments = paymentLedger();
  const scenario = await startScenario({ respond: payments.respond, ...(store && { engine: { store } }) });
  return { ...scenario, ...payments };
}

/** A charge that is not retried, so a failure is final. */
const chargeStitch = (vendor: Vendor, idempotency: IdempotencyOptions<ChargeInput> = true) =>
  charge(vendor, idempotency, { retry: 1 });

describe('a key that succeeded', () => {
  it('answers a re-issue from its record: nothing sent, the report says so', async () => {
    const { vendor, engine, charges } = await setup();
    const charge = chargeStitch(vendor);
    const first = await charge(order, { engine, ...owned });

    const again = charge(order, { engine, ...owned });
    await expect(again).resolves.toEqual(first);
    const report = await again.report();
    expect(report).toMatchObject({ ok: true, source: 'recorded', requests: 0, dispatched: false });
    expect(report.events).toContainEqual(
      expect.objectContaining({ type: 'idempotency', key: 'order-42', status: 'recorded' }),
    );
    expect(vendor.requests()).toBe(1);
    expect(charges.size).toBe(1);
  });

  it('is sent again once its record has lived `ttl` ms', async () => {
    const { vendor, engine, clock } = await setup();
    const charge = chargeStitch(vendor, { keyOf: (input) => input.body.orderId, ttl: 1_000 });
    await charge(order, { engine });
    await clock.advance(999);
    expect((await charge(order, { engine }).report()).source).toBe('recorded');
    await clock.advance(1);
    expect((await charge(order, { engine }).report()).source).toBe('live');
    expect(vendor.requests()).toBe(2);
  });

  it("is recorded for the call's own idempotencyTtl, which must be a positive number of ms", async () => {
    const { vendor, engine, clock } = await setup();
    const charge = chargeStitch(vendor);
    await charge(order, { engine, ...owned, idempotencyTtl: 1_000 });
    await clock.advance(999);
    expect((await charge(order, { engine, ...owned }).report()).source).toBe('recorded');
    await clock.advance(1);
    expect((await charge(order, { engine, ...owned }).report()).source).toBe('live');
    expect(vendor.requests()).toBe(2);
    for (const idempotencyTtl of [0, -1, Number.POSITIVE_INFINITY, '1000']) {
      await expect(charge(order, { engine, ...owned, idempotencyTtl } as never)).rejects.toMatchObject({
        kind: 'config',
        field: 'idempotencyTtl',
      });
    }
    expect(vendor.requests()).toBe(2);
  });

  it('is not answered for another principal using the same key: a record is its credentials’ own', async () => {
    const store = createMemoryStore();
    const { vendor, engine, clock } = await setup(store);
    // Another process sharing the store.
    const other = createEngine({ store, clock });
    const charge = chargeStitch(vendor);
    const as = (authorization: string): ChargeInput => ({ ...order, headers: { authorization } });
    const alice = await charge(as('Bearer alice-token'), { engine, ...owned });
    // Bob chose (or guessed) Alice's key: his write goes to the vendor, with his credentials.
    const bob = charge(as('Bearer bob-token'), { engine: other, ...owned });
    expect((await bob.report()).source).toBe('live');
    expect(vendor.ledger.map((entry) => entry.headers.authorization)).toEqual([
      'Bearer alice-token',
      'Bearer bob-token',
    ]);
    // Alice's own re-issue, in the other process, is answered from her record.
    const again = charge(as('Bearer alice-token'), { engine: other, ...owned });
    expect((await again.report()).source).toBe('recorded');
    await expect(again).resolves.toEqual(alice);
    expect(vendor.requests()).toBe(2);
  });

  it('is scoped by the credentials the engine’s headers hook adds too (a token per user)', async () => {
    const store = createMemoryStore();
    let user = 'Bearer alice-token';
    const headers = () => ({ authorization: user });
    const { vendor, clock } = await setup(store);
    const hooked = createEngine({ store, clock, headers });
    const charge = chargeStitch(vendor);
    await charge(order, { engine: hooked, ...owned });
    user = 'Bearer bob-token';
    const bob = charge(order, { engine: hooked, ...owned });
    expect((await bob.report()).source).toBe('live');
    user = 'Bearer alice-token';
    expect((await charge(order, { engine: hooked, ...owned }).report()).source).toBe('recorded');
    expect(vendor.ledger.map((entry) => entry.headers.authorization)).toEqual([
      'Bearer alice-token',
      'Bearer bob-token',
    ]);
  });

  it('a platform whose digest of the credentials fails settles the call (a config error saying so), sending nothing', async () => {
    const { vendor, engine } = await setup(createMemoryStore());
    const digest = vi
      .spyOn(globalThis.crypto.subtle, 'digest')
      .mockRejectedValue(new Error('no digest here'));
    onTestFinished(() => digest.mockRestore());
    const charge = chargeStitch(vendor);
    const failed = await charge(
      { ...order, headers: { authorization: 'Bearer alice-token' } },
      { engine, ...owned },
    ).safe();
    expect(failed.error).toMatchObject({
      kind: 'config',
      message: expect.stringContaining('no digest here'),
    });
    expect(vendor.requests()).toBe(0);
  });

  it('a caller gone while its credentials are digested claims nothing', async () => {
    const memory = createMemoryStore();
    const read: string[] = [];
    const watched: Store = {
      ...memory,
      get: (key) => {
        read.push(key);
        return memory.get(key);
      },
    };
    const { vendor, engine } = await setup(watched);
    // The digest is held until the caller has left.
    const { subtle } = crypto;
    const real = subtle.digest.bind(subtle);
    let asked = () => {};
    const digesting = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const left = new AbortController();
    const digest = vi.spyOn(subtle, 'digest').mockImplementation(async (algorithm, data) => {
      asked();
      await new Promise((resolve) => left.signal.addEventListener('abort', resolve));
      return real(algorithm, data);
    });
    onTestFinished(() => digest.mockRestore());
    const run = chargeStitch(vendor)(
      { ...order, headers: { authorization: 'Bearer alice-token' } },
      { engine, ...owned, signal: left.signal },
    );
    await digesting;
    left.abort(new Error('left'));
    await expect(run).rejects.toMatchObject({ kind: 'aborted', requests: 0 });
    // The digest done, and what the ledger does after it.
    await digest.mock.results[0]?.value;
    await new Promise((resolve) => setImmediate(resolve));
    expect(read.filter((key) => key.startsWith('idempotency:'))).toEqual([]);
    expect(vendor.requests()).toBe(0);
  });

  it('is not answered for another stitch using the same key', async () => {
    const { vendor, engine } = await setup();
    await chargeStitch(vendor)(order, { engine, ...owned });
    await chargeStitch(vendor)(order, { engine, ...owned });
    expect(vendor.requests()).toBe(2);
  });

  it('is not answered for another stitch whose name and key join to the same text', async () => {
    const { vendor, engine } = await setup();
    const name = uniqueKey('refund');
    const refund = (stitchName: string, keyOf: (input: ChargeInput) => string) =>
      stitch<Charge, ChargeInput>({
        name: stitchName,
        method: 'POST',
        url: vendor.url('/charges'),
        idempotency: { keyOf },
        retry: 1,
      });
    await refund(name, () => 'order:42')(order, { engine });
    const other = await refund(`${name}:order`, () => '42')(order, { engine }).report();
    expect(other).toMatchObject({ source: 'live', requests: 1 });
    expect(vendor.requests()).toBe(2);
  });
});

describe('a key in flight', () => {
  it('makes a re-issue wait for its outcome: one request, both get its data', async () => {
    const { vendor, engine, slow, charges } = await setup();
    slow.add(1);
    const charge = chargeStitch(vendor);
    const first = charge(order, { engine, ...owned });
    await vendor.arrival(1);

    const again = charge(order, { engine, ...owned });
    expect(await until(again, 'idempotency')).toMatchObject({ status: 'waiting' });
    vendor.release(1, { status: 201, body: charges.get('order-42') });

    const data = await first;
    await expect(again).resolves.toEqual(data);
    expect((await again.report()).source).toBe('recorded');
    expect(vendor.requests()).toBe(1);
  });

  it('keeps a re-issue waiting past the claim’s lease while the first is still sending here', async () => {
    const { vendor, engine, clock, slow, charges } = await setup();
    slow.add(1);
    const charge = chargeStitch(vendor);
    const first = charge(order, { engine, ...owned });
    await vendor.arrival(1);

    const again = charge(order, { engine, ...owned });
    await until(again, 'idempotency');
    // The lease of a claim without a total deadline is 60 s: the first is alive, in this process.
    await clock.advance(120_000);
    expect(vendor.requests()).toBe(1);
    vendor.release(1, { status: 201, body: charges.get('order-42') });

    const data = await first;
    await expect(again).resolves.toEqual(data);
    expect((await again.report()).source).toBe('recorded');
    expect(vendor.requests()).toBe(1);
  });

  it('a waiter whose caller aborts rejects at once with that reason; the first goes on', async () => {
    const { vendor, engine, slow, charges } = await setup();
    slow.add(1);
    const charge = chargeStitch(vendor);
    const first = charge(order, { engine, ...owned });
    await vendor.arrival(1);
    const controller = new AbortController();
    const again = charge(order, { engine, ...owned, signal: controller.signal });
    await until(again, 'idempotency');

    const reason = new Error('user left');
    controller.abort(reason);
    const error = await rejection(again);
    expect(error).toMatchObject({ kind: 'aborted', requests: 0, dispatched: false });
    expect(error.cause).toBe(reason);
    vendor.release(1, { status: 201, body: charges.get('order-42') });
    await expect(first).resolves.toMatchObject({ id: 'ch_1' });
    expect(vendor.requests()).toBe(1);
  });

  it('a waiter is bounded by its total deadline; one in another engine polls the shared store', async () => {
    const { vendor, clock, slow } = await setup();
    slow.add(1);
    // Two engines on one store play two processes: the same stitch, one with a deadline.
    const store = createMemoryStore(clock.now);
    const other = createEngine({ clock, store });
    const mine = createEngine({ clock, store });
    const name = uniqueKey('charge');
    const config = { name, method: 'POST' as const, url: vendor.url('/charges'), idempotency: true };
    const first = stitch<Charge, ChargeInput>(config)(order, { engine: other, ...owned });
    await vendor.arrival(1);
    const again = stitch<Charge, ChargeInput>({ ...config, timeout: 1_000 })(order, {
      engine: mine,
      ...owned,
    });
    await until(again, 'idempotency');

    await clock.advance(1_000);
    expect(await rejection(again)).toMatchObject({ kind: 'timeout', phase: 'total', requests: 0 });
    expect(clock.pending()).toBe(0);
    vendor.release(1);
    await first;
    expect(vendor.requests()).toBe(1);
  });
});

describe('a key that did not succeed can be sent again', () => {
  it('after its run failed', async () => {
    const { vendor, engine } = await setup();
    vendor.script({ status: 500, body: { error: 'boom' } });
    const charge = chargeStitch(vendor);
    expect(await rejection(charge(order, { engine, ...owned }))).toMatchObject({ kind: 'http', status: 500 });
    const again = charge(order, { engine, ...owned });
    await expect(again).resolves.toMatchObject({ id: 'ch_1' });
    expect((await again.report()).source).toBe('live');
    expect(vendor.requests()).toBe(2);
  });

  it('after it was cancelled before dispatch', async () => {
    const { vendor, engine } = await setup();
    const charge = chargeStitch(vendor);
    const controller = new AbortController();
    const first = charge(order, { engine, ...owned, signal: controller.signal });
    controller.abort(new Error('changed my mind'));
    expect(await rejection(first)).toMatchObject({ kind: 'aborted', dispatched: false });

    await expect(charge(order, { engine, ...owned })).resolves.toMatchObject({ id: 'ch_1' });
    expect(vendor.requests()).toBe(1);
  });

  it('a minted key (idempotency: true, no caller key) is never recorded', async () => {
    const memory = createMemoryStore();
    const written: string[] = [];
    const store: Store = {
      ...memory,
      update: (key, transition, ttl) => {
        written.push(key);
        return memory.update(key, transition, ttl);
      },
    };
    const { vendor, engine } = await setup(store);
    await chargeStitch(vendor)(order, { engine });
    expect(written.filter((key) => key.startsWith('idempotency:'))).toEqual([]);
  });
});

describe('a store that fails', () => {
  const corrupt = /^the store holds something else than an idempotency record/;
  it.each<[string, () => unknown, string | RegExp]>([
    [
      'down',
      () => {
        throw new Error('store down');
      },
      'store down',
    ],
    ...[['garbage'], [42], [{}], [{ state: 'pending' }], [{ state: 'done' }]].map(
      ([record]) =>
        [`holding ${JSON.stringify(record)}`, () => record, corrupt] as [string, () => unknown, RegExp],
    ),
  ])(
    '%s fails open: the write is sent, a store event says why, nothing waits',
    async (_label, read, said) => {
      const memory = createMemoryStore();
      const broken: Store = {
        ...memory,
        get: async <T>(key: string) => (key.startsWith('idempotency:') ? (read() as T) : memory.get<T>(key)),
      };
      const { vendor, engine } = await setup(broken);
      const run = chargeStitch(vendor)(order, { engine, ...owned });
      await expect(run).resolves.toMatchObject({ id: 'ch_1' });
      expect((await run.report()).events).toContainEqual(
        expect.objectContaining({
          type: 'store',
          operation: 'idempotency',
          key: 'order-42',
          error: typeof said === 'string' ? said : expect.stringMatching(said),
        }),
      );
      expect(vendor.requests()).toBe(1);
    },
  );
});
