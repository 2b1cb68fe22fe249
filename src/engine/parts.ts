/**
 * Engine-wide state that only some stitches need (breakers, throttle queues, retry budgets) is a
 * {@link Part}: the policy that needs it names it, and the engine makes it on first use. The
 * engine itself never imports a policy, so an app whose stitches have no breaker bundles no
 * breaker code.
 */
import type { Clock } from './clock';
import type { InspectEvent } from './inspect';
import type { SharedState } from './shared';
import type { LocalStore, Store } from './store';

/** What a part is made from: the engine's clock, its store, and its inspector. */
export interface PartHost {
  readonly clock: Clock;
  /** The store's own operations, when it implements them (Redis's); each bounded by `storeTimeout`. */
  readonly shared: SharedState | undefined;
  /** The engine's store (its own memory store by default), bounded likewise. */
  readonly store: Store | LocalStore;
  /** Tells whoever inspects the engine of a change; `build` runs only while someone listens. */
  readonly notify: (build: () => InspectEvent) => void;
}

/** A piece of engine-wide state, made once per engine by the first call that needs it. */
export interface Part<T> {
  /**
   * What the engine knows it by: the ESM and CommonJS copies of the package each have their own
   * part objects, and stitches of both on one engine must share one throttle, one budget. Its
   * `@` version changes with the shape of its state, which copies of two versions cannot share.
   */
  readonly name: string;
  create(host: PartHost): T;
  /** What an inspector that starts listening hears first about this part's state, at `at`. */
  current?(state: T, at: number): Iterable<InspectEvent>;
}

/** The parts one engine has made so far. */
export interface Parts {
  /** The engine's instance of `part`, made now if this is its first use. */
  use<T>(part: Part<T>): T;
  /** What a new inspector hears first about every part made so far, at `at`. */
  current(at: number): InspectEvent[];
}

/** Makes each part on first use, over `host`. */
export function createParts(host: PartHost): Parts {
  const made = new Map<unknown, { part: Part<unknown>; state: unknown }>();
  return {
    use<T>(part: Part<T>): T {
      // A part of a copy that names none (an older build) is known by itself, as it was.
      const id = part.name ?? part;
      const known = made.get(id);
      if (known) return known.state as T;
      const state = part.create(host);
      made.set(id, { part: part as Part<unknown>, state });
      return state;
    },
    current: (at) => [...made.values()].flatMap(({ part, state }) => [...(part.current?.(state, at) ?? [])]),
  };
}
