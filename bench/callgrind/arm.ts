/**
 * One in-process arm under callgrind: `node arm.mjs <arm>`, counted by {@link countSteps}. Each
 * step has its own number (a URL of its own, so nothing coalesces but the joiners of one step).
 */
import { ARM_NAMES, ARMS, type StubArmName } from './arms';
import { countSteps } from './counted';

const name = process.argv[2];
if (!ARM_NAMES.includes(name as StubArmName)) {
  throw new Error(`usage: node arm.mjs <${ARM_NAMES.join('|')}>`);
}
await countSteps(ARMS[name as StubArmName]);
