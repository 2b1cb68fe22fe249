/**
 * One arm under callgrind: `node arm.mjs <arm>`. Sets the arm up, warms it up,
 * then counts {@link Arm.steps} steps between two calls of `os.getPriority()`, the marker: run with
 * `--dump-before=uv_os_getpriority`, callgrind writes its counters at each, so the second dump
 * holds the measured steps and little else. Steps are awaited one after the other, each with its
 * own number (a URL of its own, so nothing coalesces but the joiners of one step).
 */
import { getPriority } from 'node:os';
import { ARM_NAMES, ARMS, type ArmName } from './arms';

const name = process.argv[2];
if (!ARM_NAMES.includes(name as ArmName)) {
  throw new Error(`usage: node arm.mjs <${ARM_NAMES.join('|')}>`);
}
const arm = ARMS[name as ArmName];
const step = await arm.setup();
const warm = arm.warmUpSteps;
for (let i = 0; i < warm; i++) await step(i);
// The same heap to start from in every run, as far as the collector goes.
(globalThis as { gc?: () => void }).gc?.();
getPriority();
for (let i = 0; i < arm.steps; i++) await step(warm + i);
getPriority();
// Libraries may leave timers behind (timeouts, cooldowns): nothing after the marker counts.
process.exit(0);
