/**
 * `npm run bench`: builds dist/ (the artefact users get, and what size-limit measures), bundles
 * the TypeScript benchmarks with esbuild into node_modules/.cache/stitch-bench (so nothing lands
 * in the work tree but bench/results/latest.json and bench/RESULTS.md), then runs bench/main.ts.
 *
 * Stitch is measured as built: the benchmarks import ../src/index and ../src/react/index (so they
 * typecheck on a fresh clone), and this bundling step points those imports at dist/.
 * Peers (React, TanStack Query, SWR, cockatiel, happy-dom) stay external and load from node_modules.
 *
 *   npm run bench                      all four suites, then the soak (bench/soak/soak.mjs)
 *   npm run bench -- search bundle     only these suites (search, fanin, overhead, bundle, soak)
 *   BENCH_SKIP_BUILD=1 npm run bench   reuse dist/ as it is
 *   BENCH_RUNS=7 npm run bench         more runs per measurement (at least 5)
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { buildDist, bundle, root } from './lib/bundle.mjs';

const started = Date.now();

buildDist('bench');
const outdir = await bundle('stitch-bench', {
  main: 'bench/main.ts',
  dom: 'bench/lib/dom.ts',
  search: 'bench/suites/search.tsx',
  fanin: 'bench/suites/fanin.tsx',
  overhead: 'bench/suites/overhead.ts',
  loopbackVendor: 'bench/suites/loopbackVendor.ts',
  bundle: 'bench/suites/bundle.ts',
});

const asked = process.argv.slice(2);
const suites = asked.filter((name) => name !== 'soak');
if (asked.length === 0 || suites.length > 0) {
  const main = spawnSync(process.execPath, [join(outdir, 'main.mjs'), ...suites], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, BENCH_OUTDIR: outdir, BENCH_STARTED: String(started) },
  });
  if (main.status !== 0) process.exit(main.status ?? 1);
}

// The soak (100,000 mixed runs, heap after forced GC; writes bench/results/soak.json) runs with
// the full set, or alone with `npm run bench -- soak`.
if (asked.length === 0 || asked.includes('soak')) {
  const soak = spawnSync(process.execPath, ['--expose-gc', 'bench/soak/soak.mjs'], {
    cwd: root,
    stdio: 'inherit',
  });
  process.exit(soak.status ?? 1);
}
