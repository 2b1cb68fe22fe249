import type { CallOptions, Stitch, StitchInput, StitchRun } from '../index';

/**
 * Calls a stitch with an input the hook holds as `TInput | undefined`. A stitch's own signature
 * makes the input required when it has a required field; a hook has already checked that (it
 * stays idle without an input), so here the call is made through the stitch itself, which keeps
 * any wrapper a user put around it in the loop.
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
