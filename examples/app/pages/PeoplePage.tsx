import { useState } from 'react';
import type { LaneView } from '../../../src/devtools/index';
import { useStitchInfinite } from '../../../src/react/index';
import { listPeople } from '../api';
import { Counters, Tile } from '../components/Counters';
import { PageIntro } from '../components/PageIntro';
import { PeopleList } from '../components/PeopleList';
import { TraceTimeline } from '../components/TraceTimeline';

const SIZES = [10, 25] as const;

/** A page request's lane is labelled by its cursor and size. */
const cursorLabel = (lane: LaneView) => {
  const query = new URL(lane.url).searchParams;
  return `cursor ${query.get('cursor') ?? 0} · ${query.get('limit')}`;
};

export function PeoplePage() {
  const [limit, setLimit] = useState<number>(SIZES[0]);
  const people = useStitchInfinite(
    listPeople,
    { query: { limit } },
    {
      initialPageParam: 0,
      getNextPageParam: (last) => last.nextCursor,
      pageInput: 'cursor',
      maxPages: 20,
    },
  );
  const { data, error } = people;
  const shown = data?.pages.flatMap((page) => page.items) ?? [];

  return (
    <>
      <PageIntro title="Infinite list">
        <code>useStitchInfinite</code> reads the directory page by page, each page's cursor handed out by the
        page before. Each page is one request in the lanes. Change the page size while a page loads: the new
        size re-keys the list, so the old size's page request is aborted and its socket closed, and it never
        shows as an error. Cancel shows its reason; Refresh fetches every page again in order.
      </PageIntro>
      <div className="search">
        <label className="check">
          {'Page size '}
          <select value={limit} onChange={(event) => setLimit(Number(event.currentTarget.value))}>
            {SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Counters stitch={listPeople.definition.name}>
        <Tile name="pages" value={data?.pages.length ?? 0} />
      </Counters>
      <TraceTimeline stitches={[listPeople.definition.name]} label={cursorLabel} />
      <section aria-label="People" aria-busy={people.isFetching} className="results">
        <p className="muted" data-testid="people-summary">
          {data
            ? `${shown.length} of ${data.pages[0]?.total ?? 0} people, ${data.pages.length} pages`
            : people.isFetching
              ? 'Loading the first page…'
              : 'No page loaded'}
        </p>
        {error && (
          <p role="alert" className="error">
            {`${error.kind}: ${error.message}`}
          </p>
        )}
        <PeopleList people={shown} />
        <div className="actions">
          {/* With no page (the first one failed or was cancelled), fetchNext fetches the first. */}
          <button
            type="button"
            disabled={people.isFetching || (data !== undefined && !people.hasNext)}
            onClick={people.fetchNext}
          >
            {people.isFetchingNext
              ? 'Loading…'
              : !data
                ? 'Load the first page'
                : people.hasNext
                  ? 'Load more'
                  : 'No more people'}
          </button>
          <button
            type="button"
            disabled={!people.isFetching}
            onClick={() => people.cancel(new Error('Stopped by the user'))}
          >
            Cancel
          </button>
          <button type="button" className="quiet" disabled={!data} onClick={people.refetch}>
            Refresh
          </button>
        </div>
      </section>
    </>
  );
}
