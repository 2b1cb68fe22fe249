/**
 * SPEC §3, `useStitch`: each mounted hook is one coalescer reference; unmounting or re-keying
 * lets go of that reference only (the socket closes when it was the last); StrictMode sends one
 * request; an external signal or `cancel(reason)` shows as this hook's error with its reason
 * intact; idle inputs send nothing. End to end against the real vendor's ledger.
 */
import { act, render, renderHook, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { type StandardSchemaV1, type StitchInput, stitch } from '../../src/index';
import { type QueryResult, skipToken, useStitch } from '../../src/react/index';
import { uniqueKey } from '../helpers/keys';
import type { Vendor } from '../helpers/vendor';
import {
  actAtOnce,
  flushMicrotasks,
  type Harness,
  type Recorder,
  recorder,
  renderStrict,
  setup,
} from './harness';
import { ada, Reader, type User, type UserStitch, userStitch } from './users';

/** Two readers of user 7, either of which may be left out. */
function Pair({
  getUser,
  a,
  b,
}: {
  getUser: UserStitch;
  a?: Recorder<QueryResult<User>>;
  b?: Recorder<QueryResult<User>>;
}) {
  return (
    <>
      {a && <Reader getUser={getUser} shown={a} testId="a" />}
      {b && <Reader getUser={getUser} shown={b} testId="b" />}
    </>
  );
}

describe('one reference per mounted hook', () => {
  it('two components on one key send one request; unmounting one leaves the other its data', async () => {
    const { vendor, engine, trace, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const shown = { a: recorder<QueryResult<User>>(), b: recorder<QueryResult<User>>() };
    const { rerender } = render(<Pair getUser={getUser} a={shown.a} b={shown.b} />, { wrapper });
    await vendor.arrival(1);
    expect(trace.events.filter((event) => event.type === 'request')).toHaveLength(1);

    // `a` unmounts while the vendor holds the request: its reference goes, the request stays.
    const cancelled = trace.next((event) => event.type === 'cancel');
    rerender(<Pair getUser={getUser} b={shown.b} />);
    expect(await cancelled).toMatchObject({ type: 'cancel', phase: 'in-flight', dispatched: true });
    expect(vendor.ledger[0]).toMatchObject({ answered: false, hungUp: false });

    await answer(1, { body: ada });
    expect(screen.getByTestId('b').textContent).toBe('success Ada');
    expect(shown.b.last).toMatchObject({ status: 'success', data: ada, error: null, isFetching: false });
    await expect(vendor.hangUp(1)).rejects.toThrow('was answered, not hung up');
    expect(vendor.requests()).toBe(1);
    // The unmount was never shown as an error, in either component.
    expect([...shown.a.renders, ...shown.b.renders].map((q) => q.status)).not.toContain('error');
    expect(engine.getSnapshot(engine.keyOf(getUser, { params: { id: 7 } }) as string).data).toEqual(ada);
  });

  it('unmounting the last reader while the vendor holds closes the socket, and caches nothing', async () => {
    const { vendor, engine, clock, wrapper } = await setup();
    const getUser = userStitch(vendor);
    const { rerender } = render(<Pair getUser={getUser} a={recorder()} b={recorder()} />, { wrapper });
    await vendor.arrival(1);

    rerender(<Pair getUser={getUser} />);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });
    expect(vendor.requests()).toBe(1);
    const key = engine.keyOf(getUser, { params: { id: 7 } }) as string;
    expect(engine.getSnapshot(key)).toMatchObject({ data: undefined, fetching: false });
    expect(clock.pending()).toBe(0);
  });
});

describe('a key handed over in one commit', () => {
  it('one reader re-keys off it as another mounts on it: its request goes on, sent once', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const page = (box: number, card?: number) => (
      <>
        <Reader getUser={getUser} id={box} testId="box" />
        {card !== undefined && <Reader getUser={getUser} id={card} testId="card" />}
      </>
    );
    const { rerender } = render(page(7), { wrapper });
    await vendor.arrival(1);
    // The box moves on to user 8 and a card takes user 7, after the box in the tree.
    rerender(page(8, 7));
    expect((await vendor.arrival(2)).path).toBe('/users/8');
    await act(flushMicrotasks);
    expect(vendor.ledger[0]).toMatchObject({ hungUp: false });
    await answer(1, { body: ada });
    expect(screen.getByTestId('card').textContent).toBe('success Ada');
    expect(vendor.requests()).toBe(2);
  });
});

describe('typing into a search box', () => {
  interface Hits {
    q: string;
    hits: string[];
  }
  interface SearchInput extends StitchInput {
    query: { q: string };
  }
  const word = 'stitches';
  const prefixes = [...word].map((_, i) => word.slice(0, i + 1));
  const hitsFor = (q: string): Hits => ({ q, hits: [`${q}-1`, `${q}-2`] });

  /** A search read with the default retry and breaker, as an app would configure it. */
  const searchStitch = (vendor: Vendor) =>
    stitch<Hits, SearchInput>({ name: uniqueKey('search'), url: vendor.url('/search') });

  /** A search box's hook, starting at 's' and re-keyed by `rerender({ q })`; `statuses` is every status it rendered. */
  function typeInto(search: ReturnType<typeof searchStitch>, wrapper: Harness['wrapper']) {
    const statuses: string[] = [];
    const hook = renderHook(
      ({ q }: { q: string }) => {
        const query = useStitch(search, { query: { q } });
        statuses.push(query.status);
        return query;
      },
      { wrapper, initialProps: { q: 's' } },
    );
    return { ...hook, statuses };
  }

  it('eight keystrokes on a slow vendor: only the last request completes, the breaker stays closed', async () => {
    const { vendor, engine, trace, wrapper, answer } = await setup();
    const search = searchStitch(vendor);
    const { result, rerender, statuses } = typeInto(search, wrapper);

    for (const [index, q] of prefixes.entries()) {
      if (index > 0) rerender({ q });
      // Each keystroke's request reaches the vendor before the next key, so each one has a socket to close.
      expect((await vendor.arrival(index + 1)).query.get('q')).toBe(q);
      expect(result.current).toMatchObject({ status: 'pending', data: undefined, error: null });
    }
    for (let n = 1; n < prefixes.length; n++) {
      expect(await vendor.hangUp(n)).toMatchObject({ hungUp: true, answered: false });
    }

    await answer(prefixes.length, { body: hitsFor(word) });
    expect(result.current).toMatchObject({ status: 'success', data: hitsFor(word), error: null });
    expect(vendor.ledger.map((entry) => entry.query.get('q'))).toEqual(prefixes);
    expect(vendor.ledger.map((entry) => entry.answered)).toEqual(prefixes.map((q) => q === word));
    // Each re-key released the previous reference, named as superseded; none was shown.
    const reasons = trace.events.flatMap((event) => (event.type === 'cancel' ? [event.reason] : []));
    expect(reasons).toHaveLength(prefixes.length - 1);
    for (const reason of reasons) expect(reason).toMatch(/^Superseded/);
    expect(statuses).not.toContain('error');
    expect(await engine.circuitState(new URL(vendor.origin).origin)).toMatchObject({
      state: 'closed',
      failures: 0,
    });
  });

  it('a backspace back to a key whose request it aborted never shows that abort', async () => {
    const { vendor, wrapper, answer } = await setup();
    const search = searchStitch(vendor);
    const { result, rerender, statuses } = typeInto(search, wrapper);
    await vendor.arrival(1);
    rerender({ q: 'st' });
    await vendor.arrival(2);
    await vendor.hangUp(1);
    // Let the aborted run for 's' settle before the user goes back to 's'.
    await act(flushMicrotasks);

    rerender({ q: 's' });
    expect(statuses).not.toContain('error');
    expect(result.current).toMatchObject({ status: 'pending', error: null });
    expect((await vendor.arrival(3)).query.get('q')).toBe('s');
    await vendor.hangUp(2);
    await answer(3, { body: hitsFor('s') });
    expect(result.current).toMatchObject({ status: 'success', data: hitsFor('s') });
    expect(statuses).not.toContain('error');
  });

  it('with debounce, re-keys inside the window send nothing: one request, for the last key', async () => {
    const { vendor, clock, trace, wrapper, answer } = await setup();
    const search = searchStitch(vendor);
    const { result, rerender } = renderHook(
      ({ q }: { q: string }) => useStitch(search, { query: { q } }, { debounce: 300 }),
      { wrapper, initialProps: { q: 's' } },
    );
    for (const q of prefixes.slice(1)) {
      await act(() => clock.advance(299));
      rerender({ q });
      expect(result.current.status).toBe('pending');
    }
    await act(() => clock.advance(299));
    expect(trace.events.filter((event) => event.type === 'start')).toHaveLength(0);

    await act(() => clock.advance(1));
    expect((await vendor.arrival(1)).query.get('q')).toBe(word);
    await answer(1, { body: hitsFor(word) });
    expect(result.current).toMatchObject({ status: 'success', data: hitsFor(word) });
    expect(vendor.requests()).toBe(1);
    expect(trace.events.filter((event) => event.type === 'request')).toHaveLength(1);
    expect(clock.pending()).toBe(0);
  });

  it('an unmount inside the debounce window sends nothing and leaves no timer', async () => {
    const { vendor, clock, trace, wrapper } = await setup();
    const search = searchStitch(vendor);
    const { unmount } = renderHook(() => useStitch(search, { query: { q: 's' } }, { debounce: 300 }), {
      wrapper,
    });
    await act(() => clock.advance(100));
    expect(clock.pending()).toBe(1);
    unmount();
    await act(flushMicrotasks);
    expect(clock.pending()).toBe(0);
    await act(() => clock.advance(1_000));
    expect(trace.events).toHaveLength(0);
    expect(vendor.requests()).toBe(0);
  });

  it('with keepPrevious, the previous results stay on screen as a placeholder until new data arrives', async () => {
    const { vendor, wrapper, answer } = await setup();
    const search = searchStitch(vendor);
    const { result, rerender } = renderHook(
      ({ q }: { q: string }) => useStitch(search, { query: { q } }, { keepPrevious: true }),
      { wrapper, initialProps: { q: 's' } },
    );
    await vendor.arrival(1);
    expect(result.current).toMatchObject({ status: 'pending', data: undefined, isPlaceholder: false });
    await answer(1, { body: hitsFor('s') });
    expect(result.current).toMatchObject({ status: 'success', data: hitsFor('s'), isPlaceholder: false });

    for (const [index, q] of prefixes.slice(1, 4).entries()) {
      rerender({ q });
      expect(result.current).toMatchObject({ status: 'pending', data: hitsFor('s'), isPlaceholder: true });
      await vendor.arrival(index + 2);
    }
    await vendor.hangUp(2);
    await vendor.hangUp(3);
    await answer(4, { body: hitsFor('stit') });
    expect(result.current).toMatchObject({
      status: 'success',
      data: hitsFor('stit'),
      isPlaceholder: false,
      isFetching: false,
    });
  });
});

describe('StrictMode', () => {
  it('a mount sends exactly one request and never renders an error', async () => {
    const { vendor, trace, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const shown = recorder<QueryResult<User>>();
    renderStrict(<Reader getUser={getUser} shown={shown} testId="user" />, wrapper);
    await vendor.arrival(1);
    await answer(1, { body: ada });

    expect(screen.getByTestId('user').textContent).toBe('success Ada');
    expect(vendor.requests()).toBe(1);
    expect(trace.events.filter((event) => event.type === 'start')).toHaveLength(1);
    // The simulated unmount released nothing: no run was cancelled.
    expect(trace.events.filter((event) => event.type === 'cancel')).toHaveLength(0);
    const statuses = shown.renders.map((q) => q.status);
    expect(statuses).not.toContain('error');
    expect(statuses.at(-1)).toBe('success');
  });
});

describe('cancellation the caller asked for', () => {
  function twoReaders(getUser: UserStitch, signal?: AbortSignal) {
    const shown = { a: recorder<QueryResult<User>>(), b: recorder<QueryResult<User>>() };
    const ui = (
      <>
        <Reader getUser={getUser} shown={shown.a} options={signal ? { signal } : {}} />
        <Reader getUser={getUser} shown={shown.b} />
      </>
    );
    return { shown, ui };
  }

  it('an external signal aborting shows as that hook error, reason intact; the other hook gets the data', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const route = new AbortController();
    const { shown, ui } = twoReaders(getUser, route.signal);
    render(ui, { wrapper });
    await vendor.arrival(1);

    const reason = new Error('user navigated away');
    await actAtOnce(() => route.abort(reason));
    const { error } = shown.a.last;
    expect(shown.a.last.status).toBe('error');
    expect(error).toMatchObject({ kind: 'aborted', name: 'AbortError', message: 'user navigated away' });
    expect(error?.cause).toBe(reason);
    expect(shown.b.last).toMatchObject({ status: 'pending', error: null });
    expect(vendor.ledger[0]).toMatchObject({ answered: false, hungUp: false });

    await answer(1, { body: ada });
    expect(shown.b.last).toMatchObject({ status: 'success', data: ada, error: null });
    expect(shown.a.last.status).toBe('error');
    expect(shown.a.last.error?.cause).toBe(reason);
    expect(vendor.requests()).toBe(1);
    expect(shown.b.renders.map((q) => q.status)).not.toContain('error');
  });

  it('q.cancel(reason) does the same for the hook that calls it', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const { shown, ui } = twoReaders(getUser);
    render(ui, { wrapper });
    await vendor.arrival(1);

    const reason = { why: 'the user pressed stop' };
    await actAtOnce(() => shown.a.last.cancel(reason));
    expect(shown.a.last).toMatchObject({ status: 'error', error: { kind: 'aborted', dispatched: true } });
    expect(shown.a.last.error?.cause).toBe(reason);
    expect(shown.b.last).toMatchObject({ status: 'pending', error: null });

    await answer(1, { body: ada });
    expect(shown.b.last).toMatchObject({ status: 'success', data: ada });
    expect(shown.a.last.error?.cause).toBe(reason);
    await expect(vendor.hangUp(1)).rejects.toThrow('was answered, not hung up');
  });

  it('a cancel once its own request has settled shows nothing, while another reader’s request of the key goes on', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = stitch<User, { params: { id: number } }>({
      name: uniqueKey('user'),
      url: vendor.url('/users/{id}'),
      retry: false,
      coalesce: false,
    });
    const a = renderHook(() => useStitch(getUser, { params: { id: 7 } }), { wrapper });
    await vendor.arrival(1);
    renderHook(() => useStitch(getUser, { params: { id: 7 } }), { wrapper });
    await vendor.arrival(2);
    await answer(1, { body: ada });
    expect(a.result.current).toMatchObject({ status: 'success', isFetching: true });
    await actAtOnce(() => a.result.current.cancel(new Error('stop')));
    expect(a.result.current).toMatchObject({ status: 'success', error: null });
    expect(vendor.ledger[1]).toMatchObject({ hungUp: false });
  });

  it('a cancel by the only reader closes the socket, and it shows no longer fetching at once', async () => {
    const { vendor, wrapper } = await setup();
    const getUser = userStitch(vendor);
    const shown: string[] = [];
    const { result } = renderHook(
      () => {
        const q = useStitch(getUser, { params: { id: 7 } });
        shown.push(`${q.status} fetching: ${q.isFetching}`);
        return q;
      },
      { wrapper },
    );
    await vendor.arrival(1);
    shown.length = 0;
    const reason = new Error('stop');
    await actAtOnce(() => result.current.cancel(reason));
    expect(result.current.error?.cause).toBe(reason);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(shown).toEqual(['error fetching: false']);
  });
});

describe('the hook’s own signal aborting, on the only reader', () => {
  it('closes the socket and renders the abort once, no longer fetching', async () => {
    const { vendor, wrapper } = await setup();
    const getUser = userStitch(vendor);
    const route = new AbortController();
    const shown: string[] = [];
    renderHook(
      () => {
        const q = useStitch(getUser, { params: { id: 7 } }, { signal: route.signal });
        shown.push(`${q.status} fetching: ${q.isFetching}`);
        return q;
      },
      { wrapper },
    );
    await vendor.arrival(1);
    shown.length = 0;
    await actAtOnce(() => route.abort(new Error('route left')));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(shown).toEqual(['error fetching: false']);
  });
});

describe('render counts', () => {
  it('a hook re-renders only when what it returns changed', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const renders = { 7: recorder<QueryResult<User>>(), 8: recorder<QueryResult<User>>() };
    render(
      <>
        <Reader getUser={getUser} id={7} shown={renders[7]} />
        <Reader getUser={getUser} id={8} shown={renders[8]} />
      </>,
      { wrapper },
    );
    await vendor.arrival(1);
    await vendor.arrival(2);
    const seven = vendor.ledger.findIndex((entry) => entry.path === '/users/7') + 1;
    const eight = 3 - seven;
    // One render for the load: it already says fetching, so the request's start renders nothing.
    expect(renders[7].renders.map(({ status, isFetching }) => [status, isFetching])).toEqual([
      ['pending', true],
    ]);

    await answer(seven, { body: ada });
    expect(renders[7].renders).toHaveLength(2);
    expect(renders[7].last).toMatchObject({ status: 'success', data: ada, isFetching: false });

    // Another key's data and fetching flag change: this hook does not render.
    const eightCount = renders[8].renders.length;
    await answer(eight, { body: { id: 8, name: 'Grace' } });
    expect(renders[8].renders.length).toBe(eightCount + 1);
    expect(renders[7].renders).toHaveLength(2);
    // Every render showed something new.
    for (const list of [renders[7].renders, renders[8].renders]) {
      for (let i = 1; i < list.length; i++) expect(list[i]).not.toBe(list[i - 1]);
    }
  });

  it('a second reader joining the same key does not re-render the first', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const first = recorder<QueryResult<User>>();
    const { rerender } = render(<Reader getUser={getUser} shown={first} />, { wrapper });
    await vendor.arrival(1);
    const before = first.renders.length;
    rerender(
      <>
        <Reader getUser={getUser} shown={first} />
        <Reader getUser={getUser} />
      </>,
    );
    // The parent's re-render rendered the first reader once, with the same result object; the
    // second reader's join did not render it again.
    expect(first.renders.length).toBe(before + 1);
    expect(first.last).toBe(first.renders[before - 1]);
    await answer(1, { body: ada });
    expect(first.last).toMatchObject({ status: 'success', data: ada });
    expect(vendor.requests()).toBe(1);
  });
});

describe('idle inputs and refetch', () => {
  it('skipToken, null and enabled: false stay idle and send nothing', async () => {
    const { vendor, trace, wrapper } = await setup();
    const getUser = userStitch(vendor);
    const skipped = renderHook(() => useStitch(getUser, skipToken), { wrapper });
    const nulled = renderHook(() => useStitch(getUser, null), { wrapper });
    const disabled = renderHook(
      ({ enabled }: { enabled: boolean }) => useStitch(getUser, { params: { id: 7 } }, { enabled }),
      { wrapper, initialProps: { enabled: false } },
    );
    await act(flushMicrotasks);
    for (const { result } of [skipped, nulled, disabled]) {
      expect(result.current).toMatchObject({
        status: 'idle',
        data: undefined,
        error: null,
        isFetching: false,
      });
    }
    expect(trace.events).toHaveLength(0);
    expect(vendor.requests()).toBe(0);

    // Enabling it starts the read.
    disabled.rerender({ enabled: true });
    expect(disabled.result.current).toMatchObject({ status: 'pending', isFetching: true });
    expect((await vendor.arrival(1)).path).toBe('/users/7');
    expect(trace.events.filter((event) => event.type === 'start')).toHaveLength(1);
  });

  it('disabling a hook while its request is out releases it: the socket closes', async () => {
    const { vendor, wrapper } = await setup();
    const getUser = userStitch(vendor);
    const { result, rerender } = renderHook(
      ({ enabled }: { enabled: boolean }) => useStitch(getUser, { params: { id: 7 } }, { enabled }),
      { wrapper, initialProps: { enabled: true } },
    );
    await vendor.arrival(1);
    rerender({ enabled: false });
    expect(result.current).toMatchObject({ status: 'idle', error: null });
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    await act(flushMicrotasks);
    expect(result.current).toMatchObject({ status: 'idle', error: null });
  });

  it('refetch() sends a new request even when the data is cached', async () => {
    const { vendor, trace, wrapper, answer } = await setup();
    const getUser = userStitch(vendor, { ttl: 60_000 });
    const first = renderHook(() => useStitch(getUser, { params: { id: 7 } }), { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    expect(first.result.current).toMatchObject({ status: 'success', data: ada });

    // A second reader is served from the cache: no request.
    const second = renderHook(() => useStitch(getUser, { params: { id: 7 } }), { wrapper });
    await act(flushMicrotasks);
    expect(second.result.current).toMatchObject({ status: 'success', data: ada, isFetching: false });
    expect(trace.events.filter((event) => event.type === 'cache')).toHaveLength(1);
    expect(trace.events.filter((event) => event.type === 'request')).toHaveLength(1);

    act(() => first.result.current.refetch());
    expect(first.result.current).toMatchObject({ status: 'success', data: ada, isFetching: true });
    expect((await vendor.arrival(2)).path).toBe('/users/7');
    const renamed = { ...ada, name: 'Ada L.' };
    await answer(2, { body: renamed });
    expect(first.result.current).toMatchObject({ status: 'success', data: renamed, isFetching: false });
    expect(second.result.current).toMatchObject({ status: 'success', data: renamed });
    expect(vendor.requests()).toBe(2);
  });
});

describe('a new signal for the same read', () => {
  it('changes nothing settled: one made per render (AbortSignal.timeout inline) sends once', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const { result, rerender } = renderHook(
      () => useStitch(getUser, { params: { id: 7 } }, { signal: AbortSignal.timeout(60_000) }),
      { wrapper },
    );
    await vendor.arrival(1);
    await answer(1, { body: ada });
    expect(result.current).toMatchObject({ status: 'success', data: ada, isFetching: false });
    rerender();
    await act(flushMicrotasks);
    expect(result.current).toMatchObject({ status: 'success', data: ada, isFetching: false });
    expect(vendor.requests()).toBe(1);
  });

  it('changes nothing settled even after the old one aborted, which cancelled nothing', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const first = new AbortController();
    const { result, rerender } = renderHook(
      ({ signal }: { signal: AbortSignal }) => useStitch(getUser, { params: { id: 7 } }, { signal }),
      { wrapper, initialProps: { signal: first.signal } },
    );
    await vendor.arrival(1);
    await answer(1, { body: ada });
    await actAtOnce(() => first.abort(new Error('the old route')));
    rerender({ signal: new AbortController().signal });
    await act(flushMicrotasks);
    expect(result.current).toMatchObject({ status: 'success', data: ada, isFetching: false, error: null });
    expect(vendor.requests()).toBe(1);
  });

  /** A reader on `first` whose request is in flight when it is handed `second`. */
  async function handedOver() {
    const harness = await setup();
    const getUser = userStitch(harness.vendor);
    const shown = recorder<QueryResult<User>>();
    const [first, second] = [new AbortController(), new AbortController()];
    const view = render(<Reader getUser={getUser} shown={shown} options={{ signal: first.signal }} />, {
      wrapper: harness.wrapper,
    });
    await harness.vendor.arrival(1);
    view.rerender(<Reader getUser={getUser} shown={shown} options={{ signal: second.signal }} />);
    return { ...harness, shown, first, second };
  }

  it('takes over the request in flight: no new request, and the old signal no longer counts', async () => {
    const { vendor, answer, shown, first } = await handedOver();
    await actAtOnce(() => first.abort(new Error('the old route')));
    await answer(1, { body: ada });
    expect(shown.last).toMatchObject({ status: 'success', data: ada, error: null });
    expect(vendor.ledger.map((entry) => [entry.answered, entry.hungUp])).toEqual([[true, false]]);
  });

  it('an abort of the signal that took over shows, reason intact, and hangs up', async () => {
    const { vendor, trace, shown, second } = await handedOver();
    const reason = new Error('the new route');
    await actAtOnce(() => second.abort(reason));
    expect(shown.last).toMatchObject({ status: 'error', error: { kind: 'aborted' } });
    expect(shown.last.error?.cause).toBe(reason);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(trace.events.filter((event) => event.type === 'start')).toHaveLength(1);
  });

  /** A reader without a signal whose request is in flight when it is handed `route`'s. */
  async function handedFirst() {
    const harness = await setup();
    const getUser = userStitch(harness.vendor);
    const shown = recorder<QueryResult<User>>();
    const view = render(<Reader getUser={getUser} shown={shown} />, { wrapper: harness.wrapper });
    await harness.vendor.arrival(1);
    const route = new AbortController();
    view.rerender(<Reader getUser={getUser} shown={shown} options={{ signal: route.signal }} />);
    await act(flushMicrotasks);
    return { ...harness, shown, route };
  }

  it('given to a reader that had none, takes over its request in flight: nothing is sent again', async () => {
    const { vendor, answer, shown } = await handedFirst();
    await answer(1, { body: ada });
    expect(shown.last).toMatchObject({ status: 'success', data: ada, error: null });
    expect(vendor.requests()).toBe(1);
  });

  it('given to a reader that had none, cancels its request when it aborts, reason intact', async () => {
    const { vendor, shown, route } = await handedFirst();
    const reason = new Error('left the route');
    await actAtOnce(() => route.abort(reason));
    expect(shown.last).toMatchObject({ status: 'error', error: { kind: 'aborted' } });
    expect(shown.last.error?.cause).toBe(reason);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(vendor.requests()).toBe(1);
  });

  it('is the signal of the next request: after the old one aborted the read, the new one reads again', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const shown = recorder<QueryResult<User>>();
    const first = new AbortController();
    const view = render(<Reader getUser={getUser} shown={shown} options={{ signal: first.signal }} />, {
      wrapper,
    });
    await vendor.arrival(1);
    const reason = new Error('left the route');
    await actAtOnce(() => first.abort(reason));
    expect(shown.last.error?.cause).toBe(reason);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });

    const second = new AbortController();
    view.rerender(<Reader getUser={getUser} shown={shown} options={{ signal: second.signal }} />);
    await vendor.arrival(2);
    // And again: each route's signal is the next request's.
    await actAtOnce(() => second.abort(new Error('left again')));
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    const third = new AbortController();
    view.rerender(<Reader getUser={getUser} shown={shown} options={{ signal: third.signal }} />);
    await vendor.arrival(3);
    await answer(3, { body: ada });
    expect(shown.last).toMatchObject({ status: 'success', data: ada, error: null });
  });
});

describe('a signal made at each render (inline)', () => {
  it('AbortSignal.any of a route signal: its abort shows once, reason intact, and the hook settles', async () => {
    const { vendor, wrapper } = await setup();
    const getUser = userStitch(vendor);
    const route = new AbortController();
    let renders = 0;
    const { result } = renderHook(
      () => {
        renders += 1;
        return useStitch(getUser, { params: { id: 7 } }, { signal: AbortSignal.any([route.signal]) });
      },
      { wrapper },
    );
    await vendor.arrival(1);
    const reason = new Error('navigated away');
    const before = renders;
    await actAtOnce(() => route.abort(reason));
    await act(flushMicrotasks);
    expect(result.current).toMatchObject({ status: 'error', isFetching: false, error: { kind: 'aborted' } });
    expect(result.current.error?.cause).toBe(reason);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(renders - before).toBeLessThan(5);
    expect(vendor.requests()).toBe(1);
  });

  it('one that aborts on its own (AbortSignal.timeout inline) reads again once, then shows its abort', async () => {
    const { vendor, wrapper } = await setup();
    const getUser = userStitch(vendor);
    // What AbortSignal.timeout(ms) written inline does, with the timeouts fired by hand.
    const made: AbortController[] = [];
    const { result } = renderHook(
      () => {
        made.push(new AbortController());
        return useStitch(getUser, { params: { id: 7 } }, { signal: made.at(-1)?.signal });
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

describe("another reader's data after a failure of this one", () => {
  it('ends the failure: newer data shows as a success', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const failed = recorder<QueryResult<User>>();
    const view = render(<Reader getUser={getUser} shown={failed} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { status: 500, body: { error: 'boom' } });
    expect(failed.last).toMatchObject({ status: 'error', error: { kind: 'http', status: 500 } });

    // A reader mounted later reads the key again; its answer is newer than the failure.
    const later = recorder<QueryResult<User>>();
    view.rerender(
      <>
        <Reader getUser={getUser} shown={failed} />
        <Reader getUser={getUser} shown={later} />
      </>,
    );
    await vendor.arrival(2);
    await answer(2, { body: ada });
    expect(later.last).toMatchObject({ status: 'success', data: ada });
    expect(failed.last).toMatchObject({ status: 'success', data: ada, error: null });
  });
});

describe('a background refresh of stale data (cache.staleWhileRevalidate)', () => {
  type UserInput = { params: { id: number } };

  /** An input validator that lets every input through, a tick later. */
  const passThrough: StandardSchemaV1<UserInput, UserInput> = {
    '~standard': { version: 1, vendor: 'test', validate: async (value) => ({ value: value as UserInput }) },
  };

  /** Users cached for a second, then served stale for a minute while refreshed. */
  const staleUsers = (vendor: Vendor, input?: typeof passThrough) =>
    stitch<User, UserInput>({
      name: uniqueKey('user'),
      url: vendor.url('/users/{id}'),
      retry: false,
      cache: { ttl: 1_000, staleWhileRevalidate: 60_000 },
      ...(input && { input }),
    });

  /**
   * A reader of user `id`, re-keyed by `rerender({ id })`, its data stale past its ttl; its
   * stitch validates its input with `input`, if given.
   */
  async function staleReader(input?: typeof passThrough) {
    const harness = await setup();
    const { vendor, clock, wrapper, answer } = harness;
    const getUser = staleUsers(vendor, input);
    const hook = renderHook(({ id }: { id: number }) => useStitch(getUser, { params: { id } }), {
      wrapper,
      initialProps: { id: 7 },
    });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    await clock.advance(1_000);
    await actAtOnce(() => hook.rerender({ id: 8 }));
    await vendor.arrival(2);
    await answer(2, { body: { id: 8, name: 'Grace' } });
    // Back to a key whose data is stale: shown at once, refreshed in the background.
    await actAtOnce(() => hook.rerender({ id: 7 }));
    expect(await vendor.arrival(3)).toMatchObject({ path: '/users/7' });
    expect(hook.result.current).toMatchObject({ status: 'success', data: ada, isFetching: true });
    return { ...harness, ...hook, getUser };
  }

  it.each([
    ['', undefined],
    [', through an async input validator', passThrough],
  ])(
    'is let go when the reader moves on (its socket closed), as its own request would be%s',
    async (_, input) => {
      const { vendor, rerender } = await staleReader(input);
      await actAtOnce(() => rerender({ id: 8 }));
      expect(await vendor.hangUp(3)).toMatchObject({ hungUp: true, answered: false });
    },
  );

  it('cancel(reason) lets go of it and shows the cancel, reason intact, no longer fetching', async () => {
    const { vendor, result } = await staleReader();
    const reason = new Error('Esc');
    await actAtOnce(() => result.current.cancel(reason));
    expect(await vendor.hangUp(3)).toMatchObject({ hungUp: true, answered: false });
    expect(result.current).toMatchObject({ status: 'error', data: ada, isFetching: false });
    expect(result.current.error?.cause).toBe(reason);
  });

  it('once it ended, cancel() holds nothing and shows nothing, while another request of the key goes on', async () => {
    const { vendor, engine, result, answer, getUser } = await staleReader();
    await answer(3, { body: ada });
    const elsewhere = getUser({ params: { id: 7 } }, { engine, revalidate: true });
    await vendor.arrival(4);
    await actAtOnce(() => result.current.cancel(new Error('stop')));
    expect(result.current).toMatchObject({ status: 'success', error: null });
    await answer(4, { body: ada });
    await elsewhere;
    expect(vendor.ledger[3]).toMatchObject({ hungUp: false });
  });

  it('refetch() joins it rather than sending another', async () => {
    const { vendor, result, answer } = await staleReader();
    await actAtOnce(() => result.current.refetch());
    expect(vendor.ledger[2]).toMatchObject({ hungUp: false });
    await answer(3, { body: { id: 7, name: 'Ada Lovelace' } });
    expect(result.current).toMatchObject({ status: 'success', data: { name: 'Ada Lovelace' } });
    expect(vendor.requests()).toBe(3);
  });
});
