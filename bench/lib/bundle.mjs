/**
 * What the benchmark runners (bench/run.mjs, bench/instructions.mjs) share: building dist/ and
 * bundling TypeScript entry points with esbuild into node_modules/.cache, with the benchmarks'
 * imports of Stitch's sources (../src/index, ../src/react/index) pointed at dist/, so Stitch is
 * measured as built while the benchmarks still typecheck on a fresh clone. Peers stay external
 * and load from node_modules.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

/** The repository's root directory. */
export const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `command` in the root; its output goes to stderr (stdout is for the tables). Exits on failure. */
export function sh(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** Runs `npm run build`, unless BENCH_SKIP_BUILD is set and dist/ is there. */
export function buildDist(name) {
  if (process.env.BENCH_SKIP_BUILD && existsSync(join(root, 'dist', 'react', 'index.js'))) {
    console.error(`${name}: reusing dist/ (BENCH_SKIP_BUILD)`);
  } else {
    console.error(`${name}: npm run build`);
    sh('npm', ['run', 'build', '--silent']);
  }
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

/**
 * Bundles `entryPoints` (output name → source path from the root) into
 * node_modules/.cache/`cacheName` as `<name>.mjs`; returns that directory.
 */
export async function bundle(cacheName, entryPoints) {
  const outdir = join(root, 'node_modules', '.cache', cacheName);
  await esbuild.build({
    absWorkingDir: root,
    entryPoints,
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
  return outdir;
}
