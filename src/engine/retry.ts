/** Retry policy: what may be retried, how long to wait, how many retries a key may spend. No timers:
 * the attempt loop that calls these lives in the engine. */
import type { Clock } from './clock';
import type { HttpMethod, RetryPair, RetryValue } from './definition';
import { checkKnown, configError, StitchError, type StitchErrorInit, type StitchErrorKind } from './errors';
import type { Part } from './parts';
import { isRecord } from './record';
import type { BudgetLimits } from './shared';

/** Exponential backoff between attempts. */
export interface BackoffOptions {
  /** Cap of the delay before the first retry, in ms. @default 100 */
  base?: number | undefined;
  /** Cap of any backoff delay, in ms. @default 10_000 */
  max?: number | undefined;
  /** How much the cap grows per retry (≥ 1). @default 2 */
  factor?: number | undefined;
  /** `'full'`: a random wait below the cap, so clients that failed together do not retry together;
   * `'none'`: the cap itself. @default 'full' */
  jitter?: 'full' | 'none' | undefined;
}

/**
 * A per-key budget: retries ≤ `floor` + `ratio` × calls over the last `window`, counted in tenths
 * of it (memory per key is fixed): a call or retry leaves the count with its tenth, so the window
 * slides a tenth at a time, and one may leave it up to a tenth of `window` early.
 */
export interface RetryBudgetOptions {
  /** Retries allowed per call made in the window, 0–1. @default 0.2 */
  ratio?: number | undefined;
  /** Retries always allowed in the window, so a quiet key can still retry. @default 10 */
  floor?: number | undefined;
  /** Length of the sliding window, in ms. @default 10_000 */
  window?: number | undefined;
}

/** The `retry` option of a stitch. */
export interface RetryOptions {
  /** Total attempts, the first included. A write (any method but GET/HEAD) without an idempotency key
   * always gets 1, whatever this says: re-sending it could apply it twice.
   * @default 3 for reads and for writes with an idempotency key, else 1 */
  attempts?: number | undefined;
  /** Statuses to retry, or a predicate. A list replaces only the statuses: network errors and per-attempt
   * timeouts stay retryable. Aborts, total timeouts, open circuits, invalid bodies: never, whatever this says.
   * @default network errors, per-attempt timeouts and 408, 429, 500, 502, 503, 504 */
  on?: readonly number[] | ((error: StitchError) => boolean) | undefined;
  /** @default { base: 100, max: 10_000, factor: 2, jitter: 'full' } */
  backoff?: BackoffOptions | undefined;
  /** Honour a `Retry-After` header up to `max` ms (`Infinity`: uncapped); `false` ignores it. @default { max: 60_000 } */
  retryAfter?: { max?: number | undefined } | false | undefined;
  /** `false` turns the budget off. @default { ratio: 0.2, floor: 10, window: 10_000 } */
  budget?: RetryBudgetOptions | false | undefined;
}

/** A validated `retry` option with every default filled in. */
export interface RetryPolicy {
  readonly attempts: number;
  readonly shouldRetryError: (error: StitchError) => boolean;
  readonly backoff: Readonly<Required<BackoffOptions>>;
  /** `undefined`: `Retry-After` is ignored. */
  readonly retryAfterMax: number | undefined;
  /** `undefined`: no budget. */
  readonly budget: RetryBudgetPolicy | undefined;
}

/** A validated retry budget, bringing the engine's budgets with it (made on first use). */
export interface RetryBudgetPolicy extends Readonly<Required<RetryBudgetOptions>> {
  readonly part: Part<RetryBudget>;
}

const RETRY_STATUSES: readonly number[] = [408, 429, 500, 502, 503, 504];
const NEVER_RETRIED = new Set<StitchErrorKind>(['aborted', 'circuit-open', 'invalid', 'config']);
const READS = new Set(['GET', 'HEAD']);
/** The budget window is kept as this many buckets, so memory per key is fixed. */
const BUCKETS = 10;

const isNonNegative = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** Retries a network error, a per-attempt timeout, or a status in `statuses`. */
const retryOn =
  (statuses: readonly number[]) =>
  (error: StitchError): boolean =>
    error.kind === 'network' ||
    (error.kind === 'timeout' && error.phase === 'each') ||
    (error.status !== undefined && statuses.includes(error.status));

/**
 * Validates a stitch's `retry` option and fills in defaults: a number is `{ attempts }`, `false`
 * is one attempt. Throws a `config` StitchError naming the bad field, e.g. `retry.backoff.base`.
 * @param idempotent whether the call carries an idempotency key; without one a write gets 1 attempt.
 */
export function normalizeRetry(
  value: number | RetryOptions | false | undefined,
  method: string,
  idempotent: boolean,
  stitchName: string,
): RetryPolicy {
  const fail = (field: string, problem: string) => {
    throw configError(stitchName, field, problem);
  };
  if (!(value === undefined || value === false || typeof value === 'number' || isRecord(value))) {
    fail('retry', 'must be a number of attempts, retry options or false');
  }
  const options: RetryOptions = typeof value === 'number' ? { attempts: value } : value || {};
  checkKnown(stitchName, 'retry.', options, ['attempts', 'on', 'backoff', 'retryAfter', 'budget']);
  const shape = (field: 'backoff' | 'retryAfter' | 'budget', keys: readonly string[]) => {
    const given = options[field];
    if (given === undefined || (field !== 'backoff' && given === false)) return;
    if (isRecord(given)) checkKnown(stitchName, `retry.${field}.`, given, keys);
    else fail(`retry.${field}`, `must be { ${keys.join(', ')} }${field === 'backoff' ? '' : ' or false'}`);
  };
  shape('backoff', ['base', 'max', 'factor', 'jitter']);
  shape('retryAfter', ['max']);
  shape('budget', ['ratio', 'floor', 'window']);
  const safe = READS.has(method.toUpperCase()) || idempotent;
  const attempts = options.attempts ?? (value === false ? 1 : 3);
  if (!Number.isInteger(attempts) || attempts < 1) fail('retry.attempts', 'must be an integer ≥ 1');

  const on = options.on ?? RETRY_STATUSES;
  const isStatus = (s: number) => Number.isInteger(s) && s >= 100 && s <= 599;
  if (typeof on !== 'function' && !(Array.isArray(on) && on.every(isStatus))) {
    fail('retry.on', 'must be a list of HTTP statuses (100–599) or a predicate');
  }

  const { base = 100, max = 10_000, factor = 2, jitter = 'full' } = options.backoff ?? {};
  if (!isNonNegative(base)) fail('retry.backoff.base', 'must be a finite number ≥ 0');
  if (!isNonNegative(max)) fail('retry.backoff.max', 'must be a finite number ≥ 0');
  if (!isNonNegative(factor) || factor < 1) fail('retry.backoff.factor', 'must be a finite number ≥ 1');
  if (jitter !== 'full' && jitter !== 'none') fail('retry.backoff.jitter', "must be 'full' or 'none'");

  const retryAfterMax = options.retryAfter === false ? undefined : (options.retryAfter?.max ?? 60_000);
  if (retryAfterMax !== undefined && !(isNonNegative(retryAfterMax) || retryAfterMax === Infinity)) {
    fail('retry.retryAfter.max', 'must be a number ≥ 0 (Infinity: no cap)');
  }

  let budget: RetryPolicy['budget'];
  if (options.budget !== false) {
    const { ratio = 0.2, floor = 10, window = 10_000 } = options.budget ?? {};
    if (!isNonNegative(ratio) || ratio > 1) fail('retry.budget.ratio', 'must be a number from 0 to 1');
    if (!Number.isInteger(floor) || floor < 0) fail('retry.budget.floor', 'must be an integer ≥ 0');
    if (!isNonNegative(window) || window === 0) fail('retry.budget.window', 'must be a finite number > 0');
    budget = { ratio, floor, window, part: budgets };
  }

  return {
    // Validated first, then forced: a bad value is a bug even on a write that would ignore it.
    attempts: safe ? attempts : 1,
    shouldRetryError: typeof on === 'function' ? on : retryOn(on),
    backoff: { base, max, factor, jitter },
    retryAfterMax,
    budget,
  };
}

/** The retry policies of a stitch whose `retry` option is `value`: without and with an idempotency key. */
export function retryPair(
  value: number | RetryOptions | false | undefined,
  method: string,
  name: string,
): RetryPair {
  return {
    plain: normalizeRetry(value, method, false, name),
    keyed: normalizeRetry(value, method, true, name),
  };
}

/**
 * Retry as a value: `retry: retry({ attempts: 3 })`. A number is `{ attempts }`. Validated when
 * the stitch is defined, naming the field (`retry.backoff.base`, say) in a `config` StitchError.
 * @default 3 attempts for reads and for writes with an idempotency key, else 1
 */
export function retry(options?: number | RetryOptions): RetryValue {
  return {
    policy: 'retry',
    resolve: (name: string, method: HttpMethod) =>
      retryPair(options === undefined ? {} : options, method, name),
  };
}

const ONE: RetryPolicy = {
  attempts: 1,
  shouldRetryError: /* @__PURE__ */ retryOn(RETRY_STATUSES),
  backoff: { base: 100, max: 10_000, factor: 2, jitter: 'full' },
  retryAfterMax: undefined,
  budget: undefined,
};
/**
 * One attempt, no budget: a stitch of `stitch-fetch/lite` without `retry(…)`. Its errors still say
 * whether a retry could help (`retryable`), by the default statuses.
 */
export const SINGLE_ATTEMPT: RetryPair = { plain: ONE, keyed: ONE };

/** Errors whose `retryable` is already `policy`'s verdict: a user's `on` is asked once per failure. */
const judged = new WeakSet<StitchError>();

/** A failure as `policy` judges it: `retryable` is {@link isRetryable}'s verdict, which it answers from after. */
export function judge(init: StitchErrorInit, policy: RetryPolicy): StitchError {
  const error = new StitchError({ ...init, retryable: isRetryable(new StitchError(init), policy) });
  judged.add(error);
  return error;
}

/**
 * Whether a failed attempt may be retried. A caller's abort never is (law 1), nor a total timeout
 * (no time is left), an open circuit (retrying is what it exists to stop), an invalid body (the
 * vendor will send the same one) or a config error; the rest is up to `policy.shouldRetryError`.
 */
export function isRetryable(error: StitchError, policy: RetryPolicy): boolean {
  if (judged.has(error)) return error.retryable;
  if (NEVER_RETRIED.has(error.kind) || (error.kind === 'timeout' && error.phase === 'total')) return false;
  try {
    return policy.shouldRetryError(error);
  } catch {
    // A user's `on` predicate that throws must not wedge the call: it just does not retry.
    return false;
  }
}

/**
 * The backoff before retry number `retry` (1 = the first retry): with full jitter
 * `random() × min(max, base × factor^(retry − 1))`, without jitter that cap itself.
 * @param random a source in [0, 1). @default Math.random
 */
export function backoffDelay(
  retry: number,
  backoff: RetryPolicy['backoff'],
  random: () => number = Math.random,
): number {
  // base 0 × an overflowed power (Infinity) would be NaN, not 0.
  const cap = backoff.base === 0 ? 0 : Math.min(backoff.max, backoff.base * backoff.factor ** (retry - 1));
  return backoff.jitter === 'full' ? random() * cap : cap;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(?<month>${MONTHS.join('|')})`;
const TIME = '(?<h>\\d\\d):(?<m>\\d\\d):(?<s>\\d\\d)';
const DAY_NAME = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
/**
 * The three HTTP-date forms, whole (RFC 9110 §5.6.7): IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`,
 * RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT`, asctime `Sun Nov  6 08:49:37 1994`.
 */
const HTTP_DATES = [
  new RegExp(`^(?:${DAY_NAME}), (?<day>\\d\\d) ${MONTH} (?<year>\\d{4}) ${TIME} GMT$`),
  new RegExp(
    `^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (?<day>\\d\\d)-${MONTH}-(?<yy>\\d\\d) ${TIME} GMT$`,
  ),
  new RegExp(`^(?:${DAY_NAME}) ${MONTH} (?<day>[ \\d]\\d) ${TIME} (?<year>\\d{4})$`),
];

/** An HTTP-date in epoch ms; `undefined` unless `value` is one, whole, of a real moment (no 30 Feb). */
function parseHttpDate(value: string): number | undefined {
  const groups = HTTP_DATES.map((form) => form.exec(value)?.groups).find(Boolean);
  if (!groups) return undefined;
  const { day, month, year, yy, h, m, s } = groups as Record<string, string>;
  // RFC 850's two-digit year: 00–69 is 20xx, 70–99 19xx (a pivot, as most HTTP stacks read it).
  const fullYear = year === undefined ? (Number(yy) < 70 ? 2000 : 1900) + Number(yy) : Number(year);
  const parts = [fullYear, MONTHS.indexOf(month as string), Number(day), Number(h), Number(m), Number(s)];
  const [y, mo, d, hh, mm, ss] = parts as [number, number, number, number, number, number];
  const at = Date.UTC(y, mo, d, hh, mm, ss);
  const back = new Date(at);
  // Date.UTC rolls 30 Feb over into March and 25:00 into the next day: a real moment reads back as given.
  const read = [
    back.getUTCFullYear(),
    back.getUTCMonth(),
    back.getUTCDate(),
    back.getUTCHours(),
    back.getUTCMinutes(),
    back.getUTCSeconds(),
  ];
  return read.every((field, index) => field === parts[index]) ? at : undefined;
}

/**
 * A `Retry-After` header in ms from `now` (epoch ms): delta-seconds (`"120"`) or an HTTP-date.
 * Garbage, a negative number or no header → `undefined`; a date already past → 0.
 */
export function parseRetryAfter(header: string | null | undefined, now: number): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Not Date.parse: it takes "1.5", "2025-01-01", "Mon, 1" or 30 Feb as dates.
  const at = parseHttpDate(value);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/**
 * The wait before retry number `retry`: `Retry-After` when given and honoured (capped at
 * `policy.retryAfterMax`), else backoff. Gives up with `'deadline'` when the wait would use up
 * what is left of the total deadline, since the next attempt would then have no time at all.
 * @param args.remaining ms left of the total deadline; `Infinity` when there is none.
 * @param args.random @default Math.random
 */
export function nextDelay(args: {
  retry: number;
  policy: RetryPolicy;
  retryAfter: number | undefined;
  remaining: number;
  random?: () => number;
}): { delay: number } | { giveUp: 'deadline' } {
  const { policy, retryAfter } = args;
  const delay =
    retryAfter !== undefined && policy.retryAfterMax !== undefined
      ? Math.min(retryAfter, policy.retryAfterMax)
      : backoffDelay(args.retry, policy.backoff, args.random);
  return delay >= args.remaining ? { giveUp: 'deadline' } : { delay };
}

/** Per-key retry budgets; see {@link RetryBudgetOptions}. Holds no timer. */
export interface RetryBudget {
  /** Counts one logical call (not one attempt) against `key`. */
  recordCall(key: string, budget: BudgetLimits): void;
  /**
   * Whether one more retry fits the budget of `key`; if it does, it is counted. A budget kept in a
   * shared store answers asynchronously and tells `onStoreError` when it had to decide alone.
   */
  tryRetry(
    key: string,
    budget: BudgetLimits,
    onStoreError?: (error: unknown) => void,
  ): boolean | Promise<boolean>;
}

/**
 * Creates per-key retry budgets, so an outage cannot multiply traffic: in a sliding window,
 * retries ≤ floor + ratio × calls. The window slides in steps of `window / 10`; memory is ten
 * buckets per key, and keys idle for a whole window are dropped.
 */
export function createRetryBudget(clock: Clock): RetryBudget {
  // Per key: the calls and retries of each `window / BUCKETS` slice of time, oldest first.
  type Bucket = { start: number; calls: number; retries: number };
  const keys = new Map<string, { window: number; buckets: Bucket[] }>();
  let lastSweep = clock.now();

  /** The buckets of `key` still in its window, the last one for now. */
  const current = (key: string, window: number): Bucket[] => {
    const now = clock.now();
    // Sweeping at most once per window keeps idle keys from piling up at amortised O(1) per call.
    if (now - lastSweep >= window) {
      lastSweep = now;
      for (const [k, state] of keys) {
        if ((state.buckets.at(-1)?.start ?? -Infinity) <= now - state.window) keys.delete(k);
      }
    }
    let state = keys.get(key);
    if (state) state.window = window;
    else {
      state = { window, buckets: [] };
      keys.set(key, state);
    }
    const { buckets } = state;
    while (buckets[0] && buckets[0].start <= now - window) buckets.shift();
    const width = window / BUCKETS;
    const start = Math.floor(now / width) * width;
    const bucket = buckets.at(-1);
    // `<`, not `!==`: after a window change or a wall clock stepping back, keep adding to the last.
    if (!bucket || bucket.start < start) buckets.push({ start, calls: 0, retries: 0 });
    return buckets;
  };
  /** The bucket for now, the last one `current` returns. */
  const latest = (buckets: Bucket[]) => buckets[buckets.length - 1] as Bucket;

  return {
    recordCall(key, budget) {
      latest(current(key, budget.window)).calls++;
    },
    tryRetry(key, budget) {
      const buckets = current(key, budget.window);
      let calls = 0;
      let retries = 0;
      for (const b of buckets) {
        calls += b.calls;
        retries += b.retries;
      }
      if (retries + 1 > budget.floor + budget.ratio * calls) return false;
      latest(buckets).retries++;
      return true;
    },
  };
}

/** The retry budgets part: shared across processes where the store can share them. */
const budgets: Part<RetryBudget> = {
  name: 'stitch-fetch/retry-budgets@1',
  create({ clock, shared }) {
    const local = createRetryBudget(clock);
    return shared?.budget && shared.shareBudget
      ? shared.shareBudget({ budget: shared.budget }, local, clock)
      : local;
  },
};
