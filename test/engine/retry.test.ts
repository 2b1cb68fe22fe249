import { describe, expect, it, vi } from 'vitest';
import { StitchError, type StitchErrorDetails, type StitchErrorInit } from '../../src/engine/errors';
import {
  backoffDelay,
  createRetryBudget,
  isRetryable,
  nextDelay,
  normalizeRetry,
  parseRetryAfter,
  type RetryOptions,
} from '../../src/engine/retry';
import { createManualClock } from '../../src/testing/manualClock';
import { thrownBy } from '../helpers/throws';

const error = (details: Omit<StitchErrorDetails, 'message'>) =>
  new StitchError({ message: 'x', ...details } as StitchErrorInit);
const get = (value?: number | RetryOptions | false) => normalizeRetry(value, 'GET', false, 'search');
/** Just below 1: the top of what Math.random can return. */
const almostOne = 1 - Number.EPSILON;

describe('normalizeRetry', () => {
  it('gives reads 3 attempts and writes 1 unless they carry an idempotency key', () => {
    expect(get().attempts).toBe(3);
    expect(normalizeRetry(undefined, 'head', false, 's').attempts).toBe(3);
    expect(normalizeRetry(undefined, 'POST', false, 's').attempts).toBe(1);
    expect(normalizeRetry(undefined, 'POST', true, 's').attempts).toBe(3);
    expect(normalizeRetry(undefined, 'DELETE', false, 's').attempts).toBe(1);
  });

  it('forces a write without a key to 1 attempt whatever is configured', () => {
    expect(normalizeRetry({ attempts: 5 }, 'POST', false, 's').attempts).toBe(1);
    expect(normalizeRetry(5, 'PUT', false, 's').attempts).toBe(1);
    expect(normalizeRetry(5, 'POST', true, 's').attempts).toBe(5);
  });

  it('reads a number as attempts and false as a single attempt', () => {
    expect(get(5).attempts).toBe(5);
    expect(get(false).attempts).toBe(1);
  });

  it('fills in every default', () => {
    const policy = get();
    expect(policy.backoff).toEqual({ base: 100, max: 10_000, factor: 2, jitter: 'full' });
    expect(policy.retryAfterMax).toBe(60_000);
    expect(policy.budget).toEqual({ ratio: 0.2, floor: 10, window: 10_000, part: expect.any(Object) });
    expect(get({ retryAfter: false, budget: false })).toMatchObject({
      retryAfterMax: undefined,
      budget: undefined,
    });
  });

  it.each([
    [{ attempts: 0 }, 'retry.attempts'],
    [{ attempts: 1.5 }, 'retry.attempts'],
    [{ attempts: Number.POSITIVE_INFINITY }, 'retry.attempts'],
    [{ backoff: { base: -1 } }, 'retry.backoff.base'],
    [{ backoff: { max: Number.NaN } }, 'retry.backoff.max'],
    [{ backoff: { factor: 0.5 } }, 'retry.backoff.factor'],
    [{ backoff: { jitter: 'half' as 'full' } }, 'retry.backoff.jitter'],
    [{ retryAfter: { max: -1 } }, 'retry.retryAfter.max'],
    [{ budget: { ratio: 2 } }, 'retry.budget.ratio'],
    [{ budget: { floor: -1 } }, 'retry.budget.floor'],
    [{ budget: { window: 0 } }, 'retry.budget.window'],
    [{ on: [99] }, 'retry.on'],
  ] satisfies Array<[RetryOptions, string]>)('rejects %j naming %s', (options, field) => {
    // A write without a key too: bad config is a bug even where attempts are forced to 1.
    const thrown = thrownBy(() => normalizeRetry(options, 'POST', false, 'charge'));
    expect(thrown).toBeInstanceOf(StitchError);
    expect(thrown).toMatchObject({ kind: 'config', field, stitch: 'charge' });
    expect((thrown as Error).message).toContain(field);
  });

  it('rejects a bare attempts number that is not an integer ≥ 1', () => {
    expect(() => get(0)).toThrow(expect.objectContaining({ kind: 'config', field: 'retry.attempts' }));
  });
});

describe('isRetryable', () => {
  const policy = get();

  it('never retries a caller abort, even when the predicate says yes', () => {
    const always = get({ on: () => true });
    expect(isRetryable(error({ kind: 'aborted', cause: new Error('left') }), always)).toBe(false);
  });

  it('never retries a total timeout, an open circuit, an invalid body or a config error', () => {
    const always = get({ on: () => true });
    for (const e of [
      error({ kind: 'timeout', phase: 'total' }),
      error({ kind: 'circuit-open' }),
      error({ kind: 'invalid' }),
      error({ kind: 'config' }),
    ]) {
      expect(isRetryable(e, always), e.kind).toBe(false);
    }
  });

  it('retries by default network errors, per-attempt timeouts and transient statuses', () => {
    expect(isRetryable(error({ kind: 'network' }), policy)).toBe(true);
    expect(isRetryable(error({ kind: 'timeout', phase: 'each' }), policy)).toBe(true);
    for (const status of [408, 429, 500, 502, 503, 504]) {
      expect(isRetryable(error({ kind: 'http', status }), policy), String(status)).toBe(true);
    }
    expect(isRetryable(error({ kind: 'rate-limited', status: 429 }), policy)).toBe(true);
  });

  it('does not retry a client error or a local throttle refusal', () => {
    expect(isRetryable(error({ kind: 'http', status: 404 }), policy)).toBe(false);
    expect(isRetryable(error({ kind: 'http', status: 501 }), policy)).toBe(false);
    expect(isRetryable(error({ kind: 'rate-limited' }), policy)).toBe(false);
  });

  it('takes a custom status list instead of the default statuses', () => {
    const teapot = get({ on: [418] });
    expect(isRetryable(error({ kind: 'http', status: 418 }), teapot)).toBe(true);
    expect(isRetryable(error({ kind: 'http', status: 503 }), teapot)).toBe(false);
    expect(isRetryable(error({ kind: 'network' }), teapot)).toBe(true);
  });

  it('hands the error to a predicate', () => {
    const only502 = get({ on: (e) => e.status === 502 });
    expect(isRetryable(error({ kind: 'http', status: 502 }), only502)).toBe(true);
    expect(isRetryable(error({ kind: 'network' }), only502)).toBe(false);
  });
});

describe('backoffDelay', () => {
  const backoff = get().backoff;

  it('draws below a cap that doubles from base', () => {
    expect(backoffDelay(1, backoff, () => 0)).toBe(0);
    expect(backoffDelay(1, backoff, () => 0.5)).toBe(50);
    expect(backoffDelay(3, backoff, () => 0.5)).toBe(200);
    for (const retry of [1, 2, 3, 4]) {
      const cap = 100 * 2 ** (retry - 1);
      expect(backoffDelay(retry, backoff, () => 0.999)).toBeCloseTo(0.999 * cap);
      expect(backoffDelay(retry, backoff, () => almostOne)).toBeLessThan(cap);
    }
  });

  it('never exceeds max, however many retries', () => {
    expect(backoffDelay(8, backoff, () => almostOne)).toBeLessThan(10_000);
    expect(backoffDelay(8, backoff, () => 0.5)).toBe(5_000);
    expect(backoffDelay(5_000, backoff, () => 0.5)).toBe(5_000);
    expect(backoffDelay(5_000, { ...backoff, base: 0 }, () => 0.5)).toBe(0);
  });

  it("waits the cap itself with jitter 'none'", () => {
    const none = { ...backoff, jitter: 'none' as const };
    expect([1, 2, 3, 8].map((retry) => backoffDelay(retry, none, () => 0))).toEqual([100, 200, 400, 10_000]);
  });
});

describe('parseRetryAfter', () => {
  // Mid-second on purpose: an HTTP-date has whole seconds only.
  const now = Date.UTC(2030, 0, 1, 12, 0, 0, 250);

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date relative to now, to the second, in each of its three forms, without Date.parse', () => {
    // Date.parse need read nothing but ISO strings and its own prints (a strict engine's reads no more).
    const parse = vi.spyOn(Date, 'parse').mockReturnValue(Number.NaN);
    try {
      expect(parseRetryAfter(new Date(now + 5_000).toUTCString(), now)).toBe(4_750);
      expect(parseRetryAfter('Tue Jan  1 12:00:10 2030', now)).toBe(9_750);
      // asctime's day may be zero-padded too (RFC 9110: 2DIGIT / ( SP DIGIT )).
      expect(parseRetryAfter('Tue Jan 01 12:00:10 2030', now)).toBe(9_750);
      expect(parseRetryAfter('Tuesday, 01-Jan-30 12:00:20 GMT', now)).toBe(19_750);
    } finally {
      parse.mockRestore();
    }
  });

  it('reads a date in the past as 0', () => {
    expect(parseRetryAfter(new Date(now - 60_000).toUTCString(), now)).toBe(0);
  });

  it.each([
    null,
    undefined,
    '',
    'soon',
    '-5',
    '1.5',
    '1e3',
    '2030-01-02',
    'Fri, 99 Jan 2030 00:00:00 GMT',
    // Bad HTTP-dates that Date.parse reads as some date, past or far ahead.
    'Mon, 1',
    'Wed 12',
    'Mon 2099',
    'Fri, 2099',
    'Sun, 30 Feb 2099 00:00:00 GMT',
    'Tue, 01 Jan 2030 25:00:00 GMT',
    'Tue, 01 Jan 2030 12:00:10',
  ])('ignores %j', (header) => {
    expect(parseRetryAfter(header, now)).toBeUndefined();
  });

  it('reads a date a year away as it is, for nextDelay to cap', () => {
    const yearAway = parseRetryAfter(new Date(now + 365 * 86_400_000).toUTCString(), now);
    expect(yearAway).toBeGreaterThan(365 * 86_400_000 - 1_000);
    expect(nextDelay({ retry: 1, policy: get(), retryAfter: yearAway, remaining: Infinity })).toEqual({
      delay: 60_000,
    });
  });
});

describe('nextDelay', () => {
  const policy = get();

  it('uses Retry-After when given, else backoff', () => {
    expect(
      nextDelay({ retry: 1, policy, retryAfter: 3_000, remaining: Infinity, random: () => 0.5 }),
    ).toEqual({
      delay: 3_000,
    });
    expect(
      nextDelay({ retry: 2, policy, retryAfter: undefined, remaining: Infinity, random: () => 0.5 }),
    ).toEqual({ delay: 100 });
  });

  it('ignores Retry-After when the policy does', () => {
    const ignoring = get({ retryAfter: false });
    expect(
      nextDelay({ retry: 1, policy: ignoring, retryAfter: 3_000, remaining: Infinity, random: () => 0.5 }),
    ).toEqual({ delay: 50 });
  });

  it('caps Retry-After at retryAfter.max', () => {
    const capped = get({ retryAfter: { max: 2_000 } });
    expect(nextDelay({ retry: 1, policy: capped, retryAfter: 30_000, remaining: Infinity })).toEqual({
      delay: 2_000,
    });
  });

  it('gives up rather than sleep past the total deadline', () => {
    expect(nextDelay({ retry: 1, policy, retryAfter: 5_000, remaining: 4_000 })).toEqual({
      giveUp: 'deadline',
    });
    // Waiting exactly what is left would leave the next attempt no time at all.
    expect(nextDelay({ retry: 1, policy, retryAfter: 4_000, remaining: 4_000 })).toEqual({
      giveUp: 'deadline',
    });
    expect(nextDelay({ retry: 1, policy, retryAfter: 3_999, remaining: 4_000 })).toEqual({ delay: 3_999 });
    expect(nextDelay({ retry: 3, policy, retryAfter: undefined, remaining: 300, random: () => 0.9 })).toEqual(
      {
        giveUp: 'deadline',
      },
    );
  });
});

describe('createRetryBudget', () => {
  const budget = { ratio: 0.2, floor: 10, window: 10_000 };
  const spend = (retryBudget: ReturnType<typeof createRetryBudget>, key: string) => {
    let allowed = 0;
    while (retryBudget.tryRetry(key, budget)) allowed++;
    return allowed;
  };
  const record = (retryBudget: ReturnType<typeof createRetryBudget>, key: string, calls: number) => {
    for (let i = 0; i < calls; i++) retryBudget.recordCall(key, budget);
  };

  it('allows floor + ratio × calls retries, then refuses', () => {
    const retryBudget = createRetryBudget(createManualClock(1_700_000_000_000));
    record(retryBudget, 'api.example.com', 100);
    expect(spend(retryBudget, 'api.example.com')).toBe(30);
    expect(retryBudget.tryRetry('api.example.com', budget)).toBe(false);
  });

  it('keeps keys apart', () => {
    const retryBudget = createRetryBudget(createManualClock());
    record(retryBudget, 'a', 100);
    expect(spend(retryBudget, 'b')).toBe(10);
    expect(spend(retryBudget, 'a')).toBe(30);
  });

  it('lets old calls and retries fall out of the window', async () => {
    const clock = createManualClock();
    const retryBudget = createRetryBudget(clock);
    record(retryBudget, 'k', 50);
    await clock.advance(6_000);
    record(retryBudget, 'k', 50);
    expect(spend(retryBudget, 'k')).toBe(30);

    // t = 10_000: the first 50 calls have left the window; the 30 retries at t = 6_000 have not.
    await clock.advance(4_000);
    expect(spend(retryBudget, 'k')).toBe(0);
    record(retryBudget, 'k', 50);
    expect(spend(retryBudget, 'k')).toBe(0); // 10 + 0.2 × 100 = 30 allowed, 30 spent

    // t = 17_000: everything from t = 6_000 is gone; only the 50 calls at t = 10_000 count.
    await clock.advance(7_000);
    expect(spend(retryBudget, 'k')).toBe(20);

    // t = 40_000: a quiet key still gets its floor.
    await clock.advance(23_000);
    expect(spend(retryBudget, 'k')).toBe(10);
  });

  it('sets no timer', () => {
    const clock = createManualClock();
    const retryBudget = createRetryBudget(clock);
    record(retryBudget, 'k', 10);
    spend(retryBudget, 'k');
    expect(clock.pending()).toBe(0);
  });
});
