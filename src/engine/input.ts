import { StitchError } from './errors';
import type { StitchInput } from './request';
import type { StandardResult, StandardSchemaV1 } from './response';

/** What an input check gives: the input to send (the schema's output), or why it was refused. */
export type CheckedInput = { ok: true; value: StitchInput | undefined } | { ok: false; error: StitchError };

function verdict(stitch: string, result: StandardResult<StitchInput>): CheckedInput {
  if (typeof result !== 'object' || result === null) {
    const message = `stitch '${stitch}': the input validator returned ${String(result)}, not a result`;
    return { ok: false, error: new StitchError({ kind: 'invalid', message, stitch }) };
  }
  if (!result.issues) return { ok: true, value: result.value };
  const first = result.issues[0]?.message ?? 'invalid';
  return {
    ok: false,
    error: new StitchError({
      kind: 'invalid',
      message: `stitch '${stitch}': the input failed validation: ${first}`,
      cause: result.issues,
      stitch,
    }),
  };
}

function threw(stitch: string, error: unknown): CheckedInput {
  const message = `stitch '${stitch}': the input validator threw: ${(error as Error)?.message ?? String(error)}`;
  return { ok: false, error: new StitchError({ kind: 'invalid', message, cause: error, stitch }) };
}

/**
 * Runs a stitch's `input` validator before anything else happens. A synchronous validator (most
 * are) answers synchronously, so a valid call costs no extra turn; an asynchronous one answers
 * with a promise that never rejects.
 */
export function checkInput(
  stitch: string,
  schema: StandardSchemaV1<unknown, StitchInput>,
  input: unknown,
): CheckedInput | Promise<CheckedInput> {
  let result: StandardResult<StitchInput> | Promise<StandardResult<StitchInput>>;
  try {
    result = schema['~standard'].validate(input);
  } catch (error) {
    return threw(stitch, error);
  }
  if (!(result instanceof Promise)) return verdict(stitch, result);
  return result.then(
    (settled) => verdict(stitch, settled),
    (error: unknown) => threw(stitch, error),
  );
}
