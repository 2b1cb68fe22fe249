import type { CircuitOptions } from '../../src/index';
import { circuit, idempotency, retry, stitch } from '../../src/lite/index';
import type { Charge, Controls, SearchResult as Found, PeoplePage, ReportRow } from '../vendor/index';

export type { Controls, Endpoint, EndpointStats } from '../vendor/index';

/**
 * The demo vendor's endpoints as stitches. The vendor is mounted on this page's own origin, under
 * `/api`, by `npm start`. They come from `stitch-fetch/lite`: each names its policies as values,
 * and one that names none makes one attempt with no breaker.
 */
const baseUrl = window.location.origin;

/** The breaker the vendor's search calls count against, kept short so the demo can show a cycle. */
export const VENDOR_BREAKER = { key: 'demo-vendor', failures: 3, cooldown: 5_000 } satisfies CircuitOptions;
const vendorBreaker = circuit(VENDOR_BREAKER);

/** `GET /api/search`: the query echoed, the total found and the best-ranked `limit`. */
export type SearchResult = Found & { query: string };

export type SearchInput = { query: { q: string; limit?: number } };

/** Search-as-you-type. No retry: each 503 shows once, and the breaker page can count them. */
export const search = stitch<SearchResult, SearchInput>({
  name: 'search',
  baseUrl,
  url: '/api/search',
  circuit: vendorBreaker,
});

/**
 * The same search for the breaker page, on its own path so the vendor's ledger counts it apart, with
 * a per-attempt deadline so a hung vendor fails too. It counts against the same breaker.
 */
export const flakySearch = stitch<SearchResult, SearchInput>({
  name: 'flaky-search',
  baseUrl,
  url: '/api/flaky-search',
  timeout: { each: 3_000 },
  circuit: vendorBreaker,
});

/** `GET /api/people`: the directory page by page, each page handing out the next one's cursor. */
export const listPeople = stitch<PeoplePage, { query: { limit: number; cursor?: number } }>({
  name: 'people',
  baseUrl,
  url: '/api/people',
});

export interface Report {
  id: string;
  generatedAt: string;
  rows: ReportRow[];
}

/** A slow report. */
export const report = stitch<Report, { query: { id: string } }>({
  name: 'report',
  baseUrl,
  url: '/api/report',
});

/** A slow upload-like write; without a key it is never retried. */
export const upload = stitch<{ received: number }, { body: Blob }>({
  name: 'upload',
  baseUrl,
  method: 'POST',
  url: '/api/upload',
});

/** The vendor's answer to a charge: `duplicate` when the key had already made it. */
export type ChargeAnswer = Charge & { duplicate: boolean };

/** What a charge sends: the order's amount, and the key that pays for it (`order.ts`). */
export type ChargeInput = { body: { amount: number; currency: string; key: string } };

/**
 * A charge, under the order's own idempotency key (`keyOf`): paying for an order again, after a
 * cancel or after leaving the page mid-payment, cannot charge twice. With a key the write is
 * retried (3 attempts, `retry()`'s default for a keyed write).
 */
export const charge = stitch<ChargeAnswer, ChargeInput>({
  name: 'charge',
  baseUrl,
  method: 'POST',
  url: '/api/charges',
  idempotency: idempotency<ChargeInput>({ keyOf: ({ body }) => body.key }),
  retry: retry(),
});

// The demo's own plumbing: no policy, so never retried, never counted against a breaker.
const plumbing = { baseUrl } as const;

export const getControls = stitch<Controls>({ ...plumbing, name: 'controls', url: '/api/controls' });

export const setControls = stitch<Controls, { body: Partial<Controls> }>({
  ...plumbing,
  name: 'set-controls',
  method: 'POST',
  url: '/api/controls',
});

export const resetLedger = stitch<unknown>({
  ...plumbing,
  name: 'reset-ledger',
  method: 'POST',
  url: '/api/ledger/reset',
});
