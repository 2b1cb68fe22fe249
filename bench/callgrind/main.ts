/**
 * `npm run bench:instructions` (started by bench/instructions.mjs, which builds dist/ and bundles
 * this file, arm.ts and faninArm.ts): counts each arm's instructions per call under callgrind, one arm at a
 * time, each in a `node` process of its own; prints the tables, writes
 * bench/results/instructions.json and puts the section at the end of bench/RESULTS.md.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARM_NAMES, ARMS } from './arms';
import { FANIN_ARM_NAMES, FANIN_ARMS } from './faninArms';
import {
  type ArmCount,
  type ArmName,
  type InstructionCounts,
  instructionSection,
  instructionTables,
  replaceSection,
} from './report';

const root = process.cwd();
const outdir = process.env.BENCH_OUTDIR ?? '.';
const VALGRIND = process.env.BENCH_VALGRIND ?? 'valgrind';
/** V8's interpreter only (no baseline or optimising compiler), with fixed seeds: counts that repeat. */
const NODE_FLAGS = ['--no-opt', '--no-sparkplug', '--predictable', '--hash-seed=1', '--random-seed=1'];

function run(command: string, args: string[]): string {
  return execFileSync(command, args, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
}

/** The version in the package.json of `dir` (relative to the root). */
function versionIn(dir: string): string {
  return (JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The first count of a callgrind output file's `totals:` line (`summary:` in older formats). */
function totalOf(file: string): number {
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((text) => text.startsWith('totals:') || text.startsWith('summary:'));
  const total = Number(line?.split(/\s+/)[1]);
  if (!Number.isFinite(total)) throw new Error(`bench:instructions: no totals in ${file}`);
  return total;
}

/** Runs one arm under callgrind; the instructions between its two markers. */
function count(name: ArmName, scratch: string): ArmCount {
  const fanin = name in FANIN_ARMS;
  const arm = fanin ? FANIN_ARMS[name as keyof typeof FANIN_ARMS] : ARMS[name as keyof typeof ARMS];
  // The fan-in arms render React, which needs the DOM before it loads.
  const entry = fanin
    ? ['--import', join(outdir, 'dom.mjs'), join(outdir, 'faninArm.mjs')]
    : [join(outdir, 'arm.mjs')];
  const out = join(scratch, `${name}.out`);
  const started = performance.now();
  const child = spawnSync(
    VALGRIND,
    [
      '--tool=callgrind',
      `--callgrind-out-file=${out}`,
      '--dump-before=uv_os_getpriority',
      '--collect-atstart=yes',
      process.execPath,
      ...NODE_FLAGS,
      // For the arm to start counting on a collected heap.
      '--expose-gc',
      ...entry,
      name,
    ],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 },
  );
  // Dump 1 is start-up and warm-up, dump 2 the counted steps, the last one (no suffix) the exit.
  if (child.status !== 0 || !existsSync(`${out}.2`)) {
    throw new Error(`bench:instructions: the ${name} arm failed (exit ${child.status})\n${child.stderr}`);
  }
  const instructions = totalOf(`${out}.2`);
  const calls = arm.steps * arm.callers;
  process.stderr.write(
    `bench:instructions: ${name}: ${Math.round(instructions / calls)} per call (${((performance.now() - started) / 1000).toFixed(1)} s)\n`,
  );
  return {
    name,
    label: arm.label,
    warmUpCalls: arm.warmUpSteps * arm.callers,
    calls,
    instructions,
    perCall: instructions / calls,
  };
}

let valgrind: string;
try {
  valgrind = run(VALGRIND, ['--version']);
} catch {
  process.stderr.write(
    `bench:instructions: ${VALGRIND} not found; install valgrind (or set BENCH_VALGRIND)\n`,
  );
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), 'stitch-callgrind-'));
let arms: ArmCount[];
try {
  arms = [...ARM_NAMES, ...FANIN_ARM_NAMES].map((name) => count(name, scratch));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const dirty = run('git', ['status', '--porcelain', '--', 'src', 'package.json']) !== '';
const counts: InstructionCounts = {
  date: new Date().toISOString(),
  command: 'npm run bench:instructions',
  valgrind,
  nodeFlags: NODE_FLAGS,
  versions: {
    node: process.version,
    stitch: `${versionIn('.')} (${run('git', ['rev-parse', '--short', 'HEAD'])}${dirty ? ', src/ modified' : ''}, dist/)`,
    cockatiel: versionIn('node_modules/cockatiel'),
    '@tanstack/query-core': versionIn('node_modules/@tanstack/query-core'),
  },
  arms,
};

const results = join(root, 'bench', 'results');
mkdirSync(results, { recursive: true });
writeFileSync(join(results, 'instructions.json'), `${JSON.stringify(counts, null, 2)}\n`);
const markdown = join(root, 'bench', 'RESULTS.md');
writeFileSync(
  markdown,
  replaceSection(
    existsSync(markdown) ? readFileSync(markdown, 'utf8') : '# Benchmarks\n',
    instructionSection(counts),
  ),
);
// The project's formatter has the last word on Markdown, so `npm run lint` passes on it as written.
spawnSync(
  process.execPath,
  [join(root, 'node_modules', '@biomejs', 'biome', 'bin', 'biome'), 'format', '--write', markdown],
  {
    cwd: root,
    stdio: 'ignore',
  },
);
process.stdout.write(`${instructionTables(counts)}\n`);
