import { useSyncExternalStore } from 'react';
import type { LedgerSnapshot } from '../../vendor/index';

/*
 * The vendor pushes its ledger (server-sent events from `GET /api/ledger/stream`): once as it
 * stands, then after each change. Every component shares one stream, open while any is mounted.
 */
let latest: LedgerSnapshot | undefined;
let source: EventSource | undefined;
const listeners = new Set<() => void>();

function subscribe(listener: () => void) {
  listeners.add(listener);
  if (!source) {
    source = new EventSource(new URL('/api/ledger/stream', window.location.origin));
    source.onmessage = (message) => {
      latest = JSON.parse(message.data) as LedgerSnapshot;
      for (const each of [...listeners]) each();
    };
  }
  return () => {
    listeners.delete(listener);
    // A microtask later, so a remount (StrictMode's included) keeps the stream.
    queueMicrotask(() => {
      if (listeners.size > 0) return;
      source?.close();
      source = undefined;
      latest = undefined;
    });
  };
}

/** The vendor's ledger, pushed by the vendor after each change (never polled); `undefined` until it came. */
export function useLedger(): LedgerSnapshot | undefined {
  return useSyncExternalStore(subscribe, () => latest);
}
