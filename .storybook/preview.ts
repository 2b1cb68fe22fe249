import type { Preview } from '@storybook/react-vite';
import type { SetupWorker } from 'msw/browser';
import { createPreviewAnnotations } from 'msw-storybook-addon/preview';
import '../examples/app/styles.css';
import { interceptFetch } from '../stories/support/network';

const preview: Preview = {
  // msw through the addon: `context.msw` in every story's `beforeEach`, its handlers reset after it.
  // The network it sets up is msw's fetch interceptor, which has the same `use`/`resetHandlers` as
  // a service worker (the only part of it the addon calls).
  ...createPreviewAnnotations(async () => (await interceptFetch()) as unknown as SetupWorker),
  parameters: { layout: 'fullscreen' },
};

export default preview;
