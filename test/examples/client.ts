/**
 * Client-side helpers for the demo vendor tests: a node:http client for fake-timer tests and a
 * bounded event-loop wait, so no test ever sleeps on the wall clock.
 */
import { request as httpRequest } from 'node:http';
import { vi } from 'vitest';

/** Only the vendor's delay timers are faked; setImmediate stays real so `until` can turn the loop. */
export const fakeDelays = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });

/** Turns the event loop until `ready()` holds; bounded, so a missing event fails instead of hanging. */
export async function until(ready: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 1_000; turn++) {
    if (ready()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`never happened: ${what}`);
}

/**
 * One request with node:http's client, for the fake-timer tests. fetch (undici) puts timers of its own
 * (a connect-timeout tick, keep-alive) on the global `setTimeout`: faked, they would be counted by
 * `vi.getTimerCount()` and never fire, even after the test. node:http's client keeps its timers
 * internal, so the count is the vendor's alone. Rejects on abort with an `AbortError`.
 */
export function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal } = {},
): Promise<{ status: number; body: unknown }> {
  const { method = 'GET', headers = {}, body, signal } = init;
  return new Promise((resolve, reject) => {
    // No agent: one connection per request, closed after it, so no socket outlives its test.
    const req = httpRequest(url, { method, headers, signal, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString()),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** GET with fetch, parsed as JSON. */
export const getJson = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
};
