import type { CancelTimer, Engine } from '../index';
import { sharedContext } from './context';

/**
 * Tells hooks when the app is looked at again. `subscribe`'s listener is called on every change
 * (a focus, a visibility change); `isVisible()` says whether the app is visible now.
 */
export interface FocusSource {
  /** Calls `listener` on every change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** Whether the app is visible now (polling pauses while it is not). */
  isVisible(): boolean;
}

/** Tells hooks when the network comes back; `isOnline()` says whether it is up now. */
export interface OnlineSource {
  /** Calls `listener` on every change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** Whether the network is up now. */
  isOnline(): boolean;
}

/**
 * The refetch triggers of `useStitch` and `useStitchInfinite`, which `<StitchProvider defaults>`
 * can turn on for every hook.
 */
export interface RefetchTriggers {
  /**
   * Refetch when the app becomes visible or focused again, unless the data is fresh (younger than
   * `staleTime` or the stitch's `cache.ttl`). @default false
   */
  refetchOnFocus?: boolean | undefined;
  /** Refetch when the network comes back, unless the data is fresh. @default false */
  refetchOnReconnect?: boolean | undefined;
  /**
   * Refetch every this many ms while the app is visible and online (an offline poll would only
   * fail; `refetchOnReconnect` refetches at once when the network is back). A poll is scheduled
   * only once the previous request for the key has settled, so polls never overlap; a hook whose
   * poll is due joins a request another reader started for the key (with `coalesce: false`, it
   * waits a period after that request instead). `0` or `false`: no polling (a hook's `false`
   * stops a provider's default). @default 0
   */
  refetchInterval?: number | false | undefined;
}

/** What `StitchProvider` hands its hooks besides the engine. */
export interface TriggerSettings {
  defaults: RefetchTriggers;
  focus: FocusSource;
  online: OnlineSource;
}

/** Listens to `events` on the window and the document, where they are (not on a server, nor in React Native). */
const listen =
  (events: ReadonlyArray<[target: 'window' | 'document', type: string]>) =>
  (listener: () => void): (() => void) => {
    const on = events.flatMap(([name, type]) => {
      const target = (globalThis as Partial<Record<typeof name, EventTarget>>)[name];
      return typeof target?.addEventListener === 'function' ? [[target, type] as const] : [];
    });
    for (const [target, type] of on) target.addEventListener(type, listener);
    return () => {
      for (const [target, type] of on) target.removeEventListener(type, listener);
    };
  };

/** The browser's focus: `visibilitychange` on the document and `focus` on the window. */
export const browserFocus: FocusSource = {
  subscribe: listen([
    ['document', 'visibilitychange'],
    ['window', 'focus'],
  ]),
  isVisible: () => typeof document === 'undefined' || document.visibilityState !== 'hidden',
};

/** The browser's network state: `online` and `offline` on the window. */
export const browserOnline: OnlineSource = {
  subscribe: listen([
    ['window', 'online'],
    ['window', 'offline'],
  ]),
  isOnline: () => typeof navigator === 'undefined' || navigator.onLine !== false,
};

/** The provider's trigger settings; the browser's sources and no defaults outside a provider. */
export const TriggerContext = /* @__PURE__ */ sharedContext<TriggerSettings>('triggerContext', {
  defaults: {},
  focus: browserFocus,
  online: browserOnline,
});

/** What the triggers need of a hook's observer. */
export interface TriggerTarget {
  /** Hears every change of the hook's key (the observer's own listener set, not another cache reader). */
  subscribe(listener: () => void): () => void;
  /** A background refetch; `always`: even if the data is fresh, as polls do. */
  refetchInBackground(always: boolean): void;
  /** Whether the hook's data is being fetched. @default whether a request for the key is in flight */
  fetching?: (() => boolean) | undefined;
}

/**
 * Wires one hook's triggers for `key` and returns what undoes it.
 *
 *     poll timer:  armed ── fires → refetch ── fetching ······ settled ── armed ── fires …
 *                  (never armed while a request for the key is in flight, nor while hidden
 *                   or offline; a request another reader starts while it is armed is joined
 *                   as its poll, when the stitch coalesces: `shares`)
 */
export function watchTriggers(
  engine: Engine,
  key: string | undefined,
  triggers: Required<RefetchTriggers>,
  sources: Pick<TriggerSettings, 'focus' | 'online'>,
  observer: TriggerTarget,
  shares: boolean,
): () => void {
  const { refetchOnFocus, refetchOnReconnect, refetchInterval } = triggers;
  const every = refetchInterval || 0;
  const { focus, online } = sources;
  const refetch = observer.refetchInBackground;
  const stops: Array<() => void> = [];
  let timer: CancelTimer | undefined;
  let live = true;
  const disarm = () => {
    timer?.();
    timer = undefined;
  };
  if (key === undefined) return () => {};
  const fetching = observer.fetching ?? (() => engine.getSnapshot(key).fetching);
  /**
   * Another reader's request for the key began while this hook's poll was due: it is this poll
   * too, joined as a reference of the hook's own, so the hook that sent it can unmount without
   * hanging up a request the other pollers wait on. Joined a microtask later, once every listener
   * of the change has run (see the observer's `watch`), if the request is still in flight.
   */
  const join = () =>
    queueMicrotask(() => {
      if (live && fetching()) refetch(true);
    });
  const arm = () => {
    if (timer || !focus.isVisible() || !online.isOnline() || fetching()) return;
    timer = engine.clock.schedule(every, () => {
      timer = undefined;
      refetch(true);
      // A poll that sent nothing (the hook was waiting out its debounce) waits a period again.
      arm();
    });
  };
  const polls = every > 0;
  if (polls) {
    stops.push(
      observer.subscribe(() => {
        if (!fetching()) return arm();
        // A stitch that does not coalesce has nothing to join: its poll waits a period after.
        if (timer && shares) join();
        disarm();
      }),
    );
    arm();
  }
  /** Polling pauses while `up()` is false; back up, it resumes, and refetches if `refetchWhenUp`. */
  const pauseWhileDown = (source: FocusSource | OnlineSource, up: () => boolean, refetchWhenUp: boolean) => {
    if (!refetchWhenUp && !polls) return;
    stops.push(
      source.subscribe(() => {
        if (!up()) return disarm();
        if (refetchWhenUp) refetch(false);
        if (polls) arm();
      }),
    );
  };
  pauseWhileDown(focus, () => focus.isVisible(), refetchOnFocus);
  pauseWhileDown(online, () => online.isOnline(), refetchOnReconnect);
  return () => {
    live = false;
    disarm();
    for (const stop of stops) stop();
  };
}
