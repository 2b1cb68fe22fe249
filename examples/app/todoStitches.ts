import { stitch } from '../../src/lite/index';
import type { Todo } from '../vendor/index';

export type { Todo };

/**
 * The demo vendor's to-do endpoints, for the optimistic to-do page. The list is cached (so the
 * page's writes can update it in place with `engine.setData`); the writes are never retried.
 */
const baseUrl = window.location.origin;

/** `GET /api/todos`: the whole list. */
export const getTodos = stitch<Todo[]>({
  name: 'todos',
  baseUrl,
  url: '/api/todos',
  cache: 60_000,
});

/** `POST /api/todos`: adds one; the vendor answers it with its id. */
export const addTodo = stitch<Todo, { body: { title: string } }>({
  name: 'add-todo',
  baseUrl,
  method: 'POST',
  url: '/api/todos',
});

/** `PUT /api/todos`: renames one. */
export const renameTodo = stitch<Todo, { body: Todo }>({
  name: 'rename-todo',
  baseUrl,
  method: 'PUT',
  url: '/api/todos',
});

/** `DELETE /api/todos?id=`: deletes one. */
export const deleteTodo = stitch<{ id: number }, { query: { id: number } }>({
  name: 'delete-todo',
  baseUrl,
  method: 'DELETE',
  url: '/api/todos',
});
