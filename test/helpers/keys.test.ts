import { expect, it } from 'vitest';
import { uniqueKey } from './keys';

it('uniqueKey never repeats and keeps its prefix', () => {
  const keys = Array.from({ length: 100 }, () => uniqueKey('search'));
  expect(new Set(keys).size).toBe(100);
  expect(keys.every((key) => key.startsWith('search-'))).toBe(true);
});
