/**
 * `compute` remembering its last answer: calls in a row with one argument (every reader of one
 * key, the throttle then the breaker of one call) work it out once. One entry, so nothing grows.
 */
export function lastOne<T>(compute: (key: string) => T): (key: string) => T {
  let lastKey: string | undefined;
  let lastValue!: T;
  return (key) => {
    if (key !== lastKey) {
      lastValue = compute(key);
      lastKey = key;
    }
    return lastValue;
  };
}
