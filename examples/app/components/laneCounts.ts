import type { AttemptView, LaneView } from '../../../src/devtools/index';

/** How the vendor's ledger will count a request: `undefined` while it is still out. */
function ending({ status, outcome }: AttemptView) {
  if (status !== undefined) return status < 500 ? 'completed' : 'failed';
  switch (outcome) {
    case 'in-flight':
      return undefined;
    case 'answered':
      return 'completed';
    case 'cancelled':
    case 'timeout':
      return 'cancelled'; // hung up: the page let go, or gave up, before any answer
    default:
      return 'failed'; // a network error: no answer came
  }
}

/**
 * The counts of these lanes, in the vendor ledger's terms: requests sent, hung up (`cancelled`:
 * let go of, or timed out), completed (answered below 500) and failed (5xx or dropped); and runs that sent
 * nothing, cancelled first (`unsent`) or refused by the open breaker (`fastFailed`).
 */
export function countLanes(lanes: readonly LaneView[]) {
  const endings = lanes.flatMap((lane) => lane.attempts.map(ending));
  const of = (name: string) => endings.filter((ended) => ended === name).length;
  return {
    sent: endings.length,
    cancelled: of('cancelled'),
    completed: of('completed'),
    failed: of('failed'),
    unsent: lanes.filter((lane) => lane.cancel?.socket === 'none').length,
    fastFailed: lanes.filter((lane) => lane.error?.kind === 'circuit-open').length,
  };
}
