import type { QueryResult } from './observer';

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
 * again only for new data or a new `select`.
 */
export function createSelector<TData, TSelected>() {
  let last: { data: TData; select: (data: TData) => TSelected; selected: TSelected } | undefined;
  return (result: QueryResult<TData>, select: ((data: TData) => TSelected) | undefined) => {
    const { data } = result;
    if (!select || data === undefined) return result as unknown as QueryResult<TSelected>;
    if (last?.data !== data || last.select !== select) last = { data, select, selected: select(data) };
    // The status, error and flags are the result's own, so the union's pairing holds.
    return { ...result, data: last.selected } as QueryResult<TSelected>;
  };
}
