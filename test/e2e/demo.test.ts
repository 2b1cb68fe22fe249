/**
 * The demo, end to end: `startDemo` (the code behind `npm start`) serves the app and the vendor,
 * Debian's Chromium drives each page, and the page's own counters are checked against the vendor's
 * ledger; each page is also audited for layout (at desktop and phone widths), text contrast and
 * raw timestamps. Every wait is on DOM or ledger state, never a sleep. With STITCH_SCREENSHOTS=1
 * (`npm run screenshots`) the screenshots in docs/screenshots are refreshed; otherwise nothing is
 * written, so a run leaves the work tree as it found it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { PAGES } from '../../examples/app/pages';
import { announcements, contrastProblems, isoTimestamps, layoutProblems, recordAnnouncements } from './audit';
import { counter, ledgerRow, openPage, serveDemo, shoot, VIEWPORT } from './browser';

/** Phone widths the demo must work at: a small Android and an iPhone. */
const PHONES = [360, 390];
/** Far faster than SLOW_SEARCH, so each keystroke supersedes a request in flight even on a loaded machine. */
const KEY_DELAY = 60;
/** The search delay while a test types: the vendor's 300 ms default leaves too little slack under load. */
const SLOW_SEARCH = { delay: 1_500 };
const poll = { timeout: 15_000, interval: 50 };

const session = serveDemo();
const pages: Page[] = [];

beforeEach(async () => {
  for (const page of pages.splice(0)) await page.context().close();
  await session.vendor.reset();
});

async function open(path: string, viewport = VIEWPORT) {
  const opened = await openPage(session.browser, new URL(path, session.demo.url).href, viewport);
  pages.push(opened.page);
  return opened;
}

/** Layout, contrast and timestamps of the page as it is now: no problem of any kind. */
async function expectSeenWell(page: Page) {
  expect(await layoutProblems(page)).toEqual([]);
  expect(await contrastProblems(page)).toEqual([]);
  expect(await isoTimestamps(page)).toEqual([]);
}

/** The page's counters and the vendor's ledger row for one endpoint, side by side. */
async function agreement(page: Page, endpoint: 'search' | 'flaky-search') {
  const row = (await session.vendor.ledger()).endpoints[endpoint];
  return {
    page: {
      sent: await counter(page, 'sent'),
      cancelled: await counter(page, 'cancelled'),
      completed: await counter(page, 'completed'),
      failed: await counter(page, 'failed'),
    },
    vendor: { sent: row.requests, cancelled: row.hungUp, completed: row.completed, failed: row.failed },
  };
}

const searchCounts = (page: Page) => agreement(page, 'search');

/** Waits until the page's counters and the vendor's row agree, and resolves what they agree on. */
async function agreed(page: Page, endpoint: 'search' | 'flaky-search') {
  const compare = async () => {
    const { page: shown, vendor: saw } = await agreement(page, endpoint);
    return isDeepStrictEqual(shown, saw) ? 'agree' : JSON.stringify({ page: shown, vendor: saw });
  };
  await expect.poll(compare, poll).toBe('agree');
  return (await agreement(page, endpoint)).page;
}

/**
 * Types `word` into the focused search box (`delay` ms between keys), waits for its results, then
 * until the page's counters and the vendor's ledger both read `expected`.
 */
async function typeAndAgree(
  page: Page,
  word: string,
  expected: { sent: number; cancelled: number; completed: number; failed: number },
  delay = KEY_DELAY,
) {
  await page.keyboard.type(word, { delay });
  await page
    .getByTestId('results-summary')
    .filter({ hasText: `for “${word}”` })
    .waitFor();
  await expect.poll(() => searchCounts(page), poll).toEqual({ page: expected, vendor: expected });
}

describe('the demo', () => {
  // Each page opened by its own URL (a reload, a shared link): the demo serves the app there,
  // never a source module of the same name.
  it.each(PAGES.map(({ path }) => path))('loads %s with no console error', async (path) => {
    const { page, errors } = await open(path);
    await page.getByRole('navigation', { name: 'Demo pages' }).waitFor();
    await expectSeenWell(page);
    expect(errors).toEqual([]);
  });

  it('search: one completed request per settled query, the rest cancelled; page and vendor agree', async () => {
    await session.vendor.setControls(SLOW_SEARCH);
    const { page, errors } = await open('/search');
    const box = page.getByRole('searchbox', { name: 'Search people' });

    // Without debounce: every keystroke sends, and re-keying aborts the one before.
    await box.click();
    const first = 'margaret';
    await typeAndAgree(page, first, {
      sent: first.length,
      cancelled: first.length - 1,
      completed: 1,
      failed: 0,
    });
    expect(await counter(page, 'keystrokes')).toBe(first.length);
    expect(await page.getByTestId('breaker').textContent()).toMatch(/^closed · 0\//);
    // The page's own ledger panel has caught up too, so the screenshot tells one story.
    await expect
      .poll(() => ledgerRow(page, 'search'), poll)
      .toEqual({ requests: first.length, completed: 1, hungUp: first.length - 1, failed: 0 });
    await expectSeenWell(page);
    await shoot(page, 'search');

    // An empty box is idle: no request, and not the old results dimmed as if something were loading.
    await box.fill('');
    await page.getByText('Type a name, a company or a city.').waitFor();
    expect(await page.getByTestId('results-summary').count()).toBe(0);
    expect(await page.getByText('(previous query, loading', { exact: false }).count()).toBe(0);
    expect(await counter(page, 'sent')).toBe(first.length);

    // With debounce: keystrokes inside the window are never sent at all. Typed with no pause of
    // its own: a loaded machine's stall between two keys is all that could reach the window.
    await page.getByRole('checkbox', { name: /Debounce/ }).check();
    await box.click();
    const second = 'lovelace';
    await typeAndAgree(
      page,
      second,
      { sent: first.length + 1, cancelled: first.length - 1, completed: 2, failed: 0 },
      0,
    );
    expect(errors).toEqual([]);
  });

  it('search with the Reset fault: each dropped connection is one request, failed, on both sides', async () => {
    const { page, errors } = await open('/search');
    await page.getByRole('checkbox', { name: /^Reset/ }).check();
    await expect.poll(async () => (await session.vendor.controls()).reset, poll).toBe(true);
    const box = page.getByRole('searchbox', { name: 'Search people' });
    // The page has made other requests (its controls, the toggled fault), so the browser may hold
    // kept-alive connections a dropped one could be re-sent on: the vendor must still see one
    // request per query.
    for (const [n, word] of ['ada', 'grace'].entries()) {
      await box.fill(word);
      await expect
        .poll(() => searchCounts(page), poll)
        .toEqual({
          page: { sent: n + 1, cancelled: 0, completed: 0, failed: n + 1 },
          vendor: { sent: n + 1, cancelled: 0, completed: 0, failed: n + 1 },
        });
    }
    await page
      .getByRole('alert')
      .filter({ hasText: /^network:/ })
      .waitFor();
    await expect
      .poll(() => ledgerRow(page, 'search'), poll)
      .toEqual({ requests: 2, completed: 0, hungUp: 0, failed: 2 });
    // Chromium logs each failed load; nothing else may be logged.
    expect(errors.filter((text) => !/ERR_INVALID_HTTP_RESPONSE/.test(text))).toEqual([]);
  });

  it('route change: leaving the page hangs up its report and its upload', async () => {
    const { page, errors } = await open('/route-change');
    await expect.poll(async () => (await session.vendor.ledger()).endpoints.report.requests, poll).toBe(1);
    await page.getByRole('button', { name: /^Upload/ }).click();
    await page.getByTestId('upload-status').filter({ hasText: 'Uploading' }).waitFor();
    await expect.poll(async () => (await session.vendor.ledger()).endpoints.upload.requests, poll).toBe(1);

    await page.getByRole('link', { name: 'Leave this page' }).click();
    await expect
      .poll(async () => {
        const { report, upload } = (await session.vendor.ledger()).endpoints;
        return { report: [report.hungUp, report.completed], upload: [upload.hungUp, upload.completed] };
      }, poll)
      .toEqual({ report: [1, 0], upload: [1, 0] });
    await page.getByTestId('hangups-report').filter({ hasText: '1 of 1 hung up' }).waitFor();
    await page.getByTestId('hangups-upload').filter({ hasText: '1 of 1 hung up' }).waitFor();
    await expect.poll(() => ledgerRow(page, 'upload'), poll).toMatchObject({ requests: 1, hungUp: 1 });
    // The lanes' labels and captions are whole, not cut off.
    await page.getByText('cancelled · socket closed', { exact: false }).first().waitFor();
    await expectSeenWell(page);
    await shoot(page, 'route-change');
    expect(errors).toEqual([]);
  });

  it('route change: a finished report says when it was generated as a time of day, not ISO 8601', async () => {
    await session.vendor.setControls({ reportDelay: 0 });
    const { page, errors } = await open('/route-change');
    const status = page.getByTestId('report-status');
    await status.filter({ hasText: 'Generated at' }).waitFor();
    const iso = await status.locator('time').getAttribute('datetime');
    expect(Date.parse(iso ?? '')).not.toBeNaN();
    expect(await isoTimestamps(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('checkout: pay, cancel mid-flight, pay again makes one charge under one key', async () => {
    const { page, errors } = await open('/checkout');
    const key = await page.getByTestId('idempotency-key').textContent();
    const status = page.getByTestId('payment-status');

    await page.getByRole('button', { name: /^Pay/ }).click();
    // The vendor makes the charge on arrival and answers 1.5 s later: cancel inside that window.
    await expect.poll(async () => (await session.vendor.ledger()).charges.length, poll).toBe(1);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await status.filter({ hasText: 'Cancelled after the request left' }).waitFor();
    expect(await page.getByTestId('idempotency-key').textContent()).toBe(key);

    await page.getByRole('button', { name: /^Pay/ }).click();
    await status.filter({ hasText: 'duplicate: true' }).waitFor();
    const ledger = await session.vendor.ledger();
    expect(ledger.charges.map((charge) => charge.key)).toEqual([key]);
    expect(ledger.endpoints.charges).toMatchObject({ requests: 2, hungUp: 1, completed: 1 });
    await page.getByTestId('charge-count').filter({ hasText: '1' }).waitFor();
    await expect
      .poll(() => ledgerRow(page, 'charges'), poll)
      .toEqual({ requests: 2, completed: 1, hungUp: 1, failed: 0 });
    await expectSeenWell(page);
    await shoot(page, 'checkout');
    expect(errors).toEqual([]);
  });

  it('checkout: pay, reload mid-flight, pay again: the order kept its key, so one charge', async () => {
    await session.vendor.setControls({ chargeDelay: 60_000 });
    const { page, errors } = await open('/checkout');
    const key = await page.getByTestId('idempotency-key').textContent();
    await page.getByRole('button', { name: /^Pay/ }).click();
    await expect.poll(async () => (await session.vendor.ledger()).charges.length, poll).toBe(1);

    await page.reload();
    await expect.poll(async () => (await session.vendor.ledger()).endpoints.charges.hungUp, poll).toBe(1);
    expect(await page.getByTestId('idempotency-key').textContent()).toBe(key);
    await session.vendor.setControls({ chargeDelay: 0 });
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByTestId('payment-status').filter({ hasText: 'duplicate: true' }).waitFor();
    const ledger = await session.vendor.ledger();
    expect(ledger.charges.map((charge) => charge.key)).toEqual([key]);
    // Paid: the next order has a key of its own.
    await expect.poll(() => page.getByTestId('idempotency-key').textContent(), poll).not.toBe(key);
    expect(errors).toEqual([]);
  });

  it('breaker: cancellations never open it, 503s do, and a half-open probe closes it', async () => {
    await session.vendor.setControls(SLOW_SEARCH);
    const { page, errors } = await open('/breaker');
    await recordAnnouncements(page);
    const box = page.getByRole('searchbox', { name: 'Search the flaky vendor' });
    const breaker = page.getByTestId('breaker');
    const send = page.getByRole('button', { name: 'Send again' });
    await page.getByTestId('results-summary').waitFor();

    // Typing fast: every superseded request is cancelled, and none of them counts as a failure.
    await box.fill('');
    await box.click();
    await page.keyboard.type('grace', { delay: KEY_DELAY });
    await page.getByTestId('results-summary').filter({ hasText: 'for “grace”' }).waitFor();
    await expect.poll(() => counter(page, 'cancelled'), poll).toBeGreaterThanOrEqual(4);
    await breaker.filter({ hasText: 'closed · 0/3 failures' }).waitFor();

    // Real 503s, from the page's own vendor controls: three in a row open the breaker.
    await page.getByRole('slider', { name: /503 rate/ }).fill('1');
    await expect.poll(async () => (await session.vendor.controls()).failRate, poll).toBe(1);
    for (let failures = 1; failures <= 3; failures++) {
      await send.click();
      await expect.poll(() => counter(page, 'failed'), poll).toBe(failures);
    }
    await breaker.filter({ hasText: /^open/ }).waitFor();
    const sent = await counter(page, 'sent');
    await send.click();
    await page.getByRole('alert').filter({ hasText: 'circuit-open' }).waitFor();
    expect(await counter(page, 'sent')).toBe(sent); // failed fast: nothing left the browser
    await expect.poll(() => counter(page, 'fast-failed'), poll).toBe(1);
    // The cooldown counts down on screen, outside the live region (checked below).
    await breaker.filter({ hasText: /probe in \d/ }).waitFor();
    await expectSeenWell(page);

    // Healed vendor; after the cooldown the next request is the half-open probe, and it closes it.
    await page.getByRole('slider', { name: /503 rate/ }).fill('0');
    await expect.poll(async () => (await session.vendor.controls()).failRate, poll).toBe(0);
    await breaker.filter({ hasText: 'open · next request probes' }).waitFor({ timeout: 15_000 });
    await send.click();
    await breaker.filter({ hasText: /^closed/ }).waitFor();
    const transitions = page.getByTestId('transitions');
    await transitions.filter({ hasText: /half-open\s*→\s*closed/ }).waitFor();
    await expect.poll(() => ledgerRow(page, 'flaky-search'), poll).toMatchObject({ failed: 3 });
    // Its own ledger row: every request of this page, and no other page's.
    expect(await agreed(page, 'flaky-search')).toMatchObject({ failed: 3 });
    expect((await session.vendor.ledger()).endpoints.search.requests).toBe(0);
    // A screen reader hears each state once, never the countdown's ticks.
    const said = await announcements(page);
    expect(said.filter((text) => /probe in \d/.test(text))).toEqual([]);
    expect(said).toEqual(expect.arrayContaining(['open', 'open · next request probes']));
    expect(await transitions.locator('li').allTextContents()).toEqual([
      expect.stringMatching(/closed\s*→\s*open/),
      expect.stringMatching(/open\s*→\s*half-open.*probe/),
      expect.stringMatching(/half-open\s*→\s*closed/),
    ]);
    await shoot(page, 'breaker');
    // The vendor's 503s are logged by Chromium as failed resource loads; nothing else may be.
    expect(errors.filter((text) => !/status of 503/.test(text))).toEqual([]);
  });
});

describe.each(PHONES)('the demo at %i px wide', (width) => {
  it('fits every page: no sideways scroll, no column over the content, nav and lanes whole, AA contrast', async () => {
    const { page, errors } = await open('/search', { width, height: 800 });
    for (const { path, title } of PAGES) {
      // Through the navigation, so every link is reachable and works at this width.
      await page.getByRole('navigation', { name: 'Demo pages' }).getByRole('link', { name: title }).click();
      await page.waitForURL(new URL(path, session.demo.url).href);
      await page.getByRole('heading', { level: 1 }).waitFor();
      if (path === '/search') {
        await page.getByRole('searchbox', { name: 'Search people' }).fill('ada');
        await page.getByTestId('results-summary').filter({ hasText: 'for “ada”' }).waitFor();
      }
      if (path === '/route-change') {
        await page.getByRole('button', { name: /^Upload/ }).click();
        await page.getByTestId('upload-status').filter({ hasText: 'Uploading' }).waitFor();
        await page.getByRole('link', { name: 'Leave this page' }).click();
        await page.getByTestId('hangups-upload').filter({ hasText: 'hung up' }).waitFor();
        await page.getByText('cancelled · socket closed', { exact: false }).first().waitFor();
      }
      if (path === '/breaker') await page.getByTestId('results-summary').waitFor();
      if (path === '/todos') {
        // A title that is a URL: it wraps, in the list and in its Delete button.
        const title = `Read https://developer.mozilla.org/en-US/docs/Web/API/AbortSignal/timeout_static ${width}`;
        await page.getByLabel('New to-do').fill(title);
        await page.getByRole('button', { name: 'Add', exact: true }).click();
        await page
          .getByRole('button', { name: `Delete ${title}` })
          .and(page.locator(':enabled'))
          .waitFor();
      }
      expect({ path, problems: await layoutProblems(page) }).toEqual({ path, problems: [] });
      expect({ path, problems: await contrastProblems(page) }).toEqual({ path, problems: [] });
      if (width === 390 && path === '/search') await shoot(page, 'search-390');
    }
    expect(errors).toEqual([]);
  });
});
