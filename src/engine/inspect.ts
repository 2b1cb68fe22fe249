/**
 * The engine's push channel for tools that watch it (the devtools panel, a test): every traced
 * run event, and each change of a cache entry, a breaker and a throttle queue, as it happens.
 * Nobody polls. With no listener, a module's notification is one boolean test: the payload is
 * built by a thunk that is never called.
 */

import type { CacheSnapshot } from './cache';
import type { CircuitState } from './circuit';
import { Emitter } from './emitter';
import type { StitchEvent } from './events';

/** One change an inspector listener hears. */
export type InspectEvent =
  /**
   * An event of a run started while someone listened, exactly as trace sinks see it (secrets
   * redacted). A listener that came after a run's `start` hears the rest of its events: keep a
   * run you never saw start apart, as the devtools model does.
   */
  | { type: 'run'; event: StitchEvent }
  /**
   * A cache entry changed: its data, error or fetching flag, or its number of `readers`
   * (subscribers, e.g. mounted hooks). `snapshot: undefined`: the entry was evicted.
   * `invalidate()` marks it stale, as `engine.invalidate` does (its mounted readers refetch).
   */
  | {
      type: 'cache';
      key: string;
      snapshot: CacheSnapshot | undefined;
      readers: number;
      at: number;
      /** Marks the key stale, as `engine.invalidate` does. */
      invalidate: () => void;
    }
  /** A read of `key` went to the network; `refetch()` runs it again, past the cache. */
  | {
      type: 'read';
      key: string;
      stitch: string;
      /** Runs the read again, past the cache. */
      refetch: () => void;
      at: number;
    }
  /** The stored state of the breaker `key` changed (a transition, or a failure counted). */
  | { type: 'circuit'; key: string; state: CircuitState; at: number }
  /** The throttle `key` granted, released or queued: slots held and callers waiting now. */
  | { type: 'throttle'; key: string; active: number; queued: number; at: number };

/** Hears an engine's {@link InspectEvent}s. A listener that throws never breaks a call. */
export type InspectListener = (event: InspectEvent) => void;

/** The engine side of inspection. */
export interface Inspector {
  /** Whether anyone listens: call sites test it before they build anything. */
  readonly active: boolean;
  /** Builds the event with `build` and hands it to every listener, if there is one. */
  notify(build: () => InspectEvent): void;
  /** Adds a listener; returns the function that removes it (idempotent). */
  subscribe(listener: InspectListener): () => void;
}

/** Creates an inspector with no listener. */
export function createInspector(): Inspector {
  const listeners = new Emitter<InspectEvent>();
  return {
    get active() {
      return listeners.size > 0;
    },
    notify(build) {
      if (listeners.size > 0) listeners.emit(build());
    },
    subscribe(listener) {
      const off = listeners.on(listener);
      return () => void off();
    },
  };
}
