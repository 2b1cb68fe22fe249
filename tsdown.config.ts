import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'react/index': 'src/react/index.ts',
    'testing/index': 'src/testing/index.ts',
    'otel/index': 'src/otel/index.ts',
    'devtools/index': 'src/devtools/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  platform: 'neutral',
  external: ['react', 'react-dom', '@opentelemetry/api'],
  clean: true,
});
