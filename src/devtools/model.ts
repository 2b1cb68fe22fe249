/**
 * What the devtools panel shows, kept up to date from `engine.inspect` (pushed, never polled):
 * a lane per run, the cache, the breakers and the throttle queues. Framework-free (its own entry,
 * `headless.ts`); the panel reads it through `useSyncExternalStore`. Each change replaces the
 * snapshot, never mutates it.
 */

import { safely } from '../engine/events';
import {
  type CacheSnapshot,
  type CircuitState,
  type Engine,
  type InspectEvent,
  StitchError,
  type StitchEvent,
} from '../index';
import { type LaneView, startLane, step } from './lane';

export type { AttemptView, CancelView, LaneStatus, LaneView } from './lane';

/** One cache key. */
export interface CacheView {
  readonly key: string;
  readonly stitch: string | undefined;
  readonly snapshot: CacheSnapshot;
  readonly readers: number;
  /** Marks the key stale, as `engine.invalidate` does: its mounted readers refetch. */
  readonly invalidate: () => void;
  /** Re-runs the last live read of the key; `undefined` until one was seen. */
  readonly refetch: (() => void) | undefined;
}

/** Everything the panel renders. */
export interface DevtoolsSnapshot {
  /** Oldest first, at most `maxLanes`. */
  readonly lanes: readonly LaneView[];
  readonly cache: readonly CacheView[];
  readonly breakers: ReadonlyArray<{ readonly key: string; readonly state: CircuitState }>;
  readonly throttles: ReadonlyArray<{
    readonly key: string;
    readonly active: number;
    readonly queued: number;
  }>;
}

/** A live model of one engine. */
export interface DevtoolsModel {
  /** Calls `listener` after each change of the snapshot; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** The current snapshot; the same object until something changed (for `useSyncExternalStore`). */
  getSnapshot(): DevtoolsSnapshot;
  /** Forgets the lanes (the cache, breakers and queues stay: they are the engine's state). */
  clearLanes(): void;
  /** Stops listening to the engine. */
  dispose(): void;
}

/** The snapshot of a model that has heard nothing. */
export const EMPTY: DevtoolsSnapshot = { lanes: [], cache: [], breakers: [], throttles: [] };

/** The model's options, checked; throws a config error naming the one at fault. */
export function checkModel(engine: Engine, maxLanes = 200): number {
  const problem =
    typeof engine?.inspect !== 'function'
      ? (['engine', 'must be a Stitch engine (createEngine())'] as const)
      : !(Number.isInteger(maxLanes) && maxLanes > 0)
        ? (['maxLanes', 'must be a positive integer'] as const)
        : undefined;
  if (problem) {
    const [field, message] = problem;
    throw new StitchError({ kind: 'config', field, message: `\`${field}\` ${message}` });
  }
  return maxLanes;
}

/** The newest lane of `run` (lanes are scanned from the end: recent runs are the ones that change). */
function indexOfRun(lanes: readonly LaneView[], run: string): number {
  for (let index = lanes.length - 1; index >= 0; index--) if (lanes[index]?.run === run) return index;
  return -1;
}

const upsert = <TItem extends { key: string }>(items: readonly TItem[], item: TItem) => {
  const index = items.findIndex((other) => other.key === item.key);
  if (index === -1) return [...items, item];
  const next = [...items];
  next[index] = item;
  return next;
};

/**
 * Watches `engine`. Lanes start with the runs that begin after this call; the cache, the queues
 * in use and the breakers the engine wrote come in at once (`engine.inspect` replays them).
 * @param options.maxLanes how many runs are kept, the oldest dropped first. @default 200
 */
export function createDevtoolsModel(
  engine: Engine,
  options: { maxLanes?: number | undefined } = {},
): DevtoolsModel {
  const maxLanes = checkModel(engine, options.maxLanes);
  const listeners = new Set<() => void>();
  const refetchers = new Map<string, { stitch: string; refetch: () => void }>();
  let snapshot = EMPTY;

  const onRun = (event: StitchEvent) => {
    let { lanes } = snapshot;
    if (event.type === 'start') {
      lanes = [...lanes.slice(Math.max(0, lanes.length + 1 - maxLanes)), startLane(event)];
    } else {
      const index = indexOfRun(lanes, event.run);
      const lane = lanes[index];
      if (!lane) return false;
      const next = [...lanes];
      next[index] = step(lane, event);
      if (event.type === 'coalesce') {
        const leader = indexOfRun(next, event.leader);
        const led = next[leader];
        if (led) next[leader] = { ...led, joiners: [...led.joiners, event.run] };
      }
      lanes = next;
    }
    snapshot = { ...snapshot, lanes };
    return true;
  };

  const apply = (event: InspectEvent): boolean => {
    switch (event.type) {
      case 'run':
        return onRun(event.event);
      case 'read': {
        refetchers.set(event.key, { stitch: event.stitch, refetch: event.refetch });
        const entry = snapshot.cache.find((item) => item.key === event.key);
        if (!entry) return false;
        snapshot = {
          ...snapshot,
          cache: upsert(snapshot.cache, { ...entry, stitch: event.stitch, refetch: event.refetch }),
        };
        return true;
      }
      case 'cache': {
        if (!event.snapshot) {
          refetchers.delete(event.key);
          snapshot = { ...snapshot, cache: snapshot.cache.filter((item) => item.key !== event.key) };
          return true;
        }
        const known = refetchers.get(event.key);
        const entry: CacheView = {
          key: event.key,
          stitch: known?.stitch,
          snapshot: event.snapshot,
          readers: event.readers,
          invalidate: event.invalidate,
          refetch: known?.refetch,
        };
        snapshot = { ...snapshot, cache: upsert(snapshot.cache, entry) };
        return true;
      }
      case 'circuit':
        snapshot = {
          ...snapshot,
          breakers: upsert(snapshot.breakers, { key: event.key, state: event.state }),
        };
        return true;
      case 'throttle': {
        const { key, active, queued } = event;
        snapshot = { ...snapshot, throttles: upsert(snapshot.throttles, { key, active, queued }) };
        return true;
      }
      default:
        return false;
    }
  };

  const emit = () => {
    for (const listener of [...listeners]) safely(listener);
  };
  const stop = engine.inspect((event) => {
    if (apply(event)) emit();
  });

  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    getSnapshot: () => snapshot,
    clearLanes() {
      snapshot = { ...snapshot, lanes: [] };
      emit();
    },
    dispose: stop,
  };
}
