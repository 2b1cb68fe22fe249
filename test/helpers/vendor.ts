/**
 * A real `node:http` server on 127.0.0.1 that plays the remote API in end-to-end tests. It records
 * every request in a ledger and can answer, hold, stall or break each one, so tests can prove that
 * an abort in Stitch really closes the socket. Everything is sequenced on promises (a request's
 * arrival, its hang-up, an explicit release or drip), never on timers.
 */
import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How the vendor answers one request. */
export type Reply =
  /** A normal response. A string body is sent as-is; anything else is sent as JSON. Defaults: 200, `{}`. */
  | { status?: number; statusText?: string; headers?: Record<string, string>; body?: unknown }
  /** Destroys the socket without sending anything. */
  | { fault: 'reset' }
  /** Sends the head and `partial`, then destroys the socket. */
  | { fault: 'reset-mid-body'; status?: number; partial?: string }
  /** Never answers; the request stays open until the client hangs up or the vendor closes. */
  | { fault: 'hang' }
  /** A complete response whose JSON body is cut short. */
  | { fault: 'malformed-json'; status?: number }
  /** Sends the head only; each `drip(n)` writes the next chunk, and the last one ends the response. */
  | { fault: 'slow-body'; status?: number; headers?: Record<string, string>; chunks: string[] }
  /** Waits for `release(n, reply)`. */
  | 'hold';

/** What the vendor saw of one request, and what became of it. Updated in place as the exchange goes on. */
export interface LedgerEntry {
  /** 1-based arrival order. */
  n: number;
  method: string;
  /** Path and query as received, e.g. `/users/7?q=ada`. */
  url: string;
  /** Pathname only. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The full request body (empty until `arrival(n)` resolves). */
  body: string;
  /** The response was fully written. */
  answered: boolean;
  /** The client closed the connection before the response was fully written. */
  hungUp: boolean;
  /** Response body bytes written so far. */
  bytesSent: number;
}

/** A running vendor. See {@link createVendor}. */
export interface Vendor {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** `origin + path`. */
  url(path: string): string;
  readonly ledger: readonly LedgerEntry[];
  /** How many requests have arrived. */
  requests(): number;
  /** Resolves once request `n` has arrived, its body is read and its reply is chosen (so a held one can be released). */
  arrival(n: number): Promise<LedgerEntry>;
  /** Answers held request `n` (default: 200 `{}`). Does nothing if its client already hung up; throws if it is not held. */
  release(n: number, reply?: Exclude<Reply, 'hold'>): void;
  /** Resolves once the client of request `n` has hung up and its connection is closed; rejects if it is answered instead. */
  hangUp(n: number): Promise<LedgerEntry>;
  /** Resolves once request `n` is over: answered, hung up, or cut by a fault or by `close()`. */
  finished(n: number): Promise<LedgerEntry>;
  /** Writes the next chunk of slow-body request `n`, ending the response after the last. Throws if it has none left. */
  drip(n: number): void;
  /** Queues replies for the next requests, in arrival order; once the queue is empty, the default responder answers. */
  script(...replies: Reply[]): void;
  /** Currently open TCP connections. */
  openSockets(): number;
  /** Destroys every connection (held requests included) and stops listening. Idempotent. */
  close(): Promise<void>;
}

/** Server-side state of one request. */
interface Exchange {
  entry: LedgerEntry;
  res: ServerResponse;
  held: boolean;
  /** Chunks a slow-body reply has yet to send; `null` for any other reply. */
  drips: string[] | null;
  /** The vendor destroyed the socket on purpose, so the close is not the client's hang-up. */
  cut: boolean;
}

/** One promise per request number, which may be asked for before or after its event happens. */
function signals() {
  type Signal = {
    promise: Promise<LedgerEntry>;
    resolve: (e: LedgerEntry) => void;
    reject: (e: Error) => void;
  };
  const pending = new Map<number, Signal>();
  const get = (n: number) => {
    let signal = pending.get(n);
    if (!signal) {
      let resolve!: Signal['resolve'];
      let reject!: Signal['reject'];
      const promise = new Promise<LedgerEntry>((yes, no) => {
        resolve = yes;
        reject = no;
      });
      // Nobody may be waiting for this one; a rejection must not surface as unhandled.
      promise.catch(() => {});
      signal = { promise, resolve, reject };
      pending.set(n, signal);
    }
    return signal;
  };
  return {
    wait: (n: number) => get(n).promise,
    fire: (entry: LedgerEntry) => get(entry.n).resolve(entry),
    fail: (n: number, error: Error) => get(n).reject(error),
  };
}

const JSON_TYPE = { 'content-type': 'application/json' };

const echo = (entry: LedgerEntry): Reply => ({
  status: 200,
  body: { path: entry.path, query: Object.fromEntries(entry.query) },
});

/**
 * Starts a vendor on a random port of 127.0.0.1. `respond` answers every request the script does not
 * (default: 200 with `{ path, query }`); if it throws, the request gets a 500 `{ vendorError }`.
 */
export async function createVendor(
  options: { respond?: (entry: LedgerEntry) => Reply | Promise<Reply> } = {},
): Promise<Vendor> {
  const respond = options.respond ?? echo;
  const ledger: LedgerEntry[] = [];
  const exchanges = new Map<number, Exchange>();
  const queue: Reply[] = [];
  const sockets = new Set<Socket>();
  const arrivals = signals();
  const hangUps = signals();
  const endings = signals();
  let closing = false;
  let closed: Promise<void> | undefined;

  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const parsed = new URL(url, 'http://vendor');
    const entry: LedgerEntry = {
      n: ledger.length + 1,
      method: req.method ?? 'GET',
      url,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: req.headers,
      body: '',
      answered: false,
      hungUp: false,
      bytesSent: 0,
    };
    const x: Exchange = { entry, res, held: false, drips: null, cut: false };
    ledger.push(entry);
    exchanges.set(entry.n, x);
    // Taken now, in arrival order, so that concurrent bodies finishing out of order cannot swap replies.
    const scripted = queue.shift();

    res.on('finish', () => {
      entry.answered = true;
      // A test waiting for a hang-up that will never come fails now, not on vitest's timeout.
      hangUps.fail(
        entry.n,
        new Error(`request ${entry.n} (${entry.method} ${entry.url}) was answered, not hung up`),
      );
    });
    // 'close' fires once the exchange is over, whoever ended it; only the client's doing is a hang-up.
    const socket = req.socket;
    res.on('close', () => {
      if (res.writableFinished || x.cut || closing) return endings.fire(entry);
      entry.hungUp = true;
      const settle = () => {
        hangUps.fire(entry);
        endings.fire(entry);
      };
      // The response closes a tick before its socket does; waiting for the socket makes a resolved
      // hangUp(n) mean the connection is really gone, as openSockets() then shows.
      if (sockets.has(socket)) socket.once('close', settle);
      else settle();
    });

    entry.body = await readBody(req);
    let reply: Reply;
    try {
      reply = scripted ?? (await respond(entry));
    } catch (error) {
      reply = { status: 500, body: { vendorError: String(error) } };
    }
    x.held = reply === 'hold';
    arrivals.fire(entry);
    if (reply !== 'hold') answer(x, reply);
  }

  function answer(x: Exchange, reply: Exclude<Reply, 'hold'>): void {
    const { res } = x;
    if (res.destroyed) return; // the client hung up first: there is nobody left to answer
    if (!('fault' in reply)) {
      const raw = reply.body ?? {};
      const text = typeof raw === 'string';
      const head = { ...(text ? {} : JSON_TYPE), ...reply.headers };
      if (reply.statusText === undefined) res.writeHead(reply.status ?? 200, head);
      else res.writeHead(reply.status ?? 200, reply.statusText, head);
      send(x, text ? raw : JSON.stringify(raw), true);
      return;
    }
    switch (reply.fault) {
      case 'reset':
        cut(x);
        return;
      case 'reset-mid-body':
        // No content-length, so the body is chunked and the client cannot tell it is short until the socket dies.
        res.writeHead(reply.status ?? 200, JSON_TYPE);
        send(x, reply.partial ?? '{"partial": ', false, () => cut(x));
        return;
      case 'hang':
        return;
      case 'malformed-json':
        res.writeHead(reply.status ?? 200, JSON_TYPE);
        send(x, '{"broken": ', true);
        return;
      case 'slow-body':
        res.writeHead(reply.status ?? 200, reply.headers);
        x.drips = [...reply.chunks];
        if (x.drips.length === 0) res.end();
        else res.flushHeaders(); // let the client's fetch resolve on the head alone
        return;
    }
  }

  function send(x: Exchange, chunk: string, last: boolean, flushed?: () => void): void {
    x.entry.bytesSent += Buffer.byteLength(chunk);
    if (last) x.res.end(chunk, flushed);
    else x.res.write(chunk, flushed);
  }

  function cut(x: Exchange): void {
    x.cut = true;
    x.res.socket?.destroy();
  }

  function exchange(n: number, action: string): Exchange {
    const x = exchanges.get(n);
    if (!x) throw new Error(`${action}(${n}): no request #${n} has arrived (${ledger.length} so far)`);
    return x;
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => origin + path,
    ledger,
    requests: () => ledger.length,
    arrival: (n) => arrivals.wait(n),
    hangUp: (n) => hangUps.wait(n),
    finished: (n) => endings.wait(n),
    release(n, reply = { status: 200, body: {} }) {
      const x = exchange(n, 'release');
      if (!x.held)
        throw new Error(`release(${n}): request #${n} is not held (never was, or already released)`);
      x.held = false;
      answer(x, reply);
    },
    drip(n) {
      const x = exchange(n, 'drip');
      if (!x.drips) throw new Error(`drip(${n}): request #${n} was not given a slow-body reply`);
      const chunk = x.drips.shift();
      if (chunk === undefined) throw new Error(`drip(${n}): request #${n} has no chunks left`);
      if (!x.res.destroyed) send(x, chunk, x.drips.length === 0); // else the client hung up: drop it
    },
    script: (...replies) => void queue.push(...replies),
    openSockets: () => sockets.size,
    close() {
      closed ??= (async () => {
        closing = true;
        // The server's 'close' can precede its sockets' own 'close' events; wait for both so openSockets() is 0 after.
        const gone = [...sockets].map((socket) => once(socket, 'close'));
        const stopped = new Promise<void>((resolve, reject) =>
          server.close((error) => (error ? reject(error) : resolve())),
        );
        server.closeAllConnections();
        await Promise.all([stopped, ...gone]);
      })();
      return closed;
    },
  };
}

/** Reads a request body to the end; if the client hangs up mid-upload, keeps what arrived ('close' records the hang-up). */
async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {}
  return Buffer.concat(chunks).toString('utf8');
}
