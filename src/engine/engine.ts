import { abortReason, onAbort } from './abort';
import { type EngineParts, type ExecutionContext, type ExecutionState, safely } from './attempt';
import { type Circuit, type CircuitState, createCircuit } from './circuit';
import { type Clock, createRealClock } from './clock';
import { type Coalescer, createCoalescer, type Reference } from './coalescer';
import { isStitchError, reasonMessage, StitchError } from './errors';
import { type EventPayload, fanOut, redactUrl, SECRET_HEADERS, SECRET_QUERY, type TraceSink } from './events';
import { type ExecutionResult, execute } from './execute';
import { idempotencyKeyFor } from './idempotency';
import { type BuiltRequest, buildRequest, type StitchInput } from './request';
import { createRetryBudget } from './retry';
import { type RunTally, StitchRun } from './run';
import type { CallOptions, StitchDefinition, StitchEngineLike } from './stitch';
import { createMemoryStore, type Store } from './store';
import { createThrottle } from './throttle';

/** Everything `createEngine` accepts; all optional. */
export interface EngineOptions {
  /** @default globalThis.fetch (looked up per request, so test mocks installed later apply) */
  fetch?: typeof globalThis.fetch;
  /** Breaker state and other shared state. @default an in-memory store */
  store?: Store;
  /** @default the real clock */
  clock?: Clock;
  /** Sinks that see every event of every run, secrets redacted. @default none */
  trace?: TraceSink | readonly TraceSink[];
  /** More header or query names to redact, besides {@link SECRET_HEADERS} and {@link SECRET_QUERY}. @default [] */
  redact?: readonly string[];
}

/** Runs stitches: owns the store, breakers, throttles, retry budgets and the coalescer. */
export interface Engine extends StitchEngineLike {
  /** The state of the breaker for `key` (a URL origin unless a stitch sets `circuit.key`). */
  circuitState(key: string): Promise<CircuitState>;
  /** The engine's clock. */
  readonly clock: Clock;
}

/** Creates an isolated engine; tests and apps that want isolation make their own. */
export function createEngine(options: EngineOptions = {}): Engine {
  const clock = options.clock ?? createRealClock();
  const store = options.store ?? createMemoryStore(() => clock.now());
  const sinks =
    options.trace === undefined ? [] : Array.isArray(options.trace) ? options.trace : [options.trace];
  const sink = fanOut(sinks as readonly TraceSink[]);
  const configured = (options.redact ?? []).map((name) => name.toLowerCase());
  const secret = new Set([...SECRET_HEADERS, ...SECRET_QUERY, ...configured]);
  const circuit: Circuit = createCircuit({ store, clock });
  const parts: EngineParts = {
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    clock,
    circuit,
    throttle: createThrottle(clock),
    budget: createRetryBudget(clock),
    secret,
  };
  const coalescer: Coalescer = createCoalescer();
  const names = new Map<string, StitchDefinition<unknown, never>>();
  let runs = 0;

  function call<TData, TInput extends StitchInput>(
    definition: StitchDefinition<TData, TInput>,
    input: TInput | undefined,
    callOptions: CallOptions | undefined,
  ): StitchRun<TData> {
    const run = new StitchRun<TData>(`r${++runs}`, definition.name, clock, sink);
    const tally: RunTally = {
      attempts: 0,
      requests: 0,
      status: undefined,
      source: 'live',
      idempotencyKey: undefined,
    };
    let request: BuiltRequest;
    let idempotencyKey: string | undefined;
    try {
      const known = names.get(definition.name);
      if (known && known !== (definition as StitchDefinition<unknown, never>)) {
        throw new StitchError({
          kind: 'config',
          field: 'name',
          stitch: definition.name,
          message: `stitch '${definition.name}': \`name\` is used by another stitch on this engine`,
        });
      }
      names.set(definition.name, definition as StitchDefinition<unknown, never>);
      request = buildRequest(definition.name, definition.method, definition.url, definition.headers, input);
      idempotencyKey = idempotencyKeyFor(
        definition.idempotency,
        input as TInput,
        callOptions?.idempotencyKey,
      );
    } catch (error) {
      const failure = isStitchError(error)
        ? error
        : new StitchError({ kind: 'config', message: String(error), cause: error, stitch: definition.name });
      run.emit({ type: 'start', method: definition.method, url: definition.url });
      run.finish({ ok: false, error: failure }, tally);
      return run;
    }
    tally.idempotencyKey = idempotencyKey;
    run.emit({ type: 'start', method: request.method, url: redactUrl(request.url, secret) });

    const signal = callOptions?.signal;
    const cancel = (reason: unknown, state: ExecutionState | undefined, reference?: Reference<TData>) => {
      const phase = state?.phase ?? 'before-dispatch';
      const requests = state?.requests ?? 0;
      run.emit({
        type: 'cancel',
        phase,
        dispatched: requests > 0,
        reason: reasonMessage(reason),
        attempt: state?.attempts ?? 0,
      });
      safely(definition.hooks.onCancel, { stitch: definition.name, reason, phase, dispatched: requests > 0 });
      reference?.release(reason);
      Object.assign(tally, { attempts: state?.attempts ?? 0, requests, status: state?.status });
      const error = new StitchError({
        kind: 'aborted',
        message: reasonMessage(reason),
        cause: reason,
        attempts: tally.attempts,
        requests,
        ambiguous: phase === 'in-flight' || phase === 'body',
        url: redactUrl(request.url, secret),
        stitch: definition.name,
        idempotencyKey,
      });
      run.finish({ ok: false, error }, tally);
    };

    if (signal?.aborted) {
      cancel(abortReason(signal), undefined);
      return run;
    }

    const retry = idempotencyKey === undefined ? definition.retry.plain : definition.retry.keyed;
    const key =
      definition.coalesce && idempotencyKey === undefined ? coalesceKey(definition.name, request) : undefined;
    const listener = (event: EventPayload, trace: boolean) => run.emit(event, trace);
    const reference = coalescer.join<TData>(key, run.id, listener, (executionSignal, emit) => {
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
      return { state, result: execute(context) };
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
      if (result.type === 'success') run.finish({ ok: true, data: result.data }, tally);
      else if (result.type === 'failure') run.finish({ ok: false, error: result.error }, tally);
    });
    return run;
  }

  return {
    call,
    clock,
    circuitState: (key) => circuit.state(key),
  };
}

/** Callers share an execution only when they would send the very same request. */
function coalesceKey(name: string, request: BuiltRequest): string {
  return JSON.stringify([name, request.method, request.url, [...request.headers]]);
}

let fallback: Engine | undefined;

/** The engine stitches run on when a call names none; created on first use. */
export function defaultEngine(): Engine {
  fallback ??= createEngine();
  return fallback;
}
