/** Whether `value` is a record: a plain object (not a list, Map, URLSearchParams, Date, ...). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  Object.prototype.toString.call(value) === '[object Object]';

/** Whether `value` is an object with each of `names` as a method (whatever its class or realm). */
export const hasMethods = (value: unknown, ...names: string[]): boolean =>
  typeof value === 'object' &&
  value !== null &&
  names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
