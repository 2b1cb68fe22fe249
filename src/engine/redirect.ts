/**
 * Redirects, followed by the engine rather than by `fetch`: fetch strips only `Authorization`,
 * `Cookie` and `Proxy-Authorization` when a redirect leaves the origin, so an `x-api-key` (or any
 * header the engine counts as a secret) would follow a 302 to another host. Here each hop is
 * checked, stripped of every secret header when it changes origin, and traced (redacted).
 */
import { advance, type ExecutionContext, type Payload } from './context';
import { redactUrl } from './events';
import type { RedirectMode } from './redirectMode';

/** As fetch: more hops than this is a loop. */
export const MAX_REDIRECTS = 20;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Whether `response` is a redirect: a 3xx, or a browser's `opaqueredirect` (status 0), which
 * hides where it goes from script.
 */
export const isRedirect = (response: Response): boolean =>
  REDIRECT_STATUSES.has(response.status) || response.type === 'opaqueredirect';

/**
 * Whether this platform's fetch hides a redirect from script, as a browser's does (an
 * `opaqueredirect` for `redirect: 'manual'`): Node's, Deno's and Bun's show it.
 */
const HIDES_REDIRECTS =
  typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node !== 'string';

/** Whether `headers` carry a header the engine counts as a secret. */
const carriesSecret = (headers: Headers, secret: ReadonlySet<string>) =>
  [...headers.keys()].some((name) => secret.has(name));

/** A redirect the engine will not follow; the attempt fails with kind `'http'`, never retried. */
export class RedirectRefused extends Error {
  readonly status: number;
  /** The 3xx refused, when the platform showed it: the attempt's answer. */
  readonly response: Response | undefined;
  constructor(status: number, message: string, response?: Response) {
    super(message);
    this.status = status;
    this.response = response;
  }
}

/** Why the engine does not follow a hop to `next`; `undefined` when it does. */
function refusalOf(mode: RedirectMode, hop: number, next: URL | undefined): string | undefined {
  if (mode === 'error') return "redirect is 'error'";
  if (hop >= MAX_REDIRECTS) return `more than ${MAX_REDIRECTS} redirects`;
  if (!next) return 'to an invalid location';
  if (!/^https?:$/.test(next.protocol)) return `to a ${next.protocol} URL`;
  // fetch would refuse it with an error quoting the URL, credentials and all.
  if (next.username !== '' || next.password !== '') return 'to a URL with credentials';
  return undefined;
}

/**
 * A header's value as UTF-8: `Headers` gives each byte as one character (Latin-1), and fetch, as
 * browsers do, reads a `Location` of raw UTF-8 bytes (`/café` unescaped) as UTF-8.
 */
function utf8(value: string): string {
  if (!/[\u0080-\u00ff]/.test(value)) return value;
  return new TextDecoder().decode(Uint8Array.from(value, (char) => char.charCodeAt(0)));
}

/**
 * Sends the request and follows its redirects as `context.definition.redirect` says. Every hop
 * is a request that left the process (`state.requests`) and a `redirect` event. On a change of
 * origin every secret header is dropped; a 303 (and a 301/302 of a POST) becomes a bodiless GET,
 * as fetch does; a stream body cannot be sent twice, so a 307/308 of one is refused.
 * @throws RedirectRefused for `redirect: 'error'`, a loop, a non-http(s) target, a target with
 * credentials, or a redirect whose target the platform hides (see `followHidden`) when the
 * request carries a secret.
 * @param hopSecrets gets the secret query values of every URL a hop sent (a `?token=` the
 * vendor's `Location` added): what this attempt's errors must not quote either.
 */
export async function sendFollowing<TData>(
  context: ExecutionContext<TData>,
  attempt: number,
  sent: Headers,
  signal: AbortSignal,
  hopSecrets: string[],
): Promise<Response> {
  const { definition, parts, request } = context;
  let headers = sent;
  const mode = definition.redirect;
  let url = request.url;
  let method = request.method;
  let body = request.body;
  // Where a redirect's target is hidden (a browser), a request with nothing to strip from a hop
  // is left to fetch to follow: asking to see the 3xx first would send it twice.
  if (mode === 'follow' && HIDES_REDIRECTS && !request.streamed && !carriesSecret(sent, parts.secret)) {
    const init = { method, headers, body, signal, redirect: 'follow' } as const;
    return followNatively(context, attempt, init, url, hopSecrets, false);
  }
  for (let hop = 0; ; hop++) {
    const init: RequestInit & { duplex?: 'half' } = { method, headers, body, signal, redirect: 'manual' };
    // A stream body needs half duplex in fetch (Node refuses it otherwise).
    if (request.streamed && body !== undefined) init.duplex = 'half';
    const response = await parts.fetch(url, init);
    if (mode === 'manual') return response;
    if (response.type === 'opaqueredirect')
      return followHidden(context, attempt, init, url, headers, hopSecrets);
    const raw = response.headers.get('location');
    if (!isRedirect(response) || raw === null) return response;
    const location = utf8(raw);
    const { status } = response;
    const from = redactUrl(url, parts.secret);
    const refuse = (why: string) =>
      new RedirectRefused(status, `${method} ${from} redirected (${status}): ${why}`, response);
    const next = URL.canParse(location, url) ? new URL(location, url) : undefined;
    const refusal = refusalOf(mode, hop, next);
    // A refused 3xx is the attempt's answer: its body is let go once `onResponse` has seen it.
    if (refusal !== undefined || !next) throw refuse(refusal ?? '');
    // Nobody reads this hop's body: free its socket now (not awaited: a stream of an injected
    // fetch whose cancel never settles must not hold the call).
    response.body?.cancel().catch(() => {});
    const crossOrigin = next.origin !== new URL(url).origin;
    // The hops change their own copy: the first request's headers may be the stitch's own.
    if (headers === sent) headers = new Headers(sent);
    const dropped: string[] = [];
    if (crossOrigin) {
      for (const name of [...headers.keys()]) {
        if (parts.secret.has(name)) {
          headers.delete(name);
          dropped.push(name);
        }
      }
    }
    const toGet =
      status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
    if (toGet) {
      method = 'GET';
      body = undefined;
      request.stopBody?.(new DOMException('A redirect to a GET dropped the body', 'AbortError'));
      for (const name of [...headers.keys()]) if (name.startsWith('content-')) headers.delete(name);
    } else if (request.streamed && body !== undefined) {
      throw refuse('a stream body cannot be sent twice');
    }
    url = next.toString();
    secretQueryOf(next, parts.secret, hopSecrets);
    const to = redactUrl(url, parts.secret);
    advance(context, {
      type: 'send',
      attempt,
      event: { type: 'redirect', attempt, status, from, to, method, crossOrigin, dropped },
    });
  }
}

/** Adds to `found` the values of `url`'s query whose names are `secret`. */
function secretQueryOf(url: URL, secret: ReadonlySet<string>, found: string[]): void {
  for (const [name, value] of url.searchParams) if (secret.has(name.toLowerCase())) found.push(value);
}

/**
 * A fetch that hid a redirect's target (an `opaqueredirect`) on a platform not known to: the
 * engine cannot check where it goes. The request has reached the vendor once already, so only a
 * GET or HEAD carrying no secret header (nothing to leak, nothing done twice) is sent again, with
 * fetch's own `redirect: 'follow'`; any other is refused.
 */
function followHidden<TData>(
  context: ExecutionContext<TData>,
  attempt: number,
  init: RequestInit,
  url: string,
  headers: Headers,
  hopSecrets: string[],
): Promise<Response> {
  const { parts, definition } = context;
  const safe = init.method === 'GET' || init.method === 'HEAD';
  if (definition.redirect === 'error' || !safe || carriesSecret(headers, parts.secret)) {
    const from = redactUrl(url, parts.secret);
    throw new RedirectRefused(0, `${init.method} ${from} was redirected, and this platform hides where to`);
  }
  advance(context, { type: 'send', attempt });
  return followNatively(context, attempt, { ...init, redirect: 'follow' }, url, hopSecrets, true);
}

/**
 * Sends the request with fetch following its redirects, and traces its hops as one, from `url` to
 * where it landed: when fetch says it was `redirected`, or when it is `known` (a re-send, counted
 * as it went out). A hop fetch followed on its own is one more request that left.
 */
async function followNatively<TData>(
  context: ExecutionContext<TData>,
  attempt: number,
  init: RequestInit,
  url: string,
  hopSecrets: string[],
  known: boolean,
): Promise<Response> {
  const { parts } = context;
  const response = await parts.fetch(url, init);
  if (!known && !response.redirected) return response;
  const landed = response.url === '' ? url : response.url;
  secretQueryOf(new URL(landed), parts.secret, hopSecrets);
  const event: Payload<'redirect'> = {
    type: 'redirect',
    attempt,
    status: 0,
    from: redactUrl(url, parts.secret),
    to: redactUrl(landed, parts.secret),
    method: init.method as string,
    crossOrigin: new URL(landed).origin !== new URL(url).origin,
    dropped: [],
  };
  if (known) context.emit(event);
  else advance(context, { type: 'send', attempt, event });
  return response;
}
