/**
 * Installs a happy-dom document on `globalThis`, taking from happy-dom only what Node lacks
 * (document, window, elements, events, ...), so the code under it keeps Node's own fetch,
 * AbortController, Headers and Response: an abort reaches a real socket, exactly as it would in
 * production. Free of vitest, so the React benchmarks (bench/lib/dom.ts) install the same DOM.
 */
import { Window } from 'happy-dom';

/**
 * Installs the document and returns its happy-dom window (to `happyDOM.close()` when done).
 * `act` sets `IS_REACT_ACT_ENVIRONMENT`: true under tests, false where React schedules on its own.
 */
export function installHappyDom({ act }: { act: boolean }): Window {
  const window = new Window({ url: 'http://localhost/' });
  const globals = globalThis as Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(window)) {
    if (!(key in globalThis)) globals[key] = (window as unknown as Record<string, unknown>)[key];
  }
  globals.window = globalThis;
  globals.IS_REACT_ACT_ENVIRONMENT = act;
  return window;
}
