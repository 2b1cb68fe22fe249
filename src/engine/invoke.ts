import type { CallOptions, Stitch } from './definition';
import type { StitchInput } from './request';
import type { StitchRun } from './run';

/** An input argument: `undefined` is allowed when the stitch needs no input (see `CallArgs`). */
export type InputArg<TInput> = Partial<TInput> extends TInput ? TInput | undefined : TInput;

/**
 * Calls a stitch with an input held as `TInput | undefined`. A stitch's own signature makes the
 * input required when it has a required field; a hook has already checked that (it stays idle
 * without an input), and `mutate` and `prefetch` type it as the stitch does, so here the call is
 * made through the stitch itself, which keeps any wrapper a user put around it in the loop.
 */
export function invoke<TData, TInput extends StitchInput>(
  stitch: Stitch<TData, TInput>,
  input: TInput | undefined,
  options: CallOptions,
): StitchRun<TData> {
  return (stitch as unknown as (input: TInput | undefined, options: CallOptions) => StitchRun<TData>)(
    input,
    options,
  );
}
