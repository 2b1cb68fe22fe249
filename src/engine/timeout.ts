import { checkKnown, configError, type TimeoutPhase } from './errors';
import { isRecord } from './record';

/** `timeout`: a number bounds the whole call (`total`); `each` bounds one attempt; `Infinity` is no bound. */
export type TimeoutOptions = number | { each?: number | undefined; total?: number | undefined };

/** Normalized timeouts; `undefined` means unbounded. */
export interface TimeoutPolicy {
  each: number | undefined;
  total: number | undefined;
}

/**
 * Validates `timeout`; a value that is not a positive number throws, naming the field. Any length
 * works (the clock chains host timers past their 2^31-1 ms limit); `Infinity` means no bound.
 */
export function normalizeTimeout(value: TimeoutOptions | undefined, stitchName: string): TimeoutPolicy {
  if (value !== undefined && typeof value !== 'number' && !isRecord(value)) {
    throw configError(stitchName, 'timeout', 'must be a number of milliseconds or { each, total }');
  }
  const options = typeof value === 'number' ? { total: value } : (value ?? {});
  checkKnown(stitchName, 'timeout.', options, ['each', 'total']);
  const field = typeof value === 'number' ? 'timeout' : undefined;
  const check = (ms: number | undefined, name: 'each' | 'total') => {
    if (ms !== undefined && !(typeof ms === 'number' && ms > 0)) {
      throw configError(
        stitchName,
        field ?? `timeout.${name}`,
        'must be a positive number of milliseconds (Infinity for none)',
      );
    }
    return ms === Number.POSITIVE_INFINITY ? undefined : ms;
  };
  return { each: check(options.each, 'each'), total: check(options.total, 'total') };
}

/**
 * A deadline as a signal (see `Lifetime`): it aborts with a `TimeoutError` reason when its time is
 * up, or with another reason when the execution is ended first. `expired` tells the two apart
 * without looking at messages.
 */
export interface Deadline {
  readonly phase: TimeoutPhase;
  readonly signal: AbortSignal;
  /** True once this deadline fired. */
  readonly expired: boolean;
  /** Milliseconds left; `Infinity` when unbounded. */
  remaining(): number;
  /** Cancels its timer. Idempotent. */
  dispose(): void;
}
