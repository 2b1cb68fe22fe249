import { useEffect, useState } from 'react';
import { useStitchInspector } from '../../../src/devtools/index';
import type { CircuitState } from '../../../src/index';
import { useEngine } from '../../../src/react/index';
import { useNow } from '../hooks/useNow';

/** The state in words: what a screen reader announces, so it changes only when the state does. */
function describe(state: CircuitState | undefined, failures: number, now: number): string {
  if (!state) return '…';
  switch (state.state) {
    case 'closed':
      return `closed · ${state.failures}/${failures} failures`;
    case 'open':
      return now < state.until ? 'open' : 'open · next request probes';
    case 'half-open':
      return state.lease ? 'half-open · probe in flight' : 'half-open · next request probes';
  }
}

/**
 * The engine's breaker for `key` as the devtools model has it, pushed by `engine.inspect` on every
 * write (never polled); until this engine writes it, its stored state, read once.
 */
function useBreaker(key: string): CircuitState | undefined {
  const engine = useEngine();
  const pushed = useStitchInspector((snapshot) => snapshot.breakers.find((breaker) => breaker.key === key));
  const [stored, setStored] = useState<CircuitState | undefined>(undefined);
  useEffect(() => {
    let mounted = true;
    engine.circuitState(key).then((state) => {
      if (mounted) setStored(state);
    });
    return () => {
      mounted = false;
    };
  }, [engine, key]);
  return pushed?.state ?? stored;
}

/**
 * The engine's breaker for `circuitKey`, live: closed, open with its cooldown, or half-open. The
 * state is a polite live region; the cooldown's countdown ticks beside it, outside the region, so it
 * is read on demand and never announced every tick.
 */
export function BreakerBadge({ circuitKey, failures }: { circuitKey: string; failures: number }) {
  const state = useBreaker(circuitKey);
  const now = useNow(state?.state === 'open');
  const cooling = state?.state === 'open' && now < state.until;
  return (
    <span className={`breaker breaker-${state?.state ?? 'unknown'}`} data-testid="breaker">
      <output aria-live="polite" data-testid="breaker-state">
        {describe(state, failures, now)}
      </output>
      {cooling && ` · probe in ${((state.until - now) / 1000).toFixed(1)} s`}
    </span>
  );
}
