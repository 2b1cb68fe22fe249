import { useState } from 'react';
import type { CircuitState } from '../../../src/index';
import { useEngine } from '../../../src/react/index';
import { useInterval } from './useInterval';

/** The engine's breaker state for `key`, polled every `every` ms (the engine has no push for it). */
export function useCircuitState(key: string, every = 100): CircuitState | undefined {
  const engine = useEngine();
  const [state, setState] = useState<CircuitState | undefined>(undefined);
  useInterval(() => {
    engine.circuitState(key).then((next) => {
      setState((previous) => (JSON.stringify(previous) === JSON.stringify(next) ? previous : next));
    });
  }, every);
  return state;
}
