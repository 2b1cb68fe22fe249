import type { ExecutionState } from './context';
import type { EventPayload } from './events';
import type { ExecutionResult } from './execution';

/**
 * Receives a shared execution's events, and when each happened (timed once for every reference);
 * `trace` is true for exactly one reference per event.
 */
export type EventListener = (event: EventPayload, trace: boolean, at: number) => void;

/** What a reference sees of the execution it holds. */
export interface SharedExecution<TData> {
  /** The run that started it. */
  readonly leader: string;
  /** Live counters and phase, for a reference that cancels mid-way. */
  readonly state: ExecutionState;
  readonly result: Promise<ExecutionResult<TData>>;
  /** How the execution is ended: by its last reference, or by a write that took its key over. */
  readonly lifetime: Ending;
  /** Its request's URL as events show it (secrets redacted). */
  readonly url: string;
}

/** One caller's hold on a shared execution. */
export interface Reference<TData> {
  readonly shared: SharedExecution<TData>;
  /** False for the caller that started the execution, true for those that joined it. */
  readonly joined: boolean;
  /**
   * Lets go of the execution (at once, for this caller only). When the last reference lets go
   * before the execution settled, it is ended with `reason`: the socket closes and the
   * key is freed so the next caller starts afresh. Idempotent. Returns true when other references
   * keep the execution going (this release did not stop it).
   */
  release(reason: unknown): boolean;
}

/** What the coalescer needs of an execution's lifetime (see `Lifetime`): a way to end it. */
export interface Ending {
  /** Stops the execution's work with `reason` (its socket closes). Idempotent. */
  end(reason: unknown): void;
  /** Set once it was ended, with the reason. */
  readonly ended: { readonly reason: unknown } | undefined;
}

/**
 * Starts an execution no caller owns, emitting to every reference. The coalescer ends its
 * lifetime when the last reference lets go.
 */
export type Starter<TData> = (emit: (event: EventPayload, at?: number) => void) => {
  state: ExecutionState;
  result: Promise<ExecutionResult<TData>>;
  url: string;
  lifetime: Ending;
};

interface Entry {
  readonly shared: SharedExecution<unknown>;
  readonly listeners: Map<string, EventListener>;
  settled: boolean;
}

/** The reference-counted coalescer of one engine. */
export interface Coalescer {
  /**
   * Joins the in-flight execution for `key`, or starts one with `start`. With `key` undefined
   * (coalescing off) every caller gets its own execution, with the same reference semantics.
   */
  join<TData>(
    key: string | undefined,
    run: string,
    listener: EventListener,
    start: Starter<TData>,
  ): Reference<TData>;
  /**
   * Lets no new caller join the executions in flight for the keys `matches` accepts (their data
   * may predate a write): the next caller starts afresh, while the current references keep theirs.
   * With a `reason` (a write that overwrote the key) those executions are aborted with it too,
   * and their references end as cancelled.
   */
  detach(matches: (key: string) => boolean, reason?: unknown): void;
  /** The execution in flight for `key` that a caller would join now, if any. */
  running(key: string): SharedExecution<unknown> | undefined;
}

/**
 * Creates a coalescer, `now` timing the events it shares. Law 4: each caller is one reference; a
 * reference that lets go rejects alone; only the last one aborts the shared request, which is
 * never re-sent for the others.
 */
export function createCoalescer(now: () => number): Coalescer {
  const entries = new Map<string, Entry>();

  const open = <TData>(
    key: string | undefined,
    run: string,
    listener: EventListener,
    start: Starter<TData>,
  ) => {
    // The starter's first events may be emitted synchronously: its caller must already listen.
    const listeners = new Map<string, EventListener>();
    listeners.set(run, listener);
    const emit = (event: EventPayload, at = now()) => {
      let trace = true;
      for (const listener of listeners.values()) {
        listener(event, trace, at);
        trace = false;
      }
    };
    const { state, result, url, lifetime } = start(emit);
    const shared = { leader: run, state, result, lifetime, url };
    const entry: Entry = { shared, listeners, settled: false };
    const forget = () => {
      entry.settled = true;
      if (key !== undefined && entries.get(key) === entry) entries.delete(key);
    };
    // Settled work leaves the map before its references hear of it, so a caller arriving from
    // a reference's callback starts afresh instead of joining a finished execution.
    result.then(forget, forget);
    if (key !== undefined) entries.set(key, entry);
    return entry;
  };

  return {
    join<TData>(key: string | undefined, run: string, listener: EventListener, start: Starter<TData>) {
      const existing = key === undefined ? undefined : entries.get(key);
      const entry = existing ?? open(key, run, listener, start);
      entry.listeners.set(run, listener);
      let held = true;
      return {
        shared: entry.shared as SharedExecution<TData>,
        joined: existing !== undefined,
        release(reason) {
          if (!held) return false;
          held = false;
          entry.listeners.delete(run);
          if (entry.settled) return false;
          if (entry.listeners.size > 0) return true;
          if (key !== undefined && entries.get(key) === entry) entries.delete(key);
          entry.shared.lifetime.end(reason);
          return false;
        },
      };
    },
    running: (key) => entries.get(key)?.shared,
    detach(matches, reason) {
      for (const [key, entry] of [...entries]) {
        if (!matches(key)) continue;
        entries.delete(key);
        if (reason !== undefined) entry.shared.lifetime.end(reason);
      }
    },
  };
}
