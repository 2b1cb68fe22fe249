/**
 * `engine.onInvalidate(listener)`: each invalidation hands its listeners a test of the keys it
 * hits, whether the cache holds them or not, so state kept outside the cache (infinite pages)
 * can refetch as the cache's readers do.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, type StitchInput, stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';

interface ListInput extends StitchInput {
  query: { list: string };
}

const listStitch = () =>
  stitch<string[], ListInput>({ name: uniqueKey('list'), url: 'http://127.0.0.1:9/list' });

describe('engine.onInvalidate', () => {
  it('hears every invalidation with a test of the keys it hits, until it unsubscribes', () => {
    const engine = createEngine();
    const list = listStitch();
    const other = listStitch();
    const a = engine.keyOf(list, { query: { list: 'a' } }) as string;
    const b = engine.keyOf(list, { query: { list: 'b' } }) as string;
    const heard: Array<(key: string) => boolean> = [];
    const off = engine.onInvalidate((matches) => heard.push(matches));

    engine.invalidate(list);
    engine.invalidate(list, { query: { list: 'a' } });
    expect(heard).toHaveLength(2);
    expect([heard[0]?.(a), heard[0]?.(b), heard[0]?.(engine.keyOf(other, undefined) as string)]).toEqual([
      true,
      true,
      false,
    ]);
    expect([heard[1]?.(a), heard[1]?.(b)]).toEqual([true, false]);

    off();
    engine.invalidate(list);
    expect(heard).toHaveLength(2);
  });

  it('a listener that throws neither fails the invalidation nor keeps the others from hearing it', () => {
    const engine = createEngine();
    const list = listStitch();
    let heard = 0;
    engine.onInvalidate(() => {
      throw new Error('bug in a listener');
    });
    engine.onInvalidate(() => void heard++);
    expect(() => engine.invalidate(list)).not.toThrow();
    expect(heard).toBe(1);
  });

  it('refuses a listener that is not a function, naming it', () => {
    expect(() => createEngine().onInvalidate('refetch' as never)).toThrow(
      expect.objectContaining({ kind: 'config', field: 'listener' }),
    );
  });
});
