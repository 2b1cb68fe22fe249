import { useTransitions } from '../trace/context';
import { timeOfDay } from './when';

/** The breaker's transitions as the runs that caused them reported them (`circuit` trace events). */
export function TransitionLog() {
  const transitions = useTransitions();
  return (
    <section className="card" aria-labelledby="transitions-title">
      <h2 id="transitions-title">Breaker transitions</h2>
      {transitions.length === 0 ? (
        <p className="muted">None yet: cancellations never count against the breaker.</p>
      ) : (
        <ol className="transitions" aria-labelledby="transitions-title" data-testid="transitions">
          {transitions.map((t) => (
            <li key={`${t.run}-${t.at}-${t.to}`}>
              <time dateTime={new Date(t.seenAt).toISOString()}>{timeOfDay(t.seenAt)}</time>
              <span className={`breaker breaker-${t.from}`}>{t.from}</span>→
              <span className={`breaker breaker-${t.to}`}>{t.to}</span>
              <span className="muted">{`${t.run}${t.to === 'half-open' ? ' (probe)' : ''}`}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
