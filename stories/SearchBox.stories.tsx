import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, userEvent, within } from 'storybook/test';
import { SearchPage } from '../examples/app/pages/SearchPage';
import { eventually, harnessOf, letGo, withDemo } from './support/harness';

/**
 * The demo's search-as-you-type page on the in-browser vendor. Search requests are held by the
 * vendor until the play releases them, so "in flight" lasts exactly as long as the play needs.
 */
const meta = {
  title: 'Demo/Search box',
  component: SearchPage,
  parameters: { layout: 'fullscreen', vendor: { hold: ['search'] } },
  ...withDemo,
} satisfies Meta<typeof SearchPage>;
export default meta;

type Story = StoryObj<typeof meta>;

const searchbox = (canvas: ReturnType<typeof within>) =>
  canvas.getByRole('searchbox', { name: /Search people/ });

/** Typing eight characters: eight requests, seven hung up by re-keying, one answered. */
export const TypingCancelsStaleKeystrokes: Story = {
  play: async (context) => {
    const { vendor, engine } = harnessOf(context);
    const canvas = within(context.canvasElement);
    await userEvent.type(searchbox(canvas), 'margaret');

    // Every keystroke re-keyed the hook: the previous request was aborted while still in flight.
    await eventually(() =>
      expect(vendor.counts('search')).toEqual({ requests: 8, completed: 0, hungUp: 7, failed: 0 }),
    );
    expect(vendor.held('search')).toBe(1);
    expect(vendor.requests('search').map((r) => r.query.q)).toEqual([
      'm',
      'ma',
      'mar',
      'marg',
      'marga',
      'margar',
      'margare',
      'margaret',
    ]);
    expect(vendor.requests('search').at(-1)?.outcome).toBe('pending');
    // The hook's own re-keys never show as errors.
    expect(canvas.queryByRole('alert')).toBeNull();

    vendor.release('search');
    await expect(await canvas.findByTestId('results-summary')).toHaveTextContent(/for “margaret”/);
    expect(vendor.counts('search')).toEqual({ requests: 8, completed: 1, hungUp: 7, failed: 0 });

    // The page's own counters (from the devtools model's lanes) agree with the vendor.
    await eventually(() => {
      expect(canvas.getByTestId('counter-keystrokes')).toHaveTextContent('8');
      expect(canvas.getByTestId('counter-sent')).toHaveTextContent('8');
      expect(canvas.getByTestId('counter-cancelled')).toHaveTextContent('7');
      expect(canvas.getByTestId('counter-completed')).toHaveTextContent('1');
    });
    // Seven aborts, and the breaker never heard of them.
    await eventually(() =>
      expect(canvas.getByTestId('breaker')).toHaveTextContent(/^closed · 0\/3 failures$/),
    );
    expect(await engine.circuitState('demo-vendor')).toMatchObject({ state: 'closed', failures: 0 });
    letGo(harnessOf(context));
  },
};

/** keepPrevious: the last query's results stay on screen, marked stale, while the new one loads. */
export const KeepPrevious: Story = {
  play: async (context) => {
    const { vendor } = harnessOf(context);
    const canvas = within(context.canvasElement);
    await userEvent.type(searchbox(canvas), 'ada');
    await eventually(() => expect(vendor.counts('search')).toMatchObject({ requests: 3, hungUp: 2 }));
    vendor.release('search');
    const summary = await canvas.findByTestId('results-summary');
    await eventually(() => expect(summary).toHaveTextContent(/^\d+ found for “ada”, showing \d+$/));
    const people = within(canvas.getByRole('region', { name: 'Results' })).getAllByRole('listitem').length;
    expect(people).toBeGreaterThan(0);

    // A new key, held by the vendor: the previous results stay, dimmed, labelled as the previous query's.
    await userEvent.type(searchbox(canvas), 'm');
    await eventually(() => expect(vendor.held('search')).toBe(1));
    await eventually(() =>
      expect(canvas.getByTestId('results-summary')).toHaveTextContent(
        /for “ada”.*\(previous query, loading the new one\)$/,
      ),
    );
    const results = canvas.getByRole('region', { name: 'Results' });
    expect(results).toHaveClass('stale');
    expect(results).toHaveAttribute('aria-busy', 'true');
    expect(within(results).getAllByRole('listitem')).toHaveLength(people);

    vendor.release('search');
    await eventually(() =>
      expect(canvas.getByTestId('results-summary')).toHaveTextContent(/for “adam”, showing/),
    );
    expect(canvas.getByTestId('results-summary')).not.toHaveTextContent(/previous query/);
    expect(canvas.getByRole('region', { name: 'Results' })).not.toHaveClass('stale');
    expect(vendor.counts('search')).toEqual({ requests: 4, completed: 2, hungUp: 2, failed: 0 });
    letGo(harnessOf(context));
  },
};

/** Debounce on: keystrokes inside the 250 ms window are never sent; only the settled query is. */
export const Debounce: Story = {
  // Search answered after the vendor's 300 ms delay, on a real timer.
  parameters: { vendor: { hold: [] } },
  play: async (context) => {
    const { vendor } = harnessOf(context);
    const canvas = within(context.canvasElement);
    await userEvent.click(canvas.getByRole('checkbox', { name: /Debounce/ }));
    await userEvent.type(searchbox(canvas), 'lovelace');

    await eventually(() => expect(canvas.getByTestId('results-summary')).toHaveTextContent(/for “lovelace”/));
    expect(vendor.counts('search')).toEqual({ requests: 1, completed: 1, hungUp: 0, failed: 0 });
    expect(vendor.requests('search')[0]?.query.q).toBe('lovelace');
    await eventually(() => {
      expect(canvas.getByTestId('counter-keystrokes')).toHaveTextContent('8');
      expect(canvas.getByTestId('counter-sent')).toHaveTextContent('1');
      expect(canvas.getByTestId('counter-cancelled')).toHaveTextContent('0');
      expect(canvas.getByTestId('counter-completed')).toHaveTextContent('1');
    });
    // Nothing was even started for the stale keystrokes, so no "never sent" runs either.
    expect(canvas.queryByTestId('counter-unsent')).toBeNull();
  },
};
