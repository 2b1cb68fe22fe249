import { isRecord } from './record';
import { isScalar, placeholders, type StitchInput } from './request';

/**
 * Canonical keys for the cache and the coalescer: the stitch's name, a tenancy scope, and the
 * input with object keys sorted, so `{ a, b }` and `{ b, a }` are one key. Secret header and query
 * values are never kept in clear: they enter the key as a salted hash, so two principals never
 * share an entry and a key (in a dehydrated page, say) does not reveal a token.
 */

/**
 * Two 32-bit FNV-1a style hashes side by side: sync and fast, not cryptographic (the keys here
 * salt what they hash with the engine's salt, so it stays unguessable).
 */
export function hash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x2f8a1d37;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
  }
  return (a >>> 0).toString(36) + (b >>> 0).toString(36);
}

/**
 * Plain data as canonical JSON: an object is a sorted `["o", [key, value], …]` list, an array
 * `["a", …]`, so a key named `__proto__` or `constructor` is just data and can never reach a
 * prototype, and an array of pairs can never read as the object it resembles. Written straight
 * to a string (no intermediate arrays): it runs on every call. `field`, if given, maps the
 * top-level object's members first (the query's secret values become hashes).
 */
function canonical(value: unknown, field?: (name: string, value: unknown) => unknown): string {
  // A finite number is its own JSON (the common scalar: ids, pages, limits). What an input may not
  // hold (Infinity, a function, a bigint) keys apart from what it may, whose JSON it would share:
  // a call the request build refuses must never join, nor be served, a good one's.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : `["n","${value}"]`;
  if (value === null || value === undefined || typeof value === 'string' || typeof value === 'boolean')
    return JSON.stringify(value) ?? 'null';
  if (typeof value !== 'object') return `["${typeof value}"]`;
  // What JSON would write of it (a Date: its time), not its own fields (a Date has none); marked,
  // so a Date is not the string of its time.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return `["j",${canonical((value as { toJSON(): unknown }).toJSON())}]`;
  let out: string;
  if (Array.isArray(value)) {
    out = '["a"';
    for (const item of value) out += `,${canonical(item)}`;
    return `${out}]`;
  }
  // `isPlainObject`, inlined: it runs on every call.
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null && !isRecord(value))
    return `["x",${JSON.stringify(Object.prototype.toString.call(value))}]`;
  out = '["o"';
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    // Left out as the request leaves it out, before a secret field's digest would make it a string.
    if (item === undefined) continue;
    const shown = field ? field(key, item) : item;
    if (shown !== undefined) out += `,[${JSON.stringify(key)},${canonical(shown)}]`;
  }
  return `${out}]`;
}

/**
 * Whether `value` is a plain object, of this realm or another: what a key can describe. Anything
 * else (a `Map`, `URLSearchParams`, `Headers`) shows no entries, and an input holding one is
 * refused where the request is built: keyed apart, it never joins nor is served a good call's.
 */
function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null || isRecord(value);
}

/**
 * A param or query value as the URL reads it: a finite number or a boolean is its text (`7` and
 * `'7'` send one request, so they are one key), a list item by item; anything else as is (the
 * request build refuses it, and it keys apart).
 */
function asText(value: unknown): unknown {
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))
    return String(value);
  return Array.isArray(value) ? value.map(asText) : value;
}

/**
 * A query value as the URL reads it: {@link asText}, where a list of one scalar is that scalar
 * (`?q=ada` either way) and an empty list, like `null`, sends nothing.
 */
function queryText(value: unknown): unknown {
  if (value === null || (Array.isArray(value) && value.length === 0)) return undefined;
  if (Array.isArray(value) && value.length === 1 && isScalar(value[0])) return asText(value[0]);
  return asText(value);
}

/** An empty object, as {@link canonical} writes it. */
const EMPTY = '["o"]';

/**
 * Whether `value` is plain data (primitives, arrays, plain objects) that a key can describe in
 * full. A `FormData`, `Blob`, stream or `Date` body is not: two different ones would look alike,
 * so a write carrying one never shares a request.
 */
export function isPlainData(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return typeof value !== 'function';
  if (Array.isArray(value)) return value.every(isPlainData);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  return Object.values(value).every(isPlainData);
}

/** Builds the keys of one engine; `secret` lists lower-cased header names to hash. */
export function createKeys(secret: ReadonlySet<string>) {
  const salt = Math.random().toString(36).slice(2);
  const digest = (value: unknown) => `#${hash(salt + canonical(value))}`;
  const hidden = (field: string, value: unknown) => (secret.has(field.toLowerCase()) ? digest(value) : value);
  const inQuery = (field: string, value: unknown) => {
    const text = queryText(value);
    return text === undefined ? undefined : hidden(field, text);
  };
  // A query as given (an input schema reshapes it before it is sent): a null value left out.
  const givenQuery = (field: string, value: unknown) =>
    value === null ? undefined : hidden(field, asText(value));
  // Per URL template, how a param enters the key: as its text, hashed when it fills the value of a
  // secret query name (`?api_key={key}`), and, as sent, left out when the template does not use it.
  const templates = new Map<string, { sent: ParamField; given: ParamField }>();
  const paramsOf = (template: string) => {
    let found = templates.get(template);
    if (found === undefined) {
      const used = new Set(placeholders(template));
      const hiddenParams = paramsInQuery(template, secret);
      const given: ParamField = (field, value) =>
        hiddenParams.has(field) ? digest(asText(value)) : asText(value);
      // A param the template does not use is not sent, so it is not keyed either (unless the
      // request build refuses it: then it keys apart, never joining a good call).
      const sent: ParamField = (field, value) => {
        if (!used.has(field)) return isScalar(value) || value === null ? undefined : value;
        return given(field, value);
      };
      found = { sent, given };
      templates.set(template, found);
    }
    return found;
  };
  // The start of every key of a scope and stitch, written once (a key is built on every call).
  const prefixes = new Map<string, Map<string, string>>();
  const prefixOf = (name: string, scope: string): string => {
    let ofScope = prefixes.get(scope);
    if (ofScope === undefined) {
      // Scopes are few; a flood of them (one per request, say) must not pile up.
      if (prefixes.size >= 256) prefixes.clear();
      ofScope = new Map();
      prefixes.set(scope, ofScope);
    }
    let prefix = ofScope.get(name);
    if (prefix === undefined) {
      prefix = `[${JSON.stringify(name)},${JSON.stringify(scope)},`;
      ofScope.set(name, prefix);
    }
    return prefix;
  };
  return {
    /**
     * The key of `input` for the stitch `name` (URL template `url`) in tenancy `scope`. `asSent`:
     * the input is what the request is built from, so its params and query are keyed as the URL
     * reads them; `false` where an input schema reshapes it first (all of it is keyed as given).
     */
    keyOf(name: string, scope: string, input: StitchInput | undefined, url = '', asSent = true): string {
      let headers = '[]';
      // Not `canonical`'s: a list of pairs must not read as the pairs plain headers are keyed by.
      if (input?.headers && !isPlainObject(input.headers))
        headers = `["x",${JSON.stringify(Object.prototype.toString.call(input.headers))}]`;
      else if (input?.headers) {
        const pairs = Object.entries(input.headers).map(([header, value]) => [
          header.toLowerCase(),
          hidden(header, value),
        ]);
        pairs.sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1));
        if (pairs.length > 0) headers = canonical(pairs);
      }
      // Query names that are secrets (`token`, `api_key`, configured ones) are hashed as headers
      // are; a `null` value is left out, as the request leaves it out.
      const query = input?.query && canonical(input.query, asSent ? inQuery : givenQuery);
      // So are params that fill a secret query value of the template.
      const template = input?.params ? paramsOf(url) : undefined;
      const params = canonical(input?.params, asSent ? template?.sent : template?.given);
      // No params or query is the same request as empty ones.
      const shape = `${params === EMPTY ? 'null' : params},${query === EMPTY ? 'null' : (query ?? 'null')},${canonical(input?.body)}`;
      return `${prefixOf(name, scope)}${shape},${headers}]`;
    },
    /** Whether `key` belongs to the stitch `name` (for invalidating all its inputs). */
    belongsTo(key: string, name: string): boolean {
      return key.startsWith(`${JSON.stringify([name]).slice(0, -1)},`);
    },
  };
}

/** A query name as the vendor reads it (`api%5Fkey` and `api+key` are `api_key` and `api key`). */
function queryName(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return raw;
  }
}

/**
 * The `{param}` placeholders of `template`'s query that fill the value of a parameter whose name
 * (lower-cased) is in `secret`.
 */
function paramsInQuery(template: string, secret: ReadonlySet<string>): ReadonlySet<string> {
  const found = new Set<string>();
  const start = template.indexOf('?');
  if (start < 0) return found;
  const query = template.slice(start + 1).split('#')[0] ?? '';
  for (const pair of query.split('&')) {
    const equals = pair.indexOf('=');
    if (equals < 0 || !secret.has(queryName(pair.slice(0, equals)).toLowerCase())) continue;
    for (const name of placeholders(pair.slice(equals + 1))) found.add(name);
  }
  return found;
}

/** How a param of one URL template enters its key (`undefined`: left out). */
type ParamField = (field: string, value: unknown) => unknown;

/** A stitch's keys, as the engine builds them. */
export type Keys = ReturnType<typeof createKeys>;
