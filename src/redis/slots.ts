/**
 * A throttle's `concurrency` shared by every process on the store (`shared: { concurrency: true }`):
 * each slot is a lease in the store, on its clock, so a crashed process cannot hold one for good.
 * The lease is renewed while its attempt runs rather than bounded by the attempt's deadline: a
 * stitch need not have a deadline, and a lease that ended under a live request would let one
 * more through. A waiter polls, since nothing tells a process that another one freed a slot.
 */
import type { Clock } from '../engine/clock';
import { mintKey } from '../engine/idempotency';
import type { ThrottleStore } from '../engine/shared';
import { type SharedWaitOptions, waitFor } from './poll';

/** The operations a shared concurrency limit needs. */
export type SlotStore = Pick<ThrottleStore, 'takeSlot' | 'returnSlot'>;

/** Frees a shared concurrency slot; calling it again does nothing. */
export type SlotRelease = () => void;

/** How long (ms) a slot outlives the last word from its holder: a crashed process's slot is free by then. */
export const SLOT_LEASE = 10_000;
/** A held slot's lease is renewed this often (ms): an attempt shorter than this costs no renewal. */
const RENEW_EVERY = SLOT_LEASE / 3;
/** A waiter asks again after 10 ms, then 20, 40, and every 80 ms while it waits. */
const FIRST_POLL = 10;
const LAST_POLL = 80;

/** Holds slot `id` of `key`: renews its lease until released, then frees it (off the call's path). */
function hold(store: SlotStore, clock: Clock, key: string, limit: number, id: string): SlotRelease {
  // A renewal still on its way: the release goes after it, so it cannot take the slot back.
  let renewing: Promise<unknown> | undefined;
  let cancelRenewal = clock.schedule(RENEW_EVERY, function renew() {
    // A lost renewal only lets the lease end early; the process's own limit still holds.
    const sent = store.takeSlot(key, limit, id, SLOT_LEASE).catch(() => {});
    renewing = sent;
    sent.then(() => {
      if (renewing === sent) renewing = undefined;
    });
    cancelRenewal = clock.schedule(RENEW_EVERY, renew);
  });
  let released = false;
  return () => {
    if (released) return;
    released = true;
    cancelRenewal();
    // A lost release leaves the slot held until its lease ends.
    const free = () => store.returnSlot(key, id).catch(() => {});
    if (renewing) renewing.then(free);
    else free();
  };
}

/**
 * Takes one of the `limit` slots of `key`, polling (abortably) while all are held.
 * Rejects with the signal's reason on abort, with a `rate-limited` StitchError past `maxWait`,
 * and with the store's error when it fails.
 */
export async function takeSharedSlot(
  store: SlotStore,
  clock: Clock,
  key: string,
  limit: number,
  options: SharedWaitOptions,
): Promise<SlotRelease> {
  const id = mintKey();
  await waitFor(
    clock,
    {
      what: `shared concurrency slot of '${key}'`,
      take: () => store.takeSlot(key, limit, id, SLOT_LEASE),
      // A slot that lands after the caller left is freed at once, not when its lease ends.
      giveBack: () => store.returnSlot(key, id),
      poll: { first: FIRST_POLL, last: LAST_POLL },
    },
    options,
  );
  return hold(store, clock, key, limit, id);
}
