/**
 * The throttle's shared parts (`shareThrottle` of the Redis store): this process's own slot first
 * (its FIFO queue, and the limit that still holds when the store fails), then the shared
 * concurrency slot when the throttle asks for one, then the shared rate's grant; all held
 * together, released together. Each shared part fails open with a `store` event: the concurrency
 * limit to this process's own, the rate to this process's own window.
 */
import { abortReason, onAbortShared } from '../engine/abort';
import type { Clock } from '../engine/clock';
import { UNANSWERED } from '../engine/context';
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
    // One start, one measure for every part: `maxWait` is the time waited on this clock. The
    // total deadline reaches every part as the abort of `signal`, so a wait it ends is reported
    // as the deadline's, never as maxWait's.
    const started = clock.now();
    const left = () => Math.max(0, started + policy.maxWait - clock.now());
    const rate = policy.shared.rate ? policy.rate : undefined;
    // One wait, one `queued` event: the first part that makes the caller wait says so (its place
    // in this process's queue; a shared wait is first here, behind the other processes).
    let queued = false;
    const onQueued = (position: number) => {
      if (queued) return;
      queued = true;
      options.onQueued?.(position);
    };
    // A part whose wait the signal ends before the store answers says so (the engine keeps it
    // when that was the total deadline).
    const waiting = (operation: StoreOperation) => ({
      signal,
      started,
      maxWait: policy.maxWait,
      onQueued: () => onQueued(1),
      onUnanswered: () => onStoreError(operation, UNANSWERED),
    });
    // The store's failure is fail-open; an abort, or a wait past maxWait, is the caller's answer.
    const failOpen = (operation: StoreOperation, error: unknown) => {
      if (signal.aborted || isStitchError(error)) throw error;
      onStoreError(operation, error);
    };
    // Taken at once when free, so that a caller who leaves in the same tick hands it back at once.
    const here = rate ? { ...policy, rate: undefined } : policy;
    if (signal.aborted) throw abortReason(signal);
    const local = throttle.tryAcquire(key, here) ?? (await throttle.acquire(key, here, { signal, onQueued }));
    // Released last first: the shared slot is freed before this process's next waiter asks for it.
    const held: Release[] = [local];
    const release: Release = (unused) => {
      for (const part of [...held].reverse()) part(unused);
    };
    // A caller who leaves while a shared part is still being taken hands back what it holds at
    // once (the part in flight is given back by its id): the next call of a re-key finds it free.
    const stopLeaving = onAbortShared(signal, () => release(true));
    try {
      if (policy.shared.concurrency) {
        try {
          held.push(await takeSharedSlot(store, clock, key, policy.concurrency, waiting('concurrency')));
        } catch (error) {
          failOpen('concurrency', error);
        }
      }
      if (rate) {
        try {
          held.push(await takeSharedRate(store, clock, key, rate, waiting('rate')));
        } catch (error) {
          failOpen('rate', error);
          const own = { ...policy, concurrency: Infinity };
          held.push(
            await throttle.acquire(`${key} (rate, store failing)`, own, {
              signal,
              maxWait: left(),
              onQueued,
            }),
          );
        }
      }
    } catch (error) {
      release(true);
      throw error;
    } finally {
      stopLeaving();
    }
    return release;
  };
}
