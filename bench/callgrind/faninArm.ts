/**
 * One fan-in arm under callgrind: `node --import dom.mjs faninArm.mjs <arm>`, counted by
 * {@link countSteps}. An entry of its own, so React and the peers' hooks load only here, never
 * into the in-process arms' heaps.
 */
import { countSteps } from './counted';
import { FANIN_ARM_NAMES, FANIN_ARMS, type FaninArmName } from './faninArms';

const name = process.argv[2];
if (!FANIN_ARM_NAMES.includes(name as FaninArmName)) {
  throw new Error(`usage: node --import dom.mjs faninArm.mjs <${FANIN_ARM_NAMES.join('|')}>`);
}
await countSteps(FANIN_ARMS[name as FaninArmName]);
