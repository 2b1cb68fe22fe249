import { type LinkedSignal, linkSignals, onAbortShared } from './abort';
import type { Clock } from './clock';
import { configError, type TimeoutPhase } from './errors';

/** `timeout`: a number bounds the whole call (`total`); `each` bounds one attempt; `Infinity` is no bound. */
export type TimeoutOptions = number | { each?: number; total?: number };

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
  if (value !== undefined && typeof value !== 'number' && (typeof value !== 'object' || value === null)) {
    throw configError(stitchName, 'timeout', 'must be a number of milliseconds or { each, total }');
  }
  const options = typeof value === 'number' ? { total: value } : (value ?? {});
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
 * A deadline as a signal: it aborts with a `TimeoutError` reason when its time is up, or with
 * its parent's reason when the parent aborts first. `expired` tells the two apart without
 * looking at messages.
 */
export interface Deadline {
  readonly phase: TimeoutPhase;
  readonly signal: AbortSignal;
  /** True once this deadline (not its parent) fired. */
  readonly expired: boolean;
  /** Milliseconds left; `Infinity` when unbounded. */
  remaining(): number;
  /** Cancels its timer and unhooks it from its parent. Idempotent. */
  dispose(): void;
}

/**
 * Starts a deadline of `ms` (unbounded when undefined) below `parent`. `dispose()` cancels its
 * timer and unhooks it from the parent; call it in `finally`. An unbounded deadline is the parent
 * signal itself: no controller, no listener, no timer (a call without timeouts pays nothing).
 * Given a controller rather than a signal, the deadline takes it over instead of deriving one
 * (one controller fewer per call): it aborts that controller when its time is up.
 */
export function startDeadline(
  clock: Clock,
  phase: TimeoutPhase,
  ms: number | undefined,
  parent: AbortSignal | AbortController,
): Deadline {
  const owned = parent instanceof AbortController;
  if (ms === undefined) {
    const signal = owned ? parent.signal : parent;
    return { phase, signal, expired: false, remaining: () => Number.POSITIVE_INFINITY, dispose() {} };
  }
  const link = owned ? adopt(parent) : linkSignals(parent);
  const ends = clock.now() + ms;
  const cancelTimer = link.signal.aborted
    ? () => {}
    : clock.schedule(ms, () => {
        deadline.expired = true;
        link.abort(new DOMException(`The ${phase} timeout of ${ms} ms elapsed`, 'TimeoutError'));
      });
  // Once the parent has ended it, the deadline can no longer fire: drop its timer at once.
  const detachTimer = onAbortShared(link.signal, cancelTimer);
  // A plain field, set when the timer fires: an object literal with a getter is made on V8's slow
  // path (about 10 µs a deadline on Node 20), and there is one or two of these per call.
  const deadline: { -readonly [Field in keyof Deadline]: Deadline[Field] } = {
    phase,
    signal: link.signal,
    expired: false,
    remaining: () => Math.max(0, ends - clock.now()),
    dispose() {
      detachTimer();
      cancelTimer();
      link.dispose();
    },
  };
  return deadline;
}

/** A controller seen as a linked signal with no sources: aborting it is all there is to do. */
function adopt(controller: AbortController): LinkedSignal {
  return {
    signal: controller.signal,
    abort(reason) {
      if (!controller.signal.aborted) controller.abort(reason);
    },
    dispose() {},
  };
}
