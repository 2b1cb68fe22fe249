/**
 * SPEC §5, third finding: in StitchAPI the coalescer's ref-counted cancel was written but
 * unreachable: an aborting follower was ignored and later got the leader's data; an aborting
 * leader made the follower re-run (2 vendor requests for one logical read). Law 4: each caller is
 * one reference; a caller that aborts rejects alone and at once; the shared request goes on for
 * the others and is never re-sent; only the last reference to leave closes its socket.
 */
import { describe, expect, it } from 'vitest';
import { stitch } from '../../../src/index';
import { uniqueKey } from '../../helpers/keys';
import { eventTypes, rejection, spyHooks, startScenario, until } from '../../helpers/runs';

/** Every test here reads user 7 through one stitch, so concurrent callers share a request. */
async function setup() {
  const scenario = await startScenario();
  const hooks = spyHooks();
  const getUser = stitch<{ id: number; name: string }>({
    name: uniqueKey('getUser'),
    url: scenario.vendor.url('/users/{id}'),
    retry: false,
    hooks,
  });
  const input = { params: { id: 7 } };
  return { ...scenario, hooks, getUser, input };
}

const ada = { id: 7, name: 'Ada' };

describe('two callers of one read share one request', () => {
  it('a follower that aborts rejects alone and at once; the leader gets the data, 1 request', async () => {
    const { vendor, engine, hooks, getUser, input } = await setup();
    vendor.script('hold');
    const leader = getUser(input, { engine });
    const followerController = new AbortController();
    const follower = getUser(input, { engine, signal: followerController.signal });
    await vendor.arrival(1);

    const reason = new Error('follower unmounted');
    followerController.abort(reason);
    // Awaited before the vendor answers: the follower does not wait for the shared request.
    const error = await rejection(follower);
    expect(error).toMatchObject({ kind: 'aborted', name: 'AbortError' });
    expect(error.cause).toBe(reason);
    expect(vendor.ledger[0]).toMatchObject({ answered: false, hungUp: false });

    vendor.release(1, { body: ada });
    await expect(leader).resolves.toEqual(ada);
    expect(vendor.requests()).toBe(1);
    expect(await vendor.finished(1)).toMatchObject({ answered: true, hungUp: false });
    await expect(vendor.hangUp(1)).rejects.toThrow('was answered, not hung up');

    expect(await leader.report()).toMatchObject({ outcome: 'success', source: 'live', requests: 1 });
    expect(await follower.report()).toMatchObject({
      outcome: 'cancelled',
      cancelled: true,
      source: 'coalesced',
    });
    expect(eventTypes((await follower.report()).events)).not.toContain('success');
    expect(hooks.onCancel).toHaveBeenCalledOnce();
    expect(hooks.onError).not.toHaveBeenCalled();
  });

  it('a leader that aborts leaves the follower the same request: it gets the data, 1 request', async () => {
    const { vendor, engine, hooks, getUser, input } = await setup();
    vendor.script('hold');
    const leaderController = new AbortController();
    const leader = getUser(input, { engine, signal: leaderController.signal });
    const follower = getUser(input, { engine });
    await vendor.arrival(1);

    const reason = new Error('leader unmounted');
    leaderController.abort(reason);
    expect((await rejection(leader)).cause).toBe(reason);

    vendor.release(1, { body: ada });
    await expect(follower).resolves.toEqual(ada);
    expect(vendor.requests()).toBe(1);
    expect(await vendor.finished(1)).toMatchObject({ answered: true, hungUp: false });

    const report = await follower.report();
    expect(report).toMatchObject({ outcome: 'success', source: 'coalesced', requests: 1, attempts: 1 });
    // The joiner's own log says whom it joined, and shows the one request it shared.
    expect(report.events.find((event) => event.type === 'coalesce')).toMatchObject({ leader: leader.id });
    expect(report.events.filter((event) => event.type === 'request')).toHaveLength(1);
    expect(hooks.onCancel).toHaveBeenCalledOnce();
    expect(hooks.onError).not.toHaveBeenCalled();
  });

  it('when both abort, the last one closes the socket, and the next caller starts afresh', async () => {
    const { vendor, engine, clock, hooks, getUser, input } = await setup();
    vendor.script('hold');
    const first = new AbortController();
    const second = new AbortController();
    const leader = getUser(input, { engine, signal: first.signal });
    const follower = getUser(input, { engine, signal: second.signal });
    await vendor.arrival(1);

    const leaderReason = new Error('leader left');
    first.abort(leaderReason);
    expect((await rejection(leader)).cause).toBe(leaderReason);
    // One reference is still held: the request stays open.
    expect(vendor.ledger[0]).toMatchObject({ answered: false, hungUp: false });

    const followerReason = new Error('follower left');
    second.abort(followerReason);
    expect((await rejection(follower)).cause).toBe(followerReason);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true, answered: false });

    const next = getUser(input, { engine });
    await expect(next).resolves.toEqual({ path: '/users/7', query: {} });
    expect(vendor.requests()).toBe(2);
    expect(vendor.ledger.map((entry) => [entry.path, entry.answered, entry.hungUp])).toEqual([
      ['/users/7', false, true],
      ['/users/7', true, false],
    ]);
    expect((await next.report()).source).toBe('live');
    expect(hooks.onCancel).toHaveBeenCalledTimes(2);
    expect(hooks.onError).not.toHaveBeenCalled();
    expect(clock.pending()).toBe(0);
    // The trace tells the two cancels apart: the first left the request to the other caller,
    // the last one stopped it.
    const cancelOf = async (run: typeof leader) =>
      (await run.report()).events.find((event) => event.type === 'cancel');
    expect(await cancelOf(leader)).toMatchObject({ dispatched: true, shared: true });
    expect(await cancelOf(follower)).toMatchObject({ dispatched: true, shared: false });
  });
});

describe('the report of a caller who left', () => {
  it('keeps what was done for it: the retries the shared request makes for the others are not its own', async () => {
    const { vendor, engine, clock } = await startScenario();
    vendor.script('hold', { body: ada });
    const getUser = stitch<{ id: number; name: string }>({
      name: uniqueKey('getUser'),
      url: vendor.url('/users/{id}'),
      retry: { attempts: 3, backoff: { base: 100, jitter: 'none' } },
    });
    const input = { params: { id: 7 } };
    const controller = new AbortController();
    const leader = getUser(input, { engine, signal: controller.signal });
    const follower = getUser(input, { engine });
    await vendor.arrival(1);
    controller.abort(new Error('navigated away'));
    const error = await rejection(leader);
    expect(error).toMatchObject({ attempts: 1, requests: 1, dispatched: true });
    const atCancel = await leader.report();

    vendor.release(1, { status: 503 });
    await until(follower, 'retry');
    await clock.advance(100);
    await expect(follower).resolves.toEqual(ada);
    expect(vendor.requests()).toBe(2);

    const after = await leader.report();
    expect(after).toEqual(atCancel);
    expect(after).toMatchObject({ outcome: 'cancelled', attempts: 1, requests: 1, status: undefined });
  });
});

describe('a shared failure', () => {
  it('a 503 reaches all three references from one request, counted once', async () => {
    const { vendor, engine, hooks, getUser, input } = await setup();
    vendor.script('hold');
    const runs = [getUser(input, { engine }), getUser(input, { engine }), getUser(input, { engine })];
    await vendor.arrival(1);
    vendor.release(1, { status: 503, body: { error: 'busy' } });

    const errors = await Promise.all(runs.map(rejection));
    for (const error of errors) {
      expect(error).toMatchObject({ kind: 'http', status: 503, requests: 1, dispatched: true });
    }
    expect(vendor.requests()).toBe(1);
    const reports = await Promise.all(runs.map((run) => run.report()));
    expect(reports.map((report) => [report.outcome, report.source])).toEqual([
      ['error', 'live'],
      ['error', 'coalesced'],
      ['error', 'coalesced'],
    ]);
    // Breaker and hooks account for the shared request once, not once per reference.
    expect(hooks.onError).toHaveBeenCalledOnce();
    expect(await engine.circuitState(vendor.origin)).toEqual({ state: 'closed', failures: 1 });
  });
});
