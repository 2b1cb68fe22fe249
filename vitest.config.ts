import { storybookTest } from '@storybook/addon-vitest/vitest-plugin';
import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';
import { chromiumLaunch } from './test/helpers/chromium';

/** React 18, installed apart (test/react18) so the hook suite also runs against it. */
const react18 = new URL('./test/react18/node_modules/', import.meta.url).pathname;

const chromium = playwright({ launchOptions: chromiumLaunch });

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
          exclude: [
            'test/react/**',
            'test/**/*.dom.test.ts',
            'test/browser/**',
            'test/e2e/**',
            'test/redis/**',
          ],
        },
      },
      {
        // A real redis-server per file and forked Node processes: one file at a time.
        test: {
          name: 'redis',
          environment: 'node',
          include: ['test/redis/**/*.test.ts'],
          globalSetup: ['test/redis/redis.setup.ts'],
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 30_000,
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
          env: { STITCH_REACT: '19' },
          include: [
            'test/react/**/*.test.{ts,tsx}',
            'test/devtools/**/*.test.tsx',
            'test/reliability/**/*.test.tsx',
            'test/scenarios/**/*.test.tsx',
          ],
          setupFiles: ['test/helpers/happyDom.setup.ts'],
        },
      },
      {
        resolve: {
          alias: [
            { find: /^react$/, replacement: `${react18}react/index.js` },
            { find: /^react\/(.*)$/, replacement: `${react18}react/$1` },
            { find: /^react-dom$/, replacement: `${react18}react-dom/index.js` },
            { find: /^react-dom\/(.*)$/, replacement: `${react18}react-dom/$1` },
            // A copy installed beside React 18, so its own require('react') finds React 18.
            { find: /^use-sync-external-store\/(.*)$/, replacement: `${react18}use-sync-external-store/$1` },
            // Its ESM build, inlined below, so its own react imports take the aliases too.
            {
              find: /^@testing-library\/react$/,
              replacement: new URL(
                './node_modules/@testing-library/react/dist/@testing-library/react.esm.js',
                import.meta.url,
              ).pathname,
            },
          ],
        },
        test: {
          name: 'react18',
          environment: 'node',
          env: { STITCH_REACT: '18' },
          include: [
            'test/react/**/*.test.{ts,tsx}',
            'test/devtools/**/*.test.tsx',
            'test/scenarios/**/*.test.tsx',
          ],
          setupFiles: ['test/helpers/happyDom.setup.ts'],
          server: { deps: { inline: [/@testing-library\/react/] } },
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
          globalSetup: ['test/browser/vendor.setup.ts'],
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
      {
        // The demo end to end: `npm start`'s server, driven by Debian's Chromium via playwright-core.
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
