import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, userEvent, within } from 'storybook/test';
import { eventually, type Harness, harnessOf, letGo, withDemo } from './support/harness';
import { Readers } from './support/Readers';

/** N of the demo's report cards on one key. The vendor holds the report until the play releases it. */
const meta = {
  title: 'Demo/Coalescing',
  component: Readers,
  args: { initial: 4 },
  parameters: { vendor: { hold: ['report'] } },
  ...withDemo,
} satisfies Meta<typeof Readers>;
export default meta;

type Story = StoryObj<typeof meta>;

/** The report's lanes, as the page's timeline draws them. */
const reportLanes = ({ devtools }: Harness) =>
  devtools.getSnapshot().lanes.filter((lane) => lane.stitch === 'report');

/** Waits until all `n` mounted readers hold a reference: one run sent, the others joined it. */
async function allJoined(harness: Harness, n: number) {
  await eventually(() => {
    const lanes = reportLanes(harness);
    expect(lanes).toHaveLength(n);
    expect(lanes.filter((lane) => lane.leader !== undefined)).toHaveLength(n - 1);
  });
}

/**
 * Four readers, one request. Removing the reader whose run sent it, and another one, leaves the
 * request to the two that remain: nothing is cancelled, and they get its data.
 */
export const ManyReadersOneRequest: Story = {
  play: async (context) => {
    const harness = harnessOf(context);
    const { vendor } = harness;
    const canvas = within(context.canvasElement);
    await allJoined(harness, 4);
    expect(canvas.getAllByTestId('report-status')).toHaveLength(4);
    for (const status of canvas.getAllByTestId('report-status'))
      expect(status).toHaveTextContent('Generating');
    expect(vendor.counts('report')).toEqual({ requests: 1, completed: 0, hungUp: 0, failed: 0 });
    expect(vendor.held('report')).toBe(1);

    await userEvent.click(canvas.getByRole('button', { name: 'Remove the first reader' }));
    await userEvent.click(canvas.getByRole('button', { name: 'Remove the last reader' }));
    await expect(canvas.getByTestId('reader-count')).toHaveTextContent('2 readers');
    await eventually(() =>
      expect(reportLanes(harness).filter((l) => l.status === 'cancelled')).toHaveLength(2),
    );
    // Two references let go; the request is still the vendor's one pending request.
    expect(vendor.counts('report')).toEqual({ requests: 1, completed: 0, hungUp: 0, failed: 0 });
    expect(vendor.held('report')).toBe(1);

    vendor.release('report');
    await eventually(() => {
      const statuses = canvas.getAllByTestId('report-status');
      expect(statuses).toHaveLength(2);
      for (const status of statuses) expect(status).toHaveTextContent(/^Generated at .* 12 months$/);
    });
    expect(vendor.counts('report')).toEqual({ requests: 1, completed: 1, hungUp: 0, failed: 0 });
    letGo(harness);
  },
};

/** When the last reader goes, the shared request is aborted: one request, one hang-up. */
export const LastReaderLeavingCancels: Story = {
  args: { initial: 3 },
  play: async (context) => {
    const harness = harnessOf(context);
    const { vendor } = harness;
    const canvas = within(context.canvasElement);
    await allJoined(harness, 3);
    expect(vendor.counts('report')).toEqual({ requests: 1, completed: 0, hungUp: 0, failed: 0 });

    const removeLast = canvas.getByRole('button', { name: 'Remove the last reader' });
    await userEvent.click(removeLast);
    await userEvent.click(removeLast);
    await eventually(() =>
      expect(reportLanes(harness).filter((l) => l.status === 'cancelled')).toHaveLength(2),
    );
    expect(vendor.counts('report').hungUp).toBe(0);

    await userEvent.click(removeLast);
    await expect(canvas.getByTestId('reader-count')).toHaveTextContent('0 readers');
    await eventually(() =>
      expect(vendor.counts('report')).toEqual({ requests: 1, completed: 0, hungUp: 1, failed: 0 }),
    );
    expect(vendor.pending('report')).toBe(0);

    // A new reader starts afresh (the aborted request cached nothing and is not joined).
    await userEvent.click(canvas.getByRole('button', { name: 'Add a reader' }));
    await eventually(() => expect(vendor.held('report')).toBe(1));
    expect(vendor.counts('report')).toEqual({ requests: 2, completed: 0, hungUp: 1, failed: 0 });
    letGo(harness);
  },
};
