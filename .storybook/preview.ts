import type { Preview } from '@storybook/react-vite';
import '../examples/app/styles.css';

const preview: Preview = {
  parameters: { layout: 'fullscreen' },
};

export default preview;
