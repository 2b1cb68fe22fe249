import { render } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import type { DehydratedState, Engine } from '../../src/index';
import { type QueryResult, StitchProvider, type UseStitchOptions } from '../../src/react/index';
import { flushMicrotasks, type Recorder, recorder, setup } from '../react/harness';
import { ada, Reader, type User, type UserStitch, userStitch } from '../react/users';

afterEach(() => {
  vi.restoreAllMocks();
});

/** What a server render of `users` (by id) would hand over: their data, stamped now. */
const stateOf = (engine: Engine, getUser: UserStitch, users: Record<number, User>): DehydratedState => {
  const now = engine.clock.now();
  const entries = Object.entries(users).map(
    ([id, user]) => [engine.keyOf(getUser, { params: { id: Number(id) } }) as string, user, now] as const,
  );
  return { version: 1, at: now, entries };
};

/** What {@link layoutOf} shows: the layout's reader of user 7, and the route's reader. */
interface Layout {
  header: Recorder<QueryResult<User>>;
  headerOptions?: UseStitchOptions<User>;
  /** The user the route reads. @default 7 */
  id?: number;
  page?: Recorder<QueryResult<User>>;
}

/**
 * An app whose layout reads user 7 on `engine`, and which, given a route's `state`, mounts the
 * route under a nested provider taking that state in.
 */
const layoutOf =
  (engine: Engine, getUser: UserStitch, { header, headerOptions, id = 7, page }: Layout) =>
  (state?: DehydratedState) => (
    <StitchProvider engine={engine}>
      <Reader getUser={getUser} shown={header} options={headerOptions} />
      {state && (
        <StitchProvider state={state}>
          <Reader getUser={getUser} id={id} shown={page} />
        </StitchProvider>
      )}
    </StitchProvider>
  );

/**
 * The layout showing user 7 (answered, a second ago) and a route reading user `id`, and what
 * navigates to the route with a state.
 */
async function layoutShown(id = 7) {
  const harness = await setup();
  const getUser = userStitch(harness.vendor, { ttl: 60_000 });
  const errors = vi.spyOn(console, 'error');
  const header = recorder<QueryResult<User>>();
  const page = recorder<QueryResult<User>>();
  const app = layoutOf(harness.engine, getUser, { header, id, page });
  const view = render(app());
  await harness.vendor.arrival(1);
  await harness.answer(1, { body: ada });
  expect(header.last).toMatchObject({ status: 'success', data: ada });
  await harness.clock.advance(1_000);
  const navigate = async (state: DehydratedState) => {
    view.rerender(app(state));
    await flushMicrotasks();
  };
  return { ...harness, getUser, errors, header, page, navigate };
}

it("a route's nested provider takes in newer data for a key a mounted reader shows: after the commit, with no warning and no request", async () => {
  const { vendor, engine, getUser, errors, header, page, navigate } = await layoutShown();
  const renamed = { ...ada, name: 'Ada L.' };
  await navigate(stateOf(engine, getUser, { 7: renamed }));
  expect(header.last).toMatchObject({ status: 'success', data: renamed });
  expect(page.last).toMatchObject({ status: 'success', data: renamed });
  expect(errors).not.toHaveBeenCalled();
  expect(vendor.requests()).toBe(1);
});

it('a provider handed a new state (the next page of a server-rendered app) takes it in: its key needs no request', async () => {
  const { vendor, engine } = await setup();
  const getUser = userStitch(vendor, { ttl: 60_000 });
  const shown = recorder<QueryResult<User>>();
  const page = (id: number, state: DehydratedState) => (
    <StitchProvider engine={engine} state={state}>
      <Reader getUser={getUser} id={id} shown={shown} />
    </StitchProvider>
  );
  const view = render(page(7, stateOf(engine, getUser, { 7: ada })));
  expect(shown.last).toMatchObject({ status: 'success', data: ada });
  const grace = { id: 8, name: 'Grace' };
  view.rerender(page(8, stateOf(engine, getUser, { 8: grace })));
  expect(shown.last).toMatchObject({ status: 'success', data: grace });
  await flushMicrotasks();
  expect(vendor.requests()).toBe(0);
});

it('the same state taken in again by a provider that mounts again has aged: it refreshes nothing', async () => {
  const { vendor, engine, clock } = await setup();
  const getUser = userStitch(vendor, { ttl: 60_000 });
  const state = stateOf(engine, getUser, { 7: ada });
  const page = () => (
    <StitchProvider engine={engine} state={state}>
      <Reader getUser={getUser} />
    </StitchProvider>
  );
  render(page()).unmount();
  await clock.advance(61_000);
  render(page());
  // Its data is a minute old as the state said, past the ttl: the reader asks again.
  await vendor.arrival(1);
  expect(vendor.requests()).toBe(1);
  const [[key, , stamped]] = state.entries as [[string, User, number]];
  expect(engine.getSnapshot(key).updatedAt).toBe(stamped);
});

it("a route's state with a key a reader elsewhere shows and a new one: the new one is there at the first render, nothing sent for it", async () => {
  const { vendor, engine, getUser, errors, header, page, navigate } = await layoutShown(8);
  const grace = { id: 8, name: 'Grace' };
  const renamed = { ...ada, name: 'Ada L.' };
  await navigate(stateOf(engine, getUser, { 7: renamed, 8: grace }));
  expect(page.renders[0]).toMatchObject({ status: 'success', data: grace });
  expect(header.last).toMatchObject({ status: 'success', data: renamed });
  expect(errors).not.toHaveBeenCalled();
  expect(vendor.requests()).toBe(1);
});

it('a copy of the state made at each render (parsed again from the page) never takes back newer data', async () => {
  const { vendor, engine, clock, answer } = await setup();
  const getUser = userStitch(vendor, { ttl: 60_000 });
  const shown = recorder<QueryResult<User>>();
  const json = JSON.stringify(stateOf(engine, getUser, { 7: ada }));
  const page = () => (
    <StitchProvider engine={engine} state={JSON.parse(json)}>
      <Reader getUser={getUser} shown={shown} />
    </StitchProvider>
  );
  const view = render(page());
  expect(shown.last).toMatchObject({ status: 'success', data: ada });
  await clock.advance(1_000);
  engine.invalidate(getUser);
  await vendor.arrival(1);
  const renamed = { ...ada, name: 'Ada L.' };
  await answer(1, { body: renamed });
  expect(shown.last).toMatchObject({ status: 'success', data: renamed });
  await clock.advance(1_000);
  view.rerender(page());
  await flushMicrotasks();
  expect(shown.last).toMatchObject({ status: 'success', data: renamed });
});

it("a route's state for a key whose data the engine holds stale is there before the reader's effect: nothing sent for it", async () => {
  const { vendor, engine, clock, trace } = await setup();
  const getUser = userStitch(vendor);
  const shown = recorder<QueryResult<User>>();
  engine.setData(getUser, { params: { id: 7 } }, ada);
  await clock.advance(60_000);
  const renamed = { ...ada, name: 'Ada L.' };
  render(
    <StitchProvider engine={engine} state={stateOf(engine, getUser, { 7: renamed })}>
      <Reader getUser={getUser} shown={shown} options={{ staleTime: 30_000 }} />
    </StitchProvider>,
  );
  await flushMicrotasks();
  expect(shown.last).toMatchObject({ status: 'success', data: renamed, isFetching: false });
  expect(trace.events.filter((event) => event.type === 'start')).toEqual([]);
});

it("a route's state for a key a reader elsewhere waits on (its debounce, no data yet) reaches it after the commit, with no warning", async () => {
  const { vendor, engine } = await setup();
  const getUser = userStitch(vendor, { ttl: 60_000 });
  const errors = vi.spyOn(console, 'error');
  const waiting = recorder<QueryResult<User>>();
  const app = layoutOf(engine, getUser, { header: waiting, headerOptions: { debounce: 5_000 } });
  const view = render(app());
  const key = engine.keyOf(getUser, { params: { id: 7 } }) as string;
  expect(engine.readers(key)).toBe(1);
  view.rerender(app(stateOf(engine, getUser, { 7: ada })));
  await flushMicrotasks();
  expect(waiting.last).toMatchObject({ status: 'success', data: ada });
  expect(errors).not.toHaveBeenCalled();
  expect(vendor.requests()).toBe(0);
});
