import { type IdempotencyOptions, type StitchConfig, type StitchInput, stitch } from '../../src/index';
import { uniqueKey } from './keys';
import type { LedgerEntry, Reply, Vendor } from './vendor';

/** What a test charges. */
export interface Order {
  orderId: string;
  amount: number;
}

/** A charge the payment vendor made. */
export interface Charge extends Order {
  id: string;
}

/** The input of a charge stitch. */
export interface ChargeInput extends StitchInput {
  body: Order;
}

/**
 * A payment vendor's logic, for `createVendor({ respond })`: it dedupes on `Idempotency-Key`.
 * The first request with a key creates a charge (201), any later one replays it (200). Requests
 * whose number is in `slow` are charged at once but answered only on `vendor.release(n)`, so a
 * client can give up after the charge went through: the ambiguous case idempotency keys exist for.
 */
export function paymentLedger() {
  const charges = new Map<string, Charge>();
  const slow = new Set<number>();
  const respond = (entry: LedgerEntry): Reply => {
    const key = entry.headers['idempotency-key'];
    if (typeof key !== 'string') return { status: 400, body: { error: 'Idempotency-Key required' } };
    const replayed = charges.get(key);
    if (replayed) return { status: 200, headers: { 'idempotent-replayed': 'true' }, body: replayed };
    const charge: Charge = { id: `ch_${charges.size + 1}`, ...(JSON.parse(entry.body) as Order) };
    charges.set(key, charge);
    return slow.has(entry.n) ? 'hold' : { status: 201, body: charge };
  };
  return { charges, slow, respond };
}

/** A POST of an order to the vendor's /charges. */
export function chargeStitch(
  vendor: Vendor,
  idempotency: IdempotencyOptions<ChargeInput> = true,
  config: Partial<StitchConfig<Charge, ChargeInput>> = {},
) {
  return stitch<Charge, ChargeInput>({
    name: uniqueKey('charge'),
    method: 'POST',
    url: vendor.url('/charges'),
    idempotency,
    ...config,
  });
}
