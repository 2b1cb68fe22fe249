/**
 * A definition as a callable stitch, run on the engine its call names (the default engine
 * otherwise): what both entries' `stitch()` return.
 */
import { createRealClock } from './clock';
import type { CallOptions, Stitch, StitchDefinition, StitchEngineLike } from './definition';
import { rejectedRun } from './endings';
import { defaultEngine } from './engine';
import { configError, unreadable } from './errors';
import { redactUrl, SECRET_QUERY } from './events';
import type { StitchInput } from './request';
import type { StitchRun } from './run';

/** The stitch of `definition`. A call never throws: without an engine to run on, its run rejects. */
export function toStitch<TData, TInput extends StitchInput>(
  definition: StitchDefinition<TData, TInput>,
): Stitch<TData, TInput> {
  const callable = (input?: TInput, options?: CallOptions): StitchRun<TData> => {
    let engine: StitchEngineLike;
    try {
      // Only an engine left out (or undefined) means the default one: `null` is not an engine.
      engine = options?.engine === undefined ? defaultEngine() : options.engine;
      if (typeof engine?.call !== 'function')
        throw configError(definition.name, 'engine', 'must be an engine from createEngine()');
    } catch (error) {
      // No engine, so no configured secret names: the default ones are redacted from its URL.
      const url = redactUrl(definition.url, new Set(SECRET_QUERY));
      // Only reading `engine` can throw anything but a StitchError here (a getter that throws).
      return rejectedRun(definition, url, unreadable(definition.name, 'engine', error), createRealClock());
    }
    return engine.call(definition, input, options);
  };
  Object.defineProperty(callable, 'name', { value: definition.name });
  return Object.assign(callable, { definition }) as unknown as Stitch<TData, TInput>;
}
