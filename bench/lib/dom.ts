/**
 * Preloaded (`node --import`) by the React suites, before React DOM is evaluated: React decides
 * at module load whether a DOM exists. As in test/helpers/happyDom.setup.ts, only what Node lacks
 * is taken from happy-dom (document, window, elements, events), so every library under test keeps
 * Node's own fetch, AbortController, Headers and Response: an abort reaches a real socket.
 */
import { Window } from 'happy-dom';

const window = new Window({ url: 'http://localhost/' });
const globals = globalThis as Record<string, unknown>;
for (const key of Object.getOwnPropertyNames(window)) {
  if (!(key in globalThis)) globals[key] = (window as unknown as Record<string, unknown>)[key];
}
globals.window = globalThis;
// Not a test: React schedules on its own, as in a browser, with no act() warnings.
globals.IS_REACT_ACT_ENVIRONMENT = false;
