import { useState } from 'react';
import { report } from '../../examples/app/api';
import { PageIntro } from '../../examples/app/components/PageIntro';
import { ReportCard } from '../../examples/app/components/ReportCard';
import { TraceTimeline } from '../../examples/app/components/TraceTimeline';

/**
 * N of the app's `ReportCard`s, each its own `useStitch(report, { query: { id: 'q3-revenue' } })`:
 * N references on one key. Readers can be added and removed (the first one, whose run sent the
 * request, or the last one) while the request is in flight.
 */
export function Readers({ initial }: { initial: number }) {
  const [ids, setIds] = useState(() => Array.from({ length: initial }, (_, i) => i + 1));
  const next = Math.max(0, ...ids) + 1;
  return (
    <>
      <PageIntro title="Coalescing">
        Each card below is the demo's report card, a <code>useStitch</code> of one report: every mounted hook
        is one reference on the engine's coalescer for that key, so all of them share one request. Removing a
        card lets go of its reference only; the request is aborted (its socket closed) when the last card
        goes.
      </PageIntro>
      <div className="actions">
        <button type="button" onClick={() => setIds((list) => [...list, next])}>
          Add a reader
        </button>
        <button type="button" onClick={() => setIds((list) => list.slice(1))} disabled={ids.length === 0}>
          Remove the first reader
        </button>
        <button type="button" onClick={() => setIds((list) => list.slice(0, -1))} disabled={ids.length === 0}>
          Remove the last reader
        </button>
        <output data-testid="reader-count">{`${ids.length} readers`}</output>
      </div>
      <div className="pair">
        {ids.map((id) => (
          <ReportCard key={id} />
        ))}
      </div>
      <TraceTimeline stitches={[report.definition.name]} />
    </>
  );
}
