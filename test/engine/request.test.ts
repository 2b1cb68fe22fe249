import { describe, expect, it } from 'vitest';
import { isStitchError, type StitchError } from '../../src/engine/errors';
import { buildRequest, placeholders, type StitchInput } from '../../src/engine/request';
import { thrownBy } from '../helpers/throws';

const BASE = 'https://api.example.com';

/** Builds a request for `stitch 'test'` with no default headers unless given. */
function build(template: string, input?: StitchInput, method = 'GET', defaults = new Headers()) {
  return buildRequest('test', method, template, defaults, input);
}

/** The StitchError `fn` throws, failing the test if it throws something else or nothing. */
function thrown(fn: () => unknown): StitchError {
  const error = thrownBy(fn);
  if (!isStitchError(error)) throw error;
  return error;
}

describe('placeholders', () => {
  it('lists the {name} placeholders of a template in order', () => {
    expect(placeholders(`${BASE}/orgs/{org}/users/{id}`)).toEqual(['org', 'id']);
    expect(placeholders(`${BASE}/users`)).toEqual([]);
  });
});

describe('buildRequest: path parameters', () => {
  it('fills placeholders, stringifying numbers and booleans', () => {
    const { url } = build(`${BASE}/orgs/{org}/users/{id}/{flag}`, {
      params: { org: 'acme', id: 7, flag: true },
    });
    expect(url).toBe(`${BASE}/orgs/acme/users/7/true`);
  });

  it('percent-encodes each value as a single path segment', () => {
    const { url } = build(`${BASE}/files/{name}/meta`, { params: { name: 'a b/c?d#e' } });
    expect(url).toBe(`${BASE}/files/a%20b%2Fc%3Fd%23e/meta`);
    const parsed = new URL(url);
    // The slash, '?' and '#' stayed inside the segment: no extra segment, no query, no fragment.
    expect(parsed.pathname.split('/')).toEqual(['', 'files', 'a%20b%2Fc%3Fd%23e', 'meta']);
    expect(parsed.search).toBe('');
    expect(parsed.hash).toBe('');
  });

  it('percent-encodes unicode as UTF-8', () => {
    const { url } = build(`${BASE}/users/{name}`, { params: { name: 'Zoë 🙂' } });
    expect(url).toBe(`${BASE}/users/Zo%C3%AB%20%F0%9F%99%82`);
    expect(decodeURIComponent(new URL(url).pathname.split('/')[2] as string)).toBe('Zoë 🙂');
  });

  it('keeps an encoded dot sequence literal instead of resolving it', () => {
    const { url } = build(`${BASE}/users/{id}/posts`, { params: { id: '%2e%2e' } });
    expect(new URL(url).pathname).toBe('/users/%252e%252e/posts');
  });

  it.each(['.', '..'])("refuses '%s' as a value, naming params.id", (value) => {
    const error = thrown(() => build(`${BASE}/users/{id}/posts`, { params: { id: value } }));
    expect(error.kind).toBe('config');
    expect(error.field).toBe('params.id');
    expect(error.stitch).toBe('test');
    expect(error.message).toContain('params.id');
  });

  it('reports a missing param by its field name', () => {
    const error = thrown(() => build(`${BASE}/things/{x}`, { params: { y: 1 } }));
    expect(error.kind).toBe('config');
    expect(error.field).toBe('params.x');
    expect(thrown(() => build(`${BASE}/things/{x}`)).field).toBe('params.x');
    expect(thrown(() => build(`${BASE}/things/{x}`, {})).field).toBe('params.x');
  });

  it.each(['toString', 'constructor', 'hasOwnProperty', '__proto__', 'valueOf'])(
    'does not let Object.prototype satisfy a missing {%s}',
    (name) => {
      const error = thrown(() => build(`${BASE}/things/{${name}}`, { params: {} }));
      expect(error.field).toBe(`params.${name}`);
    },
  );

  it('uses an own __proto__ param as a plain value', () => {
    const params = JSON.parse('{"__proto__": "own"}') as Record<string, string>;
    expect(build(`${BASE}/things/{__proto__}`, { params }).url).toBe(`${BASE}/things/own`);
  });
});

describe('buildRequest: prototype pollution', () => {
  it('leaves Object.prototype untouched by __proto__ and constructor keys in params and query', () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const params = JSON.parse('{"__proto__": "polluted", "id": "1"}') as Record<string, string>;
    const query = JSON.parse(
      '{"__proto__": "polluted", "constructor": "polluted", "q": "ok"}',
    ) as StitchInput['query'];
    // An object under such a key is refused like any object value (it would go out as [object Object]).
    const nested = JSON.parse('{"__proto__": {"polluted": "yes"}, "q": "ok"}') as StitchInput['query'];
    expect(thrown(() => build(`${BASE}/users/1`, { query: nested })).field).toBe('query.__proto__');
    const headers = JSON.parse('{"__proto__": "x", "x-ok": "1"}') as Record<string, string>;
    const request = build(`${BASE}/users/{id}`, { params, query, headers });
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(new URL(request.url).searchParams.get('q')).toBe('ok');
    expect(request.headers.get('x-ok')).toBe('1');
  });
});

describe('buildRequest: query', () => {
  it('appends scalars, repeats arrays and leaves out null and undefined', () => {
    const { url } = build(`${BASE}/search`, {
      query: {
        q: 'ada lovelace',
        page: 2,
        exact: false,
        tag: ['a', 'b&c'],
        none: null,
        missing: undefined,
        empty: [],
      },
    });
    const params = new URL(url).searchParams;
    expect(params.get('q')).toBe('ada lovelace');
    expect(params.get('page')).toBe('2');
    expect(params.get('exact')).toBe('false');
    expect(params.getAll('tag')).toEqual(['a', 'b&c']);
    expect(params.has('none')).toBe(false);
    expect(params.has('missing')).toBe(false);
    expect(params.has('empty')).toBe(false);
  });

  it('serialises the query exactly as URLSearchParams does, a lone surrogate included', () => {
    const values = ['a b+c&d=e', "!'()~*-._", 'ünï 😀', '/?#[]@$,;:', 'lone \ud800 half'];
    for (const value of values) {
      const { url } = build(`${BASE}/search`, { query: { [value]: value } });
      expect(url).toBe(`${BASE}/search?${new URLSearchParams([[value, value]])}`);
    }
  });

  it("keeps a query that is part of the template and appends the input's after it", () => {
    const { url } = build(`${BASE}/search?v=1`, { query: { q: 'x' } });
    expect(url).toBe(`${BASE}/search?v=1&q=x`);
  });

  it("sends the template's query as written when the input adds one: a Latin-1 escape, a bare flag", () => {
    const template = `${BASE}/legacy?q=%E9t%E9&flag,$`;
    expect(build(template, {}).url).toBe(template);
    expect(build(template, { query: { page: 2, q: 'é' } }).url).toBe(`${template}&page=2&q=%C3%A9`);
    expect(build(`${BASE}/a?x=1&#top`, { query: { y: 2 } }).url).toBe(`${BASE}/a?x=1&y=2#top`);
  });
});

describe('buildRequest: the URL as events show it', () => {
  const secret = new Set(['token', 'api_key']);
  const shownOf = (template: string, query: StitchInput['query']) =>
    buildRequest('test', 'GET', template, new Headers(), { query }, secret);

  it('redacts a secret query value in place, keeps the real one in `url` and lists it in `secrets`', () => {
    const request = shownOf(`${BASE}/search`, { q: 'ada', token: 's3cr3t-value', page: 2 });
    expect(request.url).toBe(`${BASE}/search?q=ada&token=s3cr3t-value&page=2`);
    expect(request.shown).toBe(`${BASE}/search?q=ada&token=%5Bredacted%5D&page=2`);
    expect(request.secrets).toEqual(['s3cr3t-value']);
    expect(request.origin).toBe(BASE);
  });

  it('shows a repeated secret name once, where it first was, matching names case-insensitively', () => {
    const request = shownOf(`${BASE}/search`, { Token: ['a', 'b'], q: 'x', API_KEY: 'k' });
    expect(request.shown).toBe(`${BASE}/search?Token=%5Bredacted%5D&q=x&API_KEY=%5Bredacted%5D`);
    expect(request.secrets).toEqual(['a', 'b', 'k']);
  });

  it('redacts a secret carried by the template itself, after the input query is appended', () => {
    const request = shownOf(`${BASE}/search?api_key=k1#top`, { q: 'x' });
    expect(request.url).toBe(`${BASE}/search?api_key=k1&q=x#top`);
    expect(request.shown).toBe(`${BASE}/search?api_key=%5Bredacted%5D&q=x#top`);
    expect(request.secrets).toEqual(['k1']);
  });

  it('shows a URL without secrets as it is sent', () => {
    const request = shownOf(`${BASE}/users`, { q: 'ada lovelace' });
    expect(request.shown).toBe(request.url);
    expect(request.url).toBe(`${BASE}/users?q=ada+lovelace`);
    expect(request.secrets).toEqual([]);
  });
});

describe('buildRequest: body and headers', () => {
  it('sends a plain value as JSON with a JSON content type', () => {
    const request = build(`${BASE}/users`, { body: { name: 'Ada', tags: [1] } }, 'POST');
    expect(request.body).toBe('{"name":"Ada","tags":[1]}');
    expect(request.headers.get('content-type')).toBe('application/json');
    expect(request.method).toBe('POST');
  });

  it('sends an object of a class by its own fields, whatever its tag: only one whose fields JSON cannot see is refused', () => {
    class Money {
      constructor(
        readonly amount: number,
        readonly currency: string,
      ) {}
      get [Symbol.toStringTag]() {
        return 'Money';
      }
    }
    const body = { price: new Money(42, 'EUR'), bytes: new Uint8Array([1]) };
    expect(build(`${BASE}/u`, { body }, 'POST').body).toBe(
      '{"price":{"amount":42,"currency":"EUR"},"bytes":{"0":1}}',
    );
    expect(() => build(`${BASE}/u`, { body: { file: new Blob(['x']) } }, 'POST')).toThrow(
      /body\.file is a Blob, which JSON sends as \{\}/,
    );
    // Its data in #private fields (or prototype getters): JSON sees none of it.
    class Secretive {
      readonly #amount = 42;
      get amount() {
        return this.#amount;
      }
    }
    expect(() => build(`${BASE}/u`, { body: { price: new Secretive() } }, 'POST')).toThrow(
      /body\.price is a Secretive with no fields of its own/,
    );
    // What an object's toJSON gives is what is sent: it must be sendable too.
    const tagged = { toJSON: () => new Map([['a', 1]]) };
    expect(() => build(`${BASE}/u`, { body: { tags: tagged } }, 'POST')).toThrow(
      /body\.tags is a Map, which JSON sends as \{\}/,
    );
    // Nor one whose toJSON gives undefined: the body would be empty.
    expect(() => build(`${BASE}/u`, { body: { toJSON: () => undefined } }, 'POST')).toThrow(
      /body gives undefined from its toJSON/,
    );
    // What toJSON gives is sent as it is (JSON asks once): its own toJSON is not asked, nor judged.
    class Endless {
      toJSON() {
        return new Endless();
      }
    }
    expect(() => build(`${BASE}/u`, { body: { x: new Endless() } }, 'POST')).toThrow(
      /body\.x is a Endless with no fields of its own/,
    );
    // A boxed primitive is sent as the primitive.
    expect(build(`${BASE}/u`, { body: { n: new Number(3), s: new String('') } }, 'POST').body).toBe(
      '{"n":3,"s":""}',
    );
    // An empty plain object, or one without a prototype, is data.
    expect(build(`${BASE}/u`, { body: { a: {}, b: Object.create(null) } }, 'POST').body).toBe(
      '{"a":{},"b":{}}',
    );
  });

  it('keeps a content type the defaults or the input already set for a JSON body', () => {
    const defaults = new Headers({ 'content-type': 'application/vnd.api+json' });
    expect(build(`${BASE}/u`, { body: {} }, 'PUT', defaults).headers.get('content-type')).toBe(
      'application/vnd.api+json',
    );
    const input = { body: {}, headers: { 'Content-Type': 'application/merge-patch+json' } };
    expect(build(`${BASE}/u`, input, 'PATCH', defaults).headers.get('content-type')).toBe(
      'application/merge-patch+json',
    );
  });

  it('passes FormData, strings and URLSearchParams through untouched, without a JSON content type', () => {
    const form = new FormData();
    form.append('file', 'contents');
    const formRequest = build(`${BASE}/upload`, { body: form }, 'POST');
    expect(formRequest.body).toBe(form);
    expect(formRequest.headers.has('content-type')).toBe(false);

    const textRequest = build(`${BASE}/raw`, { body: 'plain text' }, 'POST');
    expect(textRequest.body).toBe('plain text');
    expect(textRequest.headers.has('content-type')).toBe(false);

    const search = new URLSearchParams({ a: '1' });
    const searchRequest = build(`${BASE}/form`, { body: search }, 'POST');
    expect(searchRequest.body).toBe(search);
    expect(searchRequest.headers.has('content-type')).toBe(false);
  });

  it('has no body when the input has none', () => {
    const request = build(`${BASE}/users`, {}, 'POST');
    expect(request.body).toBeUndefined();
    expect(request.headers.has('content-type')).toBe(false);
  });

  it.each(['GET', 'HEAD'])('refuses a body on %s, naming the field', (method) => {
    const error = thrown(() => build(`${BASE}/users`, { body: { a: 1 } }, method));
    expect(error.kind).toBe('config');
    expect(error.field).toBe('body');
    expect(error.message).toContain(method);
  });

  it('lets input headers override defaults without changing the defaults', () => {
    const defaults = new Headers({ 'x-client': 'stitch', accept: 'application/json' });
    const request = build(`${BASE}/u`, { headers: { 'X-Client': 'mine', 'x-extra': '1' } }, 'GET', defaults);
    expect(request.headers.get('x-client')).toBe('mine');
    expect(request.headers.get('accept')).toBe('application/json');
    expect(request.headers.get('x-extra')).toBe('1');
    expect(defaults.get('x-client')).toBe('stitch');
    expect(defaults.has('x-extra')).toBe(false);
  });
});

describe('buildRequest: input that cannot be sent', () => {
  it('refuses an empty or object param, a bad header and a body JSON cannot hold', () => {
    expect(thrown(() => build(`${BASE}/users/{id}`, { params: { id: '' } })).field).toBe('params.id');
    const objectParam = { params: { id: {} as unknown as string } };
    expect(thrown(() => build(`${BASE}/users/{id}`, objectParam)).field).toBe('params.id');
    expect(thrown(() => build(`${BASE}/x`, { headers: { 'bad name': 'v' } })).field).toBe('headers.bad name');
    // A value outside Latin-1 is refused with what a header may hold, not only its CR, LF or NUL.
    expect(thrown(() => build(`${BASE}/x`, { headers: { 'x-city': '東京' } }))).toMatchObject({
      field: 'headers.x-city',
      message: expect.stringContaining('Latin-1'),
    });
    // Any control character but HTAB (Node's fetch would refuse it only as it sends).
    for (const value of ['a\x01b', 'esc\x1b', 'del\x7f', 'cr\rx', 'lf\nx', 'nul\0x']) {
      expect(thrown(() => build(`${BASE}/x`, { headers: { 'x-note': value } })).field).toBe('headers.x-note');
    }
    expect(build(`${BASE}/x`, { headers: { 'x-note': 'tab\tok' } }).headers.get('x-note')).toBe('tab\tok');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(thrown(() => build(`${BASE}/x`, { body: circular }, 'POST')).field).toBe('body');
    expect(thrown(() => build(`${BASE}/x`, { body: { n: 1n } }, 'POST')).field).toBe('body');
  });
});
