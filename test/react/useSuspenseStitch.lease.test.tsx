/**
 * The suspended read's lease: a read slower than `abandonAfter` that React still waits for
 * completes once (no request is cut and re-sent); a read React really abandoned is released; a
 * re-key lets go of the superseded request at once when the component had committed, and within
 * one `abandonAfter` when it never had (React keeps no identity for it). Against the real vendor,
 * on the manual clock.
 */
import { act, render, screen } from '@testing-library/react';
import { Suspense, startTransition, useDeferredValue, useState } from 'react';
import { describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index';
import { StitchProvider, useSuspenseStitch } from '../../src/react/index';
import { FAILURE_SHOWN, leasesOf } from '../../src/react/leases';
import type { ManualClock } from '../helpers/clock';
import type { Vendor } from '../helpers/vendor';
import { flushMicrotasks, type Harness, setup } from './harness';
import { type UserStitch, userStitch } from './users';

const ABANDON_AFTER = 1_000;

/** `ms` pass on the manual clock, and React renders whatever that woke. */
async function pass(clock: ManualClock, ms: number) {
  await act(async () => {
    await clock.advance(ms);
    await flushMicrotasks();
  });
}

/**
 * One `abandonAfter` passes, in its two ticks (a ping at each half), React rendering whatever
 * each woke, as a browser does between them.
 */
async function onePeriod(clock: ManualClock) {
  await pass(clock, ABANDON_AFTER / 2);
  await pass(clock, ABANDON_AFTER / 2);
}

function Profile({ getUser, id }: { getUser: UserStitch; id: number }) {
  const { data } = useSuspenseStitch(getUser, { params: { id } }, { abandonAfter: ABANDON_AFTER });
  return <p>{`user ${data.name}`}</p>;
}

/** A profile on the default `abandonAfter` (30 s): much longer than a failure is shown. */
function Patient({ getUser }: { getUser: UserStitch }) {
  const { data } = useSuspenseStitch(getUser, { params: { id: 7 } }, { abandonAfter: 30_000 });
  return <p>{`user ${data.name}`}</p>;
}

function Page({ getUser, id }: { getUser: UserStitch; id: number }) {
  return (
    <Suspense fallback={<p>loading</p>}>
      <Profile getUser={getUser} id={id} />
    </Suspense>
  );
}

/** The page, re-keyed in a transition by `controls.setId`, and rendered again by `controls.tick`. */
function Ticking({
  getUser,
  controls,
}: {
  getUser: UserStitch;
  controls: { setId: (id: number) => void; tick: () => void };
}) {
  const [id, setId] = useState(1);
  const [, setTicks] = useState(0);
  controls.setId = (next) => startTransition(() => setId(next));
  controls.tick = () => setTicks((n) => n + 1);
  return <Page getUser={getUser} id={id} />;
}

/**
 * Search as you type with React's own pattern: the results read a deferred id, and are not
 * memoised, so each keystroke renders them on the id on screen before the new one.
 */
function DeferredSearch({
  getUser,
  controls,
}: {
  getUser: UserStitch;
  controls: { type: (id: number) => void };
}) {
  const [id, setId] = useState(1);
  controls.type = setId;
  const deferred = useDeferredValue(id);
  return (
    <Suspense fallback={<p>loading</p>}>
      <Profile getUser={getUser} id={deferred} />
    </Suspense>
  );
}

/** The profile on a signal made at every render; `made` receives each render's controller. */
function PerRender({ getUser, made }: { getUser: UserStitch; made: AbortController[] }) {
  const controller = new AbortController();
  made.push(controller);
  const { data } = useSuspenseStitch(
    getUser,
    { params: { id: 7 } },
    { abandonAfter: ABANDON_AFTER, signal: controller.signal },
  );
  return <p>{`user ${data.name}`}</p>;
}

/** Mounts {@link PerRender} and waits for its request; returns each render's controller. */
async function suspendPerRender(vendor: Vendor, wrapper: Harness['wrapper']) {
  const made: AbortController[] = [];
  render(
    <Suspense fallback={<p>loading</p>}>
      <PerRender getUser={userStitch(vendor)} made={made} />
    </Suspense>,
    { wrapper },
  );
  await vendor.arrival(1);
  return made;
}

describe('the suspended read', () => {
  it('slower than abandonAfter while React waits: one request, completed, shown', async () => {
    const { vendor, clock, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    render(<Page getUser={getUser} id={7} />, { wrapper });
    await vendor.arrival(1);
    for (let period = 0; period < 6; period++) {
      await onePeriod(clock);
      expect(screen.getByText('loading')).toBeTruthy();
    }
    expect(vendor.ledger[0]).toMatchObject({ hungUp: false, answered: false });
    await answer(1, { body: { id: 7, name: 'Ada' } });
    expect(screen.getByText('user Ada')).toBeTruthy();
    expect(vendor.requests()).toBe(1);
    expect(clock.pending()).toBe(0);
  });

  it("a read that succeeded is the cache's alone: nothing of it stays with the hook (cacheSize bounds it)", async () => {
    const { vendor, engine, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const { rerender } = render(<Page getUser={getUser} id={1} />, { wrapper });
    for (let id = 1; id <= 3; id++) {
      if (id > 1) await act(async () => rerender(<Page getUser={getUser} id={id} />));
      await vendor.arrival(id);
      await answer(id, { body: { id, name: `User ${id}` } });
      expect(screen.getByText(`user User ${id}`)).toBeTruthy();
    }
    expect(leasesOf(engine).size).toBe(0);
  });

  it('abandoned by React (the tree unmounted while suspended): released within abandonAfter, after a ping nobody answered', async () => {
    const { vendor, clock, wrapper } = await setup();
    const getUser = userStitch(vendor);
    const { unmount } = render(<Page getUser={getUser} id={7} />, { wrapper });
    await vendor.arrival(1);
    unmount();
    await pass(clock, ABANDON_AFTER / 2);
    expect(vendor.ledger[0]).toMatchObject({ hungUp: false });
    await pass(clock, ABANDON_AFTER / 2);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });
    expect(vendor.requests()).toBe(1);
    expect(clock.pending()).toBe(0);
  });

  it('a committed component that re-keys while suspended lets go of the old request at once', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const { rerender } = render(<Page getUser={getUser} id={1} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: { id: 1, name: 'One' } });
    expect(screen.getByText('user One')).toBeTruthy();

    await act(async () => rerender(<Page getUser={getUser} id={2} />));
    expect(screen.getByText('loading')).toBeTruthy();
    await vendor.arrival(2);
    await act(async () => rerender(<Page getUser={getUser} id={3} />));
    await vendor.arrival(3);
    // No clock moved: the superseded request was let go by the re-key itself.
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true, answered: false });
    await answer(3, { body: { id: 3, name: 'Three' } });
    expect(screen.getByText('user Three')).toBeTruthy();
    expect(vendor.requests()).toBe(3);
  });

  it("a provider handed another engine while its component is suspended lets go of the old engine's read at once", async () => {
    const { vendor, engine, clock, answer } = await setup();
    const other = createEngine({ clock });
    const getUser = userStitch(vendor);
    const page = (on: Engine, id: number) => (
      <StitchProvider engine={on}>
        <Page getUser={getUser} id={id} />
      </StitchProvider>
    );
    const { rerender } = render(page(engine, 1));
    await vendor.arrival(1);
    await answer(1, { body: { id: 1, name: 'One' } });
    await act(async () => rerender(page(engine, 2)));
    await vendor.arrival(2);
    await act(async () => rerender(page(other, 2)));
    await vendor.arrival(3);
    // No clock moved: the old engine's read went with the engine, not within abandonAfter.
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true, answered: false });
    expect(vendor.requests()).toBe(3);
  });

  it('a component that never committed re-keys: the old request goes within one abandonAfter', async () => {
    const { vendor, clock, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const { rerender } = render(<Page getUser={getUser} id={1} />, { wrapper });
    await vendor.arrival(1);
    await act(async () => rerender(<Page getUser={getUser} id={2} />));
    await vendor.arrival(2);
    await onePeriod(clock);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });
    expect(vendor.ledger[1]).toMatchObject({ hungUp: false });
    await answer(2, { body: { id: 2, name: 'Two' } });
    expect(screen.getByText('user Two')).toBeTruthy();
    expect(vendor.requests()).toBe(2);
  });

  it('typed over with useDeferredValue: each superseded read is let go at once, the last one shown', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const controls = { type: (_id: number) => {} };
    render(<DeferredSearch getUser={getUser} controls={controls} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: { id: 1, name: 'One' } });
    for (const id of [2, 3, 4]) {
      await act(async () => controls.type(id));
      await vendor.arrival(id);
    }
    for (const id of [2, 3]) expect(await vendor.hangUp(id)).toMatchObject({ hungUp: true, answered: false });
    expect(screen.getByText('user One')).toBeTruthy();
    await answer(4, { body: { id: 4, name: 'Four' } });
    expect(screen.getByText('user Four')).toBeTruthy();
    expect(vendor.requests()).toBe(4);
  });

  it.each([
    ['re-keys', 3],
    ['unmounts', undefined],
  ])(
    'the committed reader %s while a new mount still waits on its read: the read goes on for it, sent once',
    async (_, next) => {
      const { vendor, wrapper, answer } = await setup();
      const getUser = userStitch(vendor);
      const second = (id: number | undefined) => (
        <>
          {id === undefined ? null : <Page getUser={getUser} id={id} />}
          <Page getUser={getUser} id={2} />
        </>
      );
      const { rerender } = render(<Page getUser={getUser} id={1} />, { wrapper });
      await vendor.arrival(1);
      await answer(1, { body: { id: 1, name: 'One' } });
      await act(async () => rerender(<Page getUser={getUser} id={2} />));
      await vendor.arrival(2);
      // A new reader of 2 mounts in its own boundary: it has never committed.
      await act(async () => rerender(second(2)));
      await act(async () => rerender(second(next)));
      if (next !== undefined) await vendor.arrival(next);
      expect(vendor.ledger[1]).toMatchObject({ hungUp: false });
      await answer(2, { body: { id: 2, name: 'Two' } });
      expect(screen.getAllByText('user Two').length).toBeGreaterThan(0);
      expect(vendor.requests()).toBe(next === undefined ? 2 : 3);
    },
  );

  it('an unmount of a committed, suspended component lets go of its request at once', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const { rerender, unmount } = render(<Page getUser={getUser} id={1} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: { id: 1, name: 'One' } });
    await act(async () => rerender(<Page getUser={getUser} id={2} />));
    await vendor.arrival(2);
    await act(async () => {
      unmount();
      await flushMicrotasks();
    });
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true, answered: false });
  });

  it('a re-key in a transition that suspends keeps its one request through renders of the key on screen', async () => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const controls = { setId: (_id: number) => {}, tick: () => {} };
    render(<Ticking getUser={getUser} controls={controls} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: { id: 1, name: 'One' } });
    expect(screen.getByText('user One')).toBeTruthy();

    await act(async () => controls.setId(2));
    await vendor.arrival(2);
    // Urgent renders of the page (a clock ticking) while the transition still suspends.
    for (let n = 0; n < 3; n++) await act(async () => controls.tick());
    expect(screen.getByText('user One')).toBeTruthy();
    expect(vendor.ledger[1]).toMatchObject({ hungUp: false });
    await answer(2, { body: { id: 2, name: 'Two' } });
    expect(screen.getByText('user Two')).toBeTruthy();
    expect(vendor.requests()).toBe(2);
  });

  it('on a signal made per render: a render per ping, one request; when they all abort it is hung up', async () => {
    const { vendor, clock, wrapper } = await setup();
    const made = await suspendPerRender(vendor, wrapper);
    await onePeriod(clock);
    // A render per ping, never a loop of them.
    expect(made.length).toBeLessThanOrEqual(6);
    expect(vendor.requests()).toBe(1);
    const reason = new Error('timed out');
    await act(async () => {
      for (const controller of [...made]) controller.abort(reason);
      await flushMicrotasks();
    });
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
  });

  it('on a signal made per render whose old ones keep aborting: the renders they wake stay few', async () => {
    const { vendor, wrapper } = await setup();
    const made = await suspendPerRender(vendor, wrapper);
    // Each abort of a render's signal but the newest (a timeout made per render, firing) wakes
    // the reader, whose render makes one more.
    for (let step = 0; step < 60; step += 1) {
      await act(async () => {
        made
          .slice(0, -1)
          .find((controller) => !controller.signal.aborted)
          ?.abort(new Error('timed out'));
        await flushMicrotasks();
      });
    }
    expect(made.length).toBeLessThanOrEqual(40);
    expect(vendor.requests()).toBe(1);
    expect(vendor.ledger[0]).toMatchObject({ hungUp: false });
  });

  it('a failure nobody came to see (its boundary unmounted) is let go: a later reader reads again', async () => {
    const { vendor, clock, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const first = render(<Page getUser={getUser} id={7} />, { wrapper });
    await vendor.arrival(1);
    first.unmount();
    await answer(1, { status: 500, body: { error: 'boom' } });
    await onePeriod(clock);
    expect(clock.pending()).toBe(0);

    render(<Page getUser={getUser} id={7} />, { wrapper });
    await vendor.arrival(2);
    await answer(2, { body: { id: 7, name: 'Ada' } });
    expect(screen.getByText('user Ada')).toBeTruthy();
  });

  it('a failure nobody came to see is not thrown to a reader that mounts a second later: it reads again', async () => {
    const { vendor, clock, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const page = () => (
      <Suspense fallback={<p>loading</p>}>
        <Patient getUser={getUser} />
      </Suspense>
    );
    const first = render(page(), { wrapper });
    await vendor.arrival(1);
    first.unmount();
    await answer(1, { status: 400, body: { error: 'rejected' } });
    await pass(clock, FAILURE_SHOWN);

    render(page(), { wrapper });
    await vendor.arrival(2);
    await answer(2, { body: { id: 7, name: 'Ada' } });
    expect(screen.getByText('user Ada')).toBeTruthy();
  });

  it('more keys suspended at once than cacheSize: each read once, each shown (its data is kept until its component commits)', async () => {
    const { vendor, clock, wrapper, answer } = await setup({ engine: { cacheSize: 1 } });
    const getUser = userStitch(vendor);
    render(
      <Suspense fallback={<p>loading</p>}>
        <Profile getUser={getUser} id={1} />
        <Profile getUser={getUser} id={2} />
      </Suspense>,
      { wrapper },
    );
    await vendor.arrival(2);
    await answer(1, { body: { id: 1, name: 'One' } });
    await answer(2, { body: { id: 2, name: 'Two' } });
    expect(screen.getByText('user One')).toBeTruthy();
    expect(screen.getByText('user Two')).toBeTruthy();
    expect(vendor.requests()).toBe(2);
    await onePeriod(clock);
    expect(clock.pending()).toBe(0);
  });
});
