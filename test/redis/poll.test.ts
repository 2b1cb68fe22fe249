/**
 * The one wait of the throttle's shared parts (src/redis/poll.ts), over scripted stores and the
 * manual clock: `maxWait` means the same for a rate grant as for a concurrency slot, the time the
 * caller has waited on the engine's clock, round trips included. No Redis needed.
 */
import { describe, expect, it } from 'vitest';
import { takeSharedRate } from '../../src/redis/rate';
import { type SlotStore, takeSharedSlot } from '../../src/redis/slots';
import { createManualClock, type ManualClock } from '../helpers/clock';

/** A store that answers every take with "wait `wait` ms", each answer `roundTrip` ms (clock) after it was asked. */
function slow(clock: ManualClock, roundTrip: number, wait: number) {
  const takes: number[] = [];
  const take = async () => {
    takes.push(clock.now());
    await clock.sleep(roundTrip);
    return wait;
  };
  const nothing = async () => {};
  const store = { takeRate: take, returnRate: nothing, endRate: nothing };
  const slots: SlotStore = { takeSlot: take, returnSlot: nothing };
  return { store, slots, takes };
}

const waiting = (maxWait: number) => {
  const queued: number[] = [];
  return {
    signal: new AbortController().signal,
    started: 0,
    maxWait,
    onQueued: () => queued.push(1),
    onUnanswered: () => {},
    queued,
  };
};

/** When (on the clock) `taking` rejected, and with what. */
async function rejection(clock: ManualClock, taking: Promise<unknown>) {
  const settled = taking.then(
    () => ({ at: Number.NaN, error: undefined as unknown }),
    (error: unknown) => ({ at: clock.now(), error }),
  );
  await clock.advance(1_000);
  return settled;
}

describe('the shared waits', () => {
  it('maxWait is the time waited on the clock, round trips included, for a rate grant as for a slot', async () => {
    // Each answer takes 30 ms and says "wait 50 ms"; maxWait is 100 ms.
    const rateClock = createManualClock();
    const rate = slow(rateClock, 30, 50);
    const rateWait = waiting(100);
    const granted = takeSharedRate(rate.store, rateClock, 'api', { count: 1, per: 1_000 }, rateWait);
    // Asked at 0 (answer at 30: room in 50, within maxWait), at 80 (answer at 110: past maxWait).
    // Summing the delays slept (50 + 50 ≤ 100) would ask again at 160 and give up at 190.
    const rateEnd = await rejection(rateClock, granted);
    expect(rate.takes).toEqual([0, 80]);
    expect(rateEnd).toMatchObject({ at: 110, error: { kind: 'rate-limited', retryAfter: 50 } });
    expect(rateWait.queued).toEqual([1]);

    const slotClock = createManualClock();
    const slot = slow(slotClock, 30, 50);
    const slotWait = waiting(100);
    const held = takeSharedSlot(slot.slots, slotClock, 'pool', 1, slotWait);
    // Polled after 10 and 20 ms (answers at 30, 70, 120): the first answer past maxWait ends it.
    const slotEnd = await rejection(slotClock, held);
    expect(slot.takes).toEqual([0, 40, 90]);
    expect(slotEnd).toMatchObject({ at: 120, error: { kind: 'rate-limited' } });
    expect(slotWait.queued).toEqual([1]);
    expect([rateClock.pending(), slotClock.pending()]).toEqual([0, 0]);
  });
});
