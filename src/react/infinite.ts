import {
  type CallArgs,
  type Engine,
  type InputArg,
  isAbortError,
  type SafeResult,
  type Stitch,
  type StitchError,
  type StitchInput,
  type StitchRun,
} from '../index';
import { sharedWeakMap } from './context';
import { userError } from './observer';

/** The pages of an infinite read, oldest first, and the page param each was fetched with. */
export interface InfiniteData<TData, TParam> {
  readonly pages: readonly TData[];
  readonly pageParams: readonly TParam[];
}

/**
 * How the pages of an infinite read follow each other. Every holder of one key is expected to
 * pass the same policy (as TanStack Query expects of one query key); the latest one committed is
 * the one used.
 */
export interface PagePolicy<TData, TInput extends StitchInput, TParam> {
  /** The param of the first page. */
  initialPageParam: TParam;
  /** The param of the page after `lastPage`; `undefined` or `null`: there is none. */
  getNextPageParam: (
    lastPage: TData,
    pages: readonly TData[],
    lastPageParam: TParam,
    pageParams: readonly TParam[],
  ) => TParam | null | undefined;
  /** The param of the page before `firstPage`; `undefined` or `null` (or no function): there is none. */
  getPreviousPageParam?:
    | ((
        firstPage: TData,
        pages: readonly TData[],
        firstPageParam: TParam,
        pageParams: readonly TParam[],
      ) => TParam | null | undefined)
    | undefined;
  /**
   * Puts a page param into the input: the name of a query field (`'cursor'` sends
   * `?cursor=<param>`, nothing for a `null` or `undefined` param), or a function of the hook's
   * input and the param that returns the page's input.
   */
  pageInput: string | ((input: TInput, param: TParam) => TInput);
  /** At most this many pages are kept; a new page drops one from the other end. @default Infinity */
  maxPages?: number | undefined;
}

/** Which fetch an entry is running: the first page, one more page at either end, or a refetch. */
export type PageDirection = 'first' | 'next' | 'previous' | 'refetch';

/** What the holders of an infinite key see; a new object on every change. */
export interface EntrySnapshot<TData, TParam> {
  readonly data: InfiniteData<TData, TParam> | undefined;
  /** The last failure of the key's own page requests (never a cancellation); cleared by the next fetch. */
  readonly error: StitchError | null;
  readonly fetching: PageDirection | undefined;
  /** How many fetches the entry has started: a holder's own cancellation shows until the next. */
  readonly started: number;
}

/** One component reading an infinite key: told of each change, and a reference on each page fetch. */
export interface EntryHolder {
  notify(): void;
  /** Whether it may hold a page fetch (its external signal has not aborted). */
  live(): boolean;
}

/** What the page request in flight has sent so far, as its run's events tell: what a cancel says. */
export type PageSent = Pick<StitchError, 'attempts' | 'requests' | 'ambiguous' | 'url' | 'idempotencyKey'>;

/** A page fetch in flight: its own controller, the holders that keep it going, its page's run. */
interface PageFetch {
  readonly direction: PageDirection;
  readonly controller: AbortController;
  readonly refs: Set<EntryHolder>;
  page: { readonly run: StitchRun<unknown>; readonly sent: Mutable<PageSent> } | undefined;
}

/**
 * Follows `run`'s events into `sent` until it ends. As the engine reckons it, the request is
 * ambiguous while one sent has no answer yet, and for good once one went unanswered (a deadline
 * cut it, the network failed): an answer the attempt retries after (a 503) settles the doubt.
 */
async function tally(run: StitchRun<unknown>, sent: Mutable<PageSent>): Promise<void> {
  let lost = false;
  for await (const event of run.stream()) {
    if (event.type === 'request' || event.type === 'redirect') {
      sent.requests += 1;
      sent.ambiguous = true;
      sent.attempts = Math.max(sent.attempts, event.attempt);
      if (event.type === 'request') {
        sent.url = event.url;
        sent.idempotencyKey = event.idempotencyKey;
      }
    } else if (event.type === 'timeout' && event.dispatched) lost = true;
    else if (event.type === 'retry') {
      if (event.error.kind === 'network' || event.error.kind === 'timeout') lost = true;
      sent.ambiguous = lost;
    }
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

// biome-ignore lint/suspicious/noExplicitAny: entries of every data, input and param type, typed again by findEntry.
const registry = /* @__PURE__ */ sharedWeakMap<Engine, Map<string, InfiniteEntry<any, any, any>>>(
  'infiniteEntries@1',
);
const refetching = () => new DOMException('Superseded: the pages are being refetched', 'AbortError');

/**
 * The entries of one engine, by the key of the hook's input. An invalidation that hits an entry's
 * key or one of its pages' keys refetches its pages, as it refetches the cache's mounted readers.
 */
function entriesOf(engine: Engine) {
  let byKey = registry.get(engine);
  if (!byKey) {
    const entries = new Map<string, InfiniteEntry<unknown, StitchInput, unknown>>();
    engine.onInvalidate((matches) => {
      for (const [key, entry] of [...entries]) if (matches(key) || entry.hit(matches)) entry.refetch();
    });
    byKey = entries;
    registry.set(engine, byKey);
  }
  return byKey;
}

/** The entry of `key`, if a component holds it. */
export function findEntry<TData, TInput extends StitchInput, TParam>(
  engine: Engine,
  key: string,
): InfiniteEntry<TData, TInput, TParam> | undefined {
  return entriesOf(engine).get(key) as InfiniteEntry<TData, TInput, TParam> | undefined;
}

/**
 * `holder` starts reading the infinite key `key`: it shares the pages every other holder of the
 * key sees, and holds the page fetch in flight. The first holder creates the entry and its first
 * page fetch.
 */
export function joinEntry<TData, TInput extends StitchInput, TParam>(
  engine: Engine,
  key: string,
  read: {
    stitch: Stitch<TData, TInput>;
    input: TInput | undefined;
    policy: PagePolicy<TData, TInput, TParam>;
  },
  holder: EntryHolder,
): InfiniteEntry<TData, TInput, TParam> {
  const byKey = entriesOf(engine);
  let entry = byKey.get(key) as InfiniteEntry<TData, TInput, TParam> | undefined;
  if (!entry) {
    const created = createEntry<TData, TInput, TParam>(engine, read.input, () => {
      if (byKey.get(key) === created) byKey.delete(key);
    });
    byKey.set(key, created);
    entry = created;
  }
  // The latest holder's: a stitch redefined under its name (a hot reload) replaces the old one.
  entry.stitch = read.stitch;
  entry.policy = read.policy;
  entry.join(holder);
  return entry;
}

/**
 * The shared state of one infinite key. At most one page fetch runs at a time, on a controller
 * of the entry's own, reference-counted like the engine's coalescer: each live holder is one
 * reference, and only when the last lets go is the page request aborted (its socket closed).
 * Its pages reach the engine like any call, so each goes through cache, coalescer, retries,
 * breaker and trace.
 */
function createEntry<TData, TInput extends StitchInput, TParam>(
  engine: Engine,
  input: TInput | undefined,
  forget: () => void,
) {
  const holders = new Set<EntryHolder>();
  let fetch: PageFetch | undefined;
  // A refetch (an invalidation) came while no holder could hold it: the next live one starts it.
  let owed = false;
  let snapshot: EntrySnapshot<TData, TParam> = {
    data: undefined,
    error: null,
    fetching: undefined,
    started: 0,
  };

  /** The cache key of each page shown, followed while a component holds the entry. */
  let followed = new Map<string, () => void>();

  const publish = (patch: Partial<EntrySnapshot<TData, TParam>>) => {
    const { data } = snapshot;
    snapshot = { ...snapshot, ...patch };
    if (snapshot.data !== data) follow(snapshot.data);
    for (const holder of [...holders]) holder.notify();
  };

  const keyAt = (param: TParam) => attempt(() => engine.keyOf(entry.stitch, inputFor(param)));

  /**
   * Follows the cache keys of `data`'s pages: a write to one (`engine.setData`, another reader's
   * fetch of that page) shows in the list, as in every reader of the key.
   */
  const follow = (data: InfiniteData<TData, TParam> | undefined) => {
    const keys = new Set<string>();
    for (const param of data?.pageParams ?? []) {
      const key = keyAt(param);
      if (key !== undefined) keys.add(key);
    }
    const next = new Map<string, () => void>();
    for (const key of keys) next.set(key, followed.get(key) ?? engine.subscribe(key, () => written(key)));
    for (const [key, off] of followed) if (!next.has(key)) off();
    followed = next;
  };

  /**
   * The cache of `key` changed. A first fetch or a refetch is left to replace the pages all
   * together (the stores of its own pages included); otherwise the pages of that key become
   * what the cache holds.
   */
  const written = (key: string) => {
    const { data } = snapshot;
    const now = engine.getSnapshot<TData>(key).data;
    if (!data || now === undefined || fetch?.direction === 'first' || fetch?.direction === 'refetch') return;
    let changed = false;
    const pages = data.pages.map((shown, index) => {
      if (shown === now || keyAt(data.pageParams[index] as TParam) !== key) return shown;
      changed = true;
      return now;
    });
    if (changed) publish({ data: { pages, pageParams: data.pageParams } });
  };

  const inputFor = (param: TParam): TInput | undefined => {
    const { pageInput } = entry.policy;
    if (typeof pageInput === 'function')
      return userCall('pageInput', () => pageInput(input ?? ({} as TInput), param));
    if (param === null || param === undefined) return input;
    return { ...input, query: { ...input?.query, [pageInput]: param } } as TInput;
  };

  /**
   * One page for `current`. A page whose read a write overwrote (`engine.setData` aborts the key's
   * read in flight, not this list's own signal) is the data written, as for any other reader.
   */
  const send = async (param: TParam, current: PageFetch, revalidate: boolean): Promise<SafeResult<TData>> => {
    const { signal } = current.controller;
    const input = inputFor(param);
    const run = entry.stitch(...([input, { engine, signal, revalidate }] as CallArgs<TInput>));
    const sent = { attempts: 0, requests: 0, ambiguous: false, url: undefined, idempotencyKey: undefined };
    current.page = { run, sent };
    void tally(run, sent);
    const result = await run.safe();
    if (result.ok || signal.aborted || !isAbortError(result.error)) return result;
    const written = engine.getData(entry.stitch, input as InputArg<TInput>);
    return written === undefined ? result : { ok: true, data: written, error: null };
  };

  /**
   * Ends `current` with its data or failure. A fetch whose last holder let go (or that a refetch
   * superseded) is no longer `fetch` when its abort comes back: nobody asked to see that.
   */
  const finish = (current: PageFetch, outcome: SafeResult<InfiniteData<TData, TParam>>) => {
    if (fetch !== current) return;
    fetch = undefined;
    if (outcome.ok) publish({ data: outcome.data, error: null, fetching: undefined });
    else publish({ error: outcome.error, fetching: undefined });
  };

  /** Keeps at most `maxPages`, dropping from the end opposite the one that grew. */
  const trim = <T>(list: T[], grewAtStart: boolean) => {
    const max = entry.policy.maxPages ?? Number.POSITIVE_INFINITY;
    if (list.length <= max) return list;
    return grewAtStart ? list.slice(0, max) : list.slice(list.length - max);
  };

  /** One more page at one end. */
  const extend = async (current: PageFetch, param: TParam, atStart: boolean) => {
    const result = await send(param, current, false);
    if (!result.ok) return finish(current, result);
    const { pages, pageParams } = snapshot.data ?? { pages: [], pageParams: [] };
    const data = atStart
      ? { pages: trim([result.data, ...pages], true), pageParams: trim([param, ...pageParams], true) }
      : { pages: trim([...pages, result.data], false), pageParams: trim([...pageParams, param], false) };
    finish(current, { ok: true, data, error: null });
  };

  /**
   * The pages in order from the first param, each next param taken from the page just fetched,
   * as many as there were (one for a first fetch). The first failure stops it and keeps the
   * pages there were: the new ones replace them only all together.
   */
  const chain = async (current: PageFetch, revalidate: boolean) => {
    const before = snapshot.data;
    // As many as there were, or as `maxPages` keeps now (it may have been lowered since).
    const count = Math.min(before?.pages.length || 1, entry.policy.maxPages ?? Number.POSITIVE_INFINITY);
    let param = before ? (before.pageParams[0] as TParam) : entry.policy.initialPageParam;
    const pages: TData[] = [];
    const pageParams: TParam[] = [];
    for (;;) {
      const result = await send(param, current, revalidate);
      if (!result.ok) return finish(current, result);
      pages.push(result.data);
      pageParams.push(param);
      if (pages.length >= count) break;
      const next = userCall('getNextPageParam', () =>
        entry.policy.getNextPageParam(result.data, pages, param, pageParams),
      );
      if (next === null || next === undefined) break;
      param = next;
    }
    finish(current, { ok: true, data: { pages, pageParams }, error: null });
  };

  /** Starts a fetch held by every live holder; none live: nothing is sent. */
  const start = (direction: PageDirection, run: (current: PageFetch) => Promise<void>) => {
    const refs = new Set([...holders].filter((holder) => holder.live()));
    if (refs.size === 0) return;
    const current: PageFetch = { direction, controller: new AbortController(), refs, page: undefined };
    fetch = current;
    publish({ error: null, fetching: direction, started: snapshot.started + 1 });
    // A page param function of the user's that throws ends the fetch as a `config` error naming it.
    run(current).catch((thrown: unknown) => {
      const { field, cause } = thrown instanceof UserThrew ? thrown : { field: 'pageInput', cause: thrown };
      finish(current, {
        ok: false,
        data: null,
        error: userError('useStitchInfinite', entry.stitch.definition.name, field, cause),
      });
    });
  };

  /**
   * `holder` no longer holds the fetch in flight; the last one to let go aborts it with `reason`.
   * A refetch cut short by a holder's leaving (an unmount, a scope's reset, its signal's abort)
   * is still owed to the pages, for the next holder to send; one the user cancelled is not: a
   * later mount must not undo that cancel.
   * @returns the run of the page request that abort ended, if it did.
   */
  const release = (
    holder: EntryHolder,
    reason: unknown,
    cancelled = false,
  ): StitchRun<unknown> | undefined => {
    const current = fetch;
    if (!current?.refs.delete(holder) || current.refs.size > 0) return undefined;
    fetch = undefined;
    if (current.direction === 'refetch' && !cancelled) owed = true;
    current.controller.abort(reason);
    publish({ fetching: undefined });
    return current.page?.run;
  };

  const entry = {
    stitch: undefined as unknown as Stitch<TData, TInput>,
    policy: undefined as unknown as PagePolicy<TData, TInput, TParam>,
    snapshot: () => snapshot,
    join(holder: EntryHolder) {
      holders.add(holder);
      if (fetch && holder.live()) fetch.refs.add(holder);
      // Only a live holder starts a fetch: one whose signal has aborted must not send for others.
      if (fetch || !holder.live()) return;
      if (owed) entry.refetch();
      else if (!snapshot.data) start('first', (current) => chain(current, false));
    },
    /** `holder` re-keyed or unmounted: it lets go of the fetch, and the last holder drops the entry. */
    leave(holder: EntryHolder, reason: unknown) {
      release(holder, reason);
      holders.delete(holder);
      if (holders.size > 0) return;
      follow(undefined);
      forget();
    },
    /**
     * `holder` lets go of the fetch in flight (the last one aborts it) and stays: its scope reset,
     * its signal aborted or (`cancelled`) it cancelled.
     */
    release,
    /** What the page request in flight has sent so far (a copy), if one runs. */
    sent: (): PageSent | undefined => fetch?.page && { ...fetch.page.sent },
    /**
     * Fetches the page after the last (or before the first) for `holder`; while a fetch runs,
     * `holder` holds it again (after its cancel, say) instead. With no pages yet (the first one
     * cancelled, say), fetches the first, as TanStack Query does.
     */
    extend(atStart: boolean, holder: EntryHolder) {
      const { data } = snapshot;
      if (fetch) {
        if (holder.live()) fetch.refs.add(holder);
        return;
      }
      if (!data) {
        start('first', (current) => chain(current, false));
        return;
      }
      // One that throws shows as each holder's error already (the observer's `edgesOf`): nothing to fetch.
      const param = attempt(() => edgeParam(entry.policy, data, atStart));
      if (param === undefined) return;
      start(atStart ? 'previous' : 'next', (current) => extend(current, param, atStart));
    },
    /** Whether the first page shown is younger than the stitch's `cache.ttl` and not invalidated. */
    fresh() {
      const { data } = snapshot;
      const ttl = entry.stitch.definition.cache?.ttl ?? 0;
      const key = data && ttl > 0 ? keyAt(data.pageParams[0] as TParam) : undefined;
      if (key === undefined) return false;
      const { updatedAt, stale } = engine.getSnapshot(key);
      return !stale && updatedAt !== undefined && engine.clock.now() - updatedAt < ttl;
    },
    /** Whether `matches` accepts the cache key of one of the pages shown. */
    hit: (matches: (key: string) => boolean) =>
      snapshot.data?.pageParams.some((param) => {
        const key = engine.keyOf(entry.stitch, inputFor(param));
        return key !== undefined && matches(key);
      }) ?? false,
    /** Refetches every page in order, superseding a fetch in flight (never shown). */
    refetch() {
      const current = fetch;
      fetch = undefined;
      current?.controller.abort(refetching());
      start('refetch', (next) => chain(next, true));
      owed = !fetch;
      if (current && !fetch) publish({ fetching: undefined });
    },
  };
  return entry;
}

/**
 * The param of the page past the last one (or before the first, `atStart`), `undefined` when there
 * is none.
 */
export function edgeParam<TData, TParam>(
  policy: Pick<PagePolicy<TData, never, TParam>, 'getNextPageParam' | 'getPreviousPageParam'>,
  data: InfiniteData<TData, TParam>,
  atStart: boolean,
): TParam | undefined {
  const { pages, pageParams } = data;
  const param = atStart
    ? policy.getPreviousPageParam?.(pages[0] as TData, pages, pageParams[0] as TParam, pageParams)
    : policy.getNextPageParam(
        pages[pages.length - 1] as TData,
        pages,
        pageParams[pageParams.length - 1] as TParam,
        pageParams,
      );
  return param ?? undefined;
}

/** `call()`, or `undefined` if it throws. */
function attempt<T>(call: () => T): T | undefined {
  try {
    return call();
  } catch {
    return undefined;
  }
}

/** The shared state of one infinite key, as `joinEntry` gives it. */
export type InfiniteEntry<TData, TInput extends StitchInput, TParam> = ReturnType<
  typeof createEntry<TData, TInput, TParam>
>;

/** What a page param function of the user's threw, and which one it was. */
class UserThrew {
  constructor(
    readonly field: string,
    readonly cause: unknown,
  ) {}
}

/** Calls a page param function of the user's; a throw becomes a {@link UserThrew} naming it. */
function userCall<T>(field: string, call: () => T): T {
  try {
    return call();
  } catch (cause) {
    throw new UserThrew(field, cause);
  }
}
