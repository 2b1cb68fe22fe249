/**
 * A real `redis-server` (Debian's package) for the Redis suite: started on a free 127.0.0.1 port
 * with persistence off, stopped (and restartable on the same port) by the test that owns it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

/** Where the server binary is, or undefined when this machine has none. */
export function redisServerPath(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path ? path : undefined;
}

/** What a test does when redis-server is missing: CI must fail, a developer's `npm test` skips. */
export const HOW_TO_RUN =
  'redis-server is not installed: the Redis suite (test/redis) is skipped. To run it: ' +
  '`apt-get update && apt-get install -y redis-server`, then `npm run test:redis` (CI always runs it).';

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

/** A running server; `stop` and `start` take it down and bring it back on the same port. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Starts a redis-server; resolves once it accepts connections. */
export async function startRedis(): Promise<RedisServer> {
  const binary = redisServerPath();
  if (!binary) throw new Error(HOW_TO_RUN);
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    const started = spawn(binary, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    child = started;
    // The server says so on stdout once it accepts connections.
    let seen = '';
    await new Promise<void>((resolve, reject) => {
      started.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${seen}`)));
      started.stdout?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('Ready to accept connections')) resolve();
      });
    });
    started.stdout?.resume();
  };

  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };

  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, start };
}

/** A TCP proxy in front of a server, that can lose a command or its answer on the way. */
export interface LossyProxy {
  readonly url: string;
  /**
   * Drops the next command the client sends (`'command'`: it never runs) or the next answer the
   * server sends (`'answer'`: it ran, and the client never hears of it), and cuts that connection
   * as a network blip does. Resolves once it has.
   */
  loseNext(what: 'command' | 'answer'): Promise<void>;
  close(): Promise<void>;
}

/** Starts a {@link LossyProxy} in front of the server on `port`. */
export async function lossyProxy(port: number): Promise<LossyProxy> {
  let losing: { what: 'command' | 'answer'; lost: () => void } | undefined;
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const server = connect(port, '127.0.0.1');
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        server.destroy();
      });
    }
    const pass = (what: 'command' | 'answer', to: Socket) => (chunk: Buffer) => {
      if (losing?.what !== what) {
        to.write(chunk);
        return;
      }
      const { lost } = losing;
      losing = undefined;
      client.destroy();
      server.destroy();
      lost();
    };
    client.on('data', pass('command', server));
    server.on('data', pass('answer', client));
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const address = proxy.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${address.port}`,
    loseNext: (what) =>
      new Promise<void>((resolve) => {
        losing = { what, lost: resolve };
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      proxy.close();
      await once(proxy, 'close');
    },
  };
}
