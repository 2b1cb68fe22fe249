import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { isStitchError } from '../../src/engine/errors';
import {
  IDEMPOTENCY_HEADER,
  idempotencyKeyFor,
  mintKey,
  normalizeIdempotency,
  RECORD_TTL,
} from '../../src/engine/idempotency';
import type { StitchInput } from '../../src/engine/request';

/** The config error `fn` throws, failing the test otherwise. */
function configField(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (isStitchError(error) && error.kind === 'config') return error.field;
    throw error;
  }
  throw new Error('expected a config StitchError');
}

describe('normalizeIdempotency', () => {
  it('is off for undefined and false', () => {
    expect(normalizeIdempotency(undefined, 's')).toBeUndefined();
    expect(normalizeIdempotency(false, 's')).toBeUndefined();
  });

  it('uses the Idempotency-Key header for true', () => {
    expect(IDEMPOTENCY_HEADER).toBe('Idempotency-Key');
    expect(normalizeIdempotency(true, 's')).toEqual({
      header: 'Idempotency-Key',
      keyOf: undefined,
      ttl: RECORD_TTL,
    });
  });

  it('keeps keyOf and a custom header', () => {
    const keyOf = (input: StitchInput) => String(input.params?.orderId);
    expect(normalizeIdempotency({ keyOf, header: 'X-Request-Key' }, 's')).toEqual({
      header: 'X-Request-Key',
      keyOf,
      ttl: RECORD_TTL,
    });
    expect(normalizeIdempotency({}, 's')).toEqual({
      header: IDEMPOTENCY_HEADER,
      keyOf: undefined,
      ttl: RECORD_TTL,
    });
  });

  it('refuses null and other non-objects, naming the option', () => {
    for (const bad of [null, 'yes', 1]) {
      expect(() => normalizeIdempotency(bad as never, 's')).toThrow(
        expect.objectContaining({ kind: 'config', field: 'idempotency' }),
      );
    }
  });

  it('refuses a keyOf that is not a function and a header that is not a header name', () => {
    expect(configField(() => normalizeIdempotency({ keyOf: 'orderId' as never }, 's'))).toBe(
      'idempotency.keyOf',
    );
    expect(configField(() => normalizeIdempotency({ header: 'Idempotency Key' }, 's'))).toBe(
      'idempotency.header',
    );
    expect(configField(() => normalizeIdempotency({ header: '' }, 's'))).toBe('idempotency.header');
  });
});

describe('idempotencyKeyFor', () => {
  const input: StitchInput = { params: { orderId: 'o-42' } };

  it("prefers the caller's key, even when the stitch has no policy", () => {
    const keyOf = vi.fn(() => 'derived');
    expect(
      idempotencyKeyFor({ header: IDEMPOTENCY_HEADER, keyOf, ttl: RECORD_TTL }, input, 'caller-key'),
    ).toBe('caller-key');
    expect(keyOf).not.toHaveBeenCalled();
    expect(idempotencyKeyFor(undefined, input, 'caller-key')).toBe('caller-key');
  });

  it('refuses a key with a control character, which Node’s fetch would refuse only as it sends', () => {
    for (const key of ['a\x01b', 'esc\x1b', 'del\x7f', 'line\nbreak']) {
      expect(() => idempotencyKeyFor(undefined, input, key)).toThrow(/without control characters/);
    }
  });

  it('gives no key without a policy or a caller key', () => {
    expect(idempotencyKeyFor(undefined, input, undefined)).toBeUndefined();
  });

  it('derives the key from the input with keyOf', () => {
    const policy = normalizeIdempotency({ keyOf: (i: StitchInput) => `order-${i.params?.orderId}` }, 's');
    expect(idempotencyKeyFor(policy, input, undefined)).toBe('order-o-42');
    expect(idempotencyKeyFor(policy, input, undefined)).toBe('order-o-42');
  });

  it('mints a fresh UUID per call for idempotency: true', () => {
    const policy = normalizeIdempotency<StitchInput>(true, 's');
    const first = idempotencyKeyFor(policy, input, undefined);
    const second = idempotencyKeyFor(policy, input, undefined);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second).not.toBe(first);
  });
});

/** 100 keys from `mintKey`, all distinct, each 32 hex digits (the form without `randomUUID`). */
function expectDistinctHexKeys() {
  const keys = new Set(Array.from({ length: 100 }, () => mintKey()));
  expect(keys.size).toBe(100);
  for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
}

describe('mintKey', () => {
  it('mints distinct keys, and still does where crypto.randomUUID is missing (a plain-http page)', () => {
    expect(mintKey()).not.toBe(mintKey());
    vi.stubGlobal('crypto', { getRandomValues: crypto.getRandomValues.bind(crypto) });
    onTestFinished(() => void vi.unstubAllGlobals());
    expectDistinctHexKeys();
  });

  it('mints distinct keys where there is no crypto at all (React Native without a polyfill)', () => {
    vi.stubGlobal('crypto', undefined);
    onTestFinished(() => void vi.unstubAllGlobals());
    expectDistinctHexKeys();
  });
});
