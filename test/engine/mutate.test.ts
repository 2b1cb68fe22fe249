/**
 * `mutate(stitch, input, options)`: the mutation lifecycle around a write. `onMutate` applies an
 * optimistic update and returns the context; a failure or a cancellation rolls back through
 * `onError` (a cancel is `kind: 'aborted'` with its `cause` the reason itself) and reaches
 * `onSettled` with the same error; a success runs `onSuccess`, then `invalidates`, then
 * `onSettled`. Against the real vendor.
 */
import { describe, expect, it, vi } from 'vitest';
import { type Engine, mutate, stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { startScenario } from '../helpers/runs';
import { type AddInput, type Todo, type TodoStitches, todoStitches, milk as todos } from '../helpers/todos';

/** The lifecycle of an optimistic add, recording every callback it gets. */
function optimisticAdd(engine: Engine, getTodos: TodoStitches['getTodos']) {
  const calls: string[] = [];
  const lifecycle = {
    onMutate: vi.fn((input: AddInput) => {
      calls.push('onMutate');
      const previous = engine.getData(getTodos, undefined);
      // As README's recipe: a list never loaded is left alone, since no rollback could unwrite it.
      engine.setData(getTodos, undefined, (list) => list && [...list, { id: -1, title: input.body.title }]);
      return { previous };
    }),
    onSuccess: vi.fn(() => void calls.push('onSuccess')),
    onError: vi.fn(
      (_error: unknown, _input: AddInput, context: { previous: Todo[] | undefined } | undefined) => {
        calls.push('onError');
        engine.setData(getTodos, undefined, (current) => context?.previous ?? current);
      },
    ),
    onSettled: vi.fn(() => void calls.push('onSettled')),
  };
  return { calls, lifecycle };
}

const input: AddInput = { body: { title: 'eggs' } };

describe('mutate', () => {
  it('a success runs onMutate, the write, onSuccess, invalidates and onSettled, in that order', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const { getTodos, addTodo } = todoStitches(vendor);
    engine.setData(getTodos, undefined, todos);
    const { calls, lifecycle } = optimisticAdd(engine, getTodos);
    const key = engine.keyOf(getTodos, undefined) as string;

    const done = mutate(addTodo, input, { engine, ...lifecycle, invalidates: [getTodos] });
    // The optimistic update is applied at once, before the write leaves.
    expect(engine.getData(getTodos, undefined)).toEqual([...todos, { id: -1, title: 'eggs' }]);
    const arrival = await vendor.arrival(1);
    expect(JSON.parse(arrival.body)).toEqual(input.body);
    vendor.release(1, { body: { id: 2, title: 'eggs' } });
    await expect(done).resolves.toEqual({ id: 2, title: 'eggs' });

    expect(calls).toEqual(['onMutate', 'onSuccess', 'onSettled']);
    const context = { previous: todos };
    expect(lifecycle.onSuccess).toHaveBeenCalledWith({ id: 2, title: 'eggs' }, input, context);
    expect(lifecycle.onSettled).toHaveBeenCalledWith({ id: 2, title: 'eggs' }, null, input, context);
    // Invalidated: stale, and its next read fetches.
    expect(engine.getSnapshot(key)).toMatchObject({ stale: true, invalidated: 1 });
    expect(vendor.requests()).toBe(1);
  });

  it('a cancel while the write is in flight rolls back and settles with the abort, its cause the reason', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const { getTodos, addTodo } = todoStitches(vendor);
    engine.setData(getTodos, undefined, todos);
    const { calls, lifecycle } = optimisticAdd(engine, getTodos);
    const controller = new AbortController();
    const done = mutate(addTodo, input, {
      engine,
      signal: controller.signal,
      ...lifecycle,
      invalidates: [getTodos],
    });
    await vendor.arrival(1);

    const reason = new Error('the user closed the dialog');
    controller.abort(reason);
    const error = await done.catch((failure: unknown) => failure);
    expect(error).toMatchObject({ kind: 'aborted', name: 'AbortError', dispatched: true });
    expect((error as Error).cause).toBe(reason);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });

    expect(calls).toEqual(['onMutate', 'onError', 'onSettled']);
    expect(lifecycle.onError).toHaveBeenCalledWith(error, input, { previous: todos });
    expect(lifecycle.onSettled).toHaveBeenCalledWith(undefined, error, input, { previous: todos });
    expect(engine.getData(getTodos, undefined)).toBe(todos);
    // Nothing is invalidated after a failure.
    expect(engine.getSnapshot(engine.keyOf(getTodos, undefined) as string).invalidated).toBe(0);
  });

  it('a vendor failure rolls back through onError', async () => {
    const { vendor, engine } = await startScenario({
      respond: () => ({ status: 500, body: { error: 'down' } }),
    });
    const { getTodos, addTodo } = todoStitches(vendor);
    engine.setData(getTodos, undefined, todos);
    const { calls, lifecycle } = optimisticAdd(engine, getTodos);
    await expect(mutate(addTodo, input, { engine, ...lifecycle })).rejects.toMatchObject({
      kind: 'http',
      status: 500,
    });
    expect(calls).toEqual(['onMutate', 'onError', 'onSettled']);
    expect(engine.getData(getTodos, undefined)).toBe(todos);
  });

  it('a vendor failure leaves a list that was never loaded without data, as before the write', async () => {
    const { vendor, engine } = await startScenario({
      respond: () => ({ status: 400, body: { error: 'rejected' } }),
    });
    const { getTodos, addTodo } = todoStitches(vendor);
    const { lifecycle } = optimisticAdd(engine, getTodos);
    await expect(mutate(addTodo, input, { engine, ...lifecycle })).rejects.toMatchObject({ status: 400 });
    expect(engine.getData(getTodos, undefined)).toBeUndefined();
  });

  it('a cancel while an asynchronous onMutate runs fails at once and sends nothing; the rollback waits for onMutate, with its context', async () => {
    const { vendor, engine } = await startScenario();
    const { getTodos, addTodo } = todoStitches(vendor);
    engine.setData(getTodos, undefined, todos);
    const { calls, lifecycle } = optimisticAdd(engine, getTodos);
    const controller = new AbortController();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let rolledBack!: () => void;
    const settled = new Promise<void>((resolve) => (rolledBack = resolve));
    let heard: AbortSignal | undefined;
    let settledWith: unknown[] = [];
    const done = mutate(addTodo, input, {
      engine,
      signal: controller.signal,
      ...lifecycle,
      // An optimistic update written after an await: it lands after the cancel.
      onMutate: async (added, signal) => {
        heard = signal;
        await released;
        return lifecycle.onMutate(added);
      },
      onSettled: (...args) => {
        lifecycle.onSettled();
        settledWith = args;
        rolledBack();
      },
    });
    const reason = new Error('gone');
    controller.abort(reason);
    const error = await done.catch((failure: unknown) => failure);
    expect(error).toMatchObject({ kind: 'aborted', dispatched: false });
    expect((error as Error).cause).toBe(reason);
    expect(heard).toBe(controller.signal);
    // Nothing rolled back yet: onMutate has not written its update.
    expect(calls).toEqual([]);

    release();
    await settled;
    expect(calls).toEqual(['onMutate', 'onError', 'onSettled']);
    expect(lifecycle.onError).toHaveBeenCalledWith(error, input, { previous: todos });
    expect(settledWith).toEqual([undefined, error, input, { previous: todos }]);
    // The late optimistic update was rolled back.
    expect(engine.getData(getTodos, undefined)).toBe(todos);
    expect(vendor.requests()).toBe(0);
  });

  it('a cancelled mutation nobody awaits causes no unhandled rejection', async () => {
    const { vendor, engine } = await startScenario();
    const { addTodo } = todoStitches(vendor);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let settle!: () => void;
      const settled = new Promise<void>((resolve) => (settle = resolve));
      // Fire and forget, as a click handler does.
      void mutate(addTodo, input, { engine, signal: AbortSignal.abort(), onSettled: () => settle() });
      await settled;
      // Node reports an unhandled rejection once the microtasks of a turn have run.
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect(vendor.requests()).toBe(0);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('an onMutate that throws fails the mutation before anything is sent', async () => {
    const { vendor, engine } = await startScenario();
    const { addTodo } = todoStitches(vendor);
    const bug = new Error('bug in onMutate');
    const onSettled = vi.fn();
    const failure = await mutate(addTodo, input, {
      engine,
      onMutate: () => {
        throw bug;
      },
      onSettled,
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ kind: 'config', field: 'onMutate', cause: bug });
    expect(onSettled).toHaveBeenCalledWith(undefined, failure, input, undefined);
    expect(vendor.requests()).toBe(0);
  });

  it('an onMutate failing with a read’s StitchError fails as onMutate’s: nothing of the write was sent', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ status: 503, body: 'down' }) });
    const { getTodos, addTodo } = todoStitches(vendor);
    const failure = await mutate(addTodo, input, {
      engine,
      // A read the optimistic update needs first, which fails.
      onMutate: () => getTodos(undefined, { engine }),
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      kind: 'config',
      field: 'onMutate',
      dispatched: false,
      requests: 0,
      retryable: false,
      cause: expect.objectContaining({ kind: 'http', status: 503 }),
    });
    expect(vendor.ledger.map((entry) => entry.method)).not.toContain('POST');
  });

  it('called without input, its callbacks get an empty one, as typed (never undefined)', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { ok: true } }) });
    const ping = stitch({ name: uniqueKey('ping'), method: 'POST', url: vendor.url('/ping') });
    const seen: unknown[] = [];
    const data = await mutate(ping, undefined, {
      engine,
      onMutate: (given) => void seen.push(given.body),
      onSuccess: (_data, given) => void seen.push(given.query),
      invalidates: (_data, given) => {
        seen.push(given.params);
        return [];
      },
      onSettled: (_data, _error, given) => void seen.push(given.headers),
    });
    expect(data).toEqual({ ok: true });
    expect(seen).toEqual([undefined, undefined, undefined, undefined]);
    expect(vendor.requests()).toBe(1);
  });

  it('invalidates [stitch, input] pairs and a function of the data and input', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { id: 3, title: 'tea' } }) });
    const { getTodos, addTodo } = todoStitches(vendor);
    const getTodo = stitch<Todo, { params: { id: number } }>({
      name: uniqueKey('todo'),
      url: vendor.url('/todos/{id}'),
      cache: { ttl: 60_000 },
    });
    const three = { params: { id: 3 } };
    const four = { params: { id: 4 } };
    for (const each of [three, four]) engine.setData(getTodo, each, { id: each.params.id, title: '?' });
    engine.setData(getTodos, undefined, todos);
    await mutate(addTodo, input, { engine, invalidates: [[getTodo, three]] });
    const invalidated = (key: string | undefined) => engine.getSnapshot(key as string).invalidated;
    expect([three, four].map((each) => invalidated(engine.keyOf(getTodo, each)))).toEqual([1, 0]);
    await mutate(addTodo, input, {
      engine,
      invalidates: (data, sent) =>
        sent.body.title === 'eggs' ? [getTodos, [getTodo, { params: { id: data.id } }]] : [],
    });
    expect(invalidated(engine.keyOf(getTodos, undefined))).toBe(1);
    expect(invalidated(engine.keyOf(getTodo, three))).toBe(2);
  });

  it('a target the function gives that no call could send is skipped: every other one is still invalidated', async () => {
    // The vendor's answer has no id, so the function's pair cannot be sent.
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { title: 'tea' } }) });
    const { getTodos, addTodo } = todoStitches(vendor);
    const getTodo = stitch<Todo, { params: { id: number } }>({
      name: uniqueKey('todo'),
      url: vendor.url('/todos/{id}'),
    });
    engine.setData(getTodos, undefined, todos);
    const onSettled = vi.fn();
    const data = await mutate(addTodo, input, {
      engine,
      invalidates: (added) => [[getTodo, { params: { id: added.id } }], getTodos],
      onSettled,
    });
    expect(data).toEqual({ title: 'tea' });
    expect(engine.getSnapshot(engine.keyOf(getTodos, undefined) as string).invalidated).toBe(1);
    expect(onSettled).toHaveBeenCalledWith(data, null, input, undefined);
  });

  it('refuses a wrong option before anything runs: a config error naming it, nothing sent, no callback called', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { id: 3, title: 'tea' } }) });
    const { getTodos, addTodo } = todoStitches(vendor);
    const getTodo = stitch({ name: uniqueKey('todo'), url: vendor.url('/todos/{id}') });
    const onMutate = vi.fn();
    const wrong: Array<[string, Record<string, unknown>]> = [
      // A stitch alone is a function too: it was called as if it listed what to invalidate.
      ['invalidates', { invalidates: getTodos }],
      ['invalidates', { invalidates: ['todos'] }],
      ['invalidates', { invalidates: [[getTodos, 'all']] }],
      // A pair no call could send (a misspelt param, a misspelt field) would invalidate nothing.
      ['invalidates', { invalidates: [[getTodo, { params: { todoId: 3 } }]] }],
      ['invalidates', { invalidates: [[getTodos, { qurey: { done: true } }]] }],
      ['onSuccess', { onSuccess: 'refresh' }],
      // A controller instead of its signal, with an onMutate that would have run first.
      ['signal', { signal: new AbortController() }],
      // A misspelt callback would never be called.
      ['onSettle', { onSettle: () => {} }],
    ];
    for (const [field, options] of wrong) {
      const failure = await mutate(addTodo, input, { engine, onMutate, ...options } as never).catch(
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({ kind: 'config', field, stitch: addTodo.definition.name });
    }
    expect(onMutate).not.toHaveBeenCalled();
    // Nor is an option that cannot be read (a getter that throws).
    const unreadable = {
      engine,
      get onSuccess(): never {
        throw new Error('not loaded yet');
      },
    };
    await expect(mutate(addTodo, input, unreadable as never)).rejects.toMatchObject({
      kind: 'config',
      field: 'options',
    });
    // Nor is what is not a stitch a TypeError.
    for (const given of [undefined, {}]) {
      await expect(mutate(given as never, input, { engine, onMutate })).rejects.toMatchObject({
        kind: 'config',
        field: 'stitch',
      });
    }
    expect(vendor.requests()).toBe(0);
  });
});
