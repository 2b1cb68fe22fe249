import { useState } from 'react';
import { useInterval } from './useInterval';

/** The wall clock, re-read every `ms` while `live`; frozen (no re-renders) otherwise. */
export function useNow(live: boolean, ms = 100): number {
  const [now, setNow] = useState(() => Date.now());
  useInterval(() => setNow(Date.now()), live ? ms : null);
  return live ? Date.now() : now;
}
