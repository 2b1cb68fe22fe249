import { expect } from 'vitest';

/**
 * What `fn` throws, to assert on it field by field; fails the test if `fn` returns instead. For a
 * synchronous throw only (a config check, say): a rejected promise is `rejection` in `./runs.ts`.
 */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return expect.fail('expected it to throw, it returned');
}
