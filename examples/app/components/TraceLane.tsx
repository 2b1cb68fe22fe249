import type { LaneView } from '../../../src/devtools/index';
import { pathOf } from './laneLabels';

/** The time span the timeline shows, in engine clock ms. */
export interface TimeWindow {
  from: number;
  to: number;
}

/** A length of time as a share of the window's width. */
const share = (ms: number, window: TimeWindow) => `${((ms / (window.to - window.from)) * 100).toFixed(2)}%`;

/** A point in time as an offset from the window's left edge. */
const at = (time: number, window: TimeWindow) => share(time - window.from, window);

/** What a cancel did, in the lane's words. */
const CANCELLED = {
  closed: 'cancelled · socket closed',
  kept: 'let go of a shared request',
  none: 'cancelled before sending',
} as const;

function caption(lane: LaneView, now: number): string {
  const took = `${Math.round((lane.end ?? now) - lane.start)} ms`;
  const probe = lane.events.some((event) => event.type === 'circuit' && event.to === 'half-open');
  const prefix = probe ? 'probe · ' : '';
  const status = lane.attempts.at(-1)?.status;
  switch (lane.status) {
    case 'started':
    case 'queued':
      return `${prefix}queued`;
    case 'sent':
      return `${prefix}sent · ${took}`;
    case 'answered':
      return `${prefix}answered ${status ?? ''} · ${took}`;
    case 'failed':
      return `${prefix}failed ${lane.error?.status ?? lane.error?.kind} · ${took}`;
    case 'cancelled': {
      const socket = lane.cancel?.socket ?? 'none';
      if (socket !== 'none') return `${CANCELLED[socket]} · ${took}`;
      // Between attempts (a backoff after a 503, say): earlier ones did leave.
      return lane.cancel?.dispatched ? `cancelled between attempts · ${took}` : CANCELLED.none;
    }
    case 'coalesced':
      return `joined ${lane.leader}`;
    case 'cached':
      return 'from the cache';
    case 'recorded':
      return 'from the idempotency record · nothing sent';
  }
}

/** One run as a bar: queued (grey) until its request left, then on the wire until it ended. */
export function TraceLane({
  lane,
  label,
  window,
  now,
}: {
  lane: LaneView;
  label: string;
  window: TimeWindow;
  now: number;
}) {
  const end = lane.end ?? now;
  const sent = lane.sent ?? end;
  const why = lane.cancel && `cancelled: ${lane.cancel.reason}`;
  return (
    <li className={`lane lane-${lane.status}`} title={why}>
      <span className="lane-label" title={`${lane.method} ${pathOf(lane)}`}>
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
