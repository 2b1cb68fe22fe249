/**
 * A stitch's `input` Standard Schema runs before anything else: a bad input is `kind: 'invalid'`
 * with the validator's issues as `cause`, nothing sent and nothing counted by the breaker; a good
 * one is sent as the schema outputs it. An asynchronous validator is a wait the caller's abort
 * ends at once. Against the real vendor.
 */
import { getEventListeners } from 'node:events';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type StandardSchemaV1, type StitchInput, stitch } from '../../../src/index';
import { uniqueKey } from '../../helpers/keys';
import { startScenario } from '../../helpers/runs';

const SearchInput = z.object({ query: z.object({ q: z.string().trim().min(1) }) });

/** An asynchronous validator that accepts every input once `wait()` settles. */
const gated = (wait: () => Promise<void>): StandardSchemaV1<StitchInput, StitchInput> => ({
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: async (value) => {
      await wait();
      return { value: value as StitchInput };
    },
  },
});

describe('the input schema', () => {
  it('refuses a bad input as invalid, with the issues as cause; nothing is sent or counted', async () => {
    const { vendor, engine } = await startScenario();
    const search = stitch({
      name: uniqueKey('search'),
      url: vendor.url('/search'),
      input: SearchInput,
      circuit: { failures: 1, cooldown: 60_000 },
    });
    for (let i = 0; i < 3; i++) {
      const { error } = await search({ query: { q: '   ' } }, { engine }).safe();
      expect(error).toMatchObject({ kind: 'invalid', requests: 0, dispatched: false, retryable: false });
      const issues = error?.cause as Array<{ path: unknown[] }>;
      expect(Array.isArray(issues)).toBe(true);
      expect(issues[0]?.path).toEqual(['query', 'q']);
    }
    expect(vendor.requests()).toBe(0);
    expect(await engine.circuitState(new URL(vendor.origin).origin)).toMatchObject({
      state: 'closed',
      failures: 0,
    });
  });

  it('sends what the schema outputs, and keys the cache by what the caller passed', async () => {
    const { vendor, engine } = await startScenario({
      respond: (entry) => ({ body: { q: entry.query.get('q') } }),
    });
    const search = stitch({
      name: uniqueKey('trimmed'),
      url: vendor.url('/search'),
      input: SearchInput,
      cache: { ttl: 60_000 },
    });
    const raw = { query: { q: '  ada  ' } };
    await expect(search(raw, { engine })).resolves.toEqual({ q: 'ada' });
    expect(vendor.ledger[0]?.query.get('q')).toBe('ada');
    expect(engine.getSnapshot(engine.keyOf(search, raw) as string).data).toEqual({ q: 'ada' });
  });

  it('a validator that throws is invalid too, and the call still does not throw', async () => {
    const { vendor, engine } = await startScenario();
    const broken: StandardSchemaV1<StitchInput, StitchInput> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: () => {
          throw new Error('validator bug');
        },
      },
    };
    const read = stitch({ name: uniqueKey('broken'), url: vendor.url('/x'), input: broken });
    const run = read(undefined, { engine });
    const { error } = await run.safe();
    expect(error).toMatchObject({ kind: 'invalid', requests: 0 });
    expect(error?.cause).toMatchObject({ message: 'validator bug' });
    expect((await run.report()).events.map((event) => event.type)).toEqual(['start', 'error', 'done']);
  });

  it.each([
    ["another realm's promise", (value: unknown) => runInNewContext('(v) => Promise.resolve(v)')(value)],
    [
      'a thenable',
      // biome-ignore lint/suspicious/noThenProperty: a thenable is what this case is about.
      (value: unknown) => ({ then: (resolve: (v: unknown) => void) => resolve(value) }),
    ],
  ])(
    'an asynchronous validator answering with %s is awaited: its refusal stands, nothing is sent',
    async (_, later) => {
      const { vendor, engine } = await startScenario();
      const issues = [{ message: 'q is too short', path: ['query', 'q'] }];
      const refusing = {
        '~standard': { version: 1, vendor: 'test', validate: () => later({ issues }) },
      } as StandardSchemaV1<StitchInput, StitchInput>;
      const search = stitch({ name: uniqueKey('realm'), url: vendor.url('/search'), input: refusing });
      const { error } = await search({ query: { q: 'a' } }, { engine }).safe();
      expect(error).toMatchObject({
        kind: 'invalid',
        requests: 0,
        message: expect.stringContaining('q is too short'),
      });
      expect(error?.cause).toEqual(issues);
      expect(vendor.requests()).toBe(0);
    },
  );

  it('an asynchronous validator waits, and a caller abort or run.cancel ends the wait with its reason', async () => {
    const { vendor, engine } = await startScenario({ respond: () => ({ body: { ok: true } }) });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = gated(() => gate);
    const read = stitch({ name: uniqueKey('slow'), url: vendor.url('/items/{id}'), input: slow });
    const controller = new AbortController();
    // A bad input (no id) still ends as the caller's abort: nothing is built before validation.
    const cancelled = read({ params: {} } as never, { engine, signal: controller.signal });
    const reason = new Error('user navigated away');
    controller.abort(reason);
    const { error } = await cancelled.safe();
    expect(error).toMatchObject({ kind: 'aborted', name: 'AbortError', requests: 0 });
    expect(error?.cause).toBe(reason);
    expect((await cancelled.report()).events.map((event) => event.type)).toEqual(['start', 'cancel', 'done']);

    // A run.cancel ends the wait too, and leaves nothing on the caller's (long-lived) signal.
    const route = new AbortController();
    const dropped = read({ params: { id: 2 } }, { engine, signal: route.signal });
    const gone = new Error('the panel closed');
    dropped.cancel(gone);
    expect((await dropped.safe()).error).toMatchObject({ kind: 'aborted', cause: gone, requests: 0 });
    expect(getEventListeners(route.signal, 'abort')).toHaveLength(0);

    const waiting = read({ params: { id: 1 } }, { engine });
    release();
    await expect(waiting).resolves.toEqual({ ok: true });
    expect(vendor.requests()).toBe(1);
  });

  it('the total timeout bounds an asynchronous validator, and the call proper gets what is left of it', async () => {
    const { vendor, engine, clock } = await startScenario({ respond: () => 'hold' });
    let wait: Promise<void> = new Promise(() => {});
    const slow = gated(() => wait);
    const read = stitch({
      name: uniqueKey('slow'),
      url: vendor.url('/items/{id}'),
      input: slow,
      timeout: { total: 1_000 },
      retry: false,
    });

    // A validator that never settles: the deadline ends the call, nothing is sent.
    const stuck = read({ params: { id: 1 } }, { engine });
    await clock.untilPending();
    await clock.advance(1_000);
    const { error } = await stuck.safe();
    expect(error).toMatchObject({ kind: 'timeout', phase: 'total', requests: 0, dispatched: false });
    expect((await stuck.report()).events.map((event) => event.type)).toEqual([
      'start',
      'timeout',
      'error',
      'done',
    ]);
    expect(clock.pending()).toBe(0);

    // One that takes 600 ms leaves the request 400.
    wait = clock.sleep(600);
    const late = read({ params: { id: 2 } }, { engine });
    await clock.advance(600);
    await vendor.arrival(1);
    await clock.advance(399);
    expect(vendor.requests()).toBe(1);
    await clock.advance(1);
    expect((await late.safe()).error).toMatchObject({ kind: 'timeout', phase: 'total', requests: 1 });
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
  });

  it('a definition with a non-schema input is a config error naming the field', () => {
    expect(() =>
      stitch({ name: uniqueKey('bad'), url: 'https://api.test/x', input: { parse() {} } as never }),
    ).toThrow(expect.objectContaining({ kind: 'config', field: 'input' }));
  });
  it('keys the input as given, not as the URL reads it: a schema that renames or moves fields never mixes two requests', async () => {
    const { vendor, engine } = await startScenario({
      respond: (entry) => ({ body: { url: entry.url } }),
    });
    const user = stitch<{ url: string }, StitchInput>({
      name: uniqueKey('user'),
      url: vendor.url('/users/{id}'),
      cache: { ttl: 60_000 },
      // `userId` is not a placeholder of the template; the schema makes it the `id` that is.
      input: z
        .object({ params: z.object({ userId: z.string() }) })
        .transform((value) => ({ params: { id: value.params.userId } })),
    });
    expect(await user({ params: { userId: 'alice' } }, { engine })).toEqual({ url: '/users/alice' });
    expect(await user({ params: { userId: 'bob' } }, { engine })).toEqual({ url: '/users/bob' });
    const search = stitch<{ url: string }, StitchInput>({
      name: uniqueKey('search'),
      url: vendor.url('/search'),
      input: z
        .object({ params: z.object({ q: z.string() }) })
        .transform((value) => ({ query: { q: value.params.q } })),
    });
    const both = [search({ params: { q: 'ada' } }, { engine }), search({ params: { q: 'bob' } }, { engine })];
    expect(await Promise.all(both)).toEqual([{ url: '/search?q=ada' }, { url: '/search?q=bob' }]);
    expect(vendor.requests()).toBe(4);
  });
});
