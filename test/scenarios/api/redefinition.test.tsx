/**
 * Hot module reload redefines every stitch of a saved module under the same name. The newest
 * definition replaces the old one and drops its cached data; an old definition that is called
 * again after that means two are alive together, refused with a message that says what to do.
 * Against the real vendor, engine-level and through a mounted hook.
 */
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { type Stitch, stitch } from '../../../src/index';
import { useStitch } from '../../../src/react/index';
import { uniqueKey } from '../../helpers/keys';
import { actAtOnce, setup } from '../../react/harness';

interface Greeting {
  text: string;
}

/** Shows one greeting read through whichever definition it is given. */
function View({ greeting }: { greeting: Stitch<Greeting> }) {
  const q = useStitch(greeting, undefined);
  return <p data-testid="view">{`${q.status} ${q.data?.text ?? '-'}`}</p>;
}

describe('redefining a stitch under its name', () => {
  it('the new definition runs, the old one’s cached data is dropped, the old one is then refused', async () => {
    const { vendor, engine } = await setup({ respond: (entry) => ({ body: { text: entry.path } }) });
    const name = uniqueKey('greeting');
    const v1 = stitch<Greeting>({ name, url: vendor.url('/v1'), cache: { ttl: 60_000 } });
    await expect(v1(undefined, { engine })).resolves.toEqual({ text: '/v1' });
    const key = engine.keyOf(v1, undefined) as string;
    expect(engine.getSnapshot(key).data).toEqual({ text: '/v1' });

    // The module was saved: the same name, a new definition.
    const v2 = stitch<Greeting>({ name, url: vendor.url('/v2'), cache: { ttl: 60_000 } });
    const fresh = v2(undefined, { engine });
    await expect(fresh).resolves.toEqual({ text: '/v2' });
    expect((await fresh.report()).source).toBe('live');
    expect(vendor.ledger.map((entry) => entry.path)).toEqual(['/v1', '/v2']);

    const stale = await v1(undefined, { engine }).safe();
    expect(stale.error).toMatchObject({ kind: 'config', field: 'name', requests: 0, stitch: name });
    expect(stale.error?.message).toContain('Give each stitch that is in use its own name');
    expect(vendor.requests()).toBe(2);
    // The newer one keeps working after the refusal.
    await expect(v2(undefined, { engine })).resolves.toEqual({ text: '/v2' });
  });

  it('data written through the new definition before its first call is kept, and the old data is not read through it', async () => {
    const { vendor, engine } = await setup({ respond: (entry) => ({ body: { text: entry.path } }) });
    const name = uniqueKey('greeting');
    const v1 = stitch<Greeting>({ name, url: vendor.url('/v1'), cache: { ttl: 60_000 } });
    await v1(undefined, { engine });

    const v2 = stitch<Greeting>({ name, url: vendor.url('/v2'), cache: { ttl: 60_000 } });
    expect(engine.getData(v2, undefined)).toBeUndefined();
    engine.setData(v2, undefined, { text: 'primed' });
    const primed = v2(undefined, { engine });
    await expect(primed).resolves.toEqual({ text: 'primed' });
    expect((await primed.report()).source).toBe('cache');
    expect(vendor.requests()).toBe(1);
  });

  it('an old definition’s answer that lands after the redefinition is not cached', async () => {
    const { vendor, engine } = await setup();
    const name = uniqueKey('late');
    const v1 = stitch<Greeting>({ name, url: vendor.url('/v1'), cache: { ttl: 60_000 } });
    const old = v1(undefined, { engine });
    await vendor.arrival(1);
    const v2 = stitch<Greeting>({ name, url: vendor.url('/v2'), cache: { ttl: 60_000 } });
    const current = v2(undefined, { engine });
    await vendor.arrival(2);
    vendor.release(2, { body: { text: 'new' } });
    await current;
    vendor.release(1, { body: { text: 'old' } });
    await expect(old).resolves.toEqual({ text: 'old' });
    expect(engine.getSnapshot(engine.keyOf(v2, undefined) as string).data).toEqual({ text: 'new' });
  });

  it('a mounted hook re-rendered with the new definition reads through it', async () => {
    const { vendor, wrapper, answer } = await setup();
    const name = uniqueKey('hmr');
    const make = (path: string) => stitch<Greeting>({ name, url: vendor.url(path) });
    const { rerender } = render(<View greeting={make('/v1')} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { body: { text: 'one' } });
    expect(screen.getByTestId('view').textContent).toBe('success one');

    await actAtOnce(() => rerender(<View greeting={make('/v2')} />));
    expect((await vendor.arrival(2)).path).toBe('/v2');
    await answer(2, { body: { text: 'two' } });
    expect(screen.getByTestId('view').textContent).toBe('success two');
    expect(screen.getByTestId('view').textContent).not.toContain('error');
  });
});
