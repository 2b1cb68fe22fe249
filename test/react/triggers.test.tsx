/**
 * Refetch triggers of `useStitch` (SPEC §8): polling on the engine's clock that never overlaps
 * itself, pauses while the app is hidden or offline and whose request in flight is hung up on unmount or
 * re-key; focus and reconnect from injected sources, one coalesced request however many read the
 * key; provider defaults. Against the real vendor, time moved by the manual clock.
 */
import { act, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { stitch } from '../../src/index';
import { type QueryResult, StitchProvider, type UseStitchOptions } from '../../src/react/index';
import { uniqueKey } from '../helpers/keys';
import { actAtOnce, type Harness, recorder, renderStrict, setup } from './harness';
import { manualFocus, manualOnline } from './sources';
import { ada, Reader, type User, type UserInput, type UserStitch, userStitch } from './users';

const renamed: User = { id: 7, name: 'Ada Lovelace' };

/** The harness, with hand-driven focus and network sources (and `defaults`) on its provider. */
async function setupTriggers(defaults?: UseStitchOptions<User>) {
  const harness = await setup();
  const focus = manualFocus();
  const online = manualOnline();
  const wrapper = ({ children }: { children?: ReactNode }) => (
    <StitchProvider engine={harness.engine} focusSource={focus} onlineSource={online} defaults={defaults}>
      {children}
    </StitchProvider>
  );
  const starts = () => harness.trace.events.filter((event) => event.type === 'start').length;
  const requests = () => harness.trace.events.filter((event) => event.type === 'request').length;
  return { ...harness, focus, online, wrapper, starts, requests };
}

/**
 * A reader below a nested provider whose `defaults` turn on `refetchOnFocus`, its first request
 * answered with Ada; resolves to its stitch.
 */
async function readBelowFocusDefaults(harness: Awaited<ReturnType<typeof setupTriggers>>) {
  const { vendor, answer, wrapper } = harness;
  const getUser = userStitch(vendor);
  render(
    <StitchProvider defaults={{ refetchOnFocus: true }}>
      <Reader getUser={getUser} />
    </StitchProvider>,
    { wrapper },
  );
  await vendor.arrival(1);
  await answer(1, { body: ada });
  return getUser;
}

function Readers({
  getUser,
  count,
  options,
}: {
  getUser: UserStitch;
  count: number;
  options?: UseStitchOptions<User>;
}) {
  return (
    <>
      {Array.from({ length: count }, (_, i) => `r${i}`).map((id) => (
        <Reader key={id} getUser={getUser} testId={id} options={options} />
      ))}
    </>
  );
}

/** Readers of user 7 polling every second, one per id; `unrecorded` shows nothing to `shown`. */
function Pollers({
  getUser,
  ids,
  shown,
  unrecorded,
}: {
  getUser: UserStitch;
  ids: string[];
  shown: ReturnType<typeof recorder<QueryResult<User>>>;
  unrecorded: string;
}) {
  return (
    <>
      {ids.map((id) => (
        <Reader
          key={id}
          getUser={getUser}
          testId={id}
          shown={id === unrecorded ? undefined : shown}
          options={{ refetchInterval: 1_000 }}
        />
      ))}
    </>
  );
}

const texts = (count: number) =>
  Array.from({ length: count }, (_, i) => screen.getByTestId(`r${i}`).textContent);

/** Mounts one polling reader of user 7 and lets its first request be answered with `ada`. */
async function firstAnswered(
  harness: Harness & { wrapper: Harness['wrapper'] },
  getUser: UserStitch,
  options: UseStitchOptions<User> = {},
) {
  const shown = recorder<QueryResult<User>>();
  const view = render(
    <Reader getUser={getUser} shown={shown} options={{ refetchInterval: 1_000, ...options }} />,
    { wrapper: harness.wrapper },
  );
  await harness.vendor.arrival(1);
  // No poll is scheduled while a request for the key is in flight.
  expect(harness.clock.pending()).toBe(0);
  await harness.answer(1, { body: ada });
  expect(harness.clock.pending()).toBe(1);
  return { ...view, shown };
}

describe('refetchInterval', () => {
  it('polls a period after each settled request: a slow poll holds the next one back', async () => {
    const harness = await setupTriggers();
    const { vendor, clock, answer, starts } = harness;
    const getUser = userStitch(vendor);
    const { shown } = await firstAnswered(harness, getUser);

    await act(() => clock.advance(1_000));
    await vendor.arrival(2);
    // The data stays on screen while the poll runs.
    expect(shown.last).toMatchObject({ status: 'success', data: ada, isFetching: true, error: null });
    // The vendor holds the poll: however long, no second poll starts beside it.
    await act(() => clock.advance(60_000));
    expect(starts()).toBe(2);
    expect(clock.pending()).toBe(0);

    await answer(2, { body: renamed });
    expect(shown.last).toMatchObject({ status: 'success', data: renamed, isFetching: false });
    await act(() => clock.advance(999));
    expect(starts()).toBe(2);
    await act(() => clock.advance(1));
    await vendor.arrival(3);
    expect(starts()).toBe(3);
    expect(vendor.ledger.map((entry) => entry.hungUp)).toEqual([false, false, false]);
    expect(shown.renders.map((q) => q.status)).not.toContain('error');
    // Polling adds no reader of its own to the cache entry: the hook is still one.
    const readers: number[] = [];
    const stop = harness.engine.inspect((event) => {
      if (event.type === 'cache') readers.push(event.readers);
    });
    stop();
    expect(readers).toEqual([1]);
  });

  it('under StrictMode, a mount on fresh data arms one timer, and each period sends one request', async () => {
    const { vendor, engine, clock, wrapper, starts } = await setupTriggers();
    const getUser = userStitch(vendor);
    const key = engine.keyOf(getUser, { params: { id: 7 } }) as string;
    engine.hydrate({ version: 1, entries: [[key, ada, clock.now()]] });
    renderStrict(
      <Reader getUser={getUser} options={{ refetchInterval: 1_000, staleTime: 60_000 }} />,
      wrapper,
    );
    expect(clock.pending()).toBe(1);
    await act(() => clock.advance(1_000));
    await vendor.arrival(1);
    expect(starts()).toBe(1);
    expect(clock.pending()).toBe(0);
  });

  it('a failed poll shows as the error, keeps the data, and the polling goes on', async () => {
    const harness = await setupTriggers();
    const { vendor, clock, answer } = harness;
    const getUser = userStitch(vendor);
    const { shown } = await firstAnswered(harness, getUser);
    await act(() => clock.advance(1_000));
    await vendor.arrival(2);
    await answer(2, { status: 503, body: { down: true } });
    expect(shown.last.status).toBe('error');
    expect(shown.last).toMatchObject({ data: ada, error: { kind: 'http', status: 503 } });
    expect(clock.pending()).toBe(1);
    await act(() => clock.advance(1_000));
    await vendor.arrival(3);
    await answer(3, { body: renamed });
    expect(shown.last).toMatchObject({ status: 'success', data: renamed, error: null });
  });

  it('a poll in flight is hung up on unmount, shows no error, and leaves no timer', async () => {
    const harness = await setupTriggers();
    const { vendor, clock } = harness;
    const getUser = userStitch(vendor);
    const { shown, unmount } = await firstAnswered(harness, getUser);
    await act(() => clock.advance(1_000));
    await vendor.arrival(2);

    unmount();
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true, answered: false });
    expect(clock.pending()).toBe(0);
    expect(shown.renders.map((q) => q.status)).not.toContain('error');
  });

  it('a poll in flight is hung up on re-key; the new key is read, then polled', async () => {
    const harness = await setupTriggers();
    const { vendor, clock, answer } = harness;
    const getUser = userStitch(vendor);
    const { shown, rerender } = await firstAnswered(harness, getUser);
    await act(() => clock.advance(1_000));
    await vendor.arrival(2);

    rerender(<Reader getUser={getUser} id={8} shown={shown} options={{ refetchInterval: 1_000 }} />);
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true, answered: false });
    expect((await vendor.arrival(3)).path).toBe('/users/8');
    await answer(3, { body: { id: 8, name: 'Grace' } });
    expect(shown.last).toMatchObject({ status: 'success', data: { id: 8, name: 'Grace' } });
    expect(shown.renders.map((q) => q.status)).not.toContain('error');
    await act(() => clock.advance(1_000));
    expect((await vendor.arrival(4)).path).toBe('/users/8');
  });

  it('pauses while the app is hidden (a poll settling meanwhile schedules none) and resumes when visible', async () => {
    const harness = await setupTriggers();
    const { vendor, clock, focus, answer, starts } = harness;
    const getUser = userStitch(vendor);
    await firstAnswered(harness, getUser);
    await act(() => clock.advance(1_000));
    await vendor.arrival(2);

    await actAtOnce(() => focus.set(false));
    await answer(2, { body: renamed });
    expect(clock.pending()).toBe(0);
    await act(() => clock.advance(60_000));
    expect(starts()).toBe(2);

    // Becoming visible is not itself a refetch here (refetchOnFocus is off): the next poll is a period away.
    await actAtOnce(() => focus.set(true));
    expect(starts()).toBe(2);
    expect(clock.pending()).toBe(1);
    await act(() => clock.advance(1_000));
    await vendor.arrival(3);
    expect(starts()).toBe(3);
  });

  it('pauses while offline (a poll settling meanwhile schedules none); back online, refetchOnReconnect refetches at once and polling takes up again', async () => {
    const harness = await setupTriggers();
    const { vendor, clock, online, answer, starts } = harness;
    const getUser = userStitch(vendor);
    await firstAnswered(harness, getUser, { refetchOnReconnect: true });
    await act(() => clock.advance(1_000));
    await vendor.arrival(2);

    await actAtOnce(() => online.set(false));
    await answer(2, { body: renamed });
    expect(clock.pending()).toBe(0);
    await act(() => clock.advance(60_000));
    expect(starts()).toBe(2);

    await actAtOnce(() => online.set(true));
    await vendor.arrival(3);
    await answer(3, { body: ada });
    expect(clock.pending()).toBe(1);
    await act(() => clock.advance(1_000));
    await vendor.arrival(4);
    expect(starts()).toBe(4);
  });

  it.each([
    ['the reader whose poll it is', 'r0'],
    ['the reader that joined it', 'r1'],
  ])('a poll shared by two pollers of a key survives the unmount of %s', async (_, leaving) => {
    const harness = await setupTriggers();
    const { vendor, clock, answer, wrapper, requests } = harness;
    const getUser = userStitch(vendor);
    const shown = recorder<QueryResult<User>>();
    const pollers = (ids: string[]) => (
      <Pollers getUser={getUser} ids={ids} shown={shown} unrecorded={leaving} />
    );
    const view = render(pollers(['r0', 'r1']), { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    // Both pollers are due at once: one of them sends, the other joins its request.
    await act(() => clock.advance(1_000));
    await vendor.arrival(2);
    expect(requests()).toBe(2);

    view.rerender(pollers(['r0', 'r1'].filter((id) => id !== leaving)));
    await answer(2, { body: renamed });
    expect(vendor.ledger[1]).toMatchObject({ hungUp: false, answered: true });
    expect(shown.last).toMatchObject({ status: 'success', data: renamed, isFetching: false, error: null });
    // The one left polls on, and its poll in flight is its own to hang up.
    await act(() => clock.advance(1_000));
    await vendor.arrival(3);
    view.unmount();
    expect(await vendor.hangUp(3)).toMatchObject({ hungUp: true, answered: false });
    expect(requests()).toBe(3);
  });

  it("with coalesce: false a poll not due joins nothing: another poller's request is the only one", async () => {
    const harness = await setupTriggers();
    const { vendor, clock, answer, wrapper, requests } = harness;
    const getUser = stitch<User, UserInput>({
      name: uniqueKey('getUser'),
      url: vendor.url('/users/{id}'),
      retry: false,
      coalesce: false,
    });
    render(
      <>
        <Reader getUser={getUser} testId="fast" options={{ refetchInterval: 1_000 }} />
        <Reader getUser={getUser} testId="slow" options={{ refetchInterval: 5_000 }} />
      </>,
      { wrapper },
    );
    await vendor.arrival(2);
    await answer(1, { body: ada });
    await answer(2, { body: ada });
    for (let poll = 3; poll <= 5; poll++) {
      await act(() => clock.advance(1_000));
      await vendor.arrival(poll);
      await answer(poll, { body: renamed });
      expect(requests()).toBe(poll);
    }
    expect(screen.getByTestId('slow').textContent).toBe('success Ada Lovelace');
  });

  it('unmounting between polls cancels the next one', async () => {
    const harness = await setupTriggers();
    const { unmount } = await firstAnswered(harness, userStitch(harness.vendor));
    unmount();
    expect(harness.clock.pending()).toBe(0);
    expect(harness.focus.subscribers()).toBe(0);
  });
});

describe('refetchOnFocus and refetchOnReconnect', () => {
  it('a focus refetches once for 100 readers (provider defaults), keeping the data on screen', async () => {
    const { vendor, focus, answer, wrapper, requests } = await setupTriggers({ refetchOnFocus: true });
    const getUser = userStitch(vendor);
    render(<Readers getUser={getUser} count={100} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    expect(focus.subscribers()).toBe(100);

    await actAtOnce(() => focus.set(true));
    await vendor.arrival(2);
    expect(texts(100).every((text) => text === 'success Ada')).toBe(true);
    await answer(2, { body: renamed });
    expect(new Set(texts(100))).toEqual(new Set(['success Ada Lovelace']));
    expect(vendor.requests()).toBe(2);
    expect(requests()).toBe(2);
  });

  it('a focus while the hook’s own request is in flight neither restarts nor hangs it up', async () => {
    const { vendor, focus, answer, wrapper, starts } = await setupTriggers({ refetchOnFocus: true });
    const shown = recorder<QueryResult<User>>();
    render(<Reader getUser={userStitch(vendor)} shown={shown} />, { wrapper });
    await vendor.arrival(1);
    await actAtOnce(() => focus.set(true));
    expect(starts()).toBe(1);
    await answer(1, { body: ada });
    expect(vendor.ledger[0]).toMatchObject({ answered: true, hungUp: false });
    expect(shown.last).toMatchObject({ status: 'success', data: ada });
  });

  it('a focus does not refetch data younger than staleTime', async () => {
    const { vendor, focus, answer, wrapper, starts } = await setupTriggers();
    const getUser = userStitch(vendor);
    render(<Readers getUser={getUser} count={2} options={{ refetchOnFocus: true, staleTime: 60_000 }} />, {
      wrapper,
    });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    const before = starts();
    await actAtOnce(() => focus.set(true));
    expect(starts()).toBe(before);
    expect(focus.subscribers()).toBe(2);
  });

  it('a nested provider with defaults only keeps the enclosing engine and sources', async () => {
    const harness = await setupTriggers();
    const { vendor, focus, answer, engine } = harness;
    const getUser = await readBelowFocusDefaults(harness);
    expect(engine.getData(getUser, { params: { id: 7 } })).toEqual(ada);

    await actAtOnce(() => focus.set(true));
    await vendor.arrival(2);
    await answer(2, { body: renamed });
    expect(engine.getData(getUser, { params: { id: 7 } })).toEqual(renamed);
  });

  it("a nested provider's defaults are taken field by field over the enclosing one's", async () => {
    const harness = await setupTriggers({ refetchInterval: 1_000 });
    const { vendor, focus, answer, clock, starts } = harness;
    await readBelowFocusDefaults(harness);
    // The outer provider's polling still holds below the inner one.
    await act(() => clock.advance(1_000));
    await vendor.arrival(2);
    await answer(2, { body: ada });
    // And the inner one's focus trigger.
    await actAtOnce(() => focus.set(true));
    await vendor.arrival(3);
    await answer(3, { body: renamed });
    expect(starts()).toBe(3);
  });

  it('a hook option wins over the provider default', async () => {
    const { vendor, focus, answer, wrapper, starts } = await setupTriggers({ refetchOnFocus: true });
    const getUser = userStitch(vendor);
    render(<Reader getUser={getUser} options={{ refetchOnFocus: false }} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    await actAtOnce(() => focus.set(true));
    expect(starts()).toBe(1);
    expect(focus.subscribers()).toBe(0);
  });

  it('reconnecting refetches once for 20 readers; going offline does nothing', async () => {
    const { vendor, online, answer, wrapper, starts, requests } = await setupTriggers({
      refetchOnReconnect: true,
    });
    const getUser = userStitch(vendor);
    render(<Readers getUser={getUser} count={20} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: ada });

    await actAtOnce(() => online.set(false));
    expect(starts()).toBe(20);
    await actAtOnce(() => online.set(true));
    await vendor.arrival(2);
    await answer(2, { body: renamed });
    expect(new Set(texts(20))).toEqual(new Set(['success Ada Lovelace']));
    expect(requests()).toBe(2);
  });

  it('without a source, the document’s visibilitychange is the focus', async () => {
    const { vendor, answer, wrapper } = await setup();
    const getUser = userStitch(vendor);
    render(<Reader getUser={getUser} testId="r" options={{ refetchOnFocus: true }} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: ada });
    // happy-dom's own Event class: its document takes no other.
    const { Event: DomEvent } = document.defaultView as unknown as { Event: typeof Event };
    await actAtOnce(() => document.dispatchEvent(new DomEvent('visibilitychange')));
    await vendor.arrival(2);
    await answer(2, { body: renamed });
    expect(screen.getByTestId('r').textContent).toBe('success Ada Lovelace');
  });
});
