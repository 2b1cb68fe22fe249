import { expect, it } from 'vitest';
import { createRealClock } from '../../src/engine/clock';

it('the real clock sleeps and aborts in Chromium', async () => {
  const clock = createRealClock();
  const controller = new AbortController();
  const reason = new Error('stop');
  const sleeping = clock.sleep(60_000, controller.signal);
  controller.abort(reason);
  await expect(sleeping).rejects.toBe(reason);
  expect(navigator.userAgent).toMatch(/Chrome/);
});

it('the real clock has a monotonic now() and a wall-clock wallNow() in Chromium', () => {
  const clock = createRealClock();
  const first = clock.now();
  expect(clock.now()).toBeGreaterThanOrEqual(first);
  expect(Math.abs(clock.wallNow() - Date.now())).toBeLessThan(1_000);
});
