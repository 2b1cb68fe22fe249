import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, userEvent, within } from 'storybook/test';
import { CheckoutPage } from '../examples/app/pages/CheckoutPage';
import { eventually, harnessOf, letGo, withDemo } from './support/harness';
import { MemoryRoutes } from './support/MemoryRoutes';

/**
 * The demo's checkout page. The vendor makes a charge on arrival and holds its answer until the play
 * releases it: the window in which a cancel is ambiguous.
 */
const meta = {
  title: 'Demo/Checkout',
  component: CheckoutPage,
  parameters: { vendor: { hold: ['charges'] } },
  ...withDemo,
} satisfies Meta<typeof CheckoutPage>;
export default meta;

type Story = StoryObj<typeof meta>;

/** Pay, cancel mid-flight, pay again: two requests under one key, one charge, `duplicate: true`. */
export const PayCancelPayAgain: Story = {
  play: async (context) => {
    const { vendor } = harnessOf(context);
    const canvas = within(context.canvasElement);
    const key = (await canvas.findByTestId('idempotency-key')).textContent ?? '';
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    const status = canvas.getByTestId('payment-status');

    await userEvent.click(canvas.getByRole('button', { name: /^Pay/ }));
    await eventually(() => expect(vendor.held('charges')).toBe(1));
    expect(vendor.charges()).toHaveLength(1); // made on arrival, before the answer
    await expect(status).toHaveTextContent('Paying');

    await userEvent.click(canvas.getByRole('button', { name: 'Cancel' }));
    await eventually(() => expect(status).toHaveTextContent(/^Cancelled after the request left/));
    expect(vendor.counts('charges')).toEqual({ requests: 1, completed: 0, hungUp: 1, failed: 0 });
    expect(canvas.getByTestId('idempotency-key')).toHaveTextContent(key); // same intent, same key

    await userEvent.click(canvas.getByRole('button', { name: /^Pay/ }));
    await eventually(() => expect(vendor.held('charges')).toBe(1));
    vendor.release('charges');
    await eventually(() => expect(status).toHaveTextContent(/duplicate: true/));

    expect(vendor.counts('charges')).toEqual({ requests: 2, completed: 1, hungUp: 1, failed: 0 });
    expect(vendor.requests('charges').map((r) => r.idempotencyKey)).toEqual([key, key]);
    expect(vendor.requests('charges').map((r) => r.status)).toEqual([undefined, 200]);
    expect(vendor.charges()).toEqual([expect.objectContaining({ key, amount: 4200, currency: 'EUR' })]);
    await eventually(() => expect(canvas.getByTestId('charge-count')).toHaveTextContent('1'));
    // Success ends the intent: the next payment would go out under a new key.
    expect(canvas.getByTestId('idempotency-key')).not.toHaveTextContent(key);
    letGo(harnessOf(context));
  },
};

/**
 * Pay, leave the page mid-flight (the route's scope resets and aborts the charge), come back, pay
 * again: the order kept its key, so the vendor answers `duplicate: true` and holds one charge.
 */
export const LeaveMidPaymentThenPayAgain: StoryObj<typeof MemoryRoutes> = {
  render: () => (
    <MemoryRoutes
      initial="/checkout"
      links={[
        { href: '/search', label: 'Search' },
        { href: '/checkout', label: 'Checkout' },
      ]}
    />
  ),
  play: async (context) => {
    const { vendor } = harnessOf(context);
    const canvas = within(context.canvasElement);
    const key = (await canvas.findByTestId('idempotency-key')).textContent ?? '';

    await userEvent.click(canvas.getByRole('button', { name: /^Pay/ }));
    await eventually(() => expect(vendor.held('charges')).toBe(1));
    expect(vendor.charges()).toHaveLength(1);

    await userEvent.click(canvas.getByRole('link', { name: 'Search' }));
    await eventually(() =>
      expect(vendor.counts('charges')).toEqual({ requests: 1, completed: 0, hungUp: 1, failed: 0 }),
    );
    expect(vendor.requests('charges')[0]?.reason).toHaveProperty('message', 'The scope was reset');

    await userEvent.click(canvas.getByRole('link', { name: 'Checkout' }));
    expect(await canvas.findByTestId('idempotency-key')).toHaveTextContent(key); // the same order
    await userEvent.click(canvas.getByRole('button', { name: /^Pay/ }));
    await eventually(() => expect(vendor.held('charges')).toBe(1));
    vendor.release('charges');
    await eventually(() => expect(canvas.getByTestId('payment-status')).toHaveTextContent(/duplicate: true/));
    expect(vendor.requests('charges').map((r) => r.idempotencyKey)).toEqual([key, key]);
    expect(vendor.charges()).toEqual([expect.objectContaining({ key, amount: 4200, currency: 'EUR' })]);
    letGo(harnessOf(context));
  },
};
