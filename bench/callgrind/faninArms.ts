/**
 * The fan-in arms: one fan-in per step (bench/lib/fanin.tsx: 1,000 components mount at once on
 * one key, against the real node:http vendor), counted per component, after one fan-in that
 * loads and warms React and the library. Stitch and TanStack Query, with and without StrictMode.
 */

import { COMPONENTS, mountOnce } from '../lib/fanin';
import { LIBRARIES } from '../lib/libraries';
import type { Arm } from './arms';

export const FANIN_ARM_NAMES = [
  'faninStitch',
  'faninTanstack',
  'faninStitchStrict',
  'faninTanstackStrict',
] as const;
export type FaninArmName = (typeof FANIN_ARM_NAMES)[number];

const fanin = (name: 'stitch' | 'tanstack', strict: boolean): Arm => {
  const library = LIBRARIES.find((candidate) => candidate.name === name);
  if (!library) throw new Error(`bench:instructions: no library ${name}`);
  return {
    label: `fan-in, ${library.label}${strict ? ', StrictMode' : ''} (per component)`,
    callers: COMPONENTS,
    steps: 1,
    warmUpSteps: 1,
    // Interpreted under valgrind, one fan-in takes tens of seconds.
    setup: async () => () => mountOnce(library, strict, 600_000),
  };
};

export const FANIN_ARMS: Record<FaninArmName, Arm> = {
  faninStitch: fanin('stitch', false),
  faninTanstack: fanin('tanstack', false),
  faninStitchStrict: fanin('stitch', true),
  faninTanstackStrict: fanin('tanstack', true),
};
