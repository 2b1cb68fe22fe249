// The README's engine example, runnable: `npm run example` (builds, then runs this file).
// It starts a tiny slow vendor on 127.0.0.1, reads from it, cancels a read mid-flight, and prints
// what each run reports, including whether the vendor saw the socket close.
import { createServer } from 'node:http';
import { circuit, createEngine, isAbortError, retry, stitch } from 'stitch-fetch';

const hungUp = [];
const vendor = createServer((request, response) => {
  response.on('close', () => {
    if (!response.writableFinished) hungUp.push(request.url);
  });
  const timer = setTimeout(() => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ id: 7, name: 'Ada Lovelace' }));
  }, 200);
  response.on('close', () => clearTimeout(timer));
});
await new Promise((resolve) => vendor.listen(0, '127.0.0.1', resolve));
const { port } = vendor.address();

const getUser = stitch({
  name: 'getUser',
  url: `http://127.0.0.1:${port}/users/{id}`,
  retry: retry({ attempts: 3 }),
  timeout: { each: 2_000, total: 8_000 },
  circuit: circuit({ failures: 5, cooldown: 30_000 }),
});
const engine = createEngine();

const user = await getUser({ params: { id: 7 } }, { engine });
console.log('data:', user);

const controller = new AbortController();
const run = getUser({ params: { id: 8 } }, { engine, signal: controller.signal });
setTimeout(() => controller.abort(new Error('user navigated away')), 50);
try {
  await run;
} catch (error) {
  console.log(
    'cancelled:',
    isAbortError(error),
    '| cause:',
    error.cause.message,
    '| dispatched:',
    error.dispatched,
  );
}
const report = await run.report();
console.log('report:', { outcome: report.outcome, cancelled: report.cancelled, requests: report.requests });
console.log('events:', report.events.map((event) => event.type).join(' → '));
console.log('breaker:', (await engine.circuitState(`http://127.0.0.1:${port}`)).state);

await new Promise((resolve) => setTimeout(resolve, 20));
console.log('vendor saw hang-ups for:', hungUp);
vendor.close();
