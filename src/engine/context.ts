/**
 * What every stage of the pipeline below the coalescer shares: the engine's parts, the
 * execution's context and live state, and how a stage turns an ending into an error.
 */
import type { Clock } from './clock';
import type { StitchDefinition } from './definition';
import type { FetchLike } from './engineOptions';
import { StitchError, type StitchErrorDetails, type StitchErrorInit, type StitchErrorKind } from './errors';
import type { CancelPhase, EventPayload } from './events';
import type { Lifetime } from './lifetime';
import type { HeadersHook } from './outgoing';
import type { Parts } from './parts';
import type { BuiltRequest } from './request';
import { judge, type RetryPolicy } from './retry';
import type { Counts } from './run';
import type { Deadline } from './timeout';

/** What the engine's modules share across runs. */
export interface EngineParts {
  readonly fetch: FetchLike;
  readonly clock: Clock;
  /** The engine's instance of a policy's part (its breakers, throttles, retry budgets). */
  readonly use: Parts['use'];
  /** Lower-cased header and query names whose values never leave the engine. */
  readonly secret: ReadonlySet<string>;
  /** A request event's headers, redacted by `secret` (see `headersShown`). */
  readonly shown: (headers: Headers, own: boolean) => Readonly<Record<string, string>>;
  /** The engine's `headers` option, consulted at each dispatch. */
  readonly headers: HeadersHook | undefined;
}

/** Where a shared execution is, for a caller that cancels: its `phase` and what has left. */
export interface ExecutionState extends Counts {
  phase: CancelPhase;
  /** A request of this execution went out and was never answered: it may have taken effect. */
  ambiguous: boolean;
}

/** One logical call below the coalescer: it runs on `signal`, which no caller owns. */
export interface ExecutionContext<TData> {
  /** The id of the run that started this execution. */
  readonly run: string;
  readonly definition: StitchDefinition<TData, never>;
  readonly request: BuiltRequest;
  /** The request's URL as events and errors show it (secrets redacted), worked out once. */
  readonly url: string;
  readonly idempotencyKey: string | undefined;
  /** The retry policy that applies: a write retries only when it carries an idempotency key. */
  readonly retry: RetryPolicy;
  /** The execution's controller and its deadlines: the whole call's is the lifetime itself. */
  readonly lifetime: Lifetime;
  readonly parts: EngineParts;
  readonly state: ExecutionState;
  /** Emits `event`, stamped `at` (a clock reading the stage already made), or now. */
  readonly emit: (event: EventPayload, at?: number) => void;
}

/** The event of `type`, as a stage emits it. */
export type Payload<TType extends EventPayload['type']> = Extract<EventPayload, { type: TType }>;

/**
 * One change of an execution's state, with the event that reports it. {@link advance} is the only
 * place the state changes, so what a cancelling caller is told (`phase`, what has left) and what
 * the trace says cannot drift apart.
 */
export type Step =
  /** An attempt waits: for a throttle slot (`queued`), then for the breaker and the send. */
  | { type: 'wait'; phase: 'queued' | 'before-dispatch' }
  /**
   * A request leaves: an attempt's first (its `request` event) or a redirect hop (its `redirect`
   * event; none when the platform hides the hop's target, reported once it has landed).
   */
  | { type: 'send'; attempt: number; event?: Payload<'request'> | Payload<'redirect'>; at?: number }
  /** The response's headers arrived; its body is read next. */
  | { type: 'answer'; event: Payload<'response'>; at?: number }
  /** A retry's backoff sleep begins. */
  | { type: 'backoff'; event: Payload<'retry'> }
  /**
   * A deadline passed; a request it cut off may have taken effect at the vendor, unless it was
   * `answered` in full (the deadline ended a slow `output` validator).
   */
  | { type: 'timeout'; event: Payload<'timeout'>; answered?: boolean }
  /** A request left and the network failed before an answer: it may have taken effect. */
  | { type: 'unanswered' }
  /**
   * A request sent while the platform was offline, or whose connection was never made (refused,
   * no such host), failed: it never left, and does not count.
   */
  | { type: 'unsent' };

/**
 * Emits `step`'s event, then applies the step to the execution's state: a caller that cancels
 * while the event is heard (a trace sink, say) is told where the execution was before the step.
 */
export function advance(context: ExecutionContext<unknown>, step: Step): void {
  const { state } = context;
  if ('event' in step && step.event) context.emit(step.event, 'at' in step ? step.at : undefined);
  switch (step.type) {
    case 'wait':
      state.phase = step.phase;
      break;
    case 'send':
      state.phase = 'in-flight';
      state.attempts = step.attempt;
      state.requests += 1;
      break;
    case 'answer':
      state.phase = 'body';
      state.status = step.event.status;
      break;
    case 'backoff':
      state.phase = 'backoff';
      break;
    case 'timeout':
      if (step.event.dispatched && !step.answered) state.ambiguous = true;
      break;
    case 'unanswered':
      state.ambiguous = true;
      break;
    case 'unsent':
      state.requests -= 1;
      break;
  }
}

/** Whether the execution was ended (its last caller left, or a write took its key over): nobody waits. */
export const left = (context: ExecutionContext<unknown>): boolean => context.lifetime.ended !== undefined;

/** How one attempt ended. `aborted`: the execution's last caller left, so nobody waits for it. */
export type AttemptResult<TData> =
  /** `at`: when its answer arrived, on the engine's clock. */
  | { type: 'success'; data: TData; at?: number }
  /**
   * `opened`: recording this failure opened the breaker, so a retry would only be refused.
   * `throttled`: the throttle gave up on a slot for it (`maxWait`, the deadline): nothing was sent.
   */
  | { type: 'failure'; error: StitchError; retryAfter: number | undefined; opened?: true; throttled?: true }
  | { type: 'aborted' };

/** Builds an error carrying the execution's counters at the moment it is made. */
export function failure<TData>(
  context: ExecutionContext<TData>,
  kind: StitchErrorKind,
  message: string,
  extra: Partial<StitchErrorDetails> = {},
): StitchError {
  const { state, definition } = context;
  // The caller passes what its kind requires (`status` for http, `phase` for a timeout, …).
  const details = {
    kind,
    message,
    attempts: state.attempts,
    requests: state.requests,
    url: context.url,
    stitch: definition.name,
    idempotencyKey: context.idempotencyKey,
    ...extra,
    // Once a request of this run went unanswered, every later error of the run says so.
    ambiguous: state.ambiguous || extra.ambiguous === true,
  } as StitchErrorInit;
  // Unless the caller said, "retryable" is what this stitch's own retry policy would decide.
  return extra.retryable === undefined ? judge(details, context.retry) : new StitchError(details);
}

/** What a `store` event says of a store operation the call's total deadline passed waiting for. */
export const UNANSWERED = 'the store had not answered when the total deadline passed';

/** A deadline's ending as the attempt's result: a `timeout` failure of its phase. */
export function timedOut<TData>(
  context: ExecutionContext<TData>,
  deadline: Deadline,
  attempt: number,
  dispatched: boolean,
  answered = false,
): AttemptResult<TData> {
  advance(context, {
    type: 'timeout',
    event: { type: 'timeout', phase: deadline.phase, attempt, dispatched },
    answered,
  });
  const error = failure(context, 'timeout', (deadline.signal.reason as Error).message, {
    phase: deadline.phase,
    cause: deadline.signal.reason,
  });
  return { type: 'failure', error, retryAfter: undefined };
}
