import type { QueryResult } from '../../../src/react/index';
import type { SearchResult } from '../api';
import { PeopleList } from './PeopleList';

const IDLE = 'Type a name, a company or a city.';

/**
 * A search hook's result: the people found, marked while they are the previous query's
 * (`keepPrevious`). An idle hook (an empty box) shows the hint, even if it still holds the last
 * query's data.
 */
export function SearchResults({
  result: { status, data, error, isPlaceholder: placeholder, isFetching: fetching },
  summaryOnly = false,
}: {
  result: Pick<QueryResult<SearchResult>, 'status' | 'data' | 'error' | 'isPlaceholder' | 'isFetching'>;
  /** Just the "N found" line, without the people. */
  summaryOnly?: boolean;
}) {
  if (status === 'idle') return <p className="muted">{IDLE}</p>;
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
      {!summaryOnly && <PeopleList people={data.items} />}
    </section>
  );
}
