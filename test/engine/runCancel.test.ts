/**
 * `run.cancel(reason)`: a caller lets go of its call without a signal, exactly as an abort of
 * its signal would. Its own reference only; the last one hangs up; the reason is the cause; a
 * settled run ignores it. (Its end of an input validator's wait: test/scenarios/api/input-schema.)
 * Against the real vendor.
 */
import { describe, expect, it } from 'vitest';
import { stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { rejection, spyHooks, startScenario } from '../helpers/runs';
import type { Vendor } from '../helpers/vendor';

const item = (vendor: Vendor, over: { hooks?: ReturnType<typeof spyHooks> } = {}) =>
  stitch<{ id: number }, { query: { id: number } }>({
    name: uniqueKey('item'),
    url: vendor.url('/item'),
    retry: false,
    ...over,
  });

describe('run.cancel', () => {
  it('rejects with kind aborted, the reason as cause, and hangs up the request it held alone', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const hooks = spyHooks();
    const run = item(vendor, { hooks })({ query: { id: 1 } }, { engine });
    await vendor.arrival(1);
    const reason = new Error('the user closed the panel');
    run.cancel(reason);
    const error = await rejection(run);
    expect(error).toMatchObject({ kind: 'aborted', cause: reason, message: 'the user closed the panel' });
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect((await run.report()).outcome).toBe('cancelled');
    // A cancel is not a failure.
    expect(hooks.onError).not.toHaveBeenCalled();
    expect(hooks.onCancel).toHaveBeenCalledTimes(1);
  });

  it('lets go of its own reference only: a caller sharing the request still gets its answer', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const getItem = item(vendor);
    const first = getItem({ query: { id: 1 } }, { engine });
    await vendor.arrival(1);
    const second = getItem({ query: { id: 1 } }, { engine });
    first.cancel(new Error('unmounted'));
    await expect(rejection(first)).resolves.toMatchObject({ kind: 'aborted' });
    expect(vendor.ledger[0]).toMatchObject({ hungUp: false });
    vendor.release(1, { body: { id: 1 } });
    await expect(second).resolves.toEqual({ id: 1 });
    expect(vendor.requests()).toBe(1);
  });

  it('cancelled in the tick of its call, sends nothing', async () => {
    const { vendor, engine } = await startScenario();
    const run = item(vendor)({ query: { id: 1 } }, { engine });
    run.cancel();
    const error = await rejection(run);
    expect(error.kind).toBe('aborted');
    expect(error.cause).toBeInstanceOf(DOMException);
    expect((error.cause as DOMException).name).toBe('AbortError');
    expect((await run.report()).dispatched).toBe(false);
    expect(vendor.requests()).toBe(0);
  });

  it('does nothing once the run settled, and only its first reason counts', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const hooks = spyHooks();
    const getItem = item(vendor, { hooks });
    const done = getItem({ query: { id: 2 } }, { engine });
    await vendor.arrival(1);
    vendor.release(1, { body: { id: 2 } });
    await expect(done).resolves.toEqual({ id: 2 });
    done.cancel(new Error('too late'));
    const report = await done.report();
    expect(report.outcome).toBe('success');
    expect(report.events.map((event) => event.type)).not.toContain('cancel');
    expect(hooks.onCancel).not.toHaveBeenCalled();

    const twice = getItem({ query: { id: 3 } }, { engine });
    await vendor.arrival(2);
    const first = new Error('first');
    twice.cancel(first);
    twice.cancel(new Error('second'));
    await expect(rejection(twice)).resolves.toMatchObject({ cause: first });
  });

  it('after its signal aborted, changes nothing', async () => {
    const { vendor, engine } = await startScenario({ respond: () => 'hold' });
    const controller = new AbortController();
    const run = item(vendor)({ query: { id: 1 } }, { engine, signal: controller.signal });
    await vendor.arrival(1);
    const reason = new Error('route left');
    controller.abort(reason);
    run.cancel(new Error('later'));
    await expect(rejection(run)).resolves.toMatchObject({ kind: 'aborted', cause: reason });
    const cancels = (await run.report()).events.filter((event) => event.type === 'cancel');
    expect(cancels).toHaveLength(1);
  });
});
