/**
 * A retry budget shared by every process on the store. Calls are counted here and sent in
 * batches, off the calls' path (at most once per tenth of the window per key); a retry asks the
 * store, which adds what this process has not sent yet, so the happy path costs no round trip.
 * When the store fails, the process's own budget decides.
 */
import type { Clock } from '../engine/clock';
import type { RetryBudget } from '../engine/retry';
import type { BudgetLimits, BudgetStore } from '../engine/shared';
import { lateOf } from '../engine/store';

/** The retry budget over `store`, falling back to `local` while the store fails. */
export function createSharedBudget(store: BudgetStore, local: RetryBudget, clock: Clock): RetryBudget {
  /** Per key: calls not sent to the store yet, and when they were last sent. */
  const keys = new Map<string, { unsent: number; sent: number }>();

  const stateOf = (key: string) => {
    const state = keys.get(key) ?? { unsent: 0, sent: Number.NEGATIVE_INFINITY };
    keys.set(key, state);
    return state;
  };

  const send = async (key: string, budget: BudgetLimits, retry: boolean) => {
    const state = stateOf(key);
    const calls = state.unsent;
    state.unsent = 0;
    state.sent = clock.now();
    try {
      return await store.budget(key, budget, calls, retry);
    } catch (error) {
      // Counted with the next send instead (the store's counts expire with their window anyway),
      // unless the store was only slow: a send given up on still lands, counting them then.
      const late = lateOf(error);
      if (late) late.catch(() => (state.unsent += calls));
      else state.unsent += calls;
      throw error;
    }
  };

  return {
    recordCall(key, budget) {
      local.recordCall(key, budget);
      const state = stateOf(key);
      state.unsent += 1;
      if (clock.now() - state.sent >= budget.window / 10) send(key, budget, false).catch(() => {});
    },
    async tryRetry(key, budget, onStoreError) {
      try {
        return await send(key, budget, true);
      } catch (error) {
        onStoreError?.(error);
        return local.tryRetry(key, budget);
      }
    },
  };
}
