import { createContext, type ReactNode, useContext, useRef, useSyncExternalStore } from 'react';
import type { Counters, Lane, TraceStore, Transition } from './store';

const TraceContext = createContext<TraceStore | undefined>(undefined);

/** Hands the trace store (the engine's sink) to the components below. */
export function TraceProvider({ store, children }: { store: TraceStore; children?: ReactNode }) {
  return <TraceContext.Provider value={store}>{children}</TraceContext.Provider>;
}

/** The trace store of the nearest `TraceProvider`. */
export function useTraceStore(): TraceStore {
  const store = useContext(TraceContext);
  if (!store) throw new Error('useTraceStore needs a <TraceProvider> above it');
  return store;
}

/** The lanes of these stitches' runs, oldest first; re-renders only when one of them changes. */
export function useLanes(stitches: readonly string[]): readonly Lane[] {
  const store = useTraceStore();
  const last = useRef<{ parts: readonly (readonly Lane[])[]; merged: readonly Lane[] }>(undefined);
  const read = () => {
    const parts = stitches.map((stitch) => store.lanes(stitch));
    const previous = last.current;
    if (previous?.parts.length === parts.length && previous.parts.every((part, i) => part === parts[i])) {
      return previous.merged;
    }
    const merged = parts.flat().sort((a, b) => a.start - b.start);
    last.current = { parts, merged };
    return merged;
  };
  return useSyncExternalStore(store.subscribe, read);
}

/** The request counters of one stitch. */
export function useCounters(stitch: string): Counters {
  const store = useTraceStore();
  return useSyncExternalStore(store.subscribe, () => store.counters(stitch));
}

/** Breaker transitions seen by any run, oldest first. */
export function useTransitions(): readonly Transition[] {
  const store = useTraceStore();
  return useSyncExternalStore(store.subscribe, store.transitions);
}
