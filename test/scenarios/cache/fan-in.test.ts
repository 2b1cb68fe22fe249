/**
 * Law 4 at scale: a thousand callers of one read are a thousand references on one request. The
 * vendor sees a single request; callers that leave reject alone and at once and never close the
 * socket for the others; only the last one to leave hangs up, and an execution abandoned that
 * way leaves nothing in the cache.
 */
import { describe, expect, it } from 'vitest';
import { type StitchRun, stitch } from '../../../src/index';
import { uniqueKey } from '../../helpers/keys';
import { rejection, settledCount, startScenario } from '../../helpers/runs';
import type { Vendor } from '../../helpers/vendor';

const CALLERS = 1_000;

interface Feed {
  id: number;
  items: string[];
}

const feed: Feed = { id: 7, items: ['a', 'b', 'c'] };
const input = { params: { id: 7 } };

function feedStitch(vendor: Vendor, cache?: { ttl: number }) {
  return stitch<Feed>({
    name: uniqueKey('feed'),
    url: vendor.url('/feeds/{id}'),
    retry: false,
    ...(cache ? { cache } : {}),
  });
}

describe(`${CALLERS} concurrent callers of one GET key`, () => {
  it('send exactly one request; all get the data; one report says live, the others coalesced', async () => {
    const { vendor, engine } = await startScenario();
    const getFeed = feedStitch(vendor);
    vendor.script('hold');

    const runs = Array.from({ length: CALLERS }, () => getFeed(input, { engine }));
    const settled = settledCount(runs);
    await vendor.arrival(1);
    expect(vendor.ledger).toHaveLength(1);
    expect(settled()).toBe(0);

    vendor.release(1, { body: feed });
    const results = await Promise.all(runs);
    expect(results).toEqual(Array.from({ length: CALLERS }, () => feed));
    expect(vendor.requests()).toBe(1);
    expect(await vendor.finished(1)).toMatchObject({ answered: true, hungUp: false });

    const reports = await Promise.all(runs.map((run) => run.report()));
    const sources = reports.map((report) => report.source);
    expect(sources.filter((source) => source === 'live')).toHaveLength(1);
    expect(sources.filter((source) => source === 'coalesced')).toHaveLength(CALLERS - 1);
    expect(reports[0]?.source).toBe('live');
    // Every report accounts for the one shared request, and every joiner names the same leader.
    expect(reports.every((report) => report.ok && report.requests === 1)).toBe(true);
    const leaders = new Set(
      reports.flatMap((report) =>
        report.events.flatMap((event) => (event.type === 'coalesce' ? [event.leader] : [])),
      ),
    );
    expect([...leaders]).toEqual([runs[0]?.id]);
  });

  it(`${CALLERS - 1} abort one by one before the answer: still 1 request, never hung up, the last caller gets the data`, async () => {
    const { vendor, engine } = await startScenario();
    const getFeed = feedStitch(vendor);
    vendor.script('hold');

    const controllers = Array.from({ length: CALLERS }, () => new AbortController());
    const runs = controllers.map((controller) => getFeed(input, { engine, signal: controller.signal }));
    await vendor.arrival(1);

    // The leader leaves first, then every follower but the last, each awaited before the next.
    const wrongCause: number[] = [];
    for (let i = 0; i < CALLERS - 1; i++) {
      const reason = new Error(`caller ${i} left`);
      controllers[i]?.abort(reason);
      const error = await rejection(runs[i] as StitchRun<Feed>);
      if (error.kind !== 'aborted' || error.cause !== reason) wrongCause.push(i);
    }
    expect(wrongCause).toEqual([]);
    // Every one of them rejected before the vendor answered, and the request is still open.
    expect(vendor.ledger).toHaveLength(1);
    expect(vendor.ledger[0]).toMatchObject({ answered: false, hungUp: false });

    vendor.release(1, { body: feed });
    const last = runs[CALLERS - 1] as StitchRun<Feed>;
    await expect(last).resolves.toEqual(feed);
    expect(await vendor.finished(1)).toMatchObject({ answered: true, hungUp: false });
    await expect(vendor.hangUp(1)).rejects.toThrow('was answered, not hung up');
    expect(vendor.requests()).toBe(1);

    expect(await last.report()).toMatchObject({ ok: true, source: 'coalesced', requests: 1 });
    expect(await runs[0]?.report()).toMatchObject({
      outcome: 'cancelled',
      cancelled: true,
      dispatched: true,
    });
  });

  it(`all ${CALLERS} abort: the last one hangs up the socket, nothing is cached, the next call sends request 2`, async () => {
    const { vendor, engine } = await startScenario();
    const getFeed = feedStitch(vendor, { ttl: 60_000 });
    const key = engine.keyOf(getFeed, input) as string;
    vendor.script('hold');

    const controllers = Array.from({ length: CALLERS }, () => new AbortController());
    const runs = controllers.map((controller) => getFeed(input, { engine, signal: controller.signal }));
    await vendor.arrival(1);

    for (let i = 0; i < CALLERS - 1; i++) {
      controllers[i]?.abort(new Error(`caller ${i} left`));
      await rejection(runs[i] as StitchRun<Feed>);
    }
    expect(vendor.ledger[0]).toMatchObject({ answered: false, hungUp: false });

    const lastReason = new Error('the last caller left');
    controllers[CALLERS - 1]?.abort(lastReason);
    const error = await rejection(runs[CALLERS - 1] as StitchRun<Feed>);
    expect(error.cause).toBe(lastReason);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });

    // The abandoned execution stored nothing: no data, no error, and the next caller goes out again.
    expect(engine.getSnapshot(key)).toMatchObject({
      data: undefined,
      updatedAt: undefined,
      error: undefined,
    });
    const next = getFeed(input, { engine });
    await expect(next).resolves.toEqual({ path: '/feeds/7', query: {} });
    expect(vendor.requests()).toBe(2);
    expect(await next.report()).toMatchObject({ source: 'live', requests: 1 });
    expect(engine.getSnapshot(key).data).toEqual({ path: '/feeds/7', query: {} });
  });
});
