import { useRef, useSyncExternalStore } from 'react';
import { type DevtoolsSnapshot, EMPTY } from './model';
import { type InspectorOptions, useDevtoolsModel, useWatching } from './shared';

/** Whether `a` and `b` are the same value, or arrays of the same items in the same order. */
function same(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  return a.every((item, index) => Object.is(item, b[index]));
}

/**
 * What `select` picks from the engine's devtools model: the one `<StitchDevtools />` shows, pushed
 * by `engine.inspect` (never polled), watched from the commit that mounts it on (the requests
 * components mounted with it send from their effects included). A page can draw its own view
 * of the panel's data, e.g. the lanes of one stitch:
 *
 * ```tsx
 * const lanes = useStitchInspector((snapshot) => snapshot.lanes.filter((lane) => lane.stitch === 'search'));
 * ```
 *
 * The component re-renders only when the selection changes: a different value, or an array whose
 * items are not the same ones (lanes, breakers and cache entries are replaced when they change,
 * never mutated). `select` may be a new function on each render.
 * @throws StitchError of kind `'config'` for an `engine` that is not one or a bad `maxLanes`.
 */
export function useStitchInspector<TSelected>(
  select: (snapshot: DevtoolsSnapshot) => TSelected,
  options?: InspectorOptions,
): TSelected {
  const model = useDevtoolsModel(options);
  useWatching(model);
  const last = useRef<{ snapshot: DevtoolsSnapshot; select: typeof select; selected: TSelected }>(undefined);
  const read = () => {
    const snapshot = model.getSnapshot();
    const previous = last.current;
    if (previous?.snapshot === snapshot && previous.select === select) return previous.selected;
    const picked = select(snapshot);
    const selected = previous && same(previous.selected, picked) ? previous.selected : picked;
    last.current = { snapshot, select, selected };
    return selected;
  };
  // A server selects from the empty model (nothing watches there): so does a hydrating client first.
  const served = useRef<{ select: typeof select; selected: TSelected }>(undefined);
  const readServer = () => {
    if (served.current?.select !== select) served.current = { select, selected: select(EMPTY) };
    return served.current.selected;
  };
  return useSyncExternalStore(model.subscribe, read, readServer);
}
