/**
 * Validation of `createEngine`'s options, like `stitch()` validates its config: a wrong option
 * throws a `config` StitchError naming the field, instead of a TypeError later or a silent
 * fallback (`cacheSize: NaN` once turned the cache off).
 */
import type { Clock } from './clock';
import type { EngineOptions } from './engine';
import { StitchError } from './errors';
import type { TraceSink } from './events';
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

/** `createEngine`'s options, checked, with their defaults filled in where they are plain values. */
export interface CheckedEngineOptions {
  fetch: typeof globalThis.fetch | undefined;
  store: Store | SharedState | undefined;
  clock: Clock | undefined;
  sinks: readonly TraceSink[];
  redact: readonly string[];
  cacheSize: number;
  storeTimeout: number;
}

/** Validates `createEngine`'s options. @throws StitchError of kind `'config'` naming the field. */
export function checkEngineOptions(given: EngineOptions | undefined): CheckedEngineOptions {
  const options: EngineOptions = given ?? {};
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw engineError('options', 'must be an object');
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
