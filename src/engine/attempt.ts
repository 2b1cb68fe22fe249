import { raceAbort } from './abort';
import type { Admission, Circuit, CircuitOutcome } from './circuit';
import type { Clock } from './clock';
import { isStitchError, reasonMessage, StitchError, type StitchErrorKind } from './errors';
import type { CancelPhase, EventPayload } from './events';
import { redactHeaders, safely, scrub, secretValues } from './events';
import { addHeaders, type HeadersHook } from './outgoing';
import { isRedirect, RedirectRefused, sendFollowing } from './redirect';
import type { BuiltRequest } from './request';
import { BodyProblem, parseBody, readBody, readErrorBody, validate } from './response';
import { isRetryable, parseRetryAfter, type RetryBudget, type RetryPolicy } from './retry';
import type { SharedThrottle } from './shared';
import type { StitchDefinition } from './stitch';
import type { Release, Throttle } from './throttle';
import { type Deadline, startDeadline } from './timeout';

/** What the engine's modules share across runs. */
export interface EngineParts {
  readonly fetch: typeof globalThis.fetch;
  readonly clock: Clock;
  readonly circuit: Circuit;
  readonly throttle: Throttle;
  readonly budget: RetryBudget;
  /** The throttle's parts shared across processes (rate, concurrency), when the store can share them. */
  readonly sharedThrottle: SharedThrottle | undefined;
  /** Lower-cased header and query names whose values never leave the engine. */
  readonly secret: ReadonlySet<string>;
  /** The engine's `headers` option, consulted at each dispatch. */
  readonly headers: HeadersHook | undefined;
}

/** Where a shared execution is, for a caller that cancels: its `phase` and what has left. */
export interface ExecutionState {
  phase: CancelPhase;
  attempts: number;
  requests: number;
  status: number | undefined;
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
  /** Aborts when the last caller leaves, or when `total` expires. */
  readonly signal: AbortSignal;
  /** The whole call's deadline, on `signal` itself (the execution's one controller). */
  readonly total: Deadline;
  readonly parts: EngineParts;
  readonly state: ExecutionState;
  readonly emit: (event: EventPayload) => void;
}

/** Whether the execution's last caller has left (its signal aborted, not by its deadline): nobody waits. */
export const left = (context: ExecutionContext<unknown>): boolean =>
  context.signal.aborted && !context.total.expired;

/** How one attempt ended. `aborted`: the execution's last caller left, so nobody waits for it. */
export type AttemptResult<TData> =
  | { type: 'success'; data: TData }
  | { type: 'failure'; error: StitchError; retryAfter: number | undefined }
  | { type: 'aborted' };

/** Builds an error carrying the execution's counters at the moment it is made. */
export function failure<TData>(
  context: ExecutionContext<TData>,
  kind: StitchErrorKind,
  message: string,
  extra: Partial<ConstructorParameters<typeof StitchError>[0]> = {},
): StitchError {
  const { state, definition } = context;
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
  };
  const error = new StitchError(details);
  // Unless the caller said, "retryable" is what this stitch's own retry policy would decide.
  return extra.retryable === undefined
    ? new StitchError({ ...details, retryable: isRetryable(error, context.retry) })
    : error;
}

/** The breaker's verdict on a status; a user's `failureStatus` that throws counts it as neutral. */
function isFailureStatus(policy: StitchDefinition<unknown, never>['circuit'], status: number): boolean {
  try {
    return policy?.isFailureStatus(status) ?? false;
  } catch {
    return false;
  }
}

/** Waits for a throttle slot, if the stitch has a throttle. Returns an error when it gave up. */
async function takeSlot<TData>(
  context: ExecutionContext<TData>,
  total: Deadline,
): Promise<Release | StitchError> {
  const policy = context.definition.throttle;
  if (!policy) return () => {};
  const key = policy.key ?? context.request.origin;
  const { parts } = context;
  const onQueued = (position: number) => context.emit({ type: 'queued', key, position });
  const { sharedThrottle } = parts;
  const options = { signal: total.signal, maxWait: total.remaining(), onQueued };
  try {
    if (!sharedThrottle || !((policy.rate && policy.shared.rate) || policy.shared.concurrency)) {
      return await parts.throttle.acquire(key, policy, options);
    }
    return await sharedThrottle(parts.throttle, key, policy, options, (operation, error) =>
      context.emit({ type: 'store', operation, key, error: reasonMessage(error) }),
    );
  } catch (error) {
    // A caller's abort unwinds; a wait past maxWait or past the total deadline is 'rate-limited'.
    if (left(context)) throw error;
    const retryAfter = isStitchError(error) ? error.retryAfter : undefined;
    // The wait's own bound is what was left of the deadline: its timer may fire just before the deadline's.
    const message =
      total.expired || total.remaining() === 0
        ? 'the total deadline passed while waiting for a throttle slot'
        : (error as Error).message;
    return failure(context, 'rate-limited', message, { cause: error, retryable: true, retryAfter });
  }
}

/**
 * One attempt: throttle slot → breaker admission → per-attempt deadline → fetch → body → parse
 * and validate → breaker record. The slot is held for this attempt only, never during backoff,
 * nor while the breaker writes its record; that write is awaited only within the total deadline
 * (a slow store must not hold the caller's answer past it: the record finishes on its own).
 */
export async function runAttempt<TData>(
  context: ExecutionContext<TData>,
  attempt: number,
  total: Deadline,
): Promise<AttemptResult<TData>> {
  const { state, definition, parts, request } = context;
  state.phase = definition.throttle ? 'queued' : 'before-dispatch';
  let slot: Release | StitchError;
  try {
    slot = await takeSlot(context, total);
  } catch {
    return { type: 'aborted' };
  }
  if (typeof slot !== 'function') return { type: 'failure', error: slot, retryAfter: slot.retryAfter };
  const release = slot;
  const sentBefore = state.requests;
  let recording: Promise<void> | undefined;
  let result: AttemptResult<TData>;
  try {
    state.phase = 'before-dispatch';
    let admission: Admission | undefined;
    if (definition.circuit) {
      const key = definition.circuit.key ?? request.origin;
      const admitting = parts.circuit.admit(key, definition.circuit, {
        transition: (change) => context.emit({ type: 'circuit', ...change }),
        storeError: (error) =>
          context.emit({ type: 'store', operation: 'circuit', key, error: reasonMessage(error) }),
      });
      // A slow store must not hold an aborted or timed-out execution (nor its throttle slot); an
      // admission that arrives after that is handed back as neutral, freeing a probe lease.
      const verdict = await raceAbort(admitting, total.signal).catch((error: unknown) => {
        admitting.then((late) => {
          if (late.admitted) late.admission.record('neutral');
        });
        throw error;
      });
      if (!verdict.admitted) {
        const error = failure(context, 'circuit-open', `the circuit '${key}' is ${verdict.state}`, {
          retryAfter: verdict.retryAfter,
          retryable: true,
        });
        return { type: 'failure', error, retryAfter: undefined };
      }
      admission = verdict.admission;
    }
    const [outcome, ended] = await dispatch(context, attempt, total);
    recording = admission?.record(outcome);
    result = ended;
  } catch (error) {
    // An abort or the total deadline land here; anything else is not ours to swallow.
    if (total.expired) return timedOut(context, total, attempt, false);
    if (left(context)) return { type: 'aborted' };
    throw error;
  } finally {
    // An attempt that sent nothing (breaker refused, caller left) hands back its rate token too.
    release(state.requests === sentBefore);
  }
  if (recording) await raceAbort(recording, total.signal).catch(() => {});
  return result;
}

function timedOut<TData>(
  context: ExecutionContext<TData>,
  deadline: Deadline,
  attempt: number,
  dispatched: boolean,
): AttemptResult<TData> {
  context.emit({ type: 'timeout', phase: deadline.phase, attempt, dispatched });
  // A request cut off unanswered may still have taken effect at the vendor.
  if (dispatched) context.state.ambiguous = true;
  const error = failure(context, 'timeout', (deadline.signal.reason as Error).message, {
    phase: deadline.phase,
    cause: deadline.signal.reason,
  });
  return { type: 'failure', error, retryAfter: undefined };
}

/** The final headers of one attempt: the request's, the idempotency key, then `onRequest`'s. */
function attemptHeaders<TData>(context: ExecutionContext<TData>, attempt: number): Headers {
  const { definition, request } = context;
  const headers = new Headers(request.headers);
  if (context.idempotencyKey !== undefined) {
    headers.set(definition.idempotency?.header ?? 'Idempotency-Key', context.idempotencyKey);
  }
  const { headers: hook } = context.parts;
  if (hook) {
    const outgoing = {
      run: context.run,
      stitch: definition.name,
      attempt,
      method: request.method,
      url: context.url,
    };
    addHeaders(hook, outgoing, headers);
  }
  safely(definition.hooks.onRequest, {
    stitch: definition.name,
    attempt,
    method: request.method,
    url: request.url,
    headers,
  });
  return headers;
}

/** Sends one attempt and reads its answer; resolves what it proved about the vendor, and how it ended. */
async function dispatch<TData>(
  context: ExecutionContext<TData>,
  attempt: number,
  total: Deadline,
): Promise<[CircuitOutcome, AttemptResult<TData>]> {
  const { state, definition, parts, request } = context;
  if (left(context)) return ['neutral', { type: 'aborted' }];
  const each = startDeadline(parts.clock, 'each', definition.timeout.each, total.signal);
  try {
    const headers = attemptHeaders(context, attempt);
    state.attempts = attempt;
    context.emit({
      type: 'request',
      attempt,
      method: request.method,
      url: context.url,
      headers: redactHeaders(headers, parts.secret),
      ...(context.idempotencyKey === undefined ? {} : { idempotencyKey: context.idempotencyKey }),
    });
    state.phase = 'in-flight';
    state.requests += 1;
    const started = parts.clock.now();
    const sent = secretValues(headers, request.secrets, parts.secret);
    const response = await sendFollowing(context, attempt, headers, each.signal);
    state.status = response.status;
    context.emit({
      type: 'response',
      attempt,
      status: response.status,
      elapsed: parts.clock.now() - started,
    });
    safely(definition.hooks.onResponse, { stitch: definition.name, attempt, response });
    state.phase = 'body';
    if (!response.ok && !(definition.redirect === 'manual' && isRedirect(response.status))) {
      const body = await readErrorBody(response, each.signal);
      if (each.signal.aborted) throw each.signal.reason;
      const outcome = isFailureStatus(definition.circuit, response.status) ? 'failure' : 'neutral';
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'), parts.clock.wallNow());
      const kind = response.status === 429 ? 'rate-limited' : 'http';
      const error = failure(
        context,
        kind,
        `${request.method} ${response.status} ${response.statusText}`.trim(),
        // A vendor echoing a credential back (`invalid token sk-…`) must not put it in the error.
        { status: response.status, body: body === undefined ? undefined : scrub(body, sent), retryAfter },
      );
      return [outcome, { type: 'failure', error, retryAfter }];
    }
    const text = await readBody(response, definition.maxBodyBytes, each.signal);
    const data = await validate(
      definition.output,
      parseBody(text, response.headers.get('content-type'), definition.responseType),
    );
    return ['success', { type: 'success', data }];
  } catch (error) {
    if (left(context)) return ['neutral', { type: 'aborted' }];
    if (error instanceof BodyProblem) {
      const invalid = failure(context, 'invalid', error.message, {
        cause: error.issues ?? error,
        status: state.status,
      });
      return ['neutral', { type: 'failure', error: invalid, retryAfter: undefined }];
    }
    if (error instanceof RedirectRefused) {
      const refused = failure(context, 'http', error.message, { status: error.status, retryable: false });
      return ['neutral', { type: 'failure', error: refused, retryAfter: undefined }];
    }
    if (total.expired) return ['failure', timedOut(context, total, attempt, true)];
    if (each.expired) return ['failure', timedOut(context, each, attempt, true)];
    state.ambiguous = true;
    const network = failure(context, 'network', `${request.method} ${context.url} failed`, { cause: error });
    return ['failure', { type: 'failure', error: network, retryAfter: undefined }];
  } finally {
    each.dispose();
  }
}
