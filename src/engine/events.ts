import type { StitchErrorKind, TimeoutPhase } from './errors';

/** What a `store` event's failed operation was for. */
export type StoreOperation = 'circuit' | 'rate' | 'concurrency' | 'budget' | 'idempotency';

/** Where a run was when its caller cancelled it. */
export type CancelPhase = 'queued' | 'before-dispatch' | 'in-flight' | 'body' | 'backoff';

/** How a run ended. A cancellation is its own outcome, never an error. */
export type RunOutcome = 'success' | 'error' | 'cancelled';

/** A failure as events and reports show it: the discriminants, no stack, no secrets. */
export interface ErrorSummary {
  kind: StitchErrorKind;
  name: string;
  message: string;
  status?: number | undefined;
  phase?: TimeoutPhase | undefined;
}

/** What every event carries. */
export interface EventBase {
  /** Clock time (ms). */
  at: number;
  /** The id of the run the event belongs to. */
  run: string;
  /** The stitch's name. */
  stitch: string;
}

type Event<TType extends string, TData> = EventBase & { type: TType } & TData;

/** One thing that happened in a run, discriminated by `type`. */
export type StitchEvent =
  | Event<'start', { method: string; url: string }>
  | Event<'queued', { key: string; position: number }>
  | Event<'cache', { hit: 'fresh' | 'stale' }>
  | Event<'coalesce', { leader: string }>
  | Event<
      'request',
      {
        attempt: number;
        method: string;
        url: string;
        /** Secret values redacted; the same frozen object for every call sending a stitch's own headers. */
        headers: Readonly<Record<string, string>>;
        idempotencyKey?: string | undefined;
      }
    >
  /**
   * One hop of a redirect the engine followed: `from` and `to` redacted; `dropped` names the
   * secret headers left behind because the hop changed origin (`crossOrigin`); `method` is the
   * next hop's (a 303 turns a POST into a GET).
   */
  | Event<
      'redirect',
      {
        attempt: number;
        status: number;
        from: string;
        to: string;
        method: string;
        crossOrigin: boolean;
        dropped: string[];
      }
    >
  | Event<'response', { attempt: number; status: number; elapsed: number }>
  | Event<'retry', { attempt: number; delay: number; error: ErrorSummary }>
  | Event<'timeout', { phase: TimeoutPhase; attempt: number; dispatched: boolean }>
  | Event<'circuit', { key: string; from: string; to: string }>
  /**
   * The store failed during `operation` for `key` (a breaker, throttle or budget key, or an
   * idempotency key): it threw, timed out, or held a corrupt breaker state, which `error`
   * describes. The call went ahead without it (failed open); the breaker's next write replaces a
   * corrupt value.
   */
  | Event<'store', { operation: StoreOperation; key: string; error: string }>
  /**
   * An idempotency record of `key` answered: `recorded`, a call under it had succeeded, so this one
   * resolves with its data and sends nothing; `waiting`, a call under it is in flight, so this one
   * waits for its outcome instead of sending it twice.
   */
  | Event<'idempotency', { key: string; status: 'recorded' | 'waiting' }>
  /**
   * `dispatched`: a request had left the process. `shared`: other callers still hold that request,
   * so it goes on (and its socket stays open); false when this cancel stopped it.
   */
  | Event<
      'cancel',
      { phase: CancelPhase; dispatched: boolean; shared: boolean; reason: string; attempt: number }
    >
  | Event<'error', { error: ErrorSummary }>
  | Event<'success', { status: number | undefined }>
  | Event<'done', { outcome: RunOutcome; elapsed: number }>;

/** The `type` of any event. */
export type StitchEventType = StitchEvent['type'];

/** An event as modules produce it, before the run stamps `at`, `run` and `stitch` on it. */
export type EventPayload = DistributiveOmit<StitchEvent, keyof EventBase>;

type DistributiveOmit<T, TKey extends PropertyKey> = T extends unknown ? Omit<T, TKey> : never;

/** Receives every event of every run on an engine. A sink that throws never breaks a run. */
export interface TraceSink {
  /** Called synchronously with each event as a run emits it, after redaction. */
  handle(event: StitchEvent): void;
}

/** Headers whose values never leave the engine in an event, a report or an error. */
export const SECRET_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
  'x-auth-token',
];

/**
 * Query parameters that carry credentials: their values are redacted from events, reports, error
 * URLs and error bodies, and hashed in cache keys. Compared without regard to case.
 */
export const SECRET_QUERY: readonly string[] = [
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'api_key',
  'apikey',
  'key',
  'sig',
  'signature',
  'x-amz-signature',
  'code',
  'password',
  'secret',
  'client_secret',
];

const REDACTED = '[redacted]';

/** Copies headers for an event, replacing the value of every secret (or configured) name. */
function redactHeaders(headers: Headers, secret: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = secret.has(name) ? REDACTED : value;
  });
  return out;
}

/**
 * How request events show headers, secret values (by `secret`) redacted. A stitch's own headers
 * (`own`: sent as they are by most calls, and never changed) are redacted once, and shown as the
 * same frozen copy each time after.
 */
export function headersShown(
  secret: ReadonlySet<string>,
): (headers: Headers, own: boolean) => Readonly<Record<string, string>> {
  const once = new WeakMap<Headers, Readonly<Record<string, string>>>();
  return (headers, own) => {
    if (!own) return redactHeaders(headers, secret);
    let shown = once.get(headers);
    if (shown === undefined) {
      shown = Object.freeze(redactHeaders(headers, secret));
      once.set(headers, shown);
    }
    return shown;
  };
}

/** A URL for an event: credentials and query parameters with a secret name are redacted. */
export function redactUrl(url: string, secret: ReadonlySet<string>): string {
  // Nothing to redact without a query or userinfo: skip the parse on the common path.
  if (!url.includes('?') && !url.includes('@')) return url;
  const parsed = new URL(url);
  let changed = parsed.username !== '' || parsed.password !== '';
  parsed.username = '';
  parsed.password = '';
  for (const name of [...parsed.searchParams.keys()]) {
    if (secret.has(name.toLowerCase())) {
      parsed.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  return changed ? parsed.toString() : url;
}

/**
 * The secret values one request carries: each secret header's value (and, for a value such as
 * `Bearer <token>` or `sid=<id>`, its long parts) and each secret query value (`query`).
 */
export function secretValues(
  headers: Headers,
  query: readonly string[],
  secret: ReadonlySet<string>,
): string[] {
  const values = new Set<string>();
  const add = (value: string) => {
    if (value === '') return;
    values.add(value);
    values.add(encodeURIComponent(value));
    // As a query string carries it (a space is '+' there).
    values.add(new URLSearchParams({ v: value }).toString().slice(2));
    for (const part of value.split(/[\s;,=]+/)) if (part.length >= 8) values.add(part);
  };
  headers.forEach((value, name) => {
    if (secret.has(name)) add(value);
  });
  for (const value of query) add(value);
  return [...values];
}

/** `text` with every one of `values` replaced by `[redacted]`, longest first. */
export function scrub(text: string, values: readonly string[]): string {
  let out = text;
  for (const value of [...values].sort((a, b) => b.length - a.length)) out = out.split(value).join(REDACTED);
  return out;
}

/**
 * `cause` with every string in it scrubbed of the attempt's secrets: a parser's or validator's
 * message quoting the body, an issue list, a nested `cause`, any own field of an error (`input`,
 * `errors`, `code`), a `fetch` error quoting the URL, an instance of any class. What holds no
 * secret is kept as it is (the same object); an error that does becomes an error of the same name
 * and fields that do not, and any other object a plain one of the same fields.
 */
export function scrubCause(cause: unknown, scrubbed: (text: string) => string, depth = 0): unknown {
  if (typeof cause === 'string') return scrubbed(cause);
  if (typeof cause !== 'object' || cause === null || depth > MAX_CAUSE_DEPTH) return cause;
  const deeper = (value: unknown) => scrubCause(value, scrubbed, depth + 1);
  if (Array.isArray(cause)) {
    const items = cause.map(deeper);
    return items.every((item, index) => item === cause[index]) ? cause : items;
  }
  // Bytes hold no field to scrub, and walking each index of a large body would cost its size.
  if (ArrayBuffer.isView(cause) || cause instanceof ArrayBuffer) return cause;
  const isError = cause instanceof Error;
  // Every own field (an error's `errors`, `input` or `url` too), but not the stack: it is rebuilt.
  const names = Object.getOwnPropertyNames(cause).filter((name) => name !== 'stack');
  const fields = names.map((name) => [name, deeper((cause as Record<string, unknown>)[name])] as const);
  if (fields.every(([name, value]) => value === (cause as Record<string, unknown>)[name])) return cause;
  const clean = (isError ? new Error() : {}) as Record<string, unknown>;
  for (const [name, value] of fields) clean[name] = value;
  if (isError) {
    clean.name = (cause as Error).name;
    clean.stack = `${(cause as Error).name}: ${clean.message as string}`;
  }
  return clean;
}

/** How deep in a cause secrets are looked for (an issue's path of nested inputs, say). */
const MAX_CAUSE_DEPTH = 12;

/**
 * Calls an observer (a hook, a sink, a listener): one that throws, or an async one that rejects,
 * must not change the outcome it observes (nor end the process with an unhandled rejection).
 */
export function safely<TArgs extends unknown[]>(
  observer: ((...args: TArgs) => unknown) | undefined,
  ...args: TArgs
): void {
  try {
    const returned = observer?.(...args);
    if (typeof (returned as PromiseLike<unknown> | undefined)?.then === 'function') {
      (returned as PromiseLike<unknown>).then(undefined, () => {});
    }
  } catch {
    // Observers cannot fail a run.
  }
}

/** Fans events out to sinks; each sink is isolated so one that throws cannot break a run. */
export function fanOut(sinks: readonly TraceSink[]): ((event: StitchEvent) => void) | undefined {
  if (sinks.length === 0) return undefined;
  return (event) => {
    for (const sink of sinks) safely((seen: StitchEvent) => sink.handle(seen), event);
  };
}
