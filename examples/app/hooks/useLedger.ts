import { useSyncExternalStore } from 'react';
import type { LedgerSnapshot } from '../../vendor/index';
import { followLedger } from '../ledgerStream';

/*
 * The vendor pushes its ledger (`GET /api/ledger/stream`): once as it stands, then after each
 * change. Every component shares one stream, open while any is mounted.
 */
let latest: LedgerSnapshot | undefined;
let following: AbortController | undefined;
const listeners = new Set<() => void>();

function subscribe(listener: () => void) {
  listeners.add(listener);
  if (!following) {
    following = new AbortController();
    followLedger(new URL('/api/ledger/stream', window.location.origin), following.signal, (ledger) => {
      latest = ledger;
      for (const each of [...listeners]) each();
    }).catch((error: unknown) => console.warn('The vendor ledger stream failed:', error));
  }
  return () => {
    listeners.delete(listener);
    // A microtask later, so a remount (StrictMode's included) keeps the stream.
    queueMicrotask(() => {
      if (listeners.size > 0) return;
      following?.abort(new Error('No component shows the ledger any more'));
      following = undefined;
      latest = undefined;
    });
  };
}

/** The vendor's ledger, pushed by the vendor after each change (never polled); `undefined` until it came. */
export function useLedger(): LedgerSnapshot | undefined {
  return useSyncExternalStore(subscribe, () => latest);
}
