/**
 * One of the processes in test/redis/processes.test.ts: an engine on a Redis store, driven over
 * IPC. Bundled with esbuild by the test (Node 20 cannot run TypeScript), so it imports the sources.
 *   argv: redis url, vendor origin, key prefix, client kind
 *   in:  { id, op: 'call', stitch, input?, abort?: 'at-once' | 'on-request', count? } | { id, op: 'abort' }
 *   out: { id, results } once settled; { id, event } for a run's `idempotency` event
 */
import { createEngine, type Stitch, type StitchRun, stitch } from '../../src/index';
import { createRedisStore } from '../../src/redis/index';
import { type ClientKind, connect } from './clients';

const [url = '', origin = '', prefix = '', kind = 'redis'] = process.argv.slice(2);
const { client } = await connect(kind as ClientKind, url);
const engine = createEngine({ store: createRedisStore(client, { prefix }) });

const stitches: Record<string, Stitch<unknown, never>> = {
  // Four failures in total open it; a probe's lease outlives the test, so only a release frees it.
  read: stitch({
    name: 'read',
    url: `${origin}/read`,
    coalesce: false,
    retry: 1,
    circuit: { key: 'vendor', failures: 4, cooldown: 60_000 },
  }) as never,
  limited: stitch({
    name: 'limited',
    url: `${origin}/limited`,
    coalesce: false,
    retry: 1,
    circuit: false,
    throttle: { rate: '20/s' },
  }) as never,
  write: stitch({
    name: 'write',
    method: 'POST',
    url: `${origin}/charges`,
    retry: 1,
    circuit: false,
    idempotency: { keyOf: (input: { body: { orderId: string } }) => input.body.orderId },
  }) as never,
};

interface Message {
  id: number;
  op: 'call' | 'abort';
  stitch?: string;
  input?: unknown;
  abort?: 'at-once' | 'on-request';
  count?: number;
}

const controllers = new Map<number, AbortController>();

async function settle(run: StitchRun<unknown>) {
  const result = await run.safe();
  const report = await run.report();
  return {
    ok: result.ok,
    data: result.data,
    error: result.error && { kind: result.error.kind, requests: result.error.requests },
    source: report.source,
    requests: report.requests,
    store: report.events.filter((event) => event.type === 'store').length,
  };
}

async function call(message: Message) {
  const target = stitches[message.stitch ?? ''] as Stitch<unknown, never>;
  const runs: Promise<unknown>[] = [];
  for (let n = 0; n < (message.count ?? 1); n++) {
    const controller = new AbortController();
    controllers.set(message.id, controller);
    const run = target(message.input as never, { engine, signal: controller.signal });
    if (message.abort === 'at-once') controller.abort(new Error('left before dispatch'));
    if (message.abort === 'on-request') {
      (async () => {
        for await (const event of run.stream()) {
          if (event.type === 'request') controller.abort(new Error('left in flight'));
        }
      })();
    }
    // A run's idempotency event is reported as soon as it happens, so the test can sequence on it.
    (async () => {
      for await (const event of run.stream()) {
        if (event.type === 'idempotency') process.send?.({ id: message.id, event });
      }
    })();
    runs.push(settle(run));
  }
  process.send?.({ id: message.id, results: await Promise.all(runs) });
}

process.on('message', (message: Message) => {
  if (message.op === 'abort') controllers.get(message.id)?.abort(new Error('the test aborted it'));
  else void call(message);
});
process.send?.({ ready: true });
