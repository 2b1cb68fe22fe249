import type { StitchError } from '../../../src/index';
import type { MutationStatus } from '../../../src/react/index';
import type { ChargeAnswer } from '../api';

const short = (key: string) => `${key.slice(0, 8)}…`;

/** The payment's state in words: above all, whether a cancelled payment may have gone through. */
export function PaymentStatus({
  status,
  data,
  error,
}: {
  status: MutationStatus;
  data: ChargeAnswer | undefined;
  error: StitchError | null;
}) {
  let text: string;
  if (status === 'pending') text = 'Paying… the vendor takes its time.';
  else if (status === 'success' && data)
    text = data.duplicate
      ? `Paid: charge ${data.id} under key ${short(data.key)}. The vendor recognised the key (duplicate: true): no second charge.`
      : `Paid: charge ${data.id} under key ${short(data.key)}, a new charge.`;
  else if (error?.kind === 'aborted')
    text = error.ambiguous
      ? 'Cancelled after the request left: the vendor may have charged. Paying again sends the same key, so it cannot charge twice.'
      : error.requests > 0
        ? 'Cancelled while waiting to try again: the vendor refused every attempt sent, so nothing was charged.'
        : 'Cancelled before the request left: nothing was charged.';
  else if (error) text = `${error.kind}: ${error.message}`;
  else text = 'Ready to pay.';
  return (
    <p className={`status status-${status}`} aria-live="polite" data-testid="payment-status">
      {text}
    </p>
  );
}
