import { useStitchInspector } from '../../../src/devtools/index';
import type { StitchEvent } from '../../../src/index';
import { useEngine } from '../../../src/react/index';
import { timeOfDay } from './when';

type Transition = Extract<StitchEvent, { type: 'circuit' }>;

const isTransition = (event: StitchEvent): event is Transition => event.type === 'circuit';

/**
 * The breaker's transitions as the runs that caused them reported them (`circuit` events of the
 * lanes in the devtools model), the last twelve, oldest first.
 */
export function TransitionLog() {
  const { clock } = useEngine();
  const transitions = useStitchInspector((snapshot) =>
    snapshot.lanes
      .flatMap((lane) => lane.events.filter(isTransition))
      .sort((a, b) => a.at - b.at)
      .slice(-12),
  );
  // Event times are the engine's monotonic clock; people read wall-clock time.
  const wall = (at: number) => clock.wallNow() - (clock.now() - at);
  return (
    <section className="card" aria-labelledby="transitions-title">
      <h2 id="transitions-title">Breaker transitions</h2>
      {transitions.length === 0 ? (
        <p className="muted">None yet: cancellations never count against the breaker.</p>
      ) : (
        <ol className="transitions" aria-labelledby="transitions-title" data-testid="transitions">
          {transitions.map((t) => (
            <li key={`${t.run}-${t.at}-${t.to}`}>
              <time dateTime={new Date(wall(t.at)).toISOString()}>{timeOfDay(wall(t.at))}</time>
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
