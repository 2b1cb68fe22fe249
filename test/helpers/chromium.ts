/**
 * How every browser test launches Debian's Chromium (never a downloaded browser): headless, and
 * with the background services off, since this machine's closed network refuses their calls.
 */
export const chromiumLaunch = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
};
