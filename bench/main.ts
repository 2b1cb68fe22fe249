/**
 * Runs the four suites, each in a process of its own, one after the other (never side by side:
 * they would measure each other), then prints the tables and writes bench/results/latest.json
 * and bench/RESULTS.md. Started by bench/run.mjs, which builds dist/ and bundles this file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, type as osType, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InstructionCounts } from './callgrind/report';
import { renderMarkdown, renderTables } from './lib/report';
import { type BenchResults, SUITES, type SuiteName } from './lib/results';
import { RUNS } from './lib/stats';

const root = process.cwd();
const outdir = process.env.BENCH_OUTDIR ?? fileURLToPath(new URL('.', import.meta.url));
const startedAt = Number(process.env.BENCH_STARTED ?? Date.now());

function versionOf(pkg: string): string {
  try {
    return (
      JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return 'not installed';
  }
}

function git(...args: string[]): string {
  try {
    return execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

function runSuite(name: SuiteName): unknown {
  const file = join(outdir, `${name}.result.json`);
  rmSync(file, { force: true });
  // The React suites need a DOM before React DOM loads: preload it.
  const preload = name === 'search' || name === 'fanin' ? ['--import', join(outdir, 'dom.mjs')] : [];
  process.stderr.write(`bench: ${name}\n`);
  const started = performance.now();
  const child = spawnSync(process.execPath, [...preload, join(outdir, `${name}.mjs`), file], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (child.status !== 0) throw new Error(`bench: the ${name} suite failed (exit ${child.status})`);
  process.stderr.write(`bench: ${name} took ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return JSON.parse(readFileSync(file, 'utf8'));
}

const asked = process.argv.slice(2) as SuiteName[];
const unknown = asked.filter((name) => !SUITES.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown suite(s) ${unknown.join(', ')}; known: ${SUITES.join(', ')}\n`);
  process.exit(2);
}
const selected = asked.length > 0 ? SUITES.filter((name) => asked.includes(name)) : SUITES;

const cpuList = cpus();
const machine = {
  os: `${osType()} ${release()}`,
  arch: process.arch,
  cpus: cpuList.length,
  cpuModel: cpuList[0]?.model ?? 'unknown',
  cpuSpeedMHz: cpuList[0]?.speed ?? 0,
  /** `os.cpus()`, model and speed of each. */
  osCpus: cpuList.map(({ model, speed }) => ({ model, speed })),
  memoryGB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
  loadAverageAtStart: loadavg().map((value) => Math.round(value * 100) / 100),
  loadAverageAtEnd: [] as number[],
};

const suites: Partial<Record<SuiteName, unknown>> = {};
for (const name of selected) suites[name] = runSuite(name);
machine.loadAverageAtEnd = loadavg().map((value) => Math.round(value * 100) / 100);

const dirty = git('status', '--porcelain', '--', 'src', 'package.json') !== '';
const results: BenchResults = {
  date: new Date().toISOString(),
  command: `npm run bench${asked.length > 0 ? ` -- ${asked.join(' ')}` : ''}`,
  wallTimeSeconds: Math.round((Date.now() - startedAt) / 100) / 10,
  runsPerMeasurement: RUNS,
  machine,
  versions: {
    node: process.version,
    stitch: `${(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version} (${git('rev-parse', '--short', 'HEAD')}${dirty ? ', src/ modified' : ''}, dist/ as built by npm run build)`,
    react: versionOf('react'),
    'react-dom': versionOf('react-dom'),
    '@tanstack/react-query': versionOf('@tanstack/react-query'),
    '@tanstack/query-core': versionOf('@tanstack/query-core'),
    swr: versionOf('swr'),
    cockatiel: versionOf('cockatiel'),
    'happy-dom': versionOf('happy-dom'),
    esbuild: versionOf('esbuild'),
    'size-limit': versionOf('size-limit'),
  },
  suites: suites as BenchResults['suites'],
};

if (selected.length === SUITES.length) {
  const dir = join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  const markdown = join(root, 'bench', 'RESULTS.md');
  // The instruction counts (npm run bench:instructions) keep their section, rendered from their JSON.
  const instructions = join(dir, 'instructions.json');
  writeFileSync(
    markdown,
    renderMarkdown(
      results,
      existsSync(instructions)
        ? (JSON.parse(readFileSync(instructions, 'utf8')) as InstructionCounts)
        : undefined,
    ),
  );
  // The project's formatter has the last word on Markdown, so \`npm run lint\` passes on it as written.
  spawnSync(
    process.execPath,
    [join(root, 'node_modules', '@biomejs', 'biome', 'bin', 'biome'), 'format', '--write', markdown],
    {
      cwd: root,
      stdio: 'ignore',
    },
  );
} else {
  // A partial run must not replace the committed full results.
  const partial = join(outdir, 'partial.json');
  writeFileSync(partial, `${JSON.stringify(results, null, 2)}\n`);
  process.stderr.write(`bench: partial run; results in ${partial}, bench/results left as they were\n`);
}
process.stdout.write(`${renderTables(results)}\n`);
process.stdout.write(`bench: done in ${results.wallTimeSeconds} s\n`);
