/**
 * Validation of `createEngine`'s options, like `stitch()` validates its config: a wrong option
 * throws a `config` StitchError naming the field, instead of a TypeError later or a silent
 * fallback (`cacheSize: NaN` once turned the cache off).
 */
import type { Clock } from './clock';
import { checking, StitchError, unknownOption } from './errors';
import type { SECRET_HEADERS, SECRET_QUERY, TraceSink } from './events';
import type { HeadersHook } from './outgoing';
import { isSharedState, type SharedState } from './shared';
import type { Store } from './store';

function engineError(field: string, problem: string): StitchError {
  return new StitchError({ kind: 'config', field, message: `createEngine: \`${field}\` ${problem}` });
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  (typeof value === 'object' || typeof value === 'function') && value !== null;

/** Throws unless `value` is an object whose `methods` are all functions. */
function checkMethods(value: unknown, field: string, methods: readonly string[], what: string) {
  if (!isObject(value)) throw engineError(field, `must be ${what} ({ ${methods.join(', ')} })`);
  for (const method of methods) {
    if (typeof value[method] !== 'function') throw engineError(`${field}.${method}`, 'must be a function');
  }
}

const OPTIONS: readonly (keyof EngineOptions)[] = [
  'fetch',
  'store',
  'clock',
  'trace',
  'redact',
  'cacheSize',
  'storeTimeout',
  'headers',
];

/**
 * What requests go through: the platform's `fetch`, or any function of a URL string and an init
 * (a test double, a wrapper that refreshes a token), answering a `Response`.
 */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Everything `createEngine` accepts; all optional. */
export interface EngineOptions {
  /**
   * The `fetch` requests go through. It gets the URL and an init with the attempt's `signal`; one
   * that ignores the signal still ends on a cancel or a deadline (the wait for it is cut, and an
   * answer that lands later has its body cancelled).
   * @default globalThis.fetch (looked up per request, so test mocks installed later apply)
   */
  fetch?: FetchLike | undefined;
  /**
   * Where breakers and idempotency records live: a `Store`, or a store that shares state between
   * processes itself (`createRedisStore` from `stitch-fetch/redis`), which then also holds the
   * throttle's shared rate and the retry budget. @default an in-memory store
   */
  store?: Store | SharedState | undefined;
  /** Must have `now` (monotonic), `wallNow`, `schedule` and `sleep` (see {@link Clock}). @default the real clock */
  clock?: Clock | undefined;
  /** Sinks that see every event of every run, secrets redacted. @default none */
  trace?: TraceSink | readonly TraceSink[] | undefined;
  /** More header or query names to redact, besides {@link SECRET_HEADERS} and {@link SECRET_QUERY}. @default [] */
  redact?: readonly string[] | undefined;
  /**
   * How many cache keys are kept (an integer ≥ 0, or `Infinity`); the least recently used go
   * first, never one in use. What `hydrate` takes in (a server render's state, `initialData`)
   * stays at least 5 s, so the readers it is for find it when they commit. @default 1000
   */
  cacheSize?: number | undefined;
  /**
   * How long (ms, > 0) an operation of `store` may take before the call fails open without it
   * (`Infinity`: no bound). It never stretches a call's own deadline. @default 1000
   */
  storeTimeout?: number | undefined;
  /**
   * Headers to add to each attempt as it leaves (e.g. a W3C `traceparent` from `stitch-fetch/otel`).
   * A hook that throws adds nothing and never fails the request; one that returns a promise (an
   * async hook: it is not awaited) fails the attempt, unsent, as `config` naming `headers`. For a
   * call under a key its caller owns, it is also asked once before the first attempt (`preview:
   * true`): the secret headers it adds (a user's token) scope the key's record to that user.
   * @default none
   */
  headers?: HeadersHook | undefined;
}

/** `createEngine`'s options, checked, with their defaults filled in where they are plain values. */
export interface CheckedEngineOptions {
  fetch: FetchLike | undefined;
  store: Store | SharedState | undefined;
  clock: Clock | undefined;
  sinks: readonly TraceSink[];
  redact: readonly string[];
  cacheSize: number;
  storeTimeout: number;
}

/** Validates `createEngine`'s options. @throws StitchError of kind `'config'` naming the field. */
export function checkEngineOptions(given: EngineOptions | undefined): CheckedEngineOptions {
  return checking(undefined, 'options', () => checkGiven(given));
}

/** {@link checkEngineOptions}, its reads of `given` unguarded. */
function checkGiven(given: EngineOptions | undefined): CheckedEngineOptions {
  const options: EngineOptions = given ?? {};
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw engineError('options', 'must be an object');
  const unknown = unknownOption(options, OPTIONS);
  if (unknown) throw engineError(...unknown);
  const { fetch, store, clock, trace, redact = [], cacheSize = 1_000, storeTimeout = 1_000 } = options;
  if (fetch !== undefined && typeof fetch !== 'function') throw engineError('fetch', 'must be a function');
  // A store that shares state itself (Redis's) brings its own operations; any other is a `Store`.
  if (store !== undefined && !isSharedState(store))
    checkMethods(store, 'store', ['get', 'set', 'delete', 'update'], 'a Store');
  if (clock !== undefined) checkMethods(clock, 'clock', ['now', 'wallNow', 'schedule', 'sleep'], 'a Clock');
  const sinks = trace === undefined ? [] : Array.isArray(trace) ? trace : [trace];
  sinks.forEach((sink: unknown, index) => {
    const field = Array.isArray(trace) ? `trace[${index}]` : 'trace';
    checkMethods(sink, field, ['handle'], 'a trace sink');
  });
  if (!Array.isArray(redact) || !redact.every((name) => typeof name === 'string' && name !== '')) {
    throw engineError('redact', 'must be a list of header or query names');
  }
  if (
    !(
      typeof cacheSize === 'number' &&
      cacheSize >= 0 &&
      (Number.isInteger(cacheSize) || cacheSize === Infinity)
    )
  ) {
    throw engineError('cacheSize', 'must be an integer ≥ 0 (or Infinity)');
  }
  if (!(typeof storeTimeout === 'number' && storeTimeout > 0)) {
    throw engineError('storeTimeout', 'must be a positive number of ms (or Infinity for no bound)');
  }
  return { fetch, store, clock, sinks, redact, cacheSize, storeTimeout };
}

/** The engine has no `fetch` to send with: the global one is missing, and none was given. */
export class NoFetch extends TypeError {
  constructor() {
    super('globalThis.fetch is not a function: give the engine one, createEngine({ fetch })');
  }
}
