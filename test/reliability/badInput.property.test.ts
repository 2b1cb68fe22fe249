/**
 * Issue 12, item 2, over generated hostile inputs: whatever a caller passes that cannot be sent
 * as it is (CR/LF/NUL in header values or idempotency keys, cycles, objects, functions, symbols
 * and non-finite numbers in the query or params, Map/Set/function/symbol/bigint bodies at any
 * depth, a locked stream, an options object that is not one), the call returns a run (never
 * throws), the run rejects with kind `config` naming a field, the real vendor on 127.0.0.1 sees
 * no request, and the breaker (which opens on one failure) counts nothing.
 * Replay a failure: `FC_SEED=<printed seed> npx vitest run test/reliability/badInput.property.test.ts`.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { isStitchError, type StitchInput, type StitchRun, stitch } from '../../src/index';
import { fastCheckRun } from '../helpers/fastCheck';
import { uniqueKey } from '../helpers/keys';
import { startScenario } from '../helpers/runs';

const replay = fastCheckRun();

/** A case: the input and call options to try, and the field the error must name. */
interface Hostile {
  input: unknown;
  options: Record<string, unknown>;
  field: RegExp;
}

const controlChar = fc.constantFrom('\r', '\n', '\0', '\r\n');
/** A printable string with a CR, LF or NUL somewhere in it. */
const withControl = fc
  .tuple(fc.string({ maxLength: 8 }), controlChar, fc.string({ maxLength: 8 }))
  .map(([a, c, b]) => `${a}${c}${b}`);

const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/);

/** A value a URL cannot carry as it is. */
const notScalar = fc.oneof(
  fc.object({ maxDepth: 1 }),
  fc.constantFrom(
    () => 'source code',
    Symbol('s'),
    Number.NaN,
    Number.POSITIVE_INFINITY,
    10n,
    new Date(0),
    new Map(),
  ),
);

/** A value JSON would silently turn into `{}`, `null` or nothing. */
const notJson = fc.constantFrom<unknown>(
  new Map([['a', 1]]),
  new Set([1]),
  () => 1,
  Symbol('s'),
  10n,
  Number.NaN,
  Number.NEGATIVE_INFINITY,
);

/** `value` placed at a random depth inside JSON-like data (objects and lists). */
const buried = (value: fc.Arbitrary<unknown>) =>
  fc
    .tuple(value, fc.array(fc.tuple(name, fc.boolean()), { maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }))
    .map(([inner, path, sibling]) =>
      path.reduceRight<unknown>(
        (acc, [key, asList]) => (asList ? [sibling, acc] : { [key]: acc, sibling }),
        inner,
      ),
    );

/** A cycle placed somewhere in an object, from `depth` levels down back to the top. */
const cyclic = fc
  .tuple(fc.array(name, { minLength: 1, maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }))
  .map(([path, sibling]) => {
    const top: Record<string, unknown> = { sibling };
    let at = top;
    for (const key of path.slice(0, -1)) {
      const next: Record<string, unknown> = {};
      at[key] = next;
      at = next;
    }
    at[path.at(-1) as string] = top;
    return top;
  });

const hostile: fc.Arbitrary<Hostile> = fc.oneof(
  withControl.map((value) => ({ input: { headers: { 'x-note': value } }, options: {}, field: /^headers\./ })),
  withControl.map((key) => ({ input: {}, options: { idempotencyKey: key }, field: /^idempotencyKey$/ })),
  fc.tuple(name, notScalar).map(([key, value]) => ({
    input: { query: { [key]: value } },
    options: {},
    field: /^query\./,
  })),
  fc.tuple(name, notScalar).map(([key, value]) => ({
    input: { query: { ok: 'x', [key]: ['fine', value] } },
    options: {},
    field: /^query\./,
  })),
  fc.tuple(name, notScalar).map(([key, value]) => ({
    input: { params: { id: 1, [key]: value } },
    options: {},
    field: /^params\./,
  })),
  cyclic.map((query) => ({ input: { query }, options: {}, field: /^query\./ })),
  cyclic.map((params) => ({ input: { params: { id: 1, ...params } }, options: {}, field: /^params\./ })),
  cyclic.map((body) => ({ input: { body }, options: {}, field: /^body$/ })),
  buried(notJson).map((body) => ({ input: { body }, options: {}, field: /^body$/ })),
  fc.constantFrom<unknown>({}, 'signal', 42, { aborted: false }).map((signal) => ({
    input: {},
    options: { signal },
    field: /^signal$/,
  })),
);

it('refuses every hostile input as config: no throw, no request, nothing counted', async () => {
  const { vendor, engine } = await startScenario();
  const write = stitch({
    name: uniqueKey('write'),
    method: 'POST',
    url: vendor.url('/things/{id}'),
    idempotency: true,
    retry: { attempts: 3, backoff: { base: 0 }, budget: false },
    circuit: { failures: 1 },
  });
  await fc.assert(
    fc.asyncProperty(hostile, async ({ input, options, field }) => {
      const given = { params: { id: 1 }, ...(input as StitchInput) };
      let run: StitchRun<unknown> | undefined;
      expect(() => {
        run = write(given, { ...options, engine });
      }).not.toThrow();
      const result = await (run as StitchRun<unknown>).safe();
      expect(result.ok).toBe(false);
      const error = result.error;
      expect(isStitchError(error) && error.kind).toBe('config');
      expect(error?.field).toMatch(field);
      expect(error).toMatchObject({ requests: 0, attempts: 0, dispatched: false });
      expect(vendor.requests()).toBe(0);
      expect(await engine.circuitState(vendor.origin)).toEqual({ state: 'closed', failures: 0 });
    }),
    replay,
  );
});
