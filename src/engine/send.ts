/**
 * The send of one attempt: its headers, its per-attempt deadline, the request (following
 * redirects), the body read and parsed and validated; resolves what it proved about the vendor.
 */
import { raceAbort } from './abort';
import type { CircuitOutcome } from './circuit';
import {
  type AttemptResult,
  advance,
  type ExecutionContext,
  failure,
  left,
  type Payload,
  timedOut,
} from './context';
import type { StitchDefinition } from './definition';
import { NoFetch } from './engineOptions';
import { isStitchError, MAX_ERROR_BODY } from './errors';
import { safely, scrub, scrubCause, secretValues } from './events';
import { IDEMPOTENCY_HEADER } from './idempotency';
import { addHeaders } from './outgoing';
import { isRedirect, RedirectRefused, sendFollowing } from './redirect';
import { BodyProblem, isJsonType, parseBody, readBody, readErrorBody, validate } from './response';
import { parseRetryAfter } from './retry';

/** The breaker's verdict on a status; a user's `failureStatus` that throws counts it as neutral. */
function isFailureStatus(policy: StitchDefinition<unknown, never>['circuit'], status: number): boolean {
  try {
    return policy?.isFailureStatus(status) ?? false;
  } catch {
    return false;
  }
}

/**
 * The final headers of one attempt: the request's, the idempotency key, then `onRequest`'s. With
 * nothing to add, the request's own (never written to: it may be the definition's).
 */
function attemptHeaders<TData>(context: ExecutionContext<TData>, attempt: number): Headers {
  const { definition, request } = context;
  const { headers: hook } = context.parts;
  const { onRequest } = definition.hooks;
  if (context.idempotencyKey === undefined && !hook && !onRequest) return request.headers;
  const headers = new Headers(request.headers);
  const key = context.idempotencyKey;
  const keyHeader = definition.idempotency?.header ?? IDEMPOTENCY_HEADER;
  if (hook) addHeaders(hook, context as ExecutionContext<unknown>, attempt, false, headers);
  // `onRequest` sees the headers as they leave (a signer signs the key that is sent).
  if (key !== undefined) headers.set(keyHeader, key);
  safely(onRequest, {
    stitch: definition.name,
    attempt,
    method: request.method,
    url: request.url,
    headers,
  });
  // The call's key is the call's: a hook setting its header (an interceptor's per-request key)
  // would make each retry a new write at the vendor.
  if (key !== undefined) headers.set(keyHeader, key);
  return headers;
}

/**
 * The attempt heard `response` (sent at `started`): its `response` event, timed on the engine's
 * clock, then `hooks.onResponse`. Returns when it was heard.
 */
function hear(
  context: ExecutionContext<unknown>,
  attempt: number,
  started: number,
  response: Response,
): number {
  const { definition, parts } = context;
  const at = parts.clock.now();
  advance(context, {
    type: 'answer',
    event: { type: 'response', attempt, status: response.status, elapsed: at - started },
    at,
  });
  const { onResponse } = definition.hooks;
  if (onResponse) safely(onResponse, { stitch: definition.name, attempt, response });
  return at;
}

/** Sends one attempt and reads its answer; resolves what it proved about the vendor, and how it ended. */
export async function dispatch<TData>(
  context: ExecutionContext<TData>,
  attempt: number,
): Promise<[CircuitOutcome, AttemptResult<TData>]> {
  const { state, definition, parts, request, lifetime: total } = context;
  // The request leaves a microtask after its call, whatever the policies: a caller that cancels
  // in the same tick sends nothing, and one that joins in it sees the request in its own trace.
  await undefined;
  if (left(context)) return ['neutral', { type: 'aborted' }];
  // The total deadline may pass between the admission and here: then nothing leaves.
  if (total.passed()) return ['neutral', timedOut(context, total, attempt, false)];
  // What this attempt sends (a hook may add a credential, a redirect a query): what its errors
  // must not quote.
  let headers: Headers;
  try {
    headers = attemptHeaders(context, attempt);
  } catch (error) {
    // The engine's hook returned what cannot be sent (a promise): nothing leaves. Anything else
    // is a defect, for `unexpected` to report.
    if (!isStitchError(error)) throw error;
    const refusal = failure(context, 'config', error.message, { field: 'headers' });
    return ['neutral', { type: 'failure', error: refusal, retryAfter: undefined }];
  }
  const each = total.attempt(definition.timeout.each);
  const hopSecrets: string[] = [];
  const secrets = () => secretValues(headers, [...request.secrets, ...hopSecrets], parts.secret);
  const scrubbed = (text: string) => scrub(text, secrets());
  let answered = false;
  // Offline as it was sent: the request cannot have left.
  let sentOffline = false;
  // When the request left, by the clock that times the wait for its answer.
  let started = 0;
  // The requests counted once the first left: any more are a redirect's hops.
  let sentFirst: number | undefined;
  try {
    const event: Payload<'request'> = {
      type: 'request',
      attempt,
      method: request.method,
      url: context.url,
      headers: parts.shown(headers, headers === definition.headers),
    };
    if (context.idempotencyKey !== undefined) event.idempotencyKey = context.idempotencyKey;
    // The request's event and the response's are stamped with the readings that time the wait.
    started = parts.clock.now();
    advance(context, { type: 'send', attempt, event, at: started });
    sentFirst = state.requests;
    sentOffline = offline();
    const response = await sendFollowing(context, attempt, headers, each.signal, hopSecrets);
    const at = hear(context, attempt, started, response);
    // Asked only after a hook ran: `bodyUsed` costs a look into the stream at every answer.
    if (definition.hooks.onResponse && (response.bodyUsed || response.body?.locked)) {
      // A hook that read the body (a logger's `await response.json()`) left nothing to read, and
      // its reader holds the socket until it is done: a mistake of the app's, not a failure of
      // the vendor, which answered. Not retried.
      const message = `stitch '${definition.name}': the response body was read before the engine could read it, by \`hooks.onResponse\` (read \`response.clone()\` there) or the engine's \`fetch\``;
      const error = failure(context, 'config', message, {
        field: 'hooks.onResponse',
        status: response.status,
        retryable: false,
      });
      return ['neutral', { type: 'failure', error, retryAfter: undefined }];
    }
    if (!response.ok && !(definition.redirect === 'manual' && isRedirect(response))) {
      // Read past the cut by the longest secret, so one echoed across it is scrubbed whole.
      const longest = Math.max(0, ...secrets().map((secret) => secret.length));
      const body = await readErrorBody(response, MAX_ERROR_BODY + longest, each.signal);
      // A deadline that cuts the body leaves the status the vendor answered with: that is the
      // attempt's answer (the vendor said 503, it did not go unanswered). A caller who left, did.
      if (left(context)) throw each.signal.reason;
      const outcome = isFailureStatus(definition.circuit, response.status) ? 'failure' : 'neutral';
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'), parts.clock.wallNow());
      const kind = response.status === 429 ? 'rate-limited' : 'http';
      const error = failure(
        context,
        kind,
        // A vendor echoing a credential back (`invalid token sk-…`), in its reason phrase or its
        // body, must not put it in the error.
        scrubbed(`${request.method} ${response.status} ${response.statusText}`.trim()),
        {
          status: response.status,
          body: body === undefined ? undefined : scrubbed(body).slice(0, MAX_ERROR_BODY),
          retryAfter,
        },
      );
      return [outcome, { type: 'failure', error, retryAfter }];
    }
    const type = response.headers.get('content-type');
    // A 3xx returned as it is (`redirect: 'manual'`) carries a page for people ("Found.
    // Redirecting to …"), not data: read as JSON only when it says it is JSON.
    const page =
      definition.redirect === 'manual' &&
      isRedirect(response) &&
      definition.responseType === 'json' &&
      !isJsonType(type);
    if (page) response.body?.cancel().catch(() => {});
    const text = page ? '' : await readBody(response, definition.maxBodyBytes, each.signal);
    const parsed = parseBody(text, type, definition.responseType);
    // Without an `output` validator, no wait for one. An asynchronous one is inside the attempt's
    // deadline; one it ends says nothing about the vendor, which has answered in full.
    answered = true;
    const data = definition.output
      ? await raceAbort(validate(definition.output, parsed), each.signal)
      : (parsed as TData);
    return ['success', { type: 'success', data, at }];
  } catch (error) {
    // A refused 3xx (below) comes with its body, let go of once its hook has seen it.
    const refused = error instanceof RedirectRefused ? error.response : undefined;
    if (left(context)) {
      refused?.body?.cancel().catch(() => {});
      return ['neutral', { type: 'aborted' }];
    }
    if (error instanceof BodyProblem) {
      // A parser's message quotes the body, which may echo a credential back.
      const invalid = failure(context, 'invalid', scrubbed(error.message), {
        cause: scrubCause(error.issues ?? error, scrubbed),
        status: state.status,
      });
      return ['neutral', { type: 'failure', error: invalid, retryAfter: undefined }];
    }
    if (error instanceof RedirectRefused) {
      // The refused 3xx is the attempt's answer: its status is the report's, heard as any answer.
      if (refused) {
        hear(context, attempt, started, refused);
        refused.body?.cancel().catch(() => {});
      }
      const http = failure(context, 'http', error.message, { status: error.status, retryable: false });
      return ['neutral', { type: 'failure', error: http, retryAfter: undefined }];
    }
    if (refusedUnsent(error)) {
      // Nothing left: not the vendor's failure, nor one a retry would mend.
      // The first request, or a redirect's (which its trace's `redirect` event names): this one.
      const hop = sentFirst !== undefined && state.requests > sentFirst;
      advance(context, { type: 'unsent' });
      const said = hop
        ? `${request.method} ${context.url} was redirected, and fetch refused the redirect's request before it was sent`
        : `${request.method} ${context.url} was refused by fetch before it was sent`;
      const refusal = failure(context, 'config', `stitch '${definition.name}': ${said}`, {
        field: 'fetch',
        cause: scrubCause(error, scrubbed),
      });
      return ['neutral', { type: 'failure', error: refusal, retryAfter: undefined }];
    }
    if (request.bodyFailure && !each.expired && !total.expired) {
      // The caller's own body stream failed as it was sent: nothing the vendor did, nor a retry
      // could mend (a stream is sent once). Part of it may have reached the vendor.
      advance(context, { type: 'unanswered' });
      const said = `stitch '${definition.name}': the request body stream failed while ${request.method} ${context.url} was sent`;
      const broken = failure(context, 'config', said, {
        field: 'body',
        cause: scrubCause(request.bodyFailure.error, scrubbed),
        retryable: false,
      });
      return ['neutral', { type: 'failure', error: broken, retryAfter: undefined }];
    }
    // A failure while the browser is offline says nothing about the vendor.
    const isolated = offline();
    const outcome = answered || isolated ? 'neutral' : 'failure';
    if (total.expired) return [outcome, timedOut(context, total, attempt, true, answered)];
    if (each.expired) return [outcome, timedOut(context, each, attempt, true, answered)];
    // A connection that was never made sent nothing: it does not count as a request, and leaves
    // no doubt behind. One cut by the network going away may have reached the vendor first.
    if (sentOffline || neverConnected(error)) advance(context, { type: 'unsent' });
    else advance(context, { type: 'unanswered' });
    const said = `${request.method} ${context.url} failed${isolated ? ' (offline)' : ''}`;
    const network = failure(context, 'network', said, { cause: scrubCause(error, scrubbed) });
    return [isolated ? 'neutral' : 'failure', { type: 'failure', error: network, retryAfter: undefined }];
  } finally {
    each.dispose();
    // The exchange is over: fetch must not go on reading a stream body the vendor never took (it
    // does after its abort, or a response whose body the engine cancelled: a long error page).
    request.stopBody?.(
      each.signal.aborted
        ? each.signal.reason
        : new DOMException('The request ended before its body was sent in full', 'AbortError'),
    );
  }
}

/** Whether the platform says it has no network (a browser's `navigator.onLine`; Node has none). */
const offline = () => (globalThis as { navigator?: { onLine?: unknown } }).navigator?.onLine === false;

/** Error codes of Node's fetch (undici) for a request it will not send as it is. */
const REFUSED_UNSENT = new Set<unknown>(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED']);

/**
 * Whether `fetch` refused the request before sending anything, on its own grounds: Node's fetch
 * (undici) refuses a header it will not send (`Expect`, `Transfer-Encoding`, a control character)
 * or a port it will not connect to, and there may be no `fetch` at all. A browser's only says
 * `Failed to fetch`.
 */
function refusedUnsent(error: unknown): boolean {
  for (let depth = 0; depth < 4 && typeof error === 'object' && error !== null; depth++) {
    if (error instanceof NoFetch || REFUSED_UNSENT.has((error as { code?: unknown }).code)) return true;
    // A port fetch will not connect to (6000, 10080, …: the Fetch standard's "bad ports"), which
    // Node's says with this message alone.
    if ((error as { message?: unknown }).message === 'bad port') return true;
    error = (error as { cause?: unknown }).cause;
  }
  return false;
}

/** Error codes that prove no connection was made (the request never left), as Node reports them. */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Whether a network failure (`fetch`'s error, its code on a `cause`, or every address of an
 * `AggregateError` refused) proves the request never reached a server.
 */
function neverConnected(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && NOT_CONNECTED.has(code)) return true;
  if (Array.isArray(errors) && errors.length > 0)
    return errors.every((each) => neverConnected(each, depth + 1));
  return neverConnected(cause, depth + 1);
}
