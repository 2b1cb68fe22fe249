/**
 * What a stitch is: its config as written, the definition the engine runs (validated and
 * normalized once, at definition time), and the types of its calls. A leaf of the pipeline: it
 * knows the policies' types, never the engine that runs it; how the policy fields are read
 * (objects or values) is the entry's {@link PolicyForms}.
 */
import { type CacheOptions, type CachePolicy, normalizeCache } from './cache';
import type { CircuitOptions, CircuitPolicy } from './circuit';
import { checkKnown, configError, type StitchError } from './errors';
import type { CancelPhase } from './events';
import { type IdempotencyOptions, type IdempotencyPolicy, refuseKeyHeader } from './idempotency';
import type { Ledger } from './ledger';
import type { Part } from './parts';
import { isRecord } from './record';
import { normalizeRedirect, type RedirectMode } from './redirectMode';
import { fillPlaceholders, hasControl, placeholders, type StitchInput } from './request';
import type { ResponseType, StandardSchemaV1 } from './response';
import type { RetryOptions, RetryPolicy } from './retry';
import type { StitchRun } from './run';
import type { ThrottleOptions, ThrottlePolicy } from './throttle';
import { normalizeTimeout, type TimeoutOptions, type TimeoutPolicy } from './timeout';

/** The HTTP methods a stitch may use. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Observers of a stitch's runs. They cannot change an outcome: one that throws is ignored.
 * A caller's abort fires only `onCancel`, never `onError` or `onRetry`.
 */
export interface StitchHooks {
  /** Before each request leaves; may set headers on `headers` (an auth token, say). */
  onRequest?:
    | ((context: { stitch: string; attempt: number; method: string; url: string; headers: Headers }) => void)
    | undefined;
  /**
   * When response headers arrive, before the body is read. The body is the engine's to read: one
   * the hook reads fails the attempt as a `config` error naming `hooks.onResponse` (read
   * `response.clone()` instead).
   */
  onResponse?: ((context: { stitch: string; attempt: number; response: Response }) => void) | undefined;
  /**
   * Once per failed request, never for a cancellation: runs that joined one (coalesced) share its
   * failure, and it is told once, as its retries are (`onRetry`).
   */
  onError?: ((error: StitchError) => void) | undefined;
  /** Before each backoff sleep. */
  onRetry?:
    | ((context: { stitch: string; attempt: number; delay: number; error: StitchError }) => void)
    | undefined;
  /** When a caller cancels its run. */
  onCancel?:
    | ((context: { stitch: string; reason: unknown; phase: CancelPhase; dispatched: boolean }) => void)
    | undefined;
}

/** The names of the `{name}` placeholders of a URL template, as a union (`never` for none). */
export type PathParamNames<TUrl extends string> = TUrl extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParamNames<Rest>
  : never;

/**
 * The input of a stitch whose URL template is known at compile time: each `{name}` of `url` (and
 * of a literal `baseUrl`) is a required `params` field, and no other is allowed. A URL typed only
 * as `string` gives the loose {@link StitchInput}.
 */
export type InputFor<TUrl extends string, TBase extends string = string> = string extends TUrl
  ? StitchInput
  : // A template not known yet (a policy value inferred inside the config): any input.
    [TUrl] extends [never]
    ? StitchInput
    : [PathParamNames<TUrl> | (string extends TBase ? never : PathParamNames<TBase>)] extends [never]
      ? Omit<StitchInput, 'params'>
      : Omit<StitchInput, 'params'> & {
          params: {
            [TName in PathParamNames<TUrl> | (string extends TBase ? never : PathParamNames<TBase>)]:
              | string
              | number;
          };
        };

/**
 * A policy as a value the app imports (`retry: retry({ attempts: 3 })`): it brings its own code,
 * so a stitch carries only the policies it names. `resolve` validates it for one stitch.
 */
export interface PolicyValue<TKind extends 'retry' | 'circuit' | 'throttle' | 'idempotency', TPolicy> {
  readonly policy: TKind;
  /**
   * @internal The policy validated for the stitch `name` and its `method`; throws a `config`
   * StitchError.
   */
  readonly resolve: (name: string, method: HttpMethod) => TPolicy;
}

/** The retry policy without and with an idempotency key (a write retries only with one). */
export interface RetryPair {
  readonly plain: RetryPolicy;
  readonly keyed: RetryPolicy;
}

/** What `retry()` returns. */
export type RetryValue = PolicyValue<'retry', RetryPair>;
/** What `circuit()` returns. */
export type CircuitValue = PolicyValue<'circuit', CircuitPolicy>;
/** What `throttle()` returns. */
export type ThrottleValue = PolicyValue<'throttle', ThrottlePolicy>;
/** What `idempotency()` returns. */
export type IdempotencyValue<TInput = never> = PolicyValue<'idempotency', Keyed<TInput>>;

/** The key policy, and the records a call under a key its caller owns is kept in (none: refused). */
export interface Keyed<TInput> {
  readonly policy: IdempotencyPolicy<TInput> | undefined;
  readonly records: Part<Ledger> | undefined;
}

/** The value type of each policy kind. */
interface PolicyValues {
  retry: RetryValue;
  circuit: CircuitValue;
  throttle: ThrottleValue;
  idempotency: IdempotencyValue<unknown>;
}

/**
 * Refuses another policy's value where `field`'s belongs (`idempotency: retry(2)`): a `config`
 * error saying which one it is, not options read wrong.
 */
export function refuseOtherPolicy(value: unknown, field: string, name: string): void {
  const { policy, resolve } = (typeof value === 'object' && value !== null ? value : {}) as {
    policy?: unknown;
    resolve?: unknown;
  };
  if (typeof policy === 'string' && typeof resolve === 'function')
    throw configError(name, field, `is the value of ${policy}(…), not of ${field}(…)`);
}

/** Whether `value` is a policy value of `kind` (not an options object). */
export function isPolicyValue<TKind extends keyof PolicyValues>(
  value: unknown,
  kind: TKind,
): value is PolicyValues[TKind] {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { policy?: unknown }).policy === kind &&
    typeof (value as { resolve?: unknown }).resolve === 'function'
  );
}

/**
 * How an entry reads the policy fields of a config: `stitch-fetch` takes options objects (and
 * values), with the breaker on by default; `stitch-fetch/lite` takes values only, so it bundles no
 * policy the app does not import.
 */
export interface PolicyForms {
  retry(value: unknown, method: HttpMethod, name: string): RetryPair;
  circuit(value: unknown, method: HttpMethod, name: string): CircuitPolicy | undefined;
  throttle(value: unknown, method: HttpMethod, name: string): ThrottlePolicy | undefined;
  idempotency(value: unknown, method: HttpMethod, name: string): Keyed<unknown>;
}

/** Everything `stitch()` accepts. Only `name` and a URL are required. */
export interface StitchConfig<TData = unknown, TInput extends StitchInput = StitchInput> {
  /** Unique per engine; used in keys, traces and errors. */
  name: string;
  /** @default 'GET' */
  method?: HttpMethod | undefined;
  /** Absolute, or relative to `baseUrl`; `{param}` placeholders are filled from `input.params`. */
  url: string;
  /**
   * Prefixed to a relative `url` with one slash between, keeping its path (`…/v1` + `users`); a
   * query it holds (`?api-version=2`) goes after the path, before the url's own.
   */
  baseUrl?: string | undefined;
  /** Headers sent on every call (input headers override them). */
  headers?: Record<string, string> | undefined;
  /**
   * A Standard Schema validator for the response data; a mismatch is `kind: 'invalid'`, and so is
   * a transform to `undefined` (to the cache and the hooks, `undefined` is no data yet: return
   * `null` for nothing).
   */
  output?: StandardSchemaV1<unknown, TData> | undefined;
  /**
   * A Standard Schema validator for the call's input, run before anything else: a mismatch is
   * `kind: 'invalid'` with the issues as `cause`, nothing sent and nothing counted. Its output
   * (after any transforms) is what the request is built from; its input type is the stitch's,
   * and must itself be a {@link StitchInput}: a field typed `unknown` (`z.coerce.number()`'s) is
   * refused; say what it accepts (`z.union([z.string(), z.number()]).pipe(z.coerce.number())`).
   * An asynchronous one is a wait like any other: the caller's abort and the total timeout end it,
   * and the call proper gets what is left of the total.
   */
  input?: StandardSchemaV1<TInput, StitchInput> | undefined;
  /** @default 'json' */
  responseType?: ResponseType | undefined;
  /** Larger bodies fail with `kind: 'invalid'` and their socket is closed. @default 10 MiB */
  maxBodyBytes?: number | undefined;
  /**
   * Attempts, retry options or `retry(…)`; `false` for one attempt.
   * @default 3 attempts for reads, 1 for writes without a key
   */
  retry?: number | RetryOptions | RetryValue | false | undefined;
  /**
   * A number bounds the whole call; `{ each, total }` bounds one attempt and the call. An attempt
   * runs until its body is read and its `output` validator is done (a validator the deadline
   * ends is a timeout the breaker does not count: the vendor had answered). @default unbounded
   */
  timeout?: TimeoutOptions | undefined;
  /** Circuit breaker, keyed by the URL's origin unless `key` is set. @default on, 5 failures, 30 s cooldown */
  circuit?: CircuitOptions | CircuitValue | boolean | undefined;
  /** Concurrency and rate limits per key (the URL's origin by default). @default none */
  throttle?: ThrottleOptions | ThrottleValue | false | undefined;
  /** Reads only: serve stored data for `ttl` ms, stale for `staleWhileRevalidate` more. @default { ttl: 0 } */
  cache?: CacheOptions<NoInfer<TInput>> | number | false | undefined;
  /** Share one in-flight request between callers of the same input. @default true for GET/HEAD */
  coalesce?: boolean | undefined;
  /**
   * What a 3xx does. `'follow'`: the engine follows it (up to 20 hops, each traced) and drops every
   * secret header (those of `SECRET_HEADERS` and the engine's `redact`) when a hop leaves the
   * origin; `'error'`: the call fails with kind `'http'` and the 3xx status; `'manual'`: the 3xx
   * response is the answer (`hooks.onResponse` sees its `location`), its data `null` unless its
   * content-type says JSON (a redirect page such as "Found. Redirecting to …" is not read) or
   * `responseType` is `'text'`. A browser hides a 3xx from script (status 0, no `location`):
   * there `'follow'` leaves a request without a secret header to fetch to follow (sent once, its
   * hops one event) and fails one with a secret header at the redirect (`http`, status 0), and
   * `'manual'` answers with the hidden 3xx (data `null`). @default 'follow'
   */
  redirect?: RedirectMode | undefined;
  /**
   * Send an `Idempotency-Key`: `true` mints one per call, `keyOf` derives it from the input; or
   * `idempotency(…)`. @default false
   */
  idempotency?: IdempotencyOptions<TInput> | IdempotencyValue<TInput> | undefined;
  hooks?: StitchHooks | undefined;
}

/** A stitch's configuration after validation, with every default filled in. */
export interface StitchDefinition<TData = unknown, TInput extends StitchInput = StitchInput> {
  readonly name: string;
  readonly method: HttpMethod;
  /** The full URL template (`baseUrl` joined in). */
  readonly url: string;
  /** `'read'` (GET, HEAD: cached, shared, readable by `useStitch`) or `'write'` (the other methods). */
  readonly kind: 'read' | 'write';
  readonly headers: Headers;
  readonly output: StandardSchemaV1<unknown, TData> | undefined;
  readonly input: StandardSchemaV1<TInput, StitchInput> | undefined;
  readonly responseType: ResponseType;
  readonly maxBodyBytes: number;
  readonly redirect: RedirectMode;
  /** The retry policy without and with an idempotency key (a write retries only with one). */
  readonly retry: RetryPair;
  readonly timeout: TimeoutPolicy;
  readonly circuit: CircuitPolicy | undefined;
  readonly throttle: ThrottlePolicy | undefined;
  /** `undefined` for writes (`kind: 'write'`). */
  readonly cache: CachePolicy<TInput> | undefined;
  readonly coalesce: boolean;
  readonly idempotency: IdempotencyPolicy<TInput> | undefined;
  /**
   * @internal Where a call under a key its caller owns is recorded; `undefined` refuses such
   * calls (a stitch of `stitch-fetch/lite` without `idempotency(…)`).
   */
  readonly records: Part<Ledger> | undefined;
  readonly hooks: StitchHooks;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborting it cancels this call only; the reason becomes the error's `cause`. */
  signal?: AbortSignal | undefined;
  /** The engine to run on. @default defaultEngine() */
  engine?: StitchEngineLike | undefined;
  /** A key the caller owns, sent as the idempotency header on every attempt of this call. */
  idempotencyKey?: string | undefined;
  /**
   * How long (ms) this call's success stays recorded under the key the caller owns
   * (`idempotencyKey`, or the stitch's `keyOf`): a caller that never sends a key again once it
   * succeeded (it starts a new one, as `useStitchMutation` does) keeps its records short, rather
   * than holding every answer in memory for a day. @default the stitch's `idempotency.ttl`
   */
  idempotencyTtl?: number | undefined;
  /** Skip the cache lookup: fetch (or join the fetch in flight) and store the result. @default false */
  revalidate?: boolean | undefined;
}

/** What a stitch needs from an engine (see `createEngine`). */
export interface StitchEngineLike {
  /** Starts one call of `definition`: what calling a stitch does, on this engine. */
  call<TData, TInput extends StitchInput>(
    definition: StitchDefinition<TData, TInput>,
    input: TInput | undefined,
    options: CallOptions | undefined,
  ): StitchRun<TData>;
}

/** A call's arguments: the input is required when it has a required field (a path param, say). */
export type CallArgs<TInput> =
  Partial<TInput> extends TInput
    ? [input?: TInput, options?: CallOptions]
    : [input: TInput, options?: CallOptions];

/** A typed, callable endpoint. */
export interface Stitch<TData = unknown, TInput extends StitchInput = StitchInput> {
  (...args: CallArgs<TInput>): StitchRun<TData>;
  /** The validated configuration. */
  readonly definition: StitchDefinition<TData, TInput>;
}

const DEFAULT_MAX_BODY = 10 * 1024 * 1024;

const OPTIONS: readonly (keyof StitchConfig)[] = [
  'name',
  'method',
  'url',
  'baseUrl',
  'headers',
  'output',
  'input',
  'responseType',
  'maxBodyBytes',
  'retry',
  'timeout',
  'circuit',
  'throttle',
  'cache',
  'coalesce',
  'redirect',
  'idempotency',
  'hooks',
];
const HOOKS: readonly (keyof StitchHooks)[] = ['onRequest', 'onResponse', 'onError', 'onRetry', 'onCancel'];

function check(condition: boolean, name: string, field: string, problem: string) {
  if (!condition) throw configError(name, field, problem);
}

/**
 * The full URL template: `url` alone, or `baseUrl` and a relative `url` joined with one slash
 * (so a base path such as `/v1` is kept, unlike URL resolution), the base's query before the
 * url's. Only http(s) is accepted.
 */
function joinUrl(name: string, baseUrl: string | undefined, url: string): string {
  const absolute = (template: string) => URL.canParse(fillPlaceholders(template, 'x'));
  let template = url;
  if (baseUrl !== undefined) {
    check(typeof baseUrl === 'string' && absolute(baseUrl), name, 'baseUrl', 'must be an absolute URL');
    check(!absolute(url), name, 'url', 'must be relative when baseUrl is set');
    check(!baseUrl.includes('#'), name, 'baseUrl', 'must not hold a #fragment (it is never sent)');
    const [basePath = '', ...baseQuery] = baseUrl.split('?');
    const [beforeHash = '', ...hash] = url.split('#');
    const [path = '', ...query] = beforeHash.split('?');
    const queries = [baseQuery.join('?'), query.join('?')].filter((part) => part !== '');
    template = `${basePath.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
    if (queries.length > 0) template += `?${queries.join('&')}`;
    if (hash.length > 0) template += `#${hash.join('#')}`;
  }
  check(absolute(template), name, 'url', 'must be an absolute URL (or relative, with baseUrl)');
  const { protocol, username, password } = new URL(fillPlaceholders(template, 'x'));
  // With a base, the origin is the base's.
  const origin = baseUrl === undefined ? 'url' : 'baseUrl';
  check(protocol === 'http:' || protocol === 'https:', name, origin, 'must use http or https');
  // fetch refuses such URLs, and its error would carry the credentials into `error.cause`.
  check(
    username === '' && password === '',
    name,
    origin,
    'must not hold credentials (send an Authorization header)',
  );
  return template;
}

/**
 * Checks the text of `url` or `baseUrl`: no control character (a URL drops a tab, a CR or a LF
 * without a word, so the request would go elsewhere than written), each `{placeholder}` a name,
 * and no `{` or `}` outside one (`{}`, `{id`, `{{id}}` would be sent as written, percent-encoded).
 */
function checkUrlText(name: string, field: 'url' | 'baseUrl', text: unknown): void {
  if (typeof text !== 'string') return;
  const control = hasControl(text) || text.includes('\t');
  check(!control, name, field, 'must not hold a control character (a tab, a CR, a LF)');
  for (const placeholder of placeholders(text)) {
    check(/^[A-Za-z_$][\w$]*$/.test(placeholder), name, field, `has a bad placeholder {${placeholder}}`);
  }
  check(!/[{}]/.test(fillPlaceholders(text, '')), name, field, 'has a { or } that is no {placeholder}');
}

/** The order in which definitions were made: after a hot reload, the newest of a name is the one to run. */
const births = new WeakMap<object, number>();
let born = 0;

/**
 * Whether `definition` was made before `other` (both by this module: a definition of another copy
 * of the package has no known order).
 */
export const definedBefore = (definition: object, other: object): boolean =>
  (births.get(definition) ?? Number.POSITIVE_INFINITY) < (births.get(other) ?? Number.NEGATIVE_INFINITY);

/**
 * Validates a config, naming the first wrong field in a `kind: 'config'` StitchError; `forms`
 * reads its policy fields.
 */
export function define<TData, TInput extends StitchInput>(
  config: StitchConfig<TData, TInput>,
  forms: PolicyForms,
): StitchDefinition<TData, TInput> {
  check(typeof config === 'object' && config !== null, '', 'config', 'must be an object');
  const name = config.name;
  check(typeof name === 'string' && name.trim() !== '', '', 'name', 'must be a non-empty string');
  checkKnown(name, '', config, OPTIONS);
  // Left out (or `undefined`) takes the default; `null` is a value, refused as any wrong one.
  const method = config.method === undefined ? 'GET' : config.method;
  check(METHODS.includes(method), name, 'method', `must be one of ${METHODS.join(', ')}`);
  check(typeof config.url === 'string' && config.url !== '', name, 'url', 'must be a non-empty string');
  checkUrlText(name, 'baseUrl', config.baseUrl);
  checkUrlText(name, 'url', config.url);
  const url = joinUrl(name, config.baseUrl, config.url);
  const responseType = config.responseType === undefined ? 'json' : config.responseType;
  check(responseType === 'json' || responseType === 'text', name, 'responseType', "must be 'json' or 'text'");
  const maxBodyBytes = config.maxBodyBytes === undefined ? DEFAULT_MAX_BODY : config.maxBodyBytes;
  check(
    Number.isInteger(maxBodyBytes) && maxBodyBytes > 0,
    name,
    'maxBodyBytes',
    'must be a positive integer',
  );
  for (const field of ['output', 'input'] as const) {
    check(
      config[field] === undefined || typeof config[field]?.['~standard']?.validate === 'function',
      name,
      field,
      'must be a Standard Schema validator',
    );
  }
  check(
    config.hooks === undefined || isRecord(config.hooks),
    name,
    'hooks',
    'must be an object of functions',
  );
  checkKnown(name, 'hooks.', config.hooks ?? {}, HOOKS);
  // Read by name, so hooks given as an object's methods (a class instance's) count as well.
  // Undefined is no hook, as the types allow: an optional prop forwarded as it is.
  const given = HOOKS.map((hook) => [hook, config.hooks?.[hook]] as const);
  for (const [hook, fn] of given) {
    check(fn === undefined || typeof fn === 'function', name, `hooks.${hook}`, 'must be a function');
  }
  const isRead = method === 'GET' || method === 'HEAD';
  check(
    config.coalesce === undefined || typeof config.coalesce === 'boolean',
    name,
    'coalesce',
    'must be a boolean',
  );
  const { policy: idempotency, records } = forms.idempotency(config.idempotency, method, name);
  // `Headers` would take a function's own properties (`name`, `length`) for headers.
  check(typeof config.headers !== 'function', name, 'headers', 'must be an object of header values');
  // `Headers` would send `undefined` (an unset environment variable) as the text "undefined", and
  // trim a line break off the end where a call's input header with one is refused.
  for (const [header, value] of Object.entries(isRecord(config.headers) ? config.headers : {})) {
    check(
      typeof value === 'string' && !/[\r\n]/.test(value),
      name,
      `headers.${header}`,
      'must be a string without CR or LF',
    );
  }
  let headers: Headers;
  try {
    headers = new Headers(config.headers);
  } catch {
    throw configError(name, 'headers', 'must be valid header names and values');
  }
  if (idempotency) refuseKeyHeader(name, idempotency.header, config.headers);
  const definition = Object.freeze({
    name,
    method,
    url,
    kind: isRead ? 'read' : 'write',
    headers,
    output: config.output,
    input: config.input,
    responseType,
    maxBodyBytes,
    redirect: normalizeRedirect(config.redirect, name),
    retry: Object.freeze(forms.retry(config.retry, method, name)),
    timeout: normalizeTimeout(config.timeout, name),
    circuit: forms.circuit(config.circuit, method, name),
    throttle: forms.throttle(config.throttle, method, name),
    cache: normalizeCache(config.cache, isRead, name),
    coalesce: config.coalesce ?? isRead,
    idempotency: idempotency as IdempotencyPolicy<TInput> | undefined,
    records,
    hooks: Object.fromEntries(given.filter(([, fn]) => fn !== undefined)) as StitchHooks,
  });
  births.set(definition, ++born);
  return definition;
}

/**
 * The input type of a stitch: an explicit one, else its `input` schema's, else its URL template's.
 * Any input at all (`StitchInput`, what an `idempotency({ keyOf })` value that reads none of its
 * input says) is no input type: the URL's is.
 */
export type ResolvedInput<TInput, TUrl extends string, TBase extends string> = [TInput] extends [never]
  ? InputFor<TUrl, TBase>
  : [StitchInput] extends [TInput]
    ? InputFor<TUrl, TBase>
    : TInput;
