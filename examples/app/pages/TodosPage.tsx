import { type FormEvent, useState } from 'react';
import { type Engine, mutate, type StitchError } from '../../../src/index';
import { useEngine, useStitch, useStitchScope } from '../../../src/react/index';
import { PageIntro } from '../components/PageIntro';
import { TraceTimeline } from '../components/TraceTimeline';
import { addTodo, deleteTodo, getTodos, renameTodo, type Todo } from '../todoStitches';

/** The list's cached data, changed in place: each write's optimistic update and its undo compose. */
const edit = (engine: Engine, change: (todos: Todo[]) => Todo[]) =>
  engine.setData(getTodos, undefined, (todos) => todos && change(todos));

let temporary = 0;
/** The writes in flight: only the last of writes that overlap fetches the list again. */
let writing = 0;

/** The list's read and its writes, one lane per request on the page's timeline. */
const TODO_STITCHES = [getTodos, addTodo, renameTodo, deleteTodo].map((each) => each.definition.name);

/**
 * A to-do list whose add, rename and delete show at once (`engine.setData` in `onMutate`) and are
 * undone when the vendor fails them (`onError`). The last of the writes in flight invalidates the
 * list when it ends, so it is fetched again: an undo restores what its write saw, which another
 * write may have changed since, and only the vendor's list settles that. One fetched while a write
 * is still in flight would not show that write yet. Each write runs with `mutate` on the
 * page's scope signal: leaving the page cancels the writes in flight, and cancelled ones are undone
 * (and the list fetched again on the way back).
 */
export function TodosPage() {
  const engine = useEngine();
  const signal = useStitchScope();
  const todos = useStitch(getTodos, undefined);
  const [title, setTitle] = useState('');
  const [undone, setUndone] = useState<string>();

  const lifecycle = <TContext,>(undo: (context: TContext | undefined) => void) => {
    writing += 1;
    // Counted out as the write ends (its `onError`, or its `invalidates` after a success), not at
    // `onSettled`: writes that end together (leaving the page cancels them all in one tick) each
    // run `onError` before any runs `onSettled`, and the last of them must still see itself last.
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      writing -= 1;
    };
    const last = () => {
      end();
      return writing > 0 ? [] : [getTodos];
    };
    return {
      engine,
      signal,
      onError: (error: StitchError, _input: unknown, context: TContext | undefined) => {
        undo(context);
        for (const each of last()) engine.invalidate(each);
        setUndone(`Undone: ${error.message}`);
      },
      onSuccess: () => setUndone(undefined),
      invalidates: last,
      onSettled: end,
    };
  };

  const add = (event: FormEvent) => {
    event.preventDefault();
    const text = title.trim();
    if (!text) return;
    setTitle('');
    const id = --temporary; // a negative id until the vendor answers with the real one
    const common = lifecycle(() => edit(engine, (list) => list.filter((todo) => todo.id !== id)));
    void mutate(
      addTodo,
      { body: { title: text } },
      {
        ...common,
        onMutate: () => void edit(engine, (list) => [...list, { id, title: text }]),
        // The vendor's to-do in place of the temporary one: it is saved, even if the list's
        // refetch fails.
        onSuccess: (saved: Todo) => {
          edit(engine, (list) => list.map((todo) => (todo.id === id ? saved : todo)));
          common.onSuccess();
        },
      },
    ).catch(() => {});
  };

  const rename = (todo: Todo, next: string) =>
    void mutate(
      renameTodo,
      { body: { id: todo.id, title: next } },
      {
        ...lifecycle(() => edit(engine, (list) => list.map((each) => (each.id === todo.id ? todo : each)))),
        onMutate: () =>
          void edit(engine, (list) =>
            list.map((each) => (each.id === todo.id ? { ...each, title: next } : each)),
          ),
      },
    ).catch(() => {});

  const remove = (todo: Todo) =>
    void mutate(
      deleteTodo,
      { query: { id: todo.id } },
      {
        ...lifecycle<number>((index = 0) =>
          edit(engine, (list) => [...list.slice(0, index), todo, ...list.slice(index)]),
        ),
        onMutate: () => {
          const index = engine.getData(getTodos, undefined)?.findIndex((each) => each.id === todo.id) ?? -1;
          edit(engine, (list) => list.filter((each) => each.id !== todo.id));
          return index;
        },
      },
    ).catch(() => {});

  return (
    <>
      <PageIntro title="Optimistic to-dos">
        Add, rename and delete show at once: each write updates the cached list with{' '}
        <code>engine.setData</code> before it leaves. Set the vendor&apos;s 503 rate to 100% and try again:
        each write is undone when the vendor fails it. The last write in flight to end, failed or not,
        invalidates the list, which is fetched again once; a write that overwrites the list aborts a fetch of
        it in flight.
      </PageIntro>
      <section className="card" aria-labelledby="todos-title">
        <h2 id="todos-title">To-dos</h2>
        <form className="actions" onSubmit={add}>
          <label>
            New to-do{' '}
            <input value={title} onChange={(event) => setTitle(event.currentTarget.value)} maxLength={200} />
          </label>
          <button type="submit">Add</button>
        </form>
        {todos.status === 'error' && <p role="alert">{todos.error.message}</p>}
        {undone && (
          <p role="status" data-testid="undone">
            {undone}
          </p>
        )}
        <ul className="todos" aria-busy={todos.isFetching}>
          {todos.data?.map((todo) => (
            <TodoItem key={todo.id} todo={todo} onRename={rename} onDelete={remove} />
          ))}
        </ul>
      </section>
      <TraceTimeline stitches={TODO_STITCHES} />
    </>
  );
}

/** One to-do: its title (pending while its id is temporary), a rename field and a delete button. */
function TodoItem({
  todo,
  onRename,
  onDelete,
}: {
  todo: Todo;
  onRename: (todo: Todo, title: string) => void;
  onDelete: (todo: Todo) => void;
}) {
  const [draft, setDraft] = useState<string>();
  const saved = todo.id > 0;
  const save = (event: FormEvent) => {
    event.preventDefault();
    const next = draft?.trim();
    setDraft(undefined);
    if (next && next !== todo.title) onRename(todo, next);
  };
  return (
    <li data-testid="todo" className={saved ? undefined : 'muted'}>
      {draft === undefined ? (
        <>
          <span>{todo.title}</span>{' '}
          <button type="button" className="quiet" onClick={() => setDraft(todo.title)} disabled={!saved}>
            Rename
          </button>{' '}
          <button type="button" className="quiet" onClick={() => onDelete(todo)} disabled={!saved}>
            {`Delete ${todo.title}`}
          </button>
        </>
      ) : (
        <form onSubmit={save}>
          <input
            aria-label={`New title for ${todo.title}`}
            value={draft}
            onChange={(event) => setDraft(event.currentTarget.value)}
          />{' '}
          <button type="submit">Save</button>
        </form>
      )}
    </li>
  );
}
