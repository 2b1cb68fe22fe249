import { useEffect, useState } from 'react';
import type { CircuitState } from '../../../src/index';
import { useEngine } from '../../../src/react/index';

/** The engine's breaker state for `key`, pushed by `engine.inspect` on every write (no polling). */
export function useCircuitState(key: string): CircuitState | undefined {
  const engine = useEngine();
  const [state, setState] = useState<CircuitState | undefined>(undefined);
  useEffect(() => {
    let pushed = false;
    const stop = engine.inspect((event) => {
      if (event.type !== 'circuit' || event.key !== key) return;
      pushed = true;
      setState(event.state);
    });
    // A breaker this engine never wrote is in its stored (default: closed) state.
    engine.circuitState(key).then((stored) => {
      if (!pushed) setState(stored);
    });
    return stop;
  }, [engine, key]);
  return state;
}
