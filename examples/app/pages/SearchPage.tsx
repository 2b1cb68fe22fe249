import { useState } from 'react';
import { skipToken, useStitch } from '../../../src/react/index';
import { search, VENDOR_BREAKER } from '../api';
import { BreakerBadge } from '../components/BreakerBadge';
import { Counters, Tile } from '../components/Counters';
import { queryLabel } from '../components/laneLabels';
import { PageIntro } from '../components/PageIntro';
import { SearchField } from '../components/SearchField';
import { SearchResults } from '../components/SearchResults';
import { TraceTimeline } from '../components/TraceTimeline';

const DEBOUNCE_MS = 250;

export function SearchPage() {
  const [q, setQ] = useState('');
  const [debounce, setDebounce] = useState(false);
  const [keystrokes, setKeystrokes] = useState(0);
  const result = useStitch(search, q ? { query: { q, limit: 20 } } : skipToken, {
    keepPrevious: true,
    debounce: debounce ? DEBOUNCE_MS : 0,
  });

  return (
    <>
      <PageIntro title="Search as you type">
        Each keystroke re-keys <code>useStitch</code>: the previous query's request is aborted at once and its
        socket closed, while <code>keepPrevious</code> keeps the last results on screen. Type fast against the
        vendor's 300 ms delay and watch the lanes: every stale keystroke is cancelled, one request completes,
        and the breaker stays closed. With debounce on, stale keystrokes are never sent.
      </PageIntro>
      <search className="search">
        <SearchField
          label="Search people"
          value={q}
          placeholder="e.g. ada"
          onChange={(value) => {
            setQ(value);
            setKeystrokes((n) => n + 1);
          }}
        />
        <label className="check">
          <input
            type="checkbox"
            checked={debounce}
            onChange={(event) => setDebounce(event.currentTarget.checked)}
          />
          {`Debounce (${DEBOUNCE_MS} ms)`}
        </label>
      </search>
      <Counters stitch={search.definition.name}>
        <Tile name="keystrokes" value={keystrokes} />
        <Tile
          name="breaker"
          value={<BreakerBadge circuitKey={VENDOR_BREAKER.key} failures={VENDOR_BREAKER.failures} />}
        />
      </Counters>
      <TraceTimeline stitches={[search.definition.name]} label={queryLabel} />
      <SearchResults result={result} />
    </>
  );
}
