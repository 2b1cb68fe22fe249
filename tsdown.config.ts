import { defineConfig } from 'tsdown';

/** The entries that hold hooks or components: a server component must not evaluate them. */
const CLIENT_ENTRIES = ['react/index', 'devtools/index'];

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'lite/index': 'src/lite/index.ts',
    'react/index': 'src/react/index.ts',
    'testing/index': 'src/testing/index.ts',
    'otel/index': 'src/otel/index.ts',
    'devtools/index': 'src/devtools/index.ts',
    'devtools/model': 'src/devtools/headless.ts',
    'redis/index': 'src/redis/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  platform: 'neutral',
  external: ['react', 'react-dom', '@opentelemetry/api', /^node:/],
  clean: true,
  outputOptions: {
    // The hooks and the devtools are client-only: React Server Components frameworks (Next.js
    // App Router) read this directive from the first line of the module.
    banner: (chunk) => (chunk.isEntry && CLIENT_ENTRIES.includes(chunk.name) ? "'use client';" : ''),
  },
});
