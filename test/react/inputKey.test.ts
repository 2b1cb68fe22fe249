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
    expect(memo(search, { query: { q: 'bob', tags: { 0: 'a', 1: 'b', 2: 'c' } } })).toBe(
      engine.keyOf(search, { query: { q: 'bob', tags: { 0: 'a', 1: 'b', 2: 'c' } } }),
    );
  });

  it('asks again for another stitch, for an object that is not a plain record, and always for a scoped stitch', () => {
    const { keyOf, memo } = memoOn();
    const other = stitch<unknown, StitchInput>({ name: 'memo-other', url: 'https://example.test/other' });
    memo(search, { query: { q: 'ada' } });
    memo(other, { query: { q: 'ada' } });
    expect(keyOf).toHaveBeenCalledTimes(2);

    const at = { toJSON: () => 'now' };
    memo(search, { query: { since: new Date(0), at } });
    memo(search, { query: { since: new Date(0), at } });
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
