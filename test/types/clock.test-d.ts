import { expectTypeOf, it } from 'vitest';
import type { Clock } from '../../src/index';
import { createManualClock } from '../../src/testing/index';

it('a manual clock is a Clock', () => {
  expectTypeOf(createManualClock()).toExtend<Clock>();
  expectTypeOf(createManualClock().sleep).parameters.toEqualTypeOf<[ms: number, signal?: AbortSignal]>();
});
