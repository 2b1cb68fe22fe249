/**
 * What a loading hook shows in the meantime: a value, or a function of the previous key's data
 * (`undefined` when there was none). Never stored in the cache.
 */
export type PlaceholderData<TData> = TData | ((previous: TData | undefined) => TData | undefined);

/** `keepPrevious: true` is this placeholder: the previous key's data, as it was. */
export const keepPreviousData = <TData>(previous: TData | undefined): TData | undefined => previous;

/**
 * The placeholder a hook shows, computed again only for a new `given` or new previous data, so
 * that a function making a new object each call does not make a new result at every read.
 */
export function createPlaceholder<TData>() {
  let last:
    | { given: PlaceholderData<TData>; previous: TData | undefined; data: TData | undefined }
    | undefined;
  return (given: PlaceholderData<TData>, previous: TData | undefined): TData | undefined => {
    if (typeof given !== 'function') return given;
    if (last?.given !== given || last.previous !== previous) {
      last = {
        given,
        previous,
        data: (given as (previous: TData | undefined) => TData | undefined)(previous),
      };
    }
    return last.data;
  };
}
