import { useContext, useEffect, useMemo, useSyncExternalStore } from 'react';
import type { Stitch, StitchInput } from '../index';
import { checkOptions, stitchName, USE_STITCH_INFINITE } from './checkOptions';
import { ScopeContext } from './context';
import type { PagePolicy } from './infinite';
import { createInfiniteObserver, type InfiniteResult } from './infiniteObserver';
import { useEngine } from './provider';
import { type HookInput, readInput } from './readInput';
import { type RefetchTriggers, TriggerContext, watchTriggers } from './triggers';

/** Options of {@link useStitchInfinite}: how pages follow each other, and how the hook runs. */
export interface UseStitchInfiniteOptions<TData, TInput extends StitchInput, TParam>
  extends PagePolicy<TData, TInput, TParam>,
    RefetchTriggers {
  /**
   * An external signal: its abort cancels the page fetch in flight and shows as this hook's error,
   * reason intact. A new one for the same input takes over: the pages and the page in flight stay.
   * After the old one aborted, a new one resumes (fetching the first page if there is none; after
   * a timeout's abort, once: `AbortSignal.timeout(ms)` made at each render would otherwise fetch
   * again every `ms`). A new one that has aborted already changes nothing.
   */
  signal?: AbortSignal | undefined;
  /** `false` keeps the hook idle. @default true */
  enabled?: boolean | undefined;
}

/**
 * Reads a stitch page by page, as TanStack Query's `useInfiniteQuery` does: the first page with
 * `initialPageParam`, each next one with the param `getNextPageParam` derives from the page
 * before (`fetchNext()`), each previous one with `getPreviousPageParam` (`fetchPrevious()`), the
 * param put into the input by `pageInput`. Every page request is a call of the stitch on the
 * engine (cache, coalescer, retries, breaker, trace).
 *
 * Components reading the same stitch and input share one list of pages and one page fetch at a
 * time, on which each is one reference. Re-keying or unmounting lets go of that reference only:
 * the page request in flight is aborted (its socket closed) when it was the last, nothing else
 * is re-requested, and none of it shows as an error. A `cancel(reason)` or an abort of
 * `options.signal` does show, with `error.cause === reason`. The pages live as long as a
 * component reads them (each page's data also stays in the engine's cache as any read's does),
 * and each follows its cache key: `engine.setData` on a page's input, or another reader's fetch
 * of it, shows in the list, except during a first fetch or a refetch, which replace the pages
 * all together. The refetch triggers (`refetchOnFocus`, `refetchOnReconnect`, `refetchInterval`,
 * defaulting to `<StitchProvider defaults>`) refetch the pages as `refetch()` does, never beside a
 * page fetch in flight; a poll in flight is one more page fetch this hook holds.
 */
export function useStitchInfinite<TData, TInput extends StitchInput, TParam>(
  stitch: Stitch<TData, TInput>,
  input: HookInput<TInput>,
  options: UseStitchInfiniteOptions<TData, TInput, TParam>,
): InfiniteResult<TData, TParam> {
  checkOptions('useStitchInfinite', stitchName('useStitchInfinite', stitch), options, USE_STITCH_INFINITE);
  const engine = useEngine();
  const scope = useContext(ScopeContext);
  const observer = useMemo(() => createInfiniteObserver<TData, TInput, TParam>(engine), [engine]);
  const { idle, value } = readInput<TInput>('useStitchInfinite', stitch, input, options.enabled);
  const key = idle ? undefined : engine.keyOf(stitch, value);
  const { signal } = options;

  const read = () => observer.result(stitch.definition.name, key, options, scope);
  const result = useSyncExternalStore(observer.subscribe, read, read);

  useEffect(() => {
    observer.mount();
    return () => observer.unmount();
  }, [observer]);

  // `value` is read through `key`; `options` carries the page functions, which may be new
  // closures on every render without being a new input.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above.
  useEffect(() => {
    observer.update({ stitch, input: value, key, signal, scope, policy: options });
  }, [observer, stitch, key, signal, scope, options]);

  const { defaults, focus, online } = useContext(TriggerContext);
  const refetchOnFocus = options.refetchOnFocus ?? defaults.refetchOnFocus ?? false;
  const refetchOnReconnect = options.refetchOnReconnect ?? defaults.refetchOnReconnect ?? false;
  const refetchInterval = options.refetchInterval ?? defaults.refetchInterval ?? 0;
  useEffect(
    () =>
      watchTriggers(
        engine,
        key,
        { refetchOnFocus, refetchOnReconnect, refetchInterval },
        { focus, online },
        observer,
        false,
      ),
    [engine, observer, key, refetchOnFocus, refetchOnReconnect, refetchInterval, focus, online],
  );

  return result;
}
