import type { StitchDefinition } from './definition';
import { StitchError } from './errors';
import { scrubCause, secretValues } from './events';
import { isRecord } from './record';
import { buildRequest, type StitchInput } from './request';
import type { StandardResult, StandardSchemaV1 } from './response';

/** What an input check gives: the input to send (the schema's output), or why it was refused. */
export type CheckedInput = { ok: true; value: StitchInput | undefined } | { ok: false; error: StitchError };

/** A text with the call's secrets replaced (see {@link inputSecrets}). */
type Scrubbed = (text: string) => string;

function verdict(stitch: string, result: StandardResult<StitchInput>, scrubbed: Scrubbed): CheckedInput {
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
      message: `stitch '${stitch}': the input failed validation: ${scrubbed(first)}`,
      cause: scrubCause(result.issues, scrubbed),
      stitch,
    }),
  };
}

function threw(stitch: string, error: unknown, scrubbed: Scrubbed): CheckedInput {
  const said = scrubbed(String((error as Error)?.message ?? error));
  const message = `stitch '${stitch}': the input validator threw: ${said}`;
  return {
    ok: false,
    error: new StitchError({ kind: 'invalid', message, cause: scrubCause(error, scrubbed), stitch }),
  };
}

/**
 * The secret values a call's input carries, with its stitch's: what an input validator's message
 * (which may quote the input: `received "Bearer sk_…"`) must not show. Read from the request the
 * input makes; from an input no request can be made of, from its headers and query as given.
 */
export function inputSecrets(
  definition: StitchDefinition<unknown, never>,
  input: unknown,
  secret: ReadonlySet<string>,
): string[] {
  const { name, method, url, headers } = definition;
  try {
    const request = buildRequest(name, method, url, headers, input as StitchInput, secret);
    return secretValues(request.headers, request.secrets, secret);
  } catch {
    const given = isRecord(input) ? (input as StitchInput) : {};
    const named = (field: unknown) =>
      Object.entries(isRecord(field) ? (field as Record<string, unknown>) : {})
        .filter(([key]) => secret.has(key.toLowerCase()))
        .flatMap(([, value]) => (Array.isArray(value) ? value : [value]))
        .filter((value) => value !== undefined && value !== null)
        .map(String);
    return secretValues(headers, [...named(given.headers), ...named(given.query)], secret);
  }
}

/**
 * Runs a stitch's `input` validator before anything else happens. A synchronous validator (most
 * are) answers synchronously, so a valid call costs no extra turn; an asynchronous one answers
 * with a promise that never rejects. A refusal's message and issues go through `scrubbed` (the
 * call's secrets out).
 */
export function checkInput(
  stitch: string,
  schema: StandardSchemaV1<unknown, StitchInput>,
  input: unknown,
  scrubbed: Scrubbed,
): CheckedInput | Promise<CheckedInput> {
  let result: StandardResult<StitchInput> | PromiseLike<StandardResult<StitchInput>>;
  try {
    result = schema['~standard'].validate(input);
  } catch (error) {
    return threw(stitch, error, scrubbed);
  }
  // Any thenable: a promise of another realm (an iframe's, a VM context's) is no `Promise` here.
  if (typeof (result as Partial<PromiseLike<unknown>> | null)?.then !== 'function') {
    return verdict(stitch, result as StandardResult<StitchInput>, scrubbed);
  }
  return Promise.resolve(result).then(
    (settled) => verdict(stitch, settled, scrubbed),
    (error: unknown) => threw(stitch, error, scrubbed),
  );
}
