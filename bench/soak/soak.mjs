/**
 * Soak (issue 8): 100,000 runs on one engine, mixing cache hits, coalesced joins, a follower that
 * aborts, in-flight aborts, 503s with a retry, network errors and per-attempt timeouts, against an
 * in-process stub fetch that honours abort like real fetch. Every abortable call is linked to one
 * long-lived app signal, the way hooks link to a route's signal.
 *
 * It fails (exit 1) when:
 * - the heap after a forced GC grows across the run (sampled every 10,000 runs, after warm-up);
 * - a `MaxListenersExceededWarning` (or any warning) is emitted;
 * - a listener is left on the long-lived signal, or a rejection goes unhandled;
 * - any run ends other than its kind of run must (an abort with its very reason, a follower's
 *   abort leaving the others their data, a 503 after two attempts, ...), or the requests that
 *   left differ from what the mix accounts for (one per cache miss, one per coalesced trio, ...).
 *
 * It measures the package as built:
 *
 *   npm run build && node --expose-gc bench/soak/soak.mjs
 *
 * Figures go to stdout and bench/results/soak.json. SOAK_RUNS=… changes the run count (a
 * multiple of 10,000 keeps the samples even).
 */

import { getEventListeners } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const TOTAL = Number(process.env.SOAK_RUNS ?? 100_000);
const SAMPLE_EVERY = 10_000;
/** Samples taken before this many runs are warm-up (JIT, caches filling) and are not judged. */
const WARM_UP = 20_000;
/** Heap growth allowed between the first judged sample and the last, and span allowed among them. */
const MAX_GROWTH_BYTES = 2 * 1024 * 1024;
/** One round: ten runs, one of each kind below (three cache hits). */
const ROUND = 10;
/**
 * Rounds in flight at once. A round links four calls to the long-lived signal, each holding one
 * listener on it while in flight; Node warns past 10 listeners on one signal, so two rounds (8)
 * is as far as this goes without a legitimate warning hiding a leaked one.
 */
const PARALLEL = 2;

if (typeof globalThis.gc !== 'function') {
  console.error('soak: run with --expose-gc (node --expose-gc bench/soak/soak.mjs)');
  process.exit(2);
}

const dist = new URL('../../dist/index.js', import.meta.url);
let stitchModule;
try {
  stitchModule = await import(dist.href);
} catch (error) {
  console.error(`soak: cannot load ${fileURLToPath(dist)}; run \`npm run build\` first.\n${error}`);
  process.exit(2);
}
const { createEngine, stitch } = stitchModule;

const warnings = [];
process.on('warning', (warning) => warnings.push(`${warning.name}: ${warning.message}`));
const unhandled = [];
process.on('unhandledRejection', (reason) => unhandled.push(String(reason)));

// ── The stub vendor ────────────────────────────────────────────────────────────────────────────

const requests = { ok: 0, down: 0, broken: 0, hang: 0 };
/** Called when a request to /hang arrives, so the soak can abort it in flight. */
let onHang = () => {};

/**
 * In-process fetch. `/ok/…` answers JSON, `/down/…` a 503, `/broken/…` a network error, each a
 * macrotask later; `/hang/…` never answers. Like real fetch it rejects with `signal.reason` once
 * its signal aborts, and removes its listener when it settles.
 */
function stubFetch(url, init) {
  const { pathname, searchParams } = new URL(url);
  const kind = pathname.split('/')[1];
  const signal = init?.signal;
  requests[kind] += 1;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let timer;
    const onAbort = () => {
      clearImmediate(timer);
      reject(signal.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (kind === 'hang') {
      if (pathname === '/hang/held') onHang(searchParams.get('q'));
      return;
    }
    timer = setImmediate(() => {
      signal?.removeEventListener('abort', onAbort);
      if (kind === 'down') resolve(new Response('unavailable', { status: 503 }));
      else if (kind === 'broken') reject(new TypeError('fetch failed'));
      else {
        const body = JSON.stringify({ path: pathname, q: searchParams.get('q') });
        resolve(new Response(body, { headers: { 'content-type': 'application/json' } }));
      }
    });
  });
}

// ── The engine and its stitches ────────────────────────────────────────────────────────────────

const engine = createEngine({ fetch: stubFetch });
const ORIGIN = 'https://vendor.soak';
/** A read served from the cache once warm: 200 keys, a ttl longer than the soak. */
const cached = stitch({ name: 'cached', url: `${ORIGIN}/ok/cached`, cache: { ttl: 3_600_000 } });
/** A read that always fetches; callers of one key in one tick share one request. */
const shared = stitch({ name: 'shared', url: `${ORIGIN}/ok/shared`, retry: false });
/** A read the vendor holds until it is aborted. */
const held = stitch({ name: 'held', url: `${ORIGIN}/hang/held`, retry: false });
/** Two attempts against a 503, no backoff; its own breaker key, off so the outage keeps being tried. */
const down = stitch({
  name: 'down',
  url: `${ORIGIN}/down/x`,
  retry: { attempts: 2, backoff: { base: 0 }, budget: false },
  circuit: false,
});
const broken = stitch({ name: 'broken', url: `${ORIGIN}/broken/x`, retry: false, circuit: false });
/** A per-attempt deadline of 1 ms against a vendor that never answers. */
const slow = stitch({
  name: 'slow',
  url: `${ORIGIN}/hang/slow`,
  retry: false,
  timeout: { each: 1 },
  circuit: false,
});

/** The long-lived signal every abortable call is linked to, as a route's signal is by hooks. */
const app = new AbortController();

/** A signal that aborts with either source, and `dispose()` to take its listeners off them again. */
function linkSignals(...sources) {
  const controller = new AbortController();
  const detachers = sources.map((source) => {
    const follow = () => controller.abort(source.reason);
    source.addEventListener('abort', follow, { once: true });
    return () => source.removeEventListener('abort', follow);
  });
  const dispose = () => {
    for (const detach of detachers) detach();
  };
  return { signal: controller.signal, dispose };
}

/** Calls `call` on a signal linked to the app's and to its own controller; disposes the link after. */
function linked(call) {
  const own = new AbortController();
  const link = linkSignals(app.signal, own.signal);
  const run = call(link.signal);
  run.safe().then(() => link.dispose());
  return { run, own };
}

// ── One round ──────────────────────────────────────────────────────────────────────────────────

const tally = {};
const count = (name) => {
  tally[name] = (tally[name] ?? 0) + 1;
};
const failures = [];
const expect = (ok, message) => {
  if (!ok && failures.length < 20) failures.push(message);
};

const pendingHangs = new Map();
onHang = (q) => {
  const own = pendingHangs.get(q);
  if (own) queueMicrotask(() => own.abort(new Error(`left ${q}`)));
};

async function round(i) {
  const q = String(i);
  const sharedKey = { query: { q: String(i % 5_000) } };
  const runs = [];

  // Three cache hits (the first round of each key fills it).
  for (let c = 0; c < 3; c++)
    runs.push(['cache', cached({ query: { q: String((i * 3 + c) % 200) } }, { engine })]);

  // Three callers of one key: a leader, a follower, and a follower that leaves at once.
  const leader = linked((signal) => shared(sharedKey, { engine, signal }));
  const follower = shared(sharedKey, { engine });
  const leaver = linked((signal) => shared(sharedKey, { engine, signal }));
  leaver.own.abort(new Error('the follower left'));
  runs.push(['leader', leader.run], ['follower', follower], ['leaver', leaver.run]);

  // A caller aborts in flight: the vendor holds the request until the abort ends it.
  const aborter = linked((signal) => held({ query: { q } }, { engine, signal }));
  pendingHangs.set(q, aborter.own);
  runs.push(['aborted', aborter.run]);

  runs.push(['down', down({ query: { q } }, { engine })]);
  runs.push(['broken', broken({ query: { q } }, { engine })]);
  runs.push(['timeout', linked((signal) => slow({ query: { q } }, { engine, signal })).run]);

  const results = await Promise.all(runs.map(([, run]) => run.safe()));
  pendingHangs.delete(q);
  const reports = await Promise.all(runs.map(([, run]) => run.report()));
  for (const [index, [kind]] of runs.entries()) {
    const { ok, error, data } = results[index];
    const report = reports[index];
    count(kind);
    switch (kind) {
      case 'cache':
        expect(ok, `round ${i}: a cache read failed: ${error?.message}`);
        // Not a failure, only a figure: the LRU ranks entries by their last write, not their last read
        // (see docs/RELIABILITY.md, known gaps), so unrelated keys passing through evict warm ones.
        count(report.source === 'cache' ? 'cacheHit' : 'cacheMiss');
        break;
      case 'leader':
      case 'follower':
        expect(ok && data.q === sharedKey.query.q, `round ${i}: ${kind} did not get its data`);
        break;
      case 'leaver':
        expect(
          error?.kind === 'aborted' && error.cause?.message === 'the follower left',
          `round ${i}: leaver`,
        );
        break;
      case 'aborted':
        expect(
          error?.kind === 'aborted' && error.cause?.message === `left ${q}`,
          `round ${i}: in-flight abort`,
        );
        expect(report.cancelled && report.dispatched, `round ${i}: the abort was not in flight`);
        break;
      case 'down':
        expect(error?.kind === 'http' && error.status === 503 && error.attempts === 2, `round ${i}: 503`);
        break;
      case 'broken':
        expect(error?.kind === 'network', `round ${i}: network error`);
        break;
      case 'timeout':
        expect(error?.kind === 'timeout' && error.phase === 'each', `round ${i}: timeout ${error?.kind}`);
        break;
    }
  }
}

// ── The soak ───────────────────────────────────────────────────────────────────────────────────

const heap = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage();
};

const started = performance.now();
const before = heap();
const samples = [];
let done = 0;
while (done < TOTAL) {
  const first = done / ROUND;
  await Promise.all(Array.from({ length: PARALLEL }, (_, k) => round(first + k)));
  done += ROUND * PARALLEL;
  if (done % SAMPLE_EVERY === 0) {
    // Let the last round's timers and releases finish before measuring.
    await new Promise((resolve) => setImmediate(resolve));
    const { heapUsed, rss } = heap();
    samples.push({ runs: done, heapUsed, rss });
    console.log(
      `soak: ${String(done).padStart(7)} runs  heap ${(heapUsed / 2 ** 20).toFixed(2)} MiB  rss ${(rss / 2 ** 20).toFixed(1)} MiB`,
    );
  }
}
const elapsed = performance.now() - started;

const judged = samples.filter((sample) => sample.runs >= WARM_UP);
const first = judged[0];
const last = judged.at(-1);
const growth = first && last ? last.heapUsed - first.heapUsed : 0;
const heaps = judged.map((sample) => sample.heapUsed);
const range = heaps.length > 0 ? Math.max(...heaps) - Math.min(...heaps) : 0;
// Least-squares slope over the judged samples: bytes the heap keeps per run.
const slope = (() => {
  if (judged.length < 2) return 0;
  const n = judged.length;
  const mx = judged.reduce((s, p) => s + p.runs, 0) / n;
  const my = judged.reduce((s, p) => s + p.heapUsed, 0) / n;
  const num = judged.reduce((s, p) => s + (p.runs - mx) * (p.heapUsed - my), 0);
  const den = judged.reduce((s, p) => s + (p.runs - mx) ** 2, 0);
  return num / den;
})();

const listeners = getEventListeners(app.signal, 'abort').length;
const expectedRequests = {
  // One per cache miss of `cached`, plus one per round for the three callers of `shared`.
  ok: (tally.cacheMiss ?? 0) + TOTAL / ROUND,
  down: (2 * TOTAL) / ROUND,
  broken: TOTAL / ROUND,
  hang: (2 * TOTAL) / ROUND,
};
for (const [kind, expected] of Object.entries(expectedRequests)) {
  expect(requests[kind] === expected, `${requests[kind]} '${kind}' requests, expected ${expected}`);
}
expect(growth <= MAX_GROWTH_BYTES, `heap grew ${(growth / 2 ** 20).toFixed(2)} MiB after warm-up`);
expect(range <= MAX_GROWTH_BYTES, `heap samples after warm-up span ${(range / 2 ** 20).toFixed(2)} MiB`);
expect(warnings.length === 0, `warnings: ${warnings.join('; ')}`);
expect(listeners === 0, `${listeners} listeners left on the long-lived signal`);
expect(unhandled.length === 0, `unhandled rejections: ${unhandled.slice(0, 3).join('; ')}`);

const result = {
  ok: failures.length === 0,
  runs: done,
  elapsedMs: Math.round(elapsed),
  runsPerSecond: Math.round(done / (elapsed / 1000)),
  heapBefore: before.heapUsed,
  samples,
  judgedFrom: WARM_UP,
  growthBytes: growth,
  rangeBytes: range,
  maxGrowthBytes: MAX_GROWTH_BYTES,
  slopeBytesPerRun: Number(slope.toFixed(3)),
  requests,
  cacheHitRatio: Number(
    ((tally.cacheHit ?? 0) / ((tally.cacheHit ?? 0) + (tally.cacheMiss ?? 0))).toFixed(4),
  ),
  mix: tally,
  listenersOnLongLivedSignal: listeners,
  warnings,
  unhandled: unhandled.length,
  failures,
  node: process.version,
  at: new Date().toISOString(),
};
const out = new URL('../results/soak.json', import.meta.url);
mkdirSync(new URL('.', out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);

console.log(
  `soak: ${done} runs in ${(elapsed / 1000).toFixed(1)} s; heap after warm-up ${growth >= 0 ? '+' : ''}${(growth / 1024).toFixed(0)} KiB ` +
    `(${slope.toFixed(2)} B/run, samples within ${(range / 1024).toFixed(0)} KiB), ${warnings.length} warnings, ${listeners} listeners left → ${fileURLToPath(out)}`,
);
if (!result.ok) {
  console.error(`soak: FAILED\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log('soak: ok');
