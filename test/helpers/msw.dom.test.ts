import { HttpResponse, http } from 'msw';
import { expect, it } from 'vitest';
import { server } from './msw';

it('msw serves handlers in the dom project', async () => {
  server.use(http.get('https://api.example.test/ping', () => HttpResponse.json({ pong: true })));
  const response = await fetch('https://api.example.test/ping');
  expect(await response.json()).toEqual({ pong: true });
});

it('an aborted msw request rejects with the abort reason', async () => {
  server.use(http.get('https://api.example.test/slow', () => new Promise<never>(() => {})));
  const controller = new AbortController();
  const reason = new Error('left the page');
  const pending = fetch('https://api.example.test/slow', { signal: controller.signal });
  controller.abort(reason);
  await expect(pending).rejects.toBe(reason);
});
