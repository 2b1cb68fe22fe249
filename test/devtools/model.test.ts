/**
 * The devtools model against the real node:http vendor: its lanes, cache, breakers and queues
 * must say what the vendor's ledger says happened.
 */
import { describe, expect, it } from 'vitest';
import { createDevtoolsModel } from '../../src/devtools/index';
import { createEngine, stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { rejection, snapshotWhere, startScenario, until } from '../helpers/runs';

/** A devtools model of a fresh engine, and a read of `/shared`, whose requests the vendor holds. */
async function sharedHeld(retry?: number) {
  const scenario = await startScenario();
  const model = createDevtoolsModel(scenario.engine);
  scenario.vendor.script('hold');
  const url = scenario.vendor.url('/shared');
  const get = stitch({ name: uniqueKey('shared'), url, ...(retry !== undefined && { retry }) });
  return { ...scenario, model, get };
}

describe('createDevtoolsModel', () => {
  it('a search with cancellations: one lane per keystroke, each cut one cancelled with its reason and a closed socket, as the vendor saw', async () => {
    const { vendor, engine } = await startScenario();
    const model = createDevtoolsModel(engine);
    const search = stitch({ name: uniqueKey('search'), url: vendor.url('/search'), cache: 60_000 });
    vendor.script('hold', 'hold');
    let previous: AbortController | undefined;
    const type = (q: string) => {
      previous?.abort(new Error('superseded'));
      previous = new AbortController();
      return search({ query: { q } }, { engine, signal: previous.signal });
    };
    const a = type('a');
    await vendor.arrival(1);
    const ad = type('ad');
    await vendor.hangUp(1);
    await vendor.arrival(2);
    const ada = type('ada');
    await vendor.hangUp(2);
    await Promise.all([rejection(a), rejection(ad), ada]);

    const { lanes, cache } = model.getSnapshot();
    expect(
      lanes.map(({ url, status, cancel, attempts }) => ({
        q: new URL(url).searchParams.get('q'),
        status,
        cancel,
        attempts,
      })),
    ).toEqual([
      {
        q: 'a',
        status: 'cancelled',
        cancel: { reason: 'superseded', phase: 'in-flight', dispatched: true, socket: 'closed' },
        attempts: [{ attempt: 1, status: undefined, outcome: 'cancelled' }],
      },
      {
        q: 'ad',
        status: 'cancelled',
        cancel: { reason: 'superseded', phase: 'in-flight', dispatched: true, socket: 'closed' },
        attempts: [{ attempt: 1, status: undefined, outcome: 'cancelled' }],
      },
      {
        q: 'ada',
        status: 'answered',
        cancel: undefined,
        attempts: [{ attempt: 1, status: 200, outcome: 'answered' }],
      },
    ]);
    // The lanes agree with the vendor's ledger, request by request.
    expect(vendor.ledger.map((entry) => [entry.query.get('q'), entry.hungUp, entry.answered])).toEqual([
      ['a', true, false],
      ['ad', true, false],
      ['ada', false, true],
    ]);
    // Only the answered key holds data; a cut read never stores any.
    const stored = cache.filter((entry) => entry.snapshot.data !== undefined);
    expect(stored.map((entry) => entry.snapshot.data)).toEqual([{ path: '/search', query: { q: 'ada' } }]);
    model.dispose();
  });

  it('coalesced joiners, a retry and each attempt; a joiner that leaves keeps the socket open', async () => {
    const { vendor, engine, clock, model, get } = await sharedHeld(2);
    const leader = get(undefined, { engine });
    const leaving = new AbortController();
    const joiner = get(undefined, { engine, signal: leaving.signal });
    const stayer = get(undefined, { engine });
    await vendor.arrival(1);
    leaving.abort(new Error('unmounted'));
    await rejection(joiner);
    vendor.release(1, { status: 503 });
    await until(leader, 'retry');
    await clock.next();
    await Promise.all([leader, stayer]);

    const [led, left, stayed] = model.getSnapshot().lanes;
    expect(led).toMatchObject({ status: 'answered', joiners: [joiner.id, stayer.id], retries: 1 });
    expect(led?.attempts).toEqual([
      { attempt: 1, status: 503, outcome: 'failed' },
      { attempt: 2, status: 200, outcome: 'answered' },
    ]);
    expect(left).toMatchObject({
      status: 'cancelled',
      leader: leader.id,
      cancel: { socket: 'kept', reason: 'unmounted' },
    });
    expect(stayed).toMatchObject({ status: 'coalesced', leader: leader.id, done: true });
    expect(vendor.ledger.map((entry) => entry.hungUp)).toEqual([false, false]);
  });

  it('a leader that leaves its request to a joiner: its attempt says kept, not in flight for good', async () => {
    const { vendor, engine, model, get } = await sharedHeld();
    const leaving = new AbortController();
    const leader = get(undefined, { engine, signal: leaving.signal });
    const stayer = get(undefined, { engine });
    await vendor.arrival(1);
    leaving.abort(new Error('navigated away'));
    await rejection(leader);
    vendor.release(1, { body: { ok: true } });
    await stayer;

    const [led, stayed] = model.getSnapshot().lanes;
    expect(led).toMatchObject({ status: 'cancelled', cancel: { socket: 'kept', reason: 'navigated away' } });
    expect(led?.attempts).toEqual([{ attempt: 1, status: undefined, outcome: 'kept' }]);
    expect(stayed).toMatchObject({ status: 'coalesced', leader: leader.id, done: true });
    expect(vendor.ledger.map((entry) => entry.hungUp)).toEqual([false]);
  });

  it('a cancel between attempts closes no socket: none was open, as the vendor saw', async () => {
    const { vendor, engine } = await startScenario();
    const model = createDevtoolsModel(engine);
    vendor.script('hold');
    const get = stitch({ name: uniqueKey('backoff'), url: vendor.url('/backoff'), retry: 2, circuit: false });
    const leaving = new AbortController();
    const run = get(undefined, { engine, signal: leaving.signal });
    await vendor.arrival(1);
    vendor.release(1, { status: 503 });
    await until(run, 'retry');
    leaving.abort(new Error('left during the backoff'));
    await rejection(run);

    const [lane] = model.getSnapshot().lanes;
    expect(lane).toMatchObject({
      status: 'cancelled',
      cancel: { phase: 'backoff', dispatched: true, socket: 'none', reason: 'left during the backoff' },
    });
    expect(vendor.ledger.map((entry) => [entry.answered, entry.hungUp])).toEqual([[true, false]]);
    model.dispose();
  });

  it('an attempt whose body a deadline cut, or its caller cancelled, says so: not answered at its head', async () => {
    const { vendor, engine, clock } = await startScenario();
    const model = createDevtoolsModel(engine);
    const body = {
      fault: 'slow-body',
      headers: { 'content-type': 'application/json' },
      chunks: ['{"a":', '1}'],
    } as const;
    vendor.script(body, { body: { a: 2 } });
    const slow = stitch({
      name: uniqueKey('slow'),
      url: vendor.url('/slow'),
      retry: { attempts: 2, backoff: { base: 0 } },
      timeout: { each: 1_000 },
    });
    const timed = slow(undefined, { engine });
    await until(timed, 'response');
    await clock.advance(1_000);
    await expect(timed).resolves.toEqual({ a: 2 });
    expect(model.getSnapshot().lanes[0]?.attempts).toEqual([
      { attempt: 1, status: 200, outcome: 'timeout' },
      { attempt: 2, status: 200, outcome: 'answered' },
    ]);

    vendor.script(body);
    const leaving = new AbortController();
    const cut = slow(undefined, { engine, signal: leaving.signal });
    await until(cut, 'response');
    leaving.abort(new Error('left mid-body'));
    await rejection(cut);
    expect(model.getSnapshot().lanes[1]).toMatchObject({
      status: 'cancelled',
      attempts: [{ attempt: 1, status: 200, outcome: 'cancelled' }],
    });
    model.dispose();
  });

  it('a re-issue answered from its idempotency record is a recorded lane, not an answered one', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { id: 1 } }) });
    const model = createDevtoolsModel(engine);
    const charge = stitch({
      name: uniqueKey('charge'),
      method: 'POST',
      url: vendor.url('/charges'),
      idempotency: { keyOf: () => 'order-1' },
    });
    await charge({ body: {} }, { engine });
    await charge({ body: {} }, { engine });
    // Oldest first: the write, then its re-issue.
    expect(model.getSnapshot().lanes.map((lane) => lane.status)).toEqual(['answered', 'recorded']);
    expect(vendor.requests()).toBe(1);
    model.dispose();
  });

  it('breakers with their next probe, throttle queues, cache readers and the invalidate/refetch actions', async () => {
    const { vendor, engine, clock } = await startScenario();
    const model = createDevtoolsModel(engine);
    const breaker = uniqueKey('vendor');
    const lane = uniqueKey('lane');
    const failing = stitch({
      name: uniqueKey('down'),
      url: vendor.url('/down'),
      retry: 1,
      circuit: { key: breaker, failures: 1, cooldown: 2_000 },
    });
    vendor.script({ status: 500 });
    await rejection(failing(undefined, { engine }));
    expect(model.getSnapshot().breakers).toEqual([
      { key: breaker, state: { state: 'open', until: clock.now() + 2_000 } },
    ]);

    vendor.script('hold');
    const slow = stitch({
      name: uniqueKey('slow'),
      url: vendor.url('/slow'),
      throttle: { key: lane, concurrency: 1 },
      coalesce: false,
    });
    const first = slow(undefined, { engine });
    const second = slow(undefined, { engine });
    await until(second, 'queued');
    expect(model.getSnapshot().throttles).toEqual([{ key: lane, active: 1, queued: 1 }]);
    await vendor.arrival(2);
    vendor.release(2);
    await Promise.all([first, second]);
    expect(model.getSnapshot().throttles).toEqual([{ key: lane, active: 0, queued: 0 }]);

    const read = stitch({ name: uniqueKey('read'), url: vendor.url('/read'), cache: 60_000 });
    const key = engine.keyOf(read, undefined) as string;
    const leave = engine.subscribe(key, () => {});
    await read(undefined, { engine });
    const entry = () => model.getSnapshot().cache.find((item) => item.key === key);
    expect(entry()).toMatchObject({
      readers: 1,
      stitch: read.definition.name,
      snapshot: { data: { path: '/read' } },
    });
    entry()?.invalidate();
    expect(entry()?.snapshot).toMatchObject({ data: { path: '/read' }, stale: true });
    entry()?.refetch?.();
    await snapshotWhere(engine, key, (snapshot) => !snapshot.stale);
    expect(vendor.ledger.filter((item) => item.path === '/read')).toHaveLength(2);
    leave();
    expect(entry()?.readers).toBe(0);
  });
});

describe('createDevtoolsModel input', () => {
  it.each([
    ['engine', () => createDevtoolsModel({} as never)],
    ['maxLanes', () => createDevtoolsModel(createEngine(), { maxLanes: 0 })],
  ])('refuses a bad %s with a config error naming it', (field, create) => {
    expect(create).toThrowError(expect.objectContaining({ kind: 'config', field }));
  });
});
