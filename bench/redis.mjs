/**
 * `npm run bench:redis`: calls/s and CPU per call with the Redis store against the memory store,
 * in 1 and 4 processes, all calling one node:http vendor on 127.0.0.1 (in this process, so its CPU
 * is not counted). Also counts the commands clients sent Redis per call (INFO commandstats:
 * EVALSHA, EVAL and ZREM are all Stitch sends): the round trips the happy path costs. Appends a section to bench/RESULTS.md.
 *
 * Needs the build (`npm run build`) and Debian's redis-server. Each process runs `CONCURRENCY`
 * calls at a time for `SECONDS` s with the defaults a user gets: breaker on, retry budget on,
 * no cache, no coalescing (every call is a request).
 */
import { fork, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = 16;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

if (process.argv[2] === 'child') {
  const [, , , store, redisUrl, origin] = process.argv;
  const { createEngine, stitch } = await import('../dist/index.js');
  let client;
  let engineOptions = {};
  if (store === 'redis') {
    const { createClient } = await import('redis');
    const { createRedisStore } = await import('../dist/redis/index.js');
    client = createClient({ url: redisUrl });
    await client.connect();
    engineOptions = { store: createRedisStore(client, { prefix: `bench${process.pid}:` }) };
  }
  const engine = createEngine(engineOptions);
  const read = stitch({ name: 'read', url: `${origin}/read`, coalesce: false });
  process.send('ready');
  await once(process, 'message');
  const cpu = process.cpuUsage();
  const ends = performance.now() + SECONDS * 1_000;
  let calls = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < ends) {
        const result = await read(undefined, { engine }).safe();
        calls += 1;
        if (!result.ok) failures += 1;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  process.send({ calls, failures, cpu: used.user + used.system });
  await client?.destroy();
  process.exit(0);
}

const redisPort = 20_000 + (process.pid % 10_000);
const redis = spawn(
  'redis-server',
  ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
await new Promise((resolve) => {
  let seen = '';
  redis.stdout.on('data', (chunk) => {
    seen += chunk;
    if (seen.includes('Ready to accept connections')) resolve();
  });
});
redis.stdout.resume();
const redisUrl = `redis://127.0.0.1:${redisPort}`;
const { createClient } = await import('redis');
const admin = createClient({ url: redisUrl });
await admin.connect();
/** Commands clients sent (a script's own commands, TIME, GET, SET..., are not round trips). */
const roundTrips = async () => {
  const stats = await admin.info('commandstats');
  let sent = 0;
  for (const name of ['evalsha', 'eval', 'zrem']) {
    sent += Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  }
  return sent;
};

const vendor = createServer((_request, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{}');
});
vendor.listen(0, '127.0.0.1');
await once(vendor, 'listening');
const origin = `http://127.0.0.1:${vendor.address().port}`;

async function measure(store, processes) {
  const self = fileURLToPath(import.meta.url);
  const children = Array.from({ length: processes }, () => fork(self, ['child', store, redisUrl, origin]));
  await Promise.all(children.map((child) => once(child, 'message')));
  const before = await roundTrips();
  const started = performance.now();
  const reports = Promise.all(children.map(async (child) => (await once(child, 'message'))[0]));
  for (const child of children) child.send('go');
  const results = await reports;
  const seconds = (performance.now() - started) / 1_000;
  const ran = (await roundTrips()) - before;
  const calls = results.reduce((n, r) => n + r.calls, 0);
  const failures = results.reduce((n, r) => n + r.failures, 0);
  const cpu = results.reduce((n, r) => n + r.cpu, 0);
  return {
    callsPerSecond: Math.round(calls / seconds),
    cpuPerCall: Math.round(cpu / calls),
    roundTripsPerCall: Number((ran / calls).toFixed(3)),
    failures,
  };
}

const rows = [];
for (const processes of [1, 4]) {
  for (const store of ['memory', 'redis']) {
    const runs = [];
    for (let run = 0; run < RUNS; run++) runs.push(await measure(store, processes));
    rows.push({ store, processes, runs });
    console.error(`bench:redis ${store} × ${processes}: ${JSON.stringify(runs)}`);
  }
}
await admin.destroy();
redis.kill('SIGKILL');
vendor.close();

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const list = (runs, field) => `[${runs.map((r) => r[field]).join(', ')}]`;
const section = [
  '',
  `## Redis store against memory store (${new Date().toISOString().slice(0, 10)}, \`npm run bench:redis\`)`,
  '',
  `Each process runs ${CONCURRENCY} calls at a time for ${SECONDS} s against one node:http vendor on`,
  '127.0.0.1 (defaults: breaker and retry budget on, no cache, no coalescing); Redis 7 from Debian on',
  `the same machine; ${RUNS} runs each, medians first. CPU is the calling processes' user + system time.`,
  'Round trips per call: the EVALSHA/EVAL/ZREM commands clients sent (INFO commandstats) per call.',
  `Load average when it ran: ${loadavg()
    .map((n) => n.toFixed(1))
    .join(', ')} on ${cpus().length} cores`,
  '(the machine is shared: compare the rows with each other, not with other sections).',
  '',
  '| store | processes | calls/s, all processes (median) | CPU µs/call (median) | Redis round trips/call | runs: calls/s | runs: CPU µs/call | failed calls |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map(
    ({ store, processes, runs }) =>
      `| ${store} | ${processes} | ${median(runs.map((r) => r.callsPerSecond))} | ${median(runs.map((r) => r.cpuPerCall))} | ${median(runs.map((r) => r.roundTripsPerCall))} | ${list(runs, 'callsPerSecond')} | ${list(runs, 'cpuPerCall')} | ${runs.reduce((n, r) => n + r.failures, 0)} |`,
  ),
  '',
];
const results = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
appendFileSync(results, section.join('\n'));
// The project's formatter has the last word on Markdown, so `npm run lint` passes on it as written.
spawnSync(
  process.execPath,
  [
    fileURLToPath(new URL('../node_modules/@biomejs/biome/bin/biome', import.meta.url)),
    'format',
    '--write',
    results,
  ],
  {
    stdio: 'ignore',
  },
);
console.log(section.join('\n'));
