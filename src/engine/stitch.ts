import { createRealClock } from './clock';
import {
  type CallOptions,
  define,
  type ResolvedInput,
  type Stitch,
  type StitchConfig,
  type StitchEngineLike,
} from './definition';
import { rejectedRun } from './endings';
import { defaultEngine } from './engine';
import { configError } from './errors';
import type { StitchInput } from './request';
import type { StitchRun } from './run';

/**
 * Turns an endpoint into a typed, resilient call. The config is validated now: a bad option
 * throws a `StitchError` of kind `'config'` naming the field.
 *
 * Types: the data comes from `output` (or the first type argument); the input from `input` (or
 * the second type argument), else from the URL template: `url: '…/users/{id}'` makes
 * `params: { id: string | number }` required.
 *
 * @example
 * const getUser = stitch({ name: 'getUser', url: 'https://api.example.com/users/{id}', output: User });
 * const user = await getUser({ params: { id: 7 } }, { signal });
 */
export function stitch<
  TData = unknown,
  TInput extends StitchInput = never,
  const TUrl extends string = string,
  const TBase extends string = string,
>(
  config: StitchConfig<TData, ResolvedInput<TInput, TUrl, TBase>> & { url: TUrl; baseUrl?: TBase },
): Stitch<TData, ResolvedInput<TInput, TUrl, TBase>> {
  type TResolved = ResolvedInput<TInput, TUrl, TBase>;
  const definition = define(config as StitchConfig<TData, TResolved>);
  const callable = (input?: TResolved, options?: CallOptions): StitchRun<TData> => {
    let engine: StitchEngineLike;
    try {
      engine = options?.engine ?? defaultEngine();
      if (typeof engine?.call !== 'function')
        throw configError(definition.name, 'engine', 'must be an engine from createEngine()');
    } catch (error) {
      // A call never throws: even without an engine to run on, it returns a run that rejects.
      return rejectedRun(definition.name, error, createRealClock());
    }
    return engine.call(definition, input, options);
  };
  Object.defineProperty(callable, 'name', { value: definition.name });
  return Object.assign(callable, { definition }) as unknown as Stitch<TData, TResolved>;
}
