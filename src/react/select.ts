import type { StitchError } from '../index';
import { type QueryResult, userError } from './observer';

/** Whether two results show the same: a component re-renders only when this is false. */
export const sameResult = <TData>(a: QueryResult<TData>, b: QueryResult<TData>): boolean =>
  a === b ||
  (a.status === b.status &&
    Object.is(a.data, b.data) &&
    a.error === b.error &&
    a.isFetching === b.isFetching &&
    a.isPlaceholder === b.isPlaceholder);

/**
 * Projects a result's data through `select` (the result as is without one), calling `select`
 * again only for new data or a new `select`. A `select` that throws makes the result an error
 * (`kind: 'config'`, `field: 'select'`, what it threw as `cause`), not a crash of the component.
 */
export function createSelector<TData, TSelected>() {
  let last:
    | { data: TData; select: (data: TData) => TSelected; selected?: TSelected; error?: StitchError }
    | undefined;
  return (
    result: QueryResult<TData>,
    select: ((data: TData) => TSelected) | undefined,
    stitch: string,
  ): QueryResult<TSelected> => {
    const { data } = result;
    if (!select || data === undefined) return result as unknown as QueryResult<TSelected>;
    if (last?.data !== data || last.select !== select) {
      try {
        last = { data, select, selected: select(data) };
      } catch (cause) {
        last = { data, select, error: userError('useStitch', stitch, 'select', cause) };
      }
    }
    // No data to show: none of it is a placeholder either.
    if (last.error)
      return { ...result, status: 'error', data: undefined, error: last.error, isPlaceholder: false };
    // The status, error and flags are the result's own, so the union's pairing holds.
    return { ...result, data: last.selected } as QueryResult<TSelected>;
  };
}
