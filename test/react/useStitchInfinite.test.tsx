/**
 * `useStitchInfinite`: pages keyed by a param derived from the page before, each page request a
 * call on the engine. Cancellation as everywhere else: a re-key aborts the old key's page request,
 * an unmount lets go of the page in flight only, a refetch goes page by page and stops at the
 * first failure, and only a cancel someone asked for shows, with its reason. End to end against
 * the real vendor's ledger.
 */
import { act, render, renderHook, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { mutate, type StitchInput, stitch } from '../../src/index';
import { ScopeContext } from '../../src/react/context';
import {
  type InfiniteResult,
  type RefetchTriggers,
  StitchProvider,
  StitchScope,
  type UseStitchInfiniteOptions,
  useStitch,
  useStitchInfinite,
} from '../../src/react/index';
import { uniqueKey } from '../helpers/keys';
import type { Vendor } from '../helpers/vendor';
import { actAtOnce, flushMicrotasks, type Harness, renderStrict, setup } from './harness';
import { manualFocus, manualOnline } from './sources';

interface Page {
  items: string[];
  /** The cursor of the next page; `null` on the last one. */
  next: number | null;
  /** The cursor of the page before; `null` on the first one. */
  previous?: number | null;
}

interface ListInput extends StitchInput {
  query: { list: string; cursor?: number };
}

type Pages = InfiniteResult<Page, number>;

/** A page of the list starting at `cursor`. */
const page = (cursor: number, next: number | null, previous: number | null = null): Page => ({
  items: [`item ${cursor}`, `item ${cursor + 1}`],
  next,
  previous,
});

/** A read of one page, without retries so a test controls every request. */
const listStitch = (vendor: Vendor) =>
  stitch<Page, ListInput>({ name: uniqueKey('people'), url: vendor.url('/people'), retry: false });

const byCursor: UseStitchInfiniteOptions<Page, ListInput, number> = {
  initialPageParam: 0,
  getNextPageParam: (last) => last.next,
  getPreviousPageParam: (first) => first.previous,
  pageInput: 'cursor',
};

/** The cursor request `n` asked for (`undefined` without one). */
async function cursorOf(vendor: Vendor, n: number) {
  const entry = await vendor.arrival(n);
  return { list: entry.query.get('list'), cursor: entry.query.get('cursor') };
}

/** A hook on list `list`, re-keyed by `rerender({ list })`; `statuses` is every status it rendered. */
function renderList(
  list: ReturnType<typeof listStitch>,
  wrapper: Harness['wrapper'],
  options: Partial<UseStitchInfiniteOptions<Page, ListInput, number>> = {},
) {
  const statuses: string[] = [];
  const hook = renderHook(
    ({ name }: { name: string }) => {
      const pages = useStitchInfinite(list, { query: { list: name } }, { ...byCursor, ...options });
      statuses.push(pages.status);
      return pages;
    },
    { wrapper, initialProps: { name: 'a' } },
  );
  return { ...hook, statuses };
}

/** A harness whose `answer` first waits for the request to arrive (page requests start in effects). */
async function setupList(): Promise<Harness> {
  const harness = await setup();
  const { vendor, answer } = harness;
  return {
    ...harness,
    answer: async (n, reply) => {
      await vendor.arrival(n);
      await answer(n, reply);
    },
  };
}

/** Starts the next page from the hook's current result and waits for its request to arrive. */
async function loadNext(result: { current: Pages }, vendor: Vendor, n: number) {
  await actAtOnce(() => result.current.fetchNext());
  return cursorOf(vendor, n);
}

describe('pages', () => {
  it('fetches the first page, then each next one with the param the page before gives; hasNext ends it', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const { result, statuses } = renderList(listStitch(vendor), wrapper);
    expect(result.current).toMatchObject({ status: 'pending', isFetching: true, hasNext: false });
    expect(await cursorOf(vendor, 1)).toEqual({ list: 'a', cursor: '0' });
    await answer(1, { body: page(0, 2) });
    expect(result.current).toMatchObject({
      status: 'success',
      data: { pages: [page(0, 2)], pageParams: [0] },
      hasNext: true,
      isFetching: false,
    });

    expect(await loadNext(result, vendor, 2)).toEqual({ list: 'a', cursor: '2' });
    expect(result.current).toMatchObject({
      isFetching: true,
      isFetchingNext: true,
      isFetchingPrevious: false,
    });
    await answer(2, { body: page(2, null) });
    expect(result.current).toMatchObject({
      status: 'success',
      data: { pages: [page(0, 2), page(2, null)], pageParams: [0, 2] },
      hasNext: false,
      isFetchingNext: false,
    });

    // getNextPageParam gave null: there is no next page, and asking for one sends nothing.
    await actAtOnce(() => result.current.fetchNext());
    expect(vendor.requests()).toBe(2);
    expect(result.current.isFetching).toBe(false);
    expect(statuses).not.toContain('error');
  });

  it('maxPages drops the oldest page when a next one comes, and the newest when a previous one does', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const { result } = renderList(listStitch(vendor), wrapper, { maxPages: 2 });
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);
    await answer(2, { body: page(2, 4, 0) });
    await loadNext(result, vendor, 3);
    await answer(3, { body: page(4, 6, 2) });
    expect(result.current.data).toEqual({ pages: [page(2, 4, 0), page(4, 6, 2)], pageParams: [2, 4] });
    expect(result.current).toMatchObject({ hasNext: true, hasPrevious: true });

    await actAtOnce(() => result.current.fetchPrevious());
    expect(await cursorOf(vendor, 4)).toEqual({ list: 'a', cursor: '0' });
    expect(result.current.isFetchingPrevious).toBe(true);
    await answer(4, { body: page(0, 2) });
    expect(result.current.data).toEqual({ pages: [page(0, 2), page(2, 4, 0)], pageParams: [0, 2] });
    expect(result.current).toMatchObject({ hasPrevious: false, hasNext: true });
  });
});

describe('maxPages lowered', () => {
  it('a refetch fetches only as many pages as maxPages keeps now', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const list = listStitch(vendor);
    const { result, rerender } = renderHook(
      ({ maxPages }: { maxPages: number }) =>
        useStitchInfinite(list, { query: { list: 'a' } }, { ...byCursor, maxPages }),
      { wrapper, initialProps: { maxPages: 5 } },
    );
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);
    await answer(2, { body: page(2, 4, 0) });
    await loadNext(result, vendor, 3);
    await answer(3, { body: page(4, 6, 2) });

    rerender({ maxPages: 2 });
    await actAtOnce(() => result.current.refetch());
    await answer(4, { body: page(0, 2) });
    await answer(5, { body: page(2, 4, 0) });
    expect(result.current).toMatchObject({ isFetching: false, data: { pageParams: [0, 2] } });
    expect(vendor.requests()).toBe(5);
  });
});

describe('a page input function that throws', () => {
  it('is a config error naming pageInput, its cause intact, and nothing is sent', async () => {
    const { vendor, wrapper } = await setupList();
    const list = listStitch(vendor);
    const thrown = new Error('no cursor field');
    const { result } = renderList(list, wrapper, {
      pageInput: () => {
        throw thrown;
      },
    });
    await act(flushMicrotasks);
    expect(result.current.error).toMatchObject({ kind: 'config', field: 'pageInput' });
    expect(result.current.error?.cause).toBe(thrown);
    expect(vendor.requests()).toBe(0);
  });
});

describe('a page input function on a list read without input', () => {
  it('gets an empty input (never undefined, as typed), and the first page is sent', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const feed = stitch<Page, { query?: { cursor?: number } }>({
      name: uniqueKey('feed'),
      url: vendor.url('/feed'),
      retry: false,
    });
    const { result } = renderHook(
      () =>
        useStitchInfinite(feed, undefined, {
          initialPageParam: 0,
          getNextPageParam: (last) => last.next,
          pageInput: (input, cursor) => ({ ...input, query: { ...input.query, cursor } }),
        }),
      { wrapper },
    );
    expect((await vendor.arrival(1)).query.get('cursor')).toBe('0');
    await answer(1, { body: page(0, null) });
    expect(result.current).toMatchObject({ status: 'success', data: { pages: [page(0, null)] } });
  });
});

describe('a page param function that throws', () => {
  it('is a config error naming it, the pages kept, and fetchNext() sends nothing', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const thrown = new Error('no next field');
    const { result } = renderList(listStitch(vendor), wrapper, {
      getNextPageParam: (last) => {
        if (last.next === 2) throw thrown;
        return last.next;
      },
    });
    await answer(1, { body: page(0, 2) });
    expect(result.current).toMatchObject({
      status: 'error',
      hasNext: false,
      error: { kind: 'config', field: 'getNextPageParam' },
    });
    expect(result.current.error?.cause).toBe(thrown);
    expect(result.current.data?.pages).toEqual([page(0, 2)]);
    await actAtOnce(() => result.current.fetchNext());
    expect(vendor.requests()).toBe(1);
  });
});

describe('letting go', () => {
  it('a re-key aborts the old key’s page request (the vendor hangs up) and never shows it', async () => {
    const { vendor, trace, wrapper, answer } = await setupList();
    const { result, rerender, statuses } = renderList(listStitch(vendor), wrapper);
    await answer(1, { body: page(0, 2) });
    expect(await loadNext(result, vendor, 2)).toEqual({ list: 'a', cursor: '2' });

    rerender({ name: 'b' });
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true, answered: false });
    expect(await cursorOf(vendor, 3)).toEqual({ list: 'b', cursor: '0' });
    expect(result.current).toMatchObject({ status: 'pending', data: undefined, error: null });
    // The new key's first page was not held back by the old key's abort, and nothing else of it is sent.
    await answer(3, { body: page(0, 2) });
    expect(result.current).toMatchObject({ status: 'success', data: { pages: [page(0, 2)] } });
    expect(vendor.requests()).toBe(3);
    expect(statuses).not.toContain('error');
    const cancels = trace.events.filter((event) => event.type === 'cancel');
    expect(cancels).toEqual([
      expect.objectContaining({ phase: 'in-flight', reason: expect.stringMatching(/^Superseded/) }),
    ]);
  });

  it('a re-key during a refetch aborts its page request, and the rest of it is never sent', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const { result, rerender, statuses } = renderList(listStitch(vendor), wrapper);
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);
    await answer(2, { body: page(2, 4) });
    await actAtOnce(() => result.current.refetch());
    expect(await cursorOf(vendor, 3)).toEqual({ list: 'a', cursor: '0' });

    rerender({ name: 'b' });
    expect(await vendor.hangUp(3)).toMatchObject({ hungUp: true });
    expect(await cursorOf(vendor, 4)).toEqual({ list: 'b', cursor: '0' });
    await answer(4, { body: page(0, null) });
    expect(vendor.ledger.map((entry) => entry.query.get('list'))).toEqual(['a', 'a', 'a', 'b']);
    expect(statuses).not.toContain('error');
  });

  it('an unmount aborts the page in flight only: nothing else is re-requested, no timer is left', async () => {
    const { vendor, clock, trace, wrapper, answer } = await setupList();
    const { result, unmount } = renderList(listStitch(vendor), wrapper);
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);

    unmount();
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true, answered: false });
    await act(flushMicrotasks);
    expect(vendor.requests()).toBe(2);
    expect(vendor.ledger[0]).toMatchObject({ answered: true, hungUp: false });
    expect(trace.events.filter((event) => event.type === 'cancel')).toHaveLength(1);
    expect(clock.pending()).toBe(0);
  });
});

describe('refetch', () => {
  it('re-fetches the pages in order, each from the refreshed page before, skipping the cache', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const list = stitch<Page, ListInput>({
      name: uniqueKey('people'),
      url: vendor.url('/people'),
      retry: false,
      cache: { ttl: 60_000 },
    });
    const { result } = renderList(list, wrapper);
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);
    await answer(2, { body: page(2, 4) });

    await actAtOnce(() => result.current.refetch());
    expect(result.current).toMatchObject({ status: 'success', isFetching: true, isFetchingNext: false });
    expect(await cursorOf(vendor, 3)).toEqual({ list: 'a', cursor: '0' });
    // The list moved: the refreshed first page points elsewhere, and the second request follows it.
    await answer(3, { body: page(0, 3) });
    expect(result.current.data?.pageParams).toEqual([0, 2]);
    expect(await cursorOf(vendor, 4)).toEqual({ list: 'a', cursor: '3' });
    await answer(4, { body: page(3, 5) });
    expect(result.current).toMatchObject({
      status: 'success',
      data: { pages: [page(0, 3), page(3, 5)], pageParams: [0, 3] },
      isFetching: false,
    });
    expect(vendor.requests()).toBe(4);
  });

  it('supersedes the page fetch in flight: its request is aborted and never shown', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const { result, statuses } = renderList(listStitch(vendor), wrapper);
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);

    await actAtOnce(() => result.current.refetch());
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    expect(await cursorOf(vendor, 3)).toEqual({ list: 'a', cursor: '0' });
    expect(result.current).toMatchObject({ status: 'success', isFetching: true, isFetchingNext: false });
    await answer(3, { body: page(0, 2) });
    expect(result.current).toMatchObject({
      status: 'success',
      data: { pages: [page(0, 2)] },
      isFetching: false,
    });
    expect(statuses).not.toContain('error');
  });

  it('stops at the first failure, keeps the pages it had and shows the error', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const { result } = renderList(listStitch(vendor), wrapper);
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);
    await answer(2, { body: page(2, 4) });
    await loadNext(result, vendor, 3);
    await answer(3, { body: page(4, null) });
    const before = result.current.data;

    await actAtOnce(() => result.current.refetch());
    await answer(4, { body: page(0, 2) });
    expect(await cursorOf(vendor, 5)).toEqual({ list: 'a', cursor: '2' });
    await answer(5, { status: 500, body: { error: 'down' } });
    expect(result.current).toMatchObject({ status: 'error', data: before, isFetching: false });
    expect(result.current.error).toMatchObject({ kind: 'http', status: 500 });
    // The third page was never asked for: the next request is the next refetch's first page.
    await actAtOnce(() => result.current.refetch());
    expect(await cursorOf(vendor, 6)).toEqual({ list: 'a', cursor: '0' });
    expect(result.current).toMatchObject({ status: 'success', data: before, isFetching: true });
  });
});

describe('invalidation', () => {
  /** List 'a' with its first page shown and its second page's request (request 2) in flight. */
  async function secondPageInFlight() {
    const harness = await setupList();
    const list = listStitch(harness.vendor);
    const hook = renderList(list, harness.wrapper);
    await harness.answer(1, { body: page(0, 2) });
    await loadNext(hook.result, harness.vendor, 2);
    return { ...harness, ...hook, list };
  }

  it('a mutation that invalidates the list refetches its pages in order; another list’s key does not', async () => {
    const { vendor, engine, answer, list, result } = await secondPageInFlight();
    const rename = stitch<{ ok: boolean }, { body: { name: string } }>({
      name: uniqueKey('rename'),
      method: 'POST',
      url: vendor.url('/rename'),
      retry: false,
    });
    await answer(2, { body: page(2, null) });

    await actAtOnce(() => engine.invalidate(list, { query: { list: 'b' } }));
    expect(result.current).toMatchObject({ status: 'success', isFetching: false });

    const renamed = mutate(
      rename,
      { body: { name: 'x' } },
      { engine, invalidates: [[list, { query: { list: 'a' } }]] },
    );
    await answer(3, { body: { ok: true } });
    await act(() => renamed);
    expect(result.current).toMatchObject({ status: 'success', isFetching: true, isFetchingNext: false });
    expect(await cursorOf(vendor, 4)).toEqual({ list: 'a', cursor: '0' });
    await answer(4, { body: page(0, 2) });
    expect(await cursorOf(vendor, 5)).toEqual({ list: 'a', cursor: '2' });
    await answer(5, { body: page(2, null) });
    expect(result.current).toMatchObject({
      status: 'success',
      data: { pages: [page(0, 2), page(2, null)], pageParams: [0, 2] },
      isFetching: false,
    });
    expect(vendor.requests()).toBe(5);
  });

  it('engine.invalidate supersedes the page fetch in flight (hung up, never shown) and stops at the first failure', async () => {
    const { vendor, engine, answer, list, result, statuses } = await secondPageInFlight();

    await actAtOnce(() => engine.invalidate(list));
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    expect(await cursorOf(vendor, 3)).toEqual({ list: 'a', cursor: '0' });
    expect(result.current).toMatchObject({ status: 'success', isFetching: true, isFetchingNext: false });
    expect(statuses).not.toContain('error');
    await answer(3, { status: 500, body: { error: 'down' } });
    expect(result.current).toMatchObject({
      status: 'error',
      data: { pages: [page(0, 2)] },
      isFetching: false,
    });
    expect(result.current.error).toMatchObject({ kind: 'http', status: 500 });
    expect(vendor.requests()).toBe(3);
  });

  it('an invalidation after a cancel(reason) clears the cancellation: the refetch shows as a fetch, then as data', async () => {
    const { engine, answer, list, result } = await secondPageInFlight();
    await actAtOnce(() => result.current.cancel(new Error('stop')));
    expect(result.current).toMatchObject({ status: 'error', error: { kind: 'aborted' } });

    await actAtOnce(() => engine.invalidate(list));
    expect(result.current).toMatchObject({ status: 'success', error: null, isFetching: true });
    await answer(3, { body: page(0, null) });
    expect(result.current).toMatchObject({
      status: 'success',
      data: { pages: [page(0, null)] },
      isFetching: false,
    });
  });

  it('invalidating the input of one of its pages refetches the list from its first page', async () => {
    const { vendor, engine, answer, list, result } = await secondPageInFlight();
    await answer(2, { body: page(2, null) });

    await actAtOnce(() => engine.invalidate(list, { query: { list: 'a', cursor: 2 } }));
    expect(result.current).toMatchObject({ status: 'success', isFetching: true });
    expect(await cursorOf(vendor, 3)).toEqual({ list: 'a', cursor: '0' });
  });
});

describe('cancellation the caller asked for', () => {
  it('cancel(reason) aborts the page in flight and shows it, cause intact; the pages stay', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const { result } = renderList(listStitch(vendor), wrapper);
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);

    const reason = new Error('the user stopped loading');
    await actAtOnce(() => result.current.cancel(reason));
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    expect(result.current).toMatchObject({
      status: 'error',
      data: { pages: [page(0, 2)] },
      isFetching: false,
    });
    // It says what the page fetch had sent, as useStitch's cancel does.
    expect(result.current.error).toMatchObject({
      kind: 'aborted',
      name: 'AbortError',
      dispatched: true,
      requests: 1,
      attempts: 1,
      ambiguous: true,
      url: vendor.url('/people?list=a&cursor=2'),
    });
    expect(result.current.error?.cause).toBe(reason);

    // Asking again clears it.
    expect(await loadNext(result, vendor, 3)).toEqual({ list: 'a', cursor: '2' });
    expect(result.current).toMatchObject({ status: 'success', error: null, isFetchingNext: true });
  });

  it('a cancel in the backoff after an answered 503 says the request was answered (not ambiguous)', async () => {
    const { vendor, wrapper, answer, trace } = await setupList();
    const list = stitch<Page, ListInput>({
      name: uniqueKey('people'),
      url: vendor.url('/people'),
      retry: { attempts: 2 },
    });
    const { result } = renderList(list, wrapper);
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);
    await act(async () => {
      const retrying = trace.next((event) => event.type === 'retry');
      vendor.release(2, { status: 503, body: {} });
      await retrying;
    });
    await actAtOnce(() => result.current.cancel(new Error('stop')));
    expect(result.current.error).toMatchObject({
      kind: 'aborted',
      requests: 1,
      dispatched: true,
      ambiguous: false,
    });
    expect(vendor.requests()).toBe(2);
  });

  it('a cancel of a page request joined to another reader’s says what that request sent', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const list = listStitch(vendor);
    const { result } = renderList(list, wrapper);
    await answer(1, { body: page(0, 2) });
    renderHook(() => useStitch(list, { query: { list: 'a', cursor: 2 } }), { wrapper });
    expect(await cursorOf(vendor, 2)).toEqual({ list: 'a', cursor: '2' });
    await actAtOnce(() => result.current.fetchNext());
    await actAtOnce(() => result.current.cancel(new Error('stop')));
    expect(result.current.error).toMatchObject({
      kind: 'aborted',
      requests: 1,
      ambiguous: true,
      url: vendor.url('/people?list=a&cursor=2'),
    });
    // The other reader keeps its request.
    expect(vendor.ledger[1]).toMatchObject({ hungUp: false });
    expect(vendor.requests()).toBe(2);
  });

  it('an external signal aborting does the same, with its reason', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const route = new AbortController();
    const { result } = renderList(listStitch(vendor), wrapper, { signal: route.signal });
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);

    const reason = new Error('navigated away');
    await actAtOnce(() => route.abort(reason));
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    expect(result.current).toMatchObject({ status: 'error', isFetching: false });
    expect(result.current.error?.cause).toBe(reason);
  });
});

describe('after its signal aborted', () => {
  it('refetch() and fetchNext() send nothing and show that abort again, never a pending with nothing in flight', async () => {
    const { vendor, wrapper } = await setupList();
    const route = new AbortController();
    const { result } = renderList(listStitch(vendor), wrapper, { signal: route.signal });
    await vendor.arrival(1);
    const reason = new Error('navigated away');
    await actAtOnce(() => route.abort(reason));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });

    for (const ask of [() => result.current.refetch(), () => result.current.fetchNext()]) {
      await actAtOnce(ask);
      expect(result.current).toMatchObject({ status: 'error', isFetching: false });
      expect(result.current.error?.cause).toBe(reason);
    }
    expect(vendor.requests()).toBe(1);
  });
});

describe('a hook whose signal aborted, beside other readers of its key', () => {
  /**
   * Another reader of `list` mounts and fetches (request `n`), then unmounts, which hangs it up:
   * the aborted hook (`result`) follows that fetch, and keeps showing its abort throughout.
   */
  async function anotherReadsAndLeaves(
    harness: { vendor: Vendor; wrapper: Harness['wrapper'] },
    list: ReturnType<typeof listStitch>,
    result: { current: { status: string; isFetching: boolean } },
    n: number,
  ) {
    const other = renderList(list, harness.wrapper);
    await harness.vendor.arrival(n);
    expect(result.current).toMatchObject({ status: 'error', isFetching: true });
    other.unmount();
    expect(await harness.vendor.hangUp(n)).toMatchObject({ hungUp: true });
    await act(flushMicrotasks);
    expect(result.current).toMatchObject({ status: 'error', isFetching: false });
  }

  it('keeps its abort through another reader’s fetch of the key, and is never left pending with nothing in flight', async () => {
    const { vendor, wrapper } = await setupList();
    const list = listStitch(vendor);
    const route = new AbortController();
    const { result } = renderList(list, wrapper, { signal: route.signal });
    await vendor.arrival(1);
    const reason = new Error('the route was left');
    await actAtOnce(() => route.abort(reason));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });

    await anotherReadsAndLeaves({ vendor, wrapper }, list, result, 2);
    expect(result.current.error?.cause).toBe(reason);
  });

  it('mounted on an aborted signal: follows another reader’s fetch to its end, and sends nothing itself', async () => {
    const { vendor, wrapper } = await setupList();
    const list = listStitch(vendor);
    const { result } = renderList(list, wrapper, { signal: AbortSignal.abort(new Error('gone')) });
    await act(flushMicrotasks);
    expect(result.current).toMatchObject({ status: 'error', isFetching: false });
    expect(vendor.requests()).toBe(0);

    await anotherReadsAndLeaves({ vendor, wrapper }, list, result, 1);
    expect(vendor.requests()).toBe(1);
  });
});

describe('fetchNext() with no pages yet', () => {
  it('after a cancel of the first page: fetches the first page again', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const { result } = renderList(listStitch(vendor), wrapper);
    await vendor.arrival(1);
    await actAtOnce(() => result.current.cancel(new Error('not now')));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });

    expect(await loadNext(result, vendor, 2)).toEqual({ list: 'a', cursor: '0' });
    expect(result.current).toMatchObject({ status: 'pending', isFetching: true, error: null });
    await answer(2, { body: page(0, null) });
    expect(result.current).toMatchObject({ status: 'success', isFetching: false });
  });
});

describe('a write to a page’s key', () => {
  it('while that page is fetched: the page is the data written, never an error for that abort', async () => {
    const { vendor, wrapper, engine } = await setupList();
    const list = listStitch(vendor);
    const { result } = renderList(list, wrapper);
    await vendor.arrival(1);
    const written = page(0, null);
    await actAtOnce(() => engine.setData(list, { query: { list: 'a', cursor: 0 } }, written));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    await act(flushMicrotasks);
    expect(result.current).toMatchObject({ status: 'success', error: null, isFetching: false });
    expect(result.current.data?.pages).toEqual([written]);

    // The same during a refetch: the refreshed first page is the one written.
    act(() => result.current.refetch());
    await vendor.arrival(2);
    const rewritten = { ...page(0, null), items: ['written'] };
    await actAtOnce(() => engine.setData(list, { query: { list: 'a', cursor: 0 } }, rewritten));
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    await act(flushMicrotasks);
    expect(result.current).toMatchObject({ status: 'success', error: null });
    expect(result.current.data?.pages).toEqual([rewritten]);
    expect(vendor.requests()).toBe(2);
  });
});

describe('a write to a page’s key once the page is shown', () => {
  it('engine.setData shows in the list, as in every reader of that key', async () => {
    const { vendor, wrapper, engine, answer } = await setupList();
    const list = listStitch(vendor);
    const { result, unmount } = renderList(list, wrapper);
    await answer(1, { body: page(0, 2) });
    expect(await loadNext(result, vendor, 2)).toEqual({ list: 'a', cursor: '2' });
    await answer(2, { body: page(2, null) });
    const first = result.current.data?.pages[0];

    const written = { ...page(2, null), items: ['renamed'] };
    await actAtOnce(() => engine.setData(list, { query: { list: 'a', cursor: 2 } }, written));
    expect(result.current).toMatchObject({ status: 'success', isFetching: false, hasNext: false });
    expect(result.current.data?.pages).toEqual([page(0, 2), written]);
    expect(result.current.data?.pages[0]).toBe(first);
    expect(result.current.data?.pageParams).toEqual([0, 2]);
    expect(vendor.requests()).toBe(2);

    // Once nobody shows the list, its pages' keys are followed no more.
    const key = engine.keyOf(list, { query: { list: 'a', cursor: 2 } }) as string;
    expect(engine.readers(key)).toBe(1);
    unmount();
    await act(flushMicrotasks);
    expect(engine.readers(key)).toBe(0);
  });

  it('another reader’s refetch of a page shows in the list; a refetch of the list replaces its pages all together', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const list = listStitch(vendor);
    const { result } = renderList(list, wrapper);
    await answer(1, { body: page(0, 2) });
    expect(await loadNext(result, vendor, 2)).toEqual({ list: 'a', cursor: '2' });
    await answer(2, { body: page(2, null) });
    const second = renderHook(() => useStitch(list, { query: { list: 'a', cursor: 0 } }), { wrapper });
    expect(second.result.current.data).toEqual(page(0, 2));

    const fresh = { ...page(0, 2), items: ['fresh'] };
    act(() => second.result.current.refetch());
    await answer(3, { body: fresh });
    expect(result.current.data?.pages).toEqual([fresh, page(2, null)]);

    // Mid-refetch, the list keeps the pages it had until every page has come.
    act(() => result.current.refetch());
    await answer(4, { body: page(0, 2) });
    expect(result.current.data?.pages).toEqual([fresh, page(2, null)]);
    await answer(5, { body: page(2, null) });
    expect(result.current.data?.pages).toEqual([page(0, 2), page(2, null)]);
    expect(second.result.current.data).toEqual(page(0, 2));
  });
});

/** A hook on list 'a' with the first of two signals; `rerender({ signal })` hands it another. */
async function onTwoSignals() {
  const harness = await setupList();
  const list = listStitch(harness.vendor);
  const [first, second] = [new AbortController(), new AbortController()];
  const hook = renderHook(
    ({ signal }: { signal: AbortSignal }) =>
      useStitchInfinite(list, { query: { list: 'a' } }, { ...byCursor, signal }),
    { wrapper: harness.wrapper, initialProps: { signal: first.signal } },
  );
  return { ...harness, ...hook, list, first, second };
}

describe('a signal made at each render (inline)', () => {
  it('AbortSignal.any of a route signal: its abort shows once, reason intact, and the hook settles', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const list = listStitch(vendor);
    const route = new AbortController();
    let renders = 0;
    const { result } = renderHook(
      () => {
        renders += 1;
        return useStitchInfinite(
          list,
          { query: { list: 'a' } },
          { ...byCursor, signal: AbortSignal.any([route.signal]) },
        );
      },
      { wrapper },
    );
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);
    const reason = new Error('navigated away');
    const before = renders;
    await actAtOnce(() => route.abort(reason));
    await act(flushMicrotasks);
    expect(result.current).toMatchObject({ status: 'error', isFetching: false });
    expect(result.current.error?.cause).toBe(reason);
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    expect(renders - before).toBeLessThan(5);
    expect(vendor.requests()).toBe(2);
  });

  it('one that aborts on its own (AbortSignal.timeout inline) fetches the first page again once, then shows its abort', async () => {
    const { vendor, wrapper } = await setupList();
    const list = listStitch(vendor);
    const made: AbortController[] = [];
    const { result } = renderHook(
      () => {
        made.push(new AbortController());
        return useStitchInfinite(
          list,
          { query: { list: 'a' } },
          { ...byCursor, signal: made.at(-1)?.signal },
        );
      },
      { wrapper },
    );
    await vendor.arrival(1);
    await actAtOnce(() => made.at(-1)?.abort(new DOMException('timed out', 'TimeoutError')));
    await vendor.arrival(2);
    const last = new DOMException('timed out again', 'TimeoutError');
    await actAtOnce(() => made.at(-1)?.abort(last));
    await act(flushMicrotasks);
    expect(result.current).toMatchObject({ status: 'error', isFetching: false });
    expect(result.current.error?.cause).toBe(last);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    expect(vendor.requests()).toBe(2);
  });
});

describe('a new signal for the same list', () => {
  it('keeps the pages and the page in flight; an abort of the new one shows, of the old one not', async () => {
    const { vendor, answer, first, second, result, rerender } = await onTwoSignals();
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);
    rerender({ signal: second.signal });
    await actAtOnce(() => first.abort(new Error('the old route')));
    expect(result.current).toMatchObject({ status: 'success', isFetching: true, error: null });
    expect(result.current.data?.pages).toHaveLength(1);

    const reason = new Error('the new route');
    await actAtOnce(() => second.abort(reason));
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    expect(result.current.error?.cause).toBe(reason);
    expect(result.current.data?.pages).toHaveLength(1);
    expect(vendor.requests()).toBe(2);
  });

  it('after the old one aborted: the pages stay, and the page it cancelled is not asked for again', async () => {
    const { vendor, answer, first, second, result, rerender } = await onTwoSignals();
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);
    await answer(2, { body: page(2, 4) });
    await loadNext(result, vendor, 3);
    const reason = new Error('the old route');
    await actAtOnce(() => first.abort(reason));
    expect(await vendor.hangUp(3)).toMatchObject({ hungUp: true });
    expect(result.current.error?.cause).toBe(reason);

    await actAtOnce(() => rerender({ signal: second.signal }));
    expect(result.current).toMatchObject({ status: 'success', error: null, isFetching: false });
    expect(result.current.data?.pageParams).toEqual([0, 2]);
    expect(vendor.requests()).toBe(3);
    expect(await loadNext(result, vendor, 4)).toEqual({ list: 'a', cursor: '4' });
  });

  it('after the old one aborted the first page: the new one fetches it again', async () => {
    const { vendor, answer, first, second, result, rerender } = await onTwoSignals();
    await vendor.arrival(1);
    await actAtOnce(() => first.abort(new Error('the old route')));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });

    await actAtOnce(() => rerender({ signal: second.signal }));
    expect(await cursorOf(vendor, 2)).toEqual({ list: 'a', cursor: '0' });
    expect(result.current).toMatchObject({ status: 'pending', error: null, isFetching: true });
    // And again, the abort and the next route's signal in one handler: each route's signal resumes.
    const third = new AbortController();
    await actAtOnce(() => {
      second.abort(new Error('left again'));
      rerender({ signal: third.signal });
    });
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    expect(await cursorOf(vendor, 3)).toEqual({ list: 'a', cursor: '0' });
    await answer(3, { body: page(0, null) });
    expect(result.current).toMatchObject({ status: 'success', isFetching: false });
  });

  it('after the old one aborted, refetches the pages an invalidation hit meanwhile', async () => {
    const { vendor, engine, answer, list, first, second, result, rerender } = await onTwoSignals();
    await answer(1, { body: page(0, null) });
    await actAtOnce(() => first.abort(new Error('the old route')));
    await actAtOnce(() => engine.invalidate(list));
    expect(vendor.requests()).toBe(1);

    await actAtOnce(() => rerender({ signal: second.signal }));
    expect(await cursorOf(vendor, 2)).toEqual({ list: 'a', cursor: '0' });
    await answer(2, { body: page(0, null) });
    expect(result.current).toMatchObject({ status: 'success', isFetching: false, error: null });
  });

  it('after the old one aborted an invalidation’s refetch: the new one refetches the pages', async () => {
    const { vendor, engine, answer, list, first, second, result, rerender } = await onTwoSignals();
    await answer(1, { body: page(0, null) });
    await actAtOnce(() => engine.invalidate(list));
    await vendor.arrival(2);
    await actAtOnce(() => first.abort(new Error('the tab was hidden')));
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });

    await actAtOnce(() => rerender({ signal: second.signal }));
    expect(await cursorOf(vendor, 3)).toEqual({ list: 'a', cursor: '0' });
    await answer(3, { body: page(0, null) });
    expect(result.current).toMatchObject({ status: 'success', isFetching: false, error: null });
    expect(vendor.requests()).toBe(3);
  });

  it('that has aborted already shows its abort and lets go of the page in flight', async () => {
    const { vendor, answer, result, rerender } = await onTwoSignals();
    await answer(1, { body: page(0, 2) });
    await loadNext(result, vendor, 2);
    const reason = new Error('aborted before it was handed over');
    await actAtOnce(() => rerender({ signal: AbortSignal.abort(reason) }));
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    expect(result.current).toMatchObject({ status: 'error', isFetching: false });
    expect(result.current.error?.cause).toBe(reason);
    expect(result.current.data?.pages).toHaveLength(1);
  });

  it('one made per render (AbortSignal.timeout inline) neither loops nor drops the pages', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const list = listStitch(vendor);
    const { result, rerender } = renderHook(
      () =>
        useStitchInfinite(
          list,
          { query: { list: 'a' } },
          { ...byCursor, signal: AbortSignal.timeout(60_000) },
        ),
      { wrapper },
    );
    await answer(1, { body: page(0, 2) });
    rerender();
    await act(flushMicrotasks);
    expect(result.current).toMatchObject({ status: 'success', isFetching: false });
    expect(result.current.data?.pages).toHaveLength(1);
    expect(vendor.requests()).toBe(1);
  });
});

interface ListProps {
  list: ReturnType<typeof listStitch>;
  testId: string;
  shown?: { current: Pages | undefined };
  signal?: AbortSignal | undefined;
}
/** Shows list 'a' as `status items`; `shown` receives its last result. */
function List({ list, testId, shown, signal }: ListProps) {
  const pages = useStitchInfinite(list, { query: { list: 'a' } }, { ...byCursor, signal });
  if (shown) shown.current = pages;
  const items = pages.data?.pages.flatMap((p) => p.items) ?? [];
  return <p data-testid={testId}>{`${pages.status} ${items.join(',')}`}</p>;
}

describe('sharing a key', () => {
  it('two components share the pages and one request per page; one unmounting leaves the other its page', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const list = listStitch(vendor);
    const shown: { current: Pages | undefined } = { current: undefined };
    const { rerender } = render(
      <>
        <List key="a" list={list} testId="a" shown={shown} />
        <List key="b" list={list} testId="b" />
      </>,
      { wrapper },
    );
    await answer(1, { body: page(0, 2) });
    expect(screen.getByTestId('b').textContent).toBe('success item 0,item 1');

    await actAtOnce(() => shown.current?.fetchNext());
    expect(await cursorOf(vendor, 2)).toEqual({ list: 'a', cursor: '2' });
    // The component that asked for the page unmounts: the other keeps the request going.
    rerender(<List key="b" list={list} testId="b" />);
    await act(flushMicrotasks);
    expect(vendor.ledger[1]).toMatchObject({ hungUp: false });
    await answer(2, { body: page(2, null) });
    expect(screen.getByTestId('b').textContent).toBe('success item 0,item 1,item 2,item 3');
    expect(vendor.requests()).toBe(2);
  });

  it('a component that cancelled, then asks for the next page while another’s is in flight, holds that one again', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const list = listStitch(vendor);
    const a: { current: Pages | undefined } = { current: undefined };
    const b: { current: Pages | undefined } = { current: undefined };
    const { rerender } = render(
      <>
        <List key="a" list={list} testId="a" shown={a} />
        <List key="b" list={list} testId="b" shown={b} />
      </>,
      { wrapper },
    );
    await answer(1, { body: page(0, 2) });
    await actAtOnce(() => b.current?.fetchNext());
    await vendor.arrival(2);
    await actAtOnce(() => a.current?.cancel(new Error('not now')));
    // The page request goes on for the other: it is still unanswered, so it may yet take effect.
    expect(a.current).toMatchObject({
      status: 'error',
      error: { kind: 'aborted', requests: 1, dispatched: true, ambiguous: true },
    });
    await actAtOnce(() => a.current?.fetchNext());
    expect(a.current).toMatchObject({ status: 'success', isFetchingNext: true });

    // The other one unmounts: the page request goes on for the one that asked again.
    rerender(<List key="a" list={list} testId="a" shown={a} />);
    await act(flushMicrotasks);
    expect(vendor.ledger[1]).toMatchObject({ hungUp: false });
    await answer(2, { body: page(2, null) });
    expect(screen.getByTestId('a').textContent).toBe('success item 0,item 1,item 2,item 3');
    expect(vendor.requests()).toBe(2);
  });

  it('a useStitch of the first page’s input joins the page request (the engine coalesces it)', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const list = listStitch(vendor);
    const first = renderHook(() => useStitch(list, { query: { list: 'a', cursor: 0 } }), { wrapper });
    renderList(list, wrapper);
    await vendor.arrival(1);
    await answer(1, { body: page(0, 2) });
    expect(first.result.current).toMatchObject({ status: 'success', data: page(0, 2) });
    expect(vendor.requests()).toBe(1);
  });

  it('a stitch redefined under its name (a hot reload) with two readers: the list moves to the new one', async () => {
    const { vendor, wrapper, answer, engine } = await setupList();
    const name = uniqueKey('people');
    const define = () => stitch<Page, ListInput>({ name, url: vendor.url('/people'), retry: false });
    const a: { current: Pages | undefined } = { current: undefined };
    const both = (list: ReturnType<typeof define>) => (
      <>
        <List key="a" list={list} testId="a" shown={a} />
        <List key="b" list={list} testId="b" />
      </>
    );
    const { rerender } = render(both(define()), { wrapper });
    await answer(1, { body: page(0, 2) });
    const reloaded = define();
    rerender(both(reloaded));
    // The new definition runs elsewhere first: the old one is refused from then on.
    const other = reloaded({ query: { list: 'b' } }, { engine });
    await answer(2, { body: page(0, null) });
    await other;

    await actAtOnce(() => a.current?.fetchNext());
    expect(await cursorOf(vendor, 3)).toEqual({ list: 'a', cursor: '2' });
    await answer(3, { body: page(2, null) });
    expect(screen.getByTestId('b').textContent).toBe('success item 0,item 1,item 2,item 3');
    expect(a.current?.error).toBeNull();
  });

  it('a refetch one reader cancelled is not sent again when another mounts on the key', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const list = listStitch(vendor);
    const a: { current: Pages | undefined } = { current: undefined };
    const { rerender } = render(<List key="a" list={list} testId="a" shown={a} />, { wrapper });
    await answer(1, { body: page(0, null) });
    await actAtOnce(() => a.current?.refetch());
    await vendor.arrival(2);
    const reason = new Error('user said stop');
    await actAtOnce(() => a.current?.cancel(reason));
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });

    rerender(
      <>
        <List key="a" list={list} testId="a" shown={a} />
        <List key="b" list={list} testId="b" />
      </>,
    );
    await act(flushMicrotasks);
    expect(screen.getByTestId('b').textContent).toBe('success item 0,item 1');
    expect(a.current).toMatchObject({ status: 'error', isFetching: false });
    expect(a.current?.error?.cause).toBe(reason);
    expect(vendor.requests()).toBe(2);
  });

  it('under StrictMode a mount sends one request and shows no cancel', async () => {
    const { vendor, trace, wrapper, answer } = await setupList();
    const list = listStitch(vendor);
    renderStrict(<List list={list} testId="a" />, wrapper);
    await answer(1, { body: page(0, null) });
    expect(screen.getByTestId('a').textContent).toBe('success item 0,item 1');
    expect(vendor.requests()).toBe(1);
    expect(trace.events.filter((event) => event.type === 'cancel')).toHaveLength(0);
  });
});

/**
 * A list under a `StitchScope` reset by `route(path, signal?)`, first rendered on `/a` with
 * `signal`: the hook's own signal on each route.
 */
async function routedList(signal?: AbortSignal) {
  const harness = await setupList();
  const list = listStitch(harness.vendor);
  const shown: { current: Pages | undefined } = { current: undefined };
  const page$ = (path: string, given?: AbortSignal) => (
    <StitchScope resetKey={path}>
      <List list={list} testId="a" shown={shown} signal={given} />
    </StitchScope>
  );
  const { rerender } = render(page$('/a', signal), { wrapper: harness.wrapper });
  const route = (path: string, given?: AbortSignal) => actAtOnce(() => rerender(page$(path, given)));
  return { ...harness, shown, route };
}

describe('scopes', () => {
  it('a StitchScope reset hangs up the page in flight, never shows it, and starts over on the new scope', async () => {
    const { vendor, answer, shown, route } = await routedList();
    await vendor.arrival(1);

    await route('/b');
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(await cursorOf(vendor, 2)).toEqual({ list: 'a', cursor: '0' });
    expect(shown.current).toMatchObject({ status: 'pending', isFetching: true, error: null });
    await answer(2, { body: page(0, null) });
    expect(screen.getByTestId('a').textContent).toBe('success item 0,item 1');
  });

  it('a StitchScope reset keeps the pages loaded: only a page in flight is hung up, nothing is fetched again', async () => {
    const { vendor, answer, shown, route } = await routedList();
    await answer(1, { body: page(0, 2) });
    await actAtOnce(() => shown.current?.fetchNext());
    await answer(2, { body: page(2, 4) });
    const loaded = 'success item 0,item 1,item 2,item 3';
    expect(screen.getByTestId('a').textContent).toBe(loaded);

    // Nothing in flight: the reset changes nothing on screen and sends nothing.
    await route('/b');
    expect(screen.getByTestId('a').textContent).toBe(loaded);
    // A page in flight: hung up, never shown, and the pages stay.
    await actAtOnce(() => shown.current?.fetchNext());
    expect(await cursorOf(vendor, 3)).toEqual({ list: 'a', cursor: '4' });
    await route('/c');
    expect(await vendor.hangUp(3)).toMatchObject({ hungUp: true });
    expect(shown.current).toMatchObject({ status: 'success', isFetching: false, error: null, hasNext: true });
    expect(screen.getByTestId('a').textContent).toBe(loaded);
    expect(vendor.requests()).toBe(3);
  });

  it('a route change with a new live signal clears the abort of the old one, keeping the pages', async () => {
    const first = new AbortController();
    const { vendor, answer, shown, route } = await routedList(first.signal);
    await answer(1, { body: page(0, 2) });
    await actAtOnce(() => shown.current?.fetchNext());
    await vendor.arrival(2);
    const reason = new Error('the route was left');
    await actAtOnce(() => first.abort(reason));
    expect(shown.current).toMatchObject({ status: 'error', error: { kind: 'aborted', cause: reason } });

    await route('/b', new AbortController().signal);
    expect(shown.current).toMatchObject({ status: 'success', error: null, isFetching: false });
    expect(screen.getByTestId('a').textContent).toBe('success item 0,item 1');
    expect(vendor.requests()).toBe(2);
  });

  it('after its scope aborts, nothing is fetching until the next scope signal joins the key again', async () => {
    const { vendor, wrapper, answer } = await setupList();
    const list = listStitch(vendor);
    const shown: { current: Pages | undefined } = { current: undefined };
    const scoped = (signal: AbortSignal) => (
      <ScopeContext.Provider value={signal}>
        <List list={list} testId="a" shown={shown} />
      </ScopeContext.Provider>
    );
    const first = new AbortController();
    const { rerender } = render(scoped(first.signal), { wrapper });
    await vendor.arrival(1);

    await actAtOnce(() => first.abort(new DOMException('The scope was reset', 'AbortError')));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(shown.current).toMatchObject({ status: 'pending', isFetching: false, error: null });

    await actAtOnce(() => rerender(scoped(new AbortController().signal)));
    expect(shown.current).toMatchObject({ status: 'pending', isFetching: true });
    expect(await cursorOf(vendor, 2)).toEqual({ list: 'a', cursor: '0' });
    await answer(2, { body: page(0, null) });
    expect(shown.current).toMatchObject({ status: 'success', isFetching: false });
  });
});

/** A list of two pages shown (cursors 0 and 2), below a provider with hand-driven sources and `defaults`. */
async function twoPagesWithTriggers(defaults?: RefetchTriggers, options?: RefetchTriggers) {
  const harness = await setupList();
  const { vendor, engine, answer } = harness;
  const focus = manualFocus();
  const online = manualOnline();
  const wrapper = ({ children }: { children?: ReactNode }) => (
    <StitchProvider engine={engine} focusSource={focus} onlineSource={online} defaults={defaults}>
      {children}
    </StitchProvider>
  );
  const list = listStitch(vendor);
  const hook = renderList(list, wrapper, options);
  await answer(1, { body: page(0, 2) });
  expect(await loadNext(hook.result, vendor, 2)).toEqual({ list: 'a', cursor: '2' });
  await answer(2, { body: page(2, null) });
  return { ...harness, ...hook, focus, online, list };
}

describe('refetch triggers', () => {
  it('a provider’s refetchOnFocus refetches the pages in order, the list on screen meanwhile; a focus during a page fetch adds none', async () => {
    const { vendor, answer, result, focus, statuses } = await twoPagesWithTriggers({ refetchOnFocus: true });
    await actAtOnce(() => focus.set(false));
    await actAtOnce(() => focus.set(true));
    expect(await cursorOf(vendor, 3)).toEqual({ list: 'a', cursor: '0' });
    expect(result.current).toMatchObject({ status: 'success', isFetching: true });
    expect(result.current.data?.pages).toEqual([page(0, 2), page(2, null)]);
    await actAtOnce(() => focus.set(true));
    await answer(3, { body: page(0, 2) });
    expect(await cursorOf(vendor, 4)).toEqual({ list: 'a', cursor: '2' });
    const fresh = { ...page(2, null), items: ['fresh'] };
    await answer(4, { body: fresh });
    expect(result.current).toMatchObject({ status: 'success', isFetching: false });
    expect(result.current.data?.pages).toEqual([page(0, 2), fresh]);
    expect(vendor.requests()).toBe(4);
    expect(vendor.ledger.map((entry) => entry.hungUp)).toEqual([false, false, false, false]);
    expect(statuses).not.toContain('error');
  });

  it('refetchInterval polls a period after the list settled, never beside a poll in flight, and not while hidden', async () => {
    const { vendor, answer, clock, focus, result } = await twoPagesWithTriggers(undefined, {
      refetchInterval: 1_000,
    });
    await act(() => clock.advance(999));
    expect(vendor.requests()).toBe(2);
    await act(() => clock.advance(1));
    expect(await cursorOf(vendor, 3)).toEqual({ list: 'a', cursor: '0' });
    // The vendor holds the poll: however long, no second one starts beside it.
    await act(() => clock.advance(60_000));
    expect(vendor.requests()).toBe(3);
    expect(clock.pending()).toBe(0);
    await answer(3, { body: page(0, 2) });
    await answer(4, { body: page(2, null) });
    expect(result.current).toMatchObject({ status: 'success', isFetching: false });

    await actAtOnce(() => focus.set(false));
    expect(clock.pending()).toBe(0);
    await act(() => clock.advance(60_000));
    expect(vendor.requests()).toBe(4);
    await actAtOnce(() => focus.set(true));
    await act(() => clock.advance(1_000));
    expect(await cursorOf(vendor, 5)).toEqual({ list: 'a', cursor: '0' });
  });

  it('a poll in flight is hung up on unmount, shows no error, and leaves no timer', async () => {
    const { vendor, clock, unmount, statuses } = await twoPagesWithTriggers({ refetchInterval: 1_000 });
    await act(() => clock.advance(1_000));
    await vendor.arrival(3);
    unmount();
    expect(await vendor.hangUp(3)).toMatchObject({ hungUp: true, answered: false });
    expect(clock.pending()).toBe(0);
    expect(vendor.requests()).toBe(3);
    expect(statuses).not.toContain('error');
  });

  it('a focus leaves a list whose first page is younger than the stitch’s cache.ttl', async () => {
    const harness = await setupList();
    const { vendor, engine, answer, clock } = harness;
    const focus = manualFocus();
    const wrapper = ({ children }: { children?: ReactNode }) => (
      <StitchProvider engine={engine} focusSource={focus} defaults={{ refetchOnFocus: true }}>
        {children}
      </StitchProvider>
    );
    const cached = stitch<Page, ListInput>({
      name: uniqueKey('people'),
      url: vendor.url('/people'),
      retry: false,
      cache: { ttl: 10_000 },
    });
    renderList(cached, wrapper);
    await answer(1, { body: page(0, null) });
    await actAtOnce(() => focus.set(true));
    expect(vendor.requests()).toBe(1);
    await act(() => clock.advance(10_000));
    await actAtOnce(() => focus.set(true));
    expect(await cursorOf(vendor, 2)).toEqual({ list: 'a', cursor: '0' });
  });
});
