/**
 * A throttle's `rate` shared by every process on the store: each grant is a token taken in the
 * store (one round trip), in a sliding window kept on the store's clock. A used grant counts until
 * `per` after its request ended (one more round trip, off the call's path), so the rate holds
 * where requests arrive, at the vendor (see docs/SCALING.md). The FIFO queue stays in this
 * process: across processes, waiters are served as their retries find room, not in arrival order.
 */
import type { Clock } from '../engine/clock';
import { mintKey } from '../engine/idempotency';
import type { RateLimits, ThrottleStore } from '../engine/shared';
import type { Release } from '../engine/throttle';
import { type SharedWaitOptions, waitFor } from './poll';

/**
 * Takes one grant of `rate` for `key`, sleeping (abortably) while the window is full. The store's
 * delay is exact (no grant frees sooner), so a wait that cannot end within `maxWait` fails at once.
 * Rejects with the signal's reason on abort, with a `rate-limited` StitchError past `maxWait`
 * (`retryAfter`: when the window has room), and with the store's error when it fails.
 */
export async function takeSharedRate(
  store: Pick<ThrottleStore, 'takeRate' | 'returnRate' | 'endRate'>,
  clock: Clock,
  key: string,
  rate: RateLimits,
  options: SharedWaitOptions,
): Promise<Release> {
  // A refused take writes no grant, so every ask of one wait can use the same id.
  const id = mintKey();
  await waitFor(
    clock,
    {
      what: `grant of the shared rate of '${key}'`,
      take: () => store.takeRate(key, rate, id),
      giveBack: () => store.returnRate(key, id),
    },
    options,
  );
  let released = false;
  return (unused = false) => {
    if (released) return;
    released = true;
    // Off the call's path: a lost write only leaves the grant scored `per` after it, as if its
    // request had been out that long.
    (unused ? store.returnRate(key, id) : store.endRate(key, id)).catch(() => {});
  };
}
