/**
 * `stitch-fetch/lite`: policies are values (`retry(…)`, `circuit(…)`, `throttle(…)`), a stitch
 * without one has none (no breaker, one attempt, no throttle), and an options object is a config
 * error naming the field. The values work on the main entry too. Against the real vendor.
 */
import { describe, expect, it } from 'vitest';
import {
  isStitchError,
  circuit as mainCircuit,
  retry as mainRetry,
  stitch as mainStitch,
} from '../../src/index';
import { circuit, idempotency, retry, stitch, throttle } from '../../src/lite/index';
import { uniqueKey } from '../helpers/keys';
import { rejection, startScenario, until } from '../helpers/runs';
import { thrownBy } from '../helpers/throws';

describe('stitch-fetch/lite', () => {
  it('has no breaker and one attempt unless the stitch names them', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ status: 503 }) });
    const search = stitch({ name: uniqueKey('search'), url: vendor.url('/search') });
    for (let call = 1; call <= 7; call++) {
      const error = await rejection(search({}, { engine }));
      expect(error).toMatchObject({ kind: 'http', status: 503, attempts: 1, requests: 1, retryable: true });
    }
    // Seven failures in a row, and each call still reached the vendor: nothing counted them.
    expect(vendor.requests()).toBe(7);
    expect(await engine.circuitState(vendor.origin)).toEqual({ state: 'closed', failures: 0 });
  });

  it('opens a breaker given as circuit(…), failing fast with nothing sent', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ status: 503 }) });
    const search = stitch({
      name: uniqueKey('search'),
      url: vendor.url('/search'),
      circuit: circuit({ failures: 2, cooldown: 60_000 }),
    });
    await rejection(search({}, { engine }));
    await rejection(search({}, { engine }));
    const refused = await rejection(search({}, { engine }));
    expect(refused).toMatchObject({ kind: 'circuit-open', requests: 0 });
    expect(vendor.requests()).toBe(2);
    expect((await engine.circuitState(vendor.origin)).state).toBe('open');
  });

  it('retries as retry(…) says, then answers', async () => {
    const { vendor, engine, clock } = await startScenario();
    vendor.script({ status: 503 }, { status: 503 }, { body: { ok: true } });
    const search = stitch({
      name: uniqueKey('search'),
      url: vendor.url('/search'),
      retry: retry({ attempts: 3, backoff: { base: 0 } }),
    });
    const run = search({}, { engine });
    // Each failure is followed by a backoff sleep: the one timer on the clock.
    for (const failed of [1, 2]) {
      await vendor.arrival(failed);
      await clock.untilPending();
      await clock.next();
    }
    await expect(run).resolves.toEqual({ ok: true });
    expect((await run.report()).attempts).toBe(3);
    expect(vendor.requests()).toBe(3);
  });

  it('queues a call behind throttle(…) until a slot frees', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script('hold', { body: 'second' });
    const search = stitch({
      name: uniqueKey('search'),
      url: vendor.url('/search'),
      responseType: 'text',
      throttle: throttle({ concurrency: 1 }),
    });
    const first = search({ query: { n: 1 } }, { engine });
    await vendor.arrival(1);
    const second = search({ query: { n: 2 } }, { engine });
    expect(await until(second, 'queued')).toMatchObject({ position: 1 });
    expect(vendor.requests()).toBe(1);
    vendor.release(1, { body: 'first' });
    await expect(first).resolves.toBe('first');
    await expect(second).resolves.toBe('second');
  });

  it('records a call under a key its caller owns with idempotency(…), and sends it once', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script({ status: 201, body: { id: 'ch_1' } });
    const charge = stitch({
      name: uniqueKey('charge'),
      method: 'POST',
      url: vendor.url('/charges'),
      idempotency: idempotency<{ body: { order: string } }>({ keyOf: (input) => input.body.order }),
    });
    await expect(charge({ body: { order: 'o-42' } }, { engine })).resolves.toEqual({ id: 'ch_1' });
    const again = charge({ body: { order: 'o-42' } }, { engine });
    await expect(again).resolves.toEqual({ id: 'ch_1' });
    expect((await again.report()).source).toBe('recorded');
    expect(vendor.requests()).toBe(1);
    expect(vendor.ledger[0]?.headers['idempotency-key']).toBe('o-42');
  });

  it('gives keyOf an empty input for a call made without one (never undefined, as typed)', async () => {
    const { vendor, engine } = await startScenario();
    vendor.script({ body: { ok: true } });
    const ping = stitch({
      name: uniqueKey('ping'),
      method: 'POST',
      url: vendor.url('/ping'),
      idempotency: idempotency({ keyOf: (input) => input.headers?.['x-order'] ?? 'no-order' }),
    });
    await expect(ping(undefined, { engine })).resolves.toEqual({ ok: true });
    expect(vendor.ledger[0]?.headers['idempotency-key']).toBe('no-order');
  });

  it("refuses a call's own idempotencyKey on a stitch without idempotency(…), sending nothing", async () => {
    const { vendor, engine } = await startScenario();
    const charge = stitch({ name: uniqueKey('charge'), method: 'POST', url: vendor.url('/charges') });
    const error = await rejection(charge({ body: {} }, { engine, idempotencyKey: 'o-42' }));
    expect(error).toMatchObject({ kind: 'config', field: 'idempotencyKey', requests: 0 });
    expect(vendor.requests()).toBe(0);
  });

  it.each([
    ['retry', { retry: { attempts: 3 } }],
    ['retry', { retry: 3 }],
    ['circuit', { circuit: { failures: 5 } }],
    ['circuit', { circuit: true }],
    ['throttle', { throttle: { concurrency: 2 } }],
    ['idempotency', { idempotency: true }],
  ])('refuses an options object for %s, naming the field', (field, policy) => {
    const error = thrownBy(() =>
      stitch({ name: 'searchUsers', url: 'https://api.example.com/search', ...(policy as object) }),
    );
    expect(isStitchError(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'config', field, stitch: 'searchUsers' });
    expect((error as Error).message).toContain(`must be ${field}(…) or false`);
  });

  it.each([
    ['circuit', { circuit: retry(3) }, 'is the value of retry(…), not of circuit(…)'],
    [
      'idempotency',
      { idempotency: throttle({ concurrency: 1 }) },
      'is the value of throttle(…), not of idempotency(…)',
    ],
    ['retry', { retry: null }, 'must be retry(…) or false'],
  ])(
    'refuses another policy’s value or no value for %s, saying which (no options-object hint)',
    (field, policy, said) => {
      const error = thrownBy(() =>
        stitch({ name: 'searchUsers', url: 'https://api.example.com/search', ...(policy as object) }),
      );
      expect(error).toMatchObject({ kind: 'config', field });
      expect((error as Error).message).toContain(said);
      expect((error as Error).message).not.toContain('options objects');
    },
  );

  it('validates a value when the stitch is defined, naming the stitch and the field', () => {
    const error = thrownBy(() =>
      stitch({ name: 'searchUsers', url: 'https://api.example.com/search', retry: retry({ attempts: 0 }) }),
    );
    expect(error).toMatchObject({ kind: 'config', stitch: 'searchUsers', field: 'retry.attempts' });
    expect(() => stitch({ name: 's', url: 'https://a.example/', throttle: throttle({}) })).toThrow(
      /`throttle` needs `concurrency` or `rate`/,
    );
  });
});

describe('policy values on the main entry', () => {
  it('take the place of the options objects', async () => {
    const { vendor, engine, clock } = await startScenario({ respond: () => ({ status: 503 }) });
    const search = mainStitch({
      name: uniqueKey('search'),
      url: vendor.url('/search'),
      retry: mainRetry({ attempts: 2, backoff: { base: 0 } }),
      circuit: mainCircuit({ failures: 2 }),
    });
    const first = search({}, { engine });
    await vendor.arrival(1);
    await clock.untilPending();
    await clock.next();
    expect(await rejection(first)).toMatchObject({ kind: 'http', attempts: 2 });
    expect(await rejection(search({}, { engine }))).toMatchObject({ kind: 'circuit-open', requests: 0 });
    expect(vendor.requests()).toBe(2);
  });
});
