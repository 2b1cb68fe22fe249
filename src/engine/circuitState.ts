/**
 * What a breaker reads from the store is checked before it is believed: a store shared with other
 * code (or a corrupt one) may hold anything under `circuit:<key>`, and a state without `until`
 * would keep the breaker open for ever with `retryAfter` NaN.
 */
import type { Bucket, CircuitLimits, CircuitState } from './circuit';
import type { SharedState } from './shared';
import type { LocalStore, Store } from './store';

/** A breaker with nothing recorded: what an absent entry means. */
export const CLOSED: CircuitState = { state: 'closed', failures: 0 };

const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;

const isBucket = (value: unknown): boolean => {
  const b = value as Bucket | null;
  return (
    typeof b === 'object' && b !== null && isTime(b.start) && isCount(b.successes) && isCount(b.failures)
  );
};

/**
 * The stored value as a breaker state: absent → closed, a well-formed state → itself, anything
 * else (`'garbage'`, `42`, `{ state: 'open' }` without `until`) → `undefined`, i.e. corrupt.
 */
export function asState(value: unknown): CircuitState | undefined {
  if (value === undefined || value === null) return CLOSED;
  if (typeof value !== 'object') return undefined;
  const s = value as Record<string, unknown>;
  switch (s.state) {
    case 'closed':
      return isCount(s.failures) &&
        (s.buckets === undefined || (Array.isArray(s.buckets) && s.buckets.every(isBucket)))
        ? (value as CircuitState)
        : undefined;
    case 'open':
      return isTime(s.until) ? (value as CircuitState) : undefined;
    case 'half-open': {
      const lease = s.lease as { id?: unknown; expires?: unknown } | null;
      const valid =
        lease === null ||
        (typeof lease === 'object' && typeof lease.id === 'string' && isTime(lease.expires));
      return valid ? (value as CircuitState) : undefined;
    }
    default:
      return undefined;
  }
}

/** A short, printable account of a corrupt stored value, for the `store` event. */
export function describeStored(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? `'${value}'` : (JSON.stringify(value) ?? String(value));
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Limits for a `read`, which changes nothing and so uses none. */
const READ_LIMITS: CircuitLimits = { failures: 1, cooldown: 0, probeTimeout: 0, window: undefined };

/**
 * The stored state of breaker `key`, changing nothing: through the store's own operation where it
 * has one (`shared`), else read from `store` (a corrupt value reads as closed).
 */
export async function readCircuit(
  shared: Pick<SharedState, 'circuit'> | undefined,
  store: Store | LocalStore | undefined,
  key: string,
): Promise<CircuitState> {
  if (shared) return (await shared.circuit(key, { type: 'read' }, READ_LIMITS)).to;
  return asState(await store?.get(`circuit:${key}`)) ?? CLOSED;
}
