import type { Engine, Stitch, StitchError, StitchInput } from '../index';
import { onAbort } from './follow';
import {
  type EntryHolder,
  edgeParam,
  findEntry,
  type InfiniteData,
  type InfiniteEntry,
  joinEntry,
  type PagePolicy,
} from './infinite';
import { abortError, isTimeout, sameRead, sameTarget, superseded, unmounted, userError } from './observer';

/** What every {@link InfiniteResult} has, whatever its status. */
export interface InfiniteControls {
  /** Whether a page request of this key is in flight (the first page, one more, or a refetch). */
  isFetching: boolean;
  /** Whether the page after the last one is being fetched. */
  isFetchingNext: boolean;
  /** Whether the page before the first one is being fetched. */
  isFetchingPrevious: boolean;
  /** Whether `getNextPageParam` gives a param for the last page. */
  hasNext: boolean;
  /** Whether `getPreviousPageParam` gives a param for the first page. */
  hasPrevious: boolean;
  /**
   * Fetches the page after the last one; nothing when there is none. While a page fetch of the key
   * runs (another component's, say), sends nothing more: the hook holds that one, also after its
   * own `cancel`. With no pages yet (the first one cancelled), fetches the first.
   */
  fetchNext(): void;
  /**
   * Fetches the page before the first one; nothing when there is none. While a page fetch of the
   * key runs, holds that one, as `fetchNext` does. With no pages yet, fetches the first.
   */
  fetchPrevious(): void;
  /**
   * Fetches every page again in order (as many as `maxPages` keeps now), skipping the cache, each
   * from the param the refreshed page before it gives; the first failure stops it and keeps the
   * pages there were.
   */
  refetch(): void;
  /**
   * Cancels this hook's page fetch in flight with `reason`; the hook shows it as its error (saying
   * what the fetch had sent, as `useStitch`'s does) until the next page fetch of its key.
   */
  cancel(reason?: unknown): void;
}

/**
 * What `useStitchInfinite` returns, a union on `status` like `useStitch`'s: `success` has
 * `data: { pages, pageParams }`, `error` has `error: StitchError` (its `cause` intact) and the
 * pages there were, if any.
 */
export type InfiniteResult<TData, TParam> = InfiniteControls &
  (
    | { status: 'idle'; data: undefined; error: null }
    | { status: 'pending'; data: undefined; error: null }
    | { status: 'success'; data: InfiniteData<TData, TParam>; error: null }
    | { status: 'error'; data: InfiniteData<TData, TParam> | undefined; error: StitchError }
  );

/** What a holder reads, as of the last commit. */
export interface InfiniteTarget<TData, TInput extends StitchInput, TParam> {
  stitch: Stitch<TData, TInput>;
  input: TInput | undefined;
  /** `undefined`: idle (skipped or disabled). */
  key: string | undefined;
  signal: AbortSignal | undefined;
  scope: AbortSignal | undefined;
  policy: PagePolicy<TData, TInput, TParam>;
}

/**
 * One mounted `useStitchInfinite`: a holder of the entry of its key (pages shared with every other
 * component on that key) and a reference on its page fetch in flight. Its own re-keys and
 * unmounts let go without ever showing; a `cancel(reason)` or an abort of its external signal is
 * its own error. No React in here.
 */
export function createInfiniteObserver<TData, TInput extends StitchInput, TParam>(engine: Engine) {
  type Entry = InfiniteEntry<TData, TInput, TParam>;
  let target: InfiniteTarget<TData, TInput, TParam> | undefined;
  let entry: Entry | undefined;
  /**
   * This hook's own cancellation, shown until its next fetch or re-key, or the next fetch its
   * entry starts (an invalidation's refetch, say): `started` is the entry's count at the cancel.
   */
  let own: { key: string; error: StitchError; started?: number } | undefined;
  /** Whether a new signal has resumed since a timeout's abort (see `update`). */
  let resumed = false;
  let detach = () => {};
  let mounted = false;
  const listeners = new Set<() => void>();
  let last: InfiniteResult<TData, TParam> | undefined;

  let edges:
    | {
        data: unknown;
        next: unknown;
        previous: unknown;
        hasNext: boolean;
        hasPrevious: boolean;
        error: StitchError | null;
      }
    | undefined;
  /**
   * Whether the pages have a next and a previous one, once per pages and page param functions. One
   * of those that throws shows as this hook's error (`config`, naming it), not a crash of the
   * render; the same error object while nothing changed, so the result stays the same too.
   */
  const edgesOf = (
    stitch: string,
    policy: PagePolicy<TData, TInput, TParam>,
    data: InfiniteData<TData, TParam>,
  ) => {
    const { getNextPageParam: next, getPreviousPageParam: previous } = policy;
    if (edges?.data === data && edges.next === next && edges.previous === previous) return edges;
    let error: StitchError | null = null;
    const ask = (field: string, atStart: boolean) => {
      try {
        return edgeParam(policy, data, atStart) !== undefined;
      } catch (cause) {
        error ??= userError('useStitchInfinite', stitch, field, cause);
        return false;
      }
    };
    const hasNext = ask('getNextPageParam', false);
    const hasPrevious = ask('getPreviousPageParam', true);
    edges = { data, next, previous, hasNext, hasPrevious, error };
    return edges;
  };

  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  const holder: EntryHolder = {
    notify() {
      // A fetch of its key that ends well (the one resumed on a new signal, say) ends the doubt.
      const settled = entry?.snapshot();
      if (resumed && own === undefined && settled?.fetching === undefined && settled?.error === null)
        resumed = false;
      notify();
    },
    live: () => !target?.signal?.aborted,
  };

  /**
   * Shows an abort of `signal` that cancels this hook's page fetch in flight as its error, until a
   * new signal: no later fetch of its key (another holder's) is this hook's while it has aborted.
   */
  const listen = (signal: AbortSignal | undefined) =>
    signal
      ? onAbort(signal, () => {
          if (!entry?.snapshot().fetching) return;
          abortOwn(signal.reason);
          notify();
        })
      : () => {};
  let offSignal = () => {};

  /**
   * Follows `goal`'s signal and scope. A scope's abort (a route change) lets go of this hook's
   * page fetch in flight without showing it, and keeps the pages: the next scope holds them again.
   */
  const attach = ({ signal, scope }: InfiniteTarget<TData, TInput, TParam>) => {
    offSignal = listen(signal);
    const offScope = scope
      ? onAbort(scope, (reason) => {
          entry?.release(holder, reason);
          notify();
        })
      : () => {};
    detach = () => {
      offSignal();
      offScope();
    };
  };

  const leave = (reason: unknown) => {
    detach();
    detach = () => {};
    entry?.leave(holder, reason);
    entry = undefined;
    own = undefined;
  };

  /**
   * Shows `reason` as this hook's error and lets go of the page fetch it holds, if any: until the
   * entry's next fetch after `started` (a cancel), or, without it, until a new signal.
   */
  const abortOwn = (reason: unknown, started?: number) => {
    if (!entry || !target || target.key === undefined) return;
    const { key, stitch } = target;
    const mine = { key, error: abortError(stitch, reason, entry.sent()), started };
    own = mine;
    // The page request this abort ends says what it had sent in full (one it joined, say), as
    // useStitch's run does: shown once it has unwound, unless something came after. A cancel
    // (what names `started`) stops a refetch for good; a signal's abort leaves it owed.
    entry
      .release(holder, reason, started !== undefined)
      ?.safe()
      .then((ended) => {
        if (own !== mine || ended.ok || ended.error.kind !== 'aborted') return;
        own = { ...mine, error: abortError(stitch, reason, ended.error) };
        notify();
      });
  };

  const cancel = (reason: unknown = new DOMException('Cancelled', 'AbortError')) => {
    const fetching = entry?.snapshot();
    if (!fetching?.fetching) return;
    abortOwn(reason, fetching.started);
    notify();
  };

  /**
   * Runs a fetch of this hook's entry, clearing its own cancellation first. After its signal
   * aborted, the hook holds no fetch: it shows that abort again, as `useStitch` does.
   */
  const act = (fetch: (entry: Entry) => void) => () => {
    if (!entry) return;
    const signal = target?.signal;
    if (signal?.aborted) abortOwn(signal.reason);
    else {
      own = undefined;
      resumed = false;
      fetch(entry);
    }
    notify();
  };
  const fetchNext = act((entry) => entry.extend(false, holder));
  const fetchPrevious = act((entry) => entry.extend(true, holder));
  const refetch = act((entry) => entry.refetch());

  return {
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },

    /** Whether a page fetch of this hook's key is in flight. */
    fetching: () => entry?.snapshot().fetching !== undefined,

    /**
     * A trigger's refetch of the pages (a focus, a reconnect, a poll): never while a page fetch
     * runs, nor for a hook whose signal or scope has aborted; unless `always` (a poll), not while
     * the first page is fresh.
     */
    refetchInBackground(always: boolean) {
      if (!entry || entry.snapshot().fetching !== undefined) return;
      if (target?.signal?.aborted || target?.scope?.aborted) return;
      if (always || !entry.fresh()) refetch();
    },

    /** Commits a target: stays on its entry if nothing that matters changed. */
    update(goal: InfiniteTarget<TData, TInput, TParam>) {
      const previous = target;
      target = goal;
      if (entry) entry.policy = goal.policy;
      if (sameTarget(previous, goal) && (entry || own)) return;
      // The pages' fetches run on the entry's own signals: a new external signal only changes
      // what this hook listens to, and the pages stay. One that has aborted shows as this hook's
      // error; a live one after an abort of the old one holds the page fetch in flight again, or
      // fetches the first page again when there is none.
      if (entry && sameRead(previous, goal)) {
        offSignal();
        offSignal = listen(goal.signal);
        // After the old one aborted, a new one resumes (a new route's), and one that has aborted
        // already changes nothing (`AbortSignal.any([route])` made at each render). After a
        // timeout's abort, once: `AbortSignal.timeout(ms)` made at each render is new at every
        // render its abort causes, and would fetch again without end.
        if (previous?.signal?.aborted) {
          if (goal.signal?.aborted) return;
          // Counted only when that timeout ended a page fetch of this hook's (shown as `own`).
          if (own !== undefined && isTimeout(previous.signal.reason)) {
            if (resumed) return;
            resumed = true;
          }
          own = undefined;
          entry.join(holder);
        } else if (goal.signal?.aborted) abortOwn(goal.signal.reason);
        notify();
        return;
      }
      const { key, signal, scope } = goal;
      // A new scope on the same read (the old one reset): the pages stay, and the hook holds its
      // entry's fetch in flight again (or fetches what is owed), as a holder on the new scope.
      const rescoped =
        previous !== undefined && previous.key === key && previous.stitch === goal.stitch && !scope?.aborted;
      if (entry && rescoped) {
        detach();
        attach(goal);
        if (signal?.aborted) abortOwn(signal.reason);
        else {
          own = undefined;
          entry.join(holder);
        }
        notify();
        return;
      }
      leave(superseded());
      resumed = false;
      // A hook whose signal has aborted holds no page fetch, but follows its key's entry (its
      // fetches for other holders, their end) as a holder like any other.
      if (key !== undefined && !scope?.aborted) {
        entry = joinEntry(engine, key, goal, holder);
        attach(goal);
      }
      if (key !== undefined && signal?.aborted) own = { key, error: abortError(goal.stitch, signal.reason) };
      notify();
    },

    mount() {
      mounted = true;
    },

    /** Lets go a microtask later, unless StrictMode's remount came back meanwhile. */
    unmount() {
      mounted = false;
      queueMicrotask(() => {
        if (mounted) return;
        leave(unmounted());
        target = undefined;
      });
    },

    /** The result for `key` as rendered now; the previous object when nothing changed. */
    result(
      stitch: string,
      key: string | undefined,
      policy: PagePolicy<TData, TInput, TParam>,
      scope: AbortSignal | undefined,
    ): InfiniteResult<TData, TParam> {
      // Before this hook joins (its first render), another component's entry is already shown.
      const shown =
        key === undefined ? undefined : entry && target?.key === key ? entry : findEntry(engine, key);
      const snapshot = shown?.snapshot();
      const data = snapshot?.data as InfiniteData<TData, TParam> | undefined;
      const cancelled = own?.key === key ? own : undefined;
      const mine = cancelled?.started === undefined || cancelled.started === snapshot?.started;
      const edges = data === undefined ? undefined : edgesOf(stitch, policy, data);
      const error = (mine ? cancelled?.error : undefined) ?? snapshot?.error ?? edges?.error ?? null;
      const fetching = snapshot?.fetching;
      const status = key === undefined ? 'idle' : error ? 'error' : data ? 'success' : 'pending';
      // A key nobody holds yet is fetched by the commit that joins it (not on an aborted scope):
      // say so already.
      const joining = key !== undefined && !shown && !error && !scope?.aborted;
      const isFetching = fetching !== undefined || joining;
      const hasNext = edges?.hasNext ?? false;
      const hasPrevious = edges?.hasPrevious ?? false;
      const next = {
        status,
        data,
        error,
        isFetching,
        isFetchingNext: fetching === 'next',
        isFetchingPrevious: fetching === 'previous',
        hasNext,
        hasPrevious,
      };
      if (
        last &&
        (Object.keys(next) as Array<keyof typeof next>).every((name) => last?.[name] === next[name])
      ) {
        return last;
      }
      // The status is derived from the same data and error, so the union's pairing holds.
      last = { ...next, fetchNext, fetchPrevious, refetch, cancel } as InfiniteResult<TData, TParam>;
      return last;
    },
  };
}
