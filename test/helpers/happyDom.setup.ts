/**
 * The `react` project: a happy-dom document in a Node environment. Only what Node lacks is taken
 * from happy-dom (document, window, elements, ...), so the engine keeps Node's own fetch,
 * AbortController, Headers and Response: the hooks are tested against a real socket, and an
 * abort reaches that socket exactly as it would in production.
 */
import { Window } from 'happy-dom';
import { afterAll } from 'vitest';

const window = new Window({ url: 'http://localhost/' });
const globals = globalThis as Record<string, unknown>;
for (const key of Object.getOwnPropertyNames(window)) {
  if (!(key in globalThis)) globals[key] = (window as unknown as Record<string, unknown>)[key];
}
globals.window = globalThis;
globals.IS_REACT_ACT_ENVIRONMENT = true;

afterAll(async () => {
  await window.happyDOM.close();
});
