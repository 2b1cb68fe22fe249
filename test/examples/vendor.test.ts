/**
 * The demo vendor (examples/vendor) over real sockets. Latency is either 0 (with Node's fetch) or
 * driven by vitest's fake `setTimeout` (with `send`, see client.ts); a hang-up is observed by turning
 * the event loop until the ledger shows it, never by sleeping.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { followLedger } from '../../examples/app/ledgerStream';
import {
  type Controls,
  createDemoVendor,
  DEFAULT_CONTROLS,
  type DemoVendor,
  type LedgerSnapshot,
  reportRows,
  searchPeople,
} from '../../examples/vendor';
import { createLedger, RECENT } from '../../examples/vendor/ledger';
import { fakeDelays, getJson, send, until } from './client';

const NO_DELAY: Partial<Controls> = { delay: 0, reportDelay: 0, uploadDelay: 0, chargeDelay: 0 };

let vendor: DemoVendor | undefined;

async function start(options: Partial<Controls> = NO_DELAY): Promise<{ vendor: DemoVendor; origin: string }> {
  vendor = createDemoVendor(options);
  return { vendor, origin: await vendor.listen() };
}

afterEach(async () => {
  await vendor?.close();
  vendor = undefined;
  vi.useRealTimers();
});

const chargeInit = (key?: string, body: unknown = { amount: 1999, currency: 'eur' }) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
  body: JSON.stringify(body),
});

const charge = (origin: string, key?: string, body?: unknown) =>
  fetch(`${origin}/api/charges`, chargeInit(key, body));

describe('GET /api/search', () => {
  it('answers { query, total, items } in searchPeople order, 20 by default, `limit` when given', async () => {
    const { origin } = await start();
    const { status, body } = await getJson(`${origin}/api/search?q=ada`);
    expect(status).toBe(200);
    expect(body).toEqual({ query: 'ada', ...searchPeople('ada', 20) });
    expect(body.items).toHaveLength(20);
    expect(body.total).toBeGreaterThan(20);
    expect((await getJson(`${origin}/api/search?q=ada&limit=3`)).body.items).toHaveLength(3);
    expect((await getJson(`${origin}/api/search?q=ada&limit=0`)).status).toBe(400);
    expect((await getJson(`${origin}/api/search?q=ada&limit=2.5`)).status).toBe(400);
  });

  it('answers after `delay`, on one timer', async () => {
    fakeDelays();
    const { vendor, origin } = await start({ delay: 300 });
    const answer = send(`${origin}/api/search?q=ada`);
    await until(() => vendor.ledger().endpoints.search.requests === 1, 'the request arrives');
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(299);
    expect(vendor.ledger().recent[0]?.outcome).toBe('pending');
    vi.advanceTimersByTime(1);
    expect(await answer).toMatchObject({ status: 200, body: { query: 'ada' } });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('records an aborted search as hungUp and clears its timer', async () => {
    fakeDelays();
    const { vendor, origin } = await start({ delay: 300 });
    const controller = new AbortController();
    const reason = new Error('superseded');
    const answer = send(`${origin}/api/search?q=ad`, { signal: controller.signal });
    await until(() => vendor.ledger().endpoints.search.requests === 1, 'the request arrives');
    expect(vi.getTimerCount()).toBe(1);

    controller.abort(reason);
    await expect(answer).rejects.toMatchObject({ name: 'AbortError', cause: reason });
    await until(() => vendor.ledger().endpoints.search.hungUp === 1, 'the hang-up is recorded');
    expect(vi.getTimerCount()).toBe(0);
    const ledger = vendor.ledger();
    expect(ledger.endpoints.search).toEqual({ requests: 1, completed: 0, hungUp: 1, failed: 0 });
    expect(ledger.recent).toEqual([
      expect.objectContaining({ n: 1, method: 'GET', path: '/api/search', query: { q: 'ad' }, hungUp: true }),
    ]);
    expect(ledger.recent[0]).not.toHaveProperty('status');
  });
});

describe('GET /api/report and POST /api/upload', () => {
  it('reports { id, generatedAt, rows } after `reportDelay`; 400 without an id', async () => {
    fakeDelays();
    const { vendor, origin } = await start({ reportDelay: 4_000 });
    const answer = send(`${origin}/api/report?id=q3`);
    await until(() => vendor.ledger().endpoints.report.requests === 1, 'the request arrives');
    vi.advanceTimersByTime(4_000);
    const { status, body } = await answer;
    expect(status).toBe(200);
    expect(body).toEqual({ id: 'q3', generatedAt: expect.any(String), rows: reportRows('q3') });
    expect((await send(`${origin}/api/report`)).status).toBe(400);
  });

  it('reads the whole upload and answers the byte count', async () => {
    const { vendor, origin } = await start();
    const res = await fetch(`${origin}/api/upload`, { method: 'POST', body: new Uint8Array(100_000) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: 100_000 });
    expect(vendor.ledger().endpoints.upload).toEqual({ requests: 1, completed: 1, hungUp: 0, failed: 0 });
  });
});

describe('POST /api/charges', () => {
  it('charges once per Idempotency-Key: 201, then 200 with the same charge and duplicate: true', async () => {
    const { vendor, origin } = await start();
    const first = await charge(origin, 'order-1');
    expect(first.status).toBe(201);
    const made = await first.json();
    expect(made).toEqual({
      id: expect.stringMatching(/^ch_\d+$/),
      key: 'order-1',
      amount: 1999,
      currency: 'EUR',
      createdAt: expect.any(String),
      duplicate: false,
    });
    const again = await charge(origin, 'order-1');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ ...made, duplicate: true });
    const { duplicate: _, ...only } = made;
    expect(vendor.ledger().charges).toEqual([only]);
    expect((await charge(origin, 'order-2')).status).toBe(201);
    expect(vendor.ledger().charges).toHaveLength(2);
  });

  it('refuses a missing key (400), a bad body (400) and a key reused for another charge (422)', async () => {
    const { vendor, origin } = await start();
    const missing = await charge(origin);
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toMatch(/Idempotency-Key/);
    expect((await charge(origin, 'k', { amount: -5, currency: 'EUR' })).status).toBe(400);
    expect((await charge(origin, 'k', { amount: 5, currency: 'euro' })).status).toBe(400);
    expect((await charge(origin, 'k', 'not an object')).status).toBe(400);
    expect(vendor.ledger().charges).toEqual([]);
    expect((await charge(origin, 'k', { amount: 5, currency: 'EUR' })).status).toBe(201);
    expect((await charge(origin, 'k', { amount: 6, currency: 'EUR' })).status).toBe(422);
    expect(vendor.ledger().charges).toHaveLength(1);
  });

  it('keeps the charge of a client that hung up after arrival (ambiguous), so a re-issue is a duplicate', async () => {
    fakeDelays();
    const { vendor, origin } = await start({ chargeDelay: 1_500 });
    const controller = new AbortController();
    const answer = send(`${origin}/api/charges`, { ...chargeInit('checkout-7'), signal: controller.signal });
    await until(() => vendor.ledger().charges.length === 1, 'the charge is made on arrival');
    expect(vi.getTimerCount()).toBe(1);

    controller.abort(new Error('user cancelled'));
    await expect(answer).rejects.toMatchObject({ name: 'AbortError' });
    await until(() => vendor.ledger().endpoints.charges.hungUp === 1, 'the hang-up is recorded');
    expect(vi.getTimerCount()).toBe(0);
    const [made] = vendor.ledger().charges;
    expect(vendor.ledger().recent[0]).toMatchObject({ idempotencyKey: 'checkout-7', hungUp: true });

    vendor.controls.chargeDelay = 0;
    const again = await send(`${origin}/api/charges`, chargeInit('checkout-7'));
    expect(again).toMatchObject({ status: 200, body: { ...made, duplicate: true } });
    expect(vendor.ledger().charges).toEqual([made]);
  });
});

describe('controls and faults', () => {
  it('reads and updates the controls; refuses invalid ones', async () => {
    const { vendor, origin } = await start({ delay: 0 });
    expect((await getJson(`${origin}/api/controls`)).body).toEqual({ ...DEFAULT_CONTROLS, delay: 0 });
    const post = (body: unknown) =>
      fetch(`${origin}/api/controls`, { method: 'POST', body: JSON.stringify(body) });
    const res = await post({ failRate: 0.25, reportDelay: 10 });
    expect(await res.json()).toEqual({ ...DEFAULT_CONTROLS, delay: 0, failRate: 0.25, reportDelay: 10 });
    expect(vendor.controls.failRate).toBe(0.25);
    for (const bad of [{ failRate: 2 }, { delay: -1 }, { hang: 'yes' }, { speed: 1 }, [1]]) {
      expect((await post(bad)).status).toBe(400);
    }
    expect(vendor.controls).toEqual({ ...DEFAULT_CONTROLS, delay: 0, failRate: 0.25, reportDelay: 10 });
    expect(() => createDemoVendor({ failRate: -1 })).toThrow(TypeError);
  });

  it('failRate 1 answers 503 with Retry-After: 1, counted as failed; controls and ledger still answer', async () => {
    const { vendor, origin } = await start({ ...NO_DELAY, failRate: 1 });
    const res = await fetch(`${origin}/api/search?q=ada`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await charge(origin, 'k')).status).toBe(503);
    expect(vendor.ledger().charges).toEqual([]);
    expect((await getJson(`${origin}/api/controls`)).status).toBe(200);
    const { body } = await getJson(`${origin}/api/ledger`);
    expect(body.endpoints.search).toEqual({ requests: 1, completed: 0, hungUp: 0, failed: 1 });
    expect(body.recent[0]).toMatchObject({ status: 503, hungUp: false });
  });

  it('reset destroys the socket: the fetch rejects and the ledger says failed, not hung up', async () => {
    const { vendor, origin } = await start({ ...NO_DELAY, reset: true });
    await expect(fetch(`${origin}/api/report?id=1`)).rejects.toThrow(TypeError);
    await until(() => vendor.ledger().endpoints.report.failed === 1, 'the reset is recorded');
    expect(vendor.ledger().endpoints.report).toEqual({ requests: 1, completed: 0, hungUp: 0, failed: 1 });
  });

  it('hang never answers, holds no timer, and is hungUp once the client aborts', async () => {
    fakeDelays();
    const { vendor, origin } = await start({ ...NO_DELAY, hang: true });
    const controller = new AbortController();
    let settled = false;
    const answer = send(`${origin}/api/search?q=ada`, { signal: controller.signal }).finally(() => {
      settled = true;
    });
    await until(() => vendor.ledger().endpoints.search.requests === 1, 'the request arrives');
    vi.advanceTimersByTime(3_600_000);
    for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect(vi.getTimerCount()).toBe(0);

    controller.abort(new Error('gave up'));
    await expect(answer).rejects.toMatchObject({ name: 'AbortError' });
    await until(() => vendor.ledger().endpoints.search.hungUp === 1, 'the hang-up is recorded');
  });
});

describe('ledger', () => {
  it('counts per endpoint, lists recent requests, and resets ledger and charges', async () => {
    const { vendor, origin } = await start();
    await fetch(`${origin}/api/search?q=a`);
    await fetch(`${origin}/api/search?q=b&limit=200`); // 400 is still an answer: completed
    await fetch(`${origin}/api/upload`, { method: 'POST', body: 'abc' });
    await charge(origin, 'k1');
    const { body } = await getJson(`${origin}/api/ledger`);
    expect(body.endpoints).toEqual({
      search: { requests: 2, completed: 2, hungUp: 0, failed: 0 },
      'flaky-search': { requests: 0, completed: 0, hungUp: 0, failed: 0 },
      report: { requests: 0, completed: 0, hungUp: 0, failed: 0 },
      upload: { requests: 1, completed: 1, hungUp: 0, failed: 0 },
      charges: { requests: 1, completed: 1, hungUp: 0, failed: 0 },
      people: { requests: 0, completed: 0, hungUp: 0, failed: 0 },
      todos: { requests: 0, completed: 0, hungUp: 0, failed: 0 },
    });
    expect(body.recent.map((e: { n: number; status: number }) => [e.n, e.status])).toEqual([
      [1, 200],
      [2, 400],
      [3, 200],
      [4, 201],
    ]);
    expect(body.recent[3]).toEqual({
      n: 4,
      at: expect.any(Number),
      method: 'POST',
      path: '/api/charges',
      query: {},
      status: 201,
      outcome: 'completed',
      hungUp: false,
      idempotencyKey: 'k1',
    });
    expect(body.charges).toHaveLength(1);

    const reset = await fetch(`${origin}/api/ledger/reset`, { method: 'POST' });
    expect(await reset.json()).toEqual({
      ...body,
      charges: [],
      recent: [],
      endpoints: createLedger().snapshot().endpoints,
    });
    expect(vendor.ledger().charges).toEqual([]);
  });

  it('GET /api/ledger/stream pushes the ledger as it stands, then after each change', async () => {
    const { origin } = await start();
    const leave = new AbortController();
    const seen: LedgerSnapshot[] = [];
    let heard = () => {};
    const following = followLedger(`${origin}/api/ledger/stream`, leave.signal, (ledger) => {
      seen.push(ledger);
      heard();
    });
    /** Resolves once the last ledger pushed satisfies `ok`. */
    const pushed = (ok: (ledger: LedgerSnapshot) => boolean) =>
      new Promise<void>((resolve) => {
        heard = () => {
          const last = seen.at(-1);
          if (last && ok(last)) resolve();
        };
        heard();
      });
    await pushed(() => true);
    expect(seen[0]?.endpoints.search.requests).toBe(0);
    await fetch(`${origin}/api/search?q=a`);
    await pushed((ledger) => ledger.endpoints.search.completed === 1);
    expect(seen.at(-1)?.endpoints.search).toEqual({ requests: 1, completed: 1, hungUp: 0, failed: 0 });
    leave.abort();
    await following; // resolves on the abort: the client let go
  });

  it(`keeps the last ${RECENT} entries`, () => {
    const ledger = createLedger();
    for (let i = 0; i < RECENT + 5; i++)
      ledger.open('search', { method: 'GET', path: '/api/search', query: {} });
    const { recent, endpoints } = ledger.snapshot();
    expect(recent).toHaveLength(RECENT);
    expect(recent[0]?.n).toBe(6);
    expect(endpoints.search.requests).toBe(RECENT + 5);
  });
});

describe('HTTP surface', () => {
  it('answers CORS preflights and allows any origin', async () => {
    const { origin } = await start();
    const preflight = await fetch(`${origin}/api/charges`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6006', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type, idempotency-key');
    const res = await fetch(`${origin}/api/search?q=a`);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toBe('Retry-After');
  });

  it('answers 404 JSON for an unknown path or method', async () => {
    const { vendor, origin } = await start();
    expect(await getJson(`${origin}/api/nope`)).toEqual({
      status: 404,
      body: { error: 'no route GET /api/nope' },
    });
    expect((await getJson(`${origin}/`)).status).toBe(404);
    expect((await fetch(`${origin}/api/search`, { method: 'POST' })).status).toBe(404);
    expect(vendor.ledger().recent).toEqual([]);
  });

  it('works as Connect middleware: passes non-/api paths on, and reads originalUrl under a mount', async () => {
    const demo = createDemoVendor(NO_DELAY);
    vendor = demo;
    // What Connect does for `use('/api', handle)`: strip the mount from req.url, keep originalUrl.
    const app = createServer((req: IncomingMessage & { originalUrl?: string }, res) => {
      if (req.url?.startsWith('/api/')) {
        req.originalUrl = req.url;
        req.url = req.url.slice('/api'.length);
      }
      demo.handle(req, res, () => res.end('the app'));
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    try {
      expect(await (await fetch(`${origin}/index.html`)).text()).toBe('the app');
      expect((await getJson(`${origin}/api/search?q=ada&limit=1`)).body.items).toHaveLength(1);
    } finally {
      app.closeAllConnections();
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it('close() clears every pending timer and ends open requests', async () => {
    fakeDelays();
    const { vendor, origin } = await start({ ...DEFAULT_CONTROLS });
    const answers = Promise.allSettled([send(`${origin}/api/search?q=a`), send(`${origin}/api/report?id=1`)]);
    await until(() => vi.getTimerCount() === 2, 'both requests wait on their delay');
    await vendor.close();
    expect(vi.getTimerCount()).toBe(0);
    expect((await answers).map((answer) => answer.status)).toEqual(['rejected', 'rejected']);
    expect(vendor.ledger().endpoints.search.hungUp).toBe(0);
  });
});
