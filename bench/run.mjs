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
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'node_modules', '.cache', 'stitch-bench');
const started = Date.now();

function sh(command, args) {
  // Its output goes to stderr: stdout is for the tables.
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (process.env.BENCH_SKIP_BUILD && existsSync(join(root, 'dist', 'react', 'index.js'))) {
  console.error('bench: reusing dist/ (BENCH_SKIP_BUILD)');
} else {
  console.error('bench: npm run build');
  sh('npm', ['run', 'build', '--silent']);
}

/** Points the benchmarks' imports of Stitch's sources at the built package. */
const useDist = {
  name: 'stitch-dist',
  setup(build) {
    const entries = new Map([
      [join(root, 'src', 'index'), join(root, 'dist', 'index.js')],
      [join(root, 'src', 'react', 'index'), join(root, 'dist', 'react', 'index.js')],
    ]);
    build.onResolve({ filter: /\/src\/(react\/)?index(\.tsx?)?$/ }, (args) => {
      const target = resolve(dirname(args.importer), args.path).replace(/\.tsx?$/, '');
      const dist = entries.get(target);
      return dist ? { path: dist } : undefined;
    });
  },
};

await esbuild.build({
  absWorkingDir: root,
  entryPoints: {
    main: 'bench/main.ts',
    dom: 'bench/lib/dom.ts',
    search: 'bench/suites/search.tsx',
    fanin: 'bench/suites/fanin.tsx',
    overhead: 'bench/suites/overhead.ts',
    loopbackVendor: 'bench/suites/loopbackVendor.ts',
    bundle: 'bench/suites/bundle.ts',
  },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  jsx: 'automatic',
  plugins: [useDist],
  logLevel: 'warning',
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
