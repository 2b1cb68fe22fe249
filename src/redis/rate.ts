/**
 * A throttle's `rate` shared by every process on the store: each grant is a token taken in the
 * store (one round trip), in a sliding window kept on the store's clock. A used grant counts until
 * `per` after its request ended (one more round trip, off the call's path), so the rate holds
 * where requests arrive, at the vendor (see docs/SCALING.md). The FIFO queue stays in this
 * process: across processes, waiters are served as their retries find room, not in arrival order.
 */
import type { Clock } from '../engine/clock';
import { StitchError } from '../engine/errors';
import { mintKey } from '../engine/idempotency';
import type { RateLimits, ThrottleStore } from '../engine/shared';
import type { Release } from '../engine/throttle';
import { awaitGrant, type SharedWaitOptions } from './grant';

/**
 * Takes one grant of `rate` for `key`, sleeping (abortably) while the window is full.
 * @param options.maxWait longest wait in ms; past it, rejects with a `rate-limited` StitchError.
 * @param options.onQueued called once, when the first answer is "wait".
 * Rejects with the signal's reason on abort, and with the store's error when it fails.
 */
export async function takeSharedRate(
  store: Pick<ThrottleStore, 'takeRate' | 'returnRate' | 'endRate'>,
  clock: Clock,
  key: string,
  rate: RateLimits,
  options: SharedWaitOptions,
): Promise<Release> {
  const { signal, maxWait } = options;
  let waited = 0;
  for (;;) {
    const id = mintKey();
    const delay = await awaitGrant(store.takeRate(key, rate, id), signal, () => store.returnRate(key, id));
    if (delay === 0) {
      let released = false;
      return (unused = false) => {
        if (released) return;
        released = true;
        // Off the call's path: a lost write only leaves the grant counted until 2 × per after it.
        (unused ? store.returnRate(key, id) : store.endRate(key, id)).catch(() => {});
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
