import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, within } from 'storybook/test';

function Placeholder() {
  return <p>Stitch stories land with the demo.</p>;
}

const meta = { title: 'Placeholder', component: Placeholder } satisfies Meta<typeof Placeholder>;
export default meta;

export const Default: StoryObj<typeof meta> = {
  play: async ({ canvasElement }) => {
    await expect(within(canvasElement).getByText(/stories land/)).toBeInTheDocument();
  },
};
