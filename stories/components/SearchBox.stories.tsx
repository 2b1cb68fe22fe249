import type { Meta, StoryObj } from '@storybook/react-vite';
import { useState } from 'react';
import { expect, userEvent, within } from 'storybook/test';
import { search } from '../../examples/app/api';
import { SearchField } from '../../examples/app/components/SearchField';
import { SearchResults } from '../../examples/app/components/SearchResults';
import { skipToken, useStitch } from '../../src/react/index';
import { eventually, harnessOf, letGo, withComponent } from '../support/harness';

/** The search box and its results, as the search page wires them, without the rest of the page. */
function SearchBox() {
  const [q, setQ] = useState('');
  const result = useStitch(search, q ? { query: { q, limit: 5 } } : skipToken, { keepPrevious: true });
  return (
    <>
      <search className="search">
        <SearchField label="Search people" value={q} onChange={setQ} placeholder="e.g. ada" />
      </search>
      <SearchResults result={result} />
    </>
  );
}

/** The vendor (msw) holds each search until the play releases it, so typing supersedes requests in flight. */
const meta = {
  title: 'Components/Search box',
  component: SearchBox,
  parameters: { layout: 'padded', vendor: { hold: ['search'] } },
  ...withComponent,
} satisfies Meta<typeof SearchBox>;
export default meta;

type Story = StoryObj<typeof meta>;

/** Idle until something is typed: no request, a hint instead of results. */
export const Idle: Story = {
  play: async (context) => {
    const canvas = within(context.canvasElement);
    await expect(canvas.getByText('Type a name, a company or a city.')).toBeVisible();
    expect(harnessOf(context).vendor.counts('search').requests).toBe(0);
  },
};

/**
 * Three keystrokes, three requests: msw's handler sees the first two requests' signals abort (the
 * hook re-keyed), and the last one's results fill the box. Clearing the box makes it idle again.
 */
export const WithResults: Story = {
  play: async (context) => {
    const { vendor } = harnessOf(context);
    const canvas = within(context.canvasElement);
    const box = canvas.getByRole('searchbox', { name: 'Search people' });
    await userEvent.type(box, 'ada');
    await eventually(() =>
      expect(vendor.counts('search')).toEqual({ requests: 3, completed: 0, hungUp: 2, failed: 0 }),
    );
    const reasons = vendor.requests('search').map((seen) => seen.reason);
    expect(reasons).toEqual([expect.any(DOMException), expect.any(DOMException), undefined]);
    expect(reasons.slice(0, 2).map((reason) => (reason as DOMException).name)).toEqual([
      'AbortError',
      'AbortError',
    ]);

    vendor.release('search');
    await eventually(() =>
      expect(canvas.getByTestId('results-summary')).toHaveTextContent(/for “ada”, showing 5$/),
    );
    expect(within(canvas.getByRole('region', { name: 'Results' })).getAllByRole('listitem')).toHaveLength(5);
    expect(vendor.counts('search')).toEqual({ requests: 3, completed: 1, hungUp: 2, failed: 0 });

    await userEvent.clear(box);
    await expect(await canvas.findByText('Type a name, a company or a city.')).toBeVisible();
    expect(canvas.queryByTestId('results-summary')).toBeNull();
    letGo(harnessOf(context));
  },
};
