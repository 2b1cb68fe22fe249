/**
 * `select`, `initialData` and `placeholderData` (SPEC §8): a projection that re-renders its
 * component only when the selected value changes; data seeded into the cache, fresh for
 * `staleTime`; a placeholder shown while loading and never cached. Against the real vendor.
 */
import { act, render, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/index';
import { type QueryResult, useStitch } from '../../src/react/index';
import { actAtOnce, recorder, setup } from './harness';
import { ada, type User, type UserStitch, userStitch } from './users';

const input = { params: { id: 7 } };
const grace: User = { id: 8, name: 'Grace' };

/** Stores `data` for user 7 as newer data, without a request (what a write's echo would do). */
function store(engine: Engine, getUser: UserStitch, data: User, at: number) {
  const key = engine.keyOf(getUser, input) as string;
  engine.hydrate({ version: 1, entries: [[key, data, at]] });
}

/** Reads user 7's name length (`select`), counting its renders. */
function NameLength({ getUser, renders }: { getUser: UserStitch; renders: { count: number } }) {
  const q = useStitch(getUser, input, { select: (user) => user.name.length });
  renders.count += 1;
  return <p>{q.data ?? '-'}</p>;
}

/** Reads all of user 7, counting its renders. */
function Whole({ getUser, renders }: { getUser: UserStitch; renders: { count: number } }) {
  useStitch(getUser, input);
  renders.count += 1;
  return null;
}

describe('select', () => {
  it('re-renders only when the selected value changes', async () => {
    const { vendor, engine, clock, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const selected = { count: 0 };
    const whole = { count: 0 };
    const { container } = render(
      <>
        <NameLength getUser={getUser} renders={selected} />
        <Whole getUser={getUser} renders={whole} />
      </>,
      { wrapper },
    );
    await vendor.arrival(1);
    await answer(1, { body: ada });
    expect(container.textContent).toBe('3');
    const before = { selected: selected.count, whole: whole.count };

    // New data, same length: the reader of the whole data re-renders, the selecting one does not.
    await actAtOnce(() => store(engine, getUser, { id: 7, name: 'Bob' }, clock.now() + 1));
    expect(whole.count).toBe(before.whole + 1);
    expect(selected.count).toBe(before.selected);
    await actAtOnce(() => store(engine, getUser, { id: 7, name: 'Lovelace' }, clock.now() + 2));
    expect(selected.count).toBe(before.selected + 1);
    expect(container.textContent).toBe('8');
  });

  it('types and shows the selected data, and applies to a placeholder too', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const { result } = renderHook(
      () => useStitch(getUser, input, { select: (user) => user.name, placeholderData: { id: 0, name: '…' } }),
      { wrapper },
    );
    expect(result.current).toMatchObject({ status: 'pending', data: '…', isPlaceholder: true });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    expect(result.current).toMatchObject({ status: 'success', data: 'Ada', isPlaceholder: false });
  });
});

describe('a select that throws', () => {
  it('shows as the hook’s error, what it threw as cause, and recovers with data it accepts', async () => {
    const { vendor, wrapper, answer, engine } = await setup();
    const getUser = userStitch(vendor);
    const thrown = new Error('no name');
    const nameOf = (user: User) => {
      if (user.name === '') throw thrown;
      return user.name;
    };
    const { result } = renderHook(() => useStitch(getUser, input, { select: nameOf }), { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: { ...ada, name: '' } });
    expect(result.current).toMatchObject({
      status: 'error',
      data: undefined,
      error: { kind: 'config', field: 'select' },
    });
    expect(result.current.error?.cause).toBe(thrown);

    await actAtOnce(() => engine.setData(getUser, input, ada));
    expect(result.current).toMatchObject({ status: 'success', data: 'Ada', error: null });
  });

  it('on a placeholder: the error shows with no data, and so nothing said to be a placeholder', async () => {
    const { vendor, wrapper } = await setup();
    const getUser = userStitch(vendor);
    const nameOf = (user: User) => {
      if (user.name === '') throw new Error('no name');
      return user.name;
    };
    const { result } = renderHook(
      () => useStitch(getUser, input, { select: nameOf, placeholderData: { ...ada, name: '' } }),
      { wrapper },
    );
    await vendor.arrival(1);
    expect(result.current).toMatchObject({
      status: 'error',
      data: undefined,
      isPlaceholder: false,
      error: { kind: 'config', field: 'select' },
    });
  });
});

describe('initialData', () => {
  it.each([
    ['', undefined],
    [', on an engine that keeps nothing unread (cacheSize 0)', 0],
  ])(
    'fresh for staleTime: shown at the first render, stored in the cache, no request%s',
    async (_, cacheSize) => {
      const { vendor, engine, trace, clock, wrapper } = await setup({ engine: { cacheSize } });
      const getUser = userStitch(vendor);
      const shown = recorder<QueryResult<User>>();
      renderHook(() => shown.record(useStitch(getUser, input, { initialData: ada, staleTime: 60_000 })), {
        wrapper,
      });
      await act(async () => {});
      expect(shown.renders[0]).toMatchObject({ status: 'success', data: ada, isFetching: false });
      expect(shown.renders.map((q) => q.status)).not.toContain('pending');
      expect(engine.getSnapshot(engine.keyOf(getUser, input) as string)).toMatchObject({ data: ada });
      expect(trace.events).toHaveLength(0);
      expect(clock.pending()).toBe(0);
    },
  );

  it('with the default staleTime, shown at once and refetched in the background', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const shown = recorder<QueryResult<User>>();
    renderHook(
      () => shown.record(useStitch(getUser, input, { initialData: () => ({ id: 7, name: 'Seed' }) })),
      {
        wrapper,
      },
    );
    expect(shown.renders[0]).toMatchObject({ status: 'success', data: { name: 'Seed' }, isFetching: true });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    expect(shown.last).toMatchObject({ status: 'success', data: ada, isFetching: false });
    expect(shown.renders.map((q) => q.status)).not.toContain('pending');
  });

  it('is ignored for a key that holds data already', async () => {
    const { vendor, engine, clock, wrapper } = await setup();
    const getUser = userStitch(vendor);
    store(engine, getUser, ada, clock.now());
    const { result } = renderHook(
      () => useStitch(getUser, input, { initialData: grace, staleTime: 60_000 }),
      { wrapper },
    );
    expect(result.current).toMatchObject({ status: 'success', data: ada });
    expect(engine.getSnapshot(engine.keyOf(getUser, input) as string).data).toEqual(ada);
  });

  // React 18's StrictMode mounts twice from scratch (no hook state carries over): there the
  // first key's function runs twice, in development only.
  it('as a function, is called once per key, under StrictMode too (React 19)', async () => {
    const { vendor, wrapper } = await setup();
    const getUser = userStitch(vendor);
    const calls: number[] = [];
    const { rerender } = renderHook(
      ({ id }: { id: number }) =>
        useStitch(
          getUser,
          { params: { id } },
          {
            initialData: () => {
              calls.push(id);
              return { id, name: `user ${id}` };
            },
            staleTime: 60_000,
          },
        ),
      { wrapper, initialProps: { id: 1 }, reactStrictMode: true },
    );
    rerender({ id: 1 });
    rerender({ id: 2 });
    expect(calls).toEqual(process.env.STITCH_REACT === '18' ? [1, 1, 2] : [1, 2]);
  });
});

describe('placeholderData', () => {
  it('shows while loading with isPlaceholder, and never reaches the cache', async () => {
    const { vendor, engine, wrapper } = await setup();
    const getUser = userStitch(vendor);
    const placeholder: User = { id: 7, name: '…' };
    const shown = recorder<QueryResult<User>>();
    const { unmount } = renderHook(
      () => shown.record(useStitch(getUser, input, { placeholderData: placeholder })),
      {
        wrapper,
      },
    );
    expect(shown.last).toMatchObject({ status: 'pending', data: placeholder, isPlaceholder: true });
    await vendor.arrival(1);
    const key = engine.keyOf(getUser, input) as string;
    expect(engine.getSnapshot(key).data).toBeUndefined();
    // The request is let go: still nothing cached, nothing to carry to a client.
    unmount();
    await vendor.hangUp(1);
    expect(engine.getSnapshot(key).data).toBeUndefined();
    expect(engine.dehydrate().entries).toEqual([]);
  });

  it('is not shown once the new key failed or was cancelled: the error comes without another key’s data', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const { result, rerender } = renderHook(
      ({ id }: { id: number }) => useStitch(getUser, { params: { id } }, { keepPrevious: true }),
      { wrapper, initialProps: { id: 7 } },
    );
    await vendor.arrival(1);
    await answer(1, { body: ada });

    rerender({ id: 8 });
    expect(result.current).toMatchObject({ status: 'pending', data: ada, isPlaceholder: true });
    await vendor.arrival(2);
    await answer(2, { status: 404, body: { error: 'no such user' } });
    expect(result.current).toMatchObject({ status: 'error', data: undefined, isPlaceholder: false });
    expect(result.current.error?.status).toBe(404);

    rerender({ id: 9 });
    expect(result.current).toMatchObject({ status: 'pending', data: ada, isPlaceholder: true });
    await vendor.arrival(3);
    const reason = new Error('stop');
    await act(async () => result.current.cancel(reason));
    expect(result.current).toMatchObject({ status: 'error', data: undefined, isPlaceholder: false });
    expect(result.current.error?.cause).toBe(reason);
  });

  it('a function of the previous key’s data, replaced by the new key’s own data', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const { result, rerender } = renderHook(
      ({ id }: { id: number }) =>
        useStitch(
          getUser,
          { params: { id } },
          {
            placeholderData: (previous) => previous && { ...previous, name: `${previous.name}?` },
          },
        ),
      { wrapper, initialProps: { id: 7 } },
    );
    expect(result.current).toMatchObject({ status: 'pending', data: undefined, isPlaceholder: false });
    await vendor.arrival(1);
    await answer(1, { body: ada });

    rerender({ id: 8 });
    expect(result.current).toMatchObject({
      status: 'pending',
      data: { id: 7, name: 'Ada?' },
      isPlaceholder: true,
    });
    // Stable while nothing changes, though the function makes a new object per call.
    const placeholder = result.current;
    rerender({ id: 8 });
    expect(result.current).toBe(placeholder);
    await vendor.arrival(2);
    await answer(2, { body: grace });
    expect(result.current).toMatchObject({ status: 'success', data: grace, isPlaceholder: false });
  });
});
