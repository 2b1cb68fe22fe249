/**
 * Helpers for the demo's browser test: Debian's Chromium through playwright-core (never a
 * downloaded browser), a page that records console errors, and the vendor's ledger over HTTP.
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { type Demo, startDemo } from '../../examples/serve.mjs';
import { DEFAULT_CONTROLS } from '../../examples/vendor/controls';
import type { Controls, LedgerSnapshot } from '../../examples/vendor/index';
import { chromiumLaunch } from '../helpers/chromium';

/** Debian's Chromium with the same launch options as the browser projects. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch(chromiumLaunch);
}

/** Screenshots are this size, so they diff cleanly when committed. */
export const VIEWPORT = { width: 1200, height: 800 };

/** A page of a fresh context, with every console error and uncaught exception it logs. */
export async function openPage(
  browser: Browser,
  url: string,
  viewport = VIEWPORT,
): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  // Rendered, and the vendor answered the page's first calls (its controls).
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.getByRole('spinbutton', { name: 'Search delay (ms)' }).waitFor();
  return { page, errors };
}

/** The number a counter tile of the page shows. */
export async function counter(page: Page, name: string): Promise<number> {
  const tile = page.getByTestId(`counter-${name}`);
  if ((await tile.count()) === 0) return 0; // failed / never-sent tiles appear only when non-zero
  return Number(await tile.textContent());
}

/** One endpoint's row of the page's vendor-ledger table (pushed by the vendor: `GET /api/ledger/stream`). */
export async function ledgerRow(page: Page, endpoint: string) {
  const cells = await page.getByTestId(`ledger-${endpoint}`).locator('td').allTextContents();
  const [requests, completed, hungUp, failed] = cells.map(Number);
  return { requests, completed, hungUp, failed };
}

/** The demo vendor, seen from outside the page. */
export function vendorClient(origin: string) {
  const call = async <T>(path: string, body?: unknown): Promise<T> => {
    const response = await fetch(new URL(path, origin), {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status}`);
    return (await response.json()) as T;
  };
  return {
    ledger: () => call<LedgerSnapshot>('/api/ledger'),
    controls: () => call<Controls>('/api/controls'),
    setControls: (patch: Partial<Controls>) => call<Controls>('/api/controls', patch),
    /** Default controls and an empty ledger. */
    async reset() {
      await call('/api/controls', DEFAULT_CONTROLS);
      await call('/api/ledger/reset', {});
    },
  };
}

/** What {@link serveDemo} gives a test file once its `beforeAll` ran. */
export interface DemoSession {
  demo: Demo;
  browser: Browser;
  vendor: ReturnType<typeof vendorClient>;
}

/**
 * Serves the demo (`startDemo`, the code behind `npm start`) and launches Chromium for the calling
 * test file, closing both after it. No file watching: a file saved mid-run must not reload the page
 * under test.
 */
export function serveDemo(): DemoSession {
  const session = {} as DemoSession;
  beforeAll(async () => {
    session.demo = await startDemo({ port: 0, watch: false });
    session.vendor = vendorClient(session.demo.url);
    session.browser = await launchChromium();
  });
  afterAll(async () => {
    await session.browser?.close();
    await session.demo?.close();
  });
  return session;
}

const SHOTS = new URL('../../docs/screenshots/', import.meta.url);

/** Writes docs/screenshots/`name`.png, only when asked (STITCH_SCREENSHOTS=1, `npm run screenshots`). */
export async function shoot(page: Page, name: string): Promise<void> {
  if (process.env.STITCH_SCREENSHOTS !== '1') return;
  await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, animations: 'disabled' });
}
