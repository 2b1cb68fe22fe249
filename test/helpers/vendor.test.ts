import { once } from 'node:events';
import { get } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { Vendor } from './vendor';
import { createVendor } from './vendor';

let vendor: Vendor;

async function start(options?: Parameters<typeof createVendor>[0]): Promise<Vendor> {
  vendor = await createVendor(options);
  return vendor;
}

afterEach(async () => {
  await vendor.close();
});

/** Reads from `reader` until `length` characters have come in (TCP may split or merge writes). */
async function readText(reader: ReadableStreamDefaultReader<Uint8Array>, length: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  while (text.length < length) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

/** Whether `promise` has settled, judged after the microtasks already queued have run. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending');
  const winner = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    Promise.resolve(pending),
  ]);
  return winner !== pending;
}

describe('vendor', () => {
  it('answers with the default JSON responder and records the request in the ledger', async () => {
    await start();
    const res = await fetch(vendor.url('/users/7?q=ada'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-trace': 'abc' },
      body: JSON.stringify({ name: 'Ada' }),
    });

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ path: '/users/7', query: { q: 'ada' } });
    const entry = await vendor.finished(1);
    expect(entry).toMatchObject({
      n: 1,
      method: 'POST',
      url: '/users/7?q=ada',
      path: '/users/7',
      body: '{"name":"Ada"}',
      answered: true,
      hungUp: false,
    });
    expect(entry.query.get('q')).toBe('ada');
    expect(entry.headers['x-trace']).toBe('abc');
    expect(entry.bytesSent).toBe(JSON.stringify({ path: '/users/7', query: { q: 'ada' } }).length);
    expect(vendor.requests()).toBe(1);
  });

  it('resolves arrival(n) on the n-th request, whether asked before or after it arrived', async () => {
    await start();
    vendor.script('hold', 'hold', 'hold');
    const third = vendor.arrival(3); // asked before any request exists

    // Each fetch starts once the previous one has arrived, so the arrival order is fixed.
    const a = fetch(vendor.url('/a'));
    await vendor.arrival(1);
    const b = fetch(vendor.url('/b'));
    await vendor.arrival(2);
    const c = fetch(vendor.url('/c'));
    expect((await third).path).toBe('/c');
    expect((await vendor.arrival(1)).path).toBe('/a'); // asked after it arrived

    expect(vendor.ledger.map((e) => [e.n, e.path])).toEqual([
      [1, '/a'],
      [2, '/b'],
      [3, '/c'],
    ]);
    expect(vendor.ledger.every((e) => !e.answered && !e.hungUp)).toBe(true);

    for (const n of [3, 1, 2]) vendor.release(n, { body: { n } });
    expect(await Promise.all([a, b, c].map(async (p) => (await p).json()))).toEqual([
      { n: 1 },
      { n: 2 },
      { n: 3 },
    ]);
  });

  it('answers a released request with the given status, headers and body', async () => {
    await start();
    vendor.script('hold');
    const pending = fetch(vendor.url('/held'));
    await vendor.arrival(1);
    vendor.release(1, {
      status: 201,
      headers: { 'x-vendor': 'yes', 'content-type': 'text/plain' },
      body: 'made',
    });

    const res = await pending;
    expect(res.status).toBe(201);
    expect(res.headers.get('x-vendor')).toBe('yes');
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(await res.text()).toBe('made');
    expect((await vendor.finished(1)).answered).toBe(true);
    expect(() => vendor.release(1)).toThrow('release(1): request #1 is not held');
    expect(() => vendor.release(9)).toThrow('release(9): no request #9 has arrived');
  });

  it('records an aborted fetch as a hang-up, never answered', async () => {
    await start();
    vendor.script('hold');
    const controller = new AbortController();
    const reason = new Error('user navigated away');
    const pending = fetch(vendor.url('/slow'), { signal: controller.signal });
    await vendor.arrival(1);

    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    const entry = await vendor.hangUp(1);
    expect(entry).toMatchObject({ hungUp: true, answered: false, bytesSent: 0 });
    expect(() => vendor.release(1)).not.toThrow(); // too late: nobody left to answer
    expect((await vendor.finished(1)).answered).toBe(false);
  });

  it('plays a scripted status sequence, Retry-After included, then falls back to the default responder', async () => {
    await start();
    const busy = { status: 503, headers: { 'retry-after': '2' }, body: { error: 'busy' } };
    vendor.script(busy, busy, { status: 200, body: { ok: true } });

    const seen = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(vendor.url(`/try/${i}`));
      seen.push([res.status, res.headers.get('retry-after'), await res.json()]);
    }
    expect(seen).toEqual([
      [503, '2', { error: 'busy' }],
      [503, '2', { error: 'busy' }],
      [200, null, { ok: true }],
      [200, null, { path: '/try/3', query: {} }],
    ]);
  });

  it('asks the respond option for unscripted requests, and answers 500 if it throws', async () => {
    await start({
      respond: async (entry) => {
        if (entry.path === '/boom') throw new Error('no such user');
        return { status: 404, body: `missing ${entry.path}` };
      },
    });
    vendor.script({ body: 'scripted' });

    expect(await (await fetch(vendor.url('/first'))).text()).toBe('scripted');
    const missing = await fetch(vendor.url('/users/7'));
    expect([missing.status, await missing.text()]).toEqual([404, 'missing /users/7']);
    const boom = await fetch(vendor.url('/boom'));
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ vendorError: 'Error: no such user' });
  });

  it('closes with a held request still open', async () => {
    await start();
    vendor.script('hold');
    const pending = fetch(vendor.url('/held'));
    await vendor.arrival(1);

    await vendor.close();
    await expect(pending).rejects.toThrow('fetch failed');
    // The vendor cut it, not the client: no hang-up, no answer.
    expect(await vendor.finished(1)).toMatchObject({ hungUp: false, answered: false });
    expect(vendor.openSockets()).toBe(0);
  });

  it('has no open socket once a client hangs up, nor once it is closed', async () => {
    await start();
    vendor.script('hold');
    // A bare node:http client, not fetch: Node 20's undici answers an abort by opening a fresh, unused
    // connection (nodejs/undici#5845), which would make the count depend on the client, not the vendor.
    const controller = new AbortController();
    const request = get(vendor.url('/held'), { agent: false, signal: controller.signal });
    const failed = once(request, 'error');
    await vendor.arrival(1);
    expect(vendor.openSockets()).toBe(1);
    controller.abort();
    expect((await failed)[0]).toMatchObject({ name: 'AbortError' });
    await vendor.hangUp(1);
    expect(vendor.openSockets()).toBe(0);

    // Answered requests leave keep-alive connections behind; close() takes them down.
    await (await fetch(vendor.url('/a'))).text();
    expect(vendor.openSockets()).toBe(1);
    await vendor.close();
    expect(vendor.openSockets()).toBe(0);
  });
});

describe('vendor faults', () => {
  it('reset: destroys the socket without a response', async () => {
    await start();
    vendor.script({ fault: 'reset' });
    const error = await fetch(vendor.url('/reset')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe('fetch failed');
    expect(await vendor.finished(1)).toMatchObject({ answered: false, hungUp: false });
    expect(vendor.requests()).toBe(1);
  });

  it('reset-mid-body: sends the head and part of the body, then destroys the socket', async () => {
    await start();
    vendor.script({ fault: 'reset-mid-body', status: 200, partial: '{"items": [1, 2' });
    const res = await fetch(vendor.url('/items'));
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow(TypeError);
    expect(await vendor.finished(1)).toMatchObject({ answered: false, hungUp: false, bytesSent: 15 });
  });

  it('malformed-json: a complete response whose JSON does not parse', async () => {
    await start();
    vendor.script({ fault: 'malformed-json' });
    const res = await fetch(vendor.url('/broken'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    await expect(res.json()).rejects.toThrow(SyntaxError);
  });

  it('hang: never answers, and sees the client hang up', async () => {
    await start();
    vendor.script({ fault: 'hang' });
    const controller = new AbortController();
    const pending = fetch(vendor.url('/hang'), { signal: controller.signal });
    await vendor.arrival(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });
  });

  it('slow-body: sends one chunk per drip, and ends after the last', async () => {
    await start();
    vendor.script({
      fault: 'slow-body',
      headers: { 'content-type': 'text/plain' },
      chunks: ['one,', 'two,', 'three'],
    });
    const res = await fetch(vendor.url('/stream')); // resolves on the head alone
    expect(res.headers.get('content-type')).toBe('text/plain');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();

    vendor.drip(1);
    expect(await readText(reader, 4)).toBe('one,');

    // Chunk 2 has not been written, so this read cannot settle. The round trip on another request
    // gives a wrongly eager vendor the I/O turns to deliver it anyway, and this check to catch it.
    const second = readText(reader, 4);
    await (await fetch(vendor.url('/ping'))).text();
    expect(await isSettled(second)).toBe(false);
    expect(vendor.ledger[0]?.bytesSent).toBe(4);

    vendor.drip(1);
    expect(await second).toBe('two,');
    vendor.drip(1);
    expect(await readText(reader, 5)).toBe('three');
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(await vendor.finished(1)).toMatchObject({ answered: true, bytesSent: 13 });
    expect(() => vendor.drip(1)).toThrow('drip(1): request #1 has no chunks left');
  });
});

it('hangUp(n) rejects when request n is answered instead, so a missed cancel fails fast', async () => {
  await start();
  const response = await fetch(vendor.url('/answered'));
  await response.text();
  await expect(vendor.hangUp(1)).rejects.toThrow('was answered, not hung up');
});
