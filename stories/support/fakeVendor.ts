/**
 * The demo vendor, in the browser: a `fetch` for `createEngine({ fetch })` that answers the demo
 * app's `/api/...` paths the way `examples/vendor/vendor.ts` does (same data via `searchPeople`, same
 * controls, idempotent charges made on arrival, a ledger), without `node:http`.
 *
 * It matches on the pathname only, since the app's stitches use `window.location.origin` as their
 * base URL (which differs between Storybook and the vitest browser runner).
 *
 * Like real fetch, it honours `init.signal`: an abort before the answer rejects at once with
 * `signal.reason` and the request counts as cancelled (the vendor's "hung up"); an abort after the
 * answer but before its body is read errors the body stream with the same reason.
 *
 * Per request, an endpoint is answered after its delay (real timers, from the controls), or, while
 * the endpoint is held (`hold`), only when the story calls `release`: an explicit queue, so a play
 * function can keep a request in flight for exactly as long as it needs to.
 */
import { type Controls, DEFAULT_CONTROLS, parseControls } from '../../examples/vendor/controls';
import { reportRows, searchPeople } from '../../examples/vendor/data';
import type { Charge, Endpoint, LedgerSnapshot } from '../../examples/vendor/ledger';

export type { Endpoint };

/** How one counted request ended; `pending` while the vendor has not answered it. */
export type Outcome = 'pending' | 'completed' | 'cancelled' | 'failed';

/** Per-endpoint counts. */
export interface Counts {
  /** Requests that reached the vendor (every `fetch` of the endpoint). */
  started: number;
  /** Answered by the endpoint (a 4xx for a bad request included). */
  completed: number;
  /** The client aborted before the answer: its pending work was dropped. */
  cancelled: number;
  /** Ended by an injected fault: a 503 from `failRate`, or a `reset`. */
  failed: number;
}

/** One counted request, as the fake vendor saw it. */
export interface Seen {
  readonly n: number;
  readonly endpoint: Endpoint;
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly idempotencyKey: string | undefined;
  outcome: Outcome;
  status: number | undefined;
  /** The `signal.reason` the request was aborted with. */
  reason: unknown;
}

export interface FakeVendorOptions extends Partial<Controls> {
  /** Endpoints whose requests wait for `release` instead of their delay. */
  hold?: readonly Endpoint[];
}

export interface FakeVendor {
  /** Pass to `createEngine({ fetch })`. */
  readonly fetch: typeof globalThis.fetch;
  /** The live controls (the real vendor's, same defaults): a change applies to the next request. */
  readonly controls: Controls;
  /** Changes controls, as `POST /api/controls` does. */
  set(patch: Partial<Controls>): void;
  /** Holds (or stops holding) an endpoint's new requests until `release`. */
  hold(endpoint: Endpoint, on?: boolean): void;
  /** Answers the oldest `count` held requests of `endpoint` now (all by default); returns how many. */
  release(endpoint: Endpoint, count?: number): number;
  /** How many requests of `endpoint` are waiting for `release`. */
  held(endpoint: Endpoint): number;
  /** Requests of `endpoint` the vendor has not finished with (held, delayed or hung). */
  pending(endpoint: Endpoint): number;
  counts(endpoint: Endpoint): Counts;
  /** Every counted request, oldest first. */
  requests(endpoint?: Endpoint): readonly Seen[];
  /** The charges made, one per idempotency key, in creation order. */
  charges(): readonly Charge[];
  /** `GET /api/ledger`, in the real vendor's shape. */
  ledger(): LedgerSnapshot;
  /** Stops answering: pending timers and held requests are dropped (an abort still rejects). */
  close(): void;
}

const ENDPOINTS: Record<string, Endpoint> = {
  'GET /api/search': 'search',
  'GET /api/flaky-search': 'flaky-search',
  'GET /api/report': 'report',
  'POST /api/upload': 'upload',
  'POST /api/charges': 'charges',
};

const ALL: readonly Endpoint[] = ['search', 'report', 'upload', 'charges'];

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** A refusal the endpoint answers with a 4xx, as the real vendor's `HttpError`. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** One request the vendor has not finished with. */
interface Exchange {
  readonly seen: Seen;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (response: Response) => void;
  readonly reject: (reason: unknown) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** The endpoint's answer, computed when its wait is over. */
  answer: (() => [number, unknown]) | undefined;
  done: boolean;
  stopListening: () => void;
}

/** Creates an in-browser demo vendor. */
export function createFakeVendor(options: FakeVendorOptions = {}): FakeVendor {
  const { hold: initiallyHeld = [], ...rest } = options;
  const controls: Controls = { ...DEFAULT_CONTROLS, ...parseControls(rest) };
  const holding = new Set<Endpoint>(initiallyHeld);
  const queues = new Map<Endpoint, Exchange[]>(ALL.map((endpoint) => [endpoint, []]));
  const open = new Set<Exchange>();
  const seen: Seen[] = [];
  const charges = new Map<string, Charge>();
  let chargeSeq = 0;
  let closed = false;

  const countsOf = (endpoint: Endpoint): Counts => {
    const counts: Counts = { started: 0, completed: 0, cancelled: 0, failed: 0 };
    for (const request of seen) {
      if (request.endpoint !== endpoint) continue;
      counts.started++;
      if (request.outcome !== 'pending') counts[request.outcome]++;
    }
    return counts;
  };

  const ledger = (): LedgerSnapshot => {
    const stats = (endpoint: Endpoint) => {
      const { started, completed, cancelled, failed } = countsOf(endpoint);
      return { requests: started, completed, hungUp: cancelled, failed };
    };
    return structuredClone({
      endpoints: {
        search: stats('search'),
        'flaky-search': stats('flaky-search'),
        report: stats('report'),
        upload: stats('upload'),
        charges: stats('charges'),
      },
      charges: [...charges.values()],
      recent: seen.slice(-200).map((s) => ({
        n: s.n,
        at: 0,
        method: s.method,
        path: s.path,
        query: { ...s.query },
        ...(s.status === undefined ? {} : { status: s.status }),
        outcome: s.outcome === 'cancelled' ? ('hungUp' as const) : s.outcome,
        hungUp: s.outcome === 'cancelled',
        ...(s.idempotencyKey === undefined ? {} : { idempotencyKey: s.idempotencyKey }),
      })),
    });
  };

  /** Ends an exchange once: the first of answer, fault and abort wins. */
  const finish = (x: Exchange, outcome: Exclude<Outcome, 'pending'>, status?: number) => {
    if (x.done) return false;
    x.done = true;
    clearTimeout(x.timer);
    x.stopListening();
    open.delete(x);
    const queue = queues.get(x.seen.endpoint);
    const at = queue?.indexOf(x) ?? -1;
    if (queue && at >= 0) queue.splice(at, 1);
    x.seen.outcome = outcome;
    x.seen.status = status;
    return true;
  };

  const respond = (
    x: Exchange,
    status: number,
    body: unknown,
    outcome: 'completed' | 'failed' = 'completed',
  ) => {
    if (!finish(x, outcome, status)) return;
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    if (status === 503) headers['retry-after'] = '1';
    x.resolve(jsonResponse(status, body, headers, x.signal));
  };

  /** The endpoint's answer is due: now, or when released while the endpoint is held. */
  const answerWhenDue = (x: Exchange, ms: number, answer: () => [number, unknown]) => {
    x.answer = answer;
    if (closed) return;
    if (holding.has(x.seen.endpoint)) {
      queues.get(x.seen.endpoint)?.push(x);
      return;
    }
    const go = () => respond(x, ...answer());
    if (ms <= 0) go();
    else x.timer = setTimeout(go, ms);
  };

  async function accept(x: Exchange, url: URL, body: BodyInit | null | undefined, now: Controls) {
    const { endpoint } = x.seen;
    if (now.reset) {
      finish(x, 'failed');
      x.reject(new TypeError('Failed to fetch'));
      return;
    }
    if (now.hang) return; // never answered: only an abort ends it
    if (Math.random() < now.failRate) {
      respond(x, 503, { error: 'injected failure (failRate)' }, 'failed');
      return;
    }
    switch (endpoint) {
      case 'search': {
        const q = url.searchParams.get('q') ?? '';
        const limit = parseLimit(url.searchParams.get('limit'));
        answerWhenDue(x, now.delay, () => [200, { query: q, ...searchPeople(q, limit) }]);
        return;
      }
      case 'report': {
        const id = url.searchParams.get('id');
        if (!id) throw new Refusal(400, 'the id query parameter is required');
        answerWhenDue(x, now.reportDelay, () => [
          200,
          { id, generatedAt: new Date().toISOString(), rows: reportRows(id) },
        ]);
        return;
      }
      case 'upload': {
        const received = (await readBody(body)).byteLength;
        if (x.done) return;
        answerWhenDue(x, now.uploadDelay, () => [200, { received }]);
        return;
      }
      case 'charges': {
        const key = x.seen.idempotencyKey;
        if (key === undefined) throw new Refusal(400, 'the Idempotency-Key header is required');
        const text = new TextDecoder().decode(await readBody(body));
        if (x.done) return;
        const { amount, currency } = parseCharge(text);
        const existing = charges.get(key);
        if (existing && (existing.amount !== amount || existing.currency !== currency)) {
          throw new Refusal(422, `Idempotency-Key "${key}" was already used for a different charge`);
        }
        // Made on arrival: from here on it exists whether or not the client hears back.
        const made = existing ?? makeCharge(key, amount, currency);
        answerWhenDue(x, now.chargeDelay, () => [
          existing ? 200 : 201,
          { ...made, duplicate: existing !== undefined },
        ]);
        return;
      }
    }
  }

  const makeCharge = (key: string, amount: number, currency: string): Charge => {
    const charge: Charge = {
      id: `ch_${String(++chargeSeq).padStart(6, '0')}`,
      key,
      amount,
      currency,
      createdAt: new Date().toISOString(),
    };
    charges.set(key, charge);
    return charge;
  };

  /** The demo's plumbing: never counted, never faulted, answered at once. */
  async function admin(
    route: string,
    body: BodyInit | null | undefined,
  ): Promise<[number, unknown] | undefined> {
    switch (route) {
      case 'GET /api/controls':
        return [200, { ...controls }];
      case 'POST /api/controls':
        try {
          Object.assign(controls, parseControls(JSON.parse(new TextDecoder().decode(await readBody(body)))));
        } catch (error) {
          return [400, { error: (error as Error).message }];
        }
        return [200, { ...controls }];
      case 'GET /api/ledger':
        return [200, ledger()];
      case 'POST /api/ledger/reset':
        seen.length = 0;
        charges.clear();
        return [200, ledger()];
      default:
        return undefined;
    }
  }

  const fetch: typeof globalThis.fetch = (input, init = {}) => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request ? request.url : String(input), 'http://fake.invalid');
    const method = (init.method ?? request?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers ?? request?.headers);
    const signal = init.signal ?? request?.signal ?? undefined;
    const body = init.body;
    const route = `${method} ${url.pathname}`;

    return new Promise<Response>((resolve, reject) => {
      if (closed) {
        reject(new TypeError('Failed to fetch: the fake vendor is closed'));
        return;
      }
      const endpoint = ENDPOINTS[route];
      if (!endpoint) {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        admin(route, body).then(
          (answer) => resolve(jsonResponse(...(answer ?? [404, { error: `no route ${route}` }]), {}, signal)),
          reject,
        );
        return;
      }
      const key = headers.get('idempotency-key')?.trim();
      const entry: Seen = {
        n: seen.length + 1,
        endpoint,
        method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        idempotencyKey: key ? key : undefined,
        outcome: 'pending',
        status: undefined,
        reason: undefined,
      };
      seen.push(entry);
      const x: Exchange = {
        seen: entry,
        signal,
        resolve,
        reject,
        timer: undefined,
        answer: undefined,
        done: false,
        stopListening: () => {},
      };
      open.add(x);
      const hangUp = () => {
        if (!finish(x, 'cancelled')) return;
        entry.reason = signal?.reason;
        reject(signal?.reason);
      };
      if (signal?.aborted) {
        hangUp();
        return;
      }
      signal?.addEventListener('abort', hangUp, { once: true });
      x.stopListening = () => signal?.removeEventListener('abort', hangUp);
      // This request's controls: a change made while it waits does not apply to it.
      accept(x, url, body, { ...controls }).catch((error: unknown) => {
        const [status, answer] =
          error instanceof Refusal
            ? [error.status, { error: error.message }]
            : [500, { error: String(error) }];
        respond(x, status, answer);
      });
    });
  };

  return {
    fetch,
    controls,
    set(patch) {
      Object.assign(controls, parseControls(patch));
    },
    hold(endpoint, on = true) {
      if (on) holding.add(endpoint);
      else holding.delete(endpoint);
    },
    release(endpoint, count = Number.POSITIVE_INFINITY) {
      const queue = queues.get(endpoint) ?? [];
      const due = queue.slice(0, count);
      for (const x of due) {
        const answer = x.answer;
        if (answer) respond(x, ...answer());
      }
      return due.length;
    },
    held: (endpoint) => queues.get(endpoint)?.length ?? 0,
    pending: (endpoint) => [...open].filter((x) => x.seen.endpoint === endpoint).length,
    counts: countsOf,
    requests: (endpoint) => seen.filter((s) => endpoint === undefined || s.endpoint === endpoint),
    charges: () => [...charges.values()],
    ledger,
    close() {
      // Nothing is answered any more; an abort still rejects at once, so the old engine's runs end.
      closed = true;
      for (const x of open) clearTimeout(x.timer);
      for (const queue of queues.values()) queue.length = 0;
    },
  };
}

/**
 * A JSON answer whose body, like a real fetch's, errors with the abort reason if the signal aborts
 * before the body has been read.
 */
function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string>,
  signal: AbortSignal | undefined,
): Response {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  let delivered = false;
  let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  const onAbort = () => {
    if (!delivered) stream?.error(signal?.reason);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const readable = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        stream = controller;
      },
      pull(controller) {
        delivered = true;
        signal?.removeEventListener('abort', onAbort);
        controller.enqueue(bytes);
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(readable, {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

async function readBody(body: BodyInit | null | undefined): Promise<Uint8Array> {
  if (body === null || body === undefined) return new Uint8Array(0);
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** `limit`: an integer from 1 to 100, default 20. */
function parseLimit(raw: string | null): number {
  if (raw === null) return DEFAULT_LIMIT;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > MAX_LIMIT) {
    throw new Refusal(400, `limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  return limit;
}

/** `{ amount, currency }`: a positive integer in minor units and a three-letter ISO 4217 code. */
function parseCharge(text: string): { amount: number; currency: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Refusal(400, 'the body must be JSON');
  }
  const { amount, currency } = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  if (!Number.isSafeInteger(amount) || (amount as number) <= 0) {
    throw new Refusal(400, 'amount must be a positive integer in minor units (cents)');
  }
  if (typeof currency !== 'string' || !/^[a-z]{3}$/i.test(currency)) {
    throw new Refusal(400, 'currency must be a three-letter ISO 4217 code');
  }
  return { amount: amount as number, currency: currency.toUpperCase() };
}
