import { type ReactNode, useContext, useEffect, useRef } from 'react';
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
export function StitchScope({ resetKey, children }: StitchScopeProps) {
  const parent = useContext(ScopeContext);
  const state = useRef<ScopeState | undefined>(undefined);
  // A new key gets a new controller at render; the old one is aborted once the change commits.
  // So does a parent's reset (a new parent signal): the parent aborts its old signal only after
  // this scope has stopped listening to it, so following it by its abort alone would miss it.
  if (!state.current || !Object.is(state.current.key, resetKey) || state.current.parent !== parent) {
    state.current = { key: resetKey, parent, controller: new AbortController(), mounted: false };
  }
  const current = state.current;

  useEffect(() => {
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
      if (state.current !== current) {
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
