/**
 * Two copies of the hooks in one process (the package's ESM and CommonJS builds, when a CommonJS
 * component library sits under an ESM app), made here by importing `stitch-fetch/react`'s source
 * again after `vi.resetModules()`: on one engine, the readers of one key share what the hooks keep
 * per engine, whichever copy each imported.
 */
import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { type Stitch, type StitchInput, stitch } from '../../src/index';
import { type InfiniteResult, useStitchInfinite } from '../../src/react/index';
import { uniqueKey } from '../helpers/keys';
import { actAtOnce, setup } from './harness';

interface Page {
  items: string[];
  next: number | null;
}

type Hook = typeof useStitchInfinite;

const options = {
  initialPageParam: 0,
  getNextPageParam: (last: Page) => last.next,
  pageInput: 'cursor',
} as const;

interface ListProps {
  hook: Hook;
  list: Stitch<Page, StitchInput>;
  testId: string;
  shown?: { current: InfiniteResult<Page, number> | undefined };
}

/** List 'a' read by `hook`, shown as `status items`; `shown` receives its last result. */
function List({ hook, list, testId, shown }: ListProps) {
  const pages = hook(list, { query: { list: 'a' } }, options);
  if (shown) shown.current = pages;
  return <p data-testid={testId}>{`${pages.status} ${pages.data?.pages.flatMap((p) => p.items) ?? ''}`}</p>;
}

/** The other copy's `useStitchInfinite`, a module instance of its own. */
async function otherCopy(): Promise<Hook> {
  vi.resetModules();
  const copy = await import('../../src/react/index');
  expect(copy.useStitchInfinite).not.toBe(useStitchInfinite);
  return copy.useStitchInfinite;
}

describe('two copies of the hooks on one engine', () => {
  it('two infinite readers of one key, one of each copy, share its pages and one request per page', async () => {
    const { vendor, wrapper, answer } = await setup();
    const other = await otherCopy();
    const list = stitch<Page, StitchInput>({
      name: uniqueKey('people'),
      url: vendor.url('/people'),
      retry: false,
    });
    const shown: ListProps['shown'] = { current: undefined };
    render(
      <>
        <List hook={useStitchInfinite} list={list} testId="a" shown={shown} />
        <List hook={other} list={list} testId="b" />
      </>,
      { wrapper },
    );
    await vendor.arrival(1);
    await answer(1, { body: { items: ['ada'], next: 1 } });
    await actAtOnce(() => shown.current?.fetchNext());
    expect((await vendor.arrival(2)).query.get('cursor')).toBe('1');
    await answer(2, { body: { items: ['grace'], next: null } });
    expect(screen.getByTestId('b').textContent).toBe('success ada,grace');
    expect(vendor.requests()).toBe(2);
  });
});
