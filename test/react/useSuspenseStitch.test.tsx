/**
 * SPEC §3, `useSuspenseStitch`: suspends while the data loads and shows it inside `<Suspense>`;
 * a failure goes to the nearest error boundary; the suspended request is one reference, released
 * (its socket closed) when the enclosing `StitchScope` resets or `signal` aborts.
 */
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { StitchError } from '../../src/index';
import { StitchScope, useSuspenseStitch } from '../../src/react/index';
import { FAILURE_SHOWN } from '../../src/react/leases';
import { Boundary, caught } from './boundary';
import { actAtOnce, flushMicrotasks, renderStrict, setup } from './harness';
import { ada, Reader, type UserStitch, userStitch } from './users';

beforeEach(() => {
  caught.length = 0;
  // React reports every error a boundary catches on the console; the tests assert on the boundary.
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterEach(() => {
  vi.restoreAllMocks();
});

function Profile({ getUser, signal }: { getUser: UserStitch; signal?: AbortSignal }) {
  const { data } = useSuspenseStitch(getUser, { params: { id: 7 } }, signal ? { signal } : {});
  return <p>{`user ${data.name}`}</p>;
}

/** The profile of user `id`, on `signal`. */
/** {@link Profile} under a Suspense boundary of its own, showing `loading` while it suspends. */
function SuspendedProfile({ getUser }: { getUser: UserStitch }) {
  return (
    <Suspense fallback={<p>loading</p>}>
      <Profile getUser={getUser} />
    </Suspense>
  );
}

function ProfileOf({ getUser, id, signal }: { getUser: UserStitch; id: number; signal: AbortSignal }) {
  const { data } = useSuspenseStitch(getUser, { params: { id } }, { signal });
  return <p>{`user ${data.name}`}</p>;
}

/** The profile (`timed`: on a signal made at every render) inside a boundary and a Suspense fallback. */
function Guarded({ getUser, signal, timed }: { getUser: UserStitch; signal?: AbortSignal; timed?: boolean }) {
  return (
    <Boundary>
      <Suspense fallback={<p>loading</p>}>
        {timed ? <TimedProfile getUser={getUser} /> : <Profile getUser={getUser} signal={signal} />}
      </Suspense>
    </Boundary>
  );
}

/** Resolves once `container` shows `text`: on the DOM's own change, not on a timer. */
function shows(container: HTMLElement, text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!container.textContent?.includes(text)) return;
      observer.disconnect();
      resolve();
    };
    const observer = new MutationObserver(check);
    observer.observe(container, { childList: true, subtree: true, characterData: true });
    check();
  });
}

/** The profile with a signal made at every render. */
function TimedProfile({ getUser }: { getUser: UserStitch }) {
  const { data } = useSuspenseStitch(getUser, { params: { id: 7 } }, { signal: AbortSignal.timeout(60_000) });
  return <p>{`user ${data.name}`}</p>;
}

/**
 * The profile under a scope keyed by `path`, inside a boundary and a Suspense fallback; `page`:
 * the boundary is the route's own (inside the scope, keyed by the path too, as a router's is).
 */
function Routed({ getUser, path, page }: { getUser: UserStitch; path: string; page?: boolean }) {
  const profile = <SuspendedProfile getUser={getUser} />;
  return page ? (
    <StitchScope resetKey={path}>
      <Boundary key={path}>{profile}</Boundary>
    </StitchScope>
  ) : (
    <Boundary>
      <StitchScope resetKey={path}>{profile}</StitchScope>
    </Boundary>
  );
}

describe('useSuspenseStitch', () => {
  it('suspends, then shows the data', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    render(<SuspendedProfile getUser={getUser} />, { wrapper });
    expect(screen.getByText('loading')).toBeTruthy();
    await vendor.arrival(1);

    await answer(1, { body: ada });
    expect(screen.getByText('user Ada')).toBeTruthy();
    expect(screen.queryByText('loading')).toBeNull();
    expect(vendor.requests()).toBe(1);
  });

  it('a failure goes to the error boundary, once; a retry from the boundary sends a new request', async () => {
    const { vendor, trace, wrapper, answer, clock } = await setup();
    const getUser = userStitch(vendor);
    render(<Guarded getUser={getUser} />, { wrapper });
    await vendor.arrival(1);

    await answer(1, { status: 404, body: { error: 'no such user' } });
    expect(screen.getByText('failed: http')).toBeTruthy();
    expect(caught[0]).toMatchObject({ kind: 'http', status: 404 });
    // React's own retry of the failed render did not send the request again.
    expect(trace.events.filter((event) => event.type === 'start')).toHaveLength(1);

    // Within a second, a reset shows the failure again (it may be React's own retry); after it,
    // the boundary's retry reads again.
    act(() => fireEvent.click(screen.getByText('failed: http')));
    expect(screen.getByText('failed: http')).toBeTruthy();
    expect(vendor.requests()).toBe(1);
    await act(() => clock.advance(FAILURE_SHOWN));
    act(() => fireEvent.click(screen.getByText('failed: http')));
    expect(screen.getByText('loading')).toBeTruthy();
    await vendor.arrival(2);
    await answer(2, { body: ada });
    expect(screen.getByText('user Ada')).toBeTruthy();
    expect(vendor.requests()).toBe(2);
  });

  it('a failure reaches the boundary sent once when React retries the failed render after a slow one', async () => {
    const { vendor, wrapper, clock } = await setup();
    const getUser = userStitch(vendor);
    // Rendered as a browser renders, without act(): the boundary's slow error page makes React's
    // concurrent render yield before it renders the failed component again.
    const environment = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
    const acting = environment.IS_REACT_ACT_ENVIRONMENT;
    environment.IS_REACT_ACT_ENVIRONMENT = false;
    onTestFinished(() => {
      environment.IS_REACT_ACT_ENVIRONMENT = acting;
    });
    const container = document.body.appendChild(document.createElement('div'));
    const root = createRoot(container);
    onTestFinished(() => root.unmount());
    const Wrapper = wrapper;
    root.render(
      <Wrapper>
        {/* Its error page renders for longer than React's 5 ms time slice: React yields after it. */}
        <Boundary slow={20}>
          <SuspendedProfile getUser={getUser} />
        </Boundary>
      </Wrapper>,
    );
    await vendor.arrival(1);
    vendor.release(1, { status: 404, body: { error: 'no such user' } });
    await shows(container, 'failed: http');
    expect(vendor.requests()).toBe(1);
    expect(clock.pending()).toBe(1);
  });

  // Rendered once the run has settled (its promises flushed), or as the act ends, before the run's
  // rejection has gone through them: either way the error says what the read it ended had sent.
  it.each([
    ['once the read it ended has settled', (abort: () => void) => actAtOnce(abort)],
    ['before the read it ended has settled', (abort: () => void) => act(async () => abort())],
  ])(
    'an abort of its signal, rendered %s, reaches the error boundary with the reason intact and what the read sent, and closes the socket',
    async (_, rendered) => {
      const { vendor, wrapper } = await setup();
      const getUser = userStitch(vendor);
      const route = new AbortController();
      render(<Guarded getUser={getUser} signal={route.signal} />, { wrapper });
      await vendor.arrival(1);
      const reason = new Error('user navigated away');
      await rendered(() => route.abort(reason));
      expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
      await screen.findByText('failed: aborted');
      expect((caught[0] as StitchError).cause).toBe(reason);
      // What the read it ended had sent, as useStitch's error says it: a request on the wire.
      expect(caught[0]).toMatchObject({
        attempts: 1,
        requests: 1,
        dispatched: true,
        ambiguous: true,
        url: vendor.url('/users/7'),
      });
    },
  );

  it('one route signal ending the reads of two keys: each boundary’s error says what its own read sent', async () => {
    const { vendor, wrapper } = await setup();
    const getUser = userStitch(vendor);
    const route = new AbortController();
    const reader = (id: number) => (
      <Boundary>
        <Suspense fallback={<p>loading</p>}>
          <ProfileOf getUser={getUser} id={id} signal={route.signal} />
        </Suspense>
      </Boundary>
    );
    render(
      <>
        {reader(7)}
        {reader(8)}
      </>,
      { wrapper },
    );
    await vendor.arrival(2);
    await actAtOnce(() => route.abort(new Error('left')));
    // Each boundary renders its error more than once: the distinct ones are each read's own.
    const urls = [...new Set(caught.map((error) => (error as StitchError).url))].sort();
    expect(urls).toEqual([vendor.url('/users/7'), vendor.url('/users/8')]);
  });

  it('a new signal handed while suspended takes over: the old one no longer counts, the new one aborts', async () => {
    const { vendor, wrapper } = await setup();
    const getUser = userStitch(vendor);
    const [first, second] = [new AbortController(), new AbortController()];
    const page = (signal: AbortSignal) => <Guarded getUser={getUser} signal={signal} />;
    const { rerender } = render(page(first.signal), { wrapper });
    await vendor.arrival(1);
    await actAtOnce(() => rerender(page(second.signal)));
    await actAtOnce(() => first.abort(new Error('the old route')));
    expect(screen.getByText('loading')).toBeTruthy();
    expect(vendor.ledger[0]).toMatchObject({ hungUp: false });

    const reason = new Error('the new route');
    await actAtOnce(() => second.abort(reason));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(screen.getByText('failed: aborted')).toBeTruthy();
    expect((caught[0] as StitchError).cause).toBe(reason);
    expect(vendor.requests()).toBe(1);
  });

  it.each([
    ['the reader without a signal', false],
    ['the reader with the signal', true],
  ])(
    'two readers of a key, %s rendered last: an abort of one’s signal reaches its own boundary only, the other keeps the read',
    async (_, signalLast) => {
      const { vendor, wrapper, answer } = await setup();
      const getUser = userStitch(vendor);
      const route = new AbortController();
      const reader = (name: string, signal?: AbortSignal) => (
        <Boundary key={name}>
          <Suspense fallback={<p>loading</p>}>
            <Profile getUser={getUser} signal={signal} />
          </Suspense>
        </Boundary>
      );
      const [plain, routed] = [reader('plain'), reader('routed', route.signal)];
      render(<>{signalLast ? [plain, routed] : [routed, plain]}</>, { wrapper });
      await vendor.arrival(1);
      const reason = new Error('the route was left');
      await actAtOnce(() => route.abort(reason));
      expect(screen.getByText('failed: aborted')).toBeTruthy();
      expect((caught[0] as StitchError).cause).toBe(reason);
      expect(vendor.ledger[0]).toMatchObject({ hungUp: false });
      await answer(1, { body: ada });
      expect(screen.getByText('user Ada')).toBeTruthy();
      expect(vendor.requests()).toBe(1);
    },
  );

  it('a signal made per render (AbortSignal.timeout inline): a failure reaches the boundary once, sent once', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    render(<Guarded getUser={getUser} timed />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { status: 500, body: { error: 'boom' } });
    await act(flushMicrotasks);
    expect(screen.getByText('failed: http')).toBeTruthy();
    expect(vendor.requests()).toBe(1);
  });

  it('after its signal aborted the read, a boundary reset on a new signal reads again', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const page = (signal: AbortSignal) => <Guarded getUser={getUser} signal={signal} />;
    const left = new AbortController();
    const { rerender } = render(page(left.signal), { wrapper });
    await vendor.arrival(1);
    await actAtOnce(() => left.abort(new Error('the route was left')));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(screen.getByText('failed: aborted')).toBeTruthy();

    rerender(page(new AbortController().signal));
    act(() => fireEvent.click(screen.getByText('failed: aborted')));
    await vendor.arrival(2);
    await answer(2, { body: ada });
    expect(screen.getByText('user Ada')).toBeTruthy();
    expect(vendor.requests()).toBe(2);
  });

  it('shows the key’s data as soon as another request brings it, not only its own request’s', async () => {
    const { vendor, engine, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    render(<Guarded getUser={getUser} />, { wrapper });
    await vendor.arrival(1);
    render(<Reader getUser={getUser} />, { wrapper });
    // The write invalidates the key: the mounted reader refetches, not joining request 1.
    await actAtOnce(() => engine.invalidate(getUser, { params: { id: 7 } }));
    await vendor.arrival(2);
    await answer(2, { body: ada });
    expect(screen.getByText('user Ada')).toBeTruthy();
  });

  it('a StitchScope reset while suspended aborts the request; the read restarts on the new scope', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const { rerender } = render(<Routed getUser={getUser} path="/a" />, { wrapper });
    await vendor.arrival(1);

    await actAtOnce(() => rerender(<Routed getUser={getUser} path="/b" />));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });
    await act(flushMicrotasks);
    // The reset is not this read's failure: it suspends again, on a new request.
    expect(caught).toEqual([]);
    expect(screen.getByText('loading')).toBeTruthy();
    expect(await vendor.arrival(2)).toMatchObject({ path: '/users/7' });
    await answer(2, { body: ada });
    expect(screen.getByText('user Ada')).toBeTruthy();
    expect(vendor.requests()).toBe(2);
  });

  it('a route change right after a failure reads again on the new scope, with the route’s new boundary', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const { rerender } = render(<Routed getUser={getUser} path="/a" page />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { status: 500, body: 'down' });
    expect(screen.getByText('failed: http')).toBeTruthy();

    // Within the failure's second: the new route's scope and boundary come in one render.
    await actAtOnce(() => rerender(<Routed getUser={getUser} path="/b" page />));
    expect(screen.getByText('loading')).toBeTruthy();
    await vendor.arrival(2);
    await answer(2, { body: ada });
    expect(screen.getByText('user Ada')).toBeTruthy();
  });

  it('an invalidation while suspended lets go of the read (hung up) and reads anew at once', async () => {
    const { vendor, engine, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    render(<SuspendedProfile getUser={getUser} />, { wrapper });
    await vendor.arrival(1);
    await actAtOnce(() => engine.invalidate(getUser));
    // Its answer would predate the write: not waited for.
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });
    await vendor.arrival(2);
    expect(screen.getByText('loading')).toBeTruthy();
    await answer(2, { body: ada });
    expect(screen.getByText('user Ada')).toBeTruthy();
    expect(vendor.requests()).toBe(2);
  });

  it('an invalidation refetches in the background, without suspending; one request under StrictMode', async () => {
    const { vendor, engine, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const ui = <SuspendedProfile getUser={getUser} />;
    const { unmount } = renderStrict(ui, wrapper);
    await vendor.arrival(1);
    await answer(1, { body: ada });
    expect(screen.getByText('user Ada')).toBeTruthy();

    await actAtOnce(() => engine.invalidate(getUser));
    expect(await vendor.arrival(2)).toMatchObject({ path: '/users/7' });
    // The invalidated data stays on screen while it refreshes.
    expect(screen.getByText('user Ada')).toBeTruthy();
    await answer(2, { body: { id: 7, name: 'Ada Lovelace' } });
    expect(screen.getByText('user Ada Lovelace')).toBeTruthy();
    expect(vendor.requests()).toBe(2);

    // Unmounted while a refresh is in flight: the request is let go, its socket closed.
    await actAtOnce(() => engine.invalidate(getUser));
    await vendor.arrival(3);
    unmount();
    expect(await vendor.hangUp(3)).toMatchObject({ hungUp: true, answered: false });
    expect(vendor.requests()).toBe(3);
  });

  it('mounting on a key invalidated while nobody read it shows the data and refetches it', async () => {
    const { vendor, engine, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const first = getUser({ params: { id: 7 } }, { engine });
    await vendor.arrival(1);
    vendor.release(1, { body: ada });
    await first;
    engine.invalidate(getUser);

    render(<SuspendedProfile getUser={getUser} />, { wrapper });
    expect(screen.getByText('user Ada')).toBeTruthy();
    await vendor.arrival(2);
    await answer(2, { body: { id: 7, name: 'Ada Lovelace' } });
    expect(screen.getByText('user Ada Lovelace')).toBeTruthy();
    expect(vendor.requests()).toBe(2);
  });

  it.each([
    ['no cache ttl (0)', undefined, 0],
    ['data older than its cache ttl', { ttl: 60_000 }, 60_000],
  ])('mounting on %s shows the data and refreshes it in the background, once', async (_, cache, age) => {
    const { vendor, engine, clock, wrapper, answer } = await setup();
    const getUser = userStitch(vendor, cache);
    const first = renderStrict(<SuspendedProfile getUser={getUser} />, wrapper);
    await vendor.arrival(1);
    await answer(1, { body: ada });
    // Its own suspended read brought the data: shown, nothing sent again.
    expect(screen.getByText('user Ada')).toBeTruthy();
    first.unmount();
    await clock.advance(age);

    renderStrict(<SuspendedProfile getUser={getUser} />, wrapper);
    expect(screen.getByText('user Ada')).toBeTruthy();
    await vendor.arrival(2);
    await answer(2, { body: { id: 7, name: 'Ada Lovelace' } });
    expect(screen.getByText('user Ada Lovelace')).toBeTruthy();
    expect(vendor.requests()).toBe(2);
    expect(engine.getSnapshot(engine.keyOf(getUser, { params: { id: 7 } }) as string).fetching).toBe(false);
  });

  it('mounting on data younger than its cache ttl shows it and sends nothing', async () => {
    const { vendor, clock, wrapper, answer } = await setup();
    const getUser = userStitch(vendor, { ttl: 60_000 });
    const ui = <SuspendedProfile getUser={getUser} />;
    const first = render(ui, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    first.unmount();
    await clock.advance(59_999);
    render(ui, { wrapper });
    await act(flushMicrotasks);
    expect(screen.getByText('user Ada')).toBeTruthy();
    expect(vendor.requests()).toBe(1);
  });
});
