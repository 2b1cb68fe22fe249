import { StitchError } from './errors';
import { lastOne } from './memo';
import { isRecord } from './record';

/** A scalar that may appear in a query string. */
export type QueryValue = string | number | boolean;

/** What a call passes: path parameters, query, body and extra headers. */
export interface StitchInput {
  /** Fills `{name}` placeholders of the URL template, percent-encoded. */
  params?: Record<string, string | number | boolean> | undefined;
  /** Appended to the URL; `null`/`undefined` values are left out, arrays repeat the name. */
  query?: Record<string, QueryValue | readonly QueryValue[] | null | undefined> | undefined;
  /** Sent as JSON unless it is already a body type (`FormData`, `Blob`, string, ...). */
  body?: unknown | undefined;
  headers?: Record<string, string> | undefined;
}

const INPUT_FIELDS: readonly string[] = ['params', 'query', 'body', 'headers'];

/**
 * Throws a `config` error naming a field of a call's `input` other than `params`, `query`, `body`
 * and `headers` (a misspelt `qurey`, axios's `data`): the request would go out without it, and
 * the call would join, or be served, another's. A field given as `undefined` is left out.
 */
export function checkInputFields(stitch: string, input: unknown): void {
  if (typeof input !== 'object' || input === null) return;
  // On every call, a cache hit's and a joiner's too: the known fields cost a comparison each.
  for (const field in input) {
    if (field === 'query' || field === 'params' || field === 'body' || field === 'headers') continue;
    // Anything else but a record (a list, say) is refused as such where the request is built.
    if ((input as Record<string, unknown>)[field] !== undefined && isRecord(input))
      throw inputError(stitch, field, `is not an input field (${INPUT_FIELDS.join(', ')})`);
  }
}

/**
 * What `fetch` takes as a body, spelt through `RequestInit` (which Node's own types declare too)
 * rather than the DOM lib's `BodyInit`, so a Node-only TypeScript app can read the types.
 */
type SendableBody = NonNullable<RequestInit['body']>;

/** A request ready for `fetch`, minus its signal. */
export interface BuiltRequest {
  url: string;
  /** `url` as events and errors show it: the value of a query parameter with a secret name redacted. */
  shown: string;
  /** `url`'s origin: the default key of the breaker, the throttle and the retry budget. */
  origin: string;
  /** The values of the query parameters with a secret name (scrubbed from error bodies). */
  secrets: readonly string[];
  method: string;
  headers: Headers;
  body: SendableBody | undefined;
  /** The body is a `ReadableStream`: it is sent once (`duplex: 'half'`) and can never be replayed. */
  streamed: boolean;
  /**
   * Why the caller's body stream failed while it was sent (its own read failed, or it gave a chunk
   * that is not bytes): set when it did. A fault of the caller's, not the vendor's.
   */
  bodyFailure?: { readonly error: unknown } | undefined;
  /**
   * For a stream body: ends the send with `reason`, cancelling the caller's stream, so neither
   * fetch nor the caller's producer goes on once the attempt has ended (or a hop dropped the body).
   */
  stopBody?: ((reason: unknown) => void) | undefined;
}

const PLACEHOLDER = /\{([^{}]+)\}/g;

/** `template` with each of its `{name}` placeholders replaced by `filler`. */
export const fillPlaceholders = (template: string, filler: string): string =>
  template.replace(PLACEHOLDER, filler);

/** The `{name}` placeholders of a URL template. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1] as string);
}

function inputError(stitch: string, field: string, problem: string): StitchError {
  return new StitchError({
    kind: 'config',
    field,
    stitch,
    message: `stitch '${stitch}': \`${field}\` ${problem}`,
  });
}

/** Whether `value` is a scalar that reads the same in a URL: a string, a finite number, a boolean. */
export function isScalar(value: unknown): value is string | number | boolean {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/** Whether `text` holds a control character, which a header value may not (HTAB aside). */
export function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

/** `[object Map]`, `[object Object]`, ...: what a value is, across realms. */
const tagOf = (value: unknown) => Object.prototype.toString.call(value);

/**
 * Throws the `config` error a call of `input` would: a field that is not an input field, a param
 * of the URL template missing or not a scalar; unless the stitch's `input` schema reads it (its
 * output is what a call sends). For what keys a cache entry without a call (`engine.setData`,
 * `invalidate`, a mutation's `invalidates`): an input no call could send must not key one in vain.
 */
export function checkKeyInput(
  definition: { readonly name: string; readonly url: string; readonly input?: unknown },
  input: unknown,
): void {
  if (definition.input) return;
  const { name } = definition;
  checkInputFields(name, input);
  if (input !== undefined) checkRecord(name, 'input', input);
  fillTemplate(name, definition.url, (input as StitchInput | undefined)?.params);
}

/** Throws unless `value` is a record, naming `field`. */
function checkRecord(stitch: string, field: string, value: unknown): Record<string, unknown> {
  if (!isRecord(value)) throw inputError(stitch, field, 'must be a plain object');
  return value as Record<string, unknown>;
}

/**
 * Fills the template from `params`. Each value is percent-encoded as one path segment, and a
 * value of `.` or `..` is refused: URL parsers resolve those (even encoded), which would let an
 * input walk out of the intended path. Every value must be a scalar, used or not, so nothing
 * (a cycle, say) can reach the cache key.
 */
function fillTemplate(stitch: string, template: string, given: StitchInput['params']): string {
  // No params and nothing to fill (the common case): the template is the URL.
  if (given === undefined && !template.includes('{')) return template;
  const params = given === undefined ? {} : checkRecord(stitch, 'params', given);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && !isScalar(value))
      throw inputError(stitch, `params.${name}`, 'must be a string, a finite number or a boolean');
  }
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const value = Object.hasOwn(params, name) ? params[name] : undefined;
    if (value === undefined || value === null) throw inputError(stitch, `params.${name}`, 'is missing');
    const text = String(value);
    if (text === '') throw inputError(stitch, `params.${name}`, 'must not be empty');
    if (text === '.' || text === '..') throw inputError(stitch, `params.${name}`, `must not be '${text}'`);
    try {
      return encodeURIComponent(text);
    } catch {
      throw inputError(stitch, `params.${name}`, 'must be well-formed text (it holds a lone surrogate)');
    }
  });
}

/** The query's name-value pairs, in order; each value must be a scalar or a list of scalars. */
function queryPairs(stitch: string, given: StitchInput['query']): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (given === undefined) return pairs;
  for (const [name, value] of Object.entries(checkRecord(stitch, 'query', given))) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (!isScalar(item))
        throw inputError(
          stitch,
          `query.${name}`,
          'must be a string, a finite number, a boolean or a list of them',
        );
      pairs.push([name, String(item)]);
    }
  }
  return pairs;
}

const REDACTED = '[redacted]';

/** A filled template as the URL parser reads it: parsed once for the calls in a row that share it. */
const parseTarget = lastOne((filled: string) => {
  const url = new URL(filled);
  // Only a bare `scheme://host/path` takes the query by concatenation; anything else is rare
  // enough to go through the parser (which also re-encodes a query the template carries).
  const bare = !url.href.includes('?') && !url.href.includes('#');
  return { href: url.href, origin: url.origin, bare };
});

/**
 * The URL of a call, how events show it and the secret values in its query, with one URL parse
 * (none when the filled template is the previous call's). A query parameter whose name is in
 * `secret` keeps its first place in `shown` with the value `[redacted]`, as `URLSearchParams.set`
 * would put it.
 */
function targetOf(filled: string, pairs: Array<[string, string]>, secret: ReadonlySet<string>) {
  const target = parseTarget(filled);
  let url = target.href;
  if (pairs.length > 0) {
    if (target.bare) url += `?${formQuery(pairs)}`;
    else {
      // Added after the template's query, which is sent as written (not re-encoded).
      const parsed = new URL(url);
      const written = parsed.search.slice(1);
      const added = formQuery(pairs);
      parsed.search = written === '' || written.endsWith('&') ? written + added : `${written}&${added}`;
      url = parsed.href;
    }
  }
  const query = target.bare ? pairs : [...new URL(url).searchParams];
  const secrets: string[] = [];
  for (const [name, value] of query) if (secret.has(name.toLowerCase())) secrets.push(value);
  let shown = url;
  if (secrets.length > 0) {
    const shownPairs: Array<[string, string]> = [];
    const redacted: string[] = [];
    for (const [name, value] of query) {
      if (!secret.has(name.toLowerCase())) shownPairs.push([name, value]);
      else if (!redacted.includes(name)) {
        shownPairs.push([name, REDACTED]);
        redacted.push(name);
      }
    }
    const parsed = new URL(url);
    parsed.search = `${new URLSearchParams(shownPairs)}`;
    shown = parsed.href;
  }
  return { url, shown, origin: target.origin, secrets };
}

/** Characters `URLSearchParams` escapes that `encodeURIComponent` leaves, and a space. */
const FORM_ONLY = /[!'()~]|%20/g;
const formEscape = (match: string) =>
  match === '%20' ? '+' : `%${match.charCodeAt(0).toString(16).toUpperCase()}`;

/**
 * `pairs` as `URLSearchParams` serialises them (application/x-www-form-urlencoded), through the
 * native `encodeURIComponent`; a lone surrogate, which it refuses, goes through `URLSearchParams`.
 */
function formQuery(pairs: Array<[string, string]>): string {
  try {
    let query = '';
    for (const [name, value] of pairs) {
      if (query !== '') query += '&';
      query += `${encodeURIComponent(name).replace(FORM_ONLY, formEscape)}=${encodeURIComponent(value).replace(FORM_ONLY, formEscape)}`;
    }
    return query;
  } catch {
    return `${new URLSearchParams(pairs)}`;
  }
}

/**
 * Why `value` cannot be sent as JSON as it is (a cycle, or something JSON would turn into `{}`,
 * `null` or nothing: a Map, a File, a function, a symbol, a bigint, a non-finite number), with
 * its path; `undefined` when it can. Objects with `toJSON` (a Date) speak for themselves.
 */
function jsonProblem(value: unknown, path: string, ancestors: Set<object>, said = false): string | undefined {
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint')
    return `${path} is a ${typeof value}, which JSON cannot carry`;
  if (typeof value === 'number' && !Number.isFinite(value))
    return `${path} is ${value}, which JSON sends as null`;
  if (typeof value !== 'object' || value === null) return undefined;
  // What it says of itself is what JSON sends (a Date: its text): that must be sendable too. JSON
  // asks once (`said`): what toJSON gives is sent as it is, its own toJSON unasked.
  if (!said && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    let shown: unknown;
    try {
      shown = (value as { toJSON(key: string): unknown }).toJSON('');
    } catch {
      return undefined;
    }
    if (shown === undefined) return `${path} gives undefined from its toJSON, which JSON sends as nothing`;
    return jsonProblem(shown, path, ancestors, true);
  }
  if (typeof (value as { then?: unknown }).then === 'function')
    return `${path} is a Promise (or thenable): await it before the call`;
  const tag = tagOf(value).slice(8, -1);
  // An object of a class that holds what it holds out of sight (a Map, a File, a FormData, a
  // stream, `#private` fields, getters): JSON sends its own enumerable fields, none, so the
  // caller's data is lost.
  if (tag !== 'Array' && Object.keys(value).length === 0) {
    // JSON sends a boxed primitive (`new Number(3)`) as the primitive.
    if (tag === 'Number' || tag === 'String' || tag === 'Boolean') return undefined;
    if (tag !== 'Object') return `${path} is a ${tag}, which JSON sends as {}`;
    // A plain object's prototype is a realm's Object.prototype (or none); a class's is not.
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== null && Object.getPrototypeOf(prototype) !== null) {
      const named = String(prototype.constructor?.name || 'object of a class');
      return `${path} is a ${named} with no fields of its own (its data is out of JSON's sight), which JSON sends as {}`;
    }
  }
  if (ancestors.has(value)) return `${path} refers back to itself (a cycle)`;
  ancestors.add(value);
  try {
    for (const [key, item] of Object.entries(value)) {
      // JSON leaves out an object's undefined members, as a caller leaving a field out means.
      if (item === undefined && !Array.isArray(value)) continue;
      const problem = jsonProblem(
        item,
        Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`,
        ancestors,
      );
      if (problem) return problem;
    }
  } finally {
    ancestors.delete(value);
  }
  return undefined;
}

function isBodyInit(body: unknown): body is SendableBody {
  return typeof body === 'string' || ArrayBuffer.isView(body) || BODY_TAGS.has(tagOf(body));
}

/**
 * The body types other than strings and views, by tag rather than `instanceof`: a `File` from an
 * iframe (another realm) is one too, and fetch takes it.
 */
const BODY_TAGS = new Set(
  ['ArrayBuffer', 'Blob', 'File', 'FormData', 'URLSearchParams'].map((name) => `[object ${name}]`),
);

/**
 * Builds the URL, headers and body of one call. Throws a `config` StitchError for bad input.
 * `secret` lists the lower-cased names whose query values are redacted in `shown`. Without
 * input headers or a JSON body, `headers` is `defaults` itself: callers copy before changing it.
 */
export function buildRequest(
  stitch: string,
  method: string,
  template: string,
  defaults: Headers,
  given: StitchInput | undefined,
  secret: ReadonlySet<string> = new Set(),
): BuiltRequest {
  const input = given === undefined ? {} : (checkRecord(stitch, 'input', given) as StitchInput);
  const filled = fillTemplate(stitch, template, input.params);
  const pairs = queryPairs(stitch, input.query);
  let target: ReturnType<typeof targetOf>;
  try {
    target = targetOf(filled, pairs, secret);
  } catch {
    // The template parsed when the stitch was defined, so a param broke it. No cause: the
    // parser's error quotes the whole URL, secrets in its query included.
    throw inputError(stitch, 'params', 'make the URL invalid (a placeholder in the host takes a host name)');
  }
  let headers = defaults;
  const own = () => {
    if (headers === defaults) headers = new Headers(defaults);
    return headers;
  };
  const added = input.headers === undefined ? undefined : checkRecord(stitch, 'headers', input.headers);
  for (const [name, value] of added ? Object.entries(added) : []) {
    if (value === undefined || value === null)
      throw inputError(stitch, `headers.${name}`, `is ${value}: leave the header out, or give its text`);
    try {
      const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
      // Headers would trim a CR or LF at either end and send what is left, and Node's fetch
      // refuses any other control character (HTAB aside) only as it sends: refuse them anywhere.
      if (typeof text !== 'string' || hasControl(text)) throw new TypeError();
      own().set(name, text);
    } catch {
      throw inputError(
        stitch,
        `headers.${name}`,
        'is not a valid header (a token name; a value of Latin-1 text without control characters such as CR, LF or NUL: encode others)',
      );
    }
  }
  let body: SendableBody | undefined;
  let streamed = false;
  let stopBody: BuiltRequest['stopBody'];
  if (input.body !== undefined) {
    if (method === 'GET' || method === 'HEAD')
      throw inputError(stitch, 'body', `is not allowed on ${method}`);
    if (tagOf(input.body) === '[object ReadableStream]') {
      const stream = input.body as ReadableStream;
      if (stream.locked)
        throw inputError(stitch, 'body', 'is a ReadableStream that is already locked or read');
      streamed = true;
      ({ body, stop: stopBody } = watched(stream, (error) => {
        built.bodyFailure = { error };
      }));
    } else if (isBodyInit(input.body)) body = input.body;
    else {
      const problem = jsonProblem(input.body, 'body', new Set());
      if (problem) throw inputError(stitch, 'body', `cannot be sent as JSON: ${problem}`);
      try {
        body = JSON.stringify(input.body);
      } catch (error) {
        throw inputError(stitch, 'body', `cannot be sent as JSON: ${(error as Error).message}`);
      }
      if (!headers.has('content-type')) own().set('content-type', 'application/json');
    }
  }
  const { url, shown, origin, secrets } = target;
  const built: BuiltRequest = { url, shown, origin, secrets, method, headers, body, streamed, stopBody };
  return built;
}

/**
 * The caller's body `stream` as fetch reads it, chunk by chunk (its reader taken at the first
 * read, so a request never sent leaves it unlocked), telling `failed` why it failed when its own
 * read does, or it gives a chunk that is not bytes: a fault of the caller's, which fetch reports
 * as any network failure. `stop` cancels the caller's stream and fails the copy's next read:
 * without it an aborted fetch whose vendor never read the body goes on pulling an endless stream.
 */
function watched(
  stream: ReadableStream,
  failed: (error: unknown) => void,
): { body: ReadableStream<Uint8Array>; stop: (reason: unknown) => void } {
  let reader: ReadableStreamDefaultReader | undefined;
  let stopped: { reason: unknown } | undefined;
  const cancel = (reason: unknown) => (reader ? reader.cancel(reason) : stream.cancel(reason));
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        reader ??= stream.getReader();
        let chunk: ReadableStreamReadResult<unknown>;
        try {
          chunk = await reader.read();
        } catch (error) {
          failed(error);
          throw error;
        }
        // Fetch pulls again after its abort: the copy fails, and fetch stops.
        if (stopped) throw stopped.reason;
        if (chunk.done) controller.close();
        else if (tagOf(chunk.value) === '[object Uint8Array]') controller.enqueue(chunk.value as Uint8Array);
        else {
          const error = new TypeError('the body stream gave a chunk that is not a Uint8Array');
          failed(error);
          reader.cancel(error).catch(() => {});
          throw error;
        }
      },
      cancel,
    },
    // No read ahead: nothing is taken from the caller's stream before fetch asks for it.
    { highWaterMark: 0 },
  );
  const stop = (reason: unknown) => {
    // Only a stream fetch has begun to read: one never sent stays the caller's, unlocked.
    if (stopped || !reader) return;
    stopped = { reason };
    cancel(reason).catch(() => {});
  };
  return { body, stop };
}
