import { useLedger } from '../hooks/useLedger';
import { formatAmount } from './money';

/** The charges the vendor actually made: the number that must stay at one per intent. */
export function ChargesList() {
  const charges = useLedger()?.charges;
  return (
    <section className="card" aria-labelledby="charges-title">
      <h2 id="charges-title">
        Charges the vendor made: <span data-testid="charge-count">{charges?.length ?? '–'}</span>
      </h2>
      {!charges?.length ? (
        <p className="muted">None yet.</p>
      ) : (
        <table className="ledger">
          <thead>
            <tr>
              <th scope="col">charge</th>
              <th scope="col">amount</th>
              <th scope="col">idempotency key</th>
            </tr>
          </thead>
          <tbody>
            {charges.map((charge) => (
              <tr key={charge.id}>
                <td>{charge.id}</td>
                <td>{formatAmount(charge.amount, charge.currency)}</td>
                <td>
                  <code>{charge.key}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
