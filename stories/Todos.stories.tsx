import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, userEvent, within } from 'storybook/test';
import { TodosPage } from '../examples/app/pages/TodosPage';
import { eventually, harnessOf, letGo, withDemo } from './support/harness';
import { MemoryRoutes } from './support/MemoryRoutes';

/**
 * The demo's optimistic to-do page. The vendor holds every to-do request until the play releases
 * it, so the play can see each optimistic update before the vendor has answered.
 */
const meta = {
  title: 'Demo/Optimistic to-dos',
  component: TodosPage,
  parameters: { vendor: { hold: ['todos'] } },
  ...withDemo,
} satisfies Meta<typeof TodosPage>;
export default meta;

type Story = StoryObj<typeof meta>;

const titles = (canvas: ReturnType<typeof within>) =>
  canvas.queryAllByTestId('todo').map((item: HTMLElement) => item.querySelector('span')?.textContent ?? '');

/** Releases the list the page read on mount, waits for its three to-dos, then adds 'Buy eggs'. */
async function addToTheList(context: { loaded: Record<string, unknown>; canvasElement: HTMLElement }) {
  const { vendor } = harnessOf(context);
  const canvas = within(context.canvasElement);
  await eventually(() => expect(vendor.held('todos')).toBe(1));
  vendor.release('todos');
  await eventually(() => expect(titles(canvas)).toHaveLength(3));
  await userEvent.type(canvas.getByLabelText('New to-do'), 'Buy eggs');
  await userEvent.click(canvas.getByRole('button', { name: 'Add' }));
  return { vendor, canvas };
}

/**
 * Add shows at once and stays after the vendor's answer (the list is fetched again once); with the
 * vendor failing every request, a delete shows at once and is undone, and the list is fetched again.
 */
export const AddThenFailedDelete: Story = {
  play: async (context) => {
    const { vendor, canvas } = await addToTheList(context);
    // Shown before the vendor answers.
    await eventually(() => expect(titles(canvas)).toContain('Buy eggs'));
    await eventually(() => expect(vendor.held('todos')).toBe(1));
    vendor.release('todos');
    // The success invalidates the list: fetched again, once.
    await eventually(() => expect(vendor.held('todos')).toBe(1));
    vendor.release('todos');
    await eventually(() => expect(vendor.counts('todos')).toMatchObject({ requests: 3, completed: 3 }));
    await eventually(() => expect(titles(canvas)).toEqual(expect.arrayContaining(['Buy milk', 'Buy eggs'])));
    expect(vendor.requests('todos').map((request) => request.method)).toEqual(['GET', 'POST', 'GET']);

    vendor.set({ failRate: 1 });
    await userEvent.click(canvas.getByRole('button', { name: 'Delete Buy milk' }));
    await eventually(() => expect(canvas.getByTestId('undone')).toHaveTextContent(/^Undone:/));
    expect(titles(canvas)).toContain('Buy milk');
    // The failed write invalidated the list: fetched again, and failed too, the list kept on screen.
    await eventually(() => expect(vendor.counts('todos')).toMatchObject({ requests: 5, failed: 2 }));
    expect(vendor.requests('todos').map((request) => request.method)).toEqual([
      'GET',
      'POST',
      'GET',
      'DELETE',
      'GET',
    ]);
    expect(titles(canvas)).toContain('Buy milk');
    vendor.set({ failRate: 0 });
    letGo(harnessOf(context));
  },
};

/**
 * An add the vendor saved stays saved when the list's refetch after it fails: the vendor's to-do
 * (its real id) replaces the temporary one, so it can be renamed and deleted at once.
 */
export const AddSavedThenRefetchFails: Story = {
  play: async (context) => {
    const { vendor, canvas } = await addToTheList(context);
    await eventually(() => expect(vendor.held('todos')).toBe(1)); // the POST, arrived
    vendor.set({ failRate: 1 });
    vendor.release('todos');
    // The refetch its success asked for fails at once.
    await eventually(() => expect(vendor.counts('todos')).toMatchObject({ requests: 3, failed: 1 }));
    await eventually(() =>
      expect(canvas.getByRole('button', { name: 'Delete Buy eggs' })).not.toBeDisabled(),
    );
    vendor.set({ failRate: 0 });
    letGo(harnessOf(context));
  },
};

/**
 * Two adds in flight: the list is fetched again once, after the last of them. One fetched after
 * the first would not hold the second yet, and would take it off the screen while it is saved.
 */
export const OverlappingAdds: Story = {
  play: async (context) => {
    const { vendor, canvas } = await addToTheList(context);
    await eventually(() => expect(vendor.held('todos')).toBe(1));
    await userEvent.type(canvas.getByLabelText('New to-do'), 'Buy bread');
    await userEvent.click(canvas.getByRole('button', { name: 'Add' }));
    await eventually(() => expect(vendor.held('todos')).toBe(2));
    vendor.release('todos', 1);
    await eventually(() =>
      expect(canvas.getByRole('button', { name: 'Delete Buy eggs' })).not.toBeDisabled(),
    );
    expect(titles(canvas)).toEqual(expect.arrayContaining(['Buy eggs', 'Buy bread']));
    vendor.release('todos');
    await eventually(() => expect(vendor.held('todos')).toBe(1));
    vendor.release('todos');
    await eventually(() =>
      expect(canvas.getByRole('button', { name: 'Delete Buy bread' })).not.toBeDisabled(),
    );
    await eventually(() => expect(vendor.pending('todos')).toBe(0));
    expect(vendor.requests('todos').map((request) => request.method)).toEqual(['GET', 'POST', 'POST', 'GET']);
    expect(titles(canvas)).toEqual(expect.arrayContaining(['Buy eggs', 'Buy bread']));
    letGo(harnessOf(context));
  },
};

/**
 * Two adds in flight, then the page left: its scope cancels both in one tick, both are undone,
 * and the last of them still invalidates the list, so coming back fetches it again: the undos
 * restore what each write saw, and only the vendor's list (which saved them) settles them.
 */
export const LeaveWithTwoWritesInFlight: StoryObj<typeof MemoryRoutes> = {
  render: () => (
    <MemoryRoutes
      initial="/todos"
      links={[
        { href: '/search', label: 'Search' },
        { href: '/todos', label: 'To-dos' },
      ]}
    />
  ),
  play: async (context) => {
    const { vendor, canvas } = await addToTheList(context);
    await userEvent.type(canvas.getByLabelText('New to-do'), 'Buy bread');
    await userEvent.click(canvas.getByRole('button', { name: 'Add' }));
    await eventually(() => expect(vendor.held('todos')).toBe(2));

    await userEvent.click(canvas.getByRole('link', { name: 'Search' }));
    await eventually(() => expect(vendor.counts('todos')).toMatchObject({ requests: 3, hungUp: 2 }));

    await userEvent.click(canvas.getByRole('link', { name: 'To-dos' }));
    // The list, invalidated by the last write to end, is fetched again on the way back.
    await eventually(() => expect(vendor.held('todos')).toBe(1));
    expect(vendor.requests('todos').map((request) => request.method)).toEqual(['GET', 'POST', 'POST', 'GET']);
    vendor.release('todos');
    // This vendor saved both writes as they arrived: its list, not the undos, is what shows.
    await eventually(() =>
      expect(titles(canvas)).toEqual(expect.arrayContaining(['Buy milk', 'Buy eggs', 'Buy bread'])),
    );
    letGo(harnessOf(context));
  },
};
