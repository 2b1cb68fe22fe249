/**
 * One run as a lane: what the devtools model keeps of a run, folded from its events. Each event
 * replaces the lane, never mutates it.
 */
import type { ErrorSummary, StitchEvent } from '../index';

/** Where a run is, or how it ended. */
export type LaneStatus =
  | 'started'
  | 'queued'
  | 'sent'
  | 'coalesced'
  | 'cached'
  /** Answered from an idempotency record: nothing was sent (a re-issue of a key that succeeded). */
  | 'recorded'
  | 'answered'
  | 'failed'
  | 'cancelled';

/** One request that left (or was cut) for a run. */
export interface AttemptView {
  readonly attempt: number;
  readonly status: number | undefined;
  /**
   * `in-flight` until the attempt ends (its status shows once the answer's head has come, while
   * its body is read); `kept`: its run was cancelled while other callers shared the request,
   * which went on for them.
   */
  readonly outcome: 'in-flight' | 'answered' | 'failed' | 'timeout' | 'cancelled' | 'kept';
}

/**
 * A cancel as the lane shows it. `socket`: closed by this cancel (a request of its own was open),
 * kept for other callers, or none was open (nothing sent yet, or between attempts).
 */
export interface CancelView {
  readonly reason: string;
  readonly phase: string;
  readonly dispatched: boolean;
  readonly socket: 'closed' | 'kept' | 'none';
}

/** One run, as a lane. Times are the engine clock's (`engine.clock.now()`), in ms. */
export interface LaneView {
  readonly run: string;
  readonly stitch: string;
  readonly method: string;
  readonly url: string;
  readonly status: LaneStatus;
  /** When the run started. */
  readonly start: number;
  /** When its first request left; `undefined` while none has. */
  readonly sent: number | undefined;
  /** When it was answered, failed or cancelled; `undefined` while it is live. */
  readonly end: number | undefined;
  readonly attempts: readonly AttemptView[];
  /** The run whose request this one joined (coalescing). */
  readonly leader: string | undefined;
  /** Runs that joined this one's request. */
  readonly joiners: readonly string[];
  readonly retries: number;
  readonly cancel: CancelView | undefined;
  /** The failure, as the run's `error` event summed it up. */
  readonly error: ErrorSummary | undefined;
  readonly done: boolean;
  readonly events: readonly StitchEvent[];
}

/** The lane of a run that has just started. */
export function startLane(event: Extract<StitchEvent, { type: 'start' }>): LaneView {
  return {
    run: event.run,
    stitch: event.stitch,
    method: event.method,
    url: event.url,
    status: 'started',
    start: event.at,
    sent: undefined,
    end: undefined,
    attempts: [],
    leader: undefined,
    joiners: [],
    retries: 0,
    cancel: undefined,
    error: undefined,
    done: false,
    events: [event],
  };
}

/** What one run event changes in its lane, besides its events and attempts. */
function change(lane: LaneView, event: StitchEvent, attempts: AttemptView[]): Partial<LaneView> {
  const last = attempts.at(-1);
  const end = event.at;
  const settleLast = (outcome: AttemptView['outcome']) => {
    if (last?.outcome === 'in-flight') attempts[attempts.length - 1] = { ...last, outcome };
  };
  switch (event.type) {
    case 'queued':
      return { status: 'queued' };
    case 'cache':
      return { status: 'cached' };
    case 'coalesce':
      return { status: 'coalesced', leader: event.leader };
    case 'request':
      attempts.push({ attempt: event.attempt, status: undefined, outcome: 'in-flight' });
      return { status: 'sent', sent: lane.sent ?? end };
    case 'response':
      // Its head only: the body may yet time out, break or be cancelled, so it ends with the run's
      // next event (success, retry, timeout, cancel or error).
      if (last?.attempt === event.attempt) attempts[attempts.length - 1] = { ...last, status: event.status };
      else attempts.push({ attempt: event.attempt, status: event.status, outcome: 'in-flight' });
      return {};
    case 'idempotency':
      return event.status === 'recorded' ? { status: 'recorded' } : {};
    case 'retry':
      settleLast('failed');
      return { retries: lane.retries + 1 };
    case 'timeout':
      settleLast('timeout');
      return {};
    case 'cancel': {
      settleLast(event.shared ? 'kept' : 'cancelled');
      const open = event.phase === 'in-flight' || event.phase === 'body';
      const socket = !open ? 'none' : event.shared ? 'kept' : 'closed';
      const { reason, phase, dispatched } = event;
      return { end, status: 'cancelled', cancel: { reason, phase, dispatched, socket } };
    }
    case 'error':
      settleLast('failed');
      return { end, status: 'failed', error: event.error };
    case 'success':
      settleLast('answered');
      return lane.status === 'cached' || lane.status === 'coalesced' || lane.status === 'recorded'
        ? { end }
        : { end, status: 'answered' };
    case 'done':
      return { end: lane.end ?? end, done: true };
    default:
      return {};
  }
}

/** Applies one run event to its lane. */
export function step(lane: LaneView, event: StitchEvent): LaneView {
  const attempts = [...lane.attempts];
  return { ...lane, ...change(lane, event, attempts), attempts, events: [...lane.events, event] };
}
