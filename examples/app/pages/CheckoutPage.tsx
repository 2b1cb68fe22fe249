import { useStitchMutation } from '../../../src/react/index';
import { charge } from '../api';
import { ChargesList } from '../components/ChargesList';
import { keyLabel } from '../components/laneLabels';
import { formatAmount } from '../components/money';
import { PageIntro } from '../components/PageIntro';
import { PaymentStatus } from '../components/PaymentStatus';
import { TraceTimeline } from '../components/TraceTimeline';

/** 42.00 EUR, in minor units as the vendor takes it. */
const ORDER = { amount: 4200, currency: 'EUR' };
const PRICE = formatAmount(ORDER.amount, ORDER.currency);

export function CheckoutPage() {
  const payment = useStitchMutation(charge);
  const pending = payment.status === 'pending';
  return (
    <>
      <PageIntro title="Checkout">
        Paying sends <code>POST /api/charges</code> with an <code>Idempotency-Key</code> that belongs to this
        intent, not to the click. Pay, cancel while the request is in flight (it may already have reached the
        vendor), then pay again: the same key goes out, the vendor answers with the same charge, and its
        ledger holds one charge. A new order (or a success) starts a new key.
      </PageIntro>
      <section className="card checkout" aria-labelledby="order-title">
        <h2 id="order-title">{`Order: ${PRICE}`}</h2>
        <p>
          Idempotency key of this intent: <code data-testid="idempotency-key">{payment.idempotencyKey}</code>
        </p>
        <div className="actions">
          <button type="button" onClick={() => payment.mutate({ body: ORDER })} disabled={pending}>
            {`Pay ${PRICE}`}
          </button>
          <button
            type="button"
            onClick={() => payment.cancel('The shopper pressed Cancel')}
            disabled={!pending}
          >
            Cancel
          </button>
          <button type="button" className="quiet" onClick={payment.reset} disabled={pending}>
            New order
          </button>
        </div>
        <PaymentStatus status={payment.status} data={payment.data} error={payment.error} />
      </section>
      <ChargesList />
      <TraceTimeline stitches={[charge.definition.name]} label={keyLabel} />
    </>
  );
}
