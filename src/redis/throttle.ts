/**
 * The throttle's shared parts (`shareThrottle` of the Redis store): this process's own slot first
 * (its FIFO queue, and the limit that still holds when the store fails), then the shared
 * concurrency slot when the throttle asks for one, then the shared rate's grant; all held
 * together, released together. Each shared part fails open with a `store` event: the concurrency
 * limit to this process's own, the rate to this process's own window.
 */
import type { Clock } from '../engine/clock';
import { isStitchError } from '../engine/errors';
import type { StoreOperation } from '../engine/events';
import type { SharedThrottle, ThrottleStore } from '../engine/shared';
import type { Release } from '../engine/throttle';
import { takeSharedRate } from './rate';
import { takeSharedSlot } from './slots';

/** The throttle's shared parts over `store`, waiting on `clock`. */
export function createSharedThrottle(store: ThrottleStore, clock: Clock): SharedThrottle {
  return async (throttle, key, policy, options, onStoreError) => {
    const { signal } = options;
    const started = clock.now();
    const left = () => Math.max(0, options.maxWait - (clock.now() - started));
    const rate = policy.shared.rate ? policy.rate : undefined;
    const queued = () => options.onQueued?.(1);
    // The store's failure is fail-open; an abort, or a wait past maxWait, is the caller's answer.
    const failOpen = (operation: StoreOperation, error: unknown) => {
      if (signal.aborted || isStitchError(error)) throw error;
      onStoreError(operation, error);
    };
    const local = await throttle.acquire(key, rate ? { ...policy, rate: undefined } : policy, options);
    // Released last first: the shared slot is freed before this process's next waiter asks for it.
    const held: Release[] = [local];
    const release: Release = (unused) => {
      for (const part of [...held].reverse()) part(unused);
    };
    try {
      if (policy.shared.concurrency) {
        try {
          const waiting = { signal, maxWait: left(), onQueued: queued };
          held.push(await takeSharedSlot(store, clock, key, policy.concurrency, waiting));
        } catch (error) {
          failOpen('concurrency', error);
        }
      }
      if (rate) {
        try {
          held.push(
            await takeSharedRate(store, clock, key, rate, { signal, maxWait: left(), onQueued: queued }),
          );
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
  };
}
