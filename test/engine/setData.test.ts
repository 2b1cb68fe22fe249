/**
 * `engine.setData` / `engine.getData`: cache writes for optimistic updates. A write that
 * overwrites a key first aborts the read in flight for it (its socket closes, nobody joins it
 * any more, its answer is never cached), with a reason that names the write. Against the real
 * vendor.
 */
import { describe, expect, it } from 'vitest';
import { type StitchInput, stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { rejection, startScenario } from '../helpers/runs';
import type { Vendor } from '../helpers/vendor';

interface Todo {
  id: number;
  title: string;
}
interface TodoInput extends StitchInput {
  params: { id: number };
}

const input: TodoInput = { params: { id: 1 } };
const server: Todo = { id: 1, title: 'from the server' };
const written: Todo = { id: 1, title: 'written' };

const todoStitch = (vendor: Vendor) =>
  stitch<Todo, TodoInput>({
    name: uniqueKey('todo'),
    url: vendor.url('/todos/{id}'),
    retry: false,
    cache: { ttl: 60_000 },
  });

describe('engine.setData and engine.getData', () => {
  it('writes a value or an updater of the current data, one notification per write', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: server }) });
    const getTodo = todoStitch(vendor);
    const key = engine.keyOf(getTodo, input) as string;
    let notified = 0;
    engine.subscribe(key, () => notified++);

    expect(engine.getData(getTodo, input)).toBeUndefined();
    const seen: Array<Todo | undefined> = [];
    engine.setData(getTodo, input, (current) => {
      seen.push(current);
      return written;
    });
    expect(engine.getData(getTodo, input)).toBe(written);
    expect(notified).toBe(1);

    const renamed = engine.setData(getTodo, input, (current) => current && { ...current, title: 'renamed' });
    expect(seen).toEqual([undefined]);
    expect(renamed).toEqual({ id: 1, title: 'renamed' });
    expect(notified).toBe(2);

    // An updater that returns undefined leaves the key as it was.
    expect(engine.setData(getTodo, input, () => undefined)).toBe(renamed);
    expect(notified).toBe(2);

    // Written data is served like fetched data, within the stitch's ttl: nothing is sent.
    await expect(getTodo(input, { engine })).resolves.toBe(renamed);
    expect(vendor.requests()).toBe(0);
  });

  it('a param given as a number or as its text is one request, so one key: a read, a write and an invalidation meet', async () => {
    let release = () => {};
    const answered = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { vendor, engine } = await startScenario({
      respond: async () => {
        await answered;
        return { body: server };
      },
    });
    const getTodo = stitch<Todo>({ name: uniqueKey('todo'), url: vendor.url('/todos/{id}'), cache: 60_000 });
    const fromRoute = getTodo({ params: { id: '1' } }, { engine });
    const fromData = getTodo({ params: { id: 1 } }, { engine });
    release();
    expect(await fromData).toBe(await fromRoute);
    expect(vendor.requests()).toBe(1);
    engine.setData(getTodo, { params: { id: 1 } }, written);
    expect(engine.getData(getTodo, { params: { id: '1' } })).toBe(written);
    engine.invalidate(getTodo, { params: { id: 1 } });
    expect(engine.getSnapshot(engine.keyOf(getTodo, { params: { id: '1' } }) as string)).toMatchObject({
      stale: true,
    });
  });

  it('refuses an input no call could send (a misspelt param or field), as a call does: it would key nothing', async () => {
    const { vendor, engine } = await startScenario();
    const getTodo = todoStitch(vendor);
    const misspelt = [
      ['params.id', { params: { todoId: 1 } }],
      ['qurey', { params: { id: 1 }, qurey: { full: true } }],
    ] as const;
    for (const [field, wrong] of misspelt) {
      for (const use of [
        () => engine.setData(getTodo, wrong as never, written),
        () => engine.getData(getTodo, wrong as never),
        () => engine.invalidate(getTodo, wrong as never),
      ]) {
        expect(use).toThrow(expect.objectContaining({ kind: 'config', field }));
      }
      await expect(getTodo(wrong as never, { engine })).rejects.toMatchObject({ kind: 'config', field });
    }
    expect(vendor.requests()).toBe(0);
  });

  it('refuses a write stitch, which has no cached data', async () => {
    const { vendor, engine } = await startScenario();
    const addTodo = stitch({ name: uniqueKey('addTodo'), method: 'POST', url: vendor.url('/todos') });
    expect(() => engine.setData(addTodo, {}, written)).toThrow(
      expect.objectContaining({ kind: 'config', field: 'setData' }),
    );
    expect(() => engine.getData(addTodo, {})).toThrow(expect.objectContaining({ kind: 'config' }));
  });

  it('aborts a read that is not coalesced (coalesce: false) as well: its socket closes, its answer is not kept', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const getTodo = stitch<Todo, TodoInput>({
      name: uniqueKey('todo'),
      url: vendor.url('/todos/{id}'),
      retry: false,
      coalesce: false,
      cache: { ttl: 60_000 },
    });
    const read = getTodo(input, { engine });
    await vendor.arrival(1);
    engine.setData(getTodo, input, written);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });
    const error = await rejection(read);
    expect(error).toMatchObject({ kind: 'aborted', dispatched: true });
    expect(error.cause).toMatchObject({ name: 'AbortError', message: expect.stringContaining('setData') });
    expect(engine.getData(getTodo, input)).toBe(written);
  });

  it('aborts the read in flight for the key, with a reason naming the write; its answer is never cached', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const getTodo = todoStitch(vendor);
    const key = engine.keyOf(getTodo, input) as string;
    const first = getTodo(input, { engine });
    const second = getTodo(input, { engine }); // joins the first's request
    await vendor.arrival(1);
    expect(engine.getSnapshot(key).fetching).toBe(true);

    let notified = 0;
    engine.subscribe(key, () => notified++);
    engine.setData(getTodo, input, written);
    // The data and the end of fetching are one change.
    expect(notified).toBe(1);
    expect(engine.getSnapshot(key)).toMatchObject({ data: written, fetching: false, error: undefined });

    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });
    for (const run of [first, second]) {
      const error = await rejection(run);
      expect(error).toMatchObject({ kind: 'aborted', name: 'AbortError', dispatched: true });
      expect(error.cause).toBeInstanceOf(DOMException);
      expect(error.cause).toMatchObject({ name: 'AbortError', message: expect.stringContaining('setData') });
      expect((await run.report()).cancelled).toBe(true);
    }
    // Both runs share one reason: the write's.
    expect((await rejection(first)).cause).toBe((await rejection(second)).cause);
    expect(engine.getData(getTodo, input)).toBe(written);
    expect(notified).toBe(1);

    // A read after the write is served the written data; a revalidation sends a new request,
    // which is not the aborted one.
    await expect(getTodo(input, { engine })).resolves.toBe(written);
    const fresh = getTodo(input, { engine, revalidate: true });
    await vendor.arrival(2);
    vendor.release(2, { body: server });
    await expect(fresh).resolves.toEqual(server);
    expect(engine.getData(getTodo, input)).toEqual(server);
  });

  it('an updater returning the current data itself changes nothing: the refetch in flight goes on', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const getTodo = todoStitch(vendor);
    const key = engine.keyOf(getTodo, input) as string;
    engine.setData(getTodo, input, written);
    // An invalidation's refetch is in flight (a reader asked again) when a rollback finds nothing
    // to undo (`previous ?? current`).
    engine.invalidate(getTodo, input);
    const refetch = getTodo(input, { engine });
    await vendor.arrival(1);
    let notified = 0;
    engine.subscribe(key, () => notified++);
    expect(engine.setData(getTodo, input, (current) => current)).toBe(written);
    expect(notified).toBe(0);
    expect(engine.getSnapshot(key)).toMatchObject({ data: written, stale: true, fetching: true });
    vendor.release(1, { body: server });
    await expect(refetch).resolves.toEqual(server);
    expect(engine.getData(getTodo, input)).toEqual(server);
  });
});
