/** Whether `value` is a record: a plain object (not a list, Map, URLSearchParams, Date, ...). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  Object.prototype.toString.call(value) === '[object Object]';
