/**
 * The count loop every arm process runs: sets the arm up, warms it up, then runs
 * {@link Arm.steps} steps between two calls of `os.getPriority()`, the marker: run with
 * `--dump-before=uv_os_getpriority`, callgrind writes its counters at each, so the second dump
 * holds the measured steps and little else. Steps are awaited one after the other, each with its
 * own number.
 */
import { getPriority } from 'node:os';
import type { Arm } from './arms';

/** Runs `arm`'s warm-up and counted steps, then exits the process. */
export async function countSteps(arm: Arm): Promise<never> {
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
}
