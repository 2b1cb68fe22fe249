/**
 * The engine's `headers` option: headers added to each attempt as it is dispatched (a W3C
 * `traceparent`, say), after the stitch's own and the idempotency key, before the `request` event
 * and the `onRequest` hook, so both see them (secret names redacted).
 */
import type { ExecutionContext } from './context';
import { configError } from './errors';

/** What the `headers` option is told about an attempt about to leave. */
export interface OutgoingRequest {
  /**
   * The id of the run that started the request. Callers that joined it (coalescing) have a
   * `coalesce` event naming this run as `leader`.
   */
  readonly run: string;
  /** The stitch's name. */
  readonly stitch: string;
  /** 1 for the first attempt, 2 for the first retry, ... */
  readonly attempt: number;
  readonly method: string;
  /** The URL, secrets redacted as in events. */
  readonly url: string;
  /**
   * `true` when asked before any attempt, for the credentials the call will carry (the scope of
   * its idempotency record): return the same headers, but start nothing (a span, say).
   */
  readonly preview: boolean;
}

/** Returns headers to add to one attempt (`undefined`: none; a header whose value is `undefined` is left out). */
export type HeadersHook = (
  request: OutgoingRequest,
) => Readonly<Record<string, string | undefined>> | undefined;

/** Checks the `headers` option of `createEngine`. */
export function checkHeadersHook(hook: unknown): HeadersHook | undefined {
  if (hook !== undefined && typeof hook !== 'function') {
    throw configError(undefined, 'headers', 'must be a function of the outgoing request');
  }
  return hook as HeadersHook | undefined;
}

/**
 * Adds to `headers` what the engine's `headers` hook returns for attempt `attempt` of the call
 * (`preview`: asked before any attempt). A hook that throws (or returns a header the platform
 * refuses) adds nothing: like a trace sink, it cannot fail the request it observes.
 * @throws StitchError of kind `'config'` naming `headers` when the hook returns a promise.
 */
export function addHeaders(
  hook: HeadersHook,
  context: ExecutionContext<unknown>,
  attempt: number,
  preview: boolean,
  headers: Headers,
): void {
  const { run, url, definition, request } = context;
  let extra: ReturnType<HeadersHook>;
  try {
    extra = hook({ run, stitch: definition.name, attempt, method: request.method, url, preview });
  } catch {
    // Observers cannot fail a request.
    return;
  }
  // An async hook (a token refresh, say) would add nothing, without a word: the attempt fails
  // instead, before it is sent (a preview adds nothing, and lets the attempt say so).
  if (typeof (extra as { then?: unknown } | undefined)?.then === 'function') {
    (extra as unknown as PromiseLike<unknown>).then(undefined, () => {});
    if (preview) return;
    const problem =
      'returned a promise: it must return its headers at once (refresh a token elsewhere, read it here)';
    throw configError(definition.name, 'headers', `(the engine's hook) ${problem}`);
  }
  try {
    // A header the hook has no value for (no active span, say) is left out, not sent as "undefined".
    for (const [name, value] of Object.entries(extra ?? {})) {
      if (value !== undefined && value !== null) headers.set(name, value);
    }
  } catch {
    // Nor can a header the platform refuses.
  }
}
