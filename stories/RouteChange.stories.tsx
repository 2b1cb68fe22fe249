import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, userEvent, within } from 'storybook/test';
import { eventually, harnessOf, letGo, withDemo } from './support/harness';
import { MemoryRoutes } from './support/MemoryRoutes';

/**
 * The demo's route-change page inside `<StitchScope resetKey={pathname}>`, as the app shell has it.
 * The vendor holds the report and the upload, so both are in flight when the play leaves the page.
 */
const meta = {
  title: 'Demo/Route change',
  component: MemoryRoutes,
  args: { initial: '/route-change' },
  parameters: { vendor: { hold: ['report', 'upload'] } },
  ...withDemo,
} satisfies Meta<typeof MemoryRoutes>;
export default meta;

type Story = StoryObj<typeof meta>;

/** Leaving the page resets the scope: the slow report and the upload are both hung up. */
export const LeavingAbortsReportAndUpload: Story = {
  play: async (context) => {
    const { vendor } = harnessOf(context);
    const canvas = within(context.canvasElement);

    // On mount: the report is read once (StrictMode included) and stays in flight.
    await expect(await canvas.findByTestId('report-status')).toHaveTextContent('Generating the report');
    await eventually(() => expect(vendor.held('report')).toBe(1));
    expect(vendor.counts('report')).toEqual({ requests: 1, completed: 0, hungUp: 0, failed: 0 });

    await userEvent.click(canvas.getByRole('button', { name: /^Upload/ }));
    await expect(canvas.getByTestId('upload-status')).toHaveTextContent('Uploading');
    await eventually(() => expect(vendor.held('upload')).toBe(1)); // its body is in: 256 KB
    expect(vendor.counts('upload')).toEqual({ requests: 1, completed: 0, hungUp: 0, failed: 0 });

    await userEvent.click(canvas.getByRole('link', { name: 'Leave this page' }));
    await canvas.findByRole('heading', { name: 'You left the page' });
    await eventually(() => {
      expect(vendor.counts('report')).toEqual({ requests: 1, completed: 0, hungUp: 1, failed: 0 });
      expect(vendor.counts('upload')).toEqual({ requests: 1, completed: 0, hungUp: 1, failed: 0 });
    });
    expect(vendor.pending('report') + vendor.pending('upload')).toBe(0);
    // Both fetches were aborted as aborts (no other failure). The report's hook unmounted with the page
    // and the scope reset as well, whichever came first; the upload, a write, is stopped by the scope
    // only (an unmount alone lets a write that may have left finish).
    for (const seen of vendor.requests()) {
      expect(seen.reason).toBeInstanceOf(DOMException);
      expect((seen.reason as DOMException).name).toBe('AbortError');
    }
    expect(vendor.requests('upload')[0]?.reason).toHaveProperty('message', 'The scope was reset');
    // The page's own view of the vendor's ledger (pushed by the fake, as server-sent events) shows the hang-ups.
    await eventually(() => {
      expect(canvas.getByTestId('hangups-report')).toHaveTextContent('1 of 1 hung up');
      expect(canvas.getByTestId('hangups-upload')).toHaveTextContent('1 of 1 hung up');
    });

    // Going back is a new scope: one new report, nothing resent for the upload.
    await userEvent.click(canvas.getByRole('link', { name: /Go back/ }));
    await eventually(() => expect(vendor.held('report')).toBe(1));
    expect(vendor.counts('report')).toEqual({ requests: 2, completed: 0, hungUp: 1, failed: 0 });
    expect(vendor.counts('upload').requests).toBe(1);
    vendor.release('report');
    await eventually(() =>
      expect(canvas.getByTestId('report-status')).toHaveTextContent(/^Generated at .* 12 months$/),
    );
    expect(vendor.counts('report')).toEqual({ requests: 2, completed: 1, hungUp: 1, failed: 0 });
    letGo(harnessOf(context));
  },
};
