/**
 * SPEC §3, `StitchScope`: a change of `resetKey` (a route change) aborts every reference of its
 * subtree, and only those: hooks below restart on the new scope without showing the abort, work
 * started in an event handler with `useStitchScope()` is aborted, and anything outside the scope
 * keeps its request.
 */
import { act, fireEvent, render, screen } from '@testing-library/react';
import * as React from 'react';
import { type ReactNode, Suspense, useState, useTransition } from 'react';
import { describe, expect, it } from 'vitest';
import { type Engine, type SafeResult, type Stitch, type StitchInput, stitch } from '../../src/index';
import {
  type QueryResult,
  StitchScope,
  useStitchMutation,
  useStitchScope,
  useSuspenseStitch,
} from '../../src/react/index';
import { uniqueKey } from '../helpers/keys';
import type { Vendor } from '../helpers/vendor';
import { Boundary } from './boundary';
import { actAtOnce, flushMicrotasks, type Recorder, recorder, renderStrict, setup } from './harness';
import { Reader, type User, type UserStitch, userStitch } from './users';

type Charge = Stitch<{ id: string }, StitchInput>;

const chargeStitch = (vendor: Vendor): Charge =>
  stitch<{ id: string }, StitchInput>({
    name: uniqueKey('charge'),
    method: 'POST',
    url: vendor.url('/charges'),
    idempotency: true,
  });

type Shown = Recorder<QueryResult<User>>;

/** User 1 read inside a scope keyed by `path`, user 2 read outside it. */
function Split({
  getUser,
  path,
  inside,
  outside,
}: {
  getUser: UserStitch;
  path: string;
  inside: Shown;
  outside: Shown;
}) {
  return (
    <>
      <StitchScope resetKey={path}>
        <Reader getUser={getUser} id={1} shown={inside} />
      </StitchScope>
      <Reader getUser={getUser} id={2} shown={outside} />
    </>
  );
}

/** A button that starts a charge on the nearest scope's signal; each run lands in `runs`. */
function PayButton({
  charge,
  engine,
  runs,
}: {
  charge: Charge;
  engine: Engine;
  runs: Array<Promise<SafeResult<unknown>>>;
}) {
  const signal = useStitchScope();
  return (
    <button type="button" onClick={() => runs.push(charge({ body: {} }, { engine, signal }).safe())}>
      pay
    </button>
  );
}

/** A component holding a mutation, recording what it renders. */
function Payment({
  charge,
  shown,
}: {
  charge: Charge;
  shown: Recorder<ReturnType<typeof useStitchMutation>>;
}) {
  shown.record(useStitchMutation(charge));
  return null;
}

/** User 1 read under a scope nested, with a key that never changes, in one keyed by `path`. */
function Nested({ getUser, path, shown }: { getUser: UserStitch; path: string; shown: Shown }) {
  return (
    <StitchScope resetKey={path}>
      <StitchScope resetKey="always the same">
        <Reader getUser={getUser} id={1} shown={shown} />
      </StitchScope>
    </StitchScope>
  );
}

/** The number of the request for `path`, once it has arrived. */
/** Suspends on user `id` (the page a navigation goes to). */
function Suspending({ getUser, id }: { getUser: UserStitch; id: number }) {
  const { data } = useSuspenseStitch(getUser, { params: { id } });
  return <p>{`page ${data.name}`}</p>;
}

/** Reads user 1 inside a scope keyed by the path; page `b` suspends on user 2. */
function Navigation({
  getUser,
  go,
}: {
  getUser: UserStitch;
  go: { to: (path: string, transition: boolean) => void };
}) {
  const [path, setPath] = useState('a');
  const [, startTransition] = useTransition();
  go.to = (next, transition) => (transition ? startTransition(() => setPath(next)) : setPath(next));
  return (
    <Suspense fallback={<p>loading</p>}>
      <StitchScope resetKey={path}>
        <Reader getUser={getUser} id={1} />
        {path === 'b' ? <Suspending getUser={getUser} id={2} /> : null}
      </StitchScope>
    </Suspense>
  );
}

/**
 * {@link Navigation} with an error boundary around its page, and a clock whose ticks re-render
 * the route on screen (`go.tick`), as an urgent update does while a navigation is pending.
 */
function TickingNavigation({
  getUser,
  go,
}: {
  getUser: UserStitch;
  go: { to: (path: string) => void; tick: () => void };
}) {
  const [path, setPath] = useState('a');
  const [ticks, setTicks] = useState(0);
  const [, startTransition] = useTransition();
  go.to = (next) => startTransition(() => setPath(next));
  go.tick = () => setTicks((n) => n + 1);
  return (
    <Suspense fallback={<p>loading</p>}>
      <p>{`tick ${ticks}`}</p>
      <StitchScope resetKey={path}>
        <Boundary>{path === 'b' ? <Suspending getUser={getUser} id={2} /> : <p>page a</p>}</Boundary>
      </StitchScope>
    </Suspense>
  );
}

/** React 19.2's `<Activity>`, which React 18 does not have. */
const Activity = (
  React as { Activity?: (props: { mode: 'visible' | 'hidden'; children: ReactNode }) => ReactNode }
).Activity;

const requestFor = (vendor: Vendor, path: string) =>
  vendor.ledger.findIndex((entry) => entry.path === path) + 1;

/** Waits until the vendor has `count` requests, in whatever order they came. */
async function arrivals(vendor: Vendor, count: number) {
  for (let n = 1; n <= count; n++) await vendor.arrival(n);
}

describe('a reset aborts only its own subtree', () => {
  it('the hook inside is hung up and restarts; the hook outside keeps its request and gets the data', async () => {
    const { vendor, trace, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const shown = { inside: recorder<QueryResult<User>>(), outside: recorder<QueryResult<User>>() };
    const { rerender } = render(<Split getUser={getUser} path="/a" {...shown} />, { wrapper });
    await arrivals(vendor, 2);
    const inside = requestFor(vendor, '/users/1');
    const outside = requestFor(vendor, '/users/2');

    await actAtOnce(() => rerender(<Split getUser={getUser} path="/b" {...shown} />));
    // One reference was let go: the inside hook's (the outside one kept its own).
    const cancels = trace.events.filter((event) => event.type === 'cancel');
    expect(cancels).toHaveLength(1);
    expect(
      trace.events.find((event) => event.run === cancels[0]?.run && event.type === 'start'),
    ).toMatchObject({
      url: vendor.url('/users/1'),
    });
    expect(await vendor.hangUp(inside)).toMatchObject({ path: '/users/1', hungUp: true });
    // The hook inside restarts on the new scope, for the same key.
    expect(await vendor.arrival(3)).toMatchObject({ path: '/users/1' });
    expect(vendor.ledger[outside - 1]).toMatchObject({ hungUp: false, answered: false });

    await answer(outside, { body: { id: 2, name: 'Grace' } });
    expect(shown.outside.last).toMatchObject({ status: 'success', data: { id: 2, name: 'Grace' } });
    await expect(vendor.hangUp(outside)).rejects.toThrow('was answered, not hung up');
    await answer(3, { body: { id: 1, name: 'Ada' } });
    expect(shown.inside.last).toMatchObject({ status: 'success', data: { id: 1, name: 'Ada' } });
    // The reset was never shown as an error.
    expect(shown.inside.renders.map((q) => q.status)).not.toContain('error');
    expect(vendor.requests()).toBe(3);
  });

  it('two hooks inside reading one key: its request is hung up and sent once on the new scope', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const shown = recorder<QueryResult<User>>();
    const page = (path: string) => (
      <StitchScope resetKey={path}>
        <Reader getUser={getUser} id={1} shown={shown} />
        <Reader getUser={getUser} id={1} />
      </StitchScope>
    );
    const { rerender } = render(page('/a'), { wrapper });
    await vendor.arrival(1);

    await actAtOnce(() => rerender(page('/b')));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    await vendor.arrival(2);
    await answer(2, { body: { id: 1, name: 'Ada' } });
    expect(shown.last).toMatchObject({ status: 'success', data: { id: 1, name: 'Ada' } });
    expect(shown.renders.map((q) => q.status)).not.toContain('error');
    expect(vendor.requests()).toBe(2);
  });

  it('a navigation in a transition undone before it commits resets nothing: the page on screen keeps its request', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const go = { to: (_path: string, _transition: boolean) => {} };
    render(<Navigation getUser={getUser} go={go} />, { wrapper });
    await vendor.arrival(1);
    act(() => go.to('b', true));
    await vendor.arrival(2);
    await act(flushMicrotasks);
    act(() => go.to('a', false));
    await act(flushMicrotasks);
    // The read on screen is answered: it was never hung up, nor sent again.
    await answer(1, { body: { id: 1, name: 'Ada' } });
    expect(screen.getByText('success Ada')).toBeTruthy();
    expect(vendor.ledger.map((entry) => [entry.path, entry.answered, entry.hungUp])).toEqual([
      ['/users/1', true, false],
      ['/users/2', false, false],
    ]);
  });

  it.skipIf(!Activity)('hidden and shown again (<Activity>): its subtree reads on a live scope', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const Shown = Activity as NonNullable<typeof Activity>;
    const page = (mode: 'visible' | 'hidden', more: boolean) => (
      <Shown mode={mode}>
        <StitchScope resetKey="/a">
          <Reader getUser={getUser} id={1} />
          {more ? <Reader getUser={getUser} id={2} testId="more" /> : null}
        </StitchScope>
      </Shown>
    );
    const { rerender } = render(page('visible', false), { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: { id: 1, name: 'Ada' } });
    await actAtOnce(() => rerender(page('hidden', false)));
    await actAtOnce(() => rerender(page('visible', false)));
    await actAtOnce(() => rerender(page('visible', true)));
    // Shown again, the subtree's effects run again: user 1 is read again too, on the live scope.
    await vendor.arrival(3);
    await answer(requestFor(vendor, '/users/2'), { body: { id: 2, name: 'Grace' } });
    expect(screen.getByTestId('more').textContent).toBe('success Grace');
  });

  it('a navigation that fails, with an urgent update while it was pending: sent once, its failure shown', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const go = { to: (_path: string) => {}, tick: () => {} };
    render(<TickingNavigation getUser={getUser} go={go} />, { wrapper });
    act(() => go.to('b'));
    await vendor.arrival(1);
    await act(async () => go.tick());
    expect(screen.getByText('page a')).toBeTruthy();
    await answer(1, { status: 404, body: { error: 'gone' } });
    expect(await screen.findByText('failed: http')).toBeTruthy();
    expect(vendor.requests()).toBe(1);
  });

  it("work started in an event handler with useStitchScope()'s signal is aborted on reset", async () => {
    const { vendor, engine, wrapper } = await setup();
    const charge = chargeStitch(vendor);
    const runs: Array<Promise<SafeResult<unknown>>> = [];
    const ui = (path: string) => (
      <StitchScope resetKey={path}>
        <PayButton charge={charge} engine={engine} runs={runs} />
      </StitchScope>
    );
    const { rerender } = render(ui('/checkout'), { wrapper });
    fireEvent.click(screen.getByText('pay'));
    await vendor.arrival(1);

    rerender(ui('/home'));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    const result = await runs[0];
    expect(result?.error).toMatchObject({ kind: 'aborted', dispatched: true, ambiguous: true });
    expect(result?.error?.cause).toMatchObject({ name: 'AbortError', message: 'The scope was reset' });
  });

  it('a mutation in flight inside the scope is aborted on reset', async () => {
    const { vendor, wrapper } = await setup();
    const charge = chargeStitch(vendor);
    const mutations = recorder<ReturnType<typeof useStitchMutation>>();
    const ui = (path: string) => (
      <StitchScope resetKey={path}>
        <Payment charge={charge} shown={mutations} />
      </StitchScope>
    );
    const { rerender } = render(ui('/checkout'), { wrapper });
    act(() => mutations.last.mutate({ body: {} }));
    await vendor.arrival(1);
    await actAtOnce(() => rerender(ui('/home')));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    await act(flushMicrotasks);
    expect(mutations.last).toMatchObject({ status: 'error', error: { kind: 'aborted', dispatched: true } });
  });

  it("an outer scope's reset resets a nested scope: its hooks are hung up and restart", async () => {
    const { vendor, trace, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const shown = recorder<QueryResult<User>>();
    const { rerender } = render(<Nested getUser={getUser} path="/a" shown={shown} />, { wrapper });
    await vendor.arrival(1);

    await actAtOnce(() => rerender(<Nested getUser={getUser} path="/b" shown={shown} />));
    // Released by the time the reset has committed, before any socket event.
    expect(trace.events.filter((event) => event.type === 'cancel')).toHaveLength(1);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    await vendor.arrival(2);
    await answer(2, { body: { id: 1, name: 'Ada' } });
    expect(shown.last).toMatchObject({ status: 'success', data: { id: 1, name: 'Ada' } });
    expect(shown.renders.map((q) => q.status)).not.toContain('error');
  });

  it('a StrictMode mount of a scope aborts nothing', async () => {
    const { vendor, trace, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const shown = recorder<QueryResult<User>>();
    renderStrict(
      <StitchScope resetKey="/a">
        <Reader getUser={getUser} id={1} shown={shown} />
      </StitchScope>,
      wrapper,
    );
    await vendor.arrival(1);
    await answer(1, { body: { id: 1, name: 'Ada' } });
    expect(shown.last).toMatchObject({ status: 'success' });
    expect(vendor.requests()).toBe(1);
    expect(trace.events.filter((event) => event.type === 'cancel')).toHaveLength(0);
  });

  it('unmounting the scope aborts its subtree', async () => {
    const { vendor, engine, wrapper } = await setup();
    const charge = chargeStitch(vendor);
    const runs: Array<Promise<SafeResult<unknown>>> = [];
    const { rerender } = render(
      <StitchScope>
        <PayButton charge={charge} engine={engine} runs={runs} />
      </StitchScope>,
      { wrapper },
    );
    fireEvent.click(screen.getByText('pay'));
    await vendor.arrival(1);
    rerender(<p>elsewhere</p>);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect((await runs[0])?.error?.cause).toMatchObject({ message: 'The scope unmounted' });
  });
});
