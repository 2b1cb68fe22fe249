/**
 * The read most hook tests share: one user by id, and a component that shows it and records
 * every result it rendered. Module-level, so React sees one component type across renders.
 */
import { type StitchInput, stitch } from '../../src/index';
import { type QueryResult, type UseStitchOptions, useStitch } from '../../src/react/index';
import { uniqueKey } from '../helpers/keys';
import type { Vendor } from '../helpers/vendor';
import type { Recorder } from './harness';

export interface User {
  id: number;
  name: string;
}

export interface UserInput extends StitchInput {
  params: { id: number };
}

export const ada: User = { id: 7, name: 'Ada' };

/** A read of one user, without retries so a test controls every request. */
export function userStitch(vendor: Vendor, cache?: { ttl: number }) {
  return stitch<User, UserInput>({
    name: uniqueKey('getUser'),
    url: vendor.url('/users/{id}'),
    retry: false,
    ...(cache ? { cache } : {}),
  });
}

export type UserStitch = ReturnType<typeof userStitch>;

/** Props of {@link Reader}. */
export interface ReaderProps {
  getUser: UserStitch;
  /** @default 7 */
  id?: number;
  /** Receives every result the hook rendered. */
  shown?: Recorder<QueryResult<User>>;
  options?: UseStitchOptions<User>;
  testId?: string;
}

/** Reads user `id` with `useStitch` and shows `status name`. */
export function Reader({ getUser, id = 7, shown, options, testId }: ReaderProps) {
  const q = useStitch(getUser, { params: { id } }, options);
  shown?.record(q);
  return <p data-testid={testId}>{`${q.status} ${q.data?.name ?? '-'}`}</p>;
}
