import { StitchError } from './errors';

/** A scalar that may appear in a query string. */
export type QueryValue = string | number | boolean;

/** What a call passes: path parameters, query, body and extra headers. */
export interface StitchInput {
  /** Fills `{name}` placeholders of the URL template, percent-encoded. */
  params?: Record<string, string | number | boolean>;
  /** Appended to the URL; `null`/`undefined` values are left out, arrays repeat the name. */
  query?: Record<string, QueryValue | readonly QueryValue[] | null | undefined>;
  /** Sent as JSON unless it is already a body type (`FormData`, `Blob`, string, ...). */
  body?: unknown;
  headers?: Record<string, string>;
}

/** A request ready for `fetch`, minus its signal. */
export interface BuiltRequest {
  url: string;
  method: string;
  headers: Headers;
  body: BodyInit | undefined;
}

const PLACEHOLDER = /\{([^{}]+)\}/g;

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

/**
 * Fills the template from `params`. Each value is percent-encoded as one path segment, and a
 * value of `.` or `..` is refused: URL parsers resolve those (even encoded), which would let an
 * input walk out of the intended path.
 */
function fillTemplate(stitch: string, template: string, params: StitchInput['params']): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const value = params && Object.hasOwn(params, name) ? params[name] : undefined;
    if (value === undefined || value === null) throw inputError(stitch, `params.${name}`, 'is missing');
    if (typeof value === 'object')
      throw inputError(stitch, `params.${name}`, 'must be a string, number or boolean');
    const text = String(value);
    if (text === '') throw inputError(stitch, `params.${name}`, 'must not be empty');
    if (text === '.' || text === '..') throw inputError(stitch, `params.${name}`, `must not be '${text}'`);
    return encodeURIComponent(text);
  });
}

function isBodyInit(body: unknown): body is BodyInit {
  return (
    typeof body === 'string' ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    (typeof Blob !== 'undefined' && body instanceof Blob) ||
    (typeof FormData !== 'undefined' && body instanceof FormData) ||
    body instanceof URLSearchParams ||
    (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream)
  );
}

/** Builds the URL, headers and body of one call. Throws a `config` StitchError for bad input. */
export function buildRequest(
  stitch: string,
  method: string,
  template: string,
  defaults: Headers,
  input: StitchInput | undefined,
): BuiltRequest {
  const url = new URL(fillTemplate(stitch, template, input?.params));
  for (const [name, value] of Object.entries(input?.query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
  }
  const headers = new Headers(defaults);
  for (const [name, value] of Object.entries(input?.headers ?? {})) {
    try {
      headers.set(name, value);
    } catch {
      throw inputError(stitch, `headers.${name}`, 'is not a valid header');
    }
  }
  let body: BodyInit | undefined;
  if (input?.body !== undefined) {
    if (method === 'GET' || method === 'HEAD')
      throw inputError(stitch, 'body', `is not allowed on ${method}`);
    if (isBodyInit(input.body)) body = input.body;
    else {
      try {
        body = JSON.stringify(input.body);
      } catch (error) {
        throw inputError(stitch, 'body', `cannot be sent as JSON: ${(error as Error).message}`);
      }
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
  }
  return { url: url.toString(), method, headers, body };
}
