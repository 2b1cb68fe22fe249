/**
 * A run is a real Promise for its users: `then`, `catch`, `finally`, `instanceof Promise`,
 * `Promise.all` and `await` all work, against the real vendor, while `safe()`, `report()` and
 * `stream()` still read the same run. A run that fails is never an unhandled rejection by itself.
 */
import { describe, expect, it } from 'vitest';
import { isStitchError, stitch } from '../../../src/index';
import { uniqueKey } from '../../helpers/keys';
import { collect, eventTypes, startScenario } from '../../helpers/runs';

describe('a run is a Promise', () => {
  it('has then, catch and finally, and is an instance of Promise', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { id: 7 } }) });
    const get = stitch<{ id: number }>({ name: uniqueKey('get'), url: vendor.url('/items/7'), retry: false });
    const run = get(undefined, { engine });
    expect(run).toBeInstanceOf(Promise);
    const steps: string[] = [];
    const data = await run
      .then((item) => {
        steps.push('then');
        return item.id;
      })
      .finally(() => steps.push('finally'));
    expect(data).toBe(7);
    expect(steps).toEqual(['then', 'finally']);
    expect(vendor.requests()).toBe(1);
  });

  it('rejects through catch with the StitchError, and finally runs', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ status: 404, body: 'nope' }) });
    const get = stitch({ name: uniqueKey('missing'), url: vendor.url('/items/8'), retry: false });
    const steps: string[] = [];
    const caught = await get(undefined, { engine })
      .catch((error: unknown) => {
        steps.push('catch');
        return error;
      })
      .finally(() => steps.push('finally'));
    expect(isStitchError(caught) && caught.kind).toBe('http');
    expect(isStitchError(caught) && caught.status).toBe(404);
    expect(steps).toEqual(['catch', 'finally']);
  });

  it('works in Promise.all and Promise.allSettled, and still reports the same run', async () => {
    const { vendor, engine } = await startScenario({
      respond: (entry) => (entry.path === '/items/2' ? { status: 400 } : { body: { path: entry.path } }),
    });
    const get = stitch<{ path: string }, { params: { id: number } }>({
      name: uniqueKey('item'),
      url: vendor.url('/items/{id}'),
      retry: false,
    });
    const [a, b] = [get({ params: { id: 1 } }, { engine }), get({ params: { id: 3 } }, { engine })];
    expect(await Promise.all([a, b])).toEqual([{ path: '/items/1' }, { path: '/items/3' }]);
    const failing = get({ params: { id: 2 } }, { engine });
    const settled = await Promise.allSettled([a, failing]);
    expect(settled.map((result) => result.status)).toEqual(['fulfilled', 'rejected']);
    // The run was awaited through Promise.all: its own report and stream describe that one run.
    expect((await a.report()).requests).toBe(1);
    expect(eventTypes(await collect(failing))).toEqual(['start', 'request', 'response', 'error', 'done']);
    expect((await failing.safe()).error?.kind).toBe('http');
    expect(vendor.requests()).toBe(3);
  });

  it('a failed run read only later through report() is no unhandled rejection', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ status: 500 }) });
    const get = stitch({ name: uniqueKey('down'), url: vendor.url('/down'), retry: false });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const run = get(undefined, { engine });
      await vendor.finished(1);
      // Several turns of the event loop pass with nobody reading the run.
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect((await run.report()).outcome).toBe('error');
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
