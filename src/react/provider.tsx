import { type ReactNode, useContext, useEffect, useLayoutEffect, useMemo, useSyncExternalStore } from 'react';
import { type DehydratedState, defaultEngine, type Engine } from '../index';
import { checkOptions, STITCH_PROVIDER, TRIGGERS } from './checkOptions';
import { EngineContext } from './context';
import { type FocusSource, type OnlineSource, type RefetchTriggers, TriggerContext } from './triggers';

/** Props of {@link StitchProvider}. */
export interface StitchProviderProps {
  /** The engine for every hook below. @default the enclosing provider's, or `defaultEngine()` */
  engine?: Engine | undefined;
  /** Data from a server render (`engine.dehydrate()`), taken in before the first render (and again when it changes). */
  state?: DehydratedState | undefined;
  /**
   * Refetch triggers for every `useStitch` below (`refetchOnFocus`, `refetchOnReconnect`,
   * `refetchInterval`); a hook's own options win. Each field left out is the enclosing
   * provider's: a nested provider that turns on `refetchOnFocus` keeps an outer `refetchInterval`
   * (give `refetchInterval: false` to stop it). @default the enclosing provider's, or none
   */
  defaults?: RefetchTriggers | undefined;
  /**
   * When the app is visible and focused again (React Native: `AppState`; tests: a source they
   * drive). Pass a stable object: a new one resubscribes every hook.
   * @default the enclosing provider's, or the document's `visibilitychange` and the window's `focus`
   */
  focusSource?: FocusSource | undefined;
  /** When the network comes back; a stable object. @default the enclosing provider's, or the window's `online` */
  onlineSource?: OnlineSource | undefined;
  children?: ReactNode | undefined;
}

type Entry = DehydratedState['entries'][number];

/** Whether `entry` is one `hydrate` takes: `[key, data, updatedAt]`. */
const isEntry = (entry: unknown): entry is Entry =>
  Array.isArray(entry) &&
  entry.length === 3 &&
  typeof entry[0] === 'string' &&
  entry[1] !== undefined &&
  Number.isFinite(entry[2]);

/**
 * `state` as two: its entries for keys the engine knows nothing of, and those it holds already
 * or a reader elsewhere subscribes to (it may show them). `undefined` for a malformed state:
 * `hydrate` refuses it whole, naming what is wrong. Both keep the state's time, so they age as
 * it does.
 */
function splitState(engine: Engine, state: DehydratedState) {
  if (!Array.isArray(state.entries) || !state.entries.every(isEntry)) return undefined;
  const unknown: Entry[] = [];
  const held: Entry[] = [];
  for (const entry of state.entries) {
    const { data, fetching, error } = engine.getSnapshot(entry[0]);
    const known = data !== undefined || fetching || error !== undefined || engine.readers(entry[0]) > 0;
    (known ? held : unknown).push(entry);
  }
  return [
    { ...state, entries: unknown },
    { ...state, entries: held },
  ] as const;
}

/**
 * At the commit, before any child's effect (a child whose data was stale would ask again): a
 * layout effect where there is a screen (a DOM, React Native); on a server, where no effect
 * runs, a plain one, of which React says nothing.
 */
const useCommitEffect =
  typeof document !== 'undefined' || globalThis.navigator?.product === 'ReactNative'
    ? useLayoutEffect
    : useEffect;
const subscribeNever = () => () => {};

/**
 * Takes `state` in, and each new `state` after it. Keys the engine knows nothing of are taken in
 * during the render, so the children's first render finds their data (a server render's
 * hydration matches, and no child asks for it again). Keys it holds already are taken in at the
 * commit, before the children's effects: a reader elsewhere may show them, and React forbids
 * updating another component during a render. Hydration never replaces newer data, and a state
 * taken in again (or a copy of it) has aged as the first did.
 */
function useHydration(engine: Engine, state: DehydratedState | undefined) {
  // A server render (or the client's hydration of one): nothing subscribes yet, nor will any
  // effect run on the server, so the whole state is taken in during the render.
  const serverRender = useSyncExternalStore(
    subscribeNever,
    () => false,
    () => true,
  );
  const later = useMemo(() => {
    if (!state) return undefined;
    const parts = serverRender ? undefined : splitState(engine, state);
    engine.hydrate(parts ? parts[0] : state);
    return parts?.[1].entries.length ? parts[1] : undefined;
  }, [engine, state, serverRender]);
  useCommitEffect(() => {
    if (later) engine.hydrate(later);
  }, [engine, later]);
}

/**
 * Hands an engine to the hooks below it. Optional: without one, hooks use `defaultEngine()`; a
 * nested provider without an `engine` (for other `defaults`, say) keeps the enclosing one's.
 * With `state`, the engine is hydrated before any child renders, so hooks find the server's data
 * at once and send no second request for it; a new `state` (a route's, say) is taken in too.
 * Keys the engine holds already (a reader elsewhere shows them) take the state's data at the
 * commit, and only where it is newer.
 */
export function StitchProvider(props: StitchProviderProps) {
  const { engine, state, defaults, focusSource, onlineSource, children } = props;
  checkOptions('StitchProvider', undefined, props, STITCH_PROVIDER);
  if (defaults) checkOptions('StitchProvider', undefined, defaults, TRIGGERS, 'defaults.');
  const enclosing = useEngine();
  const target = engine ?? enclosing;
  const parent = useContext(TriggerContext);
  const settings = useMemo(
    () => ({
      defaults: defaults
        ? {
            refetchOnFocus: defaults.refetchOnFocus ?? parent.defaults.refetchOnFocus,
            refetchOnReconnect: defaults.refetchOnReconnect ?? parent.defaults.refetchOnReconnect,
            refetchInterval: defaults.refetchInterval ?? parent.defaults.refetchInterval,
          }
        : parent.defaults,
      focus: focusSource ?? parent.focus,
      online: onlineSource ?? parent.online,
    }),
    [parent, defaults, focusSource, onlineSource],
  );
  useHydration(target, state);
  return (
    <EngineContext.Provider value={target}>
      <TriggerContext.Provider value={settings}>{children}</TriggerContext.Provider>
    </EngineContext.Provider>
  );
}

/** The engine of the nearest `StitchProvider`, or `defaultEngine()`. */
export function useEngine(): Engine {
  return useContext(EngineContext) ?? defaultEngine();
}
