/**
 * Keys decide who shares what (SPEC §2 "Cache and coalescer"): the key is the stitch's name, the
 * canonical input (key order irrelevant, secret headers never in clear) and a tenancy scope, so
 * one user never gets another's request or entry, and hostile object keys are only data.
 * `coalesce: false` gives every caller its own request with the same cancellation semantics.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { type StitchInput, stitch } from '../../../src/index';
import { uniqueKey } from '../../helpers/keys';
import { rejection, startScenario } from '../../helpers/runs';
import type { LedgerEntry, Reply } from '../../helpers/vendor';

const TOKENS: Record<string, string> = { 'Bearer token-of-ada': 'ada', 'Bearer token-of-bob': 'bob' };

/** The vendor answers for whoever the request says it is, as a real API does for a principal. */
const whoAmI = (entry: LedgerEntry): Reply => ({
  body: {
    user: entry.headers['x-user'] ?? TOKENS[entry.headers.authorization ?? ''] ?? null,
    path: entry.path,
  },
});

/** A vendor that answers {@link whoAmI}, and a cached `GET /me` on it. */
async function startWhoAmI() {
  const { vendor, engine } = await startScenario({ respond: whoAmI });
  const me = stitch({ name: uniqueKey('me'), url: vendor.url('/me'), retry: false, cache: { ttl: 60_000 } });
  return { vendor, engine, me };
}

describe('canonical keys', () => {
  it('inputs with the same query keys in a different order share one request', async () => {
    const { vendor, engine } = await startScenario();
    const search = stitch({ name: uniqueKey('search'), url: vendor.url('/search'), retry: false });
    const ordered = { query: { q: 'ada', page: 2, sort: 'name', tags: ['x', 'y'] } };
    const shuffled = { query: { tags: ['x', 'y'], sort: 'name', q: 'ada', page: 2 } };
    expect(engine.keyOf(search, shuffled)).toBe(engine.keyOf(search, ordered));

    vendor.script('hold');
    const first = search(ordered, { engine });
    const second = search(shuffled, { engine });
    await vendor.arrival(1);
    vendor.release(1, { body: { hits: 3 } });
    await expect(first).resolves.toEqual({ hits: 3 });
    await expect(second).resolves.toEqual({ hits: 3 });
    expect(vendor.requests()).toBe(1);
    expect((await second.report()).source).toBe('coalesced');
  });

  it('inputs that send the same URL share one request and one entry: a list of one, an empty list, an unused param', async () => {
    const { vendor, engine } = await startScenario();
    const search = stitch<{ hits: number }>({
      name: uniqueKey('search'),
      url: vendor.url('/search'),
      retry: false,
      cache: { ttl: 60_000 },
    });
    vendor.script('hold');
    const runs = [
      search({ query: { q: 'ada' } }, { engine }),
      search({ query: { q: ['ada'] } }, { engine }),
      search({ query: { q: 'ada', tags: [] } }, { engine }),
    ];
    await vendor.arrival(1);
    vendor.release(1, { body: { hits: 3 } });
    expect(await Promise.all(runs)).toEqual([{ hits: 3 }, { hits: 3 }, { hits: 3 }]);
    expect(vendor.requests()).toBe(1);
    expect(vendor.ledger[0]?.url).toBe('/search?q=ada');
    engine.setData(search, { query: { q: 'ada' } }, { hits: 4 });
    expect(engine.getData(search, { query: { q: ['ada'], tags: [] } })).toEqual({ hits: 4 });

    const user = stitch<{ path: string }, { params: { id: number } }>({
      name: uniqueKey('user'),
      url: vendor.url('/users/{id}'),
      retry: false,
    });
    vendor.script('hold');
    const extra = { params: { id: 1, extra: 'z' } } as unknown as { params: { id: number } };
    const both = [user({ params: { id: 1 } }, { engine }), user(extra, { engine })];
    await vendor.arrival(2);
    vendor.release(2, { body: { path: '/users/1' } });
    expect(await Promise.all(both)).toEqual([{ path: '/users/1' }, { path: '/users/1' }]);
    expect(vendor.requests()).toBe(2);
  });

  it('an undefined secret query value (a logged-out token) is left out of the key as of the request: one key', async () => {
    const { vendor, engine } = await startScenario();
    const search = stitch({ name: uniqueKey('search'), url: vendor.url('/search'), retry: false });
    const loggedOut = { query: { q: 'ada', token: undefined } };
    expect(engine.keyOf(search, loggedOut)).toBe(engine.keyOf(search, { query: { q: 'ada' } }));
  });

  it('different Authorization values never share a request or a cache entry, and no key holds the token', async () => {
    const { vendor, engine, me } = await startWhoAmI();
    const ada = { headers: { Authorization: 'Bearer token-of-ada' } };
    const bob = { headers: { Authorization: 'Bearer token-of-bob' } };

    // Issued in the same tick: had their keys matched, bob would have joined ada's request.
    const [adaRun, bobRun] = [me(ada, { engine }), me(bob, { engine })];
    await expect(adaRun).resolves.toEqual({ user: 'ada', path: '/me' });
    await expect(bobRun).resolves.toEqual({ user: 'bob', path: '/me' });
    expect(vendor.requests()).toBe(2);
    expect((await bobRun.report()).source).toBe('live');

    // Each principal is then served its own entry from the cache.
    const again = [me(ada, { engine }), me(bob, { engine })];
    expect(await Promise.all(again)).toEqual([
      { user: 'ada', path: '/me' },
      { user: 'bob', path: '/me' },
    ]);
    expect((await Promise.all(again.map((run) => run.report()))).map((report) => report.source)).toEqual([
      'cache',
      'cache',
    ]);
    expect(vendor.requests()).toBe(2);

    const adaKey = engine.keyOf(me, ada) as string;
    const bobKey = engine.keyOf(me, bob) as string;
    expect(adaKey).not.toBe(bobKey);
    for (const key of [adaKey, bobKey]) expect(key).not.toContain('token-of');
    expect(JSON.stringify(engine.dehydrate())).not.toContain('token-of');
  });

  it('the same token under a differently cased header name is the same principal: one request', async () => {
    const { vendor, engine, me } = await startWhoAmI();
    const upper = { headers: { Authorization: 'Bearer token-of-ada' } };
    const lower = { headers: { authorization: 'Bearer token-of-ada' } };
    expect(engine.keyOf(me, lower)).toBe(engine.keyOf(me, upper));
    await Promise.all([me(upper, { engine }), me(lower, { engine })]);
    expect(vendor.requests()).toBe(1);
  });
});

describe('an input the request build refuses', () => {
  /** Where a value goes in an input: the URL template it needs, and the field a refusal names. */
  const places = {
    query: { url: '/since', input: (value: unknown) => ({ query: { since: value } }), field: 'query.since' },
    'a secret query name': {
      url: '/since',
      input: (value: unknown) => ({ query: { token: value } }),
      field: 'query.token',
    },
    'a param filling a secret query value': {
      url: '/since?api_key={key}',
      input: (value: unknown) => ({ params: { key: value } }),
      field: 'params.key',
    },
    'a header': {
      url: '/since',
      input: (value: unknown) => ({ headers: { 'x-since': value } }),
      field: 'headers.x-since',
    },
  };
  const values: Array<[string, unknown, unknown]> = [
    ['a Date, beside the string of its time', new Date(0), '1970-01-01T00:00:00.000Z'],
    ['Infinity, beside null', Number.POSITIVE_INFINITY, null],
    ['a function, beside null', () => 1, null],
  ];
  it.each(
    Object.entries(places).flatMap(([where, place]) =>
      values
        // A null is a query value left out; a param or a header cannot be one.
        .filter(([, , good]) => good !== null || 'query' in place.input(good))
        .map(([what, bad, good]) => [`${what}, in ${where}`, place, bad, good] as const),
    ),
  )(
    '%s: refused the same way whether or not a good call is in flight or cached',
    async (_, place, bad, good) => {
      const { vendor, engine } = await startScenario();
      const read = stitch({ name: uniqueKey('since'), url: vendor.url(place.url), cache: { ttl: 60_000 } });
      vendor.script('hold');
      const first = read(place.input(good) as StitchInput, { engine });
      await vendor.arrival(1);
      const badCall = () => read(place.input(bad) as never, { engine });
      const refused = { kind: 'config', field: place.field, requests: 0 };
      expect(await rejection(badCall())).toMatchObject(refused);
      vendor.release(1, { body: { ok: true } });
      await first;
      expect(await rejection(badCall())).toMatchObject(refused);
      expect(vendor.requests()).toBe(1);
    },
  );
});

describe('tenancy scope', () => {
  it('cache.scope by an x-user header separates users: user A never gets user B’s data', async () => {
    const { vendor, engine } = await startScenario({ respond: whoAmI });
    const inbox = stitch<{ user: string }>({
      name: uniqueKey('inbox'),
      url: vendor.url('/inbox'),
      retry: false,
      cache: { ttl: 60_000, scope: (input) => input?.headers?.['x-user'] ?? 'anonymous' },
    });
    const asAda = { headers: { 'x-user': 'ada' } };
    const asBob = { headers: { 'x-user': 'bob' } };
    expect(engine.keyOf(inbox, asAda)).not.toBe(engine.keyOf(inbox, asBob));

    const [ada, bob] = [inbox(asAda, { engine }), inbox(asBob, { engine })];
    expect((await ada).user).toBe('ada');
    expect((await bob).user).toBe('bob');
    expect(vendor.requests()).toBe(2);

    for (let round = 0; round < 3; round++) {
      expect((await inbox(asBob, { engine })).user).toBe('bob');
      expect((await inbox(asAda, { engine })).user).toBe('ada');
    }
    expect(vendor.requests()).toBe(2);
  });

  it('a scope taken from outside the input (the request’s principal) is the only thing keeping users apart', async () => {
    const { vendor, engine } = await startScenario({ respond: whoAmI });
    // A server renders for many users at once; the principal lives in the request's async context,
    // and a hook sends it. The inputs are identical, so only the scope can tell the users apart.
    const principal = new AsyncLocalStorage<string>();
    const inbox = stitch<{ user: string }>({
      name: uniqueKey('inbox'),
      url: vendor.url('/inbox'),
      retry: false,
      cache: { ttl: 60_000, scope: () => principal.getStore() ?? 'anonymous' },
      hooks: { onRequest: ({ headers }) => headers.set('x-user', principal.getStore() ?? 'anonymous') },
    });
    const as = (user: string) => principal.run(user, () => inbox(undefined, { engine }));

    // Issued in the same tick: had the scope been ignored, bob would have joined ada's request.
    const ada = as('ada');
    const bob = as('bob');
    expect((await ada).user).toBe('ada');
    expect((await bob).user).toBe('bob');
    expect((await bob.report()).source).toBe('live');

    expect((await as('bob')).user).toBe('bob');
    expect((await as('ada')).user).toBe('ada');
    expect(vendor.requests()).toBe(2);
  });
});

describe('hostile object keys are data', () => {
  const noPollution = () => {
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  };

  it('__proto__ and constructor in a query are keyed by value and never reach Object.prototype', async () => {
    const { vendor, engine } = await startScenario();
    const search = stitch({ name: uniqueKey('search'), url: vendor.url('/search'), retry: false });
    // JSON.parse makes them own properties, as a parsed request body or URL would.
    const query = (text: string) => ({ query: JSON.parse(text) as StitchInput['query'] });
    const a = query('{"__proto__": "a", "constructor": "c"}');
    const same = query('{"constructor": "c", "__proto__": "a"}');
    const other = query('{"__proto__": "b", "constructor": "c"}');
    const without = query('{"constructor": "c"}');

    const keys = [a, same, other, without].map((input) => engine.keyOf(search, input));
    expect(keys[1]).toBe(keys[0]);
    expect(new Set(keys).size).toBe(3);

    const runs = [a, same, other, without].map((input) => search(input, { engine }));
    await Promise.all(runs);
    expect(vendor.requests()).toBe(3);
    expect((await runs[1]?.report())?.source).toBe('coalesced');
    expect(vendor.ledger.map((entry) => entry.url).sort()).toEqual([
      '/search?__proto__=a&constructor=c',
      '/search?__proto__=b&constructor=c',
      '/search?constructor=c',
    ]);
    noPollution();
  });

  it('__proto__ and constructor in a coalesced write’s body are keyed by value and never reach Object.prototype', async () => {
    const { vendor, engine } = await startScenario();
    const save = stitch({
      name: uniqueKey('savePrefs'),
      method: 'POST',
      url: vendor.url('/prefs'),
      coalesce: true,
    });
    const body = (polluted: string) =>
      JSON.parse(
        `{"__proto__": {"polluted": "${polluted}"}, "constructor": {"prototype": {"polluted": "${polluted}"}}, "theme": "dark"}`,
      ) as unknown;
    const inputs = [{ body: body('yes') }, { body: body('yes') }, { body: body('no') }];
    expect(engine.keyOf(save, inputs[0])).toBeUndefined();

    const runs = inputs.map((input) => save(input, { engine }));
    await Promise.all(runs);
    expect(vendor.requests()).toBe(2);
    expect((await runs[1]?.report())?.source).toBe('coalesced');
    // The vendor got the hostile key as an own property of the body, with each caller's value.
    const sent = vendor.ledger.map((entry) =>
      Object.getOwnPropertyDescriptor(JSON.parse(entry.body), '__proto__'),
    );
    expect(sent.map((descriptor) => descriptor?.value?.polluted).sort()).toEqual(['no', 'yes']);
    for (const input of inputs) expect(Object.getPrototypeOf(input.body)).toBe(Object.prototype);
    noPollution();
  });
});

describe('coalesce: false', () => {
  it('gives each caller of a GET its own request; an aborting caller hangs up its own socket only', async () => {
    const { vendor, engine } = await startScenario();
    const report = stitch({
      name: uniqueKey('report'),
      url: vendor.url('/report'),
      retry: false,
      coalesce: false,
    });
    vendor.script('hold', 'hold', 'hold');

    // Started one at a time, so caller i owns request i + 1.
    const controllers = [new AbortController(), new AbortController(), new AbortController()];
    const runs = [];
    for (const [i, controller] of controllers.entries()) {
      runs.push(report(undefined, { engine, signal: controller.signal }));
      await vendor.arrival(i + 1);
    }
    expect(vendor.requests()).toBe(3);

    const reason = new Error('the middle caller left');
    controllers[1]?.abort(reason);
    const error = await rejection(runs[1] as (typeof runs)[number]);
    expect(error).toMatchObject({ kind: 'aborted', name: 'AbortError', requests: 1, dispatched: true });
    expect(error.cause).toBe(reason);
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true, answered: false });
    expect(vendor.ledger[0]).toMatchObject({ hungUp: false, answered: false });
    expect(vendor.ledger[2]).toMatchObject({ hungUp: false, answered: false });

    vendor.release(1, { body: { n: 1 } });
    vendor.release(3, { body: { n: 3 } });
    await expect(runs[0]).resolves.toEqual({ n: 1 });
    await expect(runs[2]).resolves.toEqual({ n: 3 });
    await expect(vendor.hangUp(1)).rejects.toThrow('was answered, not hung up');
    await expect(vendor.hangUp(3)).rejects.toThrow('was answered, not hung up');
    const reports = await Promise.all(runs.map((run) => run.report()));
    expect(reports.map((r) => [r.outcome, r.source, r.requests])).toEqual([
      ['success', 'live', 1],
      ['cancelled', 'live', 1],
      ['success', 'live', 1],
    ]);
    expect(vendor.requests()).toBe(3);
  });
});
