import { useEffect, useRef } from 'react';

/** Calls `callback` every `ms` while mounted (and while `ms` is not null). */
export function useInterval(callback: () => void, ms: number | null) {
  const latest = useRef(callback);
  latest.current = callback;
  useEffect(() => {
    if (ms === null) return;
    const id = window.setInterval(() => latest.current(), ms);
    return () => window.clearInterval(id);
  }, [ms]);
}
