import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, userEvent, within } from 'storybook/test';
import { PeoplePage } from '../examples/app/pages/PeoplePage';
import { people } from '../examples/vendor/data';
import { eventually, harnessOf, letGo, withDemo } from './support/harness';

/**
 * The demo's infinite list on the in-browser vendor. Page requests are held by the vendor until
 * the play releases them, so a page is "in flight" exactly as long as the play needs.
 */
const meta = {
  title: 'Demo/Infinite list',
  component: PeoplePage,
  parameters: { layout: 'fullscreen', vendor: { hold: ['people'] } },
  ...withDemo,
} satisfies Meta<typeof PeoplePage>;
export default meta;

type Story = StoryObj<typeof meta>;

const listed = (canvas: ReturnType<typeof within>) =>
  within(canvas.getByRole('region', { name: 'People' }))
    .queryAllByRole('listitem')
    .map((item) => item.querySelector('strong')?.textContent);

const lanes = (canvas: ReturnType<typeof within>) =>
  within(canvas.getByRole('list', { name: 'Requests, oldest first' }))
    .getAllByRole('listitem')
    .map((lane) => lane.textContent);

/** Two pages: the first on mount, the second with "Load more", each one request with its cursor. */
export const LoadsTwoPages: Story = {
  play: async (context) => {
    const { vendor } = harnessOf(context);
    const canvas = within(context.canvasElement);
    await eventually(() => expect(vendor.held('people')).toBe(1));
    vendor.release('people');
    await eventually(() =>
      expect(canvas.getByTestId('people-summary')).toHaveTextContent(/^10 of \d+ people, 1 pages$/),
    );

    await userEvent.click(canvas.getByRole('button', { name: 'Load more' }));
    await eventually(() => expect(vendor.held('people')).toBe(1));
    expect(canvas.getByRole('button', { name: 'Loading…' })).toBeDisabled();
    vendor.release('people');
    await eventually(() =>
      expect(canvas.getByTestId('people-summary')).toHaveTextContent(/^20 of \d+ people, 2 pages$/),
    );

    expect(listed(canvas)).toEqual(
      people()
        .slice(0, 20)
        .map((person) => person.name),
    );
    expect(vendor.requests('people').map((r) => r.query)).toEqual([
      { limit: '10', cursor: '0' },
      { limit: '10', cursor: '10' },
    ]);
    expect(vendor.counts('people')).toEqual({ requests: 2, completed: 2, hungUp: 0, failed: 0 });
    await eventually(() => {
      expect(canvas.getByTestId('counter-sent')).toHaveTextContent('2');
      expect(canvas.getByTestId('counter-completed')).toHaveTextContent('2');
      expect(lanes(canvas)).toEqual([
        expect.stringMatching(/^cursor 0 · 10.*answered 200/),
        expect.stringMatching(/^cursor 10 · 10.*answered 200/),
      ]);
    });
    letGo(harnessOf(context));
  },
};

/** A new page size while the next page loads: that page request is hung up, shown as cancelled, never as an error. */
export const ReKeyCancelsThePageInFlight: Story = {
  play: async (context) => {
    const { vendor } = harnessOf(context);
    const canvas = within(context.canvasElement);
    await eventually(() => expect(vendor.held('people')).toBe(1));
    vendor.release('people');
    await eventually(() => expect(canvas.getByTestId('people-summary')).toHaveTextContent(/^10 of/));
    await userEvent.click(canvas.getByRole('button', { name: 'Load more' }));
    await eventually(() => expect(vendor.held('people')).toBe(1));

    await userEvent.selectOptions(canvas.getByRole('combobox', { name: /Page size/ }), '25');
    await eventually(() =>
      expect(vendor.counts('people')).toEqual({ requests: 3, completed: 1, hungUp: 1, failed: 0 }),
    );
    expect(vendor.requests('people').map((r) => [r.query.limit, r.query.cursor, r.outcome])).toEqual([
      ['10', '0', 'completed'],
      ['10', '10', 'hungUp'],
      ['25', '0', 'pending'],
    ]);
    await eventually(() => {
      expect(canvas.getByTestId('counter-cancelled')).toHaveTextContent('1');
      expect(lanes(canvas)[1]).toMatch(/^cursor 10 · 10.*cancelled · socket closed/);
    });
    expect(canvas.queryByRole('alert')).toBeNull();

    vendor.release('people');
    await eventually(() =>
      expect(canvas.getByTestId('people-summary')).toHaveTextContent(/^25 of \d+ people, 1 pages$/),
    );
    expect(canvas.queryByRole('alert')).toBeNull();
    letGo(harnessOf(context));
  },
};

/**
 * Cancel while the first page loads: its reason shows, the page says no page is loaded, and "Load
 * the first page" fetches it again (it was a dead end, still saying it was loading).
 */
export const CancelledFirstPageCanBeLoadedAgain: Story = {
  play: async (context) => {
    const { vendor } = harnessOf(context);
    const canvas = within(context.canvasElement);
    await eventually(() => expect(vendor.held('people')).toBe(1));
    await userEvent.click(canvas.getByRole('button', { name: 'Cancel' }));
    await eventually(() => expect(canvas.getByRole('alert')).toHaveTextContent(/Stopped by the user/));
    expect(canvas.getByTestId('people-summary')).toHaveTextContent('No page loaded');

    await userEvent.click(canvas.getByRole('button', { name: 'Load the first page' }));
    await eventually(() => expect(vendor.held('people')).toBe(1));
    vendor.release('people');
    await eventually(() =>
      expect(canvas.getByTestId('people-summary')).toHaveTextContent(/^10 of \d+ people, 1 pages$/),
    );
    expect(vendor.requests('people').map((r) => [r.query.cursor, r.outcome])).toEqual([
      ['0', 'hungUp'],
      ['0', 'completed'],
    ]);
    expect(canvas.queryByRole('alert')).toBeNull();
    letGo(harnessOf(context));
  },
};
