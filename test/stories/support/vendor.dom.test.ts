/**
 * The stories' vendor (msw handlers) under msw's node server: held requests wait for `release`, a
 * client's abort reaches the handler through the request's signal and is counted as a hang-up, the
 * faults fail requests as the real vendor does, and a charge is made once per idempotency key.
 */
import { expect, it } from 'vitest';
import { createStoryVendor, type StoryVendorOptions } from '../../../stories/support/vendor';
import { server } from '../../helpers/msw';

const ORIGIN = 'http://vendor.test';
/** Polls vendor state (it changes inside msw's handlers); bounded generously for a loaded machine. */
const settles = { timeout: 5_000, interval: 5 };

function vendorWith(options: StoryVendorOptions) {
  const vendor = createStoryVendor(options);
  server.use(...vendor.handlers);
  return vendor;
}

it('holds a search until it is released, then answers it and counts it completed', async () => {
  const vendor = vendorWith({ hold: ['search'] });
  const answer = fetch(`${ORIGIN}/api/search?q=ada&limit=2`);
  await expect.poll(() => vendor.held('search'), settles).toBe(1);
  expect(vendor.pending('search')).toBe(1);

  expect(vendor.release('search')).toBe(1);
  const body = await (await answer).json();
  expect(body).toMatchObject({ query: 'ada', items: [expect.any(Object), expect.any(Object)] });
  expect(vendor.counts('search')).toEqual({ requests: 1, completed: 1, hungUp: 0, failed: 0 });
});

it('sees the client abort through the request signal: a hang-up, with the abort reason', async () => {
  const vendor = vendorWith({ hold: ['report'] });
  const controller = new AbortController();
  const reason = new Error('left the page');
  const answer = fetch(`${ORIGIN}/api/report?id=q3`, { signal: controller.signal });
  await expect.poll(() => vendor.held('report'), settles).toBe(1);

  controller.abort(reason);
  await expect(answer).rejects.toBe(reason);
  await expect.poll(() => vendor.counts('report').hungUp, settles).toBe(1);
  expect(vendor.held('report')).toBe(0);
  expect(vendor.requests('report')).toEqual([expect.objectContaining({ outcome: 'hungUp', reason })]);
});

it('fails requests with the faults: a dropped connection, a 503 with Retry-After', async () => {
  const vendor = vendorWith({ reset: true });
  await expect(fetch(`${ORIGIN}/api/search?q=ada`)).rejects.toThrow(TypeError);
  vendor.set({ reset: false, failRate: 1 });
  const failed = await fetch(`${ORIGIN}/api/flaky-search?q=ada`);
  expect([failed.status, failed.headers.get('retry-after')]).toEqual([503, '1']);
  expect(vendor.counts('search')).toEqual({ requests: 1, completed: 0, hungUp: 0, failed: 1 });
  expect(vendor.counts('flaky-search')).toEqual({ requests: 1, completed: 0, hungUp: 0, failed: 1 });
});

it('makes one charge per idempotency key; the same key again is a duplicate', async () => {
  const vendor = vendorWith({ chargeDelay: 0 });
  const pay = () =>
    fetch(`${ORIGIN}/api/charges`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k1' },
      body: JSON.stringify({ amount: 4200, currency: 'eur' }),
    });
  const first = await pay();
  const again = await pay();
  expect([first.status, again.status]).toEqual([201, 200]);
  expect(await again.json()).toMatchObject({ key: 'k1', amount: 4200, currency: 'EUR', duplicate: true });
  expect(vendor.charges()).toHaveLength(1);
});
