import type { Clock } from './clock';
import { Emitter } from './emitter';
import { checkKnown, configError, type StitchError } from './errors';
import { isRecord } from './record';
import type { StitchInput } from './request';

/** The `cache` option of a read stitch. */
export interface CacheOptions<TInput = StitchInput> {
  /** How long (ms) stored data is served without a request (`Infinity`: until invalidated). @default 0 */
  ttl?: number | undefined;
  /** How long (ms) after `ttl` stale data is still served while one request refreshes it. @default 0 */
  staleWhileRevalidate?: number | undefined;
  /**
   * The tenancy of an entry, e.g. the principal: callers in different scopes never share one. It
   * must give a string at once (a promise is refused: every user's would key alike).
   * @default the engine
   */
  scope?: ((input: TInput | undefined) => string) | undefined;
}

/** `CacheOptions` validated, with defaults filled in. */
export interface CachePolicy<TInput = StitchInput> {
  ttl: number;
  staleWhileRevalidate: number;
  scope: ((input: TInput | undefined) => string) | undefined;
}

/**
 * Validates `cache` (reads only): a number is `{ ttl }`; `false` is `{ ttl: 0 }`, so no call is
 * served from memory, while subscribers (hooks) still see the last data of their key.
 */
export function normalizeCache<TInput>(
  value: CacheOptions<TInput> | number | false | undefined,
  isRead: boolean,
  stitchName: string,
): CachePolicy<TInput> | undefined {
  if (!isRead) {
    if (value !== undefined && value !== false)
      throw configError(stitchName, 'cache', 'applies to GET and HEAD only');
    return undefined;
  }
  if (!(value === undefined || value === false || typeof value === 'number' || isRecord(value as unknown))) {
    throw configError(
      stitchName,
      'cache',
      'must be a number of milliseconds, { ttl, staleWhileRevalidate, scope } or false',
    );
  }
  const options = typeof value === 'number' ? { ttl: value } : value || {};
  checkKnown(stitchName, 'cache.', options, ['ttl', 'staleWhileRevalidate', 'scope']);
  const field = (name: string) => (typeof value === 'number' ? 'cache' : `cache.${name}`);
  const ms = (given: number | undefined, name: string) => {
    // Infinity keeps data for good; a finite value may be of any length.
    if (given !== undefined && !(typeof given === 'number' && given >= 0)) {
      throw configError(stitchName, field(name), 'must be a number of milliseconds ≥ 0 (or Infinity)');
    }
    return given ?? 0;
  };
  if (options.scope !== undefined && typeof options.scope !== 'function') {
    throw configError(stitchName, 'cache.scope', 'must be a function of the input');
  }
  return {
    ttl: ms(options.ttl, 'ttl'),
    staleWhileRevalidate: ms(options.staleWhileRevalidate, 'staleWhileRevalidate'),
    scope: options.scope,
  };
}

/**
 * What subscribers of a key see. The object is replaced on every change and kept otherwise,
 * so `useSyncExternalStore` re-renders only when something changed.
 */
export interface CacheSnapshot<TData = unknown> {
  /** The last data stored for the key (kept while a refresh runs). */
  readonly data: TData | undefined;
  /** Clock time the data was stored; `undefined` without data. */
  readonly updatedAt: number | undefined;
  /** The last shared failure for the key (never a caller's cancellation); cleared by success. */
  readonly error: StitchError | undefined;
  /** Whether a request for the key is in flight. */
  readonly fetching: boolean;
  /**
   * Whether the data was invalidated since it was stored: no cache lookup serves it, and the
   * next read fetches. Cleared when new data arrives.
   */
  readonly stale: boolean;
  /**
   * How many times `engine.invalidate` has hit this key. A mounted reader that sees it grow
   * refetches at once (what `useStitch` does), keeping the stale data on screen meanwhile.
   */
  readonly invalidated: number;
}

/** Data carried from a server render to the client: `engine.dehydrate()` → `engine.hydrate()`. */
export interface DehydratedState {
  readonly version: 1;
  /**
   * When the state was taken, on the clock that stamped its entries. With it, `hydrate` takes in
   * each entry's age rather than its stamp, so the server's clock and the client's need not
   * agree (each process's monotonic clock starts at its own origin). @default none: the stamps
   * are read on the hydrating engine's clock
   */
  readonly at?: number | undefined;
  /**
   * The wall-clock time when the state was taken (`Clock.wallNow`). With it, `hydrate` knows how
   * long the state was on its way (the page's transfer, a route's payload kept until a click), so
   * it never replaces data the engine fetched meanwhile. That needs the two wall clocks to
   * roughly agree: a hydrating clock behind the taking one counts no time on the way, and one
   * ahead by `S` also keeps its own data against a state taken up to `S` after it. Entries taken
   * in keep the age they had when taken (`at`) either way. @default none: no time on the way
   */
  readonly wallAt?: number | undefined;
  readonly entries: ReadonlyArray<readonly [key: string, data: unknown, updatedAt: number]>;
}

/**
 * `state`'s entries, once the whole of it is known good (it comes from outside the process: a
 * page's HTML): anything else is a `config` error naming the field, with nothing taken in.
 */
function checkDehydrated(state: unknown): DehydratedState {
  const fail = (field: string, problem: string) => {
    throw configError(undefined, field, `${problem} (hydrate takes what dehydrate gave)`);
  };
  if (!isRecord(state)) fail('state', 'must be { version: 1, entries }');
  const { version, entries, at, wallAt } = state as Record<string, unknown>;
  if (version !== 1) fail('state.version', 'must be 1');
  for (const [field, time] of [
    ['at', at],
    ['wallAt', wallAt],
  ] as const) {
    if (time !== undefined && !(typeof time === 'number' && Number.isFinite(time)))
      fail(`state.${field}`, 'must be a time');
  }
  if (!Array.isArray(entries)) fail('state.entries', 'must be a list of [key, data, updatedAt]');
  (entries as unknown[]).forEach((entry, index) => {
    const valid =
      Array.isArray(entry) &&
      entry.length === 3 &&
      typeof entry[0] === 'string' &&
      entry[1] !== undefined &&
      typeof entry[2] === 'number' &&
      Number.isFinite(entry[2]);
    if (!valid)
      fail(`state.entries[${index}]`, 'must be [key, data, updatedAt] (data defined, updatedAt a time)');
  });
  return state as DehydratedState;
}

/**
 * How long (ms) what `hydrate` takes in stays out of eviction's reach, whatever `cacheSize`: time
 * for the readers it is for to commit (a lazy route's chunk to load, say).
 */
export const HYDRATED_KEPT = 5_000;

/** How many states' times `hydrate` remembers (a route's each, say): the latest are what come again. */
const KEPT_SHIFTS = 64;

const EMPTY: CacheSnapshot = Object.freeze({
  data: undefined,
  updatedAt: undefined,
  error: undefined,
  fetching: false,
  stale: false,
  invalidated: 0,
});

/**
 * `snapshot` with the fields `patch` names, or `snapshot` itself when none of them changes. Built
 * field by field: a spread of patches of many shapes is several times slower, on every change.
 */
function patched(snapshot: CacheSnapshot, patch: Partial<CacheSnapshot>): CacheSnapshot {
  const next: CacheSnapshot = {
    data: 'data' in patch ? patch.data : snapshot.data,
    updatedAt: 'updatedAt' in patch ? patch.updatedAt : snapshot.updatedAt,
    error: 'error' in patch ? patch.error : snapshot.error,
    fetching: patch.fetching ?? snapshot.fetching,
    stale: patch.stale ?? snapshot.stale,
    invalidated: patch.invalidated ?? snapshot.invalidated,
  };
  const same =
    next.data === snapshot.data &&
    next.updatedAt === snapshot.updatedAt &&
    next.error === snapshot.error &&
    next.fetching === snapshot.fetching &&
    next.stale === snapshot.stale &&
    next.invalidated === snapshot.invalidated;
  return same ? snapshot : Object.freeze(next);
}

interface Entry {
  readonly key: string;
  snapshot: CacheSnapshot;
  readonly listeners: Emitter<void>;
  /** The URL (as events show it) whose answer the data is; none for data written or hydrated. */
  source: string | undefined;
  /**
   * For data `hydrate` took in, when it was fetched as this clock reckons it: its stamp less its
   * state's time on the way. Another state's copy is newer only if fetched later, reckoned so
   * (the stamp alone would count an earlier state's data, taken in a moment before, as fresher).
   */
  fetchedAt: number | undefined;
  /** Whether the entry is in the idle list (nobody subscribes to it), and its neighbours there. */
  idle: boolean;
  older: Entry | undefined;
  newer: Entry | undefined;
}

/** Hears every change of an entry: its snapshot (`undefined`: evicted) and how many subscribe to it. */
export type CacheObserver = (key: string, snapshot: CacheSnapshot | undefined, readers: number) => void;

/**
 * The engine's cache: one snapshot per key, in memory (snapshots are read synchronously by
 * renders), bounded by `maxEntries` with least-recently-used eviction. Keys someone subscribes
 * to, or whose request is in flight, are never evicted.
 * @param observe hears each change, after the key's subscribers. @default none
 */
export function createCache(clock: Clock, maxEntries: number, observe?: CacheObserver) {
  const entries = new Map<string, Entry>();
  // How far the stamps of a state taken at a time (`at`, on its own clock) moved onto this one,
  // the latest few: a copy of that state (parsed again from the page, split, taken in again) moves
  // as the first did, so it has aged as the first has.
  const shifts = new Map<number, number>();
  // The entries nobody subscribes to, a list from the least recently used (`oldest`) to the most:
  // the only ones eviction may take, so it never walks past subscribed keys, however many there
  // are. A linked list, not a Map: taking a Map's first entry again and again walks past every
  // slot deleted before it (until the Map is rebuilt), a cost that grows with the cache's size.
  let oldest: Entry | undefined;
  let newest: Entry | undefined;
  // The key touched last, while it is still the most recent of the entries and the idle list: a
  // hot key read over and over (a cache hit each time) then costs one lookup, not two map writes.
  let latest: string | undefined;

  const unlink = (entry: Entry) => {
    if (!entry.idle) return;
    if (entry.older) entry.older.newer = entry.newer;
    else oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else newest = entry.older;
    entry.idle = false;
    entry.older = entry.newer = undefined;
  };

  /** Makes `entry` the most recently used of the idle ones. */
  const idleNewest = (entry: Entry) => {
    unlink(entry);
    entry.idle = true;
    entry.older = newest;
    if (newest) newest.newer = entry;
    else oldest = entry;
    newest = entry;
  };

  /** Someone subscribes to it, or its request is in flight: eviction must not take it. */
  const inUse = (entry: Entry) => entry.listeners.size > 0 || entry.snapshot.fetching;

  const touch = (key: string): Entry => {
    const recent = key === latest ? entries.get(key) : undefined;
    if (recent) return recent;
    let entry = entries.get(key);
    if (entry) entries.delete(key);
    else
      entry = {
        key,
        snapshot: EMPTY,
        listeners: new Emitter(),
        source: undefined,
        fetchedAt: undefined,
        idle: false,
        older: undefined,
        newer: undefined,
      };
    // Map order is insertion order: re-inserting makes this the most recently used.
    entries.set(key, entry);
    if (inUse(entry)) unlink(entry);
    else idleNewest(entry);
    latest = key;
    return entry;
  };

  const evict = () => {
    while (entries.size > maxEntries && oldest) {
      const { key } = oldest;
      unlink(oldest);
      entries.delete(key);
      observe?.(key, undefined, 0);
    }
  };

  /**
   * Evicts a microtask later, once, past `maxEntries`: keys subscribed to and let go of without
   * a change (a debounced keystroke's) are bounded too, while a reader that lets go and comes
   * back at once (StrictMode's second effect) keeps its entry.
   */
  let evicting = false;
  const evictSoon = () => {
    if (evicting || entries.size <= maxEntries) return;
    evicting = true;
    queueMicrotask(() => {
      evicting = false;
      evict();
    });
  };

  /**
   * What `hydrate` took in, out of eviction's reach until `pinnedUntil`: the readers it is for
   * subscribe once they commit, after it is taken in (and after their siblings' fetches, which
   * are changes). Given back to the idle list at the first change after that.
   */
  const pinned = new Set<Entry>();
  let pinnedUntil = 0;
  const unpin = () => {
    for (const entry of pinned) {
      if (entries.get(entry.key) === entry && !entry.idle && !inUse(entry)) idleNewest(entry);
    }
    pinned.clear();
  };

  /**
   * Applies `patch` to `key`; new data comes with its `source` (none: written or hydrated).
   * `evictNow: false` leaves eviction to the next change (see `hydrate`). Returns the entry.
   */
  const change = (key: string, patch: Partial<CacheSnapshot>, source?: string, evictNow = true): Entry => {
    const entry = touch(key);
    if ('data' in patch) {
      entry.source = source;
      entry.fetchedAt = undefined;
    }
    const next = patched(entry.snapshot, patch);
    if (next === entry.snapshot) return entry;
    entry.snapshot = next;
    // A request for it starting or ending moves it off or back onto the idle list (as the most
    // recently used: `latest` stays right).
    if (inUse(entry)) unlink(entry);
    else if (!entry.idle) idleNewest(entry);
    if (evictNow) {
      if (pinned.size > 0 && clock.now() >= pinnedUntil) unpin();
      evict();
    }
    entry.listeners.emit();
    observe?.(key, entry.snapshot, entry.listeners.size);
    return entry;
  };

  return {
    /** The snapshot of `key` (a shared empty one for an unknown key). */
    snapshot: <TData>(key: string) => (entries.get(key)?.snapshot ?? EMPTY) as CacheSnapshot<TData>,
    /** Whether `key` holds data stored within `ttl`, or within `ttl + staleWhileRevalidate`. */
    freshness(key: string, policy: CachePolicy<never>): 'fresh' | 'stale' | 'none' {
      // A stitch that keeps nothing (the default) never serves from the cache: no lookup.
      if (policy.ttl === 0 && policy.staleWhileRevalidate === 0) return 'none';
      const { updatedAt, data, stale } = entries.get(key)?.snapshot ?? EMPTY;
      if (updatedAt === undefined || data === undefined || stale) return 'none';
      // Data stamped in the future (a server clock ahead of this one) has a negative age: only a
      // positive ttl or window can make it servable, never a zero one.
      const age = clock.now() - updatedAt;
      const verdict =
        policy.ttl > 0 && age < policy.ttl
          ? 'fresh'
          : policy.staleWhileRevalidate > 0 && age < policy.ttl + policy.staleWhileRevalidate
            ? 'stale'
            : 'none';
      // A hit counts as a use: the least recently used entry is the least recently read.
      if (verdict !== 'none') touch(key);
      return verdict;
    },
    /**
     * Stores fresh data; `done` also ends `fetching` in the same change (the key's last read, or a
     * write); `source` is the URL whose answer it is (see {@link source}); `at` when it arrived.
     */
    store: (key: string, data: unknown, done?: boolean, source?: string, at = clock.now()) =>
      change(
        key,
        { data, updatedAt: at, error: undefined, stale: false, fetching: done ? false : undefined },
        source,
      ),
    /** How many subscribe to `key` now. */
    readers: (key: string): number => entries.get(key)?.listeners.size ?? 0,
    /** The URL whose answer the key's data is, as events show it: none for data written or hydrated. */
    source: (key: string): string | undefined => entries.get(key)?.source,
    /** Records a shared failure; `done` also ends `fetching` in the same change. */
    fail: (key: string, error: StitchError, done?: boolean) =>
      change(key, { error, fetching: done ? false : undefined }),
    fetching: (key: string, fetching: boolean) => change(key, { fetching }),
    subscribe(key: string, listener: () => void): () => void {
      const entry = touch(key);
      const off = entry.listeners.on(listener);
      unlink(entry);
      observe?.(key, entry.snapshot, entry.listeners.size);
      return () => {
        if (!off()) return;
        const { data, error } = entry.snapshot;
        if (!inUse(entry) && entries.get(key) === entry && data === undefined && error === undefined) {
          // It holds nothing (an adapter's key that never loaded, a keystroke's read superseded):
          // there is nothing to keep, and it must not push out data that is.
          entries.delete(key);
          if (key === latest) latest = undefined;
          observe?.(key, undefined, 0);
          return;
        }
        // The last reader gone, the entry may be evicted again, as the most recently used.
        if (!inUse(entry) && entries.get(key) === entry) {
          idleNewest(entry);
          // Now the most recent of the idle ones: the key touched last may no longer be.
          if (key !== latest) latest = undefined;
          evictSoon();
        }
        observe?.(key, entry.snapshot, entry.listeners.size);
      };
    },
    /** Every entry, least recently used first, with its number of subscribers. */
    list: () => [...entries].map(([key, entry]) => [key, entry.snapshot, entry.listeners.size] as const),
    /**
     * Marks every key `matches` accepts stale, keeping its data, and tells its subscribers (each
     * is told even if the key was stale already: a second write needs a second refetch).
     */
    invalidate(matches: (key: string) => boolean) {
      for (const key of [...entries.keys()]) {
        const entry = entries.get(key);
        if (entry && matches(key)) change(key, { stale: true, invalidated: entry.snapshot.invalidated + 1 });
      }
    },
    /** Drops the data of every key `matches` accepts and tells their subscribers. */
    drop(matches: (key: string) => boolean) {
      for (const key of [...entries.keys()]) {
        if (matches(key))
          change(key, { data: undefined, updatedAt: undefined, error: undefined, stale: false });
      }
    },
    dehydrate(): DehydratedState {
      const out: Array<readonly [string, unknown, number]> = [];
      for (const [key, { snapshot }] of entries) {
        if (snapshot.data !== undefined && snapshot.updatedAt !== undefined && !snapshot.stale) {
          out.push([key, snapshot.data, snapshot.updatedAt]);
        }
      }
      return { version: 1, at: clock.now(), wallAt: clock.wallNow(), entries: out };
    },
    hydrate(state: DehydratedState) {
      const { at, wallAt, entries: taken } = checkDehydrated(state);
      const now = clock.now();
      // A state that says when it was taken is read by age: its stamps move onto this clock, once
      // (the same state taken in again, by a provider that mounts again, has aged meanwhile).
      const shift = at === undefined ? 0 : (shifts.get(at) ?? now - at);
      // How long it was on its way, as far as the wall clocks tell (none when this one is behind).
      const onTheWay = wallAt === undefined ? 0 : Math.max(0, clock.wallNow() - wallAt);
      if (at !== undefined && !shifts.has(at)) {
        shifts.set(at, shift);
        if (shifts.size > KEPT_SHIFTS) shifts.delete(shifts.keys().next().value as number);
      }
      for (const [key, data, stamped] of taken) {
        const local = stamped + shift;
        const held = entries.get(key);
        const since = held?.fetchedAt ?? held?.snapshot.updatedAt;
        const fetchedAt = local - onTheWay;
        // Never let a server's older copy replace fresher data the client already has, nor data
        // fetched here while the state was on its way. A copy stamped ahead of this clock (a
        // server's clock ahead of it) is kept as stamped now, so it ages from now, however far
        // ahead it claims to be.
        if (since === undefined || since < fetchedAt) {
          // Kept a while, whatever `cacheSize` (0 too): see `pinned`.
          const kept = change(
            key,
            { data, updatedAt: Math.min(local, now), error: undefined, stale: false },
            undefined,
            false,
          );
          kept.fetchedAt = fetchedAt;
          if (!inUse(kept)) {
            unlink(kept);
            pinned.add(kept);
            pinnedUntil = now + HYDRATED_KEPT;
          }
        }
      }
    },
  };
}

/** The engine's cache, as `createCache` builds it. */
export type Cache = ReturnType<typeof createCache>;
