import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, within } from 'storybook/test';
import { flakySearch, VENDOR_BREAKER } from '../../examples/app/api';
import { BreakerBadge } from '../../examples/app/components/BreakerBadge';
import { eventually, harnessOf, withComponent } from '../support/harness';

/** The badge of the demo's breaker (3 failures open it for 5 s), on a fresh engine per story. */
const meta = {
  title: 'Components/Breaker badge',
  component: BreakerBadge,
  args: { circuitKey: VENDOR_BREAKER.key, failures: VENDOR_BREAKER.failures },
  parameters: { layout: 'padded' },
  ...withComponent,
} satisfies Meta<typeof BreakerBadge>;
export default meta;

type Story = StoryObj<typeof meta>;

/** A new breaker: closed, no failures. */
export const Closed: Story = {
  play: async ({ canvasElement }) => {
    await eventually(() =>
      expect(within(canvasElement).getByTestId('breaker')).toHaveTextContent('closed · 0/3 failures'),
    );
  },
};

/**
 * Three 503s (msw answers every search with one) open it. The countdown ticks on screen, while the
 * live region a screen reader follows says "open" once and never the ticks.
 */
export const OpenCountingDown: Story = {
  parameters: { vendor: { failRate: 1 } },
  play: async (context) => {
    const { engine, vendor } = harnessOf(context);
    const canvas = within(context.canvasElement);
    for (let n = 0; n < VENDOR_BREAKER.failures; n++) {
      expect((await flakySearch({ query: { q: 'ada' } }, { engine }).safe()).error?.status).toBe(503);
    }
    expect(vendor.counts('flaky-search')).toMatchObject({ requests: 3, failed: 3 });
    const badge = canvas.getByTestId('breaker');
    await eventually(() => expect(badge).toHaveTextContent(/^open · probe in \d\.\d s$/));
    const first = badge.textContent;
    await eventually(() => expect(badge.textContent).not.toBe(first)); // it ticks…
    expect(canvas.getByRole('status')).toHaveTextContent(/^open$/); // …outside the live region
  },
};
