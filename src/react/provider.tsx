import { type ReactNode, useContext, useEffect, useMemo } from 'react';
import { type DehydratedState, defaultEngine, type Engine } from '../index';
import { checkOptions } from './checkOptions';
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
   * `refetchInterval`); a hook's own options win. @default the enclosing provider's, or none
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

/** Whether the engine holds anything for one of `state`'s keys, which a reader elsewhere may show. */
function holdsAny(engine: Engine, state: DehydratedState): boolean {
  // A malformed state holds nothing here: `hydrate` refuses it, naming what is wrong.
  if (!Array.isArray(state.entries)) return false;
  return (state.entries as readonly unknown[]).some((entry) => {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string') return false;
    const { data, fetching, error } = engine.getSnapshot(entry[0]);
    return data !== undefined || fetching || error !== undefined;
  });
}

/**
 * Takes `state` in, and each new `state` after it. A state whose keys the engine knows nothing
 * of is taken in during the render, so the children's first render finds its data (a server
 * render's hydration matches). One with a key the engine holds already is taken in after the
 * commit: a reader elsewhere may show that key, and React forbids updating another component
 * during a render. Hydration never replaces newer data, and the same state taken in again
 * changes nothing.
 */
function useHydration(engine: Engine, state: DehydratedState | undefined) {
  const inRender = useMemo(() => {
    if (!state || holdsAny(engine, state)) return false;
    engine.hydrate(state);
    return true;
  }, [engine, state]);
  useEffect(() => {
    if (state && !inRender) engine.hydrate(state);
  }, [engine, state, inRender]);
}

/**
 * Hands an engine to the hooks below it. Optional: without one, hooks use `defaultEngine()`; a
 * nested provider without an `engine` (for other `defaults`, say) keeps the enclosing one's.
 * With `state`, the engine is hydrated before any child renders, so hooks find the server's data
 * at once and send no second request for it; a new `state` (a route's, say) is taken in too.
 * A state with keys the engine holds already (a reader elsewhere shows them) is taken in after
 * the commit, its data only where it is newer.
 */
export function StitchProvider({
  engine,
  state,
  defaults,
  focusSource,
  onlineSource,
  children,
}: StitchProviderProps) {
  checkOptions('StitchProvider', undefined, { engine, focusSource, onlineSource, defaults });
  const enclosing = useEngine();
  const target = engine ?? enclosing;
  const parent = useContext(TriggerContext);
  const settings = useMemo(
    () => ({
      defaults: defaults ?? parent.defaults,
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
