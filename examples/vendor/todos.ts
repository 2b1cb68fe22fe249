/**
 * The demo vendor's to-do list, for the optimistic to-do page: a list in memory that the writes
 * change only when they are answered, so a write the client hung up on (or one the vendor failed
 * with a fault) changes nothing, and the page's rollback matches the vendor's truth.
 */

/** One to-do. */
export interface Todo {
  id: number;
  title: string;
}

const INITIAL: readonly Todo[] = [
  { id: 1, title: 'Buy milk' },
  { id: 2, title: 'Write the quarterly report' },
  { id: 3, title: 'Call Ada about the launch' },
];

/** A title: a non-empty string of at most 200 characters, trimmed; `undefined` when it is not one. */
export function parseTitle(value: unknown): string | undefined {
  const title = typeof value === 'string' ? value.trim() : '';
  return title !== '' && title.length <= 200 ? title : undefined;
}

/** A to-do list in memory. Each method returns what the vendor answers, or `undefined` for an unknown id. */
export function createTodos() {
  let todos: Todo[] = INITIAL.map((todo) => ({ ...todo }));
  let nextId = INITIAL.length + 1;
  return {
    list: (): Todo[] => todos.map((todo) => ({ ...todo })),
    add(title: string): Todo {
      const todo = { id: nextId++, title };
      todos.push(todo);
      return { ...todo };
    },
    rename(id: number, title: string): Todo | undefined {
      const todo = todos.find((each) => each.id === id);
      if (todo) todo.title = title;
      return todo && { ...todo };
    },
    remove(id: number): { id: number } | undefined {
      const before = todos.length;
      todos = todos.filter((todo) => todo.id !== id);
      return todos.length < before ? { id } : undefined;
    },
  };
}

/** See {@link createTodos}. */
export type Todos = ReturnType<typeof createTodos>;
