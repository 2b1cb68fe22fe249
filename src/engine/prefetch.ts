import type { CallOptions, Stitch } from './definition';
import { asConfigError, checkKnown, configError, type StitchError } from './errors';
import { type InputArg, invoke } from './invoke';
import type { StitchInput } from './request';
import type { SafeResult } from './run';

/** Options of {@link prefetch}. */
export type PrefetchOptions = Pick<CallOptions, 'signal' | 'engine' | 'revalidate'>;

const PREFETCH_OPTIONS: readonly (keyof PrefetchOptions)[] = ['signal', 'engine', 'revalidate'];

/**
 * Loads a read into the cache ahead of its readers (a router loader, a hover): an ordinary call
 * that shares the engine's cache and coalescer. A reader that mounts while it is in flight joins
 * its request (one request serves both); once it is cached, a reader within the stitch's
 * `cache.ttl` (or its `staleTime`) gets the data without a request, and with neither shows it
 * while it fetches again. The prefetch is one reference on the request: aborting `signal` (the
 * loader's route was left) releases it like an unmounting reader, so the request is aborted and
 * its socket closed only when nobody else holds it. Lives in its own module, so an app that never
 * calls it does not ship it.
 * @returns a promise that never rejects: `{ ok: true, data }` once the call succeeded (its data
 * cached, unless an `invalidate` while it was in flight made that answer outdated: the next reader
 * then fetches again), or
 * `{ ok: false, error }` when it failed, or was aborted (`error.kind === 'aborted'`, `cause`
 * the reason), or the stitch is a write or no stitch at all (`kind: 'config'`, nothing sent).
 * @example
 * const controller = new AbortController(); // the loader's
 * void prefetch(getUser, { params: { id: 7 } }, { signal: controller.signal, engine });
 */
export function prefetch<TData, TInput extends StitchInput>(
  stitch: Stitch<TData, TInput>,
  input: InputArg<TInput>,
  options: PrefetchOptions = {},
): Promise<SafeResult<TData>> {
  const refused = (error: StitchError) => Promise.resolve({ ok: false as const, data: null, error });
  const definition = (stitch as Partial<Stitch<TData, TInput>> | null | undefined)?.definition;
  if (typeof stitch !== 'function' || typeof definition !== 'object' || definition === null)
    return refused(configError(undefined, 'prefetch', 'takes a stitch first'));
  if (definition.kind === 'write')
    return refused(
      configError(definition.name, 'method', 'prefetch applies to reads (GET, HEAD): writes are not cached'),
    );
  // A call option of writes (`idempotencyKey`) is not one of a prefetch: refused, as a misspelt one is.
  try {
    if (typeof options === 'object' && options !== null)
      checkKnown(definition.name, '', options, PREFETCH_OPTIONS);
  } catch (error) {
    return refused(asConfigError(error, definition.name, 'options'));
  }
  return invoke(stitch, input as TInput, options).safe();
}
