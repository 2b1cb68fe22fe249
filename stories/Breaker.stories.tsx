import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, userEvent, within } from 'storybook/test';
import { VENDOR_BREAKER } from '../examples/app/api';
import { BreakerPage } from '../examples/app/pages/BreakerPage';
import { eventually, type Harness, harnessOf, letGo, withDemo } from './support/harness';

/**
 * The demo's breaker page (3 failures in a row open it for 5 s). The vendor holds search requests,
 * so every re-key cancels one in flight; with `failRate: 1` it answers 503 at once.
 */
const meta = {
  title: 'Demo/Breaker',
  component: BreakerPage,
  parameters: { vendor: { hold: ['flaky-search'] } },
  ...withDemo,
} satisfies Meta<typeof BreakerPage>;
export default meta;

type Story = StoryObj<typeof meta>;

const circuit = (harness: Harness) => harness.engine.circuitState(VENDOR_BREAKER.key);

/** The page reads "ada" on mount; answer it, so the breaker starts from a success. */
async function settleFirstRead(harness: Harness, canvas: ReturnType<typeof within>) {
  await eventually(() => expect(harness.vendor.held('flaky-search')).toBe(1));
  harness.vendor.release('flaky-search');
  await eventually(() => expect(canvas.getByTestId('results-summary')).toHaveTextContent(/for “ada”/));
}

/** Presses "Send again" against a failing vendor and waits for that 503 to show. */
async function sendAndFail(harness: Harness, canvas: ReturnType<typeof within>, failedBefore: number) {
  await userEvent.click(canvas.getByRole('button', { name: 'Send again' }));
  await eventually(() => expect(harness.vendor.counts('flaky-search').failed).toBe(failedBefore + 1));
  await expect(await canvas.findByRole('alert')).toHaveTextContent(/^http: .*503/);
}

/** Typing fast cancels far more requests than the threshold; the breaker stays closed at 0 failures. */
export const CancellationsNeverOpenIt: Story = {
  play: async (context) => {
    const harness = harnessOf(context);
    const { vendor } = harness;
    const canvas = within(context.canvasElement);
    const box = canvas.getByRole('searchbox', { name: /Search the flaky vendor/ });
    await eventually(() => expect(vendor.held('flaky-search')).toBe(1)); // "ada", from the mount

    await userEvent.clear(box);
    await userEvent.type(box, 'grace');
    await eventually(() =>
      expect(vendor.counts('flaky-search')).toEqual({ requests: 6, completed: 0, hungUp: 5, failed: 0 }),
    );
    // Five aborts, more than the three failures that would open it: none of them counted.
    expect(await circuit(harness)).toMatchObject({ state: 'closed', failures: 0 });
    await eventually(() =>
      expect(canvas.getByTestId('breaker')).toHaveTextContent(/^closed · 0\/3 failures$/),
    );
    expect(canvas.getByRole('heading', { name: 'Breaker transitions' }).nextElementSibling).toHaveTextContent(
      /^None yet/,
    );

    vendor.release('flaky-search');
    await eventually(() => expect(canvas.getByTestId('results-summary')).toHaveTextContent(/for “grace”/));
    expect(vendor.counts('flaky-search')).toEqual({ requests: 6, completed: 1, hungUp: 5, failed: 0 });
    expect(await circuit(harness)).toMatchObject({ state: 'closed', failures: 0 });
    letGo(harness);
  },
};

/**
 * Real 503s open it; cancellations in between change nothing. Two 503s, then three requests
 * cancelled in flight (still 2/3), then a third 503 opens it, and the next call fails fast with
 * nothing sent.
 */
export const Real503sOpenIt: Story = {
  name: 'Real 503s open it',
  play: async (context) => {
    const harness = harnessOf(context);
    const { vendor } = harness;
    const canvas = within(context.canvasElement);
    await settleFirstRead(harness, canvas);
    await eventually(() =>
      expect(canvas.getByTestId('breaker')).toHaveTextContent(/^closed · 0\/3 failures$/),
    );

    vendor.set({ failRate: 1 });
    await sendAndFail(harness, canvas, 0);
    await sendAndFail(harness, canvas, 1);
    await eventually(() =>
      expect(canvas.getByTestId('breaker')).toHaveTextContent(/^closed · 2\/3 failures$/),
    );

    // A healthy but slow vendor, and three requests abandoned in flight: neutral for the breaker.
    vendor.set({ failRate: 0 });
    const box = canvas.getByRole('searchbox', { name: /Search the flaky vendor/ });
    await userEvent.type(box, 'lov'); // "adal", "adalo", "adalov": the first two superseded
    await eventually(() => expect(vendor.held('flaky-search')).toBe(1));
    await userEvent.click(canvas.getByRole('button', { name: 'Send again' })); // supersedes "adalov"
    await eventually(() => expect(vendor.counts('flaky-search').hungUp).toBe(3));
    expect(await circuit(harness)).toMatchObject({ state: 'closed', failures: 2 });

    // The third real failure (the held refetch is superseded once more: a fourth cancellation).
    vendor.set({ failRate: 1 });
    await sendAndFail(harness, canvas, 2);
    expect(vendor.counts('flaky-search')).toEqual({ requests: 8, completed: 1, hungUp: 4, failed: 3 });
    expect(await circuit(harness)).toMatchObject({ state: 'open' });
    await eventually(() => expect(canvas.getByTestId('breaker')).toHaveTextContent(/^open · probe in/));
    await eventually(() => expect(canvas.getByTestId('transitions')).toHaveTextContent(/closed→open/));

    // Open: the call fails fast and nothing reaches the vendor.
    await userEvent.click(canvas.getByRole('button', { name: 'Send again' }));
    await eventually(() => expect(canvas.getByRole('alert')).toHaveTextContent(/^circuit-open: /));
    expect(vendor.counts('flaky-search').requests).toBe(8);
    vendor.set({ failRate: 0 });
    letGo(harness);
  },
};

/** After the 5 s cooldown, the next request is the half-open probe; its success closes the breaker. */
export const HalfOpenProbeClosesIt: Story = {
  name: 'Half-open probe closes it',
  parameters: { vendor: { hold: [], failRate: 1 } },
  play: async (context) => {
    const harness = harnessOf(context);
    const { vendor } = harness;
    const canvas = within(context.canvasElement);
    // "ada" on mount is the first 503; two more open the breaker.
    await eventually(() => expect(vendor.counts('flaky-search').failed).toBe(1));
    await sendAndFail(harness, canvas, 1);
    await sendAndFail(harness, canvas, 2);
    await eventually(() => expect(canvas.getByTestId('breaker')).toHaveTextContent(/^open · /));

    vendor.set({ failRate: 0 });
    await eventually(
      () => expect(canvas.getByTestId('breaker')).toHaveTextContent('open · next request probes'),
      VENDOR_BREAKER.cooldown + 3_000,
    );
    expect(vendor.counts('flaky-search').requests).toBe(3);
    await userEvent.click(canvas.getByRole('button', { name: 'Send again' }));
    await eventually(() => expect(canvas.getByTestId('results-summary')).toHaveTextContent(/for “ada”/));
    expect(vendor.counts('flaky-search')).toEqual({ requests: 4, completed: 1, hungUp: 0, failed: 3 });
    await eventually(() =>
      expect(canvas.getByTestId('breaker')).toHaveTextContent(/^closed · 0\/3 failures$/),
    );
    await eventually(() => expect(canvas.getByTestId('transitions')).toHaveTextContent(/half-open→closed/));
  },
};
