import { isSignalOrNone, raceAbort } from './abort';
import type { CallOptions, Stitch } from './definition';
import { defaultEngine, type Engine, isStitchLike, type StitchLike } from './engine';
import { checking, checkKnown, configError, reasonMessage, StitchError } from './errors';
import { type InputArg, invoke } from './invoke';
import { checkKeyInput, type StitchInput } from './request';

/** Any stitch, whatever its data and input types (a stitch's type is invariant in its input). */
export interface AnyStitch {
  readonly definition: { readonly name: string };
}

/**
 * What a mutation marks stale after it succeeds: a stitch (every input of it), or one input of
 * it as a `[stitch, input]` pair.
 */
export type Invalidation = AnyStitch | readonly [stitch: AnyStitch, input: StitchInput];

/**
 * The lifecycle of a mutation: callbacks around the write, and what it invalidates. Each callback
 * may return a promise, which is awaited before the next step; one that throws (or rejects) does
 * not change the outcome, except `onMutate`, whose failure fails the mutation before anything is
 * sent.
 */
export interface MutationLifecycle<TData, TInput extends StitchInput, TContext> {
  /**
   * Before the write is sent: apply an optimistic update (`engine.setData`) and return what a
   * rollback needs (the previous data, say), possibly as a promise; it is the `context` of the
   * other callbacks. `signal` aborts when the mutation is cancelled. A cancel while its promise
   * is pending fails the mutation at once (nothing is sent), but the rollback (`onError`, then
   * `onSettled`) waits for that promise to settle, so it gets the real context and runs after any
   * write `onMutate` makes late (`context` is `undefined` if it rejects). An `onMutate` that never
   * settles never rolls back: let it end on `signal`.
   */
  onMutate?: ((input: TInput, signal: AbortSignal | undefined) => TContext | Promise<TContext>) | undefined;
  /** After the write succeeded, before `invalidates` is applied. */
  onSuccess?: ((data: TData, input: TInput, context: TContext | undefined) => unknown) | undefined;
  /**
   * After the write failed or was cancelled (`error.kind === 'aborted'`, its `cause` the
   * reason): roll the optimistic update back with `context`, typically with `engine.setData`.
   */
  onError?: ((error: StitchError, input: TInput, context: TContext | undefined) => unknown) | undefined;
  /**
   * Last, either way (after a rollback deferred past `onMutate` too): `error` is `null` after a
   * success. When it has returned, the mutation is over.
   */
  onSettled?:
    | ((
        data: TData | undefined,
        error: StitchError | null,
        input: TInput,
        context: TContext | undefined,
      ) => unknown)
    | undefined;
  /**
   * Marked stale after a success (after `onSuccess`), as `engine.invalidate` does: the mounted
   * readers of those keys refetch once, one coalesced request per key; unread keys fetch on
   * their next read. A function receives the data and the input.
   * @default []
   */
  invalidates?:
    | readonly Invalidation[]
    | ((data: TData, input: TInput) => readonly Invalidation[])
    | undefined;
}

/** Options of {@link mutate}: the call's options and the mutation's lifecycle. */
export interface MutateOptions<TData, TInput extends StitchInput, TContext>
  extends Omit<CallOptions, 'engine' | 'revalidate'>,
    MutationLifecycle<TData, TInput, TContext> {
  /** The engine to run on (its cache is what `invalidates` and rollbacks touch). @default defaultEngine() */
  engine?: Engine | undefined;
}

/**
 * Runs a write with a lifecycle: `onMutate` (an optimistic update), the write, then `onSuccess`,
 * `invalidates` and `onSettled`, or `onError` (the rollback) and `onSettled`. A cancelled
 * mutation (`options.signal` aborted, before or while the write is in flight) is a failure of
 * kind `'aborted'` whose `cause` is the reason itself: it rolls back through `onError`, and
 * `onSettled` gets the same error. Lives in its own module, so an app that never calls it does
 * not ship it. `useStitchMutation` runs the same lifecycle.
 * @returns the written data, once the last callback has returned; rejects with the `StitchError`
 * likewise, except after a cancel while `onMutate` was pending: that rejects at once, and the
 * rollback follows when `onMutate` settles. Like a run, the promise raises no unhandled rejection
 * by itself (a fire-and-forget call that is cancelled is not a process error).
 * @example
 * let previous: Todo[] | undefined;
 * await mutate(addTodo, { body: { title } }, {
 *   engine,
 *   // A list never loaded is left alone: a write there could not be taken back (`invalidates` loads it).
 *   onMutate: () => { previous = engine.getData(getTodos, undefined); engine.setData(getTodos, undefined, (todos) => todos && [...todos, { id: -1, title }]); },
 *   // The snapshot may predate another write's success: refetch after restoring it.
 *   onError: () => { engine.setData(getTodos, undefined, (now) => previous ?? now); engine.invalidate(getTodos); },
 *   invalidates: [getTodos],
 * });
 */
export function mutate<TData, TInput extends StitchInput, TContext = unknown>(
  stitch: Stitch<TData, TInput>,
  input: InputArg<TInput>,
  options: MutateOptions<NoInfer<TData>, NoInfer<TInput>, TContext> = {},
): Promise<TData> {
  let outcome: Promise<TData>;
  try {
    checkMutationOptions(stitch, options);
    outcome = lifecycle(stitch, input as TInput, options);
  } catch (error) {
    outcome = Promise.reject(error);
  }
  // Handled here: the outcome raises no unhandled rejection by itself.
  outcome.catch(() => {});
  return outcome;
}

/**
 * The lifecycle. A cancel while `onMutate` is pending:
 *
 *   onMutate   ──────────────┐ (writes the cache late, returns the context)
 *   signal     ──✕           │
 *   outcome      └ rejected  │ (at once; nothing sent)
 *   rollback                 └ onError(context), onSettled
 */
async function lifecycle<TData, TInput extends StitchInput, TContext>(
  stitch: Stitch<TData, TInput>,
  input: TInput,
  options: MutateOptions<TData, TInput, TContext>,
): Promise<TData> {
  const { onMutate, onSuccess, onError, onSettled, invalidates, ...call } = options;
  const engine = call.engine ?? defaultEngine();
  // What the callbacks are given: a call without input (all its fields optional) is an empty one.
  const given = input ?? ({} as TInput);
  const { signal } = call;
  let context: TContext | undefined;
  let failed: StitchError | undefined;
  // The context still to come from an `onMutate` cancelled while it ran.
  let pending: Promise<TContext | undefined> | undefined;
  if (onMutate && !signal?.aborted) {
    // Called at once; a throw rejects `mutated`.
    const mutated = new Promise<TContext>((resolve) => resolve(onMutate(given, signal)));
    try {
      context = await raceAbort(mutated, signal);
    } catch (error) {
      // A cancel while it ran: the call below, on the aborted signal, cancels with the reason,
      // and the rollback waits for `onMutate` to end.
      if (signal?.aborted) pending = mutated.catch(() => undefined);
      else failed = mutateFailed(stitch.definition.name, error);
    }
  }
  const result = failed
    ? ({ ok: false, error: failed } as const)
    : await invoke(stitch, input, { ...call, engine }).safe();
  if (result.ok) {
    await quietly(() => onSuccess?.(result.data, given, context));
    let targets: readonly Invalidation[] = [];
    await quietly(() => {
      // Whatever iterable the function gave (a Set, say), listed.
      targets = Array.from(
        (typeof invalidates === 'function' ? invalidates(result.data, given) : invalidates) ?? [],
      );
    });
    // All at once, each on its own: a target the function made that no call could send is
    // skipped, not the rest.
    for (const target of targets) {
      const [of, keyed] = Array.isArray(target) ? target : [target];
      try {
        engine.invalidate(of as StitchLike<unknown, StitchInput>, keyed as StitchInput | undefined);
      } catch {
        // Documented: like a callback's throw, it does not change the outcome.
      }
    }
    await quietly(() => onSettled?.(result.data, null, given, context));
    return result.data;
  }
  const undo = async (context: TContext | undefined) => {
    await quietly(() => onError?.(result.error, given, context));
    await quietly(() => onSettled?.(undefined, result.error, given, context));
  };
  if (pending) pending.then(undo);
  else await undo(context);
  throw result.error;
}

/** Whether `value` is a stitch, or a `[stitch, input]` pair. */
const isInvalidation = (value: unknown): boolean => {
  const [stitch, input] = Array.isArray(value) && value.length === 2 ? value : [value, undefined];
  return isStitchLike(stitch) && (input === undefined || (typeof input === 'object' && input !== null));
};

/**
 * Checks the options of a mutation of `stitch` (what {@link mutate} takes, or a hook's lifecycle):
 * throws a `config` error naming the first wrong one. A callback that is not a function, a
 * signal that is not one, an `invalidates` that names no stitch (a stitch alone, a function too,
 * would otherwise be called as if it listed them), an option of neither (a misspelt one). `mutate`
 * checks its own; an adapter's mutation hook calls it with `lifecycleOnly` when it is given its
 * options, which hold no call options.
 */
export function checkMutationOptions(stitch: AnyStitch, given: unknown, lifecycleOnly = false): void {
  if (!isStitchLike(stitch))
    throw configError(undefined, 'stitch', 'must be a stitch (what stitch() returns)');
  const { name } = stitch.definition;
  checking(name, 'options', () => checkGiven(name, given, lifecycleOnly));
}

/** {@link checkMutationOptions} of the stitch `name`, its reads of `given` unguarded. */
function checkGiven(name: string, given: unknown, lifecycleOnly: boolean): void {
  if (typeof given !== 'object' || given === null) throw configError(name, 'options', 'must be an object');
  const callbacks = ['onMutate', 'onSuccess', 'onError', 'onSettled'];
  const lifecycle = [...callbacks, 'invalidates'];
  const known = lifecycleOnly
    ? lifecycle
    : [...lifecycle, 'signal', 'engine', 'idempotencyKey', 'idempotencyTtl'];
  checkKnown(name, '', given, known);
  const options = given as Record<string, unknown>;
  if (!isSignalOrNone(options.signal)) throw configError(name, 'signal', 'must be an AbortSignal');
  for (const field of callbacks) {
    const callback = options[field];
    if (callback !== undefined && typeof callback !== 'function')
      throw configError(name, field, 'must be a function');
  }
  const { invalidates } = options;
  const listed = Array.isArray(invalidates) && invalidates.every(isInvalidation);
  const made = typeof invalidates === 'function' && !isInvalidation(invalidates);
  if (!(invalidates === undefined || listed || made)) {
    throw configError(
      name,
      'invalidates',
      'must list stitches or [stitch, input] pairs (a single stitch too: [stitch]), or be a function returning such a list',
    );
  }
  // A pair's input is refused as a call of it would be (a misspelt param would invalidate nothing).
  if (!listed) return;
  for (const target of invalidates)
    if (Array.isArray(target)) checkPair(name, target as [AnyStitch, StitchInput]);
}

/**
 * Throws, as a `config` error of the mutation of `name` naming `invalidates`, the error a call of
 * the pair's stitch with its input would throw.
 */
function checkPair(name: string, [stitch, input]: readonly [AnyStitch, StitchInput]): void {
  try {
    // A stitch (`isInvalidation` checked it), whatever the pair's type says of it.
    checkKeyInput((stitch as unknown as StitchLike).definition, input);
  } catch (error) {
    throw configError(name, 'invalidates', `holds a pair no call could send: ${reasonMessage(error)}`);
  }
}

/** Runs a lifecycle callback to its end; what it throws does not change the mutation's outcome. */
async function quietly(callback: () => unknown): Promise<void> {
  try {
    await callback();
  } catch {
    // Documented: a callback cannot change the outcome.
  }
}

/**
 * `onMutate` threw: the mutation fails before anything is sent, as a `config` error naming it,
 * whatever failed in it (a read's `http` error would say the write was dispatched and retryable).
 */
function mutateFailed(stitch: string, error: unknown): StitchError {
  const message = `stitch '${stitch}': \`onMutate\` failed: ${reasonMessage(error)}`;
  return new StitchError({ kind: 'config', field: 'onMutate', message, cause: error, stitch });
}
