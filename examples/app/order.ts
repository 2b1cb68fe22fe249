/**
 * The order the checkout page pays for, kept by the app rather than by the page (and in the tab's
 * session storage, across reloads). Leaving the page mid-payment resets the route's scope, which
 * aborts the charge after it may have reached the vendor (a reload aborts it too); paying for the
 * same order after coming back must go out under the same idempotency key.
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
/** Where the order outlives a reload of the tab, as a shop's cart would. */
const STORED = 'stitch-demo-order';
let current = stored() ?? open();

function open(): Order {
  const order = { key: mintKey(), amount: 4200, currency: 'EUR' };
  sessionStorage.setItem(STORED, JSON.stringify(order));
  return order;
}

function stored(): Order | undefined {
  try {
    const order = JSON.parse(sessionStorage.getItem(STORED) ?? 'null') as Order | null;
    return typeof order?.key === 'string' ? order : undefined;
  } catch {
    return undefined;
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The order being paid now, the same one across route changes and reloads until it is paid or replaced. */
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
