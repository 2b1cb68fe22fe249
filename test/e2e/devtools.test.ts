/**
 * The devtools panel in the demo, in Debian's Chromium: typing into the search page must give one
 * lane per request the vendor's ledger saw — the superseded ones cancelled with their socket
 * closed, the last one answered. Screenshots of the panel are written only when
 * STITCH_SCREENSHOTS=1 (`STITCH_SCREENSHOTS=1 npx vitest run --project e2e test/e2e/devtools.test.ts`).
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { openPage, serveDemo, shoot } from './browser';

const poll = { timeout: 15_000, interval: 50 };
const session = serveDemo();

/** The search lanes the panel shows, as counts comparable with the ledger's search row. */
async function laneCounts(page: Page) {
  const lanes = page.locator('[data-testid="devtools-lane"][data-stitch="search"]');
  const closed = lanes.filter({ has: page.locator('[data-testid="devtools-cancel"][data-socket="closed"]') });
  return {
    requests: await lanes.locator('[data-testid="devtools-attempt"]').count(),
    hungUp: await closed.count(),
    completed: await lanes.locator('[data-testid="devtools-attempt"][data-outcome="answered"]').count(),
  };
}

it("the panel's lanes for a typed search agree with the vendor's ledger, and it is keyboard usable and fits 390 px", async () => {
  await session.vendor.reset();
  const { page, errors } = await openPage(session.browser, new URL('/search', session.demo.url).href);
  await page.getByRole('button', { name: 'Open Stitch devtools' }).click();
  const panel = page.getByRole('region', { name: 'Stitch devtools' });
  await panel.waitFor();

  const ledger = async () => {
    const { search } = (await session.vendor.ledger()).endpoints;
    return { requests: search.requests, hungUp: search.hungUp, completed: search.completed };
  };
  // A vendor slower than any keystroke, so each one supersedes a request still in flight; then a
  // fast one for the last key (latency is read as a request arrives).
  await session.vendor.setControls({ delay: 60_000 });
  await page.getByRole('searchbox', { name: 'Search people' }).click();
  await page.keyboard.type('ad');
  await expect.poll(ledger, poll).toEqual({ requests: 2, hungUp: 1, completed: 0 });
  await session.vendor.setControls({ delay: 0 });
  const word = 'ada';
  await page.keyboard.type('a');
  await page
    .getByTestId('results-summary')
    .filter({ hasText: `for “${word}”` })
    .waitFor();
  const expected = { requests: 3, hungUp: 2, completed: 1 };
  await expect.poll(ledger, poll).toEqual(expected);
  await expect.poll(() => laneCounts(page), poll).toEqual(expected);
  // Newest first: the answered query on top, each superseded one below with its reason.
  const lanes = panel.locator('[data-testid="devtools-lane"][data-stitch="search"]');
  expect(await lanes.evaluateAll((items) => items.map((item) => item.getAttribute('data-status')))).toEqual([
    'answered',
    'cancelled',
    'cancelled',
  ]);
  await expect.poll(() => lanes.nth(1).getByTestId('devtools-cancel').textContent()).toMatch(/socket closed/);
  await shoot(page, 'devtools-requests');

  // Keyboard: arrow keys move between the tabs; Escape closes the panel.
  await panel.getByRole('tab', { name: 'Requests' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect
    .poll(() => panel.getByRole('tab', { name: 'Cache' }).getAttribute('aria-selected'))
    .toBe('true');
  await panel.locator(`[data-testid="devtools-cache-entry"][data-key*="${word}"]`).first().waitFor();
  await shoot(page, 'devtools-cache');
  await page.keyboard.press('Escape');
  await panel.waitFor({ state: 'detached' });
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
    'Open Stitch devtools',
  );

  // 390 px wide: the panel stays inside the viewport.
  await page.setViewportSize({ width: 390, height: 800 });
  await page.getByRole('button', { name: 'Open Stitch devtools' }).click();
  const box = await panel.boundingBox();
  expect(box?.x).toBeGreaterThanOrEqual(0);
  expect((box?.x ?? 0) + (box?.width ?? Infinity)).toBeLessThanOrEqual(390);
  await shoot(page, 'devtools-390');
  // Its first shrinking press shrinks what is drawn (the size it keeps fits the viewport).
  await panel.getByRole('button', { name: /^Resize the panel/ }).press('ArrowRight');
  await expect.poll(async () => (await panel.boundingBox())?.width, poll).toBe((box?.width ?? 0) - 24);
  expect(errors).toEqual([]);
  await page.context().close();
});
