import { useContext, useEffect, useMemo, useRef } from 'react';
import { type CallArgs, type InputArg, type Stitch, StitchError, type StitchInput } from '../index';
import { ScopeContext } from './context';
import { type Follower, follow } from './follow';
import { type QueryControls, type QueryResult, unmounted } from './observer';
import { useEngine } from './provider';
import { type HookInput, readInput } from './readInput';
import { createSelector } from './select';
import type { UseStitchOptions } from './useStitch';
import { useSuspenseStitch } from './useSuspenseStitch';

/**
 * `useStitch` with `suspense: true`: {@link useSuspenseStitch} (one reference while it suspends,
 * a failure thrown to the error boundary) under `useStitch`'s result, always a success. `select`
 * applies, and one that throws reaches the boundary too. `refetch()` fetches the key again in the
 * background (its data shown meanwhile; a request in flight is joined), as this hook's own
 * request: `cancel(reason)`, a re-key or unmount aborts it, and the data stays.
 */
export function useSuspended<TData, TInput extends StitchInput, TSelected>(
  stitch: Stitch<TData, TInput>,
  input: HookInput<TInput>,
  options: UseStitchOptions<TData, TSelected>,
): QueryResult<TSelected> {
  const { name } = stitch.definition;
  if (readInput('useStitch', stitch, input, options.enabled, ': use useStitchMutation').idle) {
    throw new StitchError({
      kind: 'config',
      field: 'suspense',
      stitch: name,
      message:
        'useStitch: a `suspense` read waits for data, so it cannot be idle (skipToken, null, enabled: false): render it once its input is known',
    });
  }
  const value = input as InputArg<TInput>;
  const { data, isFetching } = useSuspenseStitch(stitch, value, { signal: options.signal });
  const engine = useEngine();
  const scope = useContext(ScopeContext);
  const key = engine.keyOf<TInput>(stitch, value);
  const refetching = useRef<Follower | undefined>(undefined);
  // The newest input and signal for `refetch`, which stays the same function for the key.
  const latest = useRef({ value, signal: options.signal });
  latest.current = { value, signal: options.signal };
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the input.
  useEffect(
    () => () => {
      refetching.current?.abort(unmounted());
      refetching.current = undefined;
    },
    [engine, stitch, key, scope],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the input.
  const controls = useMemo<Omit<QueryControls, 'isFetching' | 'isPlaceholder'>>(
    () => ({
      refetch() {
        const previous = refetching.current;
        const link = follow(latest.current.signal, scope);
        refetching.current = link;
        const call = stitch(
          ...([latest.current.value, { engine, signal: link.signal, revalidate: true }] as CallArgs<TInput>),
        );
        call.safe().then(() => link.dispose());
        // After the new call joined the request in flight, so letting go of it sends nothing again.
        previous?.abort(new DOMException('A newer refetch took over', 'AbortError'));
      },
      cancel(reason: unknown = new DOMException('Cancelled', 'AbortError')) {
        refetching.current?.abort(reason);
        refetching.current = undefined;
      },
    }),
    [engine, stitch, key, scope],
  );
  const full = useMemo(
    () => ({ status: 'success', data, error: null, isFetching, isPlaceholder: false, ...controls }) as const,
    [data, isFetching, controls],
  );
  const project = useMemo(() => createSelector<TData, TSelected>(), []);
  const result = project(full, options.select, name);
  if (result.error) throw result.error;
  return result;
}
