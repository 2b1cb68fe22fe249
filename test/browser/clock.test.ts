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
