import { safely } from './events';

/**
 * The engine's one way to tell listeners: each subscription is its own entry (a function
 * subscribed twice hears twice, and each unsubscribe removes one), an unsubscribe is idempotent,
 * a listener that throws keeps no other from hearing, and a listener added or removed during an
 * emit does not change who hears that emit.
 */
export class Emitter<T> {
  // Made by the first subscription: most emitters (one per run) never get one.
  #listeners: Set<(value: T) => void> | undefined;

  /** How many subscriptions there are. */
  get size(): number {
    return this.#listeners?.size ?? 0;
  }

  /** Subscribes `listener`; returns the function that unsubscribes it (true the first time). */
  on(listener: (value: T) => void): () => boolean {
    const own = (value: T) => listener(value);
    this.#listeners ??= new Set();
    const listeners = this.#listeners;
    listeners.add(own);
    return () => listeners.delete(own);
  }

  /** Calls every listener subscribed now with `value`, in the order they subscribed. */
  emit(value: T): void {
    if (!this.#listeners?.size) return;
    for (const listener of [...this.#listeners]) safely(listener, value);
  }
}
