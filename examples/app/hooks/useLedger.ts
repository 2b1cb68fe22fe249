import { useStitch } from '../../../src/react/index';
import type { LedgerSnapshot } from '../../vendor/index';
import { getLedger } from '../api';
import { useInterval } from './useInterval';

/**
 * The vendor's ledger, polled. Every caller reads one cache key, so components polling at once
 * share one request (Stitch's coalescer), and the last data stays on screen while a poll is out.
 */
export function useLedger(every = 500): LedgerSnapshot | undefined {
  const ledger = useStitch(getLedger, {});
  useInterval(ledger.refetch, every);
  return ledger.data;
}
