/**
 * One of the processes in test/redis/processes.test.ts: an engine on a Redis store, driven over
 * IPC. Bundled with esbuild by the test (Node 20 cannot run TypeScript), so it imports the sources.
 *   argv: the redis url
 *   in:  { id, op: 'call', on: { vendor, prefix, client }, stitch, input?, abort?, count? } | { id, op: 'abort' }
 *   out: { id, results } once settled; { id, event } for a run's `idempotency` event
 */
import { createEngine, type Engine, type Stitch, type StitchRun, stitch } from '../../src/index';
import { createRedisStore } from '../../src/redis/index';
import { type ClientKind, connect } from './clients';

const [url = ''] = process.argv.slice(2);

/** Where a call goes: a test's vendor, on its own key prefix, through one kind of client. */
interface Target {
  vendor: string;
  prefix: string;
  client: ClientKind;
}

const clients = new Map<ClientKind, ReturnType<typeof connect>>();
const engines = new Map<
  string,
  Promise<{ engine: Engine; stitches: Record<string, Stitch<unknown, never>> }>
>();

/** One engine and its stitches per target, made on first use. */
function engineFor({ vendor, prefix, client }: Target) {
  const id = `${client} ${prefix} ${vendor}`;
  let made = engines.get(id);
  if (!made) {
    made = (async () => {
      let connecting = clients.get(client);
      if (!connecting) {
        connecting = connect(client, url);
        clients.set(client, connecting);
      }
      const engine = createEngine({ store: createRedisStore((await connecting).client, { prefix }) });
      return { engine, stitches: stitchesOn(vendor) };
    })();
    engines.set(id, made);
  }
  return made;
}

function stitchesOn(origin: string): Record<string, Stitch<unknown, never>> {
  return {
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
    // At most 3 attempts at once across all the processes, each one a lease in Redis.
    pooled: stitch({
      name: 'pooled',
      url: `${origin}/pooled`,
      coalesce: false,
      retry: 1,
      circuit: false,
      throttle: { concurrency: 3, shared: { concurrency: true } },
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
}

interface Message {
  id: number;
  op: 'call' | 'abort';
  on: Target;
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
  const { engine, stitches } = await engineFor(message.on);
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
