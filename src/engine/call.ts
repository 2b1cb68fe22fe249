import { abortReason, onAbort } from './abort';
import type { EngineParts, ExecutionContext, ExecutionState } from './attempt';
import type { Cache } from './cache';
import type { Coalescer, Reference } from './coalescer';
import { isStitchError, reasonMessage, StitchError } from './errors';
import { type EventPayload, redactUrl, type StitchEvent, safely } from './events';
import { type ExecutionResult, execute } from './execute';
import { idempotencyKeyFor, RECORD_TTL } from './idempotency';
import { isPlainData, type Keys } from './keys';
import type { Ledger } from './ledger';
import { type BuiltRequest, buildRequest, type StitchInput } from './request';
import { type RunTally, StitchRun } from './run';
import type { CallOptions, StitchDefinition } from './stitch';

/** What a call needs from its engine. */
export interface CallDeps {
  readonly parts: EngineParts;
  readonly cache: Cache;
  readonly keys: Keys;
  readonly coalescer: Coalescer;
  readonly ledger: Ledger;
  readonly sink: ((event: StitchEvent) => void) | undefined;
}

/** The cache key of a read's input (`undefined` for writes, which are never cached). */
export function cacheKey<TInput extends StitchInput>(
  keys: Keys,
  definition: StitchDefinition<unknown, TInput>,
  input: TInput | undefined,
): string | undefined {
  if (!definition.cache) return undefined;
  return keys.keyOf(definition.name, definition.cache.scope?.(input) ?? '', input);
}

/**
 * Creates the engine's `call`: one caller's way through the pipeline. Outermost first:
 * input → cache lookup → coalescer join (one reference per caller) → the shared execution.
 * The caller's signal stops at its reference: nothing below ever sees it.
 */
export function createCall(deps: CallDeps) {
  const { parts, cache, keys, coalescer, ledger, sink } = deps;
  const names = new Map<string, StitchDefinition<unknown, never>>();
  const revalidating = new Set<string>();
  const tracked = new Map<string, { running: number; started: number; stored: number }>();
  let runs = 0;

  /** Refuses a second, different stitch under a name this engine already knows. */
  const register = (definition: StitchDefinition<unknown, never>) => {
    const known = names.get(definition.name);
    if (known && known !== definition) {
      throw new StitchError({
        kind: 'config',
        field: 'name',
        stitch: definition.name,
        message: `stitch '${definition.name}': \`name\` is used by another stitch on this engine`,
      });
    }
    names.set(definition.name, definition);
  };

  function call<TData, TInput extends StitchInput>(
    definition: StitchDefinition<TData, TInput>,
    input: TInput | undefined,
    options: CallOptions | undefined,
  ): StitchRun<TData> {
    const run = new StitchRun<TData>(`r${++runs}`, definition.name, parts.clock, sink);
    const tally: RunTally = {
      attempts: 0,
      requests: 0,
      status: undefined,
      source: 'live',
      idempotencyKey: undefined,
    };
    let request: BuiltRequest;
    let key: string | undefined;
    try {
      register(definition as unknown as StitchDefinition<unknown, never>);
      request = buildRequest(definition.name, definition.method, definition.url, definition.headers, input);
      tally.idempotencyKey = idempotencyKeyFor(
        definition.idempotency,
        input as TInput,
        options?.idempotencyKey,
      );
      key = cacheKey(keys, definition as StitchDefinition<unknown, TInput>, input);
    } catch (error) {
      const failure = isStitchError(error)
        ? error
        : new StitchError({ kind: 'config', message: String(error), cause: error, stitch: definition.name });
      run.emit({ type: 'start', method: definition.method, url: definition.url });
      run.finish({ ok: false, error: failure }, tally);
      return run;
    }
    run.emit({ type: 'start', method: request.method, url: redactUrl(request.url, parts.secret) });
    const { idempotencyKey } = tally;

    const cancel = (reason: unknown, state: ExecutionState | undefined, reference?: Reference<TData>) => {
      const phase = state?.phase ?? 'before-dispatch';
      const requests = state?.requests ?? 0;
      const dispatched = requests > 0;
      const attempt = state?.attempts ?? 0;
      const shared = reference?.release(reason) ?? false;
      run.emit({ type: 'cancel', phase, dispatched, shared, reason: reasonMessage(reason), attempt });
      safely(definition.hooks.onCancel, { stitch: definition.name, reason, phase, dispatched });
      Object.assign(tally, { attempts: attempt, requests, status: state?.status });
      const error = new StitchError({
        kind: 'aborted',
        message: reasonMessage(reason),
        cause: reason,
        attempts: attempt,
        requests,
        ambiguous: phase === 'in-flight' || phase === 'body',
        url: redactUrl(request.url, parts.secret),
        stitch: definition.name,
        idempotencyKey,
      });
      run.finish({ ok: false, error }, tally);
    };

    const signal = options?.signal;
    if (signal?.aborted) {
      cancel(abortReason(signal), undefined);
      return run;
    }

    if (key !== undefined && definition.cache && !options?.revalidate) {
      const freshness = cache.freshness(key, definition.cache as never);
      if (freshness !== 'none') {
        run.emit({ type: 'cache', hit: freshness });
        tally.source = freshness === 'fresh' ? 'cache' : 'stale';
        if (freshness === 'stale') revalidate(key, definition, input);
        run.finish({ ok: true, data: cache.snapshot<TData>(key).data as TData }, tally);
        return run;
      }
    }

    const retry = idempotencyKey === undefined ? definition.retry.plain : definition.retry.keyed;
    // A write shares only when asked to, without a key of its own, and with a body the key can
    // describe in full (it is part of the key).
    const shareKey =
      definition.coalesce && idempotencyKey === undefined && isPlainData(input?.body)
        ? (key ?? keys.keyOf(definition.name, '', input))
        : undefined;
    const listener = (event: EventPayload, trace: boolean) => run.emit(event, trace);
    const reference = coalescer.join<TData>(shareKey, run.id, listener, (executionSignal, emit) => {
      const phase = definition.throttle ? 'queued' : 'before-dispatch';
      const state: ExecutionState = { phase, attempts: 0, requests: 0, status: undefined };
      const context: ExecutionContext<TData> = {
        definition: definition as unknown as StitchDefinition<TData, never>,
        request,
        idempotencyKey,
        retry,
        signal: executionSignal,
        parts,
        state,
        emit,
      };
      // Only a key the caller owns can come again, so only its calls are recorded.
      const owned = options?.idempotencyKey !== undefined || definition.idempotency?.keyOf !== undefined;
      const result =
        idempotencyKey !== undefined && owned
          ? ledger.run(context, definition.idempotency?.ttl ?? RECORD_TTL, (total) => execute(context, total))
          : execute(context);
      if (key !== undefined) track(key, result);
      return { state, result };
    });
    if (reference.joined) {
      tally.source = 'coalesced';
      run.emit({ type: 'coalesce', leader: reference.shared.leader });
    }

    const detach = signal
      ? onAbort(signal, () => cancel(abortReason(signal), reference.shared.state, reference))
      : () => {};
    reference.shared.result.then((result: ExecutionResult<TData>) => {
      detach();
      const { state } = reference.shared;
      Object.assign(tally, { attempts: state.attempts, requests: state.requests, status: state.status });
      reference.release(undefined);
      if (result.type === 'success' && result.recorded) tally.source = 'recorded';
      if (result.type === 'success') run.finish({ ok: true, data: result.data }, tally);
      else if (result.type === 'failure') run.finish({ ok: false, error: result.error }, tally);
    });
    return run;
  }

  /**
   * Mirrors the executions of a read in the cache: `fetching` while any runs (an aborted one and
   * its successor can overlap), then each one's data or failure, unless a later-started one has
   * already stored its own. An execution aborted by its last reference leaves the data as it was.
   */
  function track(key: string, result: Promise<ExecutionResult<unknown>>) {
    const entry = tracked.get(key) ?? { running: 0, started: 0, stored: 0 };
    tracked.set(key, entry);
    entry.running += 1;
    const order = ++entry.started;
    cache.fetching(key, true);
    result.then((outcome) => {
      entry.running -= 1;
      if (order > entry.stored && outcome.type !== 'aborted') {
        if (outcome.type === 'success') {
          entry.stored = order;
          cache.store(key, outcome.data);
        } else cache.fail(key, outcome.error);
      }
      if (entry.running > 0) return;
      tracked.delete(key);
      cache.fetching(key, false);
    });
  }

  /** Refreshes stale data once, however many readers see it stale meanwhile. */
  function revalidate<TInput extends StitchInput>(
    key: string,
    definition: StitchDefinition<unknown, TInput>,
    input: TInput | undefined,
  ) {
    if (revalidating.has(key)) return;
    revalidating.add(key);
    call(definition, input, { revalidate: true })
      .safe()
      .then(() => revalidating.delete(key));
  }

  return call;
}
