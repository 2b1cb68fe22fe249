/**
 * Issue 8, security: secrets never leave the engine (events, reports, streams, errors, cache
 * keys), users never share cache entries, hostile object keys stay data, error bodies are bounded
 * and `{param}` values cannot walk out of their path segment. Against the real vendor, so each
 * test can check what actually went over the wire as well as what Stitch reported.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { MAX_ERROR_BODY, type StitchEvent, type StitchInput, type StitchRun, stitch } from '../../src/index';
import type { ManualClock } from '../helpers/clock';
import { uniqueKey } from '../helpers/keys';
import { eventTypes, rejection, startScenario, until } from '../helpers/runs';
import type { LedgerEntry, Reply } from '../helpers/vendor';

/** One distinct secret per place a secret can come from, so a leak names its source. */
const SECRETS = {
  authorization: 'Bearer sk-authorization-0xA1',
  cookie: 'sid=sk-cookie-0xB2',
  proxy: 'Basic sk-proxy-0xC3',
  apiKey: 'sk-x-api-key-0xD4',
  tenant: 'sk-tenant-secret-0xE5',
  session: 'sk-session-query-0xF6',
  setCookie: 'sk-set-cookie-0x07',
  hooked: 'Bearer sk-hook-injected-0x18',
} as const;

/** A default header whose name is not a secret one: it reaches the vendor and the events in clear. */
const NOT_SECRET = 'plain-default-header-0x29';

/** The engine is told about the configured sensitive header and query parameter. */
const REDACT = ['x-tenant-secret', 'session'];

/**
 * Every string reachable from `value`: own properties, enumerable or not (an Error's `message`,
 * `stack` and `cause`), arrays, nested objects; cycles visited once. What a logger that
 * serialises an error or a report could ever print.
 */
function everyString(value: unknown, seen = new Set<unknown>()): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'object' && typeof value !== 'function') return String(value);
  if (seen.has(value)) return '';
  seen.add(value);
  const parts: string[] = [];
  if (value instanceof Headers) {
    value.forEach((v, k) => {
      parts.push(`${k}: ${v}`);
    });
  }
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key === 'symbol') continue;
    let inner: unknown;
    try {
      inner = (value as Record<string, unknown>)[key];
    } catch {
      continue;
    }
    parts.push(key, everyString(inner, seen));
  }
  return parts.join('\n');
}

/** Fails naming every secret found in `text`, and where. */
function expectNoSecret(text: string, where: string) {
  const leaked = Object.entries(SECRETS).filter(([, secret]) => text.includes(secret));
  expect(
    leaked.map(([name]) => name),
    `secrets in ${where}`,
  ).toEqual([]);
}

/** Everything a run exposes: its stream, its report, its error (with `cause`), JSON-serialised or walked. */
async function expectRunClean(run: StitchRun<unknown>, label: string) {
  const streamed: StitchEvent[] = [];
  for await (const event of run.stream()) streamed.push(event);
  const report = await run.report();
  const result = await run.safe();
  expectNoSecret(JSON.stringify(streamed), `${label}: stream`);
  expectNoSecret(JSON.stringify(report), `${label}: report`);
  expectNoSecret(everyString(report), `${label}: report (walked)`);
  if (result.error) {
    expectNoSecret(JSON.stringify(result.error), `${label}: error JSON`);
    expectNoSecret(everyString(result.error), `${label}: error with its cause`);
    expectNoSecret(String(result.error), `${label}: error as a string`);
  }
  return { streamed, report, result };
}

/** Moves the manual clock from timer to timer until `run` settles. */
async function drive(clock: ManualClock, run: StitchRun<unknown>) {
  let done = false;
  const settled = run.safe().then(() => {
    done = true;
  });
  while (!done) {
    await Promise.race([settled, clock.untilPending()]);
    if (!done) await clock.next();
  }
}

describe('secrets never leave the engine', () => {
  async function secretScenario(respond?: (entry: LedgerEntry) => Reply) {
    const traced: StitchEvent[] = [];
    const scenario = await startScenario({
      ...(respond ? { respond } : {}),
      engine: { redact: REDACT, trace: { handle: (event) => traced.push(event) } },
    });
    const { vendor } = scenario;
    const account = stitch<unknown, StitchInput>({
      name: uniqueKey('account'),
      url: vendor.url('/account'),
      headers: { 'X-API-Key': SECRETS.apiKey, 'X-Client': NOT_SECRET },
      retry: { attempts: 2, backoff: { base: 10, jitter: 'none' } },
      cache: { ttl: 60_000 },
      // A hook that injects a token, as apps do: the event is built after it, and must redact it too.
      hooks: { onRequest: ({ headers }) => headers.set('Authorization', SECRETS.hooked) },
    });
    const input: StitchInput = {
      headers: {
        Authorization: SECRETS.authorization,
        Cookie: SECRETS.cookie,
        'Proxy-Authorization': SECRETS.proxy,
        'X-Tenant-Secret': SECRETS.tenant,
      },
      query: { session: SECRETS.session, page: 1 },
    };
    return { ...scenario, traced, account, input };
  }

  it('the vendor receives every secret, and no event, report or error of a success, retry, failure or cancel shows one', async () => {
    let answers = 0;
    const { vendor, engine, clock, traced, account, input } = await secretScenario((entry) => {
      answers += 1;
      const cookie = { 'set-cookie': `session=${SECRETS.setCookie}; HttpOnly` };
      // First a 503 (retried), then a success; the failing call gets a 500 with a cookie and a body.
      if (entry.query.get('page') === '2') return { status: 500, headers: cookie, body: 'boom' };
      if (entry.query.get('page') === '3') return 'hold';
      return answers === 1
        ? { status: 503, headers: cookie, body: 'busy' }
        : { status: 200, headers: cookie, body: { balance: 1 } };
    });

    // Success after a retry.
    const retried = account(input, { engine });
    await drive(clock, retried);
    const ok = await expectRunClean(retried, 'retried success');
    expect(ok.result.ok).toBe(true);
    expect(eventTypes(ok.streamed)).toContain('retry');

    // A served-from-cache read.
    const cached = account(input, { engine });
    expect((await expectRunClean(cached, 'cache hit')).report.source).toBe('cache');

    // A failure.
    const failed = account({ ...input, query: { ...input.query, page: 2 } }, { engine });
    await drive(clock, failed);
    const failure = await expectRunClean(failed, 'failure');
    expect(failure.result.error).toMatchObject({ kind: 'http', status: 500 });

    // A cancel, in flight.
    const controller = new AbortController();
    const held = vendor.requests() + 1;
    const cancelled = account(
      { ...input, query: { ...input.query, page: 3 } },
      { engine, signal: controller.signal },
    );
    await vendor.arrival(held);
    controller.abort(new Error('the user navigated away'));
    const cancel = await expectRunClean(cancelled, 'cancel');
    expect(cancel.report.cancelled).toBe(true);
    await vendor.hangUp(held);

    // The trace sink saw every run, secrets redacted; the request events show the header names.
    expectNoSecret(JSON.stringify(traced), 'trace sink');
    const requests = traced.filter((event) => event.type === 'request');
    expect(requests.length).toBe(vendor.requests());
    for (const event of requests) {
      expect(event.headers).toMatchObject({
        authorization: '[redacted]',
        cookie: '[redacted]',
        'proxy-authorization': '[redacted]',
        'x-api-key': '[redacted]',
        'x-tenant-secret': '[redacted]',
        // Redaction is by name: other headers are shown, so the events do carry headers.
        'x-client': NOT_SECRET,
      });
      expect(new URL(event.url).searchParams.get('session')).toBe('[redacted]');
    }
    expect(traced.filter((event) => event.type === 'start').length).toBe(4);

    // The vendor got them all in clear: redaction is for what leaves the engine, not the request.
    for (const entry of vendor.ledger) {
      expect(entry.headers).toMatchObject({
        authorization: SECRETS.hooked,
        cookie: SECRETS.cookie,
        'proxy-authorization': SECRETS.proxy,
        'x-api-key': SECRETS.apiKey,
        'x-tenant-secret': SECRETS.tenant,
        'x-client': NOT_SECRET,
      });
      expect(entry.query.get('session')).toBe(SECRETS.session);
    }
  });

  it('secret header and query values are never in a cache key, nor in a dehydrated state', async () => {
    const { engine, account, input } = await secretScenario();
    const key = engine.keyOf(account, input) as string;
    for (const secret of [
      SECRETS.authorization,
      SECRETS.cookie,
      SECRETS.proxy,
      SECRETS.tenant,
      SECRETS.session,
    ]) {
      expect(key).not.toContain(secret);
    }
    const otherSession = { ...input, query: { ...input.query, session: 'another-session' } };
    expect(engine.keyOf(account, otherSession)).not.toBe(key);
    // Different secrets are different principals, so different keys.
    const other = { ...input, headers: { ...input.headers, Authorization: 'Bearer someone-else' } };
    expect(engine.keyOf(account, other)).not.toBe(key);
  });

  it('a param that fills a secret query value of the URL template is hashed in the key and the dehydrated state', async () => {
    // An answer that does not echo the query back, so the state holds the key and the data alone.
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { hits: ['Ada'] } }) });
    const token = 'sk-live-template-param-0x51';
    const search = stitch({
      name: uniqueKey('search'),
      url: vendor.url('/search?api_key={key}&q={q}'),
      cache: 60_000,
    });
    const input = { params: { key: token, q: 'ada' } };
    await search(input, { engine });
    expect(vendor.ledger[0]?.query.get('api_key')).toBe(token);
    const key = engine.keyOf(search, input) as string;
    expect(key).not.toContain(token);
    expect(key).toContain('ada');
    expect(JSON.stringify(engine.dehydrate())).not.toContain(token);
    // Another principal's token is another key.
    expect(engine.keyOf(search, { params: { key: 'sk-someone-else', q: 'ada' } })).not.toBe(key);
    // A name percent-encoded in the template is the same name to the vendor.
    const encoded = stitch({ name: uniqueKey('search'), url: vendor.url('/search?api%5Fkey={key}&q={q}') });
    expect(engine.keyOf(encoded, input)).not.toContain(token);
  });

  it('a network failure’s error and cause name no secret', async () => {
    const { vendor, engine, clock, account, input } = await secretScenario();
    vendor.script({ fault: 'reset' }, { fault: 'reset' });
    const run = account(input, { engine });
    await drive(clock, run);
    const { result } = await expectRunClean(run, 'network failure');
    expect(result.error).toMatchObject({ kind: 'network' });
    expect(result.error?.cause).toBeDefined();
  });
});

describe('tenancy: cache entries are scoped by a principal outside the input', () => {
  it('user A never reads user B’s entry, cached or in flight, with identical inputs', async () => {
    const { vendor, engine } = await startScenario({
      respond: (entry) => ({ body: { owner: entry.headers['x-principal'], n: entry.n } }),
    });
    const principal = new AsyncLocalStorage<string>();
    const inbox = stitch<{ owner: string; n: number }>({
      name: uniqueKey('inbox'),
      url: vendor.url('/inbox'),
      retry: false,
      cache: { ttl: 60_000, scope: () => `user:${principal.getStore() ?? 'anonymous'}` },
      hooks: { onRequest: ({ headers }) => headers.set('x-principal', principal.getStore() ?? 'anonymous') },
    });
    const as = (user: string) => principal.run(user, () => inbox({ query: { folder: 'main' } }, { engine }));
    const keyAs = (user: string) =>
      principal.run(user, () => engine.keyOf(inbox, { query: { folder: 'main' } }));
    expect(keyAs('alice')).not.toBe(keyAs('bob'));

    // Same tick, same input: bob must not join alice's request.
    const [alice, bob] = [as('alice'), as('bob')];
    expect(await alice).toEqual({ owner: 'alice', n: 1 });
    expect(await bob).toEqual({ owner: 'bob', n: 2 });

    // Then each is served their own entry, whatever the order.
    for (const user of ['bob', 'alice', 'bob', 'mallory']) {
      const data = await as(user);
      expect(data.owner).toBe(user);
    }
    // Only mallory's first read reached the vendor; nobody ever got someone else's entry.
    expect(vendor.ledger.map((entry) => entry.headers['x-principal'])).toEqual(['alice', 'bob', 'mallory']);
  });
});

describe('hostile object keys cannot pollute prototypes', () => {
  const hostile = <T>(text: string) => JSON.parse(text) as T;
  const proto = '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}';

  const expectClean = () => {
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object as unknown as Record<string, unknown>).polluted).toBeUndefined();
  };

  it('in params, query, body and headers of a write, and in a response body that gets cached', async () => {
    const { vendor, engine } = await startScenario({
      respond: (entry) =>
        entry.method === 'GET'
          ? { headers: { 'content-type': 'application/json' }, body: `${proto}, "ok": true}` }
          : { body: { saved: true } },
    });
    const save = stitch({ name: uniqueKey('save'), method: 'POST', url: vendor.url('/items/{id}') });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/items/{id}'), cache: { ttl: 60_000 } });

    const params = hostile<Record<string, string>>('{"id": "7", "__proto__": "x", "constructor": "y"}');
    const query = hostile<StitchInput['query']>('{"__proto__": "q", "constructor": "c", "toString": "t"}');
    const body = hostile<unknown>(`${proto}, "name": "n"}`);
    const headers = hostile<Record<string, string>>('{"__proto__": "h", "constructor": "c"}');
    await expect(save({ params, query, body, headers }, { engine })).resolves.toEqual({ saved: true });
    expectClean();

    // What went over the wire: the hostile keys as plain data, nothing merged into anything.
    const [written] = vendor.ledger;
    expect(written?.url).toBe('/items/7?__proto__=q&constructor=c&toString=t');
    expect(written?.headers).toMatchObject({ __proto__: 'h', constructor: 'c' });
    expect(Object.getOwnPropertyDescriptor(JSON.parse(written?.body ?? '{}'), '__proto__')?.value).toEqual({
      polluted: 'yes',
    });

    // A hostile response body is data too, cached as it came, and keys of hostile inputs are strings.
    const data = (await read({ params, query }, { engine })) as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(data, '__proto__')?.value).toEqual({ polluted: 'yes' });
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(typeof engine.keyOf(read, { params, query })).toBe('string');
    expect((await read({ params, query }, { engine }).report()).source).toBe('cache');

    // Hydrating a hostile state (from a page an attacker could shape) only adds cache entries.
    engine.hydrate(hostile(`{"version": 1, "entries": [["__proto__", ${proto}}, 1]]}`));
    expectClean();
  });
});

describe('error bodies are bounded', () => {
  it('a 1 MB error page: error.body ≤ MAX_ERROR_BODY, and the rest is never read off the socket', async () => {
    const { vendor, engine } = await startScenario();
    const head = 'E'.repeat(4 * MAX_ERROR_BODY);
    const rest = 'R'.repeat(1024 * 1024);
    vendor.script({
      fault: 'slow-body',
      status: 500,
      headers: { 'content-type': 'text/html' },
      chunks: [head, rest],
    });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/big-error'), retry: false });
    const run = read({}, { engine });
    await until(run, 'response');
    vendor.drip(1);
    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'http', status: 500 });
    expect(error.body?.length).toBeLessThanOrEqual(MAX_ERROR_BODY);
    expect(error.body).toBe('E'.repeat(MAX_ERROR_BODY));
    // Neither the message, the report nor the events carry the body.
    expect(error.message.length).toBeLessThan(100);
    expect(JSON.stringify(await run.report())).not.toContain('EEEE');
    // The vendor saw the client hang up after the first chunk: the megabyte was never sent.
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false, bytesSent: head.length });
  });
});

describe('{param} values are percent-encoded: no path traversal', () => {
  async function pathScenario() {
    const scenario = await startScenario();
    const file = stitch<unknown, { params: { name: string } }>({
      name: uniqueKey('file'),
      url: scenario.vendor.url('/tenants/acme/files/{name}'),
      retry: false,
    });
    return { ...scenario, file };
  }

  const cases: Array<[string, string]> = [
    ['a/b', '/tenants/acme/files/a%2Fb'],
    ['../../admin', '/tenants/acme/files/..%2F..%2Fadmin'],
    ['..\\..\\admin', '/tenants/acme/files/..%5C..%5Cadmin'],
    ['a?role=admin', '/tenants/acme/files/a%3Frole%3Dadmin'],
    ['a#fragment', '/tenants/acme/files/a%23fragment'],
    ['%2e%2e', '/tenants/acme/files/%252e%252e'],
    ['%2E%2E%2Fadmin', '/tenants/acme/files/%252E%252E%252Fadmin'],
    ['.%2e', '/tenants/acme/files/.%252e'],
    ['...', '/tenants/acme/files/...'],
    ['naïve café', '/tenants/acme/files/na%C3%AFve%20caf%C3%A9'],
  ];

  it.each(cases)('%j reaches the vendor as one segment: %s', async (name, path) => {
    const { vendor, engine, file } = await pathScenario();
    await expect(file({ params: { name } }, { engine })).resolves.toMatchObject({ path });
    const [entry] = vendor.ledger;
    expect(entry?.url).toBe(path);
    expect(entry?.path.startsWith('/tenants/acme/files/')).toBe(true);
    expect(entry?.path.split('/')).toHaveLength(5);
    expect([...(entry?.query.keys() ?? [])]).toEqual([]);
  });

  it.each(['.', '..'])('%j is refused before anything is sent', async (name) => {
    const { vendor, engine, file } = await pathScenario();
    const error = await rejection(file({ params: { name } }, { engine }));
    expect(error).toMatchObject({ kind: 'config', field: 'params.name', requests: 0 });
    expect(vendor.requests()).toBe(0);
  });

  it('a {param} in the query part cannot add parameters', async () => {
    const { vendor, engine } = await startScenario();
    const search = stitch({ name: uniqueKey('search'), url: vendor.url('/search?q={q}'), retry: false });
    await search({ params: { q: 'ada&role=admin#x' } }, { engine });
    const [entry] = vendor.ledger;
    expect(entry?.url).toBe('/search?q=ada%26role%3Dadmin%23x');
    expect(Object.fromEntries(entry?.query ?? [])).toEqual({ q: 'ada&role=admin#x' });
  });
});

it('credentials in a stitch URL are refused at definition time, so no error can carry them', () => {
  for (const [field, config] of [
    ['url', { name: 'userinfo', url: 'https://user:hunter2@api.example.test/a' }],
    ['baseUrl', { name: 'userinfo-base', baseUrl: 'https://user:hunter2@api.example.test', url: '/a' }],
  ] as const) {
    expect(() => stitch(config)).toThrow(expect.objectContaining({ kind: 'config', field }));
  }
});
