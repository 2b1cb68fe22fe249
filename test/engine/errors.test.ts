import vm from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import {
  configError,
  isAbortError,
  isStitchError,
  MAX_ERROR_BODY,
  reasonMessage,
  StitchError,
  type StitchErrorInit,
  type StitchErrorKind,
} from '../../src/engine/errors';

const MARKER = Symbol.for('stitch.error');

describe('StitchError', () => {
  it.each<[StitchErrorKind, string]>([
    ['aborted', 'AbortError'],
    ['timeout', 'TimeoutError'],
    ['http', 'StitchError'],
    ['network', 'StitchError'],
    ['circuit-open', 'StitchError'],
    ['rate-limited', 'StitchError'],
    ['invalid', 'StitchError'],
    ['config', 'StitchError'],
  ])("kind '%s' is named %s", (kind, name) => {
    // Each kind with the field it requires, so the loop compiles for any of them.
    const error = new StitchError({
      kind,
      message: `a ${kind}`,
      status: 500,
      phase: 'each',
      retryAfter: 0,
      field: 'f',
    } as StitchErrorInit);
    expect(error.name).toBe(name);
    expect(error.kind).toBe(kind);
    expect(error.message).toBe(`a ${kind}`);
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(StitchError);
  });

  it('defaults its counters and flags', () => {
    const error = new StitchError({ kind: 'network', message: 'reset' });
    expect(error).toMatchObject({
      attempts: 0,
      requests: 0,
      dispatched: false,
      retryable: false,
      ambiguous: false,
      phase: undefined,
      status: undefined,
      body: undefined,
      retryAfter: undefined,
      field: undefined,
      url: undefined,
      stitch: undefined,
      idempotencyKey: undefined,
    });
    expect('cause' in error).toBe(false);
  });

  it('keeps every detail it is given, and the cause by identity', () => {
    const cause = new TypeError('fetch failed');
    const details = {
      phase: 'each',
      status: 503,
      retryAfter: 1_500,
      attempts: 3,
      requests: 2,
      retryable: true,
      ambiguous: true,
      url: 'https://api.example.com/x',
      stitch: 'getX',
      idempotencyKey: 'k-1',
    } as const;
    const error = new StitchError({ kind: 'timeout', message: 'slow', cause, ...details });
    expect(error.cause).toBe(cause);
    expect(error).toMatchObject(details);
  });

  it('derives dispatched from requests', () => {
    expect(new StitchError({ kind: 'aborted', message: 'x', requests: 0, attempts: 1 }).dispatched).toBe(
      false,
    );
    expect(new StitchError({ kind: 'aborted', message: 'x', requests: 1 }).dispatched).toBe(true);
    expect(new StitchError({ kind: 'http', status: 500, message: 'x', requests: 3 }).dispatched).toBe(true);
  });

  it('cuts the body to MAX_ERROR_BODY characters', () => {
    const long = new StitchError({
      kind: 'http',
      status: 500,
      message: 'x',
      body: 'b'.repeat(MAX_ERROR_BODY + 500),
    });
    expect(long.body).toHaveLength(MAX_ERROR_BODY);
    const short = new StitchError({ kind: 'http', status: 500, message: 'x', body: 'short' });
    expect(short.body).toBe('short');
  });
});

describe('isStitchError', () => {
  it('is true for ours and false for anything else', () => {
    expect(isStitchError(new StitchError({ kind: 'http', status: 500, message: 'x' }))).toBe(true);
    expect(isStitchError(new Error('x'))).toBe(false);
    expect(isStitchError(new DOMException('x', 'AbortError'))).toBe(false);
    expect(isStitchError(null)).toBe(false);
    expect(isStitchError(undefined)).toBe(false);
    expect(isStitchError('StitchError')).toBe(false);
    expect(isStitchError({ name: 'StitchError', kind: 'http' })).toBe(false);
    expect(isStitchError({ [MARKER]: 'yes' })).toBe(false);
  });

  it('recognizes an error from another realm by its marker', () => {
    const foreign: unknown = vm.runInNewContext(
      'const e = new Error("from elsewhere"); e[Symbol.for("stitch.error")] = true; e.kind = "aborted"; e',
    );
    expect(foreign instanceof Error).toBe(false);
    expect(isStitchError(foreign)).toBe(true);
    expect(isAbortError(foreign)).toBe(true);
  });

  it('recognizes a plain object carrying the marker', () => {
    const plain = { [MARKER]: true, kind: 'http', message: 'x' };
    expect(isStitchError(plain)).toBe(true);
    expect(isAbortError(plain)).toBe(false);
  });

  it('works across duplicate copies of the module, where instanceof fails', async () => {
    vi.resetModules();
    const copy = await import('../../src/engine/errors');
    expect(copy.StitchError).not.toBe(StitchError);
    const theirs = new copy.StitchError({ kind: 'aborted', message: 'x' });
    expect(theirs instanceof StitchError).toBe(false);
    expect(isStitchError(theirs)).toBe(true);
    expect(isAbortError(theirs)).toBe(true);
    expect(copy.isStitchError(new StitchError({ kind: 'http', status: 500, message: 'x' }))).toBe(true);
  });
});

describe('isAbortError', () => {
  it('is true for our cancellations only, not our other kinds', () => {
    expect(isAbortError(new StitchError({ kind: 'aborted', message: 'x' }))).toBe(true);
    expect(isAbortError(new StitchError({ kind: 'timeout', message: 'x', phase: 'total' }))).toBe(false);
    expect(isAbortError(new StitchError({ kind: 'network', message: 'x' }))).toBe(false);
  });

  it('is true for a platform AbortError and false for a TimeoutError', () => {
    expect(isAbortError(new DOMException('stop', 'AbortError'))).toBe(true);
    expect(isAbortError(AbortSignal.abort().reason)).toBe(true);
    expect(isAbortError(new DOMException('late', 'TimeoutError'))).toBe(false);
  });

  it('is false for non-errors and for other errors', () => {
    expect(isAbortError(new Error('aborted'))).toBe(false);
    expect(isAbortError('AbortError')).toBe(false);
    expect(isAbortError(null)).toBe(false);
    expect(isAbortError(undefined)).toBe(false);
  });
});

describe('reasonMessage', () => {
  it("uses an error's message, a string itself, or a generic line", () => {
    expect(reasonMessage(new Error('user navigated away'))).toBe('user navigated away');
    expect(reasonMessage(new DOMException('superseded', 'AbortError'))).toBe('superseded');
    expect(reasonMessage('route changed')).toBe('route changed');
    expect(reasonMessage({ message: 42 })).toBe('42');
    expect(reasonMessage(undefined)).toBe('The operation was aborted');
    expect(reasonMessage(7)).toBe('The operation was aborted');
  });
});

describe('configError', () => {
  it('is a config StitchError whose message names the stitch and the field', () => {
    const error = configError('getUser', 'retry.attempts', 'must be an integer ≥ 1');
    expect(error.kind).toBe('config');
    expect(error.field).toBe('retry.attempts');
    expect(error.stitch).toBe('getUser');
    expect(error.message).toBe("stitch 'getUser': `retry.attempts` must be an integer ≥ 1");
  });

  it('leaves the stitch out of the message when there is no name yet', () => {
    expect(configError(undefined, 'name', 'is missing').message).toBe('`name` is missing');
  });
});
