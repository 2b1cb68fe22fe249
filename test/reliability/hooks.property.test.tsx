/**
 * Issue 8, property tests over the engine and the hooks together: random mounts, unmounts,
 * re-keys, external aborts (`options.signal`), vendor answers and failures, debounce windows and
 * time passing, with and without StrictMode. Each vendor answer (head, then body) is a fast-check
 * scheduler task, so the scheduler picks which request is answered when, and a failing
 * interleaving shrinks and replays: `FC_SEED=<printed seed> npx vitest run <this file>`.
 *
 * The fetch is a fake driven by the scheduler (a real socket per step would make 200 cases too
 * slow); like real fetch it rejects with `signal.reason` the moment its signal aborts, whether the
 * head or the body is on its way, and drops its listeners once settled.
 *
 * Invariants, after every case:
 * 1. every run settles exactly once (one settlement, one `done`);
 * 2. no caller abort is ever counted by the breaker (counted failures ≤ failures the vendor
 *    answered + per-attempt timeouts; with an always-healthy vendor, none at all);
 * 3. requests ≤ logical demand (one per key a mounted hook is given), never two live requests
 *    for one key, and no live request for a key once no hook wants it (it is aborted at once);
 * 4. after everything settles: 0 abort listeners on the external signals and on any request's
 *    signal, 0 timers on the manual clock, no fetch in flight, no unhandled rejection;
 * and on the way: a hook shows an abort only when its own external signal aborted (cause intact),
 * never for its own unmount or re-key, and only ever shows data of its own key.
 */
import { getEventListeners } from 'node:events';
import { act, render } from '@testing-library/react';
import fc from 'fast-check';
import { type ReactNode, StrictMode } from 'react';
import { describe, expect, it } from 'vitest';
import {
  type CircuitState,
  createEngine,
  createMemoryStore,
  type Stitch,
  type StitchEvent,
  type StitchRun,
  type Store,
  stitch,
} from '../../src/index';
import { type QueryResult, StitchProvider, useStitch } from '../../src/react/index';
import { createManualClock, type ManualClock } from '../helpers/clock';
import { fastCheckRun } from '../helpers/fastCheck';
import { uniqueKey } from '../helpers/keys';
import { type Answer, createSchedulerVendor, flush, type Item } from '../helpers/schedulerFakes';

const replay = fastCheckRun();

const ORIGIN = 'https://vendor.test';
const KEYS = 3;
const SIGNALS = 2;
const DEBOUNCE = 100;
const EACH = 1_000;
const COOLDOWN = 1_000;

type Command =
  /** Mounts a new hook on `key`, with external signal number `signal` (or none). */
  | { type: 'mount'; key: number; signal: number | null; debounce: boolean }
  /** Unmounts the `slot`-th mounted hook (modulo how many are mounted). */
  | { type: 'unmount'; slot: number }
  /** Re-renders the `slot`-th mounted hook with another input. */
  | { type: 'rekey'; slot: number; key: number }
  /** Aborts external signal number `signal` (a route change, say); later mounts get a fresh one. */
  | { type: 'abort'; signal: number }
  /** Lets the scheduler release up to `count` pending vendor steps, in an order it picks. */
  | { type: 'answer'; count: number }
  /** Moves the manual clock (debounce windows, per-attempt deadlines, breaker cooldowns). */
  | { type: 'tick'; ms: number };

interface Plan {
  strict: boolean;
  /** The n-th request gets `answers[n % answers.length]`. */
  answers: Answer[];
  commands: Command[];
}

const planOf = (answer: fc.Arbitrary<Answer>): fc.Arbitrary<Plan> =>
  fc.record({
    strict: fc.boolean(),
    answers: fc.array(answer, { minLength: 1, maxLength: 6 }),
    commands: fc.array(
      fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record({
            type: fc.constant('mount' as const),
            key: fc.nat(KEYS - 1),
            signal: fc.option(fc.nat(SIGNALS - 1), { nil: null }),
            debounce: fc.boolean(),
          }),
        },
        { weight: 2, arbitrary: fc.record({ type: fc.constant('unmount' as const), slot: fc.nat(7) }) },
        {
          weight: 3,
          arbitrary: fc.record({
            type: fc.constant('rekey' as const),
            slot: fc.nat(7),
            key: fc.nat(KEYS - 1),
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({ type: fc.constant('abort' as const), signal: fc.nat(SIGNALS - 1) }),
        },
        {
          weight: 4,
          arbitrary: fc.record({
            type: fc.constant('answer' as const),
            count: fc.integer({ min: 1, max: 4 }),
          }),
        },
        {
          weight: 2,
          arbitrary: fc.record({
            type: fc.constant('tick' as const),
            ms: fc.constantFrom(50, DEBOUNCE, 500, EACH),
          }),
        },
      ),
      { minLength: 6, maxLength: 30 },
    ),
  });

/**
 * The memory store, with every breaker write observed: how many failures the breaker counted
 * (a closed count going up, or a trip to open).
 */
function countingStore(now: () => number) {
  const inner = createMemoryStore(now);
  let counted = 0;
  const store: Store = {
    get: (key) => inner.get(key),
    set: (key, value, ttl) => inner.set(key, value, ttl),
    delete: (key) => inner.delete(key),
    async update<T>(key: string, transition: (current: T | undefined) => T | undefined, ttl?: number) {
      // The state the transition really ran on (a read beforehand could be stale by then).
      let before: T | undefined;
      const after = await inner.update<T>(
        key,
        (current) => {
          before = current;
          return transition(current);
        },
        ttl,
      );
      if (key.startsWith('circuit:')) {
        const closed: CircuitState = { state: 'closed', failures: 0 };
        const from = (before as CircuitState | undefined) ?? closed;
        const to = (after as CircuitState | undefined) ?? closed;
        const closedUp = from.state === 'closed' && to.state === 'closed' && to.failures > from.failures;
        const tripped = from.state !== 'open' && to.state === 'open';
        if (closedUp || tripped) counted += 1;
      }
      return after;
    },
  };
  return { store, counted: () => counted };
}

interface Slot {
  id: number;
  key: number;
  signal: AbortSignal | undefined;
  debounce: boolean;
}

interface Shown {
  id: number;
  key: number;
  signal: AbortSignal | undefined;
  /** Whether that signal had aborted when this was rendered. */
  signalAborted: boolean;
  q: QueryResult<Item>;
}

type ItemStitch = Stitch<Item, { params: { id: number } }>;

/** One mounted hook: reads item `itemKey` and records every result it renders. */
function Reader({
  stitch: read,
  shown,
  id,
  itemKey,
  signal,
  debounce,
}: {
  stitch: ItemStitch;
  shown: Shown[];
  id: number;
  itemKey: number;
  signal: AbortSignal | undefined;
  debounce: boolean;
}) {
  const q = useStitch(
    read,
    { params: { id: itemKey } },
    { ...(signal ? { signal } : {}), debounce: debounce ? DEBOUNCE : 0 },
  );
  shown.push({ id, key: itemKey, signal, signalAborted: signal?.aborted ?? false, q });
  return null;
}

interface Tracked {
  run: StitchRun<Item>;
  settlements: number;
}

async function playAndCheck(s: fc.Scheduler, plan: Plan, withTimeout: boolean) {
  const violations: string[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const clock: ManualClock = createManualClock();
    const vendor = createSchedulerVendor(s, plan.answers, violations, { body: 'own-step' });
    const breaker = countingStore(() => clock.now());
    const traced: StitchEvent[] = [];
    const engine = createEngine({
      fetch: vendor.fetch,
      clock,
      store: breaker.store,
      storeTimeout: Number.POSITIVE_INFINITY,
      trace: { handle: (event) => traced.push(event) },
    });
    const real = stitch<Item, { params: { id: number } }>({
      name: uniqueKey('item'),
      url: `${ORIGIN}/items/{id}`,
      retry: false,
      circuit: { failures: 3, cooldown: COOLDOWN },
      ...(withTimeout ? { timeout: { each: EACH } } : {}),
    });
    // The same stitch, with every run it starts recorded, so each can be checked to settle once.
    const runs: Tracked[] = [];
    const tracked = Object.assign(
      (input?: { params: { id: number } }, options?: Parameters<typeof real>[1]) => {
        // The hooks never call without an input for a stitch with a path param.
        const run = real(input as { params: { id: number } }, options);
        const entry: Tracked = { run, settlements: 0 };
        runs.push(entry);
        run.then(
          () => {
            entry.settlements += 1;
          },
          () => {
            entry.settlements += 1;
          },
        );
        return run;
      },
      { definition: real.definition },
    ) as ItemStitch;

    const shown: Shown[] = [];
    const slots: Slot[] = [];
    const tree = (): ReactNode => {
      const readers = (
        <StitchProvider engine={engine}>
          {slots.map((slot) => (
            <Reader
              stitch={tracked}
              shown={shown}
              key={slot.id}
              id={slot.id}
              itemKey={slot.key}
              signal={slot.signal}
              debounce={slot.debounce}
            />
          ))}
        </StitchProvider>
      );
      return plan.strict ? <StrictMode>{readers}</StrictMode> : readers;
    };

    const controllers: AbortController[] = Array.from({ length: SIGNALS }, () => new AbortController());
    const everySignal: AbortSignal[] = controllers.map((c) => c.signal);
    let mounts = 0;
    let demand = 0;

    const view = render(tree());
    const rerender = () =>
      act(async () => {
        view.rerender(tree());
        await flush();
      });

    for (const command of plan.commands) {
      switch (command.type) {
        case 'mount': {
          const signal = command.signal === null ? undefined : controllers[command.signal]?.signal;
          slots.push({ id: ++mounts, key: command.key, signal, debounce: command.debounce });
          demand += 1;
          await rerender();
          break;
        }
        case 'unmount': {
          if (slots.length === 0) break;
          slots.splice(command.slot % slots.length, 1);
          await rerender();
          break;
        }
        case 'rekey': {
          if (slots.length === 0) break;
          const slot = slots[command.slot % slots.length] as Slot;
          if (slot.key === command.key) break;
          slots[command.slot % slots.length] = { ...slot, key: command.key };
          demand += 1;
          await rerender();
          break;
        }
        case 'abort': {
          const controller = controllers[command.signal] as AbortController;
          await act(async () => {
            controller.abort(new Error(`route ${command.signal} changed`));
            await flush();
          });
          const fresh = new AbortController();
          controllers[command.signal] = fresh;
          everySignal.push(fresh.signal);
          break;
        }
        case 'answer': {
          await act(async () => {
            for (let i = 0; i < command.count && s.count() > 0; i++) {
              await s.waitOne();
              await flush();
            }
          });
          break;
        }
        case 'tick': {
          await act(async () => {
            await clock.advance(command.ms);
            await flush();
          });
          break;
        }
      }
      // Law 4, end to end: once the last hook on a key lets go (unmount, re-key, its signal
      // aborted), that key's request is aborted at once, its socket closed.
      const wanted = new Set(
        slots.filter((slot) => !slot.signal?.aborted).map((slot) => `/items/${slot.key}`),
      );
      for (const request of vendor.requests) {
        if (request.status === 'in-flight' && !request.signal.aborted && !wanted.has(request.key)) {
          violations.push(
            `after ${command.type}: request #${request.n} for ${request.key} goes on with no hook on it`,
          );
        }
      }
    }

    // Everything settles with the hooks still mounted: the vendor answers all, due timers fire.
    for (let round = 0; ; round++) {
      if (round > 200) throw new Error('never settled');
      if (s.count() > 0) {
        await act(async () => {
          await s.waitAll();
          await flush();
        });
      } else if (clock.pending() > 0) {
        await act(async () => {
          await clock.next();
          await flush();
        });
      } else break;
    }

    // What each mounted hook shows at the end: settled, not fetching, and of its own key.
    const last = new Map<number, Shown>();
    for (const entry of shown) last.set(entry.id, entry);
    for (const slot of slots) {
      const final = last.get(slot.id) as Shown;
      expect(final.key, `hook ${slot.id} rendered its last input`).toBe(slot.key);
      expect(['success', 'error'], `hook ${slot.id} status`).toContain(final.q.status);
      expect(final.q.isFetching, `hook ${slot.id} fetching`).toBe(false);
    }
    // Along the way: a hook shows data of its own key only, and an abort only when its signal aborted.
    for (const { id, key, signal, signalAborted, q } of shown) {
      if (q.data !== undefined) expect(q.data.id, `hook ${id} data`).toBe(key);
      if (q.status === 'error') {
        const kind = q.error?.kind;
        expect(['aborted', 'http', 'network', 'timeout', 'circuit-open'], `hook ${id} error`).toContain(kind);
        if (kind === 'aborted') {
          expect(signalAborted, `hook ${id} shows an abort its own signal did not cause`).toBe(true);
          expect(q.error?.cause, `hook ${id} abort cause`).toBe(signal?.reason);
        }
      }
    }

    // Unmount everything, and let the releases (deferred a microtask) and the vendor finish.
    await act(async () => {
      view.unmount();
      await flush();
    });
    while (s.count() > 0) {
      await act(async () => {
        await s.waitAll();
        await flush();
      });
    }

    // 1. Every run settles exactly once.
    for (const { run, settlements } of runs) {
      expect(settlements, `${run.id} settlements`).toBe(1);
      expect(
        (await run.report()).events.filter((event) => event.type === 'done'),
        `${run.id} done events`,
      ).toHaveLength(1);
    }
    const done = traced.filter((event) => event.type === 'done').map((event) => event.run);
    expect(new Set(done).size, 'one traced done per run').toBe(done.length);
    expect(done.length).toBe(runs.length);

    // 2. The breaker counted no caller abort: only failures the vendor answered, and timeouts.
    const failures = vendor.requests.filter(
      (r) => (r.status === 'answered' && r.answer !== 'ok') || (r.status === 'aborted' && r.timedOut),
    ).length;
    expect(breaker.counted(), 'failures counted by the breaker').toBeLessThanOrEqual(failures);

    // 3. Requests ≤ logical demand; no two live requests for one key.
    expect(vendor.requests.length, 'requests').toBeLessThanOrEqual(demand);
    expect(violations, 'violations').toEqual([]);

    // 4. Nothing left behind.
    for (const [i, signal] of everySignal.entries()) {
      expect(getEventListeners(signal, 'abort'), `listeners on external signal ${i}`).toHaveLength(0);
    }
    for (const request of vendor.requests) {
      expect(request.status, `request #${request.n}`).not.toBe('in-flight');
      expect(getEventListeners(request.signal, 'abort'), `listeners on request #${request.n}`).toHaveLength(
        0,
      );
    }
    expect(clock.pending(), 'timers left on the clock').toBe(0);
    await flush();
    expect(unhandled, 'unhandled rejections').toEqual([]);
    return { counted: breaker.counted(), failures };
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
}

describe('hooks over the engine under random interleavings (fast-check scheduler)', () => {
  it('keep every invariant whatever the vendor answers, with per-attempt deadlines', {
    timeout: 300_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), planOf(fc.constantFrom<Answer>('ok', '503', 'network')), (s, plan) =>
        playAndCheck(s, plan, true).then(() => {}),
      ),
      replay,
    );
  });

  it('count no failure at all when the vendor is healthy: mounts, unmounts, re-keys and aborts are neutral', {
    timeout: 300_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), planOf(fc.constant<Answer>('ok')), async (s, plan) => {
        const { counted } = await playAndCheck(s, plan, false);
        expect(counted, 'failures counted with a healthy vendor').toBe(0);
      }),
      replay,
    );
  });
});
