import { memo, useDeferredValue, useState } from 'react';
import type { AttemptView, LaneView } from './model';
import { button, mono, PALETTE } from './theme';

/** What a cancel did to the socket, in words. */
const SOCKET = {
  closed: 'socket closed',
  kept: 'request kept for other callers',
  none: 'nothing had been sent',
} as const;

const path = (url: string) => {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
};

/** The status colour each attempt's outcome is drawn in. */
const SHOWN_AS: Record<AttemptView['outcome'], keyof typeof PALETTE.status> = {
  'in-flight': 'sent',
  answered: 'answered',
  failed: 'failed',
  timeout: 'failed',
  cancelled: 'cancelled',
  kept: 'coalesced',
};

function Attempt({ attempt }: { attempt: AttemptView }) {
  const colour = PALETTE.status[SHOWN_AS[attempt.outcome]];
  return (
    <li data-testid="devtools-attempt" data-outcome={attempt.outcome} style={{ color: colour }}>
      #{attempt.attempt} {attempt.status ?? ''} {attempt.outcome}
    </li>
  );
}

/**
 * One run. Memoised: the model replaces only the lanes that changed, so an event re-renders its
 * own lane, not the 200 others.
 */
const Lane = memo(function Lane({ lane }: { lane: LaneView }) {
  const { cancel } = lane;
  // The event list is drawn only while it is open: most lanes are never opened.
  const [open, setOpen] = useState(false);
  return (
    <li
      data-testid="devtools-lane"
      data-run={lane.run}
      data-status={lane.status}
      data-stitch={lane.stitch}
      data-url={lane.url}
      style={{
        borderLeft: `4px solid ${PALETTE.status[lane.status]}`,
        padding: '4px 8px',
        marginBottom: 4,
        background: PALETTE.raised,
      }}
    >
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 8, alignItems: 'baseline' }}>
        <strong style={{ color: PALETTE.status[lane.status] }}>{lane.status}</strong>
        <span style={mono}>
          {lane.method} {path(lane.url)}
        </span>
        <span style={{ color: PALETTE.muted }}>
          {lane.stitch} · {lane.run}
          {lane.done ? '' : ' · live'}
        </span>
      </div>
      {lane.attempts.length > 0 && (
        <ul
          aria-label="attempts"
          style={{ listStyle: 'none', margin: 0, padding: 0, display: 'flex', flexWrap: 'wrap', gap: 8 }}
        >
          {lane.attempts.map((attempt) => (
            <Attempt key={attempt.attempt} attempt={attempt} />
          ))}
        </ul>
      )}
      {lane.leader && <div style={{ color: PALETTE.muted }}>joined {lane.leader}'s request</div>}
      {lane.joiners.length > 0 && (
        <div style={{ color: PALETTE.muted }}>
          {lane.joiners.length} joined: {lane.joiners.join(', ')}
        </div>
      )}
      {lane.retries > 0 && <div style={{ color: PALETTE.muted }}>retried {lane.retries}×</div>}
      {cancel && (
        <div
          data-testid="devtools-cancel"
          data-socket={cancel.socket}
          style={{ color: PALETTE.status.cancelled }}
        >
          cancelled ({cancel.phase}): {cancel.reason} ·{' '}
          {cancel.socket === 'none' && cancel.dispatched ? 'no request was open' : SOCKET[cancel.socket]}
        </div>
      )}
      {lane.error && (
        <div style={{ color: PALETTE.status.failed }}>
          {lane.error.kind}: {lane.error.message}
        </div>
      )}
      <details onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary style={{ cursor: 'pointer', color: PALETTE.accent }}>{lane.events.length} events</summary>
        {open && (
          <ol style={{ ...mono, margin: 0, paddingLeft: 20 }}>
            {lane.events.map((event, index) => (
              // Events of a run never reorder: the index is a stable key.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              <li key={index}>{event.type}</li>
            ))}
          </ol>
        )}
      </details>
    </li>
  );
});

/**
 * The request lanes, newest first, with a filter on stitch name and URL. Memoised: the panel's
 * urgent render (each event) keeps the lanes it drew, and only its deferred render draws new ones.
 */
export const Lanes = memo(function Lanes({
  lanes,
  onClear,
}: {
  lanes: readonly LaneView[];
  onClear: () => void;
}) {
  const [filter, setFilter] = useState('');
  const deferred = useDeferredValue(filter.trim().toLowerCase());
  const shown = lanes.filter(
    (lane) => deferred === '' || `${lane.stitch} ${lane.url}`.toLowerCase().includes(deferred),
  );
  return (
    <div>
      <div style={{ display: 'flex', gap: 8, marginBottom: 8 }}>
        <label style={{ display: 'flex', gap: 4, alignItems: 'center', flex: 1, minWidth: 0 }}>
          <span>Filter</span>
          <input
            type="search"
            value={filter}
            onChange={(event) => setFilter(event.target.value)}
            style={{
              flex: 1,
              minWidth: 0,
              background: PALETTE.raised,
              color: PALETTE.text,
              border: `1px solid ${PALETTE.muted}`,
            }}
          />
        </label>
        <button type="button" style={button} onClick={onClear}>
          Clear
        </button>
      </div>
      {shown.length === 0 ? (
        <p style={{ color: PALETTE.muted }}>No requests yet.</p>
      ) : (
        <ol aria-label="requests" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
          {[...shown].reverse().map((lane) => (
            <Lane key={lane.run} lane={lane} />
          ))}
        </ol>
      )}
    </div>
  );
});
