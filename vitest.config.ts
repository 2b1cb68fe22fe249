import { storybookTest } from '@storybook/addon-vitest/vitest-plugin';
import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';

/** Debian's Chromium, launched headless with the flags this machine's closed network needs. */
const chromium = playwright({
  launchOptions: {
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
  },
});

/** Browser mode in Chromium; a fresh object per project, since vitest names the instances it is given. */
const inChromium = () => ({
  enabled: true,
  headless: true,
  provider: chromium,
  instances: [{ browser: 'chromium' as const }],
});

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/react/**', 'test/**/*.dom.test.ts', 'test/browser/**'],
        },
      },
      {
        test: {
          name: 'dom',
          environment: 'happy-dom',
          include: ['test/**/*.dom.test.{ts,tsx}'],
          setupFiles: ['test/helpers/msw.setup.ts'],
        },
      },
      {
        test: {
          name: 'react',
          environment: 'node',
          include: ['test/react/**/*.test.{ts,tsx}'],
          setupFiles: ['test/helpers/happyDom.setup.ts'],
        },
      },
      {
        test: {
          name: 'types',
          include: [],
          typecheck: { enabled: true, only: true, include: ['test/**/*.test-d.ts'] },
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.{ts,tsx}'],
          browser: inChromium(),
        },
      },
      {
        plugins: [storybookTest({ configDir: '.storybook' })],
        optimizeDeps: {
          include: ['react', 'react/jsx-dev-runtime', 'react/jsx-runtime', 'react-dom', 'react-dom/client'],
        },
        test: { name: 'storybook', browser: inChromium() },
      },
    ],
  },
});
