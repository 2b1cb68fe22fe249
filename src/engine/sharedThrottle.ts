/**
 * A throttle slot when the engine's store shares part of the throttle across processes: this
 * process's own slot first (its FIFO queue, and the limit that still holds when the store fails),
 * then the shared concurrency slot, then the shared rate's grant; all held together, released
 * together. Each shared part fails open with a `store` event: the concurrency limit to this
 * process's own, the rate to this process's own window.
 */
import type { Clock } from './clock';
import { isStitchError } from './errors';
import type { StoreOperation } from './events';
import type { RateWaiter, SlotWaiter } from './shared';
import type { AcquireOptions, Release, Throttle, ThrottlePolicy } from './throttle';

/** What {@link acquireShared} works with; either shared part may be absent (not asked, or the store cannot). */
export interface SharedParts {
  readonly throttle: Throttle;
  readonly clock: Clock;
  readonly rates: RateWaiter | undefined;
  readonly slots: SlotWaiter | undefined;
}

/**
 * Waits for a slot of `policy` under `key`, `options.maxWait` bounding the whole wait.
 * @param onStoreError hears a shared part's store failure, after which the call goes on without it.
 */
export async function acquireShared(
  parts: SharedParts,
  key: string,
  policy: ThrottlePolicy,
  options: AcquireOptions & { signal: AbortSignal; maxWait: number },
  onStoreError: (operation: StoreOperation, error: unknown) => void,
): Promise<Release> {
  const { throttle, clock, rates, slots } = parts;
  const { signal } = options;
  const started = clock.now();
  const left = () => Math.max(0, options.maxWait - (clock.now() - started));
  const queued = () => options.onQueued?.(1);
  // The store's failure is fail-open; an abort, or a wait past maxWait, is the caller's answer.
  const failOpen = (operation: StoreOperation, error: unknown) => {
    if (signal.aborted || isStitchError(error)) throw error;
    onStoreError(operation, error);
  };
  const local = await throttle.acquire(key, rates ? { ...policy, rate: undefined } : policy, options);
  // Released last first: the shared slot is freed before this process's next waiter asks for it.
  const held: Release[] = [local];
  const release: Release = (unused) => {
    for (const part of [...held].reverse()) part(unused);
  };
  try {
    if (slots) {
      try {
        held.push(await slots(key, policy.concurrency, { signal, maxWait: left(), onQueued: queued }));
      } catch (error) {
        failOpen('concurrency', error);
      }
    }
    if (rates && policy.rate) {
      try {
        held.push(await rates(key, policy.rate, { signal, maxWait: left(), onQueued: queued }));
      } catch (error) {
        failOpen('rate', error);
        const own = { ...policy, concurrency: Infinity };
        held.push(
          await throttle.acquire(`${key} (rate, store failing)`, own, { ...options, maxWait: left() }),
        );
      }
    }
  } catch (error) {
    release(true);
    throw error;
  }
  return release;
}
