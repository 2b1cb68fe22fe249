/**
 * What a loading hook shows in the meantime: a value, or a function of the previous key's data
 * (`undefined` when there was none). Never stored in the cache.
 */
export type PlaceholderData<TData> = TData | ((previous: TData | undefined) => TData | undefined);

/** `keepPrevious: true` is this placeholder: the previous key's data, as it was. */
export const keepPreviousData = <TData>(previous: TData | undefined): TData | undefined => previous;

/**
 * The placeholder a hook shows for `key`, computed once per key and previous data: a function
 * written inline (a new one each render) that makes a new object would otherwise make a new
 * result at every render.
 */
export function createPlaceholder<TData>() {
  let last: { key: string; previous: TData | undefined; data: TData | undefined } | undefined;
  return (given: PlaceholderData<TData>, previous: TData | undefined, key: string): TData | undefined => {
    if (typeof given !== 'function') return given;
    if (last?.key !== key || last.previous !== previous) {
      last = { key, previous, data: (given as (previous: TData | undefined) => TData | undefined)(previous) };
    }
    return last.data;
  };
}
