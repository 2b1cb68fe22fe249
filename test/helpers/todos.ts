/**
 * The to-do list the write tests share: a cached read of the list and a write that adds to it,
 * on the test vendor.
 */
import { type StitchInput, stitch } from '../../src/index';
import { uniqueKey } from './keys';
import type { Vendor } from './vendor';

export interface Todo {
  id: number;
  title: string;
}

export interface AddInput extends StitchInput {
  body: { title: string };
}

/** The list as the vendor first answers it. */
export const milk: Todo[] = [{ id: 1, title: 'milk' }];

/** `getTodos` (cached for a minute, no retries) and `addTodo` (a POST) on `vendor`. */
export function todoStitches(vendor: Vendor) {
  const getTodos = stitch<Todo[]>({
    name: uniqueKey('todos'),
    url: vendor.url('/todos'),
    retry: false,
    cache: { ttl: 60_000 },
  });
  const addTodo = stitch<Todo, AddInput>({
    name: uniqueKey('addTodo'),
    method: 'POST',
    url: vendor.url('/todos'),
  });
  return { getTodos, addTodo };
}

export type TodoStitches = ReturnType<typeof todoStitches>;
