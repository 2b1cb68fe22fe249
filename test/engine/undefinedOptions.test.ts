/**
 * An optional field given as `undefined` is one left out, as the types say (test/types/
 * exactOptional.test.ts): apps pass props and settings that may be unset.
 */
import { describe, expect, it } from 'vitest';
import { circuit, createEngine, mutate, prefetch, retry, stitch, throttle } from '../../src/index';
import { retry as liteRetry, stitch as liteStitch } from '../../src/lite/index';
import { createManualClock } from '../helpers/clock';
import { uniqueKey } from '../helpers/keys';

const json = () => new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
const URL_ = 'https://api.test/items';

/** Every optional field of a stitch's configuration, each `undefined`. */
const unset = {
  method: undefined,
  baseUrl: undefined,
  headers: undefined,
  output: undefined,
  input: undefined,
  responseType: undefined,
  maxBodyBytes: undefined,
  retry: undefined,
  timeout: undefined,
  circuit: undefined,
  throttle: undefined,
  cache: undefined,
  coalesce: undefined,
  redirect: undefined,
  idempotency: undefined,
  hooks: undefined,
};

/**
 * A definition as plain data, without its name (which differs between the stitches compared):
 * a function as its source text, since each stitch has closures of its own.
 */
const shape = ({ name: _, ...definition }: { name: string }): unknown => {
  const plain = (value: unknown): unknown => {
    if (typeof value === 'function') return `function ${value.toString()}`;
    if (Array.isArray(value)) return value.map(plain);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, plain(field)]));
  };
  return plain(definition);
};

describe('an optional field given as undefined', () => {
  it('defines the same stitch as one left out', () => {
    const plain = stitch({ name: uniqueKey('plain'), url: URL_ });
    const given = stitch({ name: uniqueKey('given'), url: URL_, ...unset });
    expect(shape(given.definition)).toEqual(shape(plain.definition));
  });

  it('defines the same lite stitch and policies as ones left out', () => {
    const plain = liteStitch({ name: uniqueKey('plain'), url: URL_, retry: liteRetry({}) });
    const given = liteStitch({
      name: uniqueKey('given'),
      url: URL_,
      ...unset,
      retry: liteRetry({ attempts: undefined, backoff: undefined, on: undefined }),
    });
    expect(shape(given.definition)).toEqual(shape(plain.definition));
    const policies = (unset: Record<'retry' | 'circuit' | 'throttle', object>) =>
      shape(
        stitch({
          name: uniqueKey('policies'),
          url: URL_,
          retry: retry(unset.retry),
          circuit: circuit(unset.circuit),
          throttle: throttle({ concurrency: 2, ...unset.throttle }),
        }).definition,
      );
    expect(
      policies({
        retry: { attempts: undefined },
        circuit: { failures: undefined, cooldown: undefined, key: undefined },
        throttle: { rate: undefined, key: undefined },
      }),
    ).toEqual(policies({ retry: {}, circuit: {}, throttle: {} }));
  });

  it('creates an engine, calls, prefetches and mutates as if left out', async () => {
    const engine = createEngine({
      fetch: async () => json(),
      clock: createManualClock(),
      store: undefined,
      trace: undefined,
      redact: undefined,
      cacheSize: undefined,
      storeTimeout: undefined,
    });
    const read = stitch({ name: uniqueKey('read'), url: URL_ });
    const write = stitch({ name: uniqueKey('write'), url: URL_, method: 'POST' });
    const none = { signal: undefined, idempotencyKey: undefined, revalidate: undefined };
    await expect(read({}, { engine, ...none })).resolves.toEqual({ ok: true });
    await expect(
      prefetch(read, {}, { engine, signal: undefined, revalidate: undefined }),
    ).resolves.toMatchObject({
      ok: true,
    });
    const settled: unknown[] = [];
    await expect(
      mutate(
        write,
        {},
        {
          engine,
          signal: undefined,
          onMutate: undefined,
          onSuccess: undefined,
          onError: undefined,
          onSettled: (data) => settled.push(data),
          invalidates: undefined,
        },
      ),
    ).resolves.toEqual({ ok: true });
    expect(settled).toEqual([{ ok: true }]);
  });
});
