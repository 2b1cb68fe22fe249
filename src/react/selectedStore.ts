import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';

/**
 * React's `useSyncExternalStore` over a projection of the store's snapshot: the component
 * re-renders only when the projection changes by `isEqual`, whatever else changed in the store.
 * A projection equal to the last one committed keeps that one's identity, so a reader that
 * remounts its selector (a new `select` each render) does not re-render for an equal value.
 * What `use-sync-external-store/with-selector` does, without the package (nor React, for the
 * engine's users, dragged in as its peer).
 */
export function useSelectedStore<TSnapshot, TSelected>(
  subscribe: (listener: () => void) => () => void,
  getSnapshot: () => TSnapshot,
  getServerSnapshot: () => TSnapshot,
  selector: (snapshot: TSnapshot) => TSelected,
  isEqual: (a: TSelected, b: TSelected) => boolean,
): TSelected {
  const committed = useRef<{ selection: TSelected } | undefined>(undefined);
  const [getSelection, getServerSelection] = useMemo(() => {
    // The last snapshot projected and what it gave, for this selector.
    let last: { snapshot: TSnapshot; selection: TSelected } | undefined;
    const project = (snapshot: TSnapshot): TSelected => {
      if (last && Object.is(last.snapshot, snapshot)) return last.selection;
      const next = selector(snapshot);
      const previous = last ?? committed.current;
      const selection = previous && isEqual(previous.selection, next) ? previous.selection : next;
      last = { snapshot, selection };
      return selection;
    };
    return [() => project(getSnapshot()), () => project(getServerSnapshot())];
  }, [getSnapshot, getServerSnapshot, selector, isEqual]);
  const value = useSyncExternalStore(subscribe, getSelection, getServerSelection);
  useEffect(() => {
    committed.current = { selection: value };
  }, [value]);
  return value;
}
