import { type ReactNode, useContext, useMemo, useState } from 'react';
import { type DehydratedState, defaultEngine, type Engine } from '../index';
import { EngineContext } from './context';
import { type FocusSource, type OnlineSource, type RefetchTriggers, TriggerContext } from './triggers';

/** Props of {@link StitchProvider}. */
export interface StitchProviderProps {
  /** The engine for every hook below. @default the enclosing provider's, or `defaultEngine()` */
  engine?: Engine | undefined;
  /** Data from a server render (`engine.dehydrate()`), taken in before the first render. */
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

/**
 * Hands an engine to the hooks below it. Optional: without one, hooks use `defaultEngine()`; a
 * nested provider without an `engine` (for other `defaults`, say) keeps the enclosing one's.
 * With `state`, the engine is hydrated once, before any child renders, so hooks find the server's
 * data at once and send no second request for it.
 */
export function StitchProvider({
  engine,
  state,
  defaults,
  focusSource,
  onlineSource,
  children,
}: StitchProviderProps) {
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
  // Hydration is idempotent (never replaces newer data), so doing it in the state initializer is
  // safe even if React runs it twice.
  useState(() => {
    if (state) target.hydrate(state);
    return null;
  });
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
