import type { StitchError } from '../../../src/index';
import type { SearchResult } from '../api';

const IDLE = 'Type a name, a company or a city.';

/** The people found, marked while they are the previous query's (`keepPrevious`). */
export function SearchResults({
  idle,
  data,
  error,
  placeholder,
  fetching,
  summaryOnly = false,
}: {
  /** Nothing asked (an empty box): an idle hook may still hold the last query's data. */
  idle: boolean;
  data: SearchResult | undefined;
  error: StitchError | null;
  placeholder: boolean;
  fetching: boolean;
  /** Just the "N found" line, without the people. */
  summaryOnly?: boolean;
}) {
  if (idle) return <p className="muted">{IDLE}</p>;
  if (error) {
    return (
      <p role="alert" className="error">
        {`${error.kind}: ${error.message}`}
      </p>
    );
  }
  if (!data) return <p className="muted">{fetching ? 'Searching…' : IDLE}</p>;
  return (
    <section aria-label="Results" aria-busy={fetching} className={placeholder ? 'results stale' : 'results'}>
      <p className="muted" data-testid="results-summary">
        {`${data.total} found for “${data.query}”, showing ${data.items.length}`}
        {placeholder ? ' (previous query, loading the new one)' : ''}
      </p>
      {!summaryOnly && (
        <ul className="people">
          {data.items.map((person) => (
            <li key={person.id}>
              <strong>{person.name}</strong>
              <span>{`${person.title} · ${person.company}`}</span>
              <span className="muted">{person.city}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
