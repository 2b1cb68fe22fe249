import type { CircuitState } from '../../../src/index';
import { useCircuitState } from '../hooks/useCircuitState';
import { useNow } from '../hooks/useNow';

function describe(state: CircuitState | undefined, failures: number, now: number): string {
  if (!state) return '…';
  switch (state.state) {
    case 'closed':
      return `closed · ${state.failures}/${failures} failures`;
    case 'open':
      return now < state.until
        ? `open · probe in ${((state.until - now) / 1000).toFixed(1)} s`
        : 'open · next request probes';
    case 'half-open':
      return state.lease ? 'half-open · probe in flight' : 'half-open · next request probes';
  }
}

/** The engine's breaker for `circuitKey`, live: closed, open with its cooldown, or half-open. */
export function BreakerBadge({ circuitKey, failures }: { circuitKey: string; failures: number }) {
  const state = useCircuitState(circuitKey);
  const now = useNow(state?.state === 'open');
  return (
    <output
      className={`breaker breaker-${state?.state ?? 'unknown'}`}
      data-testid="breaker"
      aria-live="polite"
    >
      {describe(state, failures, now)}
    </output>
  );
}
