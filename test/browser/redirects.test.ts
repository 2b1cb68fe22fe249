/**
 * Redirects in Chromium, whose fetch hides a redirect's target from script (`opaqueredirect`):
 * each request reaches the vendor once, a write included, and `redirect: 'manual'` returns the
 * hidden 3xx. Against a vendor on 127.0.0.1 (test/browser/vendor.setup.ts).
 */
import { expect, inject, it } from 'vitest';
import { createEngine, type StitchEvent, stitch } from '../../src/index';

const vendor = inject('vendor');
const seen = async (under: string): Promise<string[]> => (await fetch(`${vendor}/log?under=${under}`)).json();
const redirects = (events: readonly StitchEvent[]) => events.filter((event) => event.type === 'redirect');

it('a write answered 303 reaches the vendor once, and the engine lands where fetch followed it', async () => {
  const engine = createEngine();
  const charge = stitch({ name: 'charge', method: 'POST', url: `${vendor}/a/charge` });
  const run = charge({ body: { amount: 500 } }, { engine });
  expect(await run).toMatchObject({ at: '/a/receipt' });
  expect(await seen('/a')).toEqual(['POST /a/charge', 'GET /a/receipt']);
  const report = await run.report();
  expect(report.requests).toBe(2);
  expect(redirects(report.events)).toEqual([
    expect.objectContaining({ from: `${vendor}/a/charge`, to: `${vendor}/a/receipt`, crossOrigin: false }),
  ]);
});

it("redirect: 'manual' answers with the hidden 3xx (data null), sent once", async () => {
  const engine = createEngine();
  const read = stitch({ name: 'manual', url: `${vendor}/b/old`, redirect: 'manual' });
  expect(await read({}, { engine })).toBeNull();
  expect(await seen('/b')).toEqual(['GET /b/old']);
});

it('a request carrying a secret header is refused at the hidden redirect, sent once', async () => {
  const engine = createEngine();
  const read = stitch({ name: 'secret', url: `${vendor}/c/old`, headers: { authorization: 'Bearer t' } });
  const { error } = await read({}, { engine }).safe();
  expect(error).toMatchObject({ kind: 'http', status: 0, requests: 1 });
  expect(await seen('/c')).toEqual(['GET /c/old']);
});
