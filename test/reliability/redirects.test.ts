/**
 * Issue 12, item 1: secrets never follow a redirect to another origin. Two real vendors on
 * 127.0.0.1 (two ports: two origins); the first answers 30x to the second, and each ledger shows
 * which headers arrived where. fetch itself would drop only Authorization, Cookie and
 * Proxy-Authorization: the engine follows redirects itself and drops every header it counts as a
 * secret, traces each hop (redacted), and offers `redirect: 'error' | 'manual'`.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { createEngine, type StitchEvent, stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { collect, rejection, startScenario } from '../helpers/runs';
import { createVendor, type Vendor } from '../helpers/vendor';

const SECRET_HEADERS = {
  authorization: 'Bearer sk-auth-0x01',
  'x-api-key': 'sk-x-api-key-0x02',
  'api-key': 'sk-api-key-0x03',
  'x-auth-token': 'sk-auth-token-0x04',
  'x-tenant-secret': 'sk-configured-0x05',
};

/** A second origin (another port) for a redirect to land on, closed when the test finishes. */
async function otherOrigin(): Promise<Vendor> {
  const vendor = await createVendor();
  onTestFinished(() => vendor.close());
  return vendor;
}

const ofType = <TType extends StitchEvent['type']>(events: readonly StitchEvent[], type: TType) =>
  events.filter((event): event is Extract<StitchEvent, { type: TType }> => event.type === type);

describe("redirect: 'follow' (the default)", () => {
  it.each([301, 302, 303, 307, 308])(
    'a %s to another origin arrives there without any secret header; the hop is traced, redacted',
    async (status) => {
      const target = await otherOrigin();
      const { vendor, engine } = await startScenario({
        engine: { redact: ['x-tenant-secret'] },
      });
      vendor.script({ status, headers: { location: target.url('/landed?token=sk-query-0x06') }, body: '' });
      const read = stitch({ name: uniqueKey('read'), url: vendor.url('/start'), headers: SECRET_HEADERS });
      const run = read({}, { engine });
      const events = collect(run);
      expect(await run).toEqual({ path: '/landed', query: { token: 'sk-query-0x06' } });

      // The first origin got every header; the second none of the secrets, but the rest.
      expect(vendor.ledger[0]?.headers).toMatchObject(SECRET_HEADERS);
      const landed = target.ledger[0]?.headers ?? {};
      for (const name of Object.keys(SECRET_HEADERS)) expect(landed[name], name).toBeUndefined();
      expect(landed['user-agent']).toBeDefined();

      const hops = ofType(await events, 'redirect');
      expect(hops).toHaveLength(1);
      expect(hops[0]).toMatchObject({
        attempt: 1,
        status,
        from: vendor.url('/start'),
        to: target.url('/landed?token=%5Bredacted%5D'),
        crossOrigin: true,
      });
      expect(hops[0]?.dropped.sort()).toEqual(Object.keys(SECRET_HEADERS).sort());
      expect(JSON.stringify(await run.report())).not.toContain('sk-');
      // Both hops left the process.
      expect((await run.report()).requests).toBe(2);
    },
  );

  it("drops the secrets for that hop only: the stitch's next call sends its headers again", async () => {
    const target = await otherOrigin();
    const { vendor, engine } = await startScenario();
    vendor.script({ status: 302, headers: { location: target.url('/landed') }, body: '' }, { body: {} });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/start'), headers: SECRET_HEADERS });
    await read({}, { engine });
    await read({ query: { again: 1 } }, { engine });
    expect(target.ledger[0]?.headers.authorization).toBeUndefined();
    expect(vendor.ledger[1]?.headers).toMatchObject(SECRET_HEADERS);
  });

  it('a redirect within the origin keeps the headers', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script({ status: 302, headers: { location: '/moved' }, body: '' });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/start'), headers: SECRET_HEADERS });
    const run = read({}, { engine });
    const events = collect(run);
    await run;
    expect(vendor.ledger[1]).toMatchObject({ path: '/moved', headers: { 'x-api-key': 'sk-x-api-key-0x02' } });
    expect(ofType(await events, 'redirect')[0]).toMatchObject({ crossOrigin: false, dropped: [] });
  });

  it('a Location of raw UTF-8 bytes is read as UTF-8, as fetch reads it', async () => {
    // Node writes each character of a header as one byte: these are the bytes of '/café?q=ñ'.
    const location = Buffer.from('/café?q=ñ').toString('latin1');
    const { vendor, engine } = await startScenario({
      respond: (entry) =>
        entry.path === '/old'
          ? { status: 301, headers: { location }, body: '' }
          : { body: { path: entry.path } },
    });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/old') });
    const native = await fetch(vendor.url('/old'));
    expect(await read({}, { engine })).toEqual(await native.json());
    expect(vendor.ledger.map((entry) => entry.path)).toEqual(['/old', '/caf%C3%A9', '/old', '/caf%C3%A9']);
    expect(vendor.ledger[3]?.query.get('q')).toBe('ñ');
  });

  it('a 303 turns a POST into a bodiless GET; a 307 re-sends the method and body', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script(
      { status: 303, headers: { location: '/see-other' }, body: '' },
      { status: 200, body: {} },
      { status: 307, headers: { location: '/temporary' }, body: '' },
    );
    const create = stitch({ name: uniqueKey('create'), method: 'POST', url: vendor.url('/orders') });
    await create({ body: { item: 1 } }, { engine });
    await create({ body: { item: 2 } }, { engine });
    expect(vendor.ledger.map((e) => [e.method, e.path, e.body])).toEqual([
      ['POST', '/orders', '{"item":1}'],
      ['GET', '/see-other', ''],
      ['POST', '/orders', '{"item":2}'],
      ['POST', '/temporary', '{"item":2}'],
    ]);
    expect(vendor.ledger[1]?.headers['content-type']).toBeUndefined();
  });

  it('a redirect loop ends after 20 hops as kind http, not retried', async () => {
    const { vendor, engine } = await startScenario({
      respond: () => ({ status: 302, headers: { location: '/again' }, body: '' }),
    });
    const read = stitch({ name: uniqueKey('loop'), url: vendor.url('/again') });
    const error = await rejection(read({}, { engine }));
    expect(error).toMatchObject({ kind: 'http', status: 302, attempts: 1, requests: 21, retryable: false });
    expect(vendor.requests()).toBe(21);
  });
});

describe("redirect: 'error' and 'manual'", () => {
  it("'error': the 3xx fails the call as kind http with its status, is not followed nor retried, nor counted", async () => {
    const target = await otherOrigin();
    const { vendor, engine } = await startScenario();
    vendor.script({ status: 302, headers: { location: target.url('/x') }, body: 'Found' });
    const statuses: number[] = [];
    const read = stitch({
      name: uniqueKey('strict'),
      url: vendor.url('/start'),
      redirect: 'error',
      hooks: {
        onResponse: ({ response }) => {
          statuses.push(response.status);
          // The clone the docs point to for reading the body works on a refused 3xx too.
          pages.push(response.clone().text());
        },
      },
    });
    const pages: Promise<string>[] = [];
    const run = read({}, { engine });
    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'http', status: 302, requests: 1, retryable: false });
    expect(target.requests()).toBe(0);
    expect(await engine.circuitState(vendor.origin)).toEqual({ state: 'closed', failures: 0 });
    // The refused 3xx is the answer, heard and reported as any answer is.
    const report = await run.report();
    expect(report.status).toBe(302);
    expect(ofType(report.events, 'response')).toEqual([expect.objectContaining({ attempt: 1, status: 302 })]);
    expect(statuses).toEqual([302]);
    await expect(Promise.all(pages)).resolves.toEqual(['Found']);
  });

  it("'manual': the 3xx is the answer; onResponse sees its location; nothing follows", async () => {
    const target = await otherOrigin();
    const { vendor, engine } = await startScenario();
    vendor.script({ status: 302, headers: { location: target.url('/x') }, body: '' });
    const locations: Array<string | null> = [];
    const read = stitch({
      name: uniqueKey('manual'),
      url: vendor.url('/start'),
      redirect: 'manual',
      hooks: { onResponse: ({ response }) => void locations.push(response.headers.get('location')) },
    });
    expect(await read({}, { engine })).toBeNull();
    expect(locations).toEqual([target.url('/x')]);
    expect(target.requests()).toBe(0);
  });

  it("'manual': a 3xx's page for people (text or HTML) is not data: null, as for an empty one; JSON is read", async () => {
    const { vendor, engine } = await startScenario();
    const location = { location: '/next' };
    vendor.script(
      {
        status: 302,
        headers: { ...location, 'content-type': 'text/plain' },
        body: 'Found. Redirecting to /next',
      },
      { status: 303, headers: { ...location, 'content-type': 'text/html' }, body: '<p>See other</p>' },
      { status: 307, headers: location, body: { moved: '/next' } },
    );
    const read = stitch({ name: uniqueKey('manual'), url: vendor.url('/start'), redirect: 'manual' });
    expect(await read({}, { engine })).toBeNull();
    expect(await read({}, { engine })).toBeNull();
    expect(await read({}, { engine })).toEqual({ moved: '/next' });
    expect(vendor.requests()).toBe(3);
  });

  it('refuses any other value, naming redirect', () => {
    expect(() =>
      stitch({ name: uniqueKey('bad'), url: 'http://127.0.0.1/', redirect: 'always' as never }),
    ).toThrow(expect.objectContaining({ kind: 'config', field: 'redirect' }));
  });
});

describe('a redirect to a port fetch will not connect to', () => {
  it('is refused as config naming the redirect, the first request counted as sent', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script({ status: 307, headers: { location: 'http://127.0.0.1:6000/next' }, body: '' });
    const pay = stitch({
      name: uniqueKey('pay'),
      method: 'POST',
      url: vendor.url('/pay'),
      idempotency: true,
    });
    const error = await rejection(pay({ body: {} }, { engine }));
    expect(error).toMatchObject({ kind: 'config', field: 'fetch', requests: 1, dispatched: true });
    expect(error.message).toContain("was redirected, and fetch refused the redirect's request");
    expect(vendor.requests()).toBe(1);
  });
});

describe('where the platform hides the target (a browser: opaqueredirect)', () => {
  /** A fetch that answers like a browser's to `redirect: 'manual'`, then lands the followed one. */
  function browserFetch() {
    const calls: RequestInit[] = [];
    const fetch = async (_url: unknown, init: RequestInit = {}) => {
      calls.push(init);
      if (init.redirect === 'manual') {
        return { type: 'opaqueredirect', status: 0, ok: false, url: '', headers: new Headers(), body: null };
      }
      return new Response('{"landed":true}', { headers: { 'content-type': 'application/json' } });
    };
    return { fetch: fetch as unknown as typeof globalThis.fetch, calls };
  }

  it('a request without a secret header is let fetch follow it, and the hop is traced', async () => {
    const { fetch, calls } = browserFetch();
    const engine = createEngine({ fetch });
    const read = stitch({ name: uniqueKey('hidden'), url: 'https://api.example/start' });
    const run = read({}, { engine });
    const events = collect(run);
    expect(await run).toEqual({ landed: true });
    expect(calls.map((init) => init.redirect)).toEqual(['manual', 'follow']);
    expect(ofType(await events, 'redirect')).toHaveLength(1);
    expect((await run.report()).requests).toBe(2);
  });

  it('a write is refused, not sent again: the vendor has it once already', async () => {
    const { fetch, calls } = browserFetch();
    const engine = createEngine({ fetch });
    const write = stitch({ name: uniqueKey('hidden'), method: 'POST', url: 'https://api.example/charges' });
    const error = await rejection(write({ body: { amount: 500 } }, { engine }));
    expect(error).toMatchObject({ kind: 'http', status: 0, requests: 1, retryable: false });
    expect(calls).toHaveLength(1);
  });

  it('a request carrying a secret header is refused, not sent on blind', async () => {
    const { fetch, calls } = browserFetch();
    const engine = createEngine({ fetch });
    const read = stitch({
      name: uniqueKey('hidden'),
      url: 'https://api.example/start',
      headers: SECRET_HEADERS,
    });
    const error = await rejection(read({}, { engine }));
    expect(error).toMatchObject({ kind: 'http', status: 0, requests: 1, retryable: false });
    expect(calls).toHaveLength(1);
  });
});
