import { abortReason, isSignalOrNone, onAbortShared, raceAbort } from './abort';
import type { Cache, CachePolicy } from './cache';
import type { Coalescer, Reference } from './coalescer';
import type { EngineParts, ExecutionContext, ExecutionState } from './context';
import { type CallOptions, definedBefore, type StitchDefinition } from './definition';
import { cancelRun, emptyTally, refuseRun } from './endings';
import { asConfigError, configError, StitchError, unreadable } from './errors';
import { type EventPayload, redactUrl, type StitchEvent, scrub } from './events';
import { type ExecutionResult, execute, unexpected } from './execution';
import { IDEMPOTENCY_HEADER, idempotencyKeyFor, RECORD_TTL, refuseKeyHeader } from './idempotency';
import { type CheckedInput, checkInput, inputSecrets } from './input';
import type { Inspector } from './inspect';
import { isPlainData, type Keys } from './keys';
import { Lifetime, timeoutError } from './lifetime';
import { lastOne } from './memo';
import { isRecord } from './record';
import { type BuiltRequest, buildRequest, checkInputFields, type StitchInput } from './request';
import {
  cancelledWith,
  countFrom,
  emitTo,
  finishRun,
  nextRunId,
  onCancel,
  type RunTally,
  StitchRun,
} from './run';

/** A background refresh of stale data, and the stale reads holding it. */
interface Refresh {
  readonly controller: AbortController;
  holders: number;
  ended: boolean;
  /** The holders' listeners on their signals and their cancels, removed when the refresh ends. */
  readonly detach: Array<() => void>;
}

/** What a call needs from its engine. */
export interface CallDeps {
  readonly parts: EngineParts;
  readonly cache: Cache;
  readonly keys: Keys;
  readonly coalescer: Coalescer;
  /** The sink of a run starting now (its events go to the trace sinks, and to inspectors if any listen). */
  readonly sink: () => ((event: StitchEvent) => void) | undefined;
  readonly inspector: Inspector;
}

/** The cache key of a read's input (`undefined` for writes, which are never cached). */
export function cacheKey<TInput extends StitchInput>(
  keys: Keys,
  definition: StitchDefinition<unknown, TInput>,
  input: TInput | undefined,
): string | undefined {
  if (definition.kind === 'write') return undefined;
  let scope: unknown;
  try {
    scope = definition.cache?.scope?.(input) ?? '';
  } catch (error) {
    throw asConfigError(error, definition.name, 'cache.scope');
  }
  // Anything else (a promise of the principal, say) would key every user alike.
  if (typeof scope !== 'string') throw configError(definition.name, 'cache.scope', 'must give a string');
  return keys.keyOf(definition.name, scope, input, definition.url, !definition.input);
}

/**
 * Creates the engine's `call`: one caller's way through the pipeline. Outermost first:
 * input → cache lookup → coalescer join (one reference per caller) → the shared execution.
 * The caller's signal stops at its reference: nothing below ever sees it.
 */
export function createCall(deps: CallDeps) {
  const { parts, cache, keys, coalescer, sink, inspector } = deps;
  const names = new Map<string, StitchDefinition<unknown, never>>();
  const retired = new WeakSet<StitchDefinition<unknown, never>>();
  // Per key, the background revalidation running (an object of its own, so a superseded one
  // that ends late never clears a newer one's).
  const revalidating = new Map<string, Refresh>();
  // Per read key: the lifetimes of its executions running (for a write to end even the
  // uncoalesced ones), how many started, and the order of the last one whose result was stored.
  const tracked = new Map<string, { started: number; stored: number; lifetimes: Lifetime[] }>();
  /** A URL as events show it, secrets redacted. */
  const shownUrl = lastOne((url) => redactUrl(url, parts.secret));

  /**
   * Keeps one definition per name. A newer definition under a known name replaces the old one and
   * drops its data (what a hot reload does on every save); calling an older one after that, even
   * for its first time on this engine, means two are alive together, and is refused.
   */
  const register = (definition: StitchDefinition<unknown, never>) => {
    const known = names.get(definition.name);
    if (known === definition) return;
    if (known && definedBefore(definition, known)) retired.add(definition);
    if (retired.has(definition)) {
      throw new StitchError({
        kind: 'config',
        field: 'name',
        stitch: definition.name,
        message:
          `stitch '${definition.name}': \`name\` is also used by a newer stitch on this engine. ` +
          'Give each stitch that is in use its own name (after a hot reload only the newest definition may run).',
      });
    }
    names.set(definition.name, definition);
    if (!known) return;
    retired.add(known);
    const ofName = (key: string) => keys.belongsTo(key, definition.name);
    supersede(ofName);
    cache.drop(ofName);
  };

  /**
   * Lets no later caller join the executions in flight for the keys `matches` accepts, and keeps
   * their results out of the cache: a newer execution's answer is the one to keep. With a
   * `reason` (a write that overwrote the key) they are aborted with it too.
   */
  const supersede = (matches: (key: string) => boolean, reason?: unknown) => {
    coalescer.detach(matches, reason);
    for (const [key, entry] of tracked) if (matches(key)) entry.stored = entry.started;
    // A revalidation whose answer will not be kept refreshes nothing: the next stale hit starts one.
    for (const key of [...revalidating.keys()]) if (matches(key)) revalidating.delete(key);
  };

  /**
   * `engine.setData`: aborts the executions in flight for `key` with `reason` (their answers are
   * not kept, nobody joins them) and stores `data`. None of them fetches for the key any more, so
   * the data and `fetching: false` are one change: one render.
   */
  const write = (key: string, data: unknown, reason: unknown) => {
    supersede((other) => other === key, reason);
    // A read with `coalesce: false` is not in the coalescer: it is ended here.
    for (const lifetime of tracked.get(key)?.lifetimes ?? []) lifetime.end(reason);
    tracked.delete(key);
    cache.store(key, data, true);
  };

  /** `engine.invalidate`: marks the keys stale; their mounted readers refetch (see the cache). */
  const invalidate = (matches: (key: string) => boolean) => {
    supersede(matches);
    cache.invalidate(matches);
  };

  /** Whether the cache can serve `key` under `policy` to a call with `options` (and touches it if so). */
  const servable = <TInput>(
    policy: CachePolicy<TInput> | undefined,
    key: string,
    options: CallOptions,
  ): 'fresh' | 'stale' | 'none' => (policy && !options.revalidate ? cache.freshness(key, policy) : 'none');

  /** A call never throws: whatever escapes (a getter on the input that throws, say) rejects its run. */
  function call<TData, TInput extends StitchInput>(
    definition: StitchDefinition<TData, TInput>,
    input: TInput | undefined,
    options: CallOptions | undefined,
  ): StitchRun<TData> {
    const run = new StitchRun<TData>(`r${nextRunId()}`, definition.name, parts.clock, sink());
    try {
      return checkThenStart(run, definition, input, options);
    } catch (error) {
      return refuseRun(run, definition, shownUrl(definition.url), error);
    }
  }

  /** Runs the stitch's `input` validator, if it has one, before the call proper. */
  function checkThenStart<TData, TInput extends StitchInput>(
    run: StitchRun<TData>,
    definition: StitchDefinition<TData, TInput>,
    input: TInput | undefined,
    options: CallOptions | undefined,
  ): StitchRun<TData> {
    const tally = emptyTally();
    if (!definition.input) return start(run, tally, definition, input, input, options);
    // A refusal quoting the input must not show its secrets: they are looked for only then, once.
    let secrets: string[] | undefined;
    const scrubbed = (text: string) => {
      secrets ??= inputSecrets(
        definition as unknown as StitchDefinition<unknown, never>,
        input,
        parts.secret,
      );
      return scrub(text, secrets);
    };
    const checked = checkInput(definition.name, definition.input, input, scrubbed);
    const proceed = (result: CheckedInput, spent?: number) => {
      if (result.ok) return start(run, tally, definition, input, result.value, options, spent);
      return refuseRun(run, definition, shownUrl(definition.url), result.error, tally);
    };
    if (!(checked instanceof Promise)) return proceed(checked);
    let signal: AbortSignal | undefined;
    try {
      signal = checkCallOptions(options, definition.name).signal;
    } catch {
      // Bad call options: the call proper reports them, before building anything.
      return start(run, tally, definition, input, input, options);
    }
    // An asynchronous validator is a wait like any other: the caller's abort (or `run.cancel`)
    // ends it at once, and either way the listener on the caller's signal goes with it (the race
    // with the cancel is inside raceAbort's). The total deadline counts from here: it ends the
    // wait, and the call proper gets what is left of it. (The callbacks return nothing:
    // returning the run, a promise, would adopt its rejection.)
    const { clock } = parts;
    const began = clock.now();
    const { total } = definition.timeout;
    const late = total === undefined ? undefined : timeoutError('total', total);
    let stopTimer = () => {};
    const cancelled = new Promise<never>((_, reject) => {
      onCancel(run, reject);
      if (late) stopTimer = clock.schedule(total as number, () => reject(late));
    });
    raceAbort(Promise.race([checked, cancelled]), signal).then(
      (result) => {
        stopTimer();
        proceed(result, clock.now() - began);
      },
      (reason: unknown) => {
        stopTimer();
        // Nothing was built or sent yet: the run is cancelled (or timed out) before dispatch.
        const url = shownUrl(definition.url);
        emitTo(run, { type: 'start', method: definition.method, url });
        if (!late || reason !== late) return cancelRun(run, tally, definition, reason, { url });
        emitTo(run, { type: 'timeout', phase: 'total', attempt: 0, dispatched: false });
        const { message } = late;
        const stitch = definition.name;
        refuseRun(
          run,
          definition,
          url,
          new StitchError({ kind: 'timeout', phase: 'total', message, cause: late, url, stitch }),
          tally,
        );
      },
    );
    return run;
  }

  /**
   * The call proper, once its input is known good: `input` is what the caller passed (its keys
   * name the cache entry, so a hook finds it), `sendable` what the request is built from.
   */
  function start<TData, TInput extends StitchInput>(
    run: StitchRun<TData>,
    tally: RunTally,
    definition: StitchDefinition<TData, TInput>,
    input: TInput | undefined,
    sendable: StitchInput | undefined,
    given: CallOptions | undefined,
    spent?: number,
  ): StitchRun<TData> {
    let request: BuiltRequest | undefined;
    /** The request, built once, when this caller needs one (a caller that joins does not). */
    const requestOf = (): BuiltRequest => {
      request ??= buildRequest(
        definition.name,
        definition.method,
        definition.url,
        definition.headers,
        sendable,
        parts.secret,
      );
      return request;
    };
    let key: string | undefined;
    let options: CallOptions;
    let shown: string;
    /** Whether the cache can serve `key`, looked up once. */
    let hit: 'fresh' | 'stale' | 'none' | undefined;
    try {
      register(definition as unknown as StitchDefinition<unknown, never>);
      options = checkCallOptions(given, definition.name);
      if (options.idempotencyKey !== undefined && !definition.records) {
        const problem = "needs the stitch's idempotency(…) (a key the caller owns is recorded)";
        throw configError(definition.name, 'idempotencyKey', problem);
      }
      // The stitch's own headers may hold the header a caller's key goes in (no policy checked them).
      if (options.idempotencyKey !== undefined && !definition.idempotency)
        refuseKeyHeader(definition.name, IDEMPOTENCY_HEADER, definition.headers);
      checkInputFields(definition.name, input);
      tally.idempotencyKey = idempotencyKeyFor(
        definition.idempotency,
        input as TInput,
        options.idempotencyKey,
        definition.name,
      );
      // A reader of a key in flight joins it as it is: its first caller built the request from
      // an input with this key, so the input was good and the request is the same. So does a
      // reader the cache serves with what such a request brought: it shows that request's URL.
      key = joinable(keys, definition as StitchDefinition<unknown, TInput>, input, tally.idempotencyKey);
      const running = key === undefined ? undefined : coalescer.running(key);
      if (running) shown = running.url;
      else {
        hit = key === undefined ? undefined : servable(definition.cache, key, options);
        const source = key !== undefined && hit !== 'none' ? cache.source(key) : undefined;
        if (source !== undefined) shown = source;
        else {
          shown = requestOf().shown;
          key ??= cacheKey(keys, definition as StitchDefinition<unknown, TInput>, input);
        }
      }
    } catch (error) {
      return refuseRun(run, definition, shownUrl(definition.url), error, tally);
    }
    emitTo(run, { type: 'start', method: definition.method, url: shown });
    const { idempotencyKey } = tally;

    const cancel = (reason: unknown, state: ExecutionState | undefined, reference?: Reference<TData>) =>
      cancelRun(run, tally, definition, reason, {
        state,
        reference,
        url: shown,
        idempotencyKey,
      });

    const signal = options.signal;
    // Cancelled already: by the signal, or by `run.cancel` while an input validator ran.
    const early = signal?.aborted ? { reason: abortReason(signal) } : cancelledWith(run);
    if (early) {
      cancel(early.reason, undefined);
      return run;
    }

    if (key !== undefined) {
      hit ??= servable(definition.cache, key, options);
      if (hit !== 'none') {
        emitTo(run, { type: 'cache', hit });
        tally.source = hit === 'fresh' ? 'cache' : 'stale';
        const refresh = hit === 'stale' ? revalidate(key, definition, input) : undefined;
        finishRun(run, { ok: true, data: cache.snapshot<TData>(key).data as TData }, tally);
        if (refresh) hold(refresh, run, signal);
        return run;
      }
    }

    // A write shares only when asked to, without a key of its own, and with a body the key can
    // describe in full (it is part of the key).
    const shareKey =
      definition.coalesce && idempotencyKey === undefined && isPlainData(input?.body)
        ? (key ?? keys.keyOf(definition.name, '', input, definition.url, !definition.input))
        : undefined;
    // Only a key the caller owns can come again, so only its calls are recorded (for this long).
    const owned = options.idempotencyKey !== undefined || definition.idempotency?.keyOf !== undefined;
    const recorded =
      idempotencyKey !== undefined && owned
        ? (options.idempotencyTtl ?? definition.idempotency?.ttl ?? RECORD_TTL)
        : undefined;
    const listener = (event: EventPayload, trace: boolean, at: number) => emitTo(run, event, trace, at);
    const reference = coalescer.join<TData>(shareKey, run.id, listener, (emit) => {
      const request = requestOf();
      const policy = idempotencyKey === undefined ? definition.retry.plain : definition.retry.keyed;
      // A stream body is consumed by the one request that sends it: there is nothing to re-send.
      const retry = request.streamed ? { ...policy, attempts: 1 } : policy;
      const phase = definition.throttle ? 'queued' : 'before-dispatch';
      const state: ExecutionState = { phase, attempts: 0, requests: 0, status: undefined, ambiguous: false };
      // One controller for the execution and its deadlines (see Lifetime).
      const lifetime = new Lifetime(parts.clock, definition.timeout.total, spent);
      const context: ExecutionContext<TData> = {
        run: run.id,
        definition: definition as unknown as StitchDefinition<TData, never>,
        request,
        url: shown,
        idempotencyKey,
        retry,
        lifetime,
        parts,
        state,
        emit,
      };
      const result =
        recorded !== undefined && definition.records
          ? parts
              .use(definition.records)
              .run(context, recorded, () => execute(context))
              .catch((error: unknown) => unexpected(context, error))
          : execute(context);
      if (key === undefined) result.then(() => lifetime.dispose());
      else track(key, result, lifetime, shown);
      return { state, result, url: shown, lifetime };
    });
    // Told once the coalescer knows the execution: a reader started from the notification (an
    // adapter's cache subscriber, an inspector's refetch) then joins it instead of sending again.
    if (!reference.joined && key !== undefined) {
      cache.fetching(key, true);
      const read = key;
      if (inspector.active)
        inspector.notify(() => ({
          type: 'read',
          key: read,
          stitch: definition.name,
          refetch: () => void call(definition, input, { revalidate: true }).safe(),
          at: parts.clock.now(),
        }));
    }
    if (reference.joined) {
      tally.source = 'coalesced';
      emitTo(run, { type: 'coalesce', leader: reference.shared.leader });
    }

    // The caller lets go (its signal aborts, or `run.cancel`): this reference only.
    let left = false;
    const leave = (reason: unknown) => {
      if (left) return;
      left = true;
      detach();
      cancel(reason, reference.shared.state, reference);
      if (key !== undefined) abandoned(key);
    };
    const detach = signal ? onAbortShared(signal, () => leave(abortReason(signal))) : () => {};
    onCancel(run, leave);
    reference.shared.result.then((result: ExecutionResult<TData>) => {
      detach();
      // A caller who left has its run settled, on the counts of that moment: the shared request's
      // later attempts and answer are not its own.
      if (left) return;
      const { state } = reference.shared;
      // Aborted while this caller still held it: a write took the key over (`engine.setData`).
      const ended = reference.shared.lifetime.ended;
      if (result.type === 'aborted' && ended) cancel(ended.reason, state, reference);
      countFrom(tally, state);
      reference.release(undefined);
      if (result.type === 'success' && result.recorded) tally.source = 'recorded';
      if (result.type === 'success') finishRun(run, { ok: true, data: result.data }, tally);
      else if (result.type === 'failure') finishRun(run, { ok: false, error: result.error }, tally);
    });
    // A listener of an event this call emitted while it joined (its `start`, `queued` or
    // `coalesce`, heard by a trace sink or an inspector) may have aborted the signal before the
    // call listened to it.
    if (signal?.aborted) leave(abortReason(signal));
    return run;
  }

  /**
   * The last reference of an execution of `key` let go: when it was the key's last one running,
   * its readers stop showing `fetching` now, not once the abort has unwound (a render later).
   */
  function abandoned(key: string) {
    const entry = tracked.get(key);
    if (entry?.lifetimes.every((lifetime) => lifetime.ended)) cache.fetching(key, false);
  }

  /**
   * Mirrors the executions of a read in the cache: `fetching` while any runs (an aborted one and
   * its successor can overlap; the caller sets it, once the coalescer knows the execution), then
   * each one's data (with `url`, the request it answered) or failure, unless a later-started one
   * has already stored its own. An execution aborted by its last reference leaves the data as it
   * was. Disposes of each one's `lifetime` once it settled.
   */
  function track(key: string, result: Promise<ExecutionResult<unknown>>, lifetime: Lifetime, url: string) {
    const entry = tracked.get(key) ?? { started: 0, stored: 0, lifetimes: [] };
    tracked.set(key, entry);
    entry.lifetimes.push(lifetime);
    const order = ++entry.started;
    result.then((outcome) => {
      lifetime.dispose();
      const { lifetimes } = entry;
      lifetimes.splice(lifetimes.indexOf(lifetime), 1);
      // The key's last execution ends `fetching` in the change that brings its answer: readers
      // hear of it once. (After a write let go of the key's executions, `fetching` is not theirs.)
      const last = lifetimes.length === 0 && tracked.get(key) === entry;
      if (last) tracked.delete(key);
      const kept = order > entry.stored && outcome.type !== 'aborted';
      if (kept && outcome.type === 'success') {
        entry.stored = order;
        cache.store(key, outcome.data, last, url, outcome.at);
      } else if (kept && outcome.type === 'failure') cache.fail(key, outcome.error, last);
      else if (last) cache.fetching(key, false);
    });
  }

  /**
   * Refreshes stale data once, however many readers see it stale meanwhile: the refresh of `key`
   * running, or a new one, on a signal of its own that the reads holding it abort (see `hold`).
   */
  function revalidate<TInput extends StitchInput>(
    key: string,
    definition: StitchDefinition<unknown, TInput>,
    input: TInput | undefined,
  ): Refresh {
    const running = revalidating.get(key);
    // One its last holder let go of is still unwinding: a new one refreshes.
    if (running && !running.controller.signal.aborted) return running;
    const refresh: Refresh = { controller: new AbortController(), holders: 0, ended: false, detach: [] };
    revalidating.set(key, refresh);
    call(definition, input, { revalidate: true, signal: refresh.controller.signal })
      .safe()
      .then(() => {
        refresh.ended = true;
        if (revalidating.get(key) === refresh) revalidating.delete(key);
        for (const detach of refresh.detach.splice(0)) detach();
      });
    return refresh;
  }

  /**
   * The stale read `run` holds `refresh` as a request: its `cancel`, or its `signal` aborting,
   * lets go, and the last holder to let go aborts the refresh (its socket closed). A read nobody
   * can cancel holds it to its end.
   */
  function hold(refresh: Refresh, run: StitchRun<unknown>, signal: AbortSignal | undefined) {
    refresh.holders += 1;
    let held = true;
    const letGo = (reason: unknown) => {
      if (!held || refresh.ended) return;
      held = false;
      refresh.holders -= 1;
      if (refresh.holders === 0) refresh.controller.abort(reason);
    };
    onCancel(run, letGo);
    // Once it ended, the run holds nothing: its `cancel` says so.
    refresh.detach.push(() => onCancel(run, undefined));
    if (signal) refresh.detach.push(onAbortShared(signal, () => letGo(abortReason(signal))));
  }

  return { call, invalidate, write, register };
}

/**
 * The key under which a call could join an execution in flight without building its request:
 * a coalescing read with no idempotency key, no input validator and no body, whose input is a
 * plain object. `undefined` when the call does not qualify or its key cannot be worked out (the
 * request build then reports what is wrong with the input).
 */
function joinable<TInput extends StitchInput>(
  keys: Keys,
  definition: StitchDefinition<unknown, TInput>,
  input: TInput | undefined,
  idempotencyKey: string | undefined,
): string | undefined {
  if (definition.kind !== 'read' || !definition.coalesce || definition.input || idempotencyKey !== undefined)
    return undefined;
  if (input !== undefined && (!isRecord(input) || input.body !== undefined)) return undefined;
  try {
    return cacheKey(keys, definition, input);
  } catch {
    return undefined;
  }
}

const CALL_OPTIONS: readonly (keyof CallOptions)[] = [
  'signal',
  'engine',
  'idempotencyKey',
  'idempotencyTtl',
  'revalidate',
];

/** Whether reading `key` of `options` throws. */
function throwsOnRead(options: CallOptions, key: keyof CallOptions): boolean {
  try {
    void options[key];
    return false;
  } catch {
    return true;
  }
}

/**
 * Checks a call's options, so a wrong one is a `config` error naming it, never a TypeError later,
 * nor a misspelt one (`idempotencykey`) dropped without a word.
 */
function checkCallOptions(options: CallOptions | undefined, stitch: string): CallOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null)
    throw configError(stitch, 'options', 'must be an object');
  let signal: AbortSignal | undefined;
  let idempotencyKey: string | undefined;
  let idempotencyTtl: number | undefined;
  let revalidate: boolean | undefined;
  try {
    for (const key in options) {
      if (!CALL_OPTIONS.includes(key as keyof CallOptions))
        throw configError(stitch, key, `is not an option (${CALL_OPTIONS.join(', ')})`);
    }
    ({ signal, idempotencyKey, idempotencyTtl, revalidate } = options);
  } catch (error) {
    // A getter (or proxy trap) that throws is blamed on its option, not on the input.
    const culprit = CALL_OPTIONS.find((key) => throwsOnRead(options, key)) ?? 'options';
    throw unreadable(stitch, culprit, error);
  }
  if (!isSignalOrNone(signal)) throw configError(stitch, 'signal', 'must be an AbortSignal');
  if (revalidate !== undefined && typeof revalidate !== 'boolean')
    throw configError(stitch, 'revalidate', 'must be a boolean');
  if (
    idempotencyTtl !== undefined &&
    !(typeof idempotencyTtl === 'number' && idempotencyTtl > 0 && Number.isFinite(idempotencyTtl))
  )
    throw configError(stitch, 'idempotencyTtl', 'must be a positive number of ms');
  return { signal, idempotencyKey, idempotencyTtl, revalidate };
}
