import { useSyncExternalStore } from 'react';
import type { LedgerSnapshot } from '../../vendor/index';
import { followLedger } from '../ledgerStream';

/*
 * The vendor pushes its ledger (`GET /api/ledger/stream`): once as it stands, then after each
 * change. Every component shares one stream, open while any is mounted and the tab is shown: a
 * browser gives an origin six connections, and a stream held by each background tab (every page
 * of the demo opened in a tab of its own) would leave none for the requests the demo shows.
 */
let latest: LedgerSnapshot | undefined;
let following: AbortController | undefined;
const listeners = new Set<() => void>();

function follow() {
  if (following || listeners.size === 0 || document.visibilityState === 'hidden') return;
  following = new AbortController();
  followLedger(new URL('/api/ledger/stream', window.location.origin), following.signal, (ledger) => {
    latest = ledger;
    for (const each of [...listeners]) each();
  }).catch((error: unknown) => console.warn('The vendor ledger stream failed:', error));
}

function stop(reason: string) {
  following?.abort(new Error(reason));
  following = undefined;
}

// Shown again, the stream reopens, and the vendor pushes its ledger as it stands.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') stop('The tab is hidden');
  else follow();
});

function subscribe(listener: () => void) {
  listeners.add(listener);
  follow();
  return () => {
    listeners.delete(listener);
    // A microtask later, so a remount (StrictMode's included) keeps the stream.
    queueMicrotask(() => {
      if (listeners.size > 0) return;
      stop('No component shows the ledger any more');
      latest = undefined;
    });
  };
}

/** The vendor's ledger, pushed by the vendor after each change (never polled); `undefined` until it came. */
export function useLedger(): LedgerSnapshot | undefined {
  return useSyncExternalStore(subscribe, () => latest);
}
