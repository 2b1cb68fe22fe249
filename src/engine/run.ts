import { defaultAbortReason } from './abort';
import type { Clock } from './clock';
import { Emitter } from './emitter';
import { isStitchError, type StitchError } from './errors';
import type { ErrorSummary, EventPayload, RunOutcome, StitchEvent } from './events';

/**
 * Where a run's data came from. `recorded`: an idempotency record of an earlier call under the same
 * key (in this process or another sharing the store); nothing was sent.
 */
export type RunSource = 'live' | 'cache' | 'stale' | 'coalesced' | 'recorded';

/** `run.safe()`: the outcome as a value, never a rejection. */
export type SafeResult<TData> =
  | { ok: true; data: TData; error: null }
  | { ok: false; data: null; error: StitchError };

/**
 * What one run did, from its own event log and the execution it was answered by. No second
 * request is made to produce it. A run that joined another's request (`source: 'coalesced'`)
 * counts that shared request's `attempts` and `requests`, as its error does: they say what its
 * answer cost, not what this run sent itself (summed over the runs sharing one request, they
 * count it once per run).
 */
export interface RunReport {
  ok: boolean;
  outcome: RunOutcome;
  /** `outcome === 'cancelled'`, so nobody has to compare strings. */
  cancelled: boolean;
  source: RunSource;
  /** Attempts that reached the network step (past the queue and the breaker). */
  attempts: number;
  /** Requests that left the process. */
  requests: number;
  /** Whether any request left the process. */
  dispatched: boolean;
  /** Status of the last response, if any came. */
  status: number | undefined;
  /** Clock time from start to done, ms. */
  elapsed: number;
  error?: ErrorSummary | undefined;
  idempotencyKey?: string | undefined;
  events: readonly StitchEvent[];
}

/** What the pipeline tells a run when it settles. */
export type RunResult<TData> = { ok: true; data: TData } | { ok: false; error: StitchError };

/**
 * What a run counts of its execution. An execution's live state, a run's tally, its report and
 * its errors carry the same three, under the same names.
 */
export interface Counts {
  /** Attempts that reached the network step. */
  attempts: number;
  /** Requests that left the process. */
  requests: number;
  /** Status of the last response, if any came. */
  status: number | undefined;
}

/** Copies `counts` (an execution's state; none when nothing started) into a run's tally. */
export function countFrom(tally: Counts, counts: Counts | undefined): void {
  tally.attempts = counts?.attempts ?? 0;
  tally.requests = counts?.requests ?? 0;
  tally.status = counts?.status;
}

/** Counters the pipeline keeps for the report. */
export interface RunTally extends Counts {
  source: RunSource;
  idempotencyKey: string | undefined;
}

/** Turns an error into what events and reports carry. */
export function summarize(error: StitchError): ErrorSummary {
  const summary: ErrorSummary = { kind: error.kind, name: error.name, message: error.message };
  if (error.status !== undefined) summary.status = error.status;
  if (error.phase !== undefined) summary.phase = error.phase;
  return summary;
}

interface RunInternals {
  emit(run: StitchRun<unknown>, payload: EventPayload, trace: boolean, at: number | undefined): void;
  finish(run: StitchRun<unknown>, result: RunResult<unknown>, tally: RunTally): void;
  onCancel(run: StitchRun<unknown>, leave: ((reason: unknown) => void) | undefined): void;
  cancelled(run: StitchRun<unknown>): { readonly reason: unknown } | undefined;
  started(run: StitchRun<unknown>): boolean;
}

let internals: RunInternals | undefined;

/**
 * Logs an event on `run`, stamped with its identity and time when read; `trace: false` keeps it
 * from the sinks (a shared execution's event is traced through one of its runs only). `at` is
 * when it happened, if known (an event shared by many runs is timed once); now otherwise.
 */
export const emitTo = (run: StitchRun<unknown>, payload: EventPayload, trace = true, at?: number): void =>
  internals?.emit(run, payload, trace, at);

/**
 * What `run.cancel(reason)` does from now on: the call's wait, or its reference, lets go;
 * `undefined`: nothing is held any more.
 */
export const onCancel = (run: StitchRun<unknown>, leave: ((reason: unknown) => void) | undefined): void =>
  internals?.onCancel(run, leave);

const RUNS = Symbol.for('stitch-fetch.runs');

/** The count of runs, one for every copy of the package in the realm (its ESM and CJS builds). */
const realm = globalThis as { [RUNS]?: { count: number } };
realm[RUNS] ??= { count: 0 };
const runs = realm[RUNS];

/**
 * The next run's number, counted across every engine of the process and every copy of the
 * package in it: a sink shared by several engines (one per server request, say, or one of each
 * build) tells their runs apart by id.
 */
export const nextRunId = (): number => ++runs.count;

/** Whether `run` has logged its `start` (any event at all). */
export const hasStarted = (run: StitchRun<unknown>): boolean => internals?.started(run) ?? false;

/** The reason `run.cancel` was called with, if it was (before anything could hear it). */
export const cancelledWith = (run: StitchRun<unknown>): { readonly reason: unknown } | undefined =>
  internals?.cancelled(run);

/** Settles `run` once, with its closing events; later calls are ignored. */
export const finishRun = <TData>(run: StitchRun<TData>, result: RunResult<TData>, tally: RunTally): void =>
  internals?.finish(run as StitchRun<unknown>, result, tally);

/** Whether a sink is hearing an event now, and the sinks and events emitted meanwhile, in order. */
let hearing = false;
const heardNext: Array<((event: StitchEvent) => void) | StitchEvent> = [];

/**
 * Hands `event` to `sink` once the event being heard (if any) has reached every sink: a sink that
 * cancels a run as it hears one of its events emits `cancel` and `done` within that delivery, and
 * the sinks after it must still hear that run's events in their order.
 */
function tell(sink: (event: StitchEvent) => void, event: StitchEvent): void {
  if (hearing) {
    heardNext.push(sink, event);
    return;
  }
  hearing = true;
  try {
    sink(event);
    while (heardNext.length > 0) {
      const next = heardNext.shift() as (event: StitchEvent) => void;
      next(heardNext.shift() as StitchEvent);
    }
  } finally {
    hearing = false;
  }
}

/**
 * One call of a stitch: a real `Promise` of its data (`await`, `.then`, `.catch`, `.finally`,
 * `Promise.all` and `instanceof Promise` all work) over a single event log. It rejects with a
 * `StitchError`; `safe()`, `report()` and `stream()` read the same run, never a new request.
 *
 * A run never raises an unhandled rejection by itself: its failure is kept for whoever reads it
 * (`await`, `.catch`, `safe()`, `report()`), so a run read only through `report()` later, or not
 * read at all, is not a process-level error. Promises derived from it (`run.then(f)`) are
 * ordinary: an unhandled rejection there is reported as usual.
 */
export class StitchRun<TData> extends Promise<TData> {
  /** `then`, `catch` and `finally` return plain promises, not runs. */
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  /** This run's id, as its events carry it. */
  readonly id: string;
  // What happened and when, stamped into events only when someone looks (see `#events`).
  readonly #payloads: EventPayload[] = [];
  readonly #times: number[] = [];
  readonly #stamped: StitchEvent[] = [];
  readonly #stitch: string;
  readonly #clock: Clock;
  readonly #sink: ((event: StitchEvent) => void) | undefined;
  readonly #started: number;
  // Typed loosely on purpose: a parameter of TData here would make StitchRun<T> invariant in T.
  readonly #fulfil: (data: unknown) => void;
  readonly #reject: (error: unknown) => void;
  #result: RunResult<TData> | undefined;
  #tally: RunTally | undefined;
  #wake: Emitter<void> | undefined;
  #leave: ((reason: unknown) => void) | undefined;
  #cancelled: { readonly reason: unknown } | undefined;

  /** @internal Runs are created by the engine. */
  constructor(id: string, stitch: string, clock: Clock, sink?: (event: StitchEvent) => void) {
    let fulfil!: (data: unknown) => void;
    let reject!: (error: unknown) => void;
    super((resolve, rejectWith) => {
      fulfil = resolve as (data: unknown) => void;
      reject = rejectWith;
    });
    this.#fulfil = fulfil;
    this.#reject = reject;
    super.then(undefined, ignore);
    this.id = id;
    this.#stitch = stitch;
    this.#clock = clock;
    this.#sink = sink;
    this.#started = clock.now();
    // The engine's hold on a run, not part of its public face: set by the first run, not at load
    // (a static block would be code a bundler must keep in every app that imports this module).
    internals ??= {
      emit: (run, payload, trace, at) => run.#emit(payload, trace, at),
      finish: (run, result, tally) => run.#finish(result, tally),
      onCancel: (run, leave) => {
        run.#leave = leave;
      },
      cancelled: (run) => run.#cancelled,
      started: (run) => run.#payloads.length > 0,
    };
  }

  /**
   * Lets go of this call, as an abort of its `signal` would: the run rejects with
   * `kind: 'aborted'` whose `cause` is `reason`; a request other callers share goes on for them,
   * and is aborted (its socket closed) when this call was the last one holding it. Once the run
   * has settled, nothing, except for a run served stale data (`cache.staleWhileRevalidate`): it
   * lets go of the background refresh it started or joined, as its signal aborting would. Only the
   * first reason counts. @default reason a DOMException `AbortError`
   * @returns whether this call let go of anything: `false` once it settled holding nothing (or
   * was cancelled already).
   */
  cancel(reason: unknown = defaultAbortReason()): boolean {
    if (this.#cancelled || (this.#result && !this.#leave)) return false;
    this.#cancelled = { reason };
    this.#leave?.(reason);
    return true;
  }

  /** Records an event; the first (the call's `start`) is stamped with the time the run began. */
  #emit(
    payload: EventPayload,
    trace: boolean,
    at = this.#payloads.length === 0 ? this.#started : this.#clock.now(),
  ): void {
    this.#payloads.push(payload);
    this.#times.push(at);
    if (trace && this.#sink) tell(this.#sink, this.#events().at(-1) as StitchEvent);
    this.#wake?.emit();
  }

  /**
   * This run's events so far, in order (what its report and stream show). An event is stamped
   * with the run's identity and time only when a sink, a stream or a report first reads it:
   * nobody watching, nothing built.
   */
  #events(): readonly StitchEvent[] {
    const stamped = this.#stamped;
    for (let index = stamped.length; index < this.#payloads.length; index++) {
      const at = this.#times[index] as number;
      stamped.push({ ...this.#payloads[index], at, run: this.id, stitch: this.#stitch } as StitchEvent);
    }
    return stamped;
  }

  #finish(result: RunResult<TData>, tally: RunTally): void {
    if (this.#result) return;
    this.#result = result;
    this.#tally = tally;
    // Nothing is left to let go of: the run no longer holds its reference through `cancel`.
    this.#leave = undefined;
    const outcome = outcomeOf(result);
    // The closing events happen together: one reading of the clock.
    const at = this.#clock.now();
    if (outcome === 'success') this.#emit({ type: 'success', status: tally.status }, true, at);
    else if (outcome === 'error' && !result.ok)
      this.#emit({ type: 'error', error: summarize(result.error) }, true, at);
    this.#emit({ type: 'done', outcome, elapsed: at - this.#started }, true, at);
    if (result.ok) this.#fulfil(result.data);
    else this.#reject(result.error);
  }

  /** Resolves with the result once the run settles (the run's own promise, never a rejection). */
  #settled(): Promise<RunResult<TData>> {
    return super.then(
      () => this.#result as RunResult<TData>,
      () => this.#result as RunResult<TData>,
    );
  }

  /** Like `await run`, but a failure or cancellation is a value: `{ ok: false, error }`. */
  async safe(): Promise<SafeResult<TData>> {
    const result = await this.#settled();
    return result.ok
      ? { ok: true, data: result.data, error: null }
      : { ok: false, data: null, error: result.error };
  }

  /** Waits for this run to settle and describes it. */
  async report(): Promise<RunReport> {
    const result = await this.#settled();
    const tally = this.#tally as RunTally;
    const outcome = outcomeOf(result);
    const done = this.#events().at(-1);
    const report: RunReport = {
      ok: result.ok,
      outcome,
      cancelled: outcome === 'cancelled',
      source: tally.source,
      attempts: tally.attempts,
      requests: tally.requests,
      dispatched: tally.requests > 0,
      status: tally.status,
      elapsed: done?.type === 'done' ? done.elapsed : 0,
      events: [...this.#events()],
    };
    if (!result.ok) report.error = summarize(result.error);
    if (tally.idempotencyKey !== undefined) report.idempotencyKey = tally.idempotencyKey;
    return report;
  }

  /** This run's events from its start (already-past ones first), ending with `done`. */
  stream(): AsyncGenerator<StitchEvent, void, undefined> {
    return this.#replay();
  }

  async *#replay(): AsyncGenerator<StitchEvent, void, undefined> {
    let next = 0;
    let wake: () => void = () => {};
    this.#wake ??= new Emitter();
    const off = this.#wake.on(() => wake());
    try {
      for (;;) {
        while (next < this.#payloads.length) {
          const event = this.#events()[next++] as StitchEvent;
          yield event;
          if (event.type === 'done') return;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    } finally {
      off();
    }
  }
}

const ignore = () => {};

function outcomeOf(result: RunResult<unknown>): RunOutcome {
  if (result.ok) return 'success';
  return isStitchError(result.error) && result.error.kind === 'aborted' ? 'cancelled' : 'error';
}
