/**
 * The wait for a shared concurrency slot (src/redis/slots.ts) over a scripted store and the manual
 * clock: how it polls, renews a held lease, frees it, and leaves no timer behind. No Redis needed.
 */
import { describe, expect, it } from 'vitest';
import type { SlotStore } from '../../src/redis/slots';
import { SLOT_LEASE, takeSharedSlot } from '../../src/redis/slots';
import { createManualClock } from '../helpers/clock';

/** A store answering takes from `answers` (then 0), recording every operation. */
function scripted(answers: number[] = []) {
  const log: string[] = [];
  const store: SlotStore = {
    takeSlot: async (key, limit, id, lease) => {
      log.push(`take ${key} ${limit} ${id.length > 0} ${lease}`);
      return answers.shift() ?? 0;
    },
    returnSlot: async (key) => {
      log.push(`return ${key}`);
    },
  };
  return { store, log };
}

const options = (signal = new AbortController().signal, maxWait = Infinity) => {
  const queued: number[] = [];
  return { signal, started: 0, maxWait, onQueued: () => queued.push(1), onUnanswered: () => {}, queued };
};

describe('takeSharedSlot', () => {
  it('a release during a renewal on its way is sent after it, so the renewal cannot take the slot back', async () => {
    const clock = createManualClock();
    const log: string[] = [];
    let answerRenewal: (wait: number) => void = () => {};
    let takes = 0;
    const store: SlotStore = {
      takeSlot: () => {
        takes += 1;
        log.push('take');
        if (takes === 1) return Promise.resolve(0);
        return new Promise<number>((resolve) => {
          answerRenewal = resolve;
        });
      },
      returnSlot: async () => {
        log.push('return');
      },
    };
    const release = await takeSharedSlot(store, clock, 'pool', 3, options());
    await clock.advance(SLOT_LEASE / 3);
    expect(log).toEqual(['take', 'take']);
    release();
    await Promise.resolve();
    expect(log).toEqual(['take', 'take']);
    answerRenewal(0);
    await clock.advance(0);
    expect(log).toEqual(['take', 'take', 'return']);
  });

  it('renews a held lease every third of it, and a release frees the slot and stops renewing', async () => {
    const clock = createManualClock();
    const { store, log } = scripted();
    const release = await takeSharedSlot(store, clock, 'pool', 3, options());
    expect(log).toEqual([`take pool 3 true ${SLOT_LEASE}`]);
    await clock.advance(SLOT_LEASE);
    // Renewed at 1/3 and 2/3 of the lease, and at its end: the lease never runs out under a live request.
    expect(log).toHaveLength(4);
    release();
    release();
    expect(log.at(-1)).toBe('return pool');
    expect(log).toHaveLength(5);
    expect(clock.pending()).toBe(0);
  });

  it('polls after 10, 20, 40 then every 80 ms (or sooner when a lease ends), saying once that it waits', async () => {
    const clock = createManualClock();
    const { store, log } = scripted([500, 500, 500, 500, 5, 0]);
    const waiting = options();
    const taking = takeSharedSlot(store, clock, 'pool', 1, waiting);
    const times: number[] = [];
    while (log.length < 6) {
      await clock.untilPending();
      await clock.next();
      times.push(clock.now());
    }
    expect(times).toEqual([10, 30, 70, 150, 155]);
    (await taking)();
    expect(waiting.queued).toEqual([1]);
    expect(clock.pending()).toBe(0);
  });

  it('gives up at maxWait with a rate-limited error, and on abort with its reason, leaving no timer', async () => {
    const clock = createManualClock();
    const { store } = scripted(Array(10).fill(1_000));
    const late = takeSharedSlot(store, clock, 'pool', 1, options(undefined, 25));
    await clock.advance(25);
    await expect(late).rejects.toMatchObject({ kind: 'rate-limited', retryable: true });

    const controller = new AbortController();
    const reason = new Error('the user left');
    const left = takeSharedSlot(store, clock, 'pool', 1, options(controller.signal));
    await clock.untilPending();
    controller.abort(reason);
    await expect(left).rejects.toBe(reason);
    expect(clock.pending()).toBe(0);
  });

  it('frees a slot the store grants after the caller left: at the abort, and again once it lands', async () => {
    const clock = createManualClock();
    const log: string[] = [];
    let grant: (wait: number) => void = () => {};
    const store: SlotStore = {
      takeSlot: () => new Promise((resolve) => (grant = resolve)),
      returnSlot: async (key) => void log.push(`return ${key}`),
    };
    const controller = new AbortController();
    const taking = takeSharedSlot(store, clock, 'pool', 1, options(controller.signal));
    controller.abort(new Error('gone'));
    // Given back from the abort itself, before any later caller's take could go out.
    expect(log).toEqual(['return pool']);
    await expect(taking).rejects.toThrow('gone');
    grant(0);
    await Promise.resolve();
    await Promise.resolve();
    expect(log).toEqual(['return pool', 'return pool']);
    expect(clock.pending()).toBe(0);
  });
});
