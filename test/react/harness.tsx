/**
 * What every hook test starts from: a real vendor over HTTP, a fresh engine on a manual clock
 * with a trace log, and a provider for that engine. Tests sequence on the vendor's promises
 * (arrival, hang-up) and on the engine's own events, never on wall-clock sleeps.
 */
import { act, cleanup, render } from '@testing-library/react';
import { type ReactElement, type ReactNode, useEffect } from 'react';
import { expect, onTestFinished } from 'vitest';
import type { Engine, EngineOptions, StitchEvent, TraceSink } from '../../src/index';
import { StitchProvider } from '../../src/react/index';
import type { ManualClock } from '../helpers/clock';
import { startScenario } from '../helpers/runs';
import type { LedgerEntry, Reply, Vendor } from '../helpers/vendor';

/** Every event an engine emits, and a way to wait for the next one of a kind. */
export interface TraceLog {
  readonly sink: TraceSink;
  readonly events: readonly StitchEvent[];
  /** Resolves with the next event (from now on) that `matches` accepts. */
  next(matches: (event: StitchEvent) => boolean): Promise<StitchEvent>;
}

export function traceLog(): TraceLog {
  const events: StitchEvent[] = [];
  let waiters: Array<{ matches: (event: StitchEvent) => boolean; resolve: (event: StitchEvent) => void }> =
    [];
  return {
    events,
    sink: {
      handle(event) {
        events.push(event);
        const hit = waiters.filter((waiter) => waiter.matches(event));
        waiters = waiters.filter((waiter) => !hit.includes(waiter));
        for (const waiter of hit) waiter.resolve(event);
      },
    },
    next: (matches) => new Promise((resolve) => waiters.push({ matches, resolve })),
  };
}

/** A run that ended with the vendor's answer (not a cancellation). */
export const answered = (event: StitchEvent) => event.type === 'done' && event.outcome !== 'cancelled';

/** Lets queued promise reactions run (a few hops deep), without any timer. */
export async function flushMicrotasks(): Promise<void> {
  for (let hop = 0; hop < 50; hop++) await Promise.resolve();
}

/**
 * Runs `action` inside `act` and lets the promise reactions it queued run, with no timer and no
 * socket event in between: what a test asserts right after it happened "at once".
 */
export async function actAtOnce(action: () => void): Promise<void> {
  await act(async () => {
    action();
    await flushMicrotasks();
  });
}

/** What {@link setup} gives a test. */
export interface Harness {
  vendor: Vendor;
  clock: ManualClock;
  engine: Engine;
  trace: TraceLog;
  /** `<StitchProvider engine={engine}>`, for `render(ui, { wrapper })` and `renderHook`. */
  wrapper: (props: { children?: ReactNode }) => ReactNode;
  /**
   * Answers held request `n` with `reply` and waits, inside `act`, until a run has settled on it
   * and React has rendered the outcome.
   */
  answer(n: number, reply?: Exclude<Reply, 'hold'>): Promise<void>;
  /** Runs `action` inside `act`, then waits until a run has settled on the vendor's answer and React has rendered it. */
  settle(action: () => void): Promise<void>;
}

/** Options of {@link setup}. */
export interface HarnessOptions {
  /** Answers what the vendor's script does not. @default hold every request */
  respond?: (entry: LedgerEntry) => Reply | Promise<Reply>;
  /** Options of the engine, besides its clock and trace. */
  engine?: Omit<EngineOptions, 'clock' | 'trace'>;
}

/**
 * Starts a vendor and an engine on a manual clock for the calling test. When the test finishes,
 * React trees are unmounted first (so the hooks let go of their requests), then the vendor closes.
 */
export async function setup(options: HarnessOptions = {}): Promise<Harness> {
  const trace = traceLog();
  const { vendor, clock, engine } = await startScenario({
    respond: options.respond ?? (() => 'hold'),
    engine: { ...options.engine, trace: trace.sink },
  });
  // Registered after the scenario's own `vendor.close()`: vitest runs these last-first.
  onTestFinished(cleanup);
  const wrapper = ({ children }: { children?: ReactNode }) => (
    <StitchProvider engine={engine}>{children}</StitchProvider>
  );
  const settle = async (action: () => void) => {
    await act(async () => {
      const settled = trace.next(answered);
      action();
      await settled;
      await flushMicrotasks();
    });
  };
  const answer = (n: number, reply?: Exclude<Reply, 'hold'>) => settle(() => vendor.release(n, reply));
  return { vendor, clock, engine, trace, wrapper, answer, settle };
}

/** What {@link recorder} returns. */
export type Recorder<T> = ReturnType<typeof recorder<T>>;

/** Records every value a component rendered with, in order. */
export function recorder<T>() {
  const renders: T[] = [];
  return {
    renders,
    record(value: T): T {
      renders.push(value);
      return value;
    },
    get last(): T {
      const value = renders.at(-1);
      if (value === undefined) throw new Error('nothing rendered yet');
      return value;
    },
  };
}

/**
 * Counts its effect runs: under a root StrictMode a mount runs effects twice (React 19 does so
 * only when StrictMode wraps the root), which is what a StrictMode test needs to have happened.
 */
function EffectProbe({ runs }: { runs: { count: number } }) {
  useEffect(() => {
    runs.count += 1;
  }, [runs]);
  return null;
}

/**
 * Renders `ui` under a root StrictMode and checks that the simulated unmount and remount did
 * happen (effects ran twice), which is what a StrictMode test needs before it asserts anything.
 */
export function renderStrict(ui: ReactElement, wrapper: Harness['wrapper']) {
  const effects = { count: 0 };
  const view = render(
    <>
      <EffectProbe runs={effects} />
      {ui}
    </>,
    { wrapper, reactStrictMode: true },
  );
  expect(effects.count).toBe(2);
  return view;
}
