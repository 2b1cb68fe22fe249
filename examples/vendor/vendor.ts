/**
 * The demo vendor: a slow, breakable JSON API on `node:http` (no dependencies) for the demo app and
 * stories. It plays the far end of every scenario: latency to type and navigate through, faults to
 * trip a breaker, idempotent charges, and a ledger that shows from the server's side which requests
 * the client hung up on. A hang-up clears that request's pending timer, so cancelled work is not done.
 *
 *   client ──req──▶ arrive: ledger entry, faults, (body), charge made ── delay timer ──▶ answer
 *          ──close──────────────────────────────────▶ hungUp, timer cleared, nothing answered
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Controls, DEFAULT_CONTROLS, parseControls } from './controls';
import { reportRows, searchPeople } from './data';
import { consume, errorAnswer, HttpError, json, readJson } from './http';
import { createLedger, type Endpoint, type LedgerEntry, type LedgerSnapshot } from './ledger';
import { peoplePage } from './pages';
import { createTodos, parseTitle } from './todos';

/** A demo vendor. See {@link createDemoVendor}. */
export interface DemoVendor {
  /**
   * A `node:http` request listener, usable as Connect middleware (e.g. Vite's `server.middlewares`):
   * with a `next`, requests outside `/api` are passed on. It reads `originalUrl` when there is one,
   * so it also works mounted at `/api`.
   */
  handle(req: IncomingMessage, res: ServerResponse, next?: () => void): void;
  /**
   * Starts a server of its own and resolves its origin, e.g. `http://127.0.0.1:53817`. Once only.
   * @param port @default 0 (a free port)
   * @param host @default '127.0.0.1'
   */
  listen(port?: number, host?: string): Promise<string>;
  /** Clears every pending timer, destroys every open exchange and stops the server. Idempotent. */
  close(): Promise<void>;
  /** The live controls: a change applies to requests arriving after it. */
  readonly controls: Controls;
  /** A copy of the ledger, as `GET /api/ledger` answers it (and `GET /api/ledger/stream` pushes it). */
  ledger(): LedgerSnapshot;
}

/** One counted request the vendor has not finished with. */
interface Exchange {
  readonly res: ServerResponse;
  readonly entry: LedgerEntry;
  /** The pending answer; cleared on hang-up or `close()`, so no work is done for nobody. */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** The vendor ended it (a `reset` fault or `close()`), so its 'close' is not the client's hang-up. */
  cut: boolean;
  /** Its response has closed: nothing more may be scheduled for it. */
  closed: boolean;
}

/** An endpoint's own work, once the request has passed the faults. Throw an `HttpError` for a 4xx. */
type Work = (x: Exchange, req: IncomingMessage, url: URL, controls: Controls) => Promise<void>;

/** Connect strips a mount path from `req.url` and keeps the full one here. */
type ConnectRequest = IncomingMessage & { originalUrl?: string };

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/**
 * Creates a demo vendor with the given controls (the rest from {@link DEFAULT_CONTROLS}); throws a
 * `TypeError` for an invalid one. Nothing listens until {@link DemoVendor.listen}; `handle` works at once.
 */
export function createDemoVendor(options: Partial<Controls> = {}): DemoVendor {
  const controls: Controls = { ...DEFAULT_CONTROLS, ...parseControls(options) };
  const ledger = createLedger();
  const open = new Set<Exchange>();
  /** `GET /api/ledger/stream` clients: each hears the whole ledger now and after each change. */
  const followers = new Set<ServerResponse>();
  let server: Server | undefined;
  let closing: Promise<void> | undefined;

  const endpoints: Record<string, { endpoint: Endpoint; work: Work }> = {
    'GET /api/search': { endpoint: 'search', work: search },
    // The same search under its own name, so the breaker page's requests have their own ledger row.
    'GET /api/flaky-search': { endpoint: 'flaky-search', work: search },
    'GET /api/report': { endpoint: 'report', work: report },
    'POST /api/upload': { endpoint: 'upload', work: upload },
    'POST /api/charges': { endpoint: 'charges', work: charge },
    'GET /api/people': { endpoint: 'people', work: list },
    'GET /api/todos': { endpoint: 'todos', work: todoWork(() => todos.list()) },
    'POST /api/todos': { endpoint: 'todos', work: todoWork((body) => todos.add(title(body)), 201) },
    'PUT /api/todos': {
      endpoint: 'todos',
      work: todoWork((body) => todos.rename(todoId(body), title(body))),
    },
    'DELETE /api/todos': { endpoint: 'todos', work: todoWork((_body, url) => todos.remove(todoId(url))) },
  };
  const todos = createTodos();

  // Not counted and never faulted: the demo's own, which must be able to switch a fault off again.
  const admin: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<void>> = {
    'GET /api/controls': async (_req, res) => json(res, 200, controls),
    'POST /api/controls': async (req, res) => {
      const body = await readJson(req);
      if (!body) return;
      let patch: Partial<Controls>;
      try {
        patch = parseControls(body.value);
      } catch (error) {
        throw new HttpError(400, (error as Error).message);
      }
      Object.assign(controls, patch);
      json(res, 200, controls);
    },
    'GET /api/ledger': async (_req, res) => json(res, 200, ledger.snapshot()),
    // Server-sent events: the ledger as it stands, then again after each change (no polling).
    'GET /api/ledger/stream': async (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
      followers.add(res);
      res.on('close', () => followers.delete(res));
      push(res);
    },
    'POST /api/ledger/reset': async (_req, res) => {
      ledger.reset();
      json(res, 200, ledger.snapshot());
    },
  };

  const push = (res: ServerResponse) => res.write(`data: ${JSON.stringify(ledger.snapshot())}\n\n`);
  // One push per burst of changes (a request opened and settled in one tick is one message).
  let pushing = false;
  ledger.subscribe(() => {
    if (pushing) return;
    pushing = true;
    queueMicrotask(() => {
      pushing = false;
      for (const res of followers) push(res);
    });
  });

  function handle(req: IncomingMessage, res: ServerResponse, next?: () => void): void {
    const url = new URL((req as ConnectRequest).originalUrl ?? req.url ?? '/', 'http://vendor');
    if (next && !/^\/api(\/|$)/.test(url.pathname)) {
      next();
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', '*');
    // Not a CORS-safelisted header: without this, a cross-origin client could not honour it.
    res.setHeader('Access-Control-Expose-Headers', 'Retry-After');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, OPTIONS',
        'Access-Control-Allow-Headers': 'content-type, idempotency-key',
        'Access-Control-Max-Age': '600',
      });
      res.end();
      return;
    }
    if (closing) {
      json(res, 503, { error: 'the demo vendor is closed' });
      return;
    }
    const route = `${req.method} ${url.pathname}`;
    const adminRoute = admin[route];
    if (adminRoute) {
      adminRoute(req, res).catch((error) => json(res, ...errorAnswer(error)));
      return;
    }
    const target = endpoints[route];
    if (target) accept(target.endpoint, target.work, req, res, url);
    else json(res, 404, { error: `no route ${route}` });
  }

  /** Records the request, wires its hang-up detection, applies the faults, then runs the endpoint. */
  function accept(endpoint: Endpoint, work: Work, req: IncomingMessage, res: ServerResponse, url: URL): void {
    const key = req.headers['idempotency-key'];
    const idempotencyKey = typeof key === 'string' && key.trim() !== '' ? key.trim() : undefined;
    const entry = ledger.open(endpoint, {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    });
    const x: Exchange = { res, entry, timer: undefined, cut: false, closed: false };
    open.add(x);
    // 'close' ends every exchange, whoever ended it; only a close before a full answer, not caused by
    // the vendor, is the client's hang-up.
    res.on('close', () => {
      x.closed = true;
      open.delete(x);
      clearTimeout(x.timer);
      if (!res.writableFinished && !x.cut) ledger.settle(entry, 'hungUp');
    });

    // This request's controls: a change made while it waits does not apply to it.
    const now = { ...controls };
    if (now.reset) {
      x.cut = true;
      ledger.settle(entry, 'failed');
      // A connection closed before any byte of an answer is one a browser may silently send again
      // on a new connection when the closed one had been kept alive (Chromium does, once per idle
      // socket it holds), so one fetch would reach the ledger several times. A byte that cannot
      // start an HTTP answer makes the client fail this request instead: one request, one failure.
      if (res.socket) res.socket.end('X');
      else res.destroy();
      return;
    }
    if (now.hang) return; // no timer: the exchange stays open until the client hangs up or close()
    if (Math.random() < now.failRate) {
      res.setHeader('Retry-After', '1');
      finish(x, 503, { error: 'injected failure (failRate)' }, 'failed');
      return;
    }
    work(x, req, url, now).catch((error) => finish(x, ...errorAnswer(error)));
  }

  /** Answers `x` now, unless it is already over (the client hung up, or `close()`). */
  function finish(x: Exchange, status: number, body: unknown, outcome: 'completed' | 'failed' = 'completed') {
    if (x.closed || x.res.destroyed) return;
    ledger.settle(x.entry, outcome, status);
    json(x.res, status, body);
  }

  /** Calls `answer` after `ms`, on a timer the exchange owns, so that a hang-up or `close()` clears it. */
  function after(x: Exchange, ms: number, answer: () => void): void {
    if (x.closed) return;
    if (ms <= 0) {
      answer();
      return;
    }
    x.timer = setTimeout(() => {
      x.timer = undefined;
      answer();
    }, ms);
  }

  async function search(x: Exchange, _req: IncomingMessage, url: URL, now: Controls): Promise<void> {
    const q = url.searchParams.get('q') ?? '';
    const limit = parseLimit(url.searchParams.get('limit'));
    // The search runs when the delay is over, so a hang-up during the delay saves that work too.
    after(x, now.delay, () => finish(x, 200, { query: q, ...searchPeople(q, limit) }));
  }

  /** A page of the directory, after the search delay (a bad cursor or limit is a 400 at once). */
  async function list(x: Exchange, _req: IncomingMessage, url: URL, now: Controls): Promise<void> {
    const page = peoplePage(url.searchParams.get('cursor'), url.searchParams.get('limit'));
    after(x, now.delay, () => finish(x, 200, page));
  }

  async function report(x: Exchange, _req: IncomingMessage, url: URL, now: Controls): Promise<void> {
    const id = url.searchParams.get('id');
    if (!id) throw new HttpError(400, 'the id query parameter is required');
    after(x, now.reportDelay, () =>
      finish(x, 200, { id, generatedAt: new Date().toISOString(), rows: reportRows(id) }),
    );
  }

  async function upload(x: Exchange, req: IncomingMessage, _url: URL, now: Controls): Promise<void> {
    let received = 0;
    const whole = await consume(req, (chunk) => {
      received += chunk.length;
    });
    if (!whole) return;
    after(x, now.uploadDelay, () => finish(x, 200, { received }));
  }

  async function charge(x: Exchange, req: IncomingMessage, _url: URL, now: Controls): Promise<void> {
    const key = x.entry.idempotencyKey;
    if (key === undefined) throw new HttpError(400, 'the Idempotency-Key header is required');
    const body = await readJson(req);
    if (!body) return;
    const { amount, currency } = parseCharge(body.value);
    const existing = ledger.charge(key);
    if (existing && (existing.amount !== amount || existing.currency !== currency)) {
      throw new HttpError(422, `Idempotency-Key "${key}" was already used for a different charge`);
    }
    // The charge is made on arrival, before the delay: from here on it exists whether or not the
    // client hears back. A hang-up during the delay leaves the ambiguous outcome the demo shows, and
    // only a re-issue with the same key can learn it without charging twice.
    const made = existing ?? ledger.createCharge(key, amount, currency);
    after(x, now.chargeDelay, () =>
      finish(x, existing ? 200 : 201, { ...made, duplicate: existing !== undefined }),
    );
  }

  /**
   * A to-do endpoint: reads the JSON body of a write, then answers `change`'s result after the
   * search delay (a 404 for an unknown id). The list changes only when the answer is due, so a
   * hang-up during the delay leaves it as it was.
   */
  function todoWork(change: (body: unknown, url: URL) => unknown, status = 200): Work {
    return async (x, req, url, now) => {
      const body = req.method === 'POST' || req.method === 'PUT' ? await readJson(req) : { value: undefined };
      if (!body) return;
      after(x, now.delay, () => {
        try {
          const answer = change(body.value, url);
          if (answer === undefined) finish(x, 404, { error: 'no such to-do' });
          else finish(x, status, answer);
        } catch (error) {
          finish(x, ...errorAnswer(error));
        }
      });
    };
  }

  return {
    handle,
    async listen(port = 0, host = '127.0.0.1') {
      if (server || closing) throw new Error('the demo vendor is already listening or closed');
      // No `next`: on its own server, a path outside /api is a 404 like any unknown one.
      const s = createServer((req, res) => handle(req, res));
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, host, () => {
          s.off('error', reject);
          resolve();
        });
      });
      server = s;
      const { port: bound } = s.address() as AddressInfo;
      return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
    },
    close() {
      closing ??= (async () => {
        for (const x of open) {
          clearTimeout(x.timer);
          x.cut = true;
          x.closed = true; // before 'close' fires: a body read finishing meanwhile must not start a timer
          x.res.destroy();
        }
        for (const res of followers) res.destroy();
        const s = server;
        if (!s) return;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections(); // idle keep-alive sockets included, or close() would wait for them
        });
      })();
      return closing;
    },
    controls,
    ledger: () => ledger.snapshot(),
  };
}

/** A to-do's `title` from a JSON body; a 400 when there is none. */
function title(body: unknown): string {
  const parsed = parseTitle((body as { title?: unknown } | undefined)?.title);
  if (parsed === undefined)
    throw new HttpError(400, 'title must be a non-empty string of at most 200 characters');
  return parsed;
}

/** A to-do's id, from a JSON body's `id` or the `id` query parameter; a 400 when there is none. */
function todoId(from: unknown): number {
  const raw = from instanceof URL ? from.searchParams.get('id') : (from as { id?: unknown } | undefined)?.id;
  const id = Number(raw);
  if (!Number.isSafeInteger(id) || id < 1) throw new HttpError(400, 'id must be a positive integer');
  return id;
}

/** `limit`: an integer from 1 to 100, default 20. */
function parseLimit(raw: string | null): number {
  if (raw === null) return DEFAULT_LIMIT;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > MAX_LIMIT) {
    throw new HttpError(400, `limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  return limit;
}

/** `{ amount, currency }`: a positive integer in minor units (cents) and a three-letter ISO 4217 code. */
function parseCharge(value: unknown): { amount: number; currency: string } {
  const { amount, currency } = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  if (!Number.isSafeInteger(amount) || (amount as number) <= 0) {
    throw new HttpError(400, 'amount must be a positive integer in minor units (cents)');
  }
  if (typeof currency !== 'string' || !/^[a-z]{3}$/i.test(currency)) {
    throw new HttpError(400, 'currency must be a three-letter ISO 4217 code');
  }
  return { amount: amount as number, currency: currency.toUpperCase() };
}
