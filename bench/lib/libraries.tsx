/**
 * The three data-fetching libraries under comparison, each behind the same tiny interface, so
 * the search and fan-in components are written once and differ only in the hook they call.
 * Every run gets a fresh library instance (engine, QueryClient, SWR cache): nothing is shared
 * between runs but Node's connection pool (each run's vendor listens on a new port anyway).
 */
import { keepPreviousData, QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import useSWR, { SWRConfig } from 'swr';
import { createEngine, stitch } from '../../src/index';
import { StitchProvider, skipToken, useStitch } from '../../src/react/index';

/** What the search vendor answers. */
export interface SearchResult {
  query: string;
  items: Array<{ id: number; name: string; score: number }>;
}

/**
 * What a component needs from a hook: the data shown. Whether it is the previous query's
 * (a placeholder) is read from `data.query`, the same way for every library.
 */
export interface View {
  data: SearchResult | undefined;
}

/** One library, set up for one run against `origin`. */
export interface Instance {
  /** Wraps the tree (engine / QueryClient / SWR cache provider). */
  Provider: (props: { children?: ReactNode }) => ReactNode;
  /** Reads `GET /search?q=…`; idle for an empty query. */
  useSearch(query: string): View;
  /** `fetch` calls this instance has made (whether or not they reached the vendor). */
  fetches(): number;
  /** Drops timers the library keeps (garbage-collection timers), once the run is over. */
  dispose(): void;
}

export interface Library {
  name: 'stitch' | 'tanstack' | 'swr';
  label: string;
  create(origin: string): Instance;
}

/**
 * A library whose instances each count their `fetch` calls: `create` gets the origin and the
 * counting fetch to use, and returns everything but `fetches`.
 */
function counted({
  name,
  label,
  create,
}: Omit<Library, 'create'> & {
  create(origin: string, fetch: typeof globalThis.fetch): Omit<Instance, 'fetches'>;
}): Library {
  return {
    name,
    label,
    create(origin) {
      let calls = 0;
      const fetch: typeof globalThis.fetch = (input, init) => {
        calls += 1;
        return globalThis.fetch(input, init);
      };
      return { ...create(origin, fetch), fetches: () => calls };
    },
  };
}

/** `GET /search?q=…` with `fetch`, parsed. */
const getSearch = async (fetch: typeof globalThis.fetch, origin: string, query: string, init?: RequestInit) =>
  (await (await fetch(`${origin}/search?q=${encodeURIComponent(query)}`, init)).json()) as SearchResult;

/** Stitch: `useStitch(search, input, { keepPrevious: true })`, every other option at its default. */
const stitchLibrary = counted({
  name: 'stitch',
  label: 'Stitch',
  create(origin, fetch) {
    const engine = createEngine({ fetch });
    const search = stitch<SearchResult, { query: { q: string } }>({
      name: 'search',
      url: `${origin}/search`,
    });
    return {
      Provider: ({ children }) => <StitchProvider engine={engine}>{children}</StitchProvider>,
      useSearch(query) {
        const result = useStitch(search, query === '' ? skipToken : { query: { q: query } }, {
          keepPrevious: true,
        });
        return { data: result.data };
      },
      dispose() {},
    };
  },
});

/** TanStack Query v5: `useQuery` whose queryFn passes `signal` to fetch, `placeholderData: keepPreviousData`. */
const tanstackLibrary = counted({
  name: 'tanstack',
  label: 'TanStack Query 5',
  create(origin, fetch) {
    const client = new QueryClient();
    return {
      Provider: ({ children }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>,
      useSearch(query) {
        const result = useQuery({
          queryKey: ['search', query],
          queryFn: ({ signal }) => getSearch(fetch, origin, query, { signal }),
          enabled: query !== '',
          placeholderData: keepPreviousData,
        });
        return { data: result.data };
      },
      dispose: () => client.clear(),
    };
  },
});

/** SWR 2: `useSWR(key, fetcher, { keepPreviousData: true })`; SWR has no way to pass a signal. */
const swrLibrary = counted({
  name: 'swr',
  label: 'SWR 2',
  create(origin, fetch) {
    const cache = new Map();
    const fetcher = ([, query]: [string, string]) => getSearch(fetch, origin, query);
    return {
      Provider: ({ children }) => <SWRConfig value={{ provider: () => cache }}>{children}</SWRConfig>,
      useSearch(query) {
        const result = useSWR(query === '' ? null : ['search', query], fetcher, { keepPreviousData: true });
        return { data: result.data };
      },
      dispose: () => cache.clear(),
    };
  },
});

export const LIBRARIES: readonly Library[] = [stitchLibrary, tanstackLibrary, swrLibrary];
