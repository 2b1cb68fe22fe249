import type { Endpoint } from '../api';
import { useLedger } from '../hooks/useLedger';

const ALL: readonly Endpoint[] = ['search', 'flaky-search', 'report', 'upload', 'charges', 'people', 'todos'];

/** What the vendor saw, per endpoint: requests, answered, hung up by the client, failed. */
export function LedgerTable({ endpoints = ALL }: { endpoints?: readonly Endpoint[] }) {
  const ledger = useLedger();
  return (
    <section className="card" aria-labelledby="ledger-title">
      <h2 id="ledger-title">Vendor ledger</h2>
      <table className="ledger">
        <thead>
          <tr>
            <th scope="col">endpoint</th>
            <th scope="col">requests</th>
            <th scope="col">completed</th>
            <th scope="col">hung up</th>
            <th scope="col">failed</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.map((name) => {
            const row = ledger?.endpoints[name];
            return (
              <tr key={name} data-testid={`ledger-${name}`}>
                <th scope="row">{name}</th>
                <td>{row?.requests ?? '–'}</td>
                <td>{row?.completed ?? '–'}</td>
                <td className={row?.hungUp ? 'hung-up' : undefined}>{row?.hungUp ?? '–'}</td>
                <td>{row?.failed ?? '–'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
