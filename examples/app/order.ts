/**
 * The order the checkout page pays for, kept by the app rather than by the page. Leaving the page
 * mid-payment resets the route's scope, which aborts the charge after it may have reached the
 * vendor; paying for the same order after coming back must go out under the same idempotency key.
 * So the key belongs to the order (`charge`'s `keyOf` reads it from the body), not to the page's
 * `useStitchMutation`, whose intent ends when the page unmounts.
 */
import { useSyncExternalStore } from 'react';
import { mintKey } from '../../src/index';

/** One order: 42.00 EUR in minor units, as the vendor takes it, and the key that pays it. */
export interface Order {
  readonly key: string;
  readonly amount: number;
  readonly currency: string;
}

const listeners = new Set<() => void>();
let current = open();

function open(): Order {
  return { key: mintKey(), amount: 4200, currency: 'EUR' };
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The order being paid now, the same one across route changes until it is paid or replaced. */
export function useOrder(): Order {
  return useSyncExternalStore(subscribe, () => current);
}

/**
 * Ends the order under `key` (paid, or given up for a new one): the next payment is a new order
 * under a new key. A key that is no longer the current order's (an old order's late success) ends
 * nothing.
 */
export function endOrder(key: string): void {
  if (current.key !== key) return;
  current = open();
  for (const listener of listeners) listener();
}
