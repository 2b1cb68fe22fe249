/**
 * `npm run bench:instructions`: CPU instructions per call of each in-process arm (bare stub fetch,
 * cockatiel, TanStack Query, Stitch's pipeline, no policies, cache hit, coalesced joiner), and per
 * component of a fan-in (1,000 components on one key, Stitch and TanStack Query), counted
 * by valgrind's callgrind, which must be installed. Builds dist/, bundles bench/callgrind with
 * dist/ in place of src/ (bench/lib/bundle.mjs), then runs bench/callgrind/main.ts, which writes
 * bench/results/instructions.json and the section at the end of bench/RESULTS.md.
 *
 *   BENCH_SKIP_BUILD=1 npm run bench:instructions   reuse dist/ as it is
 *   BENCH_CALLS=500 npm run bench:instructions      fewer calls counted per arm (default 2,000)
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { buildDist, bundle, root } from './lib/bundle.mjs';

buildDist('bench:instructions');
const outdir = await bundle('stitch-bench-callgrind', {
  main: 'bench/callgrind/main.ts',
  arm: 'bench/callgrind/arm.ts',
  faninArm: 'bench/callgrind/faninArm.ts',
  dom: 'bench/lib/dom.ts',
});
const main = spawnSync(process.execPath, [join(outdir, 'main.mjs')], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, BENCH_OUTDIR: outdir },
});
process.exit(main.status ?? 1);
