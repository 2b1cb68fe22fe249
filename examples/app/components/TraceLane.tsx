import type { Lane } from '../trace/store';

/** The time span the timeline shows, in clock ms. */
export interface TimeWindow {
  from: number;
  to: number;
}

/** A length of time as a share of the window's width. */
const share = (ms: number, window: TimeWindow) => `${((ms / (window.to - window.from)) * 100).toFixed(2)}%`;

/** A point in time as an offset from the window's left edge. */
const at = (time: number, window: TimeWindow) => share(time - window.from, window);

function caption(lane: Lane, now: number): string {
  const took = `${Math.round((lane.end ?? now) - lane.start)} ms`;
  const prefix = lane.probe ? 'probe · ' : '';
  switch (lane.state) {
    case 'queued':
      return `${prefix}queued`;
    case 'sent':
      return `${prefix}sent · ${took}`;
    case 'answered':
      return `${prefix}answered ${lane.detail} · ${took}`;
    case 'failed':
      return `${prefix}failed ${lane.detail} · ${took}`;
    case 'cancelled':
      if (lane.joined) return `let go of a shared request · ${took}`;
      return lane.dispatched ? `cancelled · socket closed · ${took}` : 'cancelled before sending';
    case 'shared':
      return lane.detail;
    default:
      return took;
  }
}

/** One run as a bar: queued (grey) until its request left, then on the wire until it ended. */
export function TraceLane({
  lane,
  label,
  window,
  now,
}: {
  lane: Lane;
  label: string;
  window: TimeWindow;
  now: number;
}) {
  const end = lane.end ?? now;
  const sent = lane.sent ?? end;
  const why = lane.state === 'cancelled' ? `cancelled: ${lane.detail}` : undefined;
  return (
    <li className={`lane lane-${lane.state}`} title={why}>
      <span className="lane-label" title={`${lane.method} ${lane.path}`}>
        {label}
      </span>
      <span className="lane-track" aria-hidden="true">
        <span
          className="segment segment-queued"
          style={{ left: at(lane.start, window), width: share(sent - lane.start, window) }}
        />
        {lane.sent !== undefined && (
          <span
            className="segment segment-wire"
            style={{ left: at(sent, window), width: share(end - sent, window) }}
          />
        )}
        {lane.end !== undefined && <span className="segment-end" style={{ left: at(end, window) }} />}
      </span>
      <span className="lane-caption">{caption(lane, now)}</span>
    </li>
  );
}
