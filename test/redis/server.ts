/**
 * A real `redis-server` (Debian's package) for the Redis suite: started on a free 127.0.0.1 port
 * with persistence off, stopped (and restartable on the same port) by the test that owns it.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Where `binary` is on the PATH, or undefined when this machine has none. */
function pathOf(binary: 'redis-server' | 'redis-cli'): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path ? path : undefined;
}

/** Where the server binary is, or undefined when this machine has none. */
export const redisServerPath = (): string | undefined => pathOf('redis-server');

/** Where redis-cli is (it creates a cluster; Debian's redis-server package brings it), or undefined. */
export const redisCliPath = (): string | undefined => pathOf('redis-cli');

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
    const started = spawn(binary, serverArgs(port), { stdio: ['ignore', 'pipe', 'inherit'] });
    child = started;
    await accepting(started);
  };

  const stop = async () => {
    const running = child;
    child = undefined;
    if (running) await kill(running);
  };

  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, start };
}

/** A server's arguments: on `port` of 127.0.0.1, with persistence off. */
const serverArgs = (port: number) => [
  '--port',
  String(port),
  '--bind',
  '127.0.0.1',
  '--save',
  '',
  '--appendonly',
  'no',
];

/** Resolves once the server `started` accepts connections: it says so on stdout. */
async function accepting(started: ChildProcess): Promise<void> {
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    started.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${seen}`)));
    started.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('Ready to accept connections')) resolve();
    });
  });
  started.stdout?.resume();
}

/** Kills `running` (unless it has exited) and resolves once it has. */
async function kill(running: ChildProcess): Promise<void> {
  if (running.exitCode !== null) return;
  const exited = once(running, 'exit');
  running.kill('SIGKILL');
  await exited;
}

/** A running Redis Cluster of three masters (no replicas); `stop` ends it and removes its files. */
export interface RedisCluster {
  /** Each master's port, on 127.0.0.1. */
  readonly ports: readonly number[];
  stop(): Promise<void>;
}

/**
 * Starts three cluster-enabled servers, joins them as one cluster with redis-cli (each master
 * serves a third of the slots), and resolves once every node says the cluster is up.
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  const binary = redisServerPath();
  const cli = redisCliPath();
  if (!binary || !cli) throw new Error(HOW_TO_RUN);
  // Each node writes its view of the cluster (nodes.conf) here.
  const dir = await mkdtemp(join(tmpdir(), 'stitch-cluster-'));
  const ports: number[] = [];
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(children.map(kill));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let n = 0; n < 3; n++) ports.push(await freePort());
    await Promise.all(
      ports.map((port) => {
        const args = [...serverArgs(port), '--cluster-enabled', 'yes', '--dir', dir];
        const started = spawn(binary, [...args, '--cluster-config-file', `nodes-${port}.conf`], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        children.push(started);
        return accepting(started);
      }),
    );
    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    const run = promisify(execFile);
    await run(cli, ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes']);
    // redis-cli returns once the nodes agree on the slots; each says the cluster is up a little
    // later (until then it refuses commands with CLUSTERDOWN): ask each until it does.
    for (const port of ports) {
      const info = () => run(cli, ['-p', String(port), 'CLUSTER', 'INFO']);
      while (!(await info()).stdout.includes('cluster_state:ok'));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { ports, stop };
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
