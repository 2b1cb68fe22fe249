import { type ReactNode, useContext, useEffect, useRef, useState } from 'react';
import { checkOptions, STITCH_SCOPE } from './checkOptions';
import { ScopeContext } from './context';
import { onAbort } from './follow';

/** Props of {@link StitchScope}. */
export interface StitchScopeProps {
  /** When this changes (a pathname, say), every reference in the subtree is aborted. */
  resetKey?: unknown | undefined;
  children?: ReactNode | undefined;
}

interface ScopeState {
  readonly key: unknown;
  readonly parent: AbortSignal | undefined;
  readonly controller: AbortController;
  mounted: boolean;
}

/** A signal that never aborts, for work started outside any scope. */
const UNSCOPED = new AbortController().signal;

/**
 * Route-change cancellation: aborts every reference of its subtree (hooks, and work started with
 * `useStitchScope()`) when `resetKey` changes or the scope unmounts. Hooks below restart on the
 * new scope without showing the abort; a parent scope's reset resets this one too.
 */
export function StitchScope(props: StitchScopeProps) {
  checkOptions('StitchScope', undefined, props, STITCH_SCOPE);
  const { resetKey, children } = props;
  const parent = useContext(ScopeContext);
  // The scope the last commit showed, and the one the last render of another chose (a navigation
  // that may still be pending, or the one just committed). A new key (or a parent's
  // reset: a new parent signal, whose old one the parent aborts only after this scope stopped
  // following it) gets a new controller at render, aborted once the change commits. A render
  // thrown away (a transition undone before it committed) changes nothing: going back to the key
  // on screen is the scope on screen.
  const committed = useRef<ScopeState | undefined>(undefined);
  const rendered = useRef<ScopeState | undefined>(undefined);
  const [, revive] = useState(0);
  const matches = (state: ScopeState | undefined): state is ScopeState =>
    state !== undefined && Object.is(state.key, resetKey) && state.parent === parent;
  const current = matches(committed.current)
    ? committed.current
    : matches(rendered.current)
      ? rendered.current
      : { key: resetKey, parent, controller: new AbortController(), mounted: false };
  // A render of the scope on screen (an urgent update while a navigation is pending) leaves the
  // pending one's scope as it is: React's next try of that navigation renders on it again.
  if (current !== committed.current) rendered.current = current;

  useEffect(() => {
    // Shown again after a hide (`<Activity>`) whose cleanup aborted it: a live controller, and a
    // render to hand it down. Not after a parent's abort, which ended this scope for good.
    if (current.controller.signal.aborted && !parent?.aborted) {
      const live = { ...current, controller: new AbortController(), mounted: false };
      committed.current = live;
      rendered.current = live;
      revive((n) => n + 1);
      return;
    }
    committed.current = current;
    current.mounted = true;
    const { controller } = current;
    // A parent's abort (an outer scope unmounting) ends this scope too, with its reason.
    const follow = () => controller.abort(parent?.reason);
    if (parent?.aborted) follow();
    const detach = parent ? onAbort(parent, follow) : () => {};
    return () => {
      detach();
      current.mounted = false;
      // A reset aborts at once: React runs this before the effects that start the subtree's hooks
      // on the new scope, so none of them joins a request of the old one (with two readers of a
      // key, the first to restart would join the second's old request and keep it going).
      if (rendered.current !== current) {
        controller.abort(new DOMException('The scope was reset', 'AbortError'));
        return;
      }
      // An unmount is deferred, so StrictMode's simulated unmount and remount keep the scope alive.
      queueMicrotask(() => {
        if (!current.mounted) controller.abort(new DOMException('The scope unmounted', 'AbortError'));
      });
    };
  }, [current, parent]);

  return <ScopeContext.Provider value={current.controller.signal}>{children}</ScopeContext.Provider>;
}

/** The signal of the nearest `StitchScope`, for work started in event handlers. */
export function useStitchScope(): AbortSignal {
  return useContext(ScopeContext) ?? UNSCOPED;
}
