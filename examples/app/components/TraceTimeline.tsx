import { type LaneView, useDevtoolsModel } from '../../../src/devtools/index';
import { useLanes } from '../hooks/useLanes';
import { useNow } from '../hooks/useNow';
import { defaultLabel } from './laneLabels';
import { type TimeWindow, TraceLane } from './TraceLane';

/** The smallest span drawn, so a lone fast request is not stretched across the whole track. */
const MIN_SPAN = 1_500;

/**
 * A live trace timeline of the given stitches' runs, drawn from the lanes the Stitch devtools
 * panel shows (its model, pushed by `engine.inspect`): when each was queued, when its request
 * left, and whether it was answered or cancelled.
 */
export function TraceTimeline({
  stitches,
  label = defaultLabel,
  limit = 10,
}: {
  stitches: readonly string[];
  label?: (lane: LaneView) => string;
  limit?: number;
}) {
  const model = useDevtoolsModel();
  const lanes = useLanes(stitches).slice(-limit);
  const live = lanes.some((lane) => lane.end === undefined);
  const now = useNow(live);
  const from = lanes[0]?.start ?? now;
  const last = Math.max(from, ...lanes.map((lane) => lane.end ?? now));
  const window: TimeWindow = { from, to: Math.max(last, from + MIN_SPAN) };

  return (
    <section className="card timeline" aria-labelledby="timeline-title">
      <header className="card-header">
        <h2 id="timeline-title">Trace timeline</h2>
        <span className="muted">{`${Math.round(window.to - window.from)} ms shown`}</span>
        <button type="button" className="quiet" onClick={model.clearLanes}>
          Clear trace
        </button>
      </header>
      {lanes.length === 0 ? (
        <p className="muted">No requests yet.</p>
      ) : (
        <ol className="lanes" aria-label="Requests, oldest first">
          {lanes.map((lane) => (
            <TraceLane key={lane.run} lane={lane} label={label(lane)} window={window} now={now} />
          ))}
        </ol>
      )}
      <ul className="legend" aria-label="Legend">
        <li className="legend-queued">queued</li>
        <li className="legend-sent">sent</li>
        <li className="legend-cancelled">cancelled</li>
        <li className="legend-answered">answered</li>
        <li className="legend-failed">failed</li>
      </ul>
    </section>
  );
}
