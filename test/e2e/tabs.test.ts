/**
 * Every page of the demo opened in a tab of its own, as an evaluator Ctrl+clicks the nav: a
 * browser gives an origin six connections, so a ledger stream held by each background tab left
 * none for the requests (the sixth tab's never left, a seventh never loaded). Playwright's own
 * launch shows every tab as visible; this Chromium is driven over CDP without that emulation, so
 * background tabs are hidden as in a real browser.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Demo, startDemo } from '../../examples/serve.mjs';
import { chromiumLaunch } from '../helpers/chromium';

let demo: Demo;
let browser: Browser;
let stopChromium: () => Promise<unknown>;
const profile = mkdtempSync(join(tmpdir(), 'stitch-tabs-'));

beforeAll(async () => {
  demo = await startDemo({ port: 0, watch: false });
  const chromiumProcess = spawn(
    chromiumLaunch.executablePath,
    [...chromiumLaunch.args, '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  stopChromium = () => {
    const exited = once(chromiumProcess, 'exit');
    chromiumProcess.kill();
    return exited;
  };
  const endpoint = await new Promise<string>((resolve) => {
    let said = '';
    chromiumProcess.stderr.on('data', (chunk) => {
      said += chunk;
      const found = said.match(/DevTools listening on (ws:\S+)/);
      if (found?.[1]) resolve(found[1]);
    });
  });
  browser = await chromium.connectOverCDP(endpoint, { noDefaults: true });
});

afterAll(async () => {
  await browser?.close();
  await stopChromium?.();
  await demo?.close();
  // Best effort: Chromium's helper processes may still be writing to it as it goes.
  await rm(profile, { recursive: true, force: true, maxRetries: 30, retryDelay: 100 }).catch(() => {});
});

it('seven pages, each in a tab of its own: the last one loads and reaches the vendor', async () => {
  const [context] = browser.contexts();
  if (!context) throw new Error('no browser context');
  const first = context.pages()[0] ?? (await context.newPage());
  await first.goto(new URL('/search', demo.url).href);
  await first.getByRole('spinbutton', { name: 'Search delay (ms)' }).waitFor();
  const names = [
    'Route change',
    'Checkout',
    'Breaker',
    'Infinite list',
    'Optimistic to-dos',
    'Search as you type',
  ];
  for (const name of names) {
    const opened = context.waitForEvent('page');
    await first.getByRole('link', { name, exact: true }).click({ modifiers: ['Control'] });
    const tab = await opened;
    await tab.waitForLoadState('domcontentloaded');
    expect(await tab.evaluate(() => document.visibilityState)).toBe('hidden');
  }
  const last = context.pages().at(-1);
  if (!last) throw new Error('no last tab');
  await last.bringToFront();
  await last.getByRole('heading', { name: 'Search as you type' }).waitFor({ timeout: 15_000 });
  await last.getByRole('spinbutton', { name: 'Search delay (ms)' }).waitFor({ timeout: 15_000 });
});
