/**
 * Cache writes, the mutation lifecycle and prefetch, as mounted hooks see them (SPEC §8):
 * `engine.setData` re-renders readers once per write and aborts the read it would race, without
 * any reader showing that abort; `useStitchMutation`'s optimistic update rolls back when the
 * mutation is cancelled (its `onSettled` gets the abort, cause intact); `invalidates` refetches
 * the active readers once per key; `prefetch` shares its request with a reader and lets go of it
 * like one. Against the real vendor, counting what it saw.
 */
import { act, render, renderHook, screen } from '@testing-library/react';
import { describe, expect, it, type Mock, vi } from 'vitest';
import { prefetch, type StitchError } from '../../src/index';
import {
  type QueryResult,
  StitchScope,
  useEngine,
  useStitch,
  useStitchMutation,
} from '../../src/react/index';
import { snapshotWhere } from '../helpers/runs';
import { milk, type Todo, type TodoStitches, todoStitches } from '../helpers/todos';
import { actAtOnce, type Recorder, recorder, setup } from './harness';
import { ada, Reader, type User, userStitch } from './users';

const input = { params: { id: 7 } };

/** Shows the to-do titles, recording every result it rendered. */
function TodoList({
  getTodos,
  shown,
  testId,
}: {
  getTodos: TodoStitches['getTodos'];
  shown?: Recorder<QueryResult<Todo[]>>;
  testId: string;
}) {
  const q = useStitch(getTodos, undefined);
  shown?.record(q);
  return <p data-testid={testId}>{`${q.status} ${q.data?.map((todo) => todo.title).join(',') ?? '-'}`}</p>;
}

/**
 * Adds a to-do optimistically (`setData`), rolling back to the previous list on failure or cancel,
 * and invalidating the list after a success.
 */
function useOptimisticAdd({ getTodos, addTodo }: TodoStitches, onSettled: Mock, onError: Mock) {
  const engine = useEngine();
  return useStitchMutation(addTodo, {
    onMutate: (sent) => {
      const previous = engine.getData(getTodos, undefined);
      engine.setData(getTodos, undefined, (list = []) => [...list, { id: -1, title: sent.body.title }]);
      return previous;
    },
    onError: (error, _sent, previous) => {
      onError(error);
      engine.setData(getTodos, undefined, (current) => previous ?? current);
    },
    onSettled,
    invalidates: [getTodos],
  });
}

/** A page's add button, as a component: `adder.add(title)` presses it. */
function Adder({
  stitches,
  onSettled,
  adder,
}: {
  stitches: TodoStitches;
  onSettled: Mock;
  adder: { add?: (title: string) => void };
}) {
  const m = useOptimisticAdd(stitches, onSettled, vi.fn());
  adder.add = (title) => m.mutate({ body: { title } });
  return null;
}

describe('engine.setData with mounted readers', () => {
  it('each write re-renders the readers once', async () => {
    const { vendor, engine, wrapper, answer } = await setup();
    const getUser = userStitch(vendor, { ttl: 60_000 });
    const shown = recorder<QueryResult<User>>();
    render(<Reader getUser={getUser} shown={shown} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    const before = shown.renders.length;

    await actAtOnce(() => engine.setData(getUser, input, (user) => user && { ...user, name: 'Ada L.' }));
    expect(shown.renders.length).toBe(before + 1);
    await actAtOnce(() => engine.setData(getUser, input, { id: 7, name: 'Ada Lovelace' }));
    expect(shown.renders.length).toBe(before + 2);
    expect(shown.last).toMatchObject({
      status: 'success',
      data: { name: 'Ada Lovelace' },
      isFetching: false,
    });
    expect(vendor.requests()).toBe(1);
  });

  it('a write aborts the read in flight: the readers show the written data, never an error, and the vendor hangs up', async () => {
    const { vendor, engine, wrapper } = await setup();
    const getUser = userStitch(vendor);
    const first = recorder<QueryResult<User>>();
    const second = recorder<QueryResult<User>>();
    render(
      <>
        <Reader getUser={getUser} shown={first} />
        <Reader getUser={getUser} shown={second} />
      </>,
      { wrapper },
    );
    await vendor.arrival(1);
    const before = first.renders.length;

    const written = { id: 7, name: 'written' };
    await actAtOnce(() => engine.setData(getUser, input, written));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });
    await actAtOnce(() => {});
    for (const shown of [first, second]) {
      expect(shown.last).toMatchObject({ status: 'success', data: written, error: null, isFetching: false });
      expect(shown.renders.map((q) => q.status)).not.toContain('error');
    }
    // One render for the write; the aborted read's end changes nothing on screen.
    expect(first.renders.length).toBe(before + 1);
    expect(vendor.requests()).toBe(1);
  });
});

describe('useStitchMutation lifecycle', () => {
  /** A list of to-dos and a mutation that adds one optimistically, rolling back on failure. */
  async function optimisticTodos() {
    const harness = await setup();
    const { vendor, wrapper, answer } = harness;
    const stitches = todoStitches(vendor);
    const onSettled = vi.fn();
    const onError = vi.fn();
    render(<TodoList getTodos={stitches.getTodos} testId="list" />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: milk });
    const { result } = renderHook(() => useOptimisticAdd(stitches, onSettled, onError), { wrapper });
    return { ...harness, ...stitches, result, onSettled, onError };
  }

  const list = () => screen.getByTestId('list').textContent;

  it('a cancel(reason) rolls the optimistic update back; onSettled gets the abort with its cause', async () => {
    const { vendor, result, onSettled, onError } = await optimisticTodos();
    await actAtOnce(() => result.current.mutate({ body: { title: 'eggs' } }));
    expect(list()).toBe('success milk,eggs');
    await vendor.arrival(2);

    const reason = new Error('the user changed their mind');
    await actAtOnce(() => result.current.cancel(reason));
    expect(list()).toBe('success milk');
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    const error = onSettled.mock.calls[0]?.[1] as StitchError;
    expect(error).toMatchObject({ kind: 'aborted', name: 'AbortError' });
    expect(error.cause).toBe(reason);
    expect(onError).toHaveBeenCalledWith(error);
    expect(onSettled).toHaveBeenCalledWith(undefined, error, { body: { title: 'eggs' } }, milk);
    expect(result.current).toMatchObject({ status: 'error', error });
    // Nothing was invalidated: the list was not fetched again.
    expect(vendor.requests()).toBe(2);
  });

  it('after reset(), the next mutation waits for the earlier write to roll back: it is never undone by it', async () => {
    const { vendor, result, onError } = await optimisticTodos();
    await actAtOnce(() => result.current.mutate({ body: { title: 'eggs' } }));
    await vendor.arrival(2);
    await actAtOnce(() => result.current.reset());
    await actAtOnce(() => result.current.mutate({ body: { title: 'bread' } }));
    // The write of 'eggs' fails: its rollback runs before 'bread' is applied, not after.
    vendor.release(2, { status: 422, body: { error: 'no eggs' } });
    await vendor.arrival(3);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(list()).toBe('success milk,bread');
  });

  /**
   * An optimistic add whose `onMutate` writes its update only once `release()` is called,
   * recording the title of each rollback.
   */
  async function lateOptimisticAdd() {
    const harness = await setup();
    const { vendor, wrapper, answer } = harness;
    const { getTodos, addTodo } = todoStitches(vendor);
    render(<TodoList getTodos={getTodos} testId="list" />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: milk });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const rolledBack: string[] = [];
    const { result } = renderHook(
      () => {
        const engine = useEngine();
        return useStitchMutation(addTodo, {
          // The optimistic update is written after an await.
          onMutate: async (sent) => {
            await released;
            const previous = engine.getData(getTodos, undefined);
            engine.setData(getTodos, undefined, (todos = []) => [
              ...todos,
              { id: -1, title: sent.body.title },
            ]);
            return previous;
          },
          onError: (_error, sent, previous) => {
            rolledBack.push(sent.body.title);
            engine.setData(getTodos, undefined, (current) => previous ?? current);
          },
        });
      },
      { wrapper },
    );
    return { vendor, result, release, rolledBack };
  }

  it('a cancel while onMutate is pending shows at once; its rollback waits for onMutate, and the next mutation for the rollback', async () => {
    const { vendor, result, release } = await lateOptimisticAdd();
    await actAtOnce(() => result.current.mutate({ body: { title: 'eggs' } }));
    const reason = new Error('the user changed their mind');
    await actAtOnce(() => result.current.cancel(reason));
    expect(result.current).toMatchObject({ status: 'error', error: { kind: 'aborted', cause: reason } });

    await actAtOnce(() => result.current.mutate({ body: { title: 'bread' } }));
    await actAtOnce(release);
    // 'eggs' was written late and rolled back, before 'bread' was applied.
    expect(list()).toBe('success milk,bread');
    expect(JSON.parse((await vendor.arrival(2)).body)).toEqual({ title: 'bread' });
  });

  it('a mutation cancelled while it waits for the previous rollback shows at once, sends nothing, and rolls back after it', async () => {
    const { vendor, result, release, rolledBack } = await lateOptimisticAdd();
    await actAtOnce(() => result.current.mutate({ body: { title: 'eggs' } }));
    await actAtOnce(() => result.current.cancel(new Error('not eggs')));
    await actAtOnce(() => result.current.mutate({ body: { title: 'bread' } }));
    const reason = new Error('not bread either');
    await actAtOnce(() => result.current.cancel(reason));
    expect(result.current).toMatchObject({ status: 'error', error: { kind: 'aborted', cause: reason } });
    // Neither rollback has run: the first waits for its onMutate, the second for the first.
    expect(rolledBack).toEqual([]);

    await actAtOnce(release);
    expect(rolledBack).toEqual(['eggs', 'bread']);
    expect(list()).toBe('success milk');
    expect(vendor.requests()).toBe(1);
  });

  it('a scope reset cancels the mutation and rolls it back', async () => {
    const harness = await setup();
    const { vendor, wrapper, answer } = harness;
    const { getTodos, addTodo } = todoStitches(vendor);
    const onSettled = vi.fn();
    const adder: { add?: (title: string) => void } = {};
    const page = (path: string) => (
      <>
        <TodoList getTodos={getTodos} testId="list" />
        <StitchScope resetKey={path}>
          <Adder stitches={{ getTodos, addTodo }} onSettled={onSettled} adder={adder} />
        </StitchScope>
      </>
    );
    const { rerender } = render(page('/a'), { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: milk });
    await actAtOnce(() => adder.add?.('eggs'));
    expect(list()).toBe('success milk,eggs');
    await vendor.arrival(2);

    await act(async () => rerender(page('/b')));
    await actAtOnce(() => {});
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    expect(list()).toBe('success milk');
    expect(onSettled).toHaveBeenCalledWith(
      undefined,
      expect.objectContaining({ kind: 'aborted' }),
      { body: { title: 'eggs' } },
      milk,
    );
  });

  it('invalidates refetches the active readers once per key: the vendor sees one request per key', async () => {
    const { vendor, engine, wrapper } = await setup({
      respond: (entry) =>
        entry.method === 'POST'
          ? { body: { id: 2, title: 'eggs' } }
          : {
              body:
                entry.path === '/todos' ? milk : { id: Number(entry.path.split('/').at(-1)), name: 'Ada' },
            },
    });
    const { getTodos, addTodo } = todoStitches(vendor);
    const getUser = userStitch(vendor, { ttl: 60_000 });
    render(
      <>
        <TodoList getTodos={getTodos} testId="list" />
        <TodoList getTodos={getTodos} testId="list-2" />
        <Reader getUser={getUser} testId="user-7a" />
        <Reader getUser={getUser} testId="user-7b" />
        <Reader getUser={getUser} id={8} testId="user-8" />
      </>,
      { wrapper },
    );
    const keys = [engine.keyOf(getTodos, undefined), engine.keyOf(getUser, input)] as string[];
    const other = engine.keyOf(getUser, { params: { id: 8 } }) as string;
    const loaded = (key: string) => snapshotWhere(engine, key, (s) => s.data !== undefined && !s.fetching);
    await act(async () => {
      await Promise.all([...keys, other].map(loaded));
    });
    expect(vendor.requests()).toBe(3);

    const { result } = renderHook(
      () => useStitchMutation(addTodo, { invalidates: [getTodos, [getUser, input]] }),
      {
        wrapper,
      },
    );
    await act(async () => {
      await result.current.mutateAsync({ body: { title: 'eggs' } });
      await vendor.arrival(6);
      await Promise.all(keys.map((key) => snapshotWhere(engine, key, (s) => !s.stale && !s.fetching)));
    });
    const refetched = vendor.ledger.slice(4).map((entry) => entry.path);
    expect(refetched.sort()).toEqual(['/todos', '/users/7']);
    expect(vendor.requests()).toBe(6);
    expect(screen.getByTestId('list-2').textContent).toBe('success milk');
    expect(engine.getSnapshot(other)).toMatchObject({ stale: false, invalidated: 0 });
  });
});

describe('useStitchMutation callbacks', () => {
  it('are the latest render’s as each step runs, not those of the render that called mutate()', async () => {
    const { vendor, wrapper, answer } = await setup();
    const { getTodos, addTodo } = todoStitches(vendor);
    const calls: string[] = [];
    const lifecycle = (render: string) => ({
      onSuccess: () => void calls.push(`onSuccess ${render}`),
      onError: () => void calls.push(`onError ${render}`),
      onSettled: () => void calls.push(`onSettled ${render}`),
      invalidates: () => {
        calls.push(`invalidates ${render}`);
        return [getTodos];
      },
    });
    const { result, rerender } = renderHook(
      ({ render }: { render: string }) => useStitchMutation(addTodo, lifecycle(render)),
      { wrapper, initialProps: { render: 'v1' } },
    );
    let sent: Promise<unknown> = Promise.resolve();
    act(() => {
      sent = result.current.mutateAsync({ body: { title: 'eggs' } }).catch(() => {});
    });
    await vendor.arrival(1);
    rerender({ render: 'v2' });
    await answer(1, { body: { id: 2, title: 'eggs' } });
    await act(() => sent);
    expect(calls).toEqual(['onSuccess v2', 'invalidates v2', 'onSettled v2']);

    calls.length = 0;
    act(() => {
      sent = result.current.mutateAsync({ body: { title: 'jam' } }).catch(() => {});
    });
    await vendor.arrival(2);
    rerender({ render: 'v3' });
    await answer(2, { status: 500, body: { error: 'boom' } });
    await act(() => sent);
    expect(calls).toEqual(['onError v3', 'onSettled v3']);
  });
});

describe('prefetch with mounted readers', () => {
  it('a reader that mounts while a prefetch is in flight shares its request', async () => {
    const { vendor, engine, wrapper, answer } = await setup();
    const getUser = userStitch(vendor, { ttl: 60_000 });
    const prefetched = prefetch(getUser, input, { engine });
    await vendor.arrival(1);
    const shown = recorder<QueryResult<User>>();
    render(<Reader getUser={getUser} shown={shown} />, { wrapper });
    await answer(1, { body: ada });
    expect(shown.last).toMatchObject({ status: 'success', data: ada });
    await expect(prefetched).resolves.toMatchObject({ ok: true, data: ada });
    expect(vendor.requests()).toBe(1);
  });

  it('a router loader that prefetches then unmounts lets go: hung up only after the last reader unmounts', async () => {
    const { vendor, engine, wrapper } = await setup();
    const getUser = userStitch(vendor, { ttl: 60_000 });
    const loader = new AbortController();
    const prefetched = prefetch(getUser, input, { engine, signal: loader.signal });
    await vendor.arrival(1);
    const shown = recorder<QueryResult<User>>();
    const { unmount } = render(<Reader getUser={getUser} shown={shown} />, { wrapper });

    const left = new Error('the loader was unmounted');
    await actAtOnce(() => loader.abort(left));
    expect((await prefetched).error?.cause).toBe(left);
    expect(vendor.ledger[0]).toMatchObject({ hungUp: false, answered: false });
    expect(shown.last).toMatchObject({ status: 'pending', isFetching: true });

    unmount();
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(vendor.requests()).toBe(1);
  });

  it('a prefetch alone that is aborted hangs up, and fills nothing', async () => {
    const { vendor, engine } = await setup();
    const getUser = userStitch(vendor, { ttl: 60_000 });
    const loader = new AbortController();
    const prefetched = prefetch(getUser, input, { engine, signal: loader.signal });
    await vendor.arrival(1);
    loader.abort(new Error('navigated away'));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect((await prefetched).ok).toBe(false);
    expect(engine.getData(getUser, input)).toBeUndefined();
  });
});
