import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { expect, it } from 'vitest';
import { StitchDevtools } from '../../src/devtools/index';
import { stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { flushMicrotasks, setup } from '../react/harness';

it("the Cache tab shows each entry's age as of its render, opened before the data came", async () => {
  const { vendor, engine, clock, wrapper } = await setup({ respond: () => ({ status: 200, body: {} }) });
  const read = (name: string) => stitch({ name: uniqueKey(name), url: vendor.url(`/${name}`) });
  const [first, second] = [read('first'), read('second')];
  render(<StitchDevtools initialOpen />, { wrapper });
  const panel = await screen.findByRole('region', { name: 'Stitch devtools' });
  fireEvent.click(within(panel).getByRole('tab', { name: 'Cache' }));
  // The panel has been open a while when the data comes.
  clock.advance(5_000);
  await act(async () => {
    await first(undefined, { engine });
    await flushMicrotasks();
  });
  const ageOf = (name: string) =>
    within(panel)
      .getAllByTestId('devtools-cache-entry')
      .find((row) => row.dataset.key?.includes(name))
      ?.querySelector('td:nth-child(2)')?.textContent;
  expect(ageOf(first.definition.name)).toBe('0 ms old');

  // Later, anything that renders the panel shows the age as of then.
  clock.advance(3_000);
  await act(async () => {
    await second(undefined, { engine });
    await flushMicrotasks();
  });
  expect(ageOf(first.definition.name)).toBe('3.0 s old');
  expect(ageOf(second.definition.name)).toBe('0 ms old');
});

it("a lane's event list is drawn only once it is opened", async () => {
  const { vendor, engine, wrapper } = await setup({ respond: () => ({ status: 200, body: {} }) });
  const read = stitch({ name: uniqueKey('listed'), url: vendor.url('/listed') });
  render(<StitchDevtools initialOpen />, { wrapper });
  const panel = await screen.findByRole('region', { name: 'Stitch devtools' });
  await act(async () => {
    await read(undefined, { engine });
    await flushMicrotasks();
  });
  const lane = within(panel).getByTestId('devtools-lane');
  const details = lane.querySelector('details') as HTMLDetailsElement;
  expect(details.querySelector('ol')).toBeNull();
  await act(async () => {
    details.open = true;
    const { Event } = details.ownerDocument.defaultView as Window & typeof globalThis;
    details.dispatchEvent(new Event('toggle'));
  });
  expect([...(details.querySelectorAll('ol > li') ?? [])].map((item) => item.textContent)).toEqual([
    'start',
    'request',
    'response',
    'success',
    'done',
  ]);
});
