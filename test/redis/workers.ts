/**
 * Forks Node processes running test/redis/worker.ts (bundled once with esbuild), each an engine on
 * the same Redis, and talks to them over IPC.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { StitchErrorKind } from '../../src/index';
import type { ClientKind } from './clients';

/** What a worker says about one run. */
export interface WorkerResult {
  ok: boolean;
  data: unknown;
  error: { kind: StitchErrorKind; requests: number } | null;
  source: string;
  requests: number;
  /** How many `store` events the run had. */
  store: number;
}

/** A call a worker makes; see test/redis/worker.ts. */
export interface WorkerCall {
  stitch: 'read' | 'limited' | 'pooled' | 'write';
  input?: unknown;
  abort?: 'at-once' | 'on-request';
  count?: number;
}

/** Where a worker's call goes: a test's vendor, on its own key prefix, through one kind of client. */
export interface Target {
  vendor: string;
  prefix: string;
  client: ClientKind;
}

export interface Worker {
  /** Starts the call(s) and resolves with their results once all settled. */
  call(
    on: Target,
    call: WorkerCall,
  ): { id: number; results: Promise<WorkerResult[]>; event: Promise<unknown> };
  abort(id: number): void;
}

const root = join(import.meta.dirname, '..', '..');
let bundled: Promise<string> | undefined;

/** The worker, bundled into node_modules/.cache (Node 20 runs no TypeScript). */
function bundle(): Promise<string> {
  bundled ??= (async () => {
    const outfile = join(root, 'node_modules', '.cache', 'stitch-redis-worker', 'worker.mjs');
    await build({
      entryPoints: [join(root, 'test', 'redis', 'worker.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile,
      external: ['redis', 'ioredis'],
      logLevel: 'silent',
    });
    return outfile;
  })();
  return bundled;
}

let ids = 0;

/** Forks `count` workers on the Redis at `redis`; `stop` kills them. */
export async function startWorkers(
  count: number,
  redis: string,
): Promise<{ workers: Worker[]; stop(): void }> {
  const file = await bundle();
  const children: ChildProcess[] = [];
  const stop = () => {
    for (const child of children) child.kill('SIGKILL');
  };
  const workers = await Promise.all(
    Array.from({ length: count }, async () => {
      const child = fork(file, [redis], { cwd: root, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      children.push(child);
      await once(child, 'message');
      const results = new Map<number, (results: WorkerResult[]) => void>();
      const events = new Map<number, (event: unknown) => void>();
      child.on('message', (message: { id: number; results?: WorkerResult[]; event?: unknown }) => {
        if (message.results) results.get(message.id)?.(message.results);
        else if (message.event) events.get(message.id)?.(message.event);
      });
      return {
        call(on: Target, call: WorkerCall) {
          const id = ++ids;
          const settled = new Promise<WorkerResult[]>((resolve) => results.set(id, resolve));
          const event = new Promise<unknown>((resolve) => events.set(id, resolve));
          child.send({ id, op: 'call', on, ...call });
          return { id, results: settled, event };
        },
        abort(id: number) {
          child.send({ id, op: 'abort' });
        },
      };
    }),
  );
  return { workers, stop };
}
