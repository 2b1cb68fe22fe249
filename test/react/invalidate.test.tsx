/**
 * `engine.invalidate` after a write: every mounted reader of the key refetches at once, with one
 * coalesced request however many read it, keeping the stale data on screen (`isFetching`) until
 * the new data replaces it. A request in flight from before the write is not joined, and is hung
 * up once nobody holds it. A key nobody reads is only marked stale. Against the real vendor.
 */
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { QueryResult } from '../../src/react/index';
import { actAtOnce, recorder, setup } from './harness';
import { ada, Reader, type User, type UserStitch, userStitch } from './users';

const renamed: User = { id: 7, name: 'Ada Lovelace' };
const input = { params: { id: 7 } };

function Readers({ getUser, count }: { getUser: UserStitch; count: number }) {
  return (
    <>
      {Array.from({ length: count }, (_, i) => `r${i}`).map((id) => (
        <Reader key={id} getUser={getUser} testId={id} />
      ))}
    </>
  );
}

const texts = (count: number) =>
  Array.from({ length: count }, (_, i) => screen.getByTestId(`r${i}`).textContent);

describe('invalidation refetches mounted readers', () => {
  it('three readers refetch once, keep their data while fetching, then show the new data', async () => {
    const { vendor, engine, wrapper, answer } = await setup();
    const getUser = userStitch(vendor, { ttl: 60_000 });
    const shown = recorder<QueryResult<User>>();
    const { rerender } = render(
      <>
        <Reader getUser={getUser} shown={shown} />
        <Readers getUser={getUser} count={2} />
      </>,
      { wrapper },
    );
    await vendor.arrival(1);
    await answer(1, { body: ada });
    expect(texts(2)).toEqual(['success Ada', 'success Ada']);
    expect(vendor.requests()).toBe(1);

    const before = shown.renders.length;
    await actAtOnce(() => engine.invalidate(getUser, input));
    await vendor.arrival(2);
    // The data stays on screen, marked as being fetched again.
    expect(shown.last).toMatchObject({ status: 'success', data: ada, isFetching: true, error: null });
    expect(texts(2)).toEqual(['success Ada', 'success Ada']);

    // A reader that unmounts meanwhile lets go of its reference; the others keep the request.
    rerender(
      <>
        <Reader getUser={getUser} shown={shown} />
        <Readers getUser={getUser} count={1} />
      </>,
    );
    await answer(2, { body: renamed });
    expect(vendor.requests()).toBe(2);
    expect(vendor.ledger[1]).toMatchObject({ answered: true, hungUp: false });
    expect(shown.last).toMatchObject({ status: 'success', data: renamed, isFetching: false });
    expect(texts(1)).toEqual(['success Ada Lovelace']);
    expect(shown.renders.slice(before).map((q) => q.status)).not.toContain('pending');
  });

  it('a request in flight from before the write is not joined: it is hung up, the new one answers', async () => {
    const { vendor, engine, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    const shown = recorder<QueryResult<User>>();
    render(<Reader getUser={getUser} shown={shown} />, { wrapper });
    await vendor.arrival(1);

    await actAtOnce(() => engine.invalidate(getUser, input));
    await vendor.arrival(2);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });
    await answer(2, { body: renamed });
    expect(shown.last).toMatchObject({ status: 'success', data: renamed, isFetching: false });
    expect(vendor.requests()).toBe(2);
    expect(shown.renders.map((q) => q.status)).not.toContain('error');
  });

  it('a key nobody reads is only marked stale: no request, and its next read fetches', async () => {
    const { vendor, engine } = await setup();
    const getUser = userStitch(vendor, { ttl: 60_000 });
    vendor.script({ body: ada }, { body: renamed });
    await getUser(input, { engine });
    engine.invalidate(getUser);
    const key = engine.keyOf(getUser, input) as string;
    expect(engine.getSnapshot(key)).toMatchObject({ data: ada, stale: true, fetching: false });
    expect(vendor.requests()).toBe(1);

    const next = getUser(input, { engine });
    await expect(next).resolves.toEqual(renamed);
    expect((await next.report()).source).toBe('live');
    expect(engine.getSnapshot(key)).toMatchObject({ data: renamed, stale: false });
  });

  it('a second invalidation during the refetch refetches again', async () => {
    const { vendor, engine, wrapper, answer } = await setup();
    const getUser = userStitch(vendor, { ttl: 60_000 });
    render(<Readers getUser={getUser} count={2} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: ada });

    await actAtOnce(() => engine.invalidate(getUser, input));
    await vendor.arrival(2);
    await actAtOnce(() => engine.invalidate(getUser));
    await vendor.arrival(3);
    expect(await vendor.hangUp(2)).toMatchObject({ hungUp: true });
    await answer(3, { body: renamed });
    expect(texts(2)).toEqual(['success Ada Lovelace', 'success Ada Lovelace']);
    expect(vendor.requests()).toBe(3);
  });
});
