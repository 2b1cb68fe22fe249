import { useCallback, useContext, useEffect, useInsertionEffect, useRef, useState } from 'react';
import {
  checkMutationOptions,
  type InputArg,
  type MutationLifecycle,
  mintKey,
  mutate as runMutation,
  type Stitch,
  StitchError,
  type StitchInput,
} from '../index';
import { ScopeContext } from './context';
import { follow } from './follow';
import { useEngine } from './provider';

/** Where a mutation is. */
export type MutationStatus = 'idle' | 'pending' | 'success' | 'error';

/** The arguments of `mutate`: the input is required when it has a required field. */
export type MutateArgs<TInput> = Partial<TInput> extends TInput ? [input?: TInput] : [input: TInput];

/** A mutation's outcome, a union on `status`: `success` has `data`, `error` a `StitchError`. */
export type MutationState<TData> =
  | { status: 'idle' | 'pending'; data: undefined; error: null }
  | { status: 'success'; data: TData; error: null }
  | { status: 'error'; data: undefined; error: StitchError };

/** What `useStitchMutation` returns. */
export type MutationResult<TData, TInput extends StitchInput> = MutationState<TData> &
  MutationControls<TData, TInput>;

/** What every {@link MutationResult} has, whatever its status. */
export interface MutationControls<TData, TInput extends StitchInput> {
  /**
   * The idempotency key of the current intent: kept across re-issues until success or `reset()`.
   * Sent with a stitch that has `idempotency: true`; one with `keyOf` sends its own key instead.
   */
  idempotencyKey: string;
  /**
   * Sends the write; the outcome lands in `status`, `data` and `error`. It takes the input alone:
   * a second argument (TanStack Query's per-call callbacks) is a `config` error naming `mutate`.
   */
  mutate(...args: MutateArgs<TInput>): void;
  /** Sends the write and returns its data (rejects with a `StitchError`). */
  mutateAsync(...args: MutateArgs<TInput>): Promise<TData>;
  /** Cancels the write in flight with `reason`; the key is kept, so re-issuing is safe. */
  cancel(reason?: unknown): void;
  /**
   * Back to idle, with a new intent (a new idempotency key). A write in flight is let finish, not
   * aborted; the next mutation waits for it to settle (and roll back) before its own `onMutate`.
   */
  reset(): void;
}

const IDLE: MutationState<never> = { status: 'idle', data: undefined, error: null };

/** The mutation in flight: its controller, and a promise of the end of its lifecycle (rollback included). */
interface InFlight {
  readonly controller: AbortController;
  readonly settled: Promise<void>;
}

/**
 * How long (ms) a success stays recorded under an intent's key, which the hook renews at once:
 * long enough for a call that waited on the key while it was in flight to find it, without a
 * day's worth of answers held in memory (an autosave every few seconds would hold thousands).
 */
const INTENT_RECORD = 60_000;

/**
 * Runs a write with one idempotency key per user intent. After an ambiguous failure (the user
 * cancelled after the request left, say), sending the same intent again reuses the key, so the
 * vendor sees a duplicate, not a second charge; success or `reset()` starts a new intent (call it
 * before sending a changed body: a vendor answers a reused key with the first write's outcome,
 * or refuses it). The enclosing `StitchScope` aborts a write in flight when it resets;
 * unmounting alone does not, since a write that may have left should be let finish.
 *
 * `options` is the lifecycle `mutate` runs (`onMutate`, `onSuccess`, `onError`, `onSettled`,
 * `invalidates`; the callbacks of the latest render React committed are used). A cancelled
 * mutation (`cancel(reason)`, a scope reset, a superseding `mutate`) rolls back through
 * `onError` and reaches `onSettled` with the abort error, `cause` intact. A superseding `mutate`
 * waits for the superseded one's rollback before its own `onMutate` (or, cancelled meanwhile,
 * before its own rollback), so their optimistic updates never interleave.
 */
export function useStitchMutation<TData, TInput extends StitchInput, TContext = unknown>(
  stitch: Stitch<TData, TInput>,
  options: MutationLifecycle<NoInfer<TData>, NoInfer<TInput>, TContext> = {},
): MutationResult<TData, TInput> {
  checkMutationOptions(stitch, options, true);
  const engine = useEngine();
  const scope = useContext(ScopeContext);
  const [state, setState] = useState<MutationState<TData>>(IDLE);
  const [idempotencyKey, setKey] = useState(mintKey);
  const inFlight = useRef<InFlight | undefined>(undefined);
  // The last mutation's end, kept past `reset()`: the next one waits for its rollback, if any.
  const lastSettled = useRef<Promise<void> | undefined>(undefined);
  const mounted = useRef(true);
  // The intent's key as of now, for calls made before the render that shows a renewed one (a
  // second `mutateAsync` after the first succeeded, `reset()` then `mutate()` in one handler).
  const intent = useRef(idempotencyKey);
  const renewIntent = useCallback(() => {
    intent.current = mintKey();
    if (mounted.current) setKey(intent.current);
  }, []);
  // The callbacks of the render on screen: taken at each commit, before any effect or handler
  // can mutate. A render React never commits (a transition still pending) must not replace them.
  const lifecycle = useRef(options);
  useInsertionEffect(() => {
    lifecycle.current = options;
  });

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const show = useCallback((next: MutationState<TData>) => {
    if (mounted.current) setState(next);
  }, []);

  const mutateAsync = useCallback(
    async (input?: TInput, ...rest: unknown[]): Promise<TData> => {
      // TanStack Query's `mutate(variables, { onSuccess })`: callbacks here would be ignored.
      if (rest[0] !== undefined) {
        const { name } = stitch.definition;
        const error = new StitchError({
          kind: 'config',
          field: 'mutate',
          stitch: name,
          message: `stitch '${name}': mutate() takes the input alone; give onSuccess, onError and onSettled to useStitchMutation(stitch, { … })`,
        });
        show({ status: 'error', data: undefined, error });
        throw error;
      }
      const previous = inFlight.current;
      previous?.controller.abort(new DOMException('Superseded by a new mutate()', 'AbortError'));
      const controller = new AbortController();
      let ended!: () => void;
      const current: InFlight = { controller, settled: new Promise((resolve) => (ended = resolve)) };
      inFlight.current = current;
      const before = lastSettled.current;
      lastSettled.current = current.settled;
      const link = follow(controller.signal, scope);
      show({ status: 'pending', data: undefined, error: null });
      // The intent's key goes only where the stitch asks for one and does not derive its own:
      // a `keyOf` key must win, and a write that never asked for a key must not get one (a
      // keyed write is retried).
      // Its success is recorded only briefly: the key is renewed at once, never sent again.
      const policy = stitch.definition.idempotency;
      const key = intent.current;
      const owned =
        policy !== undefined && policy.keyOf === undefined
          ? { idempotencyKey: key, idempotencyTtl: INTENT_RECORD }
          : {};
      // Each step runs the callback of the latest commit as of that step, not of the one that
      // called mutate(): a component re-rendered meanwhile (another filter shown, say) gets its own.
      try {
        const data = await runMutation(stitch, input as InputArg<TInput>, {
          ...owned,
          engine,
          signal: link.signal,
          // The previous mutation (superseded, or let go by reset()) rolls back first: its
          // rollback must not undo this one's update. `mutate` races this step with the signal,
          // and a cancel meanwhile defers this one's rollback past it, as past any `onMutate`.
          onMutate: before
            ? async (input, signal) => {
                await before;
                // No context: the rollback of a mutation cancelled meanwhile gets `undefined`.
                return (
                  signal?.aborted ? undefined : lifecycle.current.onMutate?.(input, signal)
                ) as TContext;
              }
            : lifecycle.current.onMutate,
          // The write succeeded: its intent is done, even if a later mutate() superseded this
          // one's lifecycle, so a mutate() from here on sends a new key, not this one again.
          onSuccess: (...args) => {
            if (intent.current === key) renewIntent();
            return lifecycle.current.onSuccess?.(...args);
          },
          onError: (...args) => lifecycle.current.onError?.(...args),
          invalidates: (data, input) => {
            const { invalidates = [] } = lifecycle.current;
            return typeof invalidates === 'function' ? invalidates(data, input) : invalidates;
          },
          // `onSettled` is the last step either way, rollback included: the end the next waits for.
          async onSettled(...args) {
            try {
              await lifecycle.current.onSettled?.(...args);
            } finally {
              ended();
            }
          },
        });
        if (inFlight.current === current) {
          inFlight.current = undefined;
          show({ status: 'success', data, error: null });
        }
        return data;
      } catch (error) {
        if (inFlight.current === current) {
          inFlight.current = undefined;
          show({ status: 'error', data: undefined, error: error as StitchError });
        }
        throw error;
      } finally {
        link.dispose();
      }
    },
    [engine, renewIntent, scope, show, stitch],
  );

  const mutate = useCallback(
    (input?: TInput, ...rest: unknown[]) => {
      mutateAsync(input, ...rest).catch(() => {
        // The failure is in `error`; mutate() is the fire-and-forget form.
      });
    },
    [mutateAsync],
  );

  const cancel = useCallback((reason: unknown = new DOMException('Cancelled', 'AbortError')) => {
    inFlight.current?.controller.abort(reason);
  }, []);

  const reset = useCallback(() => {
    inFlight.current = undefined;
    setState(IDLE);
    renewIntent();
  }, [renewIntent]);

  // The callbacks take an optional input; `MutateArgs` only makes it required for callers.
  return { ...state, idempotencyKey, mutate, mutateAsync, cancel, reset } as MutationResult<TData, TInput>;
}
