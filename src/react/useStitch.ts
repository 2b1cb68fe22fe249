import { useCallback, useContext, useEffect, useMemo } from 'react';
import type { Engine, InputArg, Stitch, StitchInput } from '../index';
import { checkOptions, stitchName, USE_STITCH } from './checkOptions';
import { ScopeContext } from './context';
import { createKeyMemo } from './inputKey';
import { createObserver, type QueryResult } from './observer';
import { keepPreviousData, type PlaceholderData } from './placeholder';
import { useEngine } from './provider';
import { type HookInput, readInput } from './readInput';
import { createSelector, sameResult } from './select';
import { useSelectedStore } from './selectedStore';
import { type RefetchTriggers, TriggerContext, watchTriggers } from './triggers';

/** Options of {@link useStitch}; the refetch triggers default to `<StitchProvider defaults>`. */
export interface UseStitchOptions<TData = unknown, TSelected = TData> extends RefetchTriggers {
  /**
   * An external signal (a route controller, say): its abort shows as this hook's error, reason
   * intact. A new one in place of another, for the same input, takes over the request in flight
   * (nothing is sent again, and the old one no longer counts) and leaves settled data as it is;
   * after the old one aborted the read, the new one reads again (after a timeout's abort, once:
   * `AbortSignal.timeout(ms)` made at each render would otherwise read again every `ms`). A new
   * one that has aborted already reads nothing. A signal given to a hook that had none takes
   * over its request in flight the same way.
   */
  signal?: AbortSignal | undefined;
  /**
   * Show the previous input's data (with `isPlaceholder`) while the new one loads: a shorthand
   * for `placeholderData: (previous) => previous`, and it wins over `placeholderData`. @default false
   */
  keepPrevious?: boolean | undefined;
  /** Wait this long (ms) after a re-key before sending; a re-key inside the window sends nothing. @default 0 */
  debounce?: number | undefined;
  /** `false` keeps the hook idle. @default true */
  enabled?: boolean | undefined;
  /** Data younger than this (ms) is shown without a request on mount or re-key. @default 0 */
  staleTime?: number | undefined;
  /**
   * Projects the data: the hook returns `select(data)` as its `data`, and the component re-renders
   * only when that value (by `Object.is`), the status, the error or a flag changes. `select` runs
   * again only for new data or a new `select`; return a primitive or a memoized object. One
   * that throws shows as `status: 'error'` (`kind: 'config'`, `field: 'select'`, `cause` what it
   * threw), as TanStack Query does, rather than reaching an error boundary.
   */
  select?: ((data: TData) => TSelected) | undefined;
  /**
   * Data for a key that has none yet, or a function making it (called once per key; React 18's
   * StrictMode mounts twice from scratch in development, and calls it twice). It is stored
   * in the cache as if fetched when the hook first rendered the key, so it is shown at once
   * (`status: 'success'`) and, like fetched data, is fresh for `staleTime` (or the stitch's
   * `cache.ttl`): with the default `staleTime: 0` the hook refetches it in the background at once
   * (`isFetching: true`); with a longer one it sends nothing until the data is older than that.
   */
  initialData?: TData | (() => TData | undefined) | undefined;
  /**
   * Shown with `isPlaceholder: true` while the key has no data: a value, or a function of the
   * previous key's data (`undefined` if none). Never stored in the cache; `select` applies to it.
   * A function is called once per key and previous data: one written inline is a new function at
   * every render, and is not called again for them (pass a value to show what a render computed).
   */
  placeholderData?: PlaceholderData<TData> | undefined;
  /**
   * Not an option of this hook: {@link useSuspenseStitch} suspends. It is a hook of its own so that
   * an app that never suspends does not bundle it; `true` here is a `config` error naming it.
   */
  suspense?: false | undefined;
}

/** `initialData` for `key`, stamped now, unless the key holds data already. */
function initialFor<TData>(
  engine: Engine,
  key: string | undefined,
  given: UseStitchOptions<TData>['initialData'],
) {
  if (key === undefined || given === undefined || engine.getSnapshot(key).data !== undefined)
    return undefined;
  const data = typeof given === 'function' ? (given as () => TData | undefined)() : given;
  return data === undefined ? undefined : { data, updatedAt: engine.clock.now() };
}

/**
 * What {@link useStitch} returns for an input it reads with `initialData` (and no `select`, which
 * may fail): the key's data from the first render on, whatever the status.
 */
export type DefinedQueryResult<TData> = Exclude<QueryResult<TData>, { status: 'idle' }> & { data: TData };

/**
 * Reads a stitch for `input`, with `initialData`: the data is there from the first render on (a
 * failure or a cancel keeps it), as TanStack Query's `useQuery` with `initialData` types it.
 */
export function useStitch<TData, TInput extends StitchInput>(
  stitch: Stitch<TData, TInput>,
  input: InputArg<TInput>,
  options: UseStitchOptions<NoInfer<TData>> & {
    initialData: NoInfer<TData> | (() => NoInfer<TData>);
    enabled?: true | undefined;
    select?: undefined;
  },
): DefinedQueryResult<TData>;
/**
 * Reads a stitch for `input` and keeps the component in sync with it. The hook is one reference
 * on the engine's coalescer: components reading the same input share one request; unmounting or
 * re-keying lets go of this hook's reference only (the request is aborted, its socket closed,
 * when it was the last one). Its own unmounts and re-keys never show as errors; an abort of
 * `options.signal` or a `cancel(reason)` does, with `error.cause === reason`.
 */
export function useStitch<TData, TInput extends StitchInput, TSelected = TData>(
  stitch: Stitch<TData, TInput>,
  input: HookInput<TInput>,
  options?: UseStitchOptions<NoInfer<TData>, TSelected>,
): QueryResult<TSelected>;
export function useStitch<TData, TInput extends StitchInput, TSelected = TData>(
  stitch: Stitch<TData, TInput>,
  input: HookInput<TInput>,
  options: UseStitchOptions<NoInfer<TData>, TSelected> = {},
): QueryResult<TSelected> {
  checkOptions('useStitch', stitchName('useStitch', stitch), options, USE_STITCH);
  const engine = useEngine();
  const scope = useContext(ScopeContext);
  const settings = useContext(TriggerContext);
  const observer = useMemo(() => createObserver<TData, TInput>(engine), [engine]);
  const keyOf = useMemo(() => createKeyMemo(engine), [engine]);
  const project = useMemo(() => createSelector<TData, TSelected>(), []);
  const { idle, value } = readInput<TInput>(
    'useStitch',
    stitch,
    input,
    options.enabled,
    ': use useStitchMutation',
  );
  const key = idle ? undefined : keyOf(stitch, value);
  const { signal, debounce = 0, staleTime = 0, select } = options;
  const placeholderData = options.keepPrevious ? keepPreviousData<TData> : options.placeholderData;
  // Read once per key, as the data a first fetch would have brought.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above.
  const initial = useMemo(
    () => observer.once(key, () => initialFor(engine, key, options.initialData)),
    [engine, observer, key],
  );

  const ttl = stitch.definition.cache?.ttl ?? 0;
  // The same `read` while nothing it reads changed: a new one costs React an effect and a
  // consistency check at every render of every reader.
  const read = useCallback(
    () => observer.result(key, { placeholderData, initial, debounce, staleTime, ttl }),
    [observer, key, placeholderData, initial, debounce, staleTime, ttl],
  );
  // Stable while `select` is, for the same reason as `read`: a new selector is a new snapshot getter.
  const { name } = stitch.definition;
  const selector = useCallback(
    (full: QueryResult<TData>) => project(full, select, name),
    [project, select, name],
  );
  // Called before the effects below on purpose: React hands the store its new `read` in a passive
  // effect of its own, and effects run in call order. Declared after them, a notification from
  // `observer.update` would reach React's previous `read` (the old key), whose different answer
  // costs a second commit.
  const result = useSelectedStore(observer.subscribe, read, read, selector, sameResult);

  const { defaults, focus, online } = settings;
  const refetchOnFocus = options.refetchOnFocus ?? defaults.refetchOnFocus ?? false;
  const refetchOnReconnect = options.refetchOnReconnect ?? defaults.refetchOnReconnect ?? false;
  const refetchInterval = options.refetchInterval ?? defaults.refetchInterval ?? 0;
  // One effect commits the target, mounts the observer and arms the triggers: an effect per
  // concern would cost React three per reader (a thousand readers of one key: three thousand).
  // Re-running it is cheap: `unmount` lets go only a microtask later, unless `mount` came first
  // (as it does here), and `update` keeps the request of an unchanged target.
  // `value` is read through `key`: a new object with the same content is not a new input.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above.
  useEffect(() => {
    observer.mount();
    // Stored at commit, not during a render, where it would notify other components of the key.
    if (initial && key !== undefined && engine.getSnapshot(key).data === undefined) {
      engine.hydrate({ version: 1, entries: [[key, initial.data, initial.updatedAt]] });
    }
    observer.update({ stitch, input: value, key, signal, scope, debounce, staleTime });
    const stopTriggers = watchTriggers(
      engine,
      key,
      { refetchOnFocus, refetchOnReconnect, refetchInterval },
      { focus, online },
      observer,
      stitch.definition.coalesce,
    );
    return () => {
      stopTriggers();
      observer.unmount();
    };
  }, [
    engine,
    observer,
    stitch,
    key,
    signal,
    scope,
    debounce,
    staleTime,
    initial,
    refetchOnFocus,
    refetchOnReconnect,
    refetchInterval,
    focus,
    online,
  ]);

  return result;
}
