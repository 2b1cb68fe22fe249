import { createContext } from 'react';
import type { Engine } from '../index';

/** The engine hooks run on; `undefined` outside a provider (the default engine then). */
export const EngineContext = createContext<Engine | undefined>(undefined);

/** The signal of the nearest `StitchScope`; `undefined` outside any scope. */
export const ScopeContext = createContext<AbortSignal | undefined>(undefined);
