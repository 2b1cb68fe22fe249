import type { ErrorSummary, StitchEvent, TraceSink } from '../../../src/index';

/** Where one run is, as a lane of the timeline shows it. */
export type LaneState =
  | 'queued' // started, no request has left yet
  | 'sent' // a request is on the wire
  | 'answered' // the vendor answered and the run succeeded
  | 'failed' // an HTTP error, a timeout, a network error, or the breaker refused it
  | 'cancelled' // the caller let go; `dispatched` says whether a request had left
  | 'shared' // joined another run's request (coalesced) or read the cache
  | 'done';

/** One run of a stitch, reduced to what the timeline draws. */
export interface Lane {
  readonly run: string;
  readonly stitch: string;
  readonly method: string;
  /** Path and query, e.g. `/api/search?q=ada&limit=20`. */
  readonly path: string;
  readonly start: number;
  /** When the first request left (clock ms). */
  readonly sent: number | undefined;
  /** When the run settled. */
  readonly end: number | undefined;
  readonly state: LaneState;
  /** HTTP status, cancel reason, error kind: a few words for the lane's caption. */
  readonly detail: string;
  /** Whether a request had left when the run was cancelled. */
  readonly dispatched: boolean;
  /** Whether the run joined another run's request (coalesced) rather than sending its own. */
  readonly joined: boolean;
  /** Whether this run was the breaker's half-open probe. */
  readonly probe: boolean;
  readonly idempotencyKey: string | undefined;
}

/** Request-level counts for one stitch, the same columns the vendor's ledger keeps. */
export interface Counters {
  /** Runs started. */
  readonly runs: number;
  /** Requests that left the browser. */
  readonly sent: number;
  /** Requests the vendor answered with a status below 500. */
  readonly completed: number;
  /** Requests answered with a 5xx, timed out, or cut off before any answer (a network error). */
  readonly failed: number;
  /** Requests the page hung up on: cancelled after they left, before an answer came. */
  readonly cancelled: number;
  /** Runs cancelled before any request left. */
  readonly unsent: number;
  /** Runs the open breaker refused: they failed at once and sent nothing. */
  readonly fastFailed: number;
}

/** A change of a breaker's state, as a run saw it. */
export interface Transition {
  readonly at: number;
  /** Wall-clock time it was seen (ms since the epoch), for people to read. */
  readonly seenAt: number;
  readonly run: string;
  readonly key: string;
  readonly from: string;
  readonly to: string;
}

/** The trace as the page renders it: one snapshot per stitch, stable until that stitch changes. */
export interface TraceStore extends TraceSink {
  subscribe(listener: () => void): () => void;
  lanes(stitch: string): readonly Lane[];
  counters(stitch: string): Counters;
  transitions(): readonly Transition[];
  /** Forgets every lane, count and transition. */
  clear(): void;
}

const ZERO: Counters = { runs: 0, sent: 0, completed: 0, failed: 0, cancelled: 0, unsent: 0, fastFailed: 0 };
const NO_LANES: readonly Lane[] = [];
const NO_TRANSITIONS: readonly Transition[] = [];

interface StitchTrace {
  lanes: readonly Lane[];
  counters: Counters;
}

/**
 * A trace sink that folds the engine's events into lanes (one per run) and counters (one set per
 * stitch). Each stitch keeps its latest `maxLanes` lanes, so a poller cannot push a page's lanes out.
 */
export function createTraceStore(maxLanes = 24): TraceStore {
  let byStitch = new Map<string, StitchTrace>();
  let transitions: readonly Transition[] = NO_TRANSITIONS;
  /** Runs with a request on the wire that has not been answered yet: each ends exactly one way. */
  let unanswered = new Set<string>();
  const listeners = new Set<() => void>();

  const notify = () => {
    for (const listener of [...listeners]) listener();
  };

  const update = (stitch: string, change: (trace: StitchTrace) => StitchTrace) => {
    const current = byStitch.get(stitch) ?? { lanes: NO_LANES, counters: ZERO };
    byStitch.set(stitch, change(current));
  };

  const count = (stitch: string, field: keyof Counters) =>
    update(stitch, (t) => ({ ...t, counters: { ...t.counters, [field]: t.counters[field] + 1 } }));

  /** Changes one run's lane; a patch that changes nothing keeps the snapshot (no re-render). */
  const patchLane = (event: StitchEvent, patch: (lane: Lane) => Partial<Lane>) =>
    update(event.stitch, (t) => {
      const index = t.lanes.findIndex((lane) => lane.run === event.run);
      const lane = t.lanes[index];
      if (!lane) return t;
      const changes = patch(lane);
      const same = (Object.keys(changes) as (keyof Lane)[]).every((key) => changes[key] === lane[key]);
      if (same) return t;
      const lanes = [...t.lanes];
      lanes[index] = { ...lane, ...changes };
      return { ...t, lanes };
    });

  /** A network error ends the run's unanswered request: the vendor saw it fail (reset, say). */
  const failedUnanswered = (stitch: string, run: string, error: ErrorSummary) => {
    if (error.kind !== 'network' || !unanswered.delete(run)) return;
    count(stitch, 'failed');
  };

  const handle = (event: StitchEvent) => {
    switch (event.type) {
      case 'start': {
        const url = new URL(event.url);
        const lane: Lane = {
          run: event.run,
          stitch: event.stitch,
          method: event.method,
          path: `${url.pathname}${url.search}`,
          start: event.at,
          sent: undefined,
          end: undefined,
          state: 'queued',
          detail: '',
          dispatched: false,
          joined: false,
          probe: false,
          idempotencyKey: undefined,
        };
        count(event.stitch, 'runs');
        update(event.stitch, (t) => ({ ...t, lanes: [...t.lanes, lane].slice(-maxLanes) }));
        return;
      }
      case 'request':
        unanswered.add(event.run);
        count(event.stitch, 'sent');
        patchLane(event, (lane) => ({
          state: 'sent',
          sent: lane.sent ?? event.at,
          detail: event.attempt > 1 ? `attempt ${event.attempt}` : '',
          idempotencyKey: event.idempotencyKey,
        }));
        return;
      case 'response':
        unanswered.delete(event.run);
        count(event.stitch, event.status < 500 ? 'completed' : 'failed');
        patchLane(event, () => ({ detail: `${event.status}` }));
        return;
      case 'timeout':
        unanswered.delete(event.run);
        if (event.dispatched) count(event.stitch, 'failed');
        return;
      case 'retry':
        failedUnanswered(event.stitch, event.run, event.error);
        return;
      case 'coalesce':
        patchLane(event, () => ({ state: 'shared', joined: true, detail: `joined ${event.leader}` }));
        return;
      case 'cache':
        patchLane(event, () => ({ state: 'shared', detail: `cache (${event.hit})` }));
        return;
      case 'circuit':
        transitions = [
          ...transitions,
          {
            at: event.at,
            seenAt: Date.now(),
            run: event.run,
            key: event.key,
            from: event.from,
            to: event.to,
          },
        ].slice(-12);
        if (event.to === 'half-open') patchLane(event, () => ({ probe: true }));
        return;
      case 'cancel': {
        // A request that was answered and is now only reading its body counts as completed,
        // as the vendor counts it: only an unanswered request is a hang-up, and only when no
        // other caller keeps it (`shared`): then the cancel just let go of it.
        const hungUp = event.dispatched && event.phase === 'in-flight' && !event.shared;
        unanswered.delete(event.run);
        if (hungUp) count(event.stitch, 'cancelled');
        else if (!event.dispatched) count(event.stitch, 'unsent');
        patchLane(event, () => ({
          state: 'cancelled',
          end: event.at,
          dispatched: event.dispatched,
          detail: event.reason,
        }));
        return;
      }
      case 'error':
        failedUnanswered(event.stitch, event.run, event.error);
        if (event.error.kind === 'circuit-open') count(event.stitch, 'fastFailed');
        patchLane(event, () => ({
          state: 'failed',
          end: event.at,
          detail: event.error.status ? `${event.error.status}` : event.error.kind,
        }));
        return;
      case 'success':
        patchLane(event, (lane) => ({
          state: lane.state === 'shared' ? 'shared' : 'answered',
          end: event.at,
          detail: event.status === undefined ? lane.detail : `${event.status}`,
        }));
        return;
      case 'done':
        unanswered.delete(event.run);
        patchLane(event, (lane) => ({ end: lane.end ?? event.at }));
        return;
      default:
        return;
    }
  };

  return {
    handle(event) {
      handle(event);
      notify();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    lanes: (stitch) => byStitch.get(stitch)?.lanes ?? NO_LANES,
    counters: (stitch) => byStitch.get(stitch)?.counters ?? ZERO,
    transitions: () => transitions,
    clear() {
      byStitch = new Map();
      unanswered = new Set();
      transitions = NO_TRANSITIONS;
      notify();
    },
  };
}
