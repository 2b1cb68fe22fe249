/**
 * SPEC §3, SSR: nothing fetches during a server render unless asked; `dehydrate`/`hydrate` carry
 * the data to the client without a second request.
 */
import { act, render, screen } from '@testing-library/react';
import type { ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEngine, type DehydratedState, defaultEngine, type Engine } from '../../src/index';
import {
  type QueryResult,
  StitchProvider,
  type UseStitchOptions,
  useSuspenseStitch,
} from '../../src/react/index';
import { createManualClock, type ManualClock } from '../helpers/clock';
import { answered, flushMicrotasks, recorder, setup } from './harness';
import { ada, Reader, type User, type UserInput, type UserStitch, userStitch } from './users';

const input: UserInput = { params: { id: 7 } };

afterEach(() => {
  vi.restoreAllMocks();
});

/** A page that shows user 7, and every result its hook rendered, on the server and the client. */
function profile(getUser: UserStitch, options: UseStitchOptions<User> = {}) {
  const shown = recorder<QueryResult<User>>();
  const page = <Reader getUser={getUser} shown={shown} options={options} testId="profile" />;
  return { shown, page };
}

/**
 * Prefetches `input` on a server engine, as a server would before rendering, renders the page and
 * dehydrates it. The server's clock reads what the client's does (or `origin` ms more: each
 * process's monotonic clock has its own origin); the client's then moves on by the second the
 * page takes to load.
 */
async function serverRender(getUser: UserStitch, page: ReactElement, client: ManualClock, origin = 0) {
  const server: Engine = createEngine({ clock: createManualClock(client.now() + origin) });
  await getUser(input, { engine: server });
  const html = renderToString(<StitchProvider engine={server}>{page}</StitchProvider>);
  // Through JSON, as it crosses the wire inside the page.
  const state = JSON.parse(JSON.stringify(server.dehydrate())) as DehydratedState;
  await client.advance(1_000);
  return { html, state };
}

/** User 7's name, read through Suspense. */
function SuspenseName({ getUser }: { getUser: UserStitch }) {
  return <p>{useSuspenseStitch(getUser, input).data.name}</p>;
}

describe('server render', () => {
  it('renderToString sends no request, with a provider or without one', async () => {
    const { vendor, engine, trace } = await setup();
    const getUser = userStitch(vendor);
    const { shown, page } = profile(getUser);

    const withProvider = renderToString(<StitchProvider engine={engine}>{page}</StitchProvider>);
    const withoutProvider = renderToString(page);
    await flushMicrotasks();

    expect(withProvider).toContain('pending -');
    expect(withoutProvider).toContain('pending -');
    expect(shown.renders.map((q) => q.status)).toEqual(['pending', 'pending']);
    // Nothing started, on the provider's engine nor on the default one.
    expect(trace.events).toHaveLength(0);
    const key = engine.keyOf(getUser, input) as string;
    expect(engine.getSnapshot(key).fetching).toBe(false);
    expect(defaultEngine().getSnapshot(key).fetching).toBe(false);
    expect(vendor.requests()).toBe(0);
  });

  it('useSuspenseStitch renders data the server prefetched, sending nothing more', async () => {
    const { vendor } = await setup({ respond: () => ({ status: 200, body: ada }) });
    const getUser = userStitch(vendor);
    const server = createEngine({ clock: createManualClock() });
    await getUser(input, { engine: server });
    const html = renderToString(
      <StitchProvider engine={server}>
        <SuspenseName getUser={getUser} />
      </StitchProvider>,
    );
    expect(html).toContain('Ada');
    expect(vendor.requests()).toBe(1);
  });
});

describe('dehydrate → hydrate', () => {
  it.each([
    ['an hour behind', -3_600_000],
    ['an hour ahead', 3_600_000],
  ])(
    'the server clock %s the client’s: the data keeps its age, fresh for the rest of its ttl',
    async (_, origin) => {
      const { vendor, engine: client, clock } = await setup({ respond: () => ({ body: ada }) });
      const getUser = userStitch(vendor, { ttl: 60_000 });
      const { page } = profile(getUser);
      const { state } = await serverRender(getUser, page, clock, origin);
      client.hydrate(state);
      const key = client.keyOf(getUser, input) as string;
      // As old as when the page was rendered (its second in transit is unknowable across clocks).
      expect(client.getSnapshot(key).updatedAt).toBe(clock.now());
      await clock.advance(59_999);
      await expect(getUser(input, { engine: client }).report()).resolves.toMatchObject({ source: 'cache' });
      await clock.advance(1);
      await expect(getUser(input, { engine: client }).report()).resolves.toMatchObject({ source: 'live' });
      expect(vendor.requests()).toBe(2);
    },
  );

  it.each([
    ['', undefined],
    [', on an engine that keeps nothing unread (cacheSize 0)', 0],
  ])(
    'a stitch with a cache ttl shows the server data at first render and sends no client request%s',
    async (_, cacheSize) => {
      const {
        vendor,
        engine: client,
        clock,
        trace,
      } = await setup({
        respond: () => ({ body: ada }),
        engine: { cacheSize },
      });
      const getUser = userStitch(vendor, { ttl: 60_000 });
      const { shown, page } = profile(getUser);
      const { html, state } = await serverRender(getUser, page, clock);
      expect(html).toContain('success Ada');
      expect(vendor.requests()).toBe(1);
      const rendered = shown.renders.length;

      render(
        <StitchProvider engine={client} state={state}>
          {page}
        </StitchProvider>,
      );
      await act(flushMicrotasks);
      const clientRenders = shown.renders.slice(rendered);
      expect(clientRenders[0]).toMatchObject({ status: 'success', data: ada, isFetching: false });
      expect(clientRenders.map((q) => q.status)).toEqual(clientRenders.map(() => 'success'));
      expect(screen.getByTestId('profile').textContent).toBe('success Ada');
      // The hook's read was served from the hydrated cache: no request left the client.
      expect(trace.events.filter((event) => event.type === 'request')).toHaveLength(0);
      expect(trace.events.filter((event) => event.type === 'cache')).toHaveLength(1);
      expect(vendor.requests()).toBe(1);
    },
  );

  it('with staleTime, the hook starts no read at all; hydrating the server HTML matches it', async () => {
    const { vendor, engine: client, clock, trace } = await setup({ respond: () => ({ body: ada }) });
    const getUser = userStitch(vendor);
    const { shown, page } = profile(getUser, { staleTime: 60_000 });
    const { html, state } = await serverRender(getUser, page, clock);
    const rendered = shown.renders.length;
    const errors = vi.spyOn(console, 'error');

    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.appendChild(container);
    render(
      <StitchProvider engine={client} state={state}>
        {page}
      </StitchProvider>,
      { container, hydrate: true },
    );
    await act(flushMicrotasks);

    expect(shown.renders[rendered]).toMatchObject({ status: 'success', data: ada });
    expect(screen.getByTestId('profile').textContent).toBe('success Ada');
    expect(errors).not.toHaveBeenCalled(); // no hydration mismatch
    expect(trace.events).toHaveLength(0);
    expect(vendor.requests()).toBe(1);
  });

  it('without either, the client reads the data again (the control for the two tests above)', async () => {
    const { vendor, engine: client, clock, trace } = await setup({ respond: () => ({ body: ada }) });
    const getUser = userStitch(vendor);
    const { page } = profile(getUser);
    const { state } = await serverRender(getUser, page, clock);
    const settled = trace.next(answered);
    render(
      <StitchProvider engine={client} state={state}>
        {page}
      </StitchProvider>,
    );
    // Shown at once from the hydrated data, and refreshed: a second request.
    expect(screen.getByTestId('profile').textContent).toBe('success Ada');
    await vendor.arrival(2);
    await act(async () => {
      await settled;
      await flushMicrotasks();
    });
    expect(trace.events.filter((event) => event.type === 'request')).toHaveLength(1);
    expect(vendor.requests()).toBe(2);
  });
});
