import type { LedgerSnapshot } from '../vendor/index';

/**
 * Follows the vendor's ledger stream (`GET /api/ledger/stream`, server-sent events: one `data:`
 * line of JSON per event, events apart by a blank line), calling `onLedger` with each ledger it
 * pushes, until `signal` aborts (resolves then) or the stream ends. Read with `fetch`, so the
 * stories' in-page vendor (msw's fetch interceptor) answers it as the real vendor does.
 */
export async function followLedger(
  url: string | URL,
  signal: AbortSignal,
  onLedger: (ledger: LedgerSnapshot) => void,
): Promise<void> {
  try {
    const response = await fetch(url, { signal, headers: { accept: 'text/event-stream' } });
    if (!response.ok || !response.body) throw new Error(`the ledger stream answered ${response.status}`);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      const events = buffered.split('\n\n');
      buffered = events.pop() ?? '';
      for (const event of events) onLedger(JSON.parse(event.replace(/^data: /, '')) as LedgerSnapshot);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}
