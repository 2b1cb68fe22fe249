import { describe, expect, it } from 'vitest';
import { createKeys, isPlainData } from '../../src/engine/keys';

const keys = createKeys(new Set(['authorization', 'x-api-key']));

describe('keyOf', () => {
  it('ignores the order of object keys, at any depth', () => {
    const a = keys.keyOf('s', '', { query: { a: 1, b: 2 }, body: { c: { d: 3, e: 4 } }, params: { id: 7 } });
    const b = keys.keyOf('s', '', { params: { id: 7 }, body: { c: { e: 4, d: 3 } }, query: { b: 2, a: 1 } });
    expect(a).toBe(b);
  });

  it('tells inputs, names and scopes apart', () => {
    const base = keys.keyOf('s', '', { query: { q: 'ada' } });
    expect(keys.keyOf('s', '', { query: { q: 'bob' } })).not.toBe(base);
    expect(keys.keyOf('t', '', { query: { q: 'ada' } })).not.toBe(base);
    expect(keys.keyOf('s', 'user-b', { query: { q: 'ada' } })).not.toBe(base);
    expect(keys.keyOf('s', '', { query: { q: ['ada', 'bob'] } })).not.toBe(base);
  });

  it('never reads an array of pairs as the object it resembles', () => {
    expect(keys.keyOf('s', '', { body: { a: 1 } })).not.toBe(keys.keyOf('s', '', { body: [['a', 1]] }));
  });

  it('tells two Dates apart, by what JSON writes of them (they have no fields of their own)', () => {
    // A call refuses a Date in its query; a key (engine.keyOf, setData) still tells them apart.
    const on = (iso: string) => keys.keyOf('s', '', { query: { from: new Date(iso) as never } });
    expect(on('2020-01-01T00:00:00Z')).not.toBe(on('2024-06-30T00:00:00Z'));
    expect(on('2020-01-01T00:00:00Z')).toBe(on('2020-01-01T00:00:00Z'));
  });

  it('treats an undefined field as absent, a secret one too (it is not hashed into the key)', () => {
    const plain = keys.keyOf('s', '', { query: { q: 'x' } });
    expect(keys.keyOf('s', '', { query: { q: 'x', page: undefined } })).toBe(plain);
    expect(keys.keyOf('s', '', { query: { q: 'x', 'x-api-key': undefined } })).toBe(plain);
  });

  it('keys a query as the request sends it: a null value left out, no query the same as an empty one', () => {
    expect(keys.keyOf('s', '', { query: { q: 'x', page: null, 'x-api-key': null } })).toBe(
      keys.keyOf('s', '', { query: { q: 'x' } }),
    );
    const none = keys.keyOf('s', '', undefined);
    expect(keys.keyOf('s', '', { query: {} })).toBe(none);
    expect(keys.keyOf('s', '', { query: { 'x-api-key': undefined } })).toBe(none);
    expect(keys.keyOf('s', '', { params: {} })).toBe(none);
    // A body's null is data.
    expect(keys.keyOf('s', '', { body: { a: null } })).not.toBe(keys.keyOf('s', '', { body: {} }));
  });

  it('keys a param or query value as the URL reads it: a number or boolean is its text', () => {
    const byId = 'https://api.test/x/{id}';
    expect(keys.keyOf('s', '', { params: { id: 7 } }, byId)).toBe(
      keys.keyOf('s', '', { params: { id: '7' } }, byId),
    );
    expect(keys.keyOf('s', '', { params: { id: 7 } }, byId)).not.toBe(
      keys.keyOf('s', '', { params: { id: 8 } }, byId),
    );
    expect(keys.keyOf('s', '', { query: { a: 1, on: true, ids: [1, 2] } })).toBe(
      keys.keyOf('s', '', { query: { a: '1', on: 'true', ids: ['1', '2'] } }),
    );
    const secret = createKeys(new Set(['api_key']));
    const template = 'https://api.test/x?api_key={key}';
    expect(secret.keyOf('s', '', { params: { key: 42 } }, template)).toBe(
      secret.keyOf('s', '', { params: { key: '42' } }, template),
    );
    // A body is JSON, where 7 and '7' differ.
    expect(keys.keyOf('s', '', { body: { id: 7 } })).not.toBe(keys.keyOf('s', '', { body: { id: '7' } }));
  });

  it('keys a query list as the URL reads it: one item is that item, none is no value', () => {
    const ada = keys.keyOf('s', '', { query: { q: 'ada' } });
    expect(keys.keyOf('s', '', { query: { q: ['ada'] } })).toBe(ada);
    expect(keys.keyOf('s', '', { query: { q: [7] } })).toBe(keys.keyOf('s', '', { query: { q: '7' } }));
    expect(keys.keyOf('s', '', { query: { q: 'ada', tags: [] } })).toBe(ada);
    expect(keys.keyOf('s', '', { query: { tags: [] } })).toBe(keys.keyOf('s', '', undefined));
    // A list the request build refuses keys apart from the value it holds.
    expect(keys.keyOf('s', '', { query: { q: [{ a: 1 }] as never } })).not.toBe(
      keys.keyOf('s', '', { query: { q: { a: 1 } as never } }),
    );
  });

  it('keys only the params the URL template uses, as only those are sent', () => {
    const byId = 'https://api.test/u/{id}';
    const one = keys.keyOf('s', '', { params: { id: 1 } }, byId);
    expect(keys.keyOf('s', '', { params: { id: 1, extra: 'z' } }, byId)).toBe(one);
    expect(keys.keyOf('s', '', { params: { id: 1, extra: null } as never }, byId)).toBe(one);
    expect(keys.keyOf('s', '', { params: { extra: 'z' } }, 'https://api.test/u')).toBe(
      keys.keyOf('s', '', undefined, 'https://api.test/u'),
    );
    // One the request build refuses (not a scalar) keys apart, so it never joins a good call.
    expect(keys.keyOf('s', '', { params: { id: 1, extra: { a: 1 } } as never }, byId)).not.toBe(one);
  });

  it('never keeps a secret header in clear, yet tells principals apart', () => {
    const alice = keys.keyOf('s', '', { headers: { Authorization: 'Bearer alice-token' } });
    const bob = keys.keyOf('s', '', { headers: { authorization: 'Bearer bob-token' } });
    expect(alice).not.toContain('alice-token');
    expect(alice).not.toBe(bob);
    expect(keys.keyOf('s', '', { headers: { 'X-Api-Key': 'key-s3cret' } })).not.toContain('key-s3cret');
    expect(keys.keyOf('s', '', { headers: { accept: 'text/csv' } })).toContain('text/csv');
  });

  it('hashes with a per-engine salt, so a key from one engine reveals nothing to another', () => {
    const other = createKeys(new Set(['authorization']));
    const input = { headers: { authorization: 'same' } };
    expect(keys.keyOf('s', '', input)).not.toBe(other.keyOf('s', '', input));
  });

  it('keeps __proto__ and constructor keys as data, polluting nothing', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}');
    const key = keys.keyOf('s', '', { query: hostile, body: hostile });
    expect(key).toContain('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(key).not.toBe(keys.keyOf('s', '', {}));
  });
});

describe('belongsTo', () => {
  it('matches the keys of one stitch name only', () => {
    expect(keys.belongsTo(keys.keyOf('users', '', {}), 'users')).toBe(true);
    expect(keys.belongsTo(keys.keyOf('users2', '', {}), 'users')).toBe(false);
    expect(keys.belongsTo(keys.keyOf('user', '', {}), 'users')).toBe(false);
  });
});

describe('isPlainData', () => {
  it('accepts primitives, arrays and plain objects, and nothing a key could not describe', () => {
    expect(isPlainData({ a: [1, 'x', null, { b: true }] })).toBe(true);
    expect(isPlainData(Object.create(null))).toBe(true);
    for (const opaque of [
      new FormData(),
      new Blob(['x']),
      new Date(0),
      new URLSearchParams('a=1'),
      { f: () => 1 },
    ]) {
      expect(isPlainData(opaque)).toBe(false);
    }
  });
});
