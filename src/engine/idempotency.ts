import { asConfigError, checkKnown, configError } from './errors';
import { hasControl } from './request';

/**
 * `idempotency`: `true` mints a key per logical call; `keyOf` lets the caller own it. A call under
 * a caller-owned key (`keyOf` or the call option `idempotencyKey`) is recorded: see `ttl`.
 */
export type IdempotencyOptions<TInput> =
  | boolean
  | {
      /** Derives the key from the input, so the caller owns it across retries, reloads and processes. */
      keyOf?: ((input: TInput) => string) | undefined;
      /** The header the key travels in. @default 'Idempotency-Key' */
      header?: string | undefined;
      /**
       * How long (ms) a successful call's data stays recorded under its key: re-issuing the key
       * meanwhile (here or in another process sharing the store) resolves with it and sends nothing.
       * @default 86_400_000 (24 h)
       */
      ttl?: number | undefined;
    };

/**
 * `keyOf` as a method's parameter is checked: both ways, so a value minting its keys
 * (`IdempotencyValue<never>`) fits a stitch of any input, while the stitch's input is still
 * inferred from a value that derives its key from the input.
 */
type KeyOf<TInput> = { key(input: TInput): string }['key'];

/** Normalized idempotency settings; `undefined` when the stitch sends no key by itself. */
export interface IdempotencyPolicy<TInput> {
  header: string;
  keyOf: KeyOf<TInput> | undefined;
  ttl: number;
}

/** How long a keyed call's success stays recorded unless the stitch says. */
export const RECORD_TTL = 86_400_000;

/** The header a key travels in unless configured. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** Validates `idempotency`. */
export function normalizeIdempotency<TInput>(
  value: IdempotencyOptions<TInput> | undefined,
  stitchName: string,
): IdempotencyPolicy<TInput> | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { header: IDEMPOTENCY_HEADER, keyOf: undefined, ttl: RECORD_TTL };
  if (typeof value !== 'object' || value === null) {
    throw configError(stitchName, 'idempotency', 'must be a boolean or { keyOf, header, ttl }');
  }
  checkKnown(stitchName, 'idempotency.', value, ['keyOf', 'header', 'ttl']);
  if (value.keyOf !== undefined && typeof value.keyOf !== 'function') {
    throw configError(stitchName, 'idempotency.keyOf', 'must be a function of the input');
  }
  const { header } = value;
  if (header !== undefined && !(typeof header === 'string' && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header))) {
    throw configError(stitchName, 'idempotency.header', 'must be a valid header name');
  }
  const { ttl } = value;
  if (ttl !== undefined && !(typeof ttl === 'number' && ttl > 0 && Number.isFinite(ttl))) {
    throw configError(stitchName, 'idempotency.ttl', 'must be a positive number of ms');
  }
  return { header: value.header ?? IDEMPOTENCY_HEADER, keyOf: value.keyOf, ttl: ttl ?? RECORD_TTL };
}

/**
 * The key for one logical call: the caller's own (`idempotencyKey` call option), else `keyOf`,
 * else a fresh one. The same key goes on every attempt of that call. A minted key only collapses
 * duplicates the engine itself creates (its retries); to make a user's re-issue safe across
 * actions, reloads or processes, the caller must own the key.
 * @throws StitchError of kind `'config'` when the key is not a non-empty header value (CR, LF
 * and NUL would split the request), naming `idempotencyKey` or `idempotency.keyOf`.
 */
export function idempotencyKeyFor<TInput>(
  policy: IdempotencyPolicy<TInput> | undefined,
  input: TInput,
  callerKey: string | undefined,
  stitchName = '',
): string | undefined {
  // A caller's key goes in the default header on a stitch without a policy (the main entry records it).
  if (policy || callerKey !== undefined) {
    const header = policy?.header ?? IDEMPOTENCY_HEADER;
    refuseKeyHeader(stitchName, header, (input as { headers?: unknown } | undefined)?.headers);
  }
  if (callerKey !== undefined) return checkKey(callerKey, stitchName, 'idempotencyKey');
  if (!policy) return undefined;
  if (!policy.keyOf) return mintKey();
  let key: string;
  try {
    // A call without input (all its fields optional) gives `keyOf` an empty one, as typed.
    key = policy.keyOf(input ?? ({} as TInput));
  } catch (error) {
    throw asConfigError(error, stitchName, 'idempotency.keyOf');
  }
  return checkKey(key, stitchName, 'idempotency.keyOf');
}

/**
 * Refuses `headers` (a stitch's, or a call's input's) that set the header the engine sends the
 * idempotency key in: the engine's key would replace it without a word, and a caller who meant it
 * as the key (as with axios) would lose the protection across re-issues.
 */
export function refuseKeyHeader(stitchName: string, header: string, headers: unknown): void {
  if (typeof headers !== 'object' || headers === null) return;
  const wanted = header.toLowerCase();
  const names = headers instanceof Headers ? [...headers.keys()] : Object.keys(headers);
  const given = names.find((name) => name.toLowerCase() === wanted);
  if (given === undefined) return;
  const fix = 'pass the key as the call option `idempotencyKey`, or give the stitch `idempotency.keyOf`';
  throw configError(stitchName, `headers.${given}`, `is where the engine sends the idempotency key: ${fix}`);
}

function checkKey(key: unknown, stitchName: string, field: string): string {
  const valid = typeof key === 'string' && key !== '' && key.trim() === key && !hasControl(key);
  if (!valid)
    throw configError(
      stitchName,
      field,
      'must give a non-empty string without control characters (CR, LF, NUL, …) or surrounding spaces',
    );
  try {
    new Headers().set(IDEMPOTENCY_HEADER, key);
  } catch {
    throw configError(stitchName, field, 'must give a valid header value');
  }
  return key;
}

/**
 * A fresh random key, as the engine mints one per call for a stitch with `idempotency: true`: for
 * a caller that owns the key of an intent across re-issues (`useStitchMutation` does, passing it
 * as the call's `idempotencyKey`). `crypto.randomUUID` exists only in secure contexts (a
 * plain-http page has none), so `crypto.getRandomValues` is the fallback; where there is no
 * `crypto` at all (React Native without a polyfill), `Math.random` is: a key must be unique, not
 * secret.
 */
export function mintKey(): string {
  const { crypto } = globalThis as { crypto?: Partial<Crypto> };
  if (typeof crypto?.randomUUID === 'function') return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof crypto?.getRandomValues === 'function') crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
