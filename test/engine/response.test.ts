import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { MAX_ERROR_BODY } from '../../src/engine/errors';
import { BodyProblem, parseBody, readBody, readErrorBody, validate } from '../../src/engine/response';
import { stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { rejection as readRejection, startScenario } from '../helpers/runs';

const encoder = new TextEncoder();

/**
 * A hand-made body stream: it hands out `chunks`, then either ends or (with `endless`) keeps
 * producing `chunks[0]` forever. It counts pulls and records whether it was cancelled.
 */
function bodyStream(chunks: Uint8Array[], { endless = false } = {}) {
  const cancel = vi.fn();
  let pulls = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = chunks[pulls] ?? (endless ? chunks[0] : undefined);
        pulls += 1;
        if (chunk) controller.enqueue(chunk);
        else controller.close();
      },
      cancel,
    },
    { highWaterMark: 0 },
  );
  return { stream, cancel, pulls: () => pulls };
}

/** The error a promise rejects with, failing the test if it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('readBody', () => {
  it('reads a body under the limit', async () => {
    expect(await readBody(new Response('hello'), 100)).toBe('hello');
  });

  it('accepts a body of exactly maxBytes', async () => {
    expect(await readBody(new Response('12345'), 5)).toBe('12345');
  });

  it('reads an empty or absent body as the empty string', async () => {
    expect(await readBody(new Response(null), 10)).toBe('');
    expect(await readBody(new Response(''), 10)).toBe('');
  });

  it('decodes a multi-byte character split across chunks', async () => {
    const bytes = encoder.encode('café ☕');
    const { stream } = bodyStream([bytes.slice(0, 4), bytes.slice(4, 5), bytes.slice(5)]);
    expect(await readBody(new Response(stream), 100)).toBe('café ☕');
  });

  it('over the limit: throws a BodyProblem and cancels the stream instead of draining it', async () => {
    const { stream, cancel, pulls } = bodyStream([encoder.encode('0123456789')], { endless: true });
    const error = await rejection(readBody(new Response(stream), 25));
    expect(error).toBeInstanceOf(BodyProblem);
    expect((error as BodyProblem).message).toContain('25');
    expect(cancel).toHaveBeenCalledTimes(1);
    // It stopped at the chunk that crossed the limit: 3 chunks of 10 bytes, not an endless drain.
    expect(pulls()).toBeLessThanOrEqual(4);
  });
});

describe('parseBody', () => {
  it('parses JSON for JSON content types, with or without parameters or a +json suffix', () => {
    expect(parseBody('{"a":1}', 'application/json; charset=utf-8', 'json')).toEqual({ a: 1 });
    expect(parseBody('{"title":"x"}', 'application/problem+json', 'json')).toEqual({ title: 'x' });
    expect(parseBody('[1,2]', 'APPLICATION/JSON', 'json')).toEqual([1, 2]);
  });

  it('parses JSON when the response names no content type', () => {
    expect(parseBody('"s"', null, 'json')).toBe('s');
  });

  it('reads an empty body as null', () => {
    expect(parseBody('', 'application/json', 'json')).toBeNull();
  });

  it('refuses a non-JSON content type, naming it', () => {
    const run = () => parseBody('<html></html>', 'text/html; charset=utf-8', 'json');
    expect(run).toThrow(BodyProblem);
    expect(run).toThrow(/text\/html/);
  });

  it('refuses malformed JSON, keeping the parser error as issues', () => {
    let problem: unknown;
    try {
      parseBody('{"a":', 'application/json', 'json');
    } catch (error) {
      problem = error;
    }
    expect(problem).toBeInstanceOf(BodyProblem);
    expect((problem as BodyProblem).message).toMatch(/not valid JSON/);
    expect((problem as BodyProblem).issues).toBeInstanceOf(SyntaxError);
  });

  it('returns the text as is for responseType text, whatever the content type', () => {
    expect(parseBody('<b>hi</b>', 'text/html', 'text')).toBe('<b>hi</b>');
    expect(parseBody('', 'text/plain', 'text')).toBe('');
  });
});

describe('validate', () => {
  const User = z.object({ id: z.number(), name: z.string() });

  it("returns the schema's output (zod strips unknown keys)", async () => {
    expect(await validate(User, { id: 1, name: 'Ada', extra: true })).toEqual({ id: 1, name: 'Ada' });
  });

  it('rejects with a BodyProblem carrying the issues', async () => {
    const error = await rejection(validate(User, { id: 'one', name: 'Ada' }));
    expect(error).toBeInstanceOf(BodyProblem);
    const issues = (error as BodyProblem).issues as Array<{ message: string; path: unknown[] }>;
    expect(Array.isArray(issues)).toBe(true);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toEqual(['id']);
    expect((error as BodyProblem).message).toContain(issues[0]?.message);
  });

  it('awaits an async validator', async () => {
    const Even = z.number().refine(async (n) => n % 2 === 0, 'must be even');
    expect(await validate(Even, 4)).toBe(4);
    const error = await rejection(validate(Even, 3));
    expect((error as BodyProblem).message).toContain('must be even');
  });
});

describe('readErrorBody', () => {
  it('returns a short error body whole', async () => {
    expect(await readErrorBody(new Response('{"error":"nope"}', { status: 400 }), MAX_ERROR_BODY)).toBe(
      '{"error":"nope"}',
    );
  });

  it('cuts a longer error body to its limit', async () => {
    const body = 'e'.repeat(MAX_ERROR_BODY * 2);
    const text = await readErrorBody(new Response(body, { status: 502 }), MAX_ERROR_BODY);
    expect(text).toHaveLength(MAX_ERROR_BODY);
    expect(text).toBe(body.slice(0, MAX_ERROR_BODY));
  });

  it('keeps the start of a body far past the limit and cancels the rest instead of draining it', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('<html>'.repeat(1_000)));
      },
      cancel() {
        cancelled = true;
      },
    });
    const text = await readErrorBody(new Response(stream, { status: 502 }), MAX_ERROR_BODY);
    expect(text).toHaveLength(MAX_ERROR_BODY);
    expect(text?.startsWith('<html><html>')).toBe(true);
    expect(cancelled).toBe(true);
  });

  it('never throws: a body that errors mid-read gives undefined', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.error(new Error('connection reset'));
      },
    });
    expect(await readErrorBody(new Response(stream, { status: 500 }), MAX_ERROR_BODY)).toBeUndefined();
  });
});

describe('a fetch without body streams (React Native’s polyfill)', () => {
  /**
   * What React Native's `fetch` answers: the body read whole up front, a `Response` with `text()`
   * and no `body` property at all. Backed by Node's fetch, so the vendor is real.
   */
  const polyfilled: typeof fetch = async (url, init) => {
    const real = await fetch(url, init);
    const text = await real.text();
    const { status, statusText, ok, headers, redirected, type } = real;
    return {
      status,
      statusText,
      ok,
      headers,
      redirected,
      type,
      url: real.url,
      text: async () => text,
    } as Response;
  };

  it('reads the data, an error body, and still refuses a body over maxBodyBytes', async () => {
    const { vendor, engine } = await startScenario({ engine: { fetch: polyfilled } });
    const read = stitch({
      name: uniqueKey('read'),
      url: vendor.url('/items'),
      retry: false,
      maxBodyBytes: 64,
    });
    vendor.script(
      { body: { items: ['ünï', 2] } },
      { status: 404, body: { error: 'no such list' } },
      { body: { items: 'x'.repeat(100) } },
    );
    await expect(read({}, { engine })).resolves.toEqual({ items: ['ünï', 2] });
    expect(await readRejection(read({}, { engine }))).toMatchObject({
      kind: 'http',
      status: 404,
      body: '{"error":"no such list"}',
    });
    const tooBig = await readRejection(read({}, { engine }));
    expect(tooBig).toMatchObject({ kind: 'invalid' });
    expect(tooBig.message).toContain('exceeds maxBodyBytes (64)');
    expect(vendor.requests()).toBe(3);
  });
});
