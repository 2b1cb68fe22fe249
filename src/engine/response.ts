import { abortReason, onAbortShared, raceAbort } from './abort';

/** A Standard Schema validator (zod 4, valibot, arktype, ...): the part Stitch relies on. */
export interface StandardSchemaV1<TInput = unknown, TOutput = TInput> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    /** Checks `value`: its output, or the issues that reject it. */
    readonly validate: (value: unknown) => StandardResult<TOutput> | Promise<StandardResult<TOutput>>;
    readonly types?: { readonly input: TInput; readonly output: TOutput } | undefined;
  };
}

/** A validator's verdict: a value, or the issues that rejected it. */
export type StandardResult<TOutput> =
  | { readonly value: TOutput; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<unknown> | undefined;
      }>;
    };

/** How a response body is read. @default 'json' */
export type ResponseType = 'json' | 'text';

/** Why a body could not become data; the engine turns it into a `kind: 'invalid'` error. */
export class BodyProblem extends Error {
  readonly issues: unknown;
  constructor(message: string, issues?: unknown) {
    super(message);
    this.issues = issues;
  }
}

/**
 * Reads a body up to `maxBytes`. Past the limit it cancels the stream (which closes the socket
 * rather than draining a huge body) and throws. An abort of `signal` ends the read at once with
 * its reason and cancels the stream, even when the `fetch` in use (an injected one) does not.
 * The readers here keep their lock: the body is the engine's alone, read to its end or
 * cancelled, and a release would cost a TypeError (the reader's closed promise rejects with one).
 */
export async function readBody(response: Response, maxBytes: number, signal?: AbortSignal): Promise<string> {
  if (response.body === undefined) {
    const text = await unstreamed(response, signal);
    if (text.length > maxBytes || new TextEncoder().encode(text).byteLength > maxBytes)
      throw new BodyProblem(`the response body exceeds maxBodyBytes (${maxBytes})`);
    return text;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const detach = cancelOnAbort(reader, signal);
  try {
    for (;;) {
      // `readChunk`, inlined: the hot path of every answer, one promise per chunk fewer.
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw signal?.aborted ? abortReason(signal) : error;
      }
      if (signal?.aborted) throw abortReason(signal);
      const { done, value } = chunk;
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        // Not awaited: the cancel of a body `onResponse` cloned settles only once the clone is
        // read or cancelled too, which nothing promises.
        reader.cancel().catch(() => {});
        throw new BodyProblem(`the response body exceeds maxBodyBytes (${maxBytes})`);
      }
      chunks.push(value);
    }
  } finally {
    detach();
  }
  // Most answers come in one chunk: decoded in one go, with no streaming state to keep.
  if (chunks.length === 1) return whole.decode(chunks[0]);
  const decoder = new TextDecoder();
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
}

const whole = /* @__PURE__ */ new TextDecoder();

/**
 * The first `limit` characters of an error response's body, for `StitchError.body`. Reads only
 * what it keeps, then cancels the rest (a 5 MB error page is not drained). Never throws:
 * `undefined` if unreadable; an abort of `signal` ends it at once with what was read.
 */
export async function readErrorBody(
  response: Response,
  limit: number,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (response.body === undefined)
    return unstreamed(response, signal).then(
      (text) => text.slice(0, limit),
      () => undefined,
    );
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const detach = cancelOnAbort(reader, signal);
  try {
    while (text.length < limit) {
      const { done, value } = await readChunk(reader, signal);
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
    }
    // Not awaited, as in `readBody`: a cloned body's cancel may never settle.
    reader.cancel().catch(() => {});
    return text.slice(0, limit);
  } catch {
    return text === '' ? undefined : text.slice(0, limit);
  } finally {
    detach();
  }
}

/**
 * The whole body of a response that has no stream: a `fetch` polyfill's (React Native's), whose
 * `Response` has no `body` at all (one without a body has `null`). Its text is read at once
 * (such a `fetch` has buffered it already); an abort of `signal` ends the wait.
 */
function unstreamed(response: Response, signal: AbortSignal | undefined): Promise<string> {
  return typeof response.text === 'function' ? raceAbort(response.text(), signal) : Promise.resolve('');
}

type Reader = ReadableStreamDefaultReader<Uint8Array>;

/**
 * Cancels the stream the moment `signal` aborts (one listener for the whole read, not one per
 * chunk): that settles a read still pending and closes the socket of a `fetch` that ignored the
 * signal. Returns the listener's removal.
 */
function cancelOnAbort(reader: Reader, signal: AbortSignal | undefined): () => void {
  if (!signal) return () => {};
  const cancel = () => {
    reader.cancel(abortReason(signal)).catch(() => {});
  };
  if (signal.aborted) {
    cancel();
    return () => {};
  }
  return onAbortShared(signal, cancel);
}

/** The next chunk; once `signal` has aborted, its reason instead (whatever the stream said). */
async function readChunk(reader: Reader, signal: AbortSignal | undefined) {
  try {
    const chunk = await reader.read();
    if (signal?.aborted) throw abortReason(signal);
    return chunk;
  } catch (error) {
    throw signal?.aborted ? abortReason(signal) : error;
  }
}

/** Whether a content type says JSON (`application/json`, `application/problem+json`, …). */
export const isJsonType = (contentType: string | null): boolean =>
  contentType !== null && /[/+]json\b/i.test(contentType);

/** Turns body text into data: JSON (empty → `null`) unless `text`; checks the content type. */
export function parseBody(text: string, contentType: string | null, type: ResponseType): unknown {
  if (type === 'text') return text;
  if (text === '') return null;
  if (contentType && !isJsonType(contentType)) {
    throw new BodyProblem(`expected a JSON response, got content-type '${contentType}'`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const said = withoutExcerpt((error as Error).message);
    throw new BodyProblem(`the response body is not valid JSON: ${said}`, new SyntaxError(said));
  }
}

/**
 * A JSON parser's message without its quote of the body: V8 quotes the text around the fault,
 * cut to a few characters, and a credential the vendor echoed there would be cut too, past any
 * redaction of whole values. `Unexpected token '<', "<!DOCTYPE "... is not valid JSON` reads
 * `Unexpected token '<'`.
 */
const withoutExcerpt = (message: string) => message.replace(/, (?:\.\.\.)?".*$/s, '');

/** Runs the `output` validator; its issues become the error's `cause`. */
export async function validate<TData>(schema: StandardSchemaV1<unknown, TData>, value: unknown) {
  let result: StandardResult<TData>;
  try {
    result = await schema['~standard'].validate(value);
  } catch (error) {
    // A validator that throws (a buggy transform) says nothing about the vendor: still 'invalid'.
    throw new BodyProblem(`the output validator threw: ${(error as Error)?.message ?? String(error)}`, error);
  }
  if (typeof result !== 'object' || result === null) {
    throw new BodyProblem(`the output validator returned ${String(result)}, not a result`);
  }
  if (result.issues) {
    const first = result.issues[0]?.message ?? 'invalid';
    throw new BodyProblem(`the response failed output validation: ${first}`, result.issues);
  }
  // Stored, it would read as no data at all: a suspended reader would read again without end.
  if (result.value === undefined) {
    throw new BodyProblem('the output validator gave undefined, which means no data (give null for nothing)');
  }
  return result.value;
}
