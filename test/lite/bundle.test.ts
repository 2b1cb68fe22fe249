/**
 * A policy reaches a bundle only when the app imports it: an app's bundle of `stitch-fetch/lite`
 * is built here with esbuild (minified, tree-shaken as an app's bundler would) and searched for
 * each policy's own messages. The size budgets in `.size-limit.json` measure the same imports.
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** A message only each policy's code holds (its validation, and its runtime). */
const MARKERS = {
  circuit: ['circuit.cooldown', 'corrupt breaker state'],
  throttle: ['throttle.concurrency', 'waited longer than maxWait'],
  retry: ['retry.backoff.base', 'retry.budget.ratio'],
  idempotency: ['must be a boolean or { keyOf, header }', 'idempotency:${'],
};

/** The minified bundle of an app whose entry is `source`. */
async function bundle(source: string): Promise<string> {
  const result = await build({
    stdin: {
      contents: source,
      resolveDir: new URL('../../src/lite', import.meta.url).pathname,
      loader: 'ts',
    },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
  });
  return result.outputFiles[0]?.text ?? '';
}

/** The policies whose code `code` holds. */
const policiesIn = (code: string) =>
  Object.entries(MARKERS)
    .filter(([, markers]) => markers.some((marker) => code.includes(marker)))
    .map(([policy]) => policy);

describe('stitch-fetch/lite bundles', () => {
  it('carry no policy for a stitch that names none', async () => {
    const code = await bundle(`import { stitch } from './index';
      import { createEngine } from '../index';
      export const search = stitch({ name: 'search', url: 'https://api.example.com/search', timeout: 5_000 });
      export const engine = createEngine();`);
    expect(policiesIn(code)).toEqual([]);
  });

  it('carry the policies the app imports, and only those', async () => {
    const code = await bundle(`import { stitch, retry } from './index';
      export const search = stitch({ name: 'search', url: 'https://api.example.com/search', retry: retry(3) });`);
    expect(policiesIn(code)).toEqual(['retry']);
    const all = await bundle(`import { stitch, retry, circuit, throttle } from './index';
      export const search = stitch({
        name: 'search', url: 'https://api.example.com/search',
        retry: retry(3), circuit: circuit(), throttle: throttle({ concurrency: 4 }),
      });`);
    expect(policiesIn(all)).toEqual(['circuit', 'throttle', 'retry']);
    const keyed = await bundle(`import { stitch, idempotency } from './index';
      export const charge = stitch({ name: 'charge', method: 'POST', url: 'https://api.example.com/charges', idempotency: idempotency() });`);
    expect(policiesIn(keyed)).toEqual(['idempotency']);
  });

  it('of the main entry carry every policy, since it takes options objects', async () => {
    const code = await bundle(`export { stitch } from '../index';`);
    expect(policiesIn(code)).toEqual(['circuit', 'throttle', 'retry', 'idempotency']);
  });
});
