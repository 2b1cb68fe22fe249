/**
 * An execution's lifetime: the one controller its work runs on, and the deadlines folded onto it.
 * No caller owns it. The coalescer ends it when the last caller lets go, a write that takes its
 * key over ends it too, and its deadlines abort the same controller: a call pays for one
 * controller, however many deadlines it has, and its waits put no listener on it (the lifetime
 * runs them itself when it aborts it: see `own`). Only an
 * attempt cut off by its own deadline costs a second: the rest of the execution runs on a fresh
 * controller, since the one that attempt ran on stays aborted.
 */
import { type Owned, own } from './abort';
import type { CancelTimer, Clock } from './clock';
import type { Deadline } from './timeout';

/** The reason a deadline of `ms` aborts with. */
export const timeoutError = (phase: 'each' | 'total', ms: number) =>
  new DOMException(`The ${phase} timeout of ${ms} ms elapsed`, 'TimeoutError');

const noTimer: CancelTimer = () => {};

/**
 * The execution's lifetime, and its total deadline (`phase: 'total'`): `signal` is the controller
 * the execution's work runs on now, aborted when the execution is ended, when the total deadline
 * passes, or when an attempt's own deadline does (for that attempt's work only).
 */
export class Lifetime implements Deadline {
  readonly phase = 'total' as const;
  /** True once the total deadline fired (see {@link Lifetime.passed}). */
  expired = false;
  /** Set when the execution was ended (its last caller left, or a write took its key over): nobody waits. */
  ended: { readonly reason: unknown } | undefined = undefined;
  readonly #clock: Clock;
  readonly #total: number;
  readonly #ends: number;
  #controller = new AbortController();
  #own: Owned;
  #cancelTotal: CancelTimer;
  #cancelAttempt: CancelTimer = noTimer;

  /**
   * Starts the execution's lifetime, its total deadline `total` ms after the call began, `spent` ms
   * ago (the wait for an input validator); `undefined`: unbounded.
   */
  constructor(clock: Clock, total: number | undefined, spent = 0) {
    this.#clock = clock;
    this.#total = total ?? Number.POSITIVE_INFINITY;
    this.#ends = total === undefined ? Number.POSITIVE_INFINITY : clock.now() + total - spent;
    this.#own = own(this.#controller.signal);
    this.#cancelTotal = total === undefined ? noTimer : clock.schedule(total - spent, () => this.#expire());
  }

  /**
   * Whether the total deadline has passed, firing it now if its timer has not run yet: timers due
   * together run in turn, so the one that frees a throttle slot can admit the next caller before
   * that caller's own deadline fires. Less than a host timer's resolution (1 ms) left counts as
   * passed. Ask it before work starts that the deadline would only cut.
   */
  passed(): boolean {
    // Unbounded (no total timeout): nothing to read the clock for.
    if (this.#ends === Number.POSITIVE_INFINITY) return false;
    if (!this.expired && !this.ended && this.remaining() < 1) this.#expire();
    return this.expired;
  }

  /** The signal the execution's work runs on now. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Milliseconds left before the total deadline; `Infinity` when unbounded. */
  remaining(): number {
    return Math.max(0, this.#ends - this.#clock.now());
  }

  /** Ends the execution with `reason`: its work stops, and its deadlines can no longer fire. Idempotent. */
  end(reason: unknown): void {
    if (this.ended) return;
    this.ended = { reason };
    this.#cancelTimers();
    this.#abort(reason);
  }

  /**
   * One attempt's deadline of `ms` (`undefined`: none), on the execution's signal. When it passes,
   * the attempt's work aborts with a `TimeoutError` and the execution carries on with a fresh
   * controller. Dispose of it when the attempt ends.
   */
  attempt(ms: number | undefined): Deadline {
    const { signal } = this;
    if (ms === undefined) {
      return { phase: 'each', signal, expired: false, remaining: () => this.remaining(), dispose() {} };
    }
    const ends = this.#clock.now() + ms;
    const attempt: Deadline & { expired: boolean } = {
      phase: 'each',
      signal,
      expired: false,
      remaining: () => Math.max(0, ends - this.#clock.now()),
      dispose: () => {
        cancel();
        if (this.#cancelAttempt === cancel) this.#cancelAttempt = noTimer;
      },
    };
    const cancel = this.#clock.schedule(ms, () => {
      attempt.expired = true;
      this.#cancelAttempt = noTimer;
      const controller = this.#controller;
      this.#renew();
      controller.abort(timeoutError('each', ms));
    });
    this.#cancelAttempt = cancel;
    return attempt;
  }

  /** Ends the lifetime's timers and gives its signal up, once the execution has settled. */
  dispose(): void {
    this.#cancelTimers();
    this.#own.release();
  }

  /** The total deadline passes: the work stops with a `TimeoutError`, and its timers go. */
  #expire() {
    this.expired = true;
    this.#cancelTimers();
    this.#abort(timeoutError('total', this.#total));
  }

  /** Aborts the signal the work runs on now, and runs the engine's waits on it. */
  #abort(reason: unknown) {
    // Aborted already (a deadline, then an end): nothing more happens, as with a native abort.
    if (this.#controller.signal.aborted) return;
    this.#controller.abort(reason);
    this.#own.aborted();
  }

  /** Moves the work to a fresh signal; the one given up aborts with its real listeners, if any. */
  #renew() {
    this.#own.release();
    this.#controller = new AbortController();
    this.#own = own(this.#controller.signal);
  }

  #cancelTimers() {
    this.#cancelTotal();
    this.#cancelTotal = noTimer;
    this.#cancelAttempt();
    this.#cancelAttempt = noTimer;
  }
}
