import { useStitchMutation } from '../../../src/react/index';
import { charge } from '../api';
import { ChargesList } from '../components/ChargesList';
import { keyLabel } from '../components/laneLabels';
import { formatAmount } from '../components/money';
import { PageIntro } from '../components/PageIntro';
import { PaymentStatus } from '../components/PaymentStatus';
import { TraceTimeline } from '../components/TraceTimeline';
import { endOrder, useOrder } from '../order';

export function CheckoutPage() {
  const order = useOrder();
  // A paid order is over, even when its answer lands after the page was left.
  const payment = useStitchMutation(charge, { onSuccess: (_data, { body }) => endOrder(body.key) });
  const pending = payment.status === 'pending';
  const price = formatAmount(order.amount, order.currency);
  return (
    <>
      <PageIntro title="Checkout">
        Paying sends <code>POST /api/charges</code> with an <code>Idempotency-Key</code> that belongs to the
        order, not to the click or to this page. Pay, cancel while the request is in flight (it may already
        have reached the vendor), or leave the page, then pay again: the same key goes out, the vendor answers
        with the same charge, and its ledger holds one charge. A new order (or a success) starts a new key.
      </PageIntro>
      <section className="card checkout" aria-labelledby="order-title">
        <h2 id="order-title">{`Order: ${price}`}</h2>
        <p>
          Idempotency key of this order: <code data-testid="idempotency-key">{order.key}</code>
        </p>
        <div className="actions">
          <button type="button" onClick={() => payment.mutate({ body: order })} disabled={pending}>
            {`Pay ${price}`}
          </button>
          <button
            type="button"
            onClick={() => payment.cancel('The shopper pressed Cancel')}
            disabled={!pending}
          >
            Cancel
          </button>
          <button
            type="button"
            className="quiet"
            onClick={() => {
              endOrder(order.key);
              payment.reset();
            }}
            disabled={pending}
          >
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
