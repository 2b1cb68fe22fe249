import type { ReactNode } from 'react';
import { useLanes } from '../hooks/useLanes';
import { countLanes } from './laneCounts';

/**
 * Request counts for one stitch, from its lanes in the devtools model, in the vendor ledger's
 * terms: sent, cancelled (hung up before an answer), completed, failed; and the runs that sent
 * nothing (cancelled first, or refused by the open breaker). `children` adds page-specific tiles
 * (keystrokes, the breaker).
 */
export function Counters({ stitch, children }: { stitch: string; children?: ReactNode }) {
  const counters = countLanes(useLanes([stitch]));
  return (
    <dl className="counters" aria-label="Counters">
      <Tile name="sent" value={counters.sent} />
      <Tile name="cancelled" value={counters.cancelled} />
      <Tile name="completed" value={counters.completed} />
      {counters.failed > 0 && <Tile name="failed" value={counters.failed} />}
      {counters.unsent > 0 && <Tile name="never sent" id="unsent" value={counters.unsent} />}
      {counters.fastFailed > 0 && <Tile name="failed fast" id="fast-failed" value={counters.fastFailed} />}
      {children}
    </dl>
  );
}

/** One labelled number; `data-testid` is `counter-<id>` for the browser test. */
export function Tile({ name, id = name, value }: { name: string; id?: string; value: ReactNode }) {
  return (
    <div className="tile">
      <dt>{name}</dt>
      <dd data-testid={`counter-${id}`}>{value}</dd>
    </div>
  );
}
