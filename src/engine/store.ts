/**
 * Where the engine keeps state that may outlive one process: breaker state, idempotency records,
 * cache entries. The interface is async so a networked backend (Redis, say) fits without change;
 * `update` is the one atomic read-modify-write that breaker transitions rely on. The deadlines
 * the engine writes (a breaker's `until`, a lease's expiry) are on its own clock: a store of
 * your own is for one process; `stitch-fetch/redis` times shared state on the Redis server.
 */

import { monotonicNow } from './clock';

/** An async key-value store with per-entry time to live. */
export interface Store {
  /** The value of `key`, or `undefined` when it is absent or its time to live has run out. */
  get<T>(key: string): Promise<T | undefined>;
  /** Stores `value`; with `ttl` (ms), the entry disappears after that long. */
  set<T>(key: string, value: T, ttl?: number): Promise<void>;
  /** Removes `key`; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Atomically replaces the value of `key` with `transition(current)` and resolves the new value.
   * Returning `undefined` deletes the entry. `transition` must be pure: a backend may call it
   * more than once when it retries a contended write.
   */
  update<T>(
    key: string,
    transition: (current: T | undefined) => T | undefined,
    ttl?: number,
  ): Promise<T | undefined>;
}

interface Entry {
  value: unknown;
  expires: number;
}

/** The memory store's operations, answered at once: what the engine keeps its own state in. */
export interface LocalStore {
  get<T>(key: string): T | undefined;
  set<T>(key: string, value: T, ttl?: number): void;
  delete(key: string): void;
  update<T>(key: string, transition: (current: T | undefined) => T | undefined, ttl?: number): T | undefined;
}

/**
 * A `Map` in this process, answering at once. Expiry is checked on read against `now`, so it
 * needs no timer and follows an injected clock.
 */
export function createLocalStore(now: () => number): LocalStore {
  const entries = new Map<string, Entry>();
  let writes = 0;

  const read = (key: string): unknown => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.value;
  };

  const write = (key: string, value: unknown, ttl: number | undefined) => {
    // Entries nobody reads again (idempotency records, say) must not pile up: sweep now and then.
    if (++writes % 1_024 === 0) {
      for (const [stale, entry] of entries) if (entry.expires <= now()) entries.delete(stale);
    }
    if (value === undefined) entries.delete(key);
    else entries.set(key, { value, expires: ttl === undefined ? Number.POSITIVE_INFINITY : now() + ttl });
  };

  return {
    get: <T>(key: string) => read(key) as T | undefined,
    set: write,
    delete: (key) => {
      entries.delete(key);
    },
    update: <T>(key: string, transition: (current: T | undefined) => T | undefined, ttl?: number) => {
      const next = transition(read(key) as T | undefined);
      write(key, next, ttl);
      return next;
    },
  };
}

/**
 * A store in a `Map` in this process, behind the asynchronous `Store` interface (the engine's own
 * default is the same `Map`, answering at once). Expiry is checked on read against `now`, so it
 * needs no timer; a wall-clock step never moves it. With an injected clock, pass its `now`.
 * @param now the time source for TTLs, in ms. @default this process's monotonic clock (the real clock's `now`)
 */
export function createMemoryStore(now: () => number = monotonicNow): Store {
  const local = createLocalStore(now);
  return {
    get: async (key) => local.get(key),
    set: async (key, value, ttl) => local.set(key, value, ttl),
    delete: async (key) => local.delete(key),
    update: async (key, transition, ttl) => local.update(key, transition, ttl),
  };
}

/**
 * Why an operation failed while it may still have landed: `late` resolves with its answer once it
 * lands, or with `undefined` once it may have (its answer was lost), so what it took (a slot, a
 * lease, a claim) can be undone then, by its id.
 */
export class StoreLate extends Error {
  readonly late: Promise<unknown>;
  constructor(message: string, late: Promise<unknown>, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.late = late;
  }
}

/**
 * The store did not answer within the bound. The operation may still land (a slow Redis runs a
 * queued command once it answers again), or fail with its answer lost.
 */
export class StoreTimeout extends StoreLate {
  constructor(timeout: number, running: Promise<unknown>) {
    super(
      `the store did not answer within ${timeout} ms`,
      running.catch((error: unknown) => lateOf(error) ?? Promise.reject(error)),
    );
  }
}

/**
 * For an operation that may still land (`error` a {@link StoreLate}): what it resolves to once it
 * has, or `undefined` once it may have. Else `undefined`: the operation did nothing.
 */
export function lateOf<T>(error: unknown): Promise<T | undefined> | undefined {
  return error instanceof StoreLate ? (error.late as Promise<T | undefined>) : undefined;
}

/**
 * A wrapper that bounds an operation to `timeout` ms on `schedule`'s clock: one that hangs rejects
 * with a {@link StoreTimeout} instead, so a caller (the breaker) can fail open rather than wait
 * forever. The timer is cancelled as soon as the operation settles. An infinite `timeout` bounds
 * nothing.
 */
export function timeBound(
  schedule: (ms: number, callback: () => void) => () => void,
  timeout: number,
): <T>(operation: () => T | Promise<T>) => Promise<T> {
  if (!Number.isFinite(timeout)) return async (operation) => operation();
  return <T>(operation: () => T | Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      // A store that throws instead of rejecting must not leave the timer behind.
      const running = Promise.resolve().then(operation);
      const cancel = schedule(timeout, () => reject(new StoreTimeout(timeout, running)));
      running.then(
        (value) => {
          cancel();
          resolve(value);
        },
        (error: unknown) => {
          cancel();
          reject(error);
        },
      );
    });
}

/** Bounds every operation of `store` with {@link timeBound}. An infinite `timeout` leaves `store` as it is. */
export function boundedStore(
  store: Store,
  schedule: (ms: number, callback: () => void) => () => void,
  timeout: number,
): Store {
  if (!Number.isFinite(timeout)) return store;
  const bound = timeBound(schedule, timeout);
  return {
    get: (key) => bound(() => store.get(key)),
    set: (key, value, ttl) => bound(() => store.set(key, value, ttl)),
    delete: (key) => bound(() => store.delete(key)),
    update: (key, transition, ttl) => bound(() => store.update(key, transition, ttl)),
  };
}
