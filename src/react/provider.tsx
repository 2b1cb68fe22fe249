import { type ReactNode, useContext, useState } from 'react';
import { type DehydratedState, defaultEngine, type Engine } from '../index';
import { EngineContext } from './context';

/** Props of {@link StitchProvider}. */
export interface StitchProviderProps {
  /** The engine for every hook below. @default defaultEngine() */
  engine?: Engine;
  /** Data from a server render (`engine.dehydrate()`), taken in before the first render. */
  state?: DehydratedState;
  children?: ReactNode;
}

/**
 * Hands an engine to the hooks below it. Optional: without one, hooks use `defaultEngine()`.
 * With `state`, the engine is hydrated once, before any child renders, so hooks find the server's
 * data at once and send no second request for it.
 */
export function StitchProvider({ engine, state, children }: StitchProviderProps) {
  const target = engine ?? defaultEngine();
  // Hydration is idempotent (never replaces newer data), so doing it in the state initializer is
  // safe even if React runs it twice.
  useState(() => {
    if (state) target.hydrate(state);
    return null;
  });
  return <EngineContext.Provider value={target}>{children}</EngineContext.Provider>;
}

/** The engine of the nearest `StitchProvider`, or `defaultEngine()`. */
export function useEngine(): Engine {
  return useContext(EngineContext) ?? defaultEngine();
}
