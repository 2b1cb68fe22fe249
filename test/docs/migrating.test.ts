/**
 * docs/MIGRATING.md's app-wide error toast, run as written (its block, with `stitch-fetch` mapped
 * to the source): each failed request is toasted once, whether or not the run that started it
 * left before the failure; a cancellation is never toasted. Against a vendor on 127.0.0.1.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, onTestFinished, vi } from 'vitest';
import { type Engine, stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { createVendor } from '../helpers/vendor';

const root = join(import.meta.dirname, '../..');

/** The recipe's block as a module of its own, its `engine` exported. */
async function recipe(): Promise<Engine> {
  const markdown = readFileSync(join(root, 'docs/MIGRATING.md'), 'utf8');
  const blocks = markdown.split('```ts\n').map((rest) => rest.slice(0, rest.indexOf('\n```')));
  const block = blocks.find((code) => code.includes('const toasts: TraceSink'));
  if (!block) throw new Error('docs/MIGRATING.md has no toast recipe');
  const file = join(tmpdir(), `${uniqueKey('toasts')}.ts`);
  writeFileSync(
    file,
    `${block.replace("'stitch-fetch'", `'${join(root, 'src/index.ts')}'`)}\nexport { engine };\n`,
  );
  onTestFinished(() => rmSync(file));
  return ((await import(file)) as { engine: Engine }).engine;
}

afterEach(() => {
  vi.restoreAllMocks();
});

it('toasts each failed request once, by the run that started it even when it left first; never a cancel', async () => {
  const vendor = await createVendor({ respond: () => 'hold' });
  onTestFinished(() => vendor.close());
  const engine = await recipe();
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  const getUser = stitch({ name: uniqueKey('getUser'), url: vendor.url('/users/{id}'), retry: false });
  const gone = { status: 404, body: { error: 'no such user' } };

  // Three runs share one request: one toast.
  const shared = [1, 2, 3].map(() => getUser({ params: { id: 1 } }, { engine }).safe());
  await vendor.arrival(1);
  vendor.release(1, gone);
  await Promise.all(shared);
  expect(warn).toHaveBeenCalledTimes(1);

  // The run that started it leaves; the one that joined it sees the failure: one toast.
  const route = new AbortController();
  const left = getUser({ params: { id: 2 } }, { engine, signal: route.signal }).safe();
  const stayed = getUser({ params: { id: 2 } }, { engine }).safe();
  await vendor.arrival(2);
  route.abort(new Error('navigated away'));
  await left;
  vendor.release(2, gone);
  expect((await stayed).error).toMatchObject({ kind: 'http', status: 404 });
  expect(warn).toHaveBeenCalledTimes(2);

  // A cancel alone: no toast.
  const alone = new AbortController();
  const cancelled = getUser({ params: { id: 3 } }, { engine, signal: alone.signal }).safe();
  await vendor.arrival(3);
  alone.abort();
  await cancelled;
  expect(warn).toHaveBeenCalledTimes(2);
});
