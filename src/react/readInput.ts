import { type InputArg, type Stitch, StitchError, type StitchInput } from '../index';

/** Pass instead of an input to keep a hook idle: no request, `status: 'idle'`. */
export const skipToken: unique symbol = Symbol.for('stitch.skipToken');

/**
 * What a read hook takes as its input: the stitch's input (`undefined` only when the stitch needs
 * none), or `skipToken` or `null` to keep it idle.
 */
export type HookInput<TInput> = InputArg<TInput> | typeof skipToken | null;

/**
 * What a read hook reads: the input, or `undefined` with `idle` when it is kept idle (`skipToken`,
 * `null`, `enabled: false`). Throws a `config` error for a write, which `hook` cannot read
 * (`hint` says what to use instead).
 */
export function readInput<TInput extends StitchInput>(
  hook: string,
  stitch: Stitch<unknown, TInput>,
  input: HookInput<TInput> | undefined,
  enabled: boolean | undefined,
  hint = '',
): { idle: boolean; value: TInput | undefined } {
  const { name, method } = stitch.definition;
  if (stitch.definition.kind === 'write') {
    throw new StitchError({
      kind: 'config',
      field: 'method',
      stitch: name,
      message: `${hook} reads GET and HEAD stitches; '${name}' is a ${method}${hint}`,
    });
  }
  const idle = input === skipToken || input === null || enabled === false;
  return { idle, value: idle ? undefined : (input as TInput | undefined) };
}
