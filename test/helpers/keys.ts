let counter = 0;

/**
 * A name no other test in this process uses, so stitches, cache keys and breaker keys never
 * collide between tests that share an engine or a module.
 */
export function uniqueKey(prefix = 'key'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}
