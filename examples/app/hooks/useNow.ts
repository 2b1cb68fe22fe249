import { useState } from 'react';
import { useEngine } from '../../../src/react/index';
import { useInterval } from './useInterval';

/**
 * The engine's clock (the time base of lanes and breakers), re-read every `ms` while `live` so a
 * bar or a countdown moves; frozen (no re-renders) otherwise.
 */
export function useNow(live: boolean, ms = 100): number {
  const { clock } = useEngine();
  const [now, setNow] = useState(() => clock.now());
  useInterval(() => setNow(clock.now()), live ? ms : null);
  return live ? clock.now() : now;
}
