import { useState } from 'react';
import { skipToken, useStitch } from '../../../src/react/index';
import { flakySearch, VENDOR_BREAKER } from '../api';
import { BreakerBadge } from '../components/BreakerBadge';
import { Counters } from '../components/Counters';
import { queryLabel } from '../components/laneLabels';
import { PageIntro } from '../components/PageIntro';
import { SearchField } from '../components/SearchField';
import { SearchResults } from '../components/SearchResults';
import { TraceTimeline } from '../components/TraceTimeline';
import { TransitionLog } from '../components/TransitionLog';

export function BreakerPage() {
  const [q, setQ] = useState('ada');
  const result = useStitch(flakySearch, q ? { query: { q, limit: 5 } } : skipToken, { keepPrevious: true });
  return (
    <>
      <PageIntro title="Circuit breaker">
        {`${VENDOR_BREAKER.failures} failures in a row open the breaker for ${VENDOR_BREAKER.cooldown / 1000} s.
        Type fast first: many requests are cancelled and it stays closed, since an abort proves nothing about
        the vendor. Then raise the 503 rate and press Send again: real 503s open it, and calls fail fast with
        nothing sent. After the cooldown the next request is the half-open probe; its answer closes the
        breaker or opens it again.`}
      </PageIntro>
      <div className="pair">
        <section className="card" aria-labelledby="flaky-title">
          <h2 id="flaky-title">
            Breaker <BreakerBadge circuitKey={VENDOR_BREAKER.key} failures={VENDOR_BREAKER.failures} />
          </h2>
          <search className="search">
            <SearchField label="Search the flaky vendor" value={q} onChange={setQ} />
            <button type="button" onClick={result.refetch} disabled={!q}>
              Send again
            </button>
          </search>
          <SearchResults result={result} summaryOnly />
        </section>
        <TransitionLog />
      </div>
      <Counters stitch={flakySearch.definition.name} />
      <TraceTimeline stitches={[flakySearch.definition.name]} label={queryLabel} limit={8} />
    </>
  );
}
