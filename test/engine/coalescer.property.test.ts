/**
 * Law 4 (shared work is reference-counted) and laws 1 and 3, checked over random interleavings of
 * callers joining a key, callers aborting, the vendor answering (200, 503, network error), store
 * replies and backoff timers. Every one of those steps is a fast-check scheduler task, so a failing
 * interleaving shrinks and replays: `FC_SEED=<printed seed> npx vitest run <this file>`.
 */
import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CancelTimer, sleepOn } from '../../src/engine/clock';
import {
  type CircuitState,
  type Clock,
  createEngine,
  createMemoryStore,
  isStitchError,
  type StitchEvent,
  type StitchRun,
  type Store,
  stitch,
} from '../../src/index';
import { createManualClock, type ManualClock } from '../helpers/clock';
import { fastCheckRun } from '../helpers/fastCheck';
import { uniqueKey } from '../helpers/keys';
import { type Answer, createSchedulerVendor, flush, type Item, type Sent } from '../helpers/schedulerFakes';

const replay = fastCheckRun();

const ORIGIN = 'https://vendor.test';
const BREAKER_FAILURES = 3;
const COOLDOWN = 1_000;

/** How a caller aborts: with an Error, a plain object, a DOMException, or `abort()` bare. */
type ReasonKind = 'error' | 'object' | 'dom' | 'bare';
interface CallerPlan {
  key: number;
  /** `afterJoin`: the abort is scheduled once the caller joined; else it may land before the join. */
  abort: { reason: ReasonKind; afterJoin: boolean } | null;
  /** Joins in a second wave, once the first settled and the breaker's cooldown passed. */
  late: boolean;
}
interface Plan {
  callers: CallerPlan[];
  /** The n-th request gets `answers[n % answers.length]`. */
  answers: Answer[];
  retry: boolean;
  /** Breaker reads and writes answer through the scheduler too. */
  slowStore: boolean;
  /**
   * `eager`: the next task fires while the last one's effects are still on their way (an abort can
   * land mid-body-read); `idle`: each task's effects settle before the next one fires.
   */
  drive: 'eager' | 'idle';
  /** How many times the breaker's cooldown passes at random points of the first wave. */
  elapse: number;
}
const planOf = (answer: fc.Arbitrary<Answer>): fc.Arbitrary<Plan> =>
  fc.record({
    callers: fc.array(
      fc.record({
        key: fc.integer({ min: 0, max: 2 }),
        abort: fc.option(
          fc.record({
            reason: fc.constantFrom<ReasonKind>('error', 'object', 'dom', 'bare'),
            afterJoin: fc.boolean(),
          }),
          { nil: null, freq: 2 },
        ),
        late: fc.boolean(),
      }),
      { minLength: 1, maxLength: 8 },
    ),
    answers: fc.array(answer, { minLength: 1, maxLength: 8 }),
    retry: fc.boolean(),
    slowStore: fc.boolean(),
    drive: fc.constantFrom('eager', 'idle'),
    elapse: fc.nat({ max: 2 }),
  });

/**
 * The engine's clock: a manual clock whose timers are also fired by scheduler tasks, so a backoff
 * can end before or after an abort. Only 0 ms timers occur here (backoff base 0, no deadlines):
 * anything else is a violation. A sleep whose signal aborted must have cancelled its timer at once
 * (law 3); such a timer is never fired, so `leaks()` and `manual.pending()` show it.
 */
function schedulerClock(s: fc.Scheduler, manual: ManualClock, violations: string[]) {
  const timers = new Set<{ signal: AbortSignal | undefined }>();
  let sleeping: AbortSignal | undefined;
  const schedule = (ms: number, callback: () => void): CancelTimer => {
    if (ms !== 0) violations.push(`unexpected ${ms} ms timer`);
    const timer = { signal: sleeping };
    timers.add(timer);
    const fire = () => {
      if (timers.delete(timer)) callback();
    };
    // Time passing (see `elapse`) fires it too.
    const cancel = manual.schedule(ms, fire);
    s.schedule(Promise.resolve(ms), 'timer').then(() => {
      if (timer.signal?.aborted) return;
      cancel();
      fire();
    });
    return () => {
      timers.delete(timer);
      cancel();
    };
  };
  const sleep = sleepOn(schedule);
  const clock: Clock = {
    now: () => manual.now(),
    wallNow: () => manual.wallNow(),
    schedule,
    sleep(ms, signal) {
      // sleepOn schedules synchronously, so `schedule` sees which signal this timer belongs to.
      sleeping = signal;
      try {
        return sleep(ms, signal);
      } finally {
        sleeping = undefined;
      }
    },
  };
  const leaks = () => [...timers].filter((timer) => timer.signal?.aborted).length;
  return { clock, leaks };
}

/** A store whose replies the scheduler releases (each operation itself is applied at once). */
function schedulerStore(s: fc.Scheduler, inner: Store): Store {
  return {
    get: (key) => s.schedule(inner.get(key), `store.get ${key}`),
    set: (key, value, ttl) => s.schedule(inner.set(key, value, ttl), `store.set ${key}`),
    delete: (key) => s.schedule(inner.delete(key), `store.delete ${key}`),
    update: (key, transition, ttl) => s.schedule(inner.update(key, transition, ttl), `store.update ${key}`),
  };
}

/** Runs scheduled tasks until none is left, letting the engine's promise chains finish in between. */
async function drain(s: fc.Scheduler, drive: Plan['drive']) {
  for (let round = 0; round < 100; round++) {
    await (drive === 'eager' ? s.waitAll() : s.waitIdle());
    await flush();
    if (s.count() === 0) return;
  }
  throw new Error('the scheduler never went idle');
}

type Settlement = { ok: true; value: unknown } | { ok: false; error: unknown };
interface Caller {
  readonly name: string;
  readonly plan: CallerPlan;
  readonly controller: AbortController;
  run?: StitchRun<Item>;
  settlements: Settlement[];
  /** When the abort landed, relative to this caller's run. */
  aborted?: 'before-join' | 'pending' | 'settled';
  /** Whether the run was done right after `abort()` returned (law 4: "rejects at once"). */
  doneAtOnce?: boolean;
}

/** Requests the vendor answered with a failure (503 or a network error) before any abort. */
const failedAnswers = (requests: readonly Sent[]) =>
  requests.filter((r) => r.answer !== 'ok' && r.status === 'answered').length;
const count = (events: readonly StitchEvent[], type: StitchEvent['type']) =>
  events.filter((event) => event.type === type).length;
const reasonFor = (kind: Exclude<ReasonKind, 'bare'>, name: string): unknown =>
  kind === 'error'
    ? new Error(`${name} left`)
    : kind === 'object'
      ? { left: name }
      : new DOMException(`${name} superseded`, 'AbortError');

/**
 * Plays `plan` under `s` and checks the invariants every interleaving must keep. Returns what the
 * caller of this function needs for its own breaker expectations.
 */
async function playAndCheck(s: fc.Scheduler, plan: Plan) {
  const callers: Caller[] = plan.callers.map((p, i) => ({
    name: `caller#${i}`,
    plan: p,
    controller: new AbortController(),
    settlements: [],
  }));
  const path = (key: number) => `/items/${key}`;
  // The runs whose 'done' the trace sink has seen: a run is done the moment it emits it.
  const done = new Set<string>();
  const isDone = (run: StitchRun<unknown> | undefined) => run !== undefined && done.has(run.id);
  const waiting = (key: string) =>
    callers
      .filter((c) => path(c.plan.key) === key && c.run && !isDone(c.run) && !c.controller.signal.aborted)
      .map((c) => c.name);
  const violations: string[] = [];
  // Law 4: a request is only aborted once its last caller left.
  const vendor = createSchedulerVendor(s, plan.answers, violations, {
    onAbort: (request) => {
      const still = waiting(request.key);
      if (still.length > 0)
        violations.push(`request #${request.n} aborted while ${still.join(', ')} still wait`);
    },
  });
  const manual = createManualClock();
  const { clock, leaks } = schedulerClock(s, manual, violations);
  const traced: StitchEvent[] = [];
  const engine = createEngine({
    fetch: vendor.fetch,
    clock,
    trace: {
      handle: (event) => {
        traced.push(event);
        if (event.type === 'done') done.add(event.run);
      },
    },
    // The scheduler decides when the store answers; a store deadline would only add noise here.
    ...(plan.slowStore
      ? { store: schedulerStore(s, createMemoryStore(manual.now)), storeTimeout: Number.POSITIVE_INFINITY }
      : {}),
  });
  const get = stitch<Item, { params: { id: number } }>({
    name: uniqueKey('item'),
    url: `${ORIGIN}/items/{id}`,
    retry: plan.retry ? { attempts: 2, backoff: { base: 0 } } : false,
    circuit: { failures: BREAKER_FAILURES, cooldown: COOLDOWN },
  });
  const attempts = plan.retry ? 2 : 1;

  const enter = (caller: Caller) => {
    const { name, plan: p, controller } = caller;
    const scheduleAbort = () => {
      if (p.abort === null) return;
      const kind = p.abort.reason;
      s.schedule(Promise.resolve(name), `abort ${name}`).then(() => {
        caller.aborted = !caller.run ? 'before-join' : isDone(caller.run) ? 'settled' : 'pending';
        if (kind === 'bare') controller.abort();
        else controller.abort(reasonFor(kind, name));
        caller.doneAtOnce = isDone(caller.run);
      });
    };
    s.schedule(Promise.resolve(name), `join ${name} ${path(p.key)}`).then(() => {
      const run = get({ params: { id: p.key } }, { engine, signal: controller.signal });
      caller.run = run;
      run.then(
        (value) => caller.settlements.push({ ok: true, value }),
        (error: unknown) => caller.settlements.push({ ok: false, error }),
      );
      if (p.abort?.afterJoin) scheduleAbort();
    });
    if (p.abort && !p.abort.afterJoin) scheduleAbort();
  };
  const passCooldown = () => {
    if (leaks() > 0) violations.push(`${leaks()} aborted sleep(s) kept their timer`);
    return manual.advance(COOLDOWN);
  };
  // Time passing by a cooldown lets an open breaker through to a half-open probe.
  for (let i = 0; i < plan.elapse; i++) {
    s.schedule(Promise.resolve(COOLDOWN), 'time passes').then(passCooldown);
  }
  for (const caller of callers) if (!caller.plan.late) enter(caller);
  await drain(s, plan.drive);
  // Late callers come after a cooldown, when the breaker (if it opened) lets one probe through.
  if (callers.some((caller) => caller.plan.late)) {
    await passCooldown();
    for (const caller of callers) if (caller.plan.late) enter(caller);
    await drain(s, plan.drive);
  }

  for (const caller of callers) {
    const { name, run, settlements, controller, aborted } = caller;
    // 1. Every run settles exactly once; its report resolves and agrees.
    expect(run, `${name} joined`).toBeDefined();
    if (!run) continue;
    expect(settlements, `${name} settlements`).toHaveLength(1);
    const report = await run.report();
    expect(count(report.events, 'done'), `${name} done events`).toBe(1);
    const [settled] = settlements as [Settlement];
    expect(report.ok).toBe(settled.ok);
    // 2. An abort that landed before the run settled wins, at once, with its very reason.
    if (aborted === 'before-join' || aborted === 'pending') {
      if (aborted === 'pending') expect(caller.doneAtOnce, `${name} settled at once`).toBe(true);
      expect(settled.ok, `${name} was aborted`).toBe(false);
      const error = settled.ok ? undefined : settled.error;
      expect(isStitchError(error) && error.kind, `${name} kind`).toBe('aborted');
      expect(isStitchError(error) && error.name).toBe('AbortError');
      expect(isStitchError(error) && error.cause === controller.signal.reason, `${name} cause`).toBe(true);
      expect(report.cancelled).toBe(true);
      if (aborted === 'before-join') expect(report.requests).toBe(0);
    } else if (settled.ok) {
      // A caller gets its own key's data, whoever started the request.
      expect((settled.value as Item).id, `${name} data`).toBe(caller.plan.key);
    } else {
      // Law 4: nobody else's abort reaches a caller that stayed.
      const kind = isStitchError(settled.error) ? settled.error.kind : 'not a StitchError';
      expect(['http', 'network', 'circuit-open'], `${name} failed with ${kind}`).toContain(kind);
    }
    // Law 1 in the event log: a cancelled run emits `cancel`, never `error`; a failed one no `cancel`.
    expect(count(report.events, 'cancel'), `${name} cancel events`).toBe(report.cancelled ? 1 : 0);
    if (report.cancelled) expect(count(report.events, 'error'), `${name} error events`).toBe(0);
    // 5. No listener left on any caller's signal.
    expect(getEventListeners(controller.signal, 'abort'), `${name} listeners`).toHaveLength(0);
  }

  // Law 1: a retry only ever follows a failure the vendor really answered (an abort is never retried).
  expect(count(traced, 'retry'), 'retries').toBeLessThanOrEqual(failedAnswers(vendor.requests));

  // Nothing still holds a key: a fresh caller per key starts afresh (never joins a leftover).
  const probes = [...new Set(plan.callers.map((p) => p.key))].map((id) =>
    get({ params: { id } }, { engine }),
  );
  await drain(s, plan.drive);
  for (const probe of probes) {
    expect(isDone(probe), 'probe settled').toBe(true);
    expect((await probe.report()).source, 'probe source').toBe('live');
  }

  // 3. A request for a key is only sent when no live one for it is in flight, and a request is only
  // aborted once its last caller left.
  expect(violations, 'violations').toEqual([]);
  // 6. Requests ≤ logical demand, per key and in all.
  const demand = callers.length + probes.length;
  expect(vendor.requests.length).toBeLessThanOrEqual(attempts * demand);
  for (const key of new Set(plan.callers.map((p) => p.key))) {
    const sent = vendor.requests.filter((r) => r.key === path(key)).length;
    const callersOfKey = plan.callers.filter((p) => p.key === key).length + 1;
    expect(sent, `requests for ${path(key)}`).toBeLessThanOrEqual(attempts * callersOfKey);
    // The cache does not think anything is still fetching.
    expect(engine.getSnapshot(engine.keyOf(get, { params: { id: key } }) as string).fetching).toBe(false);
  }
  // 5. No listener left on any request's signal, and no timer left.
  for (const request of vendor.requests) {
    expect(request.status, `request #${request.n}`).not.toBe('in-flight');
    expect(getEventListeners(request.signal, 'abort'), `request #${request.n} listeners`).toHaveLength(0);
  }
  expect(leaks(), 'aborted sleeps holding a timer').toBe(0);
  expect(manual.pending(), 'timers left').toBe(0);

  // With a slow store the read itself is a scheduler task.
  const breaker: CircuitState = await s.waitFor(engine.circuitState(ORIGIN));
  return { breaker, failed: failedAnswers(vendor.requests) };
}

describe('coalescer under random interleavings (fast-check scheduler)', () => {
  it('keeps laws 1, 3 and 4 whatever the vendor answers', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        planOf(fc.constantFrom<Answer>('ok', '503', 'network')),
        async (s, plan) => {
          const { breaker, failed } = await playAndCheck(s, plan);
          // 4. The breaker counts no more failures than the vendor really answered.
          if (breaker.state === 'closed') expect(breaker.failures).toBeLessThanOrEqual(failed);
          else expect(failed).toBeGreaterThanOrEqual(BREAKER_FAILURES);
          // Law 1: every probe has settled, so none holds the half-open lease (an aborted one freed it).
          if (breaker.state === 'half-open') expect(breaker.lease).toBeNull();
        },
      ),
      replay,
    );
  });

  it('never counts an abort against the breaker (only successes and aborts)', {
    timeout: 60_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), planOf(fc.constant<Answer>('ok')), async (s, plan) => {
        const { breaker } = await playAndCheck(s, plan);
        // 4. Aborts are neutral: closed, with no failure at all.
        expect(breaker).toEqual({ state: 'closed', failures: 0 });
      }),
      replay,
    );
  });
});
