/**
 * SPEC §5, fifth finding: in StitchAPI `idempotency: true` could not make a cancelled write
 * re-issuable: re-issuing minted a new key and the vendor charged twice. Here one logical call
 * carries one key on every attempt; a key the caller owns (`idempotencyKey`, or `keyOf(input)`)
 * survives a cancel and a re-issue, so the vendor sees a duplicate, not a second charge; and a
 * write without a key is never retried.
 */
import { describe, expect, it } from 'vitest';
import { type CallOptions, type IdempotencyOptions, type Stitch, stitch } from '../../../src/index';
import { uniqueKey } from '../../helpers/keys';
import { type Charge, type ChargeInput, paymentLedger } from '../../helpers/payments';
import { eventTypes, rejection, startScenario } from '../../helpers/runs';
import type { Vendor } from '../../helpers/vendor';

/** A payment vendor that charges once per key (see `paymentLedger`). */
async function setup() {
  const payments = paymentLedger();
  const scenario = await startScenario({ respond: payments.respond });
  return { ...scenario, charges: payments.charges, slow: payments.slow };
}

/** The Idempotency-Key each request carried, in arrival order. */
const keysSent = (vendor: Vendor) => vendor.ledger.map((entry) => entry.headers['idempotency-key']);

const retry = { attempts: 3, backoff: { base: 1, jitter: 'none' as const } };
const order: ChargeInput = { body: { orderId: 'order-42', amount: 1_999 } };
const busy = { status: 503, body: { error: 'busy' } };

/** A POST of an order to the vendor's /charges, with `retry`; without `idempotency` it sends no key. */
function chargeStitch(vendor: Vendor, idempotency?: IdempotencyOptions<ChargeInput>) {
  return stitch<Charge, ChargeInput>({
    name: uniqueKey('charge'),
    method: 'POST',
    url: vendor.url('/charges'),
    // Left out rather than set to undefined, so a write without a key is configured as a user would.
    ...(idempotency === undefined ? {} : { idempotency }),
    retry,
  });
}

/**
 * Sends `order` on `charge` and aborts it with `reason` once the vendor has it (request 1 must be
 * `slow`, so the vendor has charged but not answered). The client cannot know whether the charge
 * went through, so the cancel must say it is ambiguous, and still name the key a re-issue needs.
 */
async function cancelAfterCharge(
  vendor: Vendor,
  charge: Stitch<Charge, ChargeInput>,
  options: CallOptions,
  reason: Error,
) {
  const controller = new AbortController();
  const first = charge(order, { ...options, signal: controller.signal });
  await vendor.arrival(1); // the vendor has it, and has charged
  controller.abort(reason);
  const error = await rejection(first);
  expect(error).toMatchObject({
    kind: 'aborted',
    dispatched: true,
    ambiguous: true,
    idempotencyKey: 'order-42',
  });
  return error;
}

describe('one logical call, one key', () => {
  it('idempotency: true sends the same key on every retry of a call (503, 503, 200)', async () => {
    const { vendor, engine, clock, charges } = await setup();
    vendor.script(busy, busy);
    const charge = chargeStitch(vendor, true);

    const run = charge(order, { engine });
    for (const n of [1, 2]) {
      await vendor.arrival(n);
      await clock.untilPending(); // the backoff sleep after the 503
      await clock.next();
    }
    await expect(run).resolves.toEqual({ id: 'ch_1', ...order.body });

    expect(vendor.requests()).toBe(3);
    const [key, ...rest] = keysSent(vendor);
    expect(key).toMatch(/\S/);
    expect(rest).toEqual([key, key]);
    const report = await run.report();
    expect(report).toMatchObject({ outcome: 'success', attempts: 3, requests: 3, idempotencyKey: key });
    const requestKeys = report.events.flatMap((event) =>
      event.type === 'request' ? [event.idempotencyKey] : [],
    );
    expect(requestKeys).toEqual([key, key, key]);
    expect(charges.size).toBe(1);
    expect(clock.pending()).toBe(0);
  });

  it('two separate calls get two different keys (true collapses only the engine’s own duplicates)', async () => {
    const { vendor, engine, charges } = await setup();
    const charge = chargeStitch(vendor, true);

    const first = charge(order, { engine });
    await first;
    const second = charge(order, { engine });
    await second;

    const [a, b] = keysSent(vendor);
    expect(a).not.toBe(b);
    expect((await first.report()).idempotencyKey).toBe(a);
    expect((await second.report()).idempotencyKey).toBe(b);
    expect(charges.size).toBe(2);
  });

  it('a caller-owned key is sent as given on every attempt', async () => {
    const { vendor, engine, clock, charges } = await setup();
    vendor.script(busy);
    const charge = chargeStitch(vendor, true);

    const run = charge(order, { engine, idempotencyKey: 'order-42' });
    await vendor.arrival(1);
    await clock.untilPending();
    await clock.next();
    await expect(run).resolves.toMatchObject({ orderId: 'order-42' });
    expect(keysSent(vendor)).toEqual(['order-42', 'order-42']);
    expect((await run.report()).idempotencyKey).toBe('order-42');
    expect(charges.size).toBe(1);
  });
});

describe('a cancelled write can be re-issued safely with a key the caller owns', () => {
  it('idempotencyKey: the cancel is ambiguous, the re-issue is a duplicate, one charge', async () => {
    const { vendor, engine, charges, slow } = await setup();
    slow.add(1);
    const charge = chargeStitch(vendor, true);

    const reason = new Error('user pressed cancel');
    const error = await cancelAfterCharge(vendor, charge, { engine, idempotencyKey: 'order-42' }, reason);
    expect(error.cause).toBe(reason);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });

    const again = charge(order, { engine, idempotencyKey: 'order-42' });
    await expect(again).resolves.toEqual({ id: 'ch_1', ...order.body });
    expect(keysSent(vendor)).toEqual(['order-42', 'order-42']);
    expect((await vendor.finished(2)).answered).toBe(true);
    expect(charges.size).toBe(1);
    expect((await again.report()).status).toBe(200); // the vendor's replay, not a new charge
  });

  it('keyOf: the key comes from the input, so the re-issue carries it too; one charge', async () => {
    const { vendor, engine, charges, slow } = await setup();
    slow.add(1);
    const charge = chargeStitch(vendor, { keyOf: (input) => input.body.orderId });

    await cancelAfterCharge(vendor, charge, { engine }, new Error('user pressed cancel'));
    await vendor.hangUp(1);

    await expect(charge(order, { engine })).resolves.toEqual({ id: 'ch_1', ...order.body });
    expect(keysSent(vendor)).toEqual(['order-42', 'order-42']);
    expect(charges.size).toBe(1);
  });
});

describe('a write without a key', () => {
  it('is never retried, even with retry configured and a 503', async () => {
    const { vendor, engine, clock } = await setup();
    vendor.script(busy);
    const charge = chargeStitch(vendor);

    const run = charge(order, { engine });
    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'http', status: 503, attempts: 1, requests: 1 });
    expect(error.idempotencyKey).toBeUndefined();
    expect(clock.pending()).toBe(0); // no backoff sleep was scheduled
    expect(vendor.requests()).toBe(1);
    expect(keysSent(vendor)).toEqual([undefined]);
    const types = eventTypes((await run.report()).events);
    expect(types).not.toContain('retry');
  });
});
