import { useLedger } from '../hooks/useLedger';

/** What the vendor saw of the page that was left: its requests, hung up by the browser. */
export function HangUps() {
  const ledger = useLedger();
  const line = (name: 'report' | 'upload') => {
    const row = ledger?.endpoints[name];
    return row ? `${row.hungUp} of ${row.requests} hung up` : '…';
  };
  return (
    <section className="card notice" aria-labelledby="left-title">
      <h2 id="left-title">You left the page</h2>
      <p>
        The route changed, so <code>StitchScope</code> aborted everything below it. The vendor's ledger
        records the closed sockets:
      </p>
      <ul>
        <li>
          report: <strong data-testid="hangups-report">{line('report')}</strong>
        </li>
        <li>
          upload: <strong data-testid="hangups-upload">{line('upload')}</strong>
        </li>
      </ul>
    </section>
  );
}
