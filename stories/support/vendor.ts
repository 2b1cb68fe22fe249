/**
 * The demo vendor as msw request handlers, for the stories: the demo app's `/api/...` paths answered
 * from the same data (`searchPeople`, `reportRows`), with the same controls and the same ledger as
 * `examples/vendor` (whose `node:http` server the browser cannot run). Input validation and its 4xx
 * answers are left to that vendor and its tests; the stories only send what the app sends.
 *
 * msw hands each handler the app's own `Request`, so the handler sees the request's `signal` abort:
 * that is how this vendor knows the client hung up, and what the play tests count as cancelled.
 *
 * Per request, an endpoint answers after its delay (real timers, from the controls), or, while the
 * endpoint is held (`hold`), only when the story calls `release`: an explicit queue, so a play keeps a
 * request in flight for exactly as long as it needs to.
 */
import { HttpResponse, http, type JsonBodyType, type RequestHandler } from 'msw';
import { type Controls, DEFAULT_CONTROLS, parseControls } from '../../examples/vendor/controls';
import { reportRows, searchPeople } from '../../examples/vendor/data';
import {
  type Charge,
  createLedger,
  type Endpoint,
  type EndpointStats,
  type LedgerEntry,
} from '../../examples/vendor/ledger';
import { peoplePage } from '../../examples/vendor/pages';
import { createTodos } from '../../examples/vendor/todos';

export type { Endpoint };

/** A request as the vendor saw it, with the reason the client aborted it with (if it did). */
export type Seen = LedgerEntry & { reason: unknown };

export interface StoryVendorOptions extends Partial<Controls> {
  /** Endpoints whose requests wait for `release` instead of their delay. */
  hold?: readonly Endpoint[];
}

export interface StoryVendor {
  /** The handlers to `msw.use(...)`. */
  readonly handlers: readonly RequestHandler[];
  /** The live controls: a change applies to the next request. */
  readonly controls: Controls;
  /** Changes controls, as `POST /api/controls` does. */
  set(patch: Partial<Controls>): void;
  /** Holds (or stops holding) an endpoint's new requests until `release`. */
  hold(endpoint: Endpoint, on?: boolean): void;
  /** Answers the oldest `count` held requests of `endpoint` now (all by default); returns how many. */
  release(endpoint: Endpoint, count?: number): number;
  /** How many requests of `endpoint` wait for `release`. */
  held(endpoint: Endpoint): number;
  /** The ledger's counts for `endpoint`: requests, completed, hungUp, failed. */
  counts(endpoint: Endpoint): EndpointStats;
  /** Requests of `endpoint` not answered, failed or hung up yet. */
  pending(endpoint: Endpoint): number;
  /** Every counted request (of `endpoint`), oldest first. */
  requests(endpoint?: Endpoint): readonly Seen[];
  /** The charges made, one per idempotency key. */
  charges(): readonly Charge[];
}

const PATHS: Record<Endpoint, string> = {
  search: '/api/search',
  'flaky-search': '/api/flaky-search',
  report: '/api/report',
  upload: '/api/upload',
  charges: '/api/charges',
  people: '/api/people',
  todos: '/api/todos',
};

/** Creates a vendor with the given controls (the rest from `DEFAULT_CONTROLS`). */
export function createStoryVendor({ hold = [], ...options }: StoryVendorOptions = {}): StoryVendor {
  const controls: Controls = { ...DEFAULT_CONTROLS, ...parseControls(options) };
  const ledger = createLedger();
  const holding = new Set<Endpoint>(hold);
  const queues = new Map<Endpoint, Array<() => void>>();
  const queueOf = (endpoint: Endpoint) =>
    queues.get(endpoint) ?? queues.set(endpoint, []).get(endpoint) ?? [];
  const reasons = new Map<number, unknown>();
  const todos = createTodos();

  /**
   * Resolves `true` when the answer is due (after `ms`, or on `release` while held; never while the
   * `hang` fault is on), `false` as soon as the client hangs up; either way nothing is left behind.
   */
  const due = (endpoint: Endpoint, ms: number, hang: boolean, signal: AbortSignal) =>
    new Promise<boolean>((resolve) => {
      if (signal.aborted) return resolve(false);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = (answer: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', hangUp);
        const queue = queueOf(endpoint);
        if (queue.includes(answerNow)) queue.splice(queue.indexOf(answerNow), 1);
        resolve(answer);
      };
      const answerNow = () => settle(true);
      const hangUp = () => settle(false);
      signal.addEventListener('abort', hangUp, { once: true });
      if (hang) return;
      if (holding.has(endpoint)) queueOf(endpoint).push(answerNow);
      else timer = setTimeout(answerNow, ms);
    });

  /** A counted endpoint: ledger entry, faults, then `work` (its body read on arrival) and its delay. */
  const counted = (
    method: 'get' | 'post' | 'put' | 'delete',
    endpoint: Endpoint,
    delay: (now: Controls) => number,
    work: (request: Request, url: URL) => Promise<[status: number, body: JsonBodyType]>,
  ) =>
    http[method](`*${PATHS[endpoint]}`, async ({ request }) => {
      const url = new URL(request.url);
      const key = request.headers.get('idempotency-key')?.trim();
      const entry = ledger.open(endpoint, {
        method: request.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        ...(key ? { idempotencyKey: key } : {}),
      });
      const now = { ...controls }; // this request's controls: later changes do not apply to it
      if (now.reset) {
        ledger.settle(entry, 'failed');
        return HttpResponse.error();
      }
      if (!now.hang && Math.random() < now.failRate) {
        ledger.settle(entry, 'failed', 503);
        return HttpResponse.json({ error: 'injected failure (failRate)' }, { status: 503, headers: RETRY });
      }
      const answer = await work(request, url).catch((error: unknown) => {
        if (!request.signal.aborted) throw error; // hung up while sending its body: counted below
      });
      if (!answer || !(await due(endpoint, delay(now), now.hang, request.signal))) {
        ledger.settle(entry, 'hungUp');
        reasons.set(entry.n, request.signal.reason);
        return HttpResponse.error();
      }
      const [status, body] = answer;
      ledger.settle(entry, 'completed', status);
      return HttpResponse.json(body, { status, headers: NO_STORE });
    });

  const handlers: RequestHandler[] = [
    counted('get', 'search', (now) => now.delay, search),
    counted('get', 'flaky-search', (now) => now.delay, search),
    counted(
      'get',
      'report',
      (now) => now.reportDelay,
      async (_request, url) => {
        const id = url.searchParams.get('id') ?? '';
        return [200, { id, generatedAt: new Date().toISOString(), rows: reportRows(id) }];
      },
    ),
    counted(
      'post',
      'upload',
      (now) => now.uploadDelay,
      async (request) => [200, { received: (await request.arrayBuffer()).byteLength }],
    ),
    counted(
      'post',
      'charges',
      (now) => now.chargeDelay,
      async (request) => {
        const key = request.headers.get('idempotency-key')?.trim() ?? '';
        const { amount, currency } = (await request.json()) as { amount: number; currency: string };
        // Made on arrival: from here on it exists whether or not the client hears back.
        const existing = ledger.charge(key);
        const made = existing ?? ledger.createCharge(key, amount, currency.toUpperCase());
        return [existing ? 200 : 201, { ...made, duplicate: existing !== undefined }];
      },
    ),
    counted(
      'get',
      'people',
      (now) => now.delay,
      async (_request, url) => [
        200,
        peoplePage(url.searchParams.get('cursor'), url.searchParams.get('limit')),
      ],
    ),
    // The to-do list changes on arrival here (the node vendor waits for the answer): the stories
    // play successes and injected failures, which fail before the list is touched.
    counted(
      'get',
      'todos',
      (now) => now.delay,
      async () => [200, todos.list() as unknown as JsonBodyType],
    ),
    counted(
      'post',
      'todos',
      (now) => now.delay,
      async (request) => {
        const { title } = (await request.json()) as { title: string };
        return [201, todos.add(title) as unknown as JsonBodyType];
      },
    ),
    counted(
      'put',
      'todos',
      (now) => now.delay,
      async (request) => {
        const { id, title } = (await request.json()) as { id: number; title: string };
        return [200, (todos.rename(id, title) ?? null) as unknown as JsonBodyType];
      },
    ),
    counted(
      'delete',
      'todos',
      (now) => now.delay,
      async (_request, url) => [200, todos.remove(Number(url.searchParams.get('id'))) ?? null],
    ),
    // The demo's plumbing: never counted, never faulted, answered at once.
    http.get('*/api/controls', () => HttpResponse.json(controls, { headers: NO_STORE })),
    http.post('*/api/controls', async ({ request }) => {
      try {
        Object.assign(controls, parseControls(await request.json()));
      } catch (error) {
        return HttpResponse.json({ error: (error as Error).message }, { status: 400 });
      }
      return HttpResponse.json(controls, { headers: NO_STORE });
    }),
    http.get('*/api/ledger', () => HttpResponse.json(ledger.snapshot(), { headers: NO_STORE })),
    // The ledger as it stands, then after each change, as the real vendor pushes it.
    http.get('*/api/ledger/stream', ({ request }) => {
      const encoder = new TextEncoder();
      let stop = () => {};
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          const push = () =>
            controller.enqueue(encoder.encode(`data: ${JSON.stringify(ledger.snapshot())}\n\n`));
          push();
          stop = ledger.subscribe(push);
          request.signal.addEventListener('abort', () => stop(), { once: true });
        },
        cancel: () => stop(),
      });
      return new HttpResponse(body, { headers: { 'content-type': 'text/event-stream', ...NO_STORE } });
    }),
    http.post('*/api/ledger/reset', () => {
      ledger.reset();
      return HttpResponse.json(ledger.snapshot(), { headers: NO_STORE });
    }),
    http.all('*/api/*', ({ request }) =>
      HttpResponse.json(
        { error: `no route ${request.method} ${new URL(request.url).pathname}` },
        { status: 404 },
      ),
    ),
  ];

  const requests = (endpoint?: Endpoint): Seen[] =>
    ledger
      .snapshot()
      .recent.filter((entry) => endpoint === undefined || entry.path === PATHS[endpoint])
      .map((entry) => ({ ...entry, reason: reasons.get(entry.n) }));

  return {
    handlers,
    controls,
    set(patch) {
      Object.assign(controls, parseControls(patch));
    },
    hold(endpoint, on = true) {
      if (on) holding.add(endpoint);
      else holding.delete(endpoint);
    },
    release(endpoint, count = Number.POSITIVE_INFINITY) {
      const answers = queueOf(endpoint).slice(0, count);
      for (const answer of answers) answer();
      return answers.length;
    },
    held: (endpoint) => queueOf(endpoint).length,
    counts: (endpoint) => ledger.snapshot().endpoints[endpoint],
    pending: (endpoint) => requests(endpoint).filter((entry) => entry.outcome === 'pending').length,
    requests,
    charges: () => ledger.snapshot().charges,
  };
}

const NO_STORE = { 'cache-control': 'no-store' };
const RETRY = { ...NO_STORE, 'retry-after': '1' };

async function search(_request: Request, url: URL): Promise<[number, JsonBodyType]> {
  const q = url.searchParams.get('q') ?? '';
  return [200, { query: q, ...searchPeople(q, Number(url.searchParams.get('limit') ?? 20)) }];
}
