import { describe, expect, it, vi } from 'vitest';
import { createEngine, type OutgoingRequest, type StitchEvent, stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { startScenario, until } from '../helpers/runs';

describe("createEngine's headers option", () => {
  it('adds headers to every attempt, told which run, stitch and attempt, and the request event shows them', async () => {
    const events: StitchEvent[] = [];
    const seen: OutgoingRequest[] = [];
    const { vendor, engine, clock } = await startScenario({
      respond: () => ({ status: 200, body: {} }),
      engine: {
        trace: { handle: (event) => events.push(event) },
        headers: (request) => {
          seen.push(request);
          return { 'x-attempt': String(request.attempt) };
        },
      },
    });
    vendor.script({ status: 503 });
    const name = uniqueKey('outgoing');
    const get = stitch({ name, url: vendor.url('/thing?token=secret'), retry: 2 });
    const run = get(undefined, { engine });
    await until(run, 'retry');
    await clock.next();
    await run;
    expect(vendor.ledger.map((entry) => entry.headers['x-attempt'])).toEqual(['1', '2']);
    const url = `${vendor.origin}/thing?token=%5Bredacted%5D`;
    expect(seen).toEqual([
      { run: run.id, stitch: name, attempt: 1, method: 'GET', url, preview: false },
      { run: run.id, stitch: name, attempt: 2, method: 'GET', url, preview: false },
    ]);
    const requests = events.filter((event) => event.type === 'request');
    expect(requests.map((event) => event.headers['x-attempt'])).toEqual(['1', '2']);
  });

  it('an async hook (its headers a promise) fails the attempt as config, naming headers, before anything is sent', async () => {
    const { vendor, engine } = await startScenario({
      engine: { headers: (async () => ({ authorization: 'Bearer token' })) as never },
    });
    const read = stitch({ name: uniqueKey('async-hook'), url: vendor.url('/x') });
    const keyed = stitch({
      name: uniqueKey('async-hook-write'),
      method: 'POST',
      url: vendor.url('/x'),
      idempotency: { keyOf: () => 'k' },
    });
    for (const run of [read(undefined, { engine }), keyed({ body: {} }, { engine })]) {
      expect((await run.safe()).error).toMatchObject({
        kind: 'config',
        field: 'headers',
        requests: 0,
        message: expect.stringContaining('returned a promise'),
      });
    }
    expect(vendor.requests()).toBe(0);
  });

  it('a hook that throws adds nothing and the request still goes', async () => {
    const { vendor, engine } = await startScenario({
      engine: {
        headers: () => {
          throw new Error('broken hook');
        },
      },
    });
    const get = stitch({ name: uniqueKey('outgoing-throws'), url: vendor.url('/thing') });
    await expect(get(undefined, { engine })).resolves.toEqual({ path: '/thing', query: {} });
    expect(vendor.requests()).toBe(1);
  });

  it('leaves out a header the hook gives no value, instead of sending the text "undefined"', async () => {
    const { vendor, engine } = await startScenario({
      engine: { headers: () => ({ traceparent: undefined, 'x-kept': 'yes' }) },
    });
    const get = stitch({ name: uniqueKey('outgoing-undefined'), url: vendor.url('/thing') });
    await get(undefined, { engine });
    expect(vendor.ledger[0]?.headers).toMatchObject({ 'x-kept': 'yes' });
    expect(vendor.ledger[0]?.headers).not.toHaveProperty('traceparent');
  });

  it('is not consulted for a call that sends nothing (a cache hit)', async () => {
    const headers = vi.fn(() => undefined);
    const { vendor, engine } = await startScenario({ engine: { headers } });
    const get = stitch({ name: uniqueKey('outgoing-cache'), url: vendor.url('/thing'), cache: 60_000 });
    await get(undefined, { engine });
    await get(undefined, { engine });
    expect(headers).toHaveBeenCalledTimes(1);
  });

  it('refuses a hook that is not a function, naming the field', () => {
    expect(() => createEngine({ headers: 'traceparent' as never })).toThrowError(
      expect.objectContaining({ kind: 'config', field: 'headers' }),
    );
  });
});
