/**
 * Issue 12, item 4: `createEngine` checks its own options as `stitch()` does. Each wrong option
 * throws a `config` StitchError naming the field, instead of a TypeError later on or a silent
 * fallback (`cacheSize: NaN` once turned the cache off).
 */
import { describe, expect, it } from 'vitest';
import { createEngine, createMemoryStore, type EngineOptions, isStitchError } from '../../src/index';
import { createManualClock } from '../helpers/clock';
import { thrownBy } from '../helpers/throws';

const sink = { handle() {} };

describe('createEngine refuses bad options, naming the field', () => {
  it.each<[string, unknown, string]>([
    ['options that are not an object', 'fast', 'options'],
    ['cacheSize NaN', { cacheSize: Number.NaN }, 'cacheSize'],
    ['cacheSize -1', { cacheSize: -1 }, 'cacheSize'],
    ['cacheSize 1.5', { cacheSize: 1.5 }, 'cacheSize'],
    ["cacheSize '10'", { cacheSize: '10' }, 'cacheSize'],
    ['storeTimeout -1', { storeTimeout: -1 }, 'storeTimeout'],
    ['storeTimeout 0', { storeTimeout: 0 }, 'storeTimeout'],
    ['storeTimeout NaN', { storeTimeout: Number.NaN }, 'storeTimeout'],
    ["redact 'authorization'", { redact: 'authorization' }, 'redact'],
    ['redact [1]', { redact: [1] }, 'redact'],
    ["redact ['']", { redact: [''] }, 'redact'],
    ['clock {}', { clock: {} }, 'clock.now'],
    ['clock 42', { clock: 42 }, 'clock'],
    [
      'a clock without wallNow',
      { clock: { now: () => 0, schedule: () => () => {}, sleep: async () => {} } },
      'clock.wallNow',
    ],
    ['fetch a string', { fetch: 'fetch' }, 'fetch'],
    ['store {}', { store: {} }, 'store.get'],
    ['a store without update', { store: { get() {}, set() {}, delete() {} } }, 'store.update'],
    ['trace {}', { trace: {} }, 'trace.handle'],
    ['a trace list with a non-sink', { trace: [sink, 'log'] }, 'trace[1]'],
    ['a misspelt option', { cachesize: 10 }, 'cachesize'],
    ['an option of another library', { defaultOptions: {} }, 'defaultOptions'],
  ])('%s', (_label, options, field) => {
    const error = thrownBy(() => createEngine(options as EngineOptions));
    expect(isStitchError(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'config', field });
    expect((error as Error).message).toContain(`\`${field}\``);
  });

  it('a getter or a proxy trap that throws is a config error naming the options, its cause kept', () => {
    const thrown = new Error('not loaded yet');
    for (const options of [
      {
        get fetch(): never {
          throw thrown;
        },
      },
      new Proxy(
        {},
        {
          ownKeys: () => {
            throw thrown;
          },
        },
      ),
    ]) {
      const error = thrownBy(() => createEngine(options as EngineOptions));
      expect(error).toMatchObject({ kind: 'config', field: 'options', cause: thrown });
    }
  });

  it('lists the options there are beside a misspelt one', () => {
    expect(thrownBy(() => createEngine({ cachesize: 10 } as EngineOptions))).toMatchObject({
      message:
        'createEngine: `cachesize` is not an option (fetch, store, clock, trace, redact, cacheSize, storeTimeout, headers)',
    });
  });
});

describe('createEngine takes good options as they are', () => {
  it('accepts every option at its edges', () => {
    const clock = createManualClock();
    expect(() =>
      createEngine({
        clock,
        store: createMemoryStore(),
        fetch: globalThis.fetch,
        trace: [sink, sink],
        redact: ['x-tenant'],
        cacheSize: 0,
        storeTimeout: Number.POSITIVE_INFINITY,
      }),
    ).not.toThrow();
    expect(() => createEngine({ cacheSize: Number.POSITIVE_INFINITY, trace: sink })).not.toThrow();
    expect(() => createEngine(undefined)).not.toThrow();
  });

  it('accepts a store that shares state itself (like stitch-fetch/redis’s), which is no `Store`', () => {
    const shared = { circuit() {}, claim() {}, settle() {} };
    expect(() => createEngine({ store: shared as unknown as EngineOptions['store'] })).not.toThrow();
    // Half of one is neither: it is checked as a `Store`.
    const half = thrownBy(() =>
      createEngine({ store: { circuit() {} } as unknown as EngineOptions['store'] }),
    );
    expect(half).toMatchObject({ kind: 'config', field: 'store.get' });
  });
});
