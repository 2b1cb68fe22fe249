/**
 * Focus and network sources a test drives by hand, for `<StitchProvider focusSource onlineSource>`:
 * `set(false)` hides the app (or takes the network down) and tells every subscriber.
 */
import type { FocusSource, OnlineSource } from '../../src/react/index';

function manualSource() {
  const listeners = new Set<() => void>();
  let up = true;
  return {
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    now: () => up,
    /** Sets the state and tells every subscriber (a focus or a reconnect when `true`). */
    set(value: boolean) {
      up = value;
      for (const listener of [...listeners]) listener();
    },
    /** How many subscribe now. */
    subscribers: () => listeners.size,
  };
}

export type ManualFocus = FocusSource & ReturnType<typeof manualSource>;
export type ManualOnline = OnlineSource & ReturnType<typeof manualSource>;

export function manualFocus(): ManualFocus {
  const source = manualSource();
  return { ...source, isVisible: source.now };
}

export function manualOnline(): ManualOnline {
  const source = manualSource();
  return { ...source, isOnline: source.now };
}
