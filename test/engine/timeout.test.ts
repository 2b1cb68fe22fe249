import { describe, expect, it } from 'vitest';
import { isStitchError } from '../../src/engine/errors';
import { normalizeTimeout } from '../../src/engine/timeout';
import { thrownBy } from '../helpers/throws';

describe('normalizeTimeout', () => {
  it('refuses a value that is neither a number nor { each, total }', () => {
    for (const bad of ['5000', true, null]) {
      expect(() => normalizeTimeout(bad as never, 's')).toThrow(
        expect.objectContaining({ kind: 'config', field: 'timeout' }),
      );
    }
  });

  it('reads a number as total and fills in undefined for unbounded', () => {
    expect(normalizeTimeout(5_000, 's')).toEqual({ each: undefined, total: 5_000 });
    expect(normalizeTimeout({ each: 1_000, total: 4_000 }, 's')).toEqual({ each: 1_000, total: 4_000 });
    expect(normalizeTimeout({ each: 1_000 }, 's')).toEqual({ each: 1_000, total: undefined });
    expect(normalizeTimeout(undefined, 's')).toEqual({ each: undefined, total: undefined });
  });

  it('takes Infinity as no bound, and any finite length as it is', () => {
    expect(normalizeTimeout(Number.POSITIVE_INFINITY, 's')).toEqual({ each: undefined, total: undefined });
    const month = 30 * 24 * 3_600_000;
    expect(normalizeTimeout({ each: Number.POSITIVE_INFINITY, total: month }, 's')).toEqual({
      each: undefined,
      total: month,
    });
  });

  it.each<[unknown, string]>([
    [0, 'timeout'],
    [-5, 'timeout'],
    [Number.NaN, 'timeout'],
    ['30000', 'timeout'],
    [{ each: 0 }, 'timeout.each'],
    [{ each: -1, total: 10 }, 'timeout.each'],
    [{ total: Number.NaN }, 'timeout.total'],
    [{ each: 10, total: '1s' }, 'timeout.total'],
  ])('refuses %s, naming %s', (value, field) => {
    const error = thrownBy(() => normalizeTimeout(value as number, 'getUser'));
    expect(isStitchError(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'config', field, stitch: 'getUser' });
  });
});
