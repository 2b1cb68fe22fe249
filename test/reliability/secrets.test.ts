/**
 * Issue 12, item 9: credentials in query names and userinfo are redacted by default in events,
 * reports, error URLs and errors' JSON, and `error.body` never carries a secret value this
 * request itself sent (a vendor echoing `invalid token sk-…` back). Against a real vendor, which
 * must still receive every value in clear.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createEngine,
  MAX_ERROR_BODY,
  SECRET_QUERY,
  type StitchEvent,
  type StitchRun,
  stitch,
} from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { collect, rejection, type ScenarioOptions, startScenario } from '../helpers/runs';

/** The query names the issue lists, as callers spell them (the match ignores case). */
const CREDENTIAL_NAMES = (
  'access_token refresh_token id_token token api_key apikey key sig signature X-Amz-Signature ' +
  'code password secret client_secret'
).split(' ');

const secretFor = (name: string) => `sk-${name.toLowerCase()}-value-0x5e`;

/** A scenario whose engine traces every event of its runs into `traced`. */
async function tracedScenario(options: Omit<ScenarioOptions, 'engine'>) {
  const traced: StitchEvent[] = [];
  const scenario = await startScenario({
    ...options,
    engine: { trace: { handle: (event) => traced.push(event) } },
  });
  return { ...scenario, traced };
}

/** Everything a run shows: its events (streamed and traced), report and error, serialised. */
async function shown(run: StitchRun<unknown>, traced: StitchEvent[]) {
  const events = await collect(run);
  const result = await run.safe();
  const error = result.error;
  return [
    JSON.stringify(events),
    JSON.stringify(traced),
    JSON.stringify(await run.report()),
    JSON.stringify(error),
    String(error),
    error?.url ?? '',
    error?.message ?? '',
  ].join('\n');
}

/** What a validator may throw that is not an Error: an instance of its own class. */
class Rejection {
  constructor(readonly said: string) {}
}

describe('credential query names', () => {
  it('are all secret by default', () => {
    expect([...SECRET_QUERY].sort()).toEqual(CREDENTIAL_NAMES.map((name) => name.toLowerCase()).sort());
  });

  it.each(CREDENTIAL_NAMES)(
    '%s: the vendor gets it; no event, report, error url or error JSON shows it; the echoing error body neither',
    async (name) => {
      const { vendor, engine, traced } = await tracedScenario({
        // The vendor echoes what it got, credentials included, in its error page.
        respond: (entry) => ({
          status: 401,
          body: `invalid credentials: ${entry.url} with ${entry.headers.authorization}`,
        }),
      });
      const read = stitch({ name: uniqueKey('read'), url: vendor.url('/me'), retry: false });
      const run = read(
        {
          query: { [name]: secretFor(name), page: 2 },
          headers: { authorization: 'Bearer sk-bearer-token-0x77' },
        },
        { engine },
      );
      const text = await shown(run, traced);
      expect(vendor.ledger[0]?.query.get(name)).toBe(secretFor(name));
      expect(text).not.toContain(secretFor(name));
      expect(text).not.toContain('sk-bearer-token-0x77');
      const error = await rejection(run);
      expect(error.body).toContain('[redacted]');
      expect(error.body).not.toContain(secretFor(name));
      expect(error.body).not.toContain('sk-bearer-token-0x77');
      // What is not a secret stays readable.
      expect(error.url).toContain('page=2');
    },
  );
});

describe('a credential the vendor echoes back', () => {
  it('sent form-encoded (a space as +) is scrubbed from the error body in that form too', async () => {
    const { vendor, engine } = await startScenario({
      respond: (entry) => ({ status: 401, body: `denied: ${entry.url}` }),
    });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/me'), retry: false });
    const error = await rejection(read({ query: { token: 'sk secret part two' } }, { engine }));
    expect(vendor.ledger[0]?.url).toContain('token=sk+secret+part+two');
    expect(error.body).toContain('[redacted]');
    expect(error.body).not.toContain('sk+secret+part+two');
  });

  it('as a body that is not JSON: the invalid error, its report and events never quote it', async () => {
    const { vendor, engine, traced } = await tracedScenario({
      // Short enough for the parser's message to quote it whole.
      respond: (entry) => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: entry.query.get('token') ?? '',
      }),
    });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/me'), retry: false });
    const run = read({ query: { token: 'SECRETTOKEN42' } }, { engine });
    const text = await shown(run, traced);
    const error = await rejection(run);
    expect(error.kind).toBe('invalid');
    expect(text).not.toContain('SECRETTOKEN42');
    // Nor does its cause, the parser's error (what a logger prints: message and stack).
    const cause = error.cause as Error;
    expect(cause.name).toBe('SyntaxError');
    expect(`${cause.message}\n${cause.stack}`).not.toContain('SECRETTOKEN42');
  });

  it('in a body the parser quotes cut short: no part of it is shown (the parser says where, not what)', async () => {
    const secret = 'sk_live_51Hx9QzL2eKpT7vYw3';
    const { vendor, engine, traced } = await tracedScenario({
      respond: (entry) => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: `{"key": ${entry.headers['x-api-key']}, "padding": "${'x'.repeat(200)}"}`,
      }),
    });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/me'), retry: false });
    const run = read({ headers: { 'x-api-key': secret } }, { engine });
    const text = await shown(run, traced);
    const error = await rejection(run);
    expect(error).toMatchObject({
      kind: 'invalid',
      message: "the response body is not valid JSON: Unexpected token 's'",
    });
    expect(text).not.toContain(secret.slice(0, 6));
    expect(String((error.cause as Error).stack)).not.toContain(secret.slice(0, 6));
  });

  it('in the status line (its reason phrase): the http error, its report and events never quote it', async () => {
    const { vendor, engine, traced } = await tracedScenario({
      respond: (entry) => ({
        status: 401,
        statusText: `invalid token ${entry.query.get('token')} / ${entry.headers.authorization}`,
        body: 'denied',
      }),
    });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/me'), retry: false });
    const run = read(
      { query: { token: 'QUERYSECRET' }, headers: { authorization: 'Bearer HEADERSECRET' } },
      { engine },
    );
    const text = await shown(run, traced);
    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'http', status: 401 });
    expect(error.message).toBe('GET 401 invalid token [redacted] / [redacted]');
    expect(text).not.toMatch(/QUERYSECRET|HEADERSECRET/);
  });

  it('in a cause of any shape: a validator’s thrown string, its issues, a nested cause, a fetch error', async () => {
    const secret = 'sk-live-deep-cause-0x9d';
    const { vendor, engine } = await startScenario({
      respond: (entry) => ({ status: 200, body: { echo: entry.query.get('token') } }),
    });
    const walk = (value: unknown, seen = new Set<unknown>()): string => {
      if (typeof value === 'string') return value;
      if (typeof value !== 'object' || value === null || seen.has(value)) return '';
      seen.add(value);
      const own = Object.getOwnPropertyNames(value).map((name) =>
        walk((value as Record<string, unknown>)[name], seen),
      );
      return own.join('\n');
    };
    const outputs = [
      // A validator that throws a string quoting what it saw.
      {
        '~standard': {
          version: 1 as const,
          vendor: 'hand',
          validate: (data: unknown) => {
            throw `bad echo ${JSON.stringify(data)}`;
          },
        },
      },
      // A validator error whose own cause quotes it.
      {
        '~standard': {
          version: 1 as const,
          vendor: 'hand',
          validate: (data: unknown) => {
            throw new Error('rejected', { cause: new Error(`saw ${JSON.stringify(data)}`) });
          },
        },
      },
      // zod, with an issue message quoting the value.
      z.object({ echo: z.string().refine(() => false, { error: (issue) => `not allowed: ${issue.input}` }) }),
      // An error carrying what it saw as a field of its own.
      {
        '~standard': {
          version: 1 as const,
          vendor: 'hand',
          validate: (data: unknown) => {
            throw Object.assign(new Error('invalid'), { input: data });
          },
        },
      },
      // A thrown instance of a class of its own (not an Error), quoting what it saw.
      {
        '~standard': {
          version: 1 as const,
          vendor: 'hand',
          validate: (data: unknown) => {
            throw new Rejection(`saw ${JSON.stringify(data)}`);
          },
        },
      },
      // Issues whose path items carry the input, nested deep.
      {
        '~standard': {
          version: 1 as const,
          vendor: 'hand',
          validate: (data: unknown) => ({
            issues: [
              { message: 'bad', path: [{ key: 'echo', input: { a: { b: { c: { d: { e: data } } } } } }] },
            ],
          }),
        },
      },
    ];
    for (const output of outputs) {
      const read = stitch({ name: uniqueKey('read'), url: vendor.url('/me'), retry: false, output });
      const error = await rejection(read({ query: { token: secret } }, { engine }));
      expect(error.kind).toBe('invalid');
      expect(walk(error)).not.toContain(secret);
      expect(walk(error)).toContain('[redacted]');
    }

    // A fetch (node-fetch's FetchError, say) whose message quotes the URL it was given, and one
    // that gives up on every address with an AggregateError.
    const fetches: Array<typeof fetch> = [
      async (url) => {
        throw new TypeError(`request to ${String(url)} failed, reason: socket hang up`);
      },
      async (url) => {
        throw new AggregateError([new Error(`connect to ${String(url)} refused`)], 'all addresses failed');
      },
    ];
    for (const [index, fetch] of fetches.entries()) {
      const read = stitch({ name: uniqueKey('read'), url: 'https://api.example.com/me', retry: false });
      const error = await rejection(read({ query: { token: secret } }, { engine: createEngine({ fetch }) }));
      expect(error.kind).toBe('network');
      expect(walk(error)).not.toContain(secret);
      expect((error.cause as Error).name).toBe(index === 0 ? 'TypeError' : 'AggregateError');
    }
  });

  it('in an input validator’s refusal quoting the input: nothing shows it, and nothing is sent', async () => {
    const secret = 'sk-live-input-check-0x4a';
    const { vendor, engine, traced } = await tracedScenario({});
    const quoting = (data: unknown) => `saw ${JSON.stringify(data)}`;
    const inputs = [
      // A thrown instance of a class of its own (not an Error), quoting what it saw.
      {
        '~standard': {
          version: 1 as const,
          vendor: 'hand',
          validate: (data: unknown) => {
            throw new Rejection(quoting(data));
          },
        },
      },
      // zod, with an issue message quoting the header it refuses.
      z.object({
        headers: z.object({
          authorization: z.string().refine(() => false, { error: (issue) => `not allowed: ${issue.input}` }),
        }),
      }),
      // A validator that throws an error quoting the whole input.
      {
        '~standard': {
          version: 1 as const,
          vendor: 'hand',
          validate: (data: unknown) => {
            throw new Error(quoting(data));
          },
        },
      },
      // Issues that carry the input itself.
      {
        '~standard': {
          version: 1 as const,
          vendor: 'hand',
          validate: (data: unknown) => ({
            issues: [{ message: quoting(data), path: [{ key: 'x', input: data }] }],
          }),
        },
      },
    ];
    const given = [
      { headers: { authorization: `Bearer ${secret}` } },
      { query: { token: secret } },
      // An input no request can be made of (a query value that is an object): its secrets still go.
      { query: { token: secret, page: { deep: true } } },
    ];
    for (const input of inputs) {
      for (const values of given) {
        const read = stitch({
          name: uniqueKey('read'),
          url: vendor.url('/me'),
          input: input as never,
          headers: { 'x-api-key': `${secret}-stitch` },
        });
        traced.length = 0;
        const run = read(values as never, { engine });
        const text = await shown(run, traced);
        const error = await rejection(run);
        expect(error.kind).toBe('invalid');
        expect(text).not.toContain('sk-live');
        expect(JSON.stringify(error.cause)).not.toContain('sk-live');
      }
    }
    expect(vendor.requests()).toBe(0);
  });

  it('added by a redirect hop: the error body echoing the URL it landed on never quotes it', async () => {
    const secret = 'sk-live-hop-token-0x7c';
    const { vendor, engine } = await startScenario({
      respond: (entry) =>
        entry.url.startsWith('/start')
          ? { status: 302, headers: { location: `/land?token=${secret}` }, body: '' }
          : { status: 400, body: `rejected ${entry.url}` },
    });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/start'), retry: false });
    const run = read({}, { engine });
    const text = await shown(run, []);
    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'http', status: 400, requests: 2 });
    expect(error.body).toBe('rejected /land?token=[redacted]');
    expect(text).not.toContain(secret);
    // The vendor got it in clear.
    expect(vendor.ledger[1]?.url).toBe(`/land?token=${secret}`);
  });

  it('across the cut of the error body: no part of it is kept', async () => {
    const secret = 'sk-live-straddling-the-cut-0x3f';
    const { vendor, engine } = await startScenario({
      // The credential starts 5 characters before the body is cut.
      respond: (entry) => ({
        status: 401,
        body: `${'x'.repeat(MAX_ERROR_BODY - 5)}${entry.query.get('token')}`,
      }),
    });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/me'), retry: false });
    const error = await rejection(read({ query: { token: secret } }, { engine }));
    expect(error.body).toHaveLength(MAX_ERROR_BODY);
    expect(error.body?.endsWith('x[reda')).toBe(true);
    expect(error.body).not.toContain(secret.slice(0, 5));
  });
});

describe('userinfo', () => {
  it('a redirect to a URL with credentials is refused, and no error names them', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script({
      status: 302,
      headers: { location: 'http://admin:sk-password-0x99@127.0.0.1:1/x' },
      body: '',
    });
    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/start'), retry: false });
    const run = read({}, { engine });
    const text = await shown(run, []);
    expect(await rejection(run)).toMatchObject({ kind: 'http', status: 302, requests: 1 });
    expect(text).not.toContain('sk-password-0x99');
  });
});
