/**
 * The hook's key memo: `engine.keyOf` is asked again only when the input's content (or the
 * stitch) changed, and the memo never hands out a key the engine would not give for the input.
 */
import { describe, expect, it, vi } from 'vitest';
import { createEngine, type StitchInput, stitch } from '../../src/index';
import { createKeyMemo } from '../../src/react/inputKey';

const fetchNever = () => new Promise<Response>(() => {});

function memoOn() {
  const engine = createEngine({ fetch: fetchNever });
  const keyOf = vi.spyOn(engine, 'keyOf');
  return { engine, keyOf, memo: createKeyMemo(engine) };
}

const search = stitch<unknown, StitchInput>({ name: 'memo-search', url: 'https://example.test/search' });

describe('createKeyMemo', () => {
  it('reuses the key for a new object with the same content, fields holding undefined included', () => {
    const { keyOf, memo } = memoOn();
    const first = memo(search, { query: { q: 'ada', page: 1 } });
    expect(memo(search, { query: { page: 1, q: 'ada', extra: undefined } })).toBe(first);
    expect(keyOf).toHaveBeenCalledTimes(1);
  });

  it('asks the engine again when the content changed, in place or in a new object', () => {
    const { engine, memo } = memoOn();
    const input = { query: { q: 'ada', tags: ['a', 'b'] } };
    memo(search, input);
    input.query.tags.push('c');
    expect(memo(search, input)).toBe(engine.keyOf(search, { query: { q: 'ada', tags: ['a', 'b', 'c'] } }));
    expect(memo(search, { query: { q: 'bob', tags: ['a', 'b', 'c'] } })).toBe(
      engine.keyOf(search, { query: { q: 'bob', tags: ['a', 'b', 'c'] } }),
    );
    // An array and a record with the same entries are different inputs.
    memo(search, { body: ['a', 'b'] });
    expect(memo(search, { body: { 0: 'a', 1: 'b' } })).toBe(
      engine.keyOf(search, { body: { 0: 'a', 1: 'b' } }),
    );
  });

  it('asks again for another stitch, for an object that is not a plain record, and always for a scoped stitch', () => {
    const { keyOf, memo } = memoOn();
    const other = stitch<unknown, StitchInput>({ name: 'memo-other', url: 'https://example.test/other' });
    memo(search, { query: { q: 'ada' } });
    memo(other, { query: { q: 'ada' } });
    expect(keyOf).toHaveBeenCalledTimes(2);

    const at = { toJSON: () => 'now' };
    memo(search, { body: { since: new Date(0), at } });
    memo(search, { body: { since: new Date(0), at } });
    expect(keyOf).toHaveBeenCalledTimes(4);

    let principal = 'ada';
    const scoped = stitch<unknown, StitchInput>({
      name: 'memo-scoped',
      url: 'https://example.test/me',
      cache: { scope: () => principal },
    });
    const before = memo(scoped, { query: { q: 'me' } });
    principal = 'bob';
    expect(memo(scoped, { query: { q: 'me' } })).not.toBe(before);
  });
});

describe('createKeyMemo shared by the hooks of one engine', () => {
  it('computes the key of one input once for many hooks, and once per engine', () => {
    const { engine, keyOf, memo } = memoOn();
    const key = memo(search, { query: { q: 'ada' } });
    const others = Array.from({ length: 3 }, () => createKeyMemo(engine));
    for (const other of others) expect(other(search, { query: { q: 'ada' } })).toBe(key);
    expect(keyOf).toHaveBeenCalledTimes(1);
    // A hook moving to another input does not change what the others remember as their own.
    expect(others[0]?.(search, { query: { q: 'bob' } })).not.toBe(key);
    expect(memo(search, { query: { q: 'ada' } })).toBe(key);
    expect(keyOf).toHaveBeenCalledTimes(2);

    const elsewhere = memoOn();
    elsewhere.memo(search, { query: { q: 'ada' } });
    expect(elsewhere.keyOf).toHaveBeenCalledTimes(1);
  });
});
