/**
 * SPEC §3 lists `suspense` among `useStitch`'s options: with it the hook suspends while its key
 * has no data and throws a failure to the error boundary (as `useSuspenseStitch` does), and its
 * result is always a success, with `refetch` and `cancel` for its own background refetch.
 */
import { act, render, screen } from '@testing-library/react';
import { StrictMode, Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StitchError } from '../../src/index';
import { type QueryResult, skipToken, useStitch } from '../../src/react/index';
import { Boundary, caught } from './boundary';
import { actAtOnce, setup } from './harness';
import { ada, type User, type UserStitch, userStitch } from './users';

beforeEach(() => {
  caught.length = 0;
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** The last result the profile rendered, for the tests to call its controls. */
let shown: QueryResult<string> | undefined;

function Profile({ getUser, select }: { getUser: UserStitch; select?: (user: User) => string }) {
  const result = useStitch(getUser, { params: { id: 7 } }, { suspense: true, select: select ?? (() => '') });
  shown = result;
  return <p>{`${result.status} ${result.data}${result.isFetching ? ' fetching' : ''}`}</p>;
}

function Guarded(props: { getUser: UserStitch; select?: (user: User) => string }) {
  return (
    <Boundary>
      <Suspense fallback={<p>loading</p>}>
        <Profile {...props} />
      </Suspense>
    </Boundary>
  );
}

const name = (user: User) => user.name;

function Idle({ getUser }: { getUser: UserStitch }) {
  useStitch(getUser, skipToken, { suspense: true });
  return null;
}

function Toggled({ getUser, suspense }: { getUser: UserStitch; suspense: boolean }) {
  const { status } = useStitch(getUser, { params: { id: 7 } }, { suspense });
  return <p>{status}</p>;
}

describe('useStitch with suspense: true', () => {
  it('suspends while the key loads, then shows the selected data as a success', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    render(<Guarded getUser={getUser} select={name} />, { wrapper });
    expect(screen.getByText('loading')).toBeTruthy();
    await vendor.arrival(1);
    await answer(1, { body: ada });
    expect(screen.getByText('success Ada')).toBeTruthy();
    expect(shown).toMatchObject({ status: 'success', error: null, isPlaceholder: false });
    expect(vendor.requests()).toBe(1);
  });

  it('sends one request under StrictMode', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    render(
      <StrictMode>
        <Guarded getUser={getUser} select={name} />
      </StrictMode>,
      { wrapper },
    );
    await vendor.arrival(1);
    await answer(1, { body: ada });
    expect(screen.getByText('success Ada')).toBeTruthy();
    expect(vendor.requests()).toBe(1);
  });

  it('throws a failure to the error boundary', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    render(<Guarded getUser={getUser} select={name} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { status: 404, body: { error: 'no such user' } });
    expect(screen.getByText('failed: http')).toBeTruthy();
    expect(caught[0]).toMatchObject({ kind: 'http', status: 404 });
  });

  it('throws a select that throws to the error boundary, what it threw as cause', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const broken = new Error('no such field');
    const select = () => {
      throw broken;
    };
    render(<Guarded getUser={getUser} select={select} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    expect(screen.getByText('failed: config')).toBeTruthy();
    expect(caught[0]).toMatchObject({ kind: 'config', field: 'select' });
    expect((caught[0] as StitchError).cause).toBe(broken);
  });

  it('refetch() fetches again with the data shown; cancel(reason) closes that request and keeps the data', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    render(<Guarded getUser={getUser} select={name} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: ada });

    act(() => shown?.refetch());
    await vendor.arrival(2);
    expect(screen.getByText('success Ada fetching')).toBeTruthy();
    await actAtOnce(() => shown?.cancel(new Error('not now')));
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    expect(screen.getByText('success Ada')).toBeTruthy();
    expect(caught).toHaveLength(0);

    act(() => shown?.refetch());
    await vendor.arrival(3);
    await answer(3, { body: { ...ada, name: 'Ada L.' } });
    expect(screen.getByText('success Ada L.')).toBeTruthy();
    expect(vendor.requests()).toBe(3);
  });

  it('an unmount closes its refetch in flight', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const { unmount } = render(<Guarded getUser={getUser} select={name} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    act(() => shown?.refetch());
    await vendor.arrival(2);
    unmount();
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
  });

  it('refuses an idle input, and a change of suspense in a mounted component, naming suspense', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    render(
      <Boundary>
        <Idle getUser={getUser} />
      </Boundary>,
      { wrapper },
    );
    expect(caught[0]).toMatchObject({ kind: 'config', field: 'suspense' });

    const page = (suspense: boolean) => (
      <Boundary>
        <Suspense fallback={<p>loading</p>}>
          <Toggled getUser={getUser} suspense={suspense} />
        </Suspense>
      </Boundary>
    );
    const { rerender } = render(page(true), { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    expect(screen.getByText('success')).toBeTruthy();
    rerender(page(false));
    expect(caught[1]).toMatchObject({ kind: 'config', field: 'suspense' });
  });
});
