import { describe, expect, it } from 'vitest';
import { lastOne } from '../../src/engine/memo';

describe('lastOne', () => {
  it('computes once for calls in a row with one key, again when the key changes', () => {
    const seen: string[] = [];
    const upper = lastOne((key) => {
      seen.push(key);
      return key.toUpperCase();
    });
    expect([upper('a'), upper('a'), upper('b'), upper('a')]).toEqual(['A', 'A', 'B', 'A']);
    expect(seen).toEqual(['a', 'b', 'a']);
  });
});
