/**
 * A throttle's `rate` shared by every process on the store: each grant is a token taken in the
 * store (one round trip), in a sliding window kept on the store's clock. The concurrency limit
 * and the FIFO queue stay in this process (see docs/SCALING.md): across processes, waiters are
 * served as their retries find room, not in arrival order.
 */
import { raceAbort } from '../engine/abort';
import type { Clock } from '../engine/clock';
import { StitchError } from '../engine/errors';
import { mintKey } from '../engine/idempotency';
import type { RateLimits, RateRelease, RateStore } from '../engine/shared';

/**
 * Takes one grant of `rate` for `key`, sleeping (abortably) while the window is full.
 * @param options.maxWait longest wait in ms; past it, rejects with a `rate-limited` StitchError.
 * @param options.onQueued called once, when the first answer is "wait".
 * Rejects with the signal's reason on abort, and with the store's error when it fails.
 */
export async function takeSharedRate(
  store: RateStore,
  clock: Clock,
  key: string,
  rate: RateLimits,
  options: { signal: AbortSignal; maxWait: number; onQueued: () => void },
): Promise<RateRelease> {
  const { signal, maxWait } = options;
  let waited = 0;
  for (;;) {
    const id = mintKey();
    const taking = store.takeRate(key, rate, id);
    let delay: number;
    try {
      delay = await raceAbort(taking, signal);
    } catch (error) {
      // A grant that lands after the caller left is handed back: nothing will be sent on it.
      taking.then((late) => (late === 0 ? store.returnRate(key, id) : undefined)).catch(() => {});
      throw error;
    }
    if (delay === 0) {
      let released = false;
      return (unused = false) => {
        if (released || !unused) return;
        released = true;
        // Off the call's path: a lost give-back only leaves a token to expire with its window.
        store.returnRate(key, id).catch(() => {});
      };
    }
    if (waited + delay > maxWait) {
      throw new StitchError({
        kind: 'rate-limited',
        message: `waited longer than maxWait (${maxWait}ms) for the shared rate of '${key}'`,
        retryable: true,
        retryAfter: delay,
      });
    }
    if (waited === 0) options.onQueued();
    await clock.sleep(delay, signal);
    waited += delay;
  }
}
