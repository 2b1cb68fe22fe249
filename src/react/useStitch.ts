import { useContext, useEffect, useMemo, useSyncExternalStore } from 'react';
import { type Stitch, StitchError, type StitchInput } from '../index';
import { ScopeContext } from './context';
import { createObserver, type QueryResult } from './observer';
import { useEngine } from './provider';

/** Pass instead of an input to keep a hook idle: no request, `status: 'idle'`. */
export const skipToken: unique symbol = Symbol.for('stitch.skipToken');

/** Options of {@link useStitch}. */
export interface UseStitchOptions {
  /** An external signal (a route controller, say): its abort shows as this hook's error, reason intact. */
  signal?: AbortSignal;
  /** Show the previous input's data (with `isPlaceholder`) while the new one loads. @default false */
  keepPrevious?: boolean;
  /** Wait this long (ms) after a re-key before sending; a re-key inside the window sends nothing. @default 0 */
  debounce?: number;
  /** `false` keeps the hook idle. @default true */
  enabled?: boolean;
  /** Data younger than this (ms) is shown without a request on mount or re-key. @default 0 */
  staleTime?: number;
}

/**
 * Reads a stitch for `input` and keeps the component in sync with it. The hook is one reference
 * on the engine's coalescer: components reading the same input share one request; unmounting or
 * re-keying lets go of this hook's reference only (the request is aborted, its socket closed,
 * when it was the last one). Its own unmounts and re-keys never show as errors; an abort of
 * `options.signal` or a `cancel(reason)` does, with `error.cause === reason`.
 */
export function useStitch<TData, TInput extends StitchInput>(
  stitch: Stitch<TData, TInput>,
  input: TInput | typeof skipToken | null | undefined,
  options: UseStitchOptions = {},
): QueryResult<TData> {
  const engine = useEngine();
  const scope = useContext(ScopeContext);
  const observer = useMemo(() => createObserver<TData, TInput>(engine), [engine]);
  const { name, method } = stitch.definition;
  if (!stitch.definition.cache) {
    throw new StitchError({
      kind: 'config',
      field: 'method',
      stitch: name,
      message: `useStitch reads GET and HEAD stitches; '${name}' is a ${method}: use useStitchMutation`,
    });
  }
  const idle = input === skipToken || input === null || options.enabled === false;
  const value = idle ? undefined : (input as TInput | undefined);
  const key = idle ? undefined : engine.keyOf(stitch, value);
  const { signal, debounce = 0, staleTime = 0, keepPrevious = false } = options;

  const ttl = stitch.definition.cache.ttl;
  const read = () => observer.result(key, { keepPrevious, debounce, staleTime, ttl });
  // Called before the effects below on purpose: React hands the store its new `read` in a passive
  // effect of its own, and effects run in call order. Declared after them, a notification from
  // `observer.update` would reach React's previous `read` (the old key), whose different answer
  // costs a second commit.
  const result = useSyncExternalStore(observer.subscribe, read, read);

  useEffect(() => {
    observer.mount();
    return () => observer.unmount();
  }, [observer]);

  // `value` is read through `key`: a new object with the same content is not a new input.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above.
  useEffect(() => {
    observer.update({ stitch, input: value, key, signal, scope, debounce, staleTime });
  }, [observer, stitch, key, signal, scope, debounce, staleTime]);

  return result;
}
