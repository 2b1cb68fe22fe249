/**
 * Preloaded (`node --import`) by the React suites, before React DOM is evaluated: React decides
 * at module load whether a DOM exists. The same document as the tests' (test/helpers/happyDom.ts):
 * only what Node lacks comes from happy-dom, so every library under test keeps Node's own fetch,
 * AbortController, Headers and Response: an abort reaches a real socket.
 */
import { installHappyDom } from '../../test/helpers/happyDom';

// Not a test: React schedules on its own, as in a browser, with no act() warnings.
installHappyDom({ act: false });
