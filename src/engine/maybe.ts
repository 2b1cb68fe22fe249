/**
 * A value now or later. The engine's own memory store answers at once and a networked store
 * later: code written over `Maybe` takes no promise, and no microtask, on the in-memory path.
 */
export type Maybe<T> = T | Promise<T>;

/** Whether `value` is a promise (or any thenable) rather than the value itself. */
export const isPending = <T>(value: Maybe<T>): value is Promise<T> =>
  typeof (value as { then?: unknown } | null)?.then === 'function';

/** `next(value)`: now when `value` is here, else once it arrives (a rejection passes through). */
export const andThen = <T, U>(value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> =>
  isPending(value) ? value.then(next) : next(value);
