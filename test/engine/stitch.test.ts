import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { StitchConfig, StitchEngineLike } from '../../src/engine/definition';
import { isStitchError, type StitchError } from '../../src/engine/errors';
import type { StitchRun } from '../../src/engine/run';
import { stitch } from '../../src/engine/stitch';
import { circuit, createEngine, idempotency, retry, throttle } from '../../src/index';

const URL_ = 'https://api.example.com/users/{id}';

/** The config StitchError `stitch(config)` throws, failing the test otherwise. */
function configFailure(config: unknown): StitchError {
  try {
    stitch(config as StitchConfig);
  } catch (error) {
    if (isStitchError(error) && error.kind === 'config') return error;
    throw error;
  }
  throw new Error('expected a config StitchError, stitch() accepted the config');
}

/** A valid config with `patch` applied over it. */
function withOption(patch: Record<string, unknown>): unknown {
  return { name: 'getUser', url: URL_, ...patch };
}

describe('stitch(): a config that cannot be read', () => {
  it('a getter or a proxy trap that throws is a config error, its cause kept, not the raw throw', () => {
    const thrown = new Error('not loaded yet');
    const unreadable = [
      withOption({
        retry: {
          get attempts(): never {
            throw thrown;
          },
        },
      }),
      {
        name: 'getUser',
        get url(): never {
          throw thrown;
        },
      },
      new Proxy(withOption({}) as object, {
        ownKeys: () => {
          throw thrown;
        },
      }),
    ];
    for (const config of unreadable) {
      expect(configFailure(config)).toMatchObject({ kind: 'config', field: 'config', cause: thrown });
    }
  });
});

describe('stitch(): config validation at definition time', () => {
  it.each<[string, string, unknown]>([
    ['a non-object config', 'config', 'getUser'],
    ['a missing name', 'name', { url: URL_ }],
    ['an empty name', 'name', { name: '', url: URL_ }],
    ['a blank name', 'name', { name: '   ', url: URL_ }],
    ['a non-string name', 'name', { name: 42, url: URL_ }],
    ['an unknown method', 'method', withOption({ method: 'FETCH' })],
    ['a lower-case method', 'method', withOption({ method: 'get' })],
    ['a missing url', 'url', { name: 'getUser' }],
    ['an empty url', 'url', withOption({ url: '' })],
    ['a relative url without baseUrl', 'url', withOption({ url: '/users/{id}' })],
    [
      'a placeholder that is not an identifier',
      'url',
      withOption({ url: 'https://api.example.com/{user-id}' }),
    ],
    ['a placeholder starting with a digit', 'url', withOption({ url: 'https://api.example.com/{1st}' })],
    ['a baseUrl that is not a URL', 'baseUrl', withOption({ url: '/users/{id}', baseUrl: 'not a url' })],
    // A URL drops a tab, a CR or a LF without a word: the request would go elsewhere than written.
    ['a url with a CR LF', 'url', withOption({ url: 'https://api.example.com/orders\r\n/refund' })],
    ['a url with a tab', 'url', withOption({ url: 'https://api.example.com/ord\ters' })],
    ['a baseUrl with a LF', 'baseUrl', withOption({ url: 'users', baseUrl: 'https://api.example.com/v1\n' })],
    // Sent as written, percent-encoded, or filled where the types say otherwise.
    ['an empty placeholder', 'url', withOption({ url: 'https://api.example.com/users/{}' })],
    ['an unclosed placeholder', 'url', withOption({ url: 'https://api.example.com/users/{id' })],
    ['a doubled placeholder', 'url', withOption({ url: 'https://api.example.com/users/{{id}}' })],
    ['a stray }', 'url', withOption({ url: 'https://api.example.com/users/id}' })],
    [
      'a bad placeholder in baseUrl',
      'baseUrl',
      withOption({ url: 'users', baseUrl: 'https://api.example.com/{v 1}' }),
    ],
    [
      'a baseUrl of another scheme',
      'baseUrl',
      withOption({ url: 'users', baseUrl: 'ftp://files.example.com' }),
    ],
    [
      'a baseUrl with credentials',
      'baseUrl',
      withOption({ url: 'users', baseUrl: 'https://me:pw@api.example.com' }),
    ],
    ["a responseType other than 'json' | 'text'", 'responseType', withOption({ responseType: 'xml' })],
    ['maxBodyBytes 0', 'maxBodyBytes', withOption({ maxBodyBytes: 0 })],
    ['maxBodyBytes -1', 'maxBodyBytes', withOption({ maxBodyBytes: -1 })],
    ['maxBodyBytes 1.5', 'maxBodyBytes', withOption({ maxBodyBytes: 1.5 })],
    ['maxBodyBytes NaN', 'maxBodyBytes', withOption({ maxBodyBytes: Number.NaN })],
    ['an output that is not a schema', 'output', withOption({ output: { parse: () => 1 } })],
    ['an output without validate', 'output', withOption({ output: { '~standard': { version: 1 } } })],
    ['a null output', 'output', withOption({ output: null })],
    // Only a left-out (or undefined) option takes its default: null is a wrong value like any.
    ['a null method', 'method', withOption({ method: null })],
    ['a null responseType', 'responseType', withOption({ responseType: null })],
    ['a null maxBodyBytes', 'maxBodyBytes', withOption({ maxBodyBytes: null })],
    ['hooks.onError not a function', 'hooks.onError', withOption({ hooks: { onError: 'log' } })],
    ['hooks.onCancel not a function', 'hooks.onCancel', withOption({ hooks: { onCancel: {} } })],
    ['a non-boolean coalesce', 'coalesce', withOption({ coalesce: 'yes' })],
    ['an invalid header name', 'headers', withOption({ headers: { 'bad name': 'x' } })],
    ['an invalid header value', 'headers.x-ok', withOption({ headers: { 'x-ok': 'a\nb' } })],
    // Headers would trim it, where a call's input header with one is refused.
    ['a header value ending in a line break', 'headers.x-ok', withOption({ headers: { 'x-ok': 'a\r\n' } })],
    // The engine's `headers` option is a function; here Headers would send its `name` and `length`.
    ['a function for headers', 'headers', withOption({ headers: function authHeaders() {} })],
    // An unset environment variable: Headers would send the text "undefined".
    [
      'an undefined header value',
      'headers.authorization',
      withOption({ headers: { authorization: undefined } }),
    ],
    [
      'a header value that is an object',
      'headers.x-tenant',
      withOption({ headers: { 'x-tenant': { id: 1 } } }),
    ],
    ['timeout 0', 'timeout', withOption({ timeout: 0 })],
    ['timeout -1', 'timeout', withOption({ timeout: -1 })],
    ['timeout NaN', 'timeout', withOption({ timeout: Number.NaN })],
    ['timeout "1s"', 'timeout', withOption({ timeout: '1s' })],
    ['timeout.each 0', 'timeout.each', withOption({ timeout: { each: 0 } })],
    ['timeout.each NaN', 'timeout.each', withOption({ timeout: { each: Number.NaN, total: 1_000 } })],
    ['timeout.total -1', 'timeout.total', withOption({ timeout: { each: 100, total: -1 } })],
    ['retry 0', 'retry.attempts', withOption({ retry: 0 })],
    ['retry.attempts 0', 'retry.attempts', withOption({ retry: { attempts: 0 } })],
    ['retry.attempts 0 on a write', 'retry.attempts', withOption({ method: 'POST', retry: { attempts: 0 } })],
    ['circuit.failures 0', 'circuit.failures', withOption({ circuit: { failures: 0 } })],
    ['throttle.concurrency 0', 'throttle.concurrency', withOption({ throttle: { concurrency: 0 } })],
    ['idempotency.keyOf not a function', 'idempotency.keyOf', withOption({ idempotency: { keyOf: 'id' } })],
    ['idempotency.header a number', 'idempotency.header', withOption({ idempotency: { header: 5 } })],
    ['circuit.window a list', 'circuit.window', withOption({ circuit: { window: [] } })],
    // Values of the wrong shape altogether, which defaults once hid.
    ['cache as a string', 'cache', withOption({ cache: '30000' })],
    ['cache true', 'cache', withOption({ cache: true })],
    ['retry as a string', 'retry', withOption({ retry: '5' })],
    ['retry as a list', 'retry', withOption({ retry: [3] })],
    ['retry.backoff as a string', 'retry.backoff', withOption({ retry: { backoff: 'x' } })],
    ['retry.backoff false', 'retry.backoff', withOption({ retry: { backoff: false } })],
    ['retry.retryAfter as a number', 'retry.retryAfter', withOption({ retry: { retryAfter: 5 } })],
    ['retry.retryAfter true', 'retry.retryAfter', withOption({ retry: { retryAfter: true } })],
    ['retry.budget as a string', 'retry.budget', withOption({ retry: { budget: 'x' } })],
    ['retry.budget true', 'retry.budget', withOption({ retry: { budget: true } })],
    ['timeout as a list', 'timeout', withOption({ timeout: [] })],
    ['hooks as a number', 'hooks', withOption({ hooks: 5 })],
    ['hooks as a string', 'hooks', withOption({ hooks: 'abc' })],
    [
      'a shared concurrency without a finite limit',
      'throttle.shared.concurrency',
      withOption({ throttle: { concurrency: Infinity, shared: { concurrency: true } } }),
    ],
  ])('refuses %s, naming `%s`', (_label, field, config) => {
    const error = configFailure(config);
    expect(error.field).toBe(field);
    expect(error.message).toContain(`\`${field}\``);
  });

  it('refuses a policy value of another kind, naming the field (idempotency: retry(2) is no key)', () => {
    for (const [field, value] of [
      ['idempotency', retry(2)],
      ['retry', circuit()],
      ['circuit', throttle({ concurrency: 1 })],
      ['throttle', idempotency()],
    ] as const) {
      const error = configFailure(withOption({ method: 'POST', [field]: value }));
      expect(error.field).toBe(field);
      expect(error.message).toMatch(/is the value of \w+\(…\), not of \w+\(…\)/);
    }
  });

  it('takes throttle.concurrency Infinity, its documented default (no limit)', () => {
    const open = stitch(withOption({ throttle: { concurrency: Infinity, rate: '5/s' } }) as StitchConfig);
    expect(open.definition.throttle).toMatchObject({ concurrency: Infinity, rate: { count: 5, per: 1_000 } });
  });

  it('takes a hook left undefined, as its type allows (an optional prop forwarded as it is)', () => {
    const quiet = stitch(withOption({ hooks: { onError: undefined, onRetry: () => {} } }) as StitchConfig);
    expect(typeof quiet.definition.hooks.onRetry).toBe('function');
  });

  it('names the stitch in the error once it has a name', () => {
    const error = configFailure(withOption({ retry: { attempts: 0 } }));
    expect(error.stitch).toBe('getUser');
    expect(error.message).toMatch(/^stitch 'getUser': `retry.attempts`/);
  });

  it('joins baseUrl and url keeping the base path, refuses other schemes and absolute url with baseUrl', () => {
    const v1 = stitch({ name: 'v1', url: 'users/{id}', baseUrl: 'https://api.example.com/v1/' });
    expect(v1.definition.url).toBe('https://api.example.com/v1/users/{id}');
    expect(() => stitch({ name: 'file', url: 'file:///etc/passwd' })).toThrow(
      expect.objectContaining({ field: 'url' }),
    );
    expect(() => stitch({ name: 'abs', url: 'https://a.example/x', baseUrl: 'https://b.example' })).toThrow(
      expect.objectContaining({ field: 'url' }),
    );
    expect(() => stitch({ name: 'empty-base', url: '/x', baseUrl: '' })).toThrow(
      expect.objectContaining({ field: 'baseUrl' }),
    );
  });

  it("puts a baseUrl's query after the joined path, before the url's own; refuses a fragment", () => {
    const azure = (url: string) =>
      stitch({ name: 'azure', url, baseUrl: 'https://api.example.com/v1/?api-version=2' }).definition.url;
    expect(azure('users/{id}')).toBe('https://api.example.com/v1/users/{id}?api-version=2');
    expect(azure('/users?expand={what}')).toBe(
      'https://api.example.com/v1/users?api-version=2&expand={what}',
    );
    expect(azure('users#top')).toBe('https://api.example.com/v1/users?api-version=2#top');
    expect(() => stitch({ name: 'frag', url: 'x', baseUrl: 'https://api.example.com/v1#top' })).toThrow(
      expect.objectContaining({ field: 'baseUrl' }),
    );
  });

  it('accepts a relative url with a baseUrl, and a zod schema as output', () => {
    const User = z.object({ id: z.number() });
    const getUser = stitch({
      name: 'getUser',
      url: '/users/{id}',
      baseUrl: 'https://api.example.com',
      output: User,
    });
    expect(getUser.definition.url).toBe('https://api.example.com/users/{id}');
    expect(getUser.definition.output).toBe(User);
  });
});

describe('stitch(): a misspelt or unknown option is refused, not dropped', () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    ['a top-level typo', { retires: 3 }, 'retires', 'retry'],
    ["TanStack's name for cache.ttl", { cache: { staleTime: 1_000 } }, 'cache.staleTime', 'ttl'],
    ['a hook typo', { hooks: { onEror() {} } }, 'hooks.onEror', 'onError'],
    ['a retry typo', { retry: { attemps: 2 } }, 'retry.attemps', 'attempts'],
    ['a backoff typo', { retry: { backoff: { bse: 1 } } }, 'retry.backoff.bse', 'base'],
    ['a retry budget typo', { retry: { budget: { ratoi: 0.5 } } }, 'retry.budget.ratoi', 'ratio'],
    ['a retryAfter typo', { retry: { retryAfter: { maximum: 1 } } }, 'retry.retryAfter.maximum', 'max'],
    ['a timeout typo', { timeout: { totla: 5 } }, 'timeout.totla', 'total'],
    ['a circuit typo', { circuit: { cooldwon: 5 } }, 'circuit.cooldwon', 'cooldown'],
    ['a circuit window typo', { circuit: { window: { min: 3 } } }, 'circuit.window.min', 'minimum'],
    ['a throttle typo', { throttle: { concurrent: 2 } }, 'throttle.concurrent', 'concurrency'],
    [
      'a rate object typo',
      { throttle: { rate: { count: 2, per: 1_000, burst: 9 } } },
      'throttle.rate.burst',
      'per',
    ],
    [
      'a shared throttle typo',
      { throttle: { rate: '1/s', shared: { rates: true } } },
      'throttle.shared.rates',
      'rate',
    ],
    [
      'an idempotency typo',
      { method: 'POST', idempotency: { keyof: () => 'k' } },
      'idempotency.keyof',
      'keyOf',
    ],
  ])('%s', (_label, patch, field, hint) => {
    const error = configFailure(withOption(patch));
    expect(error.field).toBe(field);
    expect(error.message).toContain(`\`${field}\` is not an option`);
    // It lists the options there are, the one meant among them.
    expect(error.message).toMatch(new RegExp(`is not an option \\(.*\\b${hint}\\b.*\\)$`));
  });

  it('refuses a call option it does not have: a misspelt idempotencyKey would send a minted key', async () => {
    const fetch = vi.fn(async () => Response.json({}));
    const engine = createEngine({ fetch });
    const pay = stitch({
      name: 'pay',
      method: 'POST',
      url: 'https://api.example.com/pay',
      idempotency: true,
    });
    const failure = await pay({ body: {} }, { engine, idempotencykey: 'order-1' } as never).safe();
    expect(failure.error).toMatchObject({ kind: 'config', field: 'idempotencykey', requests: 0 });
    expect(failure.error?.message).toContain('is not an option (signal, engine, idempotencyKey');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('takes hooks given as the methods of an object (a class instance), as it takes own functions', async () => {
    const seen: string[] = [];
    class Logger {
      onRequest() {
        seen.push('request');
      }
    }
    const fetch = vi.fn(async () => Response.json({}));
    const get = stitch({ name: 'logged', url: 'https://api.example.com/logged', hooks: new Logger() });
    await get(undefined, { engine: createEngine({ fetch }) });
    expect(seen).toEqual(['request']);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('refuses null as a policy value as it does null as options: the same field and message', () => {
    for (const [name, value] of [
      ['retry', retry(null as never)],
      ['circuit', circuit(null as never)],
      ['throttle', throttle(null as never)],
      ['idempotency', idempotency(null as never)],
    ] as const) {
      const method = name === 'idempotency' ? 'POST' : 'GET';
      const asValue = configFailure(withOption({ method, [name]: value }));
      const asOptions = configFailure(withOption({ method, [name]: null }));
      expect(asValue).toMatchObject({ field: name, message: asOptions.message });
    }
  });

  it('refuses the same misspelling in a policy value', () => {
    for (const [config, field] of [
      [{ retry: retry({ atempts: 2 } as never) }, 'retry.atempts'],
      [{ circuit: circuit({ failure: 2 } as never) }, 'circuit.failure'],
      [{ throttle: throttle({ concurency: 2 } as never) }, 'throttle.concurency'],
      [{ method: 'POST', idempotency: idempotency({ header: 'K', tll: 5 } as never) }, 'idempotency.tll'],
    ] as const) {
      expect(configFailure(withOption(config))).toMatchObject({ field });
    }
  });
});

describe('stitch(): defaults', () => {
  it('tells a read from a write by its kind, not by whether it has a cache policy', () => {
    expect(stitch({ name: 'get', url: URL_ }).definition.kind).toBe('read');
    expect(stitch({ name: 'head', method: 'HEAD', url: URL_ }).definition.kind).toBe('read');
    expect(stitch({ name: 'uncached', url: URL_, cache: false }).definition.kind).toBe('read');
    expect(stitch({ name: 'post', method: 'POST', url: URL_ }).definition.kind).toBe('write');
  });

  it('fills in every default for a read', () => {
    const { definition } = stitch({ name: 'getUser', url: URL_ });
    expect(definition.method).toBe('GET');
    expect(definition.coalesce).toBe(true);
    expect(definition.responseType).toBe('json');
    expect(definition.maxBodyBytes).toBe(10 * 1024 * 1024);
    expect(definition.retry.plain.attempts).toBe(3);
    expect(definition.retry.keyed.attempts).toBe(3);
    expect(definition.timeout).toEqual({ each: undefined, total: undefined });
    expect(definition.circuit).toMatchObject({ failures: 5, cooldown: 30_000 });
    expect(definition.throttle).toBeUndefined();
    expect(definition.idempotency).toBeUndefined();
    expect(definition.output).toBeUndefined();
    expect(definition.hooks).toEqual({});
  });

  it('coalesces HEAD by default, and honours coalesce: false on a read', () => {
    expect(stitch({ name: 'h', method: 'HEAD', url: URL_ }).definition.coalesce).toBe(true);
    expect(stitch({ name: 'g', url: URL_, coalesce: false }).definition.coalesce).toBe(false);
  });

  it('does not coalesce or retry a write without a key, but retries it with one', () => {
    const { definition } = stitch({ name: 'charge', method: 'POST', url: 'https://api.example.com/charges' });
    expect(definition.coalesce).toBe(false);
    expect(definition.retry.plain.attempts).toBe(1);
    expect(definition.retry.keyed.attempts).toBe(3);
  });

  it('keeps the configured attempts for keyed writes only', () => {
    const { definition } = stitch({
      name: 'charge',
      method: 'POST',
      url: 'https://api.example.com/c',
      retry: 5,
    });
    expect(definition.retry.plain.attempts).toBe(1);
    expect(definition.retry.keyed.attempts).toBe(5);
    expect(stitch({ name: 'g', url: URL_, retry: false }).definition.retry.plain.attempts).toBe(1);
  });

  it('normalizes a number timeout to total, and turns the circuit off with false', () => {
    const { definition } = stitch({ name: 'g', url: URL_, timeout: 5_000, circuit: false });
    expect(definition.timeout).toEqual({ each: undefined, total: 5_000 });
    expect(definition.circuit).toBeUndefined();
  });

  it('turns headers into a Headers object', () => {
    const { definition } = stitch({ name: 'g', url: URL_, headers: { 'X-Client': 'stitch' } });
    expect(definition.headers).toBeInstanceOf(Headers);
    expect(definition.headers.get('x-client')).toBe('stitch');
  });
});

describe('stitch(): the callable', () => {
  it('is named after the stitch and exposes its frozen definition', () => {
    const getUser = stitch({ name: 'getUser', url: URL_ });
    expect(getUser.name).toBe('getUser');
    expect(typeof getUser).toBe('function');
    expect(getUser.definition.name).toBe('getUser');
    expect(getUser.definition.url).toBe(URL_);
    expect(Object.isFrozen(getUser.definition)).toBe(true);
  });

  it('hands its definition, the input and the options to the engine it is given', () => {
    const getUser = stitch({ name: 'getUser', url: URL_ });
    const run = {} as StitchRun<unknown>;
    const call = vi.fn(() => run);
    const engine = { call } as unknown as StitchEngineLike;
    const input = { params: { id: 7 } };
    const options = { engine, idempotencyKey: 'k' };
    expect(getUser(input, options)).toBe(run);
    expect(call).toHaveBeenCalledTimes(1);
    expect(call).toHaveBeenCalledWith(getUser.definition, input, options);
  });
});
