import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  fanOut,
  headersShown,
  redactUrl,
  SECRET_HEADERS,
  SECRET_QUERY,
  type StitchEvent,
} from '../../src/engine/events';
import { createEngine, stitch } from '../../src/index';

const REDACTED = '[redacted]';
const secrets = (...extra: string[]) => new Set([...SECRET_HEADERS, ...extra]);

const event: StitchEvent = { type: 'start', method: 'GET', url: 'https://x', at: 0, run: 'r1', stitch: 's' };

/** Title-Cases a header name, as a client might write it. */
const titleCase = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

/** A request event's headers for a call sending headers of its own. */
const redactHeaders = (headers: Headers, secret: ReadonlySet<string>) => headersShown(secret)(headers, false);

describe('headersShown', () => {
  it.each(SECRET_HEADERS)('redacts %s, however the caller spelled it', (name) => {
    for (const spelling of [name, name.toUpperCase(), titleCase(name)]) {
      const out = redactHeaders(
        new Headers({ [spelling]: 'top-secret', accept: 'application/json' }),
        secrets(),
      );
      expect(out[name]).toBe(REDACTED);
      expect(out.accept).toBe('application/json');
      expect(JSON.stringify(out)).not.toContain('top-secret');
    }
  });

  it('redacts configured names and leaves the input headers untouched', () => {
    const headers = new Headers({ 'X-Tenant-Secret': 's3', 'X-Request-Id': 'abc' });
    const out = redactHeaders(headers, secrets('x-tenant-secret'));
    expect(out).toEqual({ 'x-tenant-secret': REDACTED, 'x-request-id': 'abc' });
    expect(headers.get('x-tenant-secret')).toBe('s3');
  });

  it("shows a stitch's own headers as one frozen copy, redacted by each engine's own names", () => {
    const own = new Headers({ 'X-Tenant-Secret': 's3', accept: 'application/json' });
    const plain = headersShown(secrets());
    const shown = plain(own, true);
    expect(shown).toEqual({ 'x-tenant-secret': 's3', accept: 'application/json' });
    expect(plain(own, true)).toBe(shown);
    expect(Object.isFrozen(shown)).toBe(true);
    expect(headersShown(secrets('x-tenant-secret'))(own, true)).toEqual({
      'x-tenant-secret': REDACTED,
      accept: 'application/json',
    });
  });
});

describe('redactUrl', () => {
  it('redacts configured query parameters, case-insensitively, and keeps the others', () => {
    const url = 'https://api.example.com/search?q=ada&Token=abc&page=2&token=def';
    const out = new URL(redactUrl(url, secrets('token')));
    expect(out.searchParams.getAll('token')).toEqual([REDACTED]);
    expect(out.searchParams.getAll('Token')).toEqual([REDACTED]);
    expect(out.searchParams.get('q')).toBe('ada');
    expect(out.searchParams.get('page')).toBe('2');
    expect(out.pathname).toBe('/search');
    expect(out.toString()).not.toContain('abc');
    expect(out.toString()).not.toContain('def');
  });

  it('returns the very same string when nothing is secret', () => {
    const url = 'https://api.example.com/search?q=a%20b&page=2';
    expect(redactUrl(url, secrets('token'))).toBe(url);
  });
});

describe('fanOut', () => {
  it('returns undefined when there is no sink, so tracing costs nothing', () => {
    expect(fanOut([])).toBeUndefined();
  });

  it('isolates a throwing sink: the next one still receives the event', () => {
    const seen: StitchEvent[] = [];
    const emit = fanOut([
      {
        handle() {
          throw new Error('broken sink');
        },
      },
      { handle: (e) => seen.push(e) },
    ]);
    expect(() => emit?.(event)).not.toThrow();
    expect(seen).toEqual([event]);
    expect(seen[0]).toBe(event);
  });

  it('delivers to every sink in order', () => {
    const order: string[] = [];
    const emit = fanOut([{ handle: () => order.push('a') }, { handle: () => order.push('b') }]);
    emit?.(event);
    emit?.(event);
    expect(order).toEqual(['a', 'b', 'a', 'b']);
  });
});

describe('async observers', () => {
  it('a sink or a hook whose promise rejects changes nothing and leaves no unhandled rejection', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    onTestFinished(() => {
      process.off('unhandledRejection', unhandled);
    });
    const engine = createEngine({
      fetch: async () => new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } }),
      trace: {
        async handle() {
          throw new Error('the collector is down');
        },
      },
    });
    const read = stitch({
      name: 'read',
      url: 'https://api.example.com/read',
      hooks: {
        async onResponse() {
          throw new Error('a broken hook');
        },
      },
    });
    await expect(read(undefined, { engine })).resolves.toEqual({ ok: true });
    // Node reports an unhandled rejection once the microtasks of the task that made it have run.
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).not.toHaveBeenCalled();
  });
});

describe('redactUrl defaults', () => {
  it('strips credentials and redacts common secret query names', () => {
    const secret = new Set(SECRET_QUERY);
    const url = redactUrl('https://user:pa55@api.test/x?access_token=t0k&page=2', secret);
    expect(url).not.toMatch(/pa55|t0k|user/);
    expect(url).toContain('page=2');
  });
});
