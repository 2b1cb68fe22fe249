import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, userEvent, within } from 'storybook/test';
import { SearchPage } from '../examples/app/pages/SearchPage';
import { StitchDevtools } from '../src/devtools/index';
import { eventually, harnessOf, letGo, withDemo } from './support/harness';

/**
 * `<StitchDevtools />` beside the search page, on the in-browser vendor. Search requests are held
 * until the play releases them, so each keystroke supersedes one still in flight.
 */
const meta = {
  title: 'Devtools/Panel',
  component: StitchDevtools,
  parameters: { layout: 'fullscreen', vendor: { hold: ['search'] } },
  render: (args) => (
    <>
      <SearchPage />
      <StitchDevtools {...args} />
    </>
  ),
  args: { initialOpen: true },
  ...withDemo,
} satisfies Meta<typeof StitchDevtools>;
export default meta;

type Story = StoryObj<typeof meta>;

const statuses = (panel: HTMLElement) =>
  within(panel)
    .queryAllByTestId('devtools-lane')
    .filter((lane) => lane.dataset.stitch === 'search')
    .map((lane) => lane.dataset.status);

/** Three keystrokes: three lanes, two cancelled with their socket closed, one answered, as the vendor counts. */
export const LanesOfASearch: Story = {
  play: async (context) => {
    const { vendor } = harnessOf(context);
    const canvas = within(context.canvasElement);
    const panel = await canvas.findByRole('region', { name: 'Stitch devtools' });
    await userEvent.type(canvas.getByRole('searchbox', { name: /Search people/ }), 'ada');
    await eventually(() => expect(vendor.counts('search')).toMatchObject({ requests: 3, hungUp: 2 }));
    await eventually(() => expect(statuses(panel)).toEqual(['sent', 'cancelled', 'cancelled']));
    for (const cancel of within(panel).getAllByTestId('devtools-cancel')) {
      expect(cancel).toHaveTextContent(/socket closed/);
    }

    vendor.release('search');
    await eventually(() => expect(statuses(panel)).toEqual(['answered', 'cancelled', 'cancelled']));
    expect(vendor.counts('search')).toEqual({ requests: 3, completed: 1, hungUp: 2, failed: 0 });

    // Keyboard: the arrow keys move between tabs; the cache holds the answered query's key.
    within(panel).getByRole('tab', { name: 'Requests' }).focus();
    await userEvent.keyboard('{ArrowRight}');
    expect(within(panel).getByRole('tab', { name: 'Cache' })).toHaveAttribute('aria-selected', 'true');
    await eventually(() =>
      expect(
        within(panel)
          .getAllByTestId('devtools-cache-entry')
          .some((row) => row.dataset.key?.includes('ada')),
      ).toBe(true),
    );
    letGo(harnessOf(context));
  },
};
