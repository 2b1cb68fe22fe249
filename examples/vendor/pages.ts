/**
 * The directory read page by page, for the demo's infinite list: `GET /api/people?cursor=&limit=`.
 * A cursor is the index of the first person of a page, handed out by the page before it.
 */
import { type Person, people } from './data';
import { HttpError } from './http';

/** One page of the directory. */
export interface PeoplePage {
  items: Person[];
  /** The cursor of the next page; `null` after the last person. */
  nextCursor: number | null;
  /** How many people there are in all. */
  total: number;
}

const MAX_PAGE = 100;

/**
 * The page starting at `cursor` (default 0), `limit` people long (default 10, at most 100).
 * Throws a 400 `HttpError` for a cursor or limit that is not an integer in range.
 */
export function peoplePage(cursorText: string | null, limitText: string | null): PeoplePage {
  const all = people();
  const cursor = integer(cursorText, 'cursor', 0, 0, all.length);
  const limit = integer(limitText, 'limit', 10, 1, MAX_PAGE);
  const end = Math.min(cursor + limit, all.length);
  return { items: all.slice(cursor, end), nextCursor: end < all.length ? end : null, total: all.length };
}

function integer(text: string | null, name: string, fallback: number, min: number, max: number): number {
  if (text === null || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new HttpError(400, `${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}
