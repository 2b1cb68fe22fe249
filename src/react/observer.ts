import {
  type CacheSnapshot,
  type CallArgs,
  type Engine,
  isAbortError,
  type Stitch,
  StitchError,
  type StitchInput,
  type StitchRun,
} from '../index';
import { type Follower, follow, onAbort } from './follow';
import { createPlaceholder, type PlaceholderData } from './placeholder';

/** Where a hook is: nothing to show, waiting for data, data, or a failure of its own. */
export type QueryStatus = 'idle' | 'pending' | 'success' | 'error';

/** What every {@link QueryResult} has, whatever its status. */
export interface QueryControls {
  /** Whether a request for this key is in flight (this hook's or another's). */
  isFetching: boolean;
  /** Whether `data` is a placeholder shown while this key loads (`placeholderData`, `keepPrevious`). */
  isPlaceholder: boolean;
  /**
   * Fetches this key again, skipping the cache (this hook's previous reference is let go). A
   * request another reader of the key has in flight is joined, not sent twice.
   */
  refetch(): void;
  /** Cancels this hook's request with `reason`; the hook then shows it as its error. */
  cancel(reason?: unknown): void;
}

/**
 * What `useStitch` returns, a union on `status`: `success` has `data: TData`, `error` has
 * `error: StitchError` (its `cause` intact). A new object only when one of its fields changed.
 */
export type QueryResult<TData> = QueryControls &
  (
    | { status: 'idle'; data: undefined; error: null }
    /** `data` is a placeholder while this key loads, with `placeholderData` (`isPlaceholder`). */
    | { status: 'pending'; data: TData | undefined; error: null }
    | { status: 'success'; data: TData; error: null }
    /**
     * `data` is what the key held when this hook's own request failed, if anything. Newer data
     * (another reader's request) ends a failure, not a cancel the hook asked for.
     */
    | { status: 'error'; data: TData | undefined; error: StitchError }
  );

/** What an observer works for, as of the last commit. */
export interface ObserverTarget<TData, TInput extends StitchInput> {
  stitch: Stitch<TData, TInput>;
  input: TInput | undefined;
  /** `undefined`: idle (skipped or disabled). */
  key: string | undefined;
  signal: AbortSignal | undefined;
  scope: AbortSignal | undefined;
  debounce: number;
  staleTime: number;
}

/** What a render asks of `result`: its own options, and the stitch's cache ttl. */
export interface ResultView<TData> {
  placeholderData: PlaceholderData<TData> | undefined;
  /** `initialData` the hook will store for the key when it commits, if the key has none by then. */
  initial: { data: TData; updatedAt: number } | undefined;
  debounce: number;
  staleTime: number;
  ttl: number;
}

/**
 * The observer's own work for one key, as a union: a debounce wait (on its own signal) or a run.
 * `cancelled` marks a caller's cancel, the only abort a hook shows; its own re-keys and unmounts
 * are never shown.
 */
type Phase =
  | { type: 'idle' }
  | { type: 'waiting'; key: string; link: Follower; cancelled: boolean }
  /** `link`: the hook's own signal for the run, when it was given a signal (or waited out a debounce). */
  | { type: 'fetching'; key: string; run: StitchRun<unknown>; link: Follower | undefined; cancelled: boolean }
  /**
   * `dataAt`: when the key's data was stored, as of the settling (its error is for that data).
   * `run`: the run that settled it, which holds the key's background refresh if it was served
   * stale data (`cache.staleWhileRevalidate`), until its `cancel`.
   */
  | {
      type: 'settled';
      key: string;
      error: StitchError | null;
      dataAt: number | undefined;
      run?: StitchRun<unknown> | undefined;
    };

/** Ends a wait or lets go of a run with `reason`. */
const stop = (phase: Extract<Phase, { type: 'waiting' | 'fetching' }>, reason: unknown) => {
  if (phase.type === 'waiting') phase.link.abort(reason);
  else phase.run.cancel(reason);
};

/** What a hook reads from: the same stitch, key, signal and scope keep its reference as it is. */
interface TargetIdentity {
  readonly stitch: unknown;
  readonly key: string | undefined;
  readonly signal: AbortSignal | undefined;
  readonly scope: AbortSignal | undefined;
}

/** Whether a commit reads what `previous` read: the same stitch, key and scope, whatever its signal. */
export const sameRead = (previous: TargetIdentity | undefined, next: TargetIdentity): boolean =>
  previous !== undefined &&
  previous.key === next.key &&
  previous.stitch === next.stitch &&
  previous.scope === next.scope;

/** Whether a commit changes nothing a hook's reference depends on. */
export const sameTarget = (previous: TargetIdentity | undefined, next: TargetIdentity): boolean =>
  sameRead(previous, next) && previous?.signal === next.signal;

/**
 * Whether a commit only hands a new signal, neither aborted, to a read whose signal never aborted
 * it: the new one is for the next request, and nothing is sent now. A signal made per render
 * (`AbortSignal.timeout(…)` written inline) would otherwise send again after every answer.
 */
export const newSignalOnly = (previous: TargetIdentity | undefined, next: TargetIdentity): boolean =>
  sameRead(previous, next) && !previous?.signal?.aborted && !next.signal?.aborted;

/** Whether `reason` is a deadline's (`AbortSignal.timeout`'s `TimeoutError`). */
export const isTimeout = (reason: unknown): boolean =>
  (reason as { name?: unknown } | null)?.name === 'TimeoutError';

/** The reason a hook lets go of its request with when it moves to another input. */
export const superseded = () => new DOMException('Superseded: the hook moved to another input', 'AbortError');
/** The reason a hook lets go of its request with when its component unmounts. */
export const unmounted = () => new DOMException('The component unmounted', 'AbortError');

/**
 * One mounted hook's link to the engine: exactly one coalescer reference for its key at a time.
 * No React in here; `useStitch` wires it into `useSyncExternalStore`.
 */
export function createObserver<TData, TInput extends StitchInput>(engine: Engine) {
  let target: ObserverTarget<TData, TInput> | undefined;
  let phase: Phase = { type: 'idle' };
  let mounted = false;
  const listeners = new Set<() => void>();
  let watched: { key: string; stop: () => void } | undefined;
  let placeholder: { key: string; data: TData } | undefined;
  let last: QueryResult<TData> | undefined;
  let made: { key: string | undefined; value: unknown } | undefined;
  /** Whether a new signal has read again since a timeout's abort of the read (see `update`). */
  let resumed = false;
  const placeholderOf = createPlaceholder<TData>();

  /** Whether `snapshot` holds data younger than `ms`; a zero `ms` never does (future stamps included). */
  const fresh = ({ updatedAt, stale }: CacheSnapshot<unknown>, ms: number) =>
    ms > 0 && !stale && updatedAt !== undefined && engine.clock.now() - updatedAt < ms;
  const youngerThan = (key: string, ms: number) => fresh(engine.getSnapshot(key), ms);

  const notify = () => {
    for (const listener of [...listeners]) listener();
  };

  const remember = () => {
    const key = target?.key;
    const data = key === undefined ? undefined : engine.getSnapshot<TData>(key).data;
    if (key !== undefined && data !== undefined && (placeholder?.key !== key || placeholder.data !== data))
      placeholder = { key, data };
  };

  /**
   * Follows the snapshot of `key`. An invalidation of the key (a write changed it) makes a
   * mounted reader refetch at once, unless it is still waiting out its debounce (that wait ends
   * in a fetch anyway); readers of one key share that refetch through the coalescer. The refetch
   * starts a microtask later, once every listener of this change has run: starting it from inside
   * the cache's notification would re-enter the cache before the shared request is registered.
   */
  const watch = (key: string | undefined) => {
    if (watched?.key === key) return;
    watched?.stop();
    if (key === undefined) {
      watched = undefined;
      return;
    }
    let invalidated = engine.getSnapshot(key).invalidated;
    const onChange = () => {
      const snapshot = engine.getSnapshot(key);
      const seen = snapshot.invalidated;
      if (seen !== invalidated) {
        invalidated = seen;
        queueMicrotask(() => {
          if (mounted && target?.key === key && phase.type !== 'waiting') refetch();
        });
      }
      remember();
      // A failure of the read this hook waits on shows once its run settles (a few microtasks
      // later), with its error: shown now, a render would be neither fetching nor failed. So does
      // the end of a request this hook's cancel (or its signal) has just let go of.
      const ending =
        phase.type === 'fetching' &&
        phase.key === key &&
        !snapshot.fetching &&
        (Boolean(snapshot.error) || phase.cancelled || target?.signal?.aborted === true);
      if (ending) return;
      notify();
    };
    watched = { key, stop: engine.subscribe(key, onChange) };
  };

  /**
   * Lets go of the current wait or request, if any, without ever showing its abort; the reason is
   * built only then (a DOMException is dear).
   */
  const release = (reason: () => unknown, later = false) => {
    const current = phase;
    phase = { type: 'idle' };
    if (current.type === 'idle') return;
    const letGo = () => {
      if (current.type === 'waiting' || current.type === 'fetching') stop(current, reason());
      else letGoOfRefresh(current, reason);
    };
    if (later) queueMicrotask(letGo);
    else letGo();
  };

  /**
   * A read served stale lets go of the key's background refresh it holds, while one runs (the
   * reason is built only then: a DOMException is dear).
   */
  const letGoOfRefresh = (current: Phase, reason: () => unknown) => {
    if (current.type === 'settled' && current.run && engine.getSnapshot(current.key).fetching)
      current.run.cancel(reason());
  };

  const settle = (key: string, error: StitchError | null, run?: StitchRun<unknown>) => {
    if (error?.kind !== 'aborted') resumed = false;
    phase = { type: 'settled', key, error, dataAt: engine.getSnapshot(key).updatedAt, run };
    remember();
    notify();
  };

  /**
   * Sends the call. Its signal is `link`, the hook's own follower of the caller's signal (and the
   * scope's), made when a signal is given (a new one then takes over without a new request) or
   * for a debounce wait; else the scope's own, as is: a signal is dear, and the hook's own
   * re-keys, unmounts and cancels let go of the run with `run.cancel`.
   */
  const load = (
    goal: ObserverTarget<TData, TInput>,
    key: string,
    link: Follower | undefined,
    revalidate: boolean,
  ) => {
    const signal = link?.signal ?? goal.scope;
    const run = goal.stitch(...([goal.input, { engine, signal, revalidate }] as CallArgs<TInput>));
    const current: Extract<Phase, { type: 'fetching' }> = {
      type: 'fetching',
      key,
      run,
      link,
      cancelled: false,
    };
    phase = current;
    run.safe().then((result) => {
      current.link?.dispose();
      if (phase !== current) return;
      // The signal as of now: the component may have handed the run a new one since.
      const shown = result.ok || !isAbortError(result.error) || current.cancelled || target?.signal?.aborted;
      // Kept: a run served stale holds the key's background refresh until its `cancel`.
      settle(key, shown ? result.error : null, run);
    });
    notify();
  };

  /** Starts the work for `goal` and tells the listeners (once: each path notifies). */
  const start = (goal: ObserverTarget<TData, TInput>, revalidate: boolean) => {
    const { key } = goal;
    if (key === undefined) {
      notify();
      return;
    }
    if (!revalidate && youngerThan(key, goal.staleTime)) {
      settle(key, null);
      return;
    }
    if (goal.debounce <= 0 || revalidate) {
      load(goal, key, goal.signal ? follow(goal.signal, goal.scope) : undefined, revalidate);
      return;
    }
    // A re-key inside the window releases this wait: the request is never sent.
    const link = follow(goal.signal, goal.scope);
    const current: Phase = { type: 'waiting', key, link, cancelled: false };
    phase = current;
    engine.clock.sleep(goal.debounce, link.signal).then(
      () => {
        if (phase === current) load(goal, key, link, false);
      },
      (reason: unknown) => {
        link.dispose();
        if (phase !== current) return;
        const shown = current.cancelled || target?.signal?.aborted;
        settle(key, shown ? abortError(goal.stitch, reason) : null);
      },
    );
    notify();
  };

  /** Whether committing a key with `snapshot` will send a request (not debounced, no data young enough). */
  const willFetch = (snapshot: CacheSnapshot<TData> | undefined, view: ResultView<TData>) =>
    snapshot !== undefined &&
    view.debounce <= 0 &&
    !fresh(snapshot, view.staleTime) &&
    !fresh(snapshot, view.ttl);

  const refetch = () => {
    if (!target || target.key === undefined) return;
    resumed = false;
    // A background refresh in flight is joined by the refetch before the stale read lets go of it.
    const before = phase;
    if (before.type !== 'settled') release(superseded);
    start(target, true);
    letGoOfRefresh(before, superseded);
  };

  const cancel = (reason: unknown = new DOMException('Cancelled', 'AbortError')) => {
    if (phase.type === 'settled' && phase.run && target) {
      // The background refresh a read served stale holds: let go of it, and show the cancel.
      const { key, run } = phase;
      if (run.cancel(reason)) settle(key, abortError(target.stitch, reason));
      return;
    }
    if (phase.type !== 'waiting' && phase.type !== 'fetching') return;
    phase.cancelled = true;
    stop(phase, reason);
  };

  return {
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },

    /** Commits a target: keeps the current reference if nothing that matters changed. */
    update(goal: ObserverTarget<TData, TInput>) {
      const previous = target;
      target = goal;
      watch(goal.key);
      remember();
      if (sameTarget(previous, goal) && phase.type !== 'idle') return;
      // A live new signal for a read that settled without being aborted keeps it, whether or not
      // the old one aborted since: that abort cancelled nothing.
      if (
        sameRead(previous, goal) &&
        !goal.signal?.aborted &&
        phase.type === 'settled' &&
        phase.error?.kind !== 'aborted'
      )
        return;
      // A new signal changes nothing settled, and a request in flight (or a debounce) follows it
      // from now on. One sent without a signal of its own gets one now, which cancels the run.
      if (newSignalOnly(previous, goal)) {
        if (phase.type === 'settled') return;
        if ((phase.type === 'fetching' || phase.type === 'waiting') && phase.link) {
          phase.link.follow(goal.signal, goal.scope);
          return;
        }
        if (phase.type === 'fetching' && goal.signal) {
          const { run } = phase;
          phase.link = follow(goal.signal, goal.scope);
          onAbort(phase.link.signal, (reason) => run.cancel(reason));
          return;
        }
      }
      if (!sameRead(previous, goal)) resumed = false;
      else if (previous?.signal?.aborted && phase.type === 'settled' && phase.error?.kind === 'aborted') {
        // The old signal aborted the read, and its abort shows: a new signal reads again (a new
        // route's), unless it has aborted already (`AbortSignal.any([route])` made at each render
        // is). After a timeout's abort, once: `AbortSignal.timeout(ms)` made at each render is new
        // at every render its abort causes, and would read again every `ms` without end.
        if (goal.signal?.aborted) return;
        if (isTimeout(previous.signal.reason)) {
          if (resumed) return;
          resumed = true;
        }
      }
      // Let go a microtask later, as an unmount does: a component that starts reading the old key
      // in the same commit (a card showing the query a search box just left) joins its request.
      release(superseded, true);
      start(goal, false);
    },

    mount() {
      mounted = true;
    },

    /**
     * `make()` once for `key` (its `initialData`, say), however often React runs the memo that
     * asks (StrictMode runs each twice); again only for another key.
     */
    once<T>(key: string | undefined, make: () => T): T {
      if (made === undefined || made.key !== key) made = { key, value: make() };
      return made.value as T;
    },

    /**
     * A refetch asked for by a trigger (focus, reconnect, a poll): none while this hook's own
     * request or debounce is under way or its signal has aborted, nor, unless `always`, while its
     * data is fresh (as on mount). It joins a request another reader has in flight for the key.
     */
    refetchInBackground(always: boolean) {
      if (!mounted || target?.key === undefined || phase.type === 'waiting' || phase.type === 'fetching')
        return;
      const { key, staleTime, stitch, signal, scope } = target;
      if (signal?.aborted || scope?.aborted) return;
      const ttl = stitch.definition.cache?.ttl ?? 0;
      if (always || !(youngerThan(key, staleTime) || youngerThan(key, ttl))) refetch();
    },

    /**
     * Releases the reference a microtask later, unless the hook mounted again meanwhile: under
     * StrictMode the simulated unmount and remount happen in one go, and the remount reuses it.
     */
    unmount() {
      mounted = false;
      queueMicrotask(() => {
        if (mounted) return;
        release(unmounted);
        watch(undefined);
        target = undefined;
      });
    },

    /** The result for `key` as rendered now; the previous object when nothing changed. */
    result(key: string | undefined, view: ResultView<TData>): QueryResult<TData> {
      const { initial } = view;
      let snapshot = key === undefined ? undefined : engine.getSnapshot<TData>(key);
      // Before the commit that stores `initialData`, show it as if it were stored already.
      if (initial && snapshot?.data === undefined)
        snapshot = { ...snapshot, ...initial } as CacheSnapshot<TData>;
      const own = phase.type !== 'idle' && phase.key === key ? phase : undefined;
      // A failure of this hook's own stands until the key has newer data (another reader's); a
      // cancel it asked for (its signal, `cancel`) stands for good: that is what it asked to see.
      const error =
        own?.type === 'settled' && (own.error?.kind === 'aborted' || own.dataAt === snapshot?.updatedAt)
          ? own.error
          : null;
      let data = snapshot?.data;
      // An idle hook shows nothing, nor does a failed one: a placeholder is for a key that is loading.
      if (key !== undefined && data === undefined && !error && view.placeholderData !== undefined) {
        data = placeholderOf(
          view.placeholderData,
          placeholder?.key === key ? undefined : placeholder?.data,
          key,
        );
      }
      const isPlaceholder = data !== snapshot?.data;
      const status: QueryStatus =
        key === undefined ? 'idle' : error ? 'error' : snapshot?.data !== undefined ? 'success' : 'pending';
      // Before the commit that starts this key's request, say it is fetching already: the start
      // itself then changes nothing the hook returns, and costs no second render.
      const isFetching = (snapshot?.fetching ?? false) || (own === undefined && willFetch(snapshot, view));
      if (
        last &&
        last.status === status &&
        last.data === data &&
        last.error === error &&
        last.isFetching === isFetching &&
        last.isPlaceholder === isPlaceholder
      ) {
        return last;
      }
      // The status is derived from the same data and error, so the union's pairing holds.
      last = { status, data, error, isFetching, isPlaceholder, refetch, cancel } as QueryResult<TData>;
      return last;
    },
  };
}

/**
 * What a reason says, as a run's error message says it: an Error's (or any object's) message, a
 * string itself, or the platform's generic line.
 */
export function messageOf(reason: unknown): string {
  if (typeof reason === 'object' && reason !== null && 'message' in reason) return String(reason.message);
  return typeof reason === 'string' ? reason : 'The operation was aborted';
}

/** The error a hook shows when a function of the user's (`select`, `getNextPageParam`) threw: `config`, naming it. */
export function userError(hook: string, stitch: string, field: string, cause: unknown): StitchError {
  const message = `${hook}: \`${field}\` threw: ${messageOf(cause)}`;
  return new StitchError({ kind: 'config', field, message, cause, stitch });
}

/** The error a hook shows for a cancel of its own that no run reported: the same shape a run gives. */
export function abortError(
  stitch: Stitch<unknown, never> | { definition: { name: string } },
  reason: unknown,
  ended?: Pick<StitchError, 'attempts' | 'requests' | 'ambiguous' | 'url' | 'idempotencyKey'>,
): StitchError {
  const message = messageOf(reason);
  // The read the abort ended says what it had sent (a suspended read's, shared by its readers).
  const sent = ended && {
    attempts: ended.attempts,
    requests: ended.requests,
    ambiguous: ended.ambiguous,
    url: ended.url,
    idempotencyKey: ended.idempotencyKey,
  };
  return new StitchError({
    kind: 'aborted',
    message,
    cause: reason,
    stitch: stitch.definition.name,
    ...sent,
  });
}

/** An observer, as `createObserver` builds it. */
export type Observer<TData, TInput extends StitchInput> = ReturnType<typeof createObserver<TData, TInput>>;
