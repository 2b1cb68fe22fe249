/**
 * The demo's counters, counted from the devtools model's lanes, count requests the way the demo
 * vendor's ledger does, off the scripted path too: a dropped connection is a failed request, one
 * that timed out a hung-up one, each retry is a request of its own, and calls the open breaker refuses are counted apart, having sent
 * nothing. Real engine, real demo vendor.
 */
import { afterEach, expect, it } from 'vitest';
import { countLanes } from '../../../../examples/app/components/laneCounts';
import { createDemoVendor, type DemoVendor } from '../../../../examples/vendor';
import { createDevtoolsModel } from '../../../../src/devtools/index';
import { createEngine, stitch } from '../../../../src/index';
import { createManualClock, type ManualClock } from '../../../../src/testing/index';
import { uniqueKey } from '../../../helpers/keys';
import { until } from '../../client';

let vendor: DemoVendor | undefined;

afterEach(async () => {
  await vendor?.close();
  vendor = undefined;
});

async function setUp(controls: { reset?: boolean; failRate?: number; hang?: boolean }, clock?: ManualClock) {
  vendor = createDemoVendor({ delay: 0, ...controls });
  const baseUrl = await vendor.listen();
  const engine = createEngine(clock ? { clock } : {});
  const model = createDevtoolsModel(engine);
  const counts = (name: string) =>
    countLanes(model.getSnapshot().lanes.filter((lane) => lane.stitch === name));
  return { vendor, counts, model, engine, baseUrl };
}

it('a dropped connection is a failed request, and a retry is one more, as the ledger counts them', async () => {
  const { vendor, counts, engine, baseUrl } = await setUp({ reset: true });
  const search = stitch({
    name: uniqueKey('search'),
    baseUrl,
    url: '/api/search',
    retry: { attempts: 2, backoff: { base: 0 } },
    circuit: false,
  });

  const result = await search({ query: { q: 'ada' } }, { engine }).safe();

  expect(result.error?.kind).toBe('network');
  expect(counts(search.definition.name)).toMatchObject({
    sent: 2,
    failed: 2,
    completed: 0,
    cancelled: 0,
  });
  expect(vendor.ledger().endpoints.search).toEqual({ requests: 2, completed: 0, hungUp: 0, failed: 2 });
});

it('calls the open breaker refuses count as failed fast, with nothing sent', async () => {
  const { vendor, counts, model, engine, baseUrl } = await setUp({ failRate: 1 });
  const search = stitch({
    name: uniqueKey('search'),
    baseUrl,
    url: '/api/flaky-search',
    retry: false,
    circuit: { key: uniqueKey('breaker'), failures: 1, cooldown: 60_000 },
  });

  expect((await search({ query: { q: 'ada' } }, { engine }).safe()).error?.status).toBe(503);
  expect((await search({ query: { q: 'ada' } }, { engine }).safe()).error?.kind).toBe('circuit-open');
  expect((await search({ query: { q: 'bob' } }, { engine }).safe()).error?.kind).toBe('circuit-open');

  expect(model.getSnapshot().lanes).toHaveLength(3);
  expect(counts(search.definition.name)).toMatchObject({
    sent: 1,
    failed: 1,
    fastFailed: 2,
  });
  expect(vendor.ledger().endpoints['flaky-search']).toEqual({
    requests: 1,
    completed: 0,
    hungUp: 0,
    failed: 1,
  });
});

it('a request that timed out is one the vendor saw hung up, not failed', async () => {
  const clock = createManualClock();
  const { vendor, counts, engine, baseUrl } = await setUp({ hang: true }, clock);
  const search = stitch({
    name: uniqueKey('search'),
    baseUrl,
    url: '/api/search',
    retry: false,
    timeout: 3_000,
  });

  const run = search({ query: { q: 'ada' } }, { engine }).safe();
  await until(() => vendor.ledger().endpoints.search.requests === 1, 'the request arrives');
  await clock.advance(3_000);
  expect((await run).error).toMatchObject({ kind: 'timeout' });
  await until(() => vendor.ledger().endpoints.search.hungUp === 1, 'the hang-up is recorded');

  expect(counts(search.definition.name)).toMatchObject({ sent: 1, cancelled: 1, failed: 0 });
  expect(vendor.ledger().endpoints.search).toEqual({ requests: 1, completed: 0, hungUp: 1, failed: 0 });
});
