/**
 * One error class for every failure, told apart by `kind`. A cancellation is `kind: 'aborted'`
 * with the caller's reason as `cause` (identity kept), never a message to match on.
 */

/** What went wrong, as a discriminant. */
export type StitchErrorKind =
  | 'aborted'
  | 'timeout'
  | 'http'
  | 'network'
  | 'circuit-open'
  | 'rate-limited'
  | 'invalid'
  | 'config';

/** Which deadline ran out: one attempt's (`each`) or the whole call's (`total`). */
export type TimeoutPhase = 'each' | 'total';

/** Everything a `StitchError` says about the run that produced it. */
export interface StitchErrorDetails {
  kind: StitchErrorKind;
  message: string;
  cause?: unknown;
  /** For `timeout`: which deadline. */
  phase?: TimeoutPhase | undefined;
  /** For `http` (and a 429 `rate-limited`): the response status. */
  status?: number | undefined;
  /** For `http`: the response body, cut to at most {@link MAX_ERROR_BODY} characters. */
  body?: string | undefined;
  /** For `circuit-open` and `rate-limited`: how long until a call may succeed, in ms. */
  retryAfter?: number | undefined;
  /** For `config`: the option that is wrong, e.g. `'retry.attempts'`. */
  field?: string | undefined;
  /** Attempts started (0 when nothing got past the breaker or the queue). @default 0 */
  attempts?: number | undefined;
  /** Requests that left the process. @default 0 */
  requests?: number | undefined;
  /** Whether the failed call should be worth retrying later. @default false */
  retryable?: boolean | undefined;
  /** Whether a request was out with no response when the run ended: it may have taken effect. */
  ambiguous?: boolean | undefined;
  url?: string | undefined;
  /** The stitch's name. */
  stitch?: string | undefined;
  idempotencyKey?: string | undefined;
}

/** How much of an error response's body an error keeps. */
export const MAX_ERROR_BODY = 2_048;

/** Marks our errors across realms and duplicate copies of the package, where `instanceof` fails. */
const MARKER = Symbol.for('stitch.error');

const NAMES: Partial<Record<StitchErrorKind, string>> = { aborted: 'AbortError', timeout: 'TimeoutError' };

/**
 * The fields one `kind` always carries, on top of what every {@link StitchError} has: checking
 * `kind` narrows them (`timeout` → `phase`, `http` → `status`, `config` → `field`, ...), and so
 * does `name` (`'TimeoutError'` is a timeout, `'AbortError'` a cancellation).
 */
export type StitchErrorByKind =
  | { readonly kind: 'aborted'; readonly name: 'AbortError' }
  | { readonly kind: 'network' | 'invalid'; readonly name: 'StitchError' }
  | { readonly kind: 'timeout'; readonly name: 'TimeoutError'; readonly phase: TimeoutPhase }
  | { readonly kind: 'http'; readonly name: 'StitchError'; readonly status: number }
  | { readonly kind: 'rate-limited'; readonly name: 'StitchError' }
  | { readonly kind: 'circuit-open'; readonly name: 'StitchError'; readonly retryAfter: number }
  | { readonly kind: 'config'; readonly name: 'StitchError'; readonly field: string };

/**
 * What every {@link StitchError} carries, whatever its kind: the class behind that union (its
 * instances are typed through the union, so `kind` narrows the fields).
 */
export class StitchErrorBase extends Error {
  /**
   * For `aborted`: the reason passed to `abort()`, identity kept; otherwise what caused the
   * failure. Declared here too for apps whose lib predates ES2022's `Error.cause`.
   */
  declare readonly cause: unknown;
  readonly kind: StitchErrorKind;
  readonly phase: TimeoutPhase | undefined;
  readonly status: number | undefined;
  readonly body: string | undefined;
  readonly retryAfter: number | undefined;
  readonly field: string | undefined;
  readonly attempts: number;
  readonly requests: number;
  /** Whether any request had left the process (`requests > 0`). */
  readonly dispatched: boolean;
  readonly retryable: boolean;
  /**
   * Whether a dispatched request of the run may have had an effect the run never saw answered
   * (a write that timed out, was cut or was cancelled in flight): re-issue it with the same
   * idempotency key. False when every request was answered, or its connection was refused (as
   * Node reports it: a browser's fetch does not say why it failed, so there it stays true), or
   * it was sent while the browser was offline (it then counts in no `requests`).
   */
  readonly ambiguous: boolean;
  readonly url: string | undefined;
  readonly stitch: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly [MARKER] = true;

  constructor(details: StitchErrorDetails) {
    super(details.message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = NAMES[details.kind] ?? 'StitchError';
    this.kind = details.kind;
    this.phase = details.phase;
    this.status = details.status;
    this.body = details.body === undefined ? undefined : details.body.slice(0, MAX_ERROR_BODY);
    this.retryAfter = details.retryAfter;
    this.field = details.field;
    this.attempts = details.attempts ?? 0;
    this.requests = details.requests ?? 0;
    this.dispatched = this.requests > 0;
    this.retryable = details.retryable ?? false;
    this.ambiguous = details.ambiguous ?? false;
    this.url = details.url;
    this.stitch = details.stitch;
    this.idempotencyKey = details.idempotencyKey;
  }
}
Object.defineProperty(StitchErrorBase, 'name', { value: 'StitchError' });

/**
 * The error every stitch rejects with. Check `kind`, never the message: `kind` is a discriminant,
 * so `if (error.kind === 'timeout') error.phase` is typed `'each' | 'total'`.
 */
export type StitchError = StitchErrorBase & StitchErrorByKind;

/**
 * What a kind needs when one builds a {@link StitchError}: the fields {@link StitchErrorByKind}
 * promises its readers (`http` → `status`, `timeout` → `phase`, …).
 */
export type StitchErrorInit = StitchErrorDetails &
  (
    | { kind: 'aborted' | 'network' | 'invalid' | 'rate-limited' }
    | { kind: 'timeout'; phase: TimeoutPhase }
    | { kind: 'http'; status: number }
    | { kind: 'circuit-open'; retryAfter: number }
    | { kind: 'config'; field: string }
  );

/** Builds a {@link StitchError}; `instanceof` narrows to it (prefer `isStitchError` across realms). */
export interface StitchErrorConstructor {
  new (details: StitchErrorInit): StitchError;
  readonly prototype: StitchError;
}

/** The error class every stitch rejects with. */
export const StitchError = StitchErrorBase as unknown as StitchErrorConstructor;

/** A cancellation: a Stitch `aborted` error, or a platform `AbortError` (a DOMException, say). */
export type AbortErrorLike =
  | Extract<StitchError, { kind: 'aborted' }>
  | (Error & { name: 'AbortError'; readonly cause?: unknown });

/** True for any `StitchError`, including one from another realm or another copy of Stitch. */
export function isStitchError(value: unknown): value is StitchError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}

/** True for a Stitch cancellation and for a platform `AbortError` (a DOMException, say). */
export function isAbortError(value: unknown): value is AbortErrorLike {
  if (isStitchError(value)) return value.kind === 'aborted';
  return typeof value === 'object' && value !== null && (value as { name?: unknown }).name === 'AbortError';
}

/** The message of an abort reason: an Error's message, a string itself, or a generic line. */
export function reasonMessage(reason: unknown): string {
  if (reason instanceof Error || (typeof reason === 'object' && reason !== null && 'message' in reason)) {
    return String((reason as { message: unknown }).message);
  }
  if (typeof reason === 'string') return reason;
  return 'The operation was aborted';
}

/** A definition-time error that names the option at fault. */
export function configError(stitchName: string | undefined, field: string, problem: string): StitchError {
  const where = stitchName ? `stitch '${stitchName}': ` : '';
  return new StitchError({
    kind: 'config',
    field,
    stitch: stitchName,
    message: `${where}\`${field}\` ${problem}`,
  });
}

/**
 * Runs `check`, a validation of what the app gave (a config, options): a throw of its own (a
 * getter or a proxy trap of the app's object that throws) becomes a `config` error naming
 * `field`, its cause kept, as a wrong value would be.
 */
export function checking<T>(stitchName: string | undefined, field: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw unreadable(stitchName, field, error);
  }
}

/**
 * What reading `field` threw, as the `config` error naming it (with the throw as `cause`); a
 * StitchError (a check's own) stays as it is.
 */
export function unreadable(stitchName: string | undefined, field: string, error: unknown): StitchError {
  if (isStitchError(error)) return error;
  const { message, stitch } = configError(stitchName, field, `could not be read: ${reasonMessage(error)}`);
  return new StitchError({ kind: 'config', field, stitch, message, cause: error });
}

/**
 * The first own key of `options` not among `known`, and what to say of it (the options there
 * are): a misspelt option (`retires: 3`) would otherwise be dropped without a word.
 */
export function unknownOption(options: object, known: readonly string[]): [string, string] | undefined {
  const key = Object.keys(options).find((name) => !known.includes(name));
  return key === undefined ? undefined : [key, `is not an option (${known.join(', ')})`];
}

/** Throws a `config` error naming the first key of `options` not among `known` (see {@link unknownOption}). */
export function checkKnown(
  stitchName: string | undefined,
  prefix: string,
  options: object,
  known: readonly string[],
): void {
  const unknown = unknownOption(options, known);
  if (unknown) throw configError(stitchName, prefix + unknown[0], unknown[1]);
}

/** A failure before anything was sent, as the `config` error it is (a StitchError stays as it is). */
export function asConfigError(error: unknown, stitch: string, field = 'input'): StitchError {
  if (isStitchError(error)) return error;
  const message = `stitch '${stitch}': the call could not be made: ${(error as Error)?.message ?? String(error)}`;
  return new StitchError({ kind: 'config', field, message, cause: error, stitch });
}
