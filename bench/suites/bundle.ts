/**
 * Suite 4, bundle size. Two measurements of the same thing:
 *
 * - size-limit itself, with the project's budgets (.size-limit.json), exactly as `npm run check`
 *   runs it: its figures are the ones that pass or fail.
 * - The same bundler settings as size-limit's esbuild plugin (bundle, minify, tree-shake, react
 *   and react-dom external, gzip level 9, minus size-limit's empty-project allowance), applied
 *   to Stitch's dist/ and to the equivalent imports of TanStack Query, SWR and cockatiel, so the
 *   figures sit side by side. For Stitch both must agree.
 *
 * Plus a breakdown of Stitch's minified bytes per source module (esbuild metafile over src/),
 * to say where the bytes go when a budget is not met.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { runSuite } from '../lib/child';

const root = process.cwd();
const scratch = join(root, 'node_modules', '.cache', 'stitch-bench', 'size');
const dist = (file: string) => JSON.stringify(join(root, 'dist', file));

/** size-limit's own allowances for an empty bundle (see @size-limit/esbuild), gzip variants. */
const EMPTY_IMPORT_GZIP = 46;
const EMPTY_IMPORT_IGNORE_GZIP = 182;

interface Entry {
  id: string;
  /** What an app of that library imports for this purpose. */
  imports: string;
  /** The loader: import statements, then `console.log` of what was imported (as size-limit writes it). */
  code: string;
}

interface Row {
  id: string;
  label: string;
  /** Per library, `undefined` where it has no equivalent. */
  entries: Partial<Record<'stitch' | 'tanstack' | 'swr' | 'cockatiel', Entry>>;
}

const entry = (id: string, imports: string, code: string): Entry => ({ id, imports, code });

/** TanStack Query's and SWR's hooks are all their search component imports (rows `hooks` and `app`). */
const reactQueryHooks = (id: string) =>
  entry(
    id,
    'import { useQuery, QueryClient, QueryClientProvider, keepPreviousData }',
    `import { useQuery, QueryClient, QueryClientProvider, keepPreviousData } from '@tanstack/react-query'\nconsole.log(useQuery, QueryClient, QueryClientProvider, keepPreviousData)`,
  );
const swrHooks = (id: string) =>
  entry(
    id,
    'import useSWR, { SWRConfig }',
    `import useSWR, { SWRConfig } from 'swr'\nconsole.log(useSWR, SWRConfig)`,
  );

/** The hooks the search component imports, from the (quoted) module specifier given. */
const hooksLoader = (react: string) =>
  `import { useStitch, StitchProvider, skipToken } from ${react}\nconsole.log(useStitch, StitchProvider, skipToken)`;

/**
 * What the search component imports from Stitch (`stitch` and `retry` from `lite`, its timeouts
 * being plain options), from the three (quoted) module specifiers given.
 */
const appLoader = (lite: string, index: string, react: string) =>
  `import { stitch, retry } from ${lite}\nimport { createEngine } from ${index}\nconsole.log(stitch, retry, createEngine)\n${hooksLoader(react)}`;

/** The same with the main entry's `stitch` (options objects, every policy and the default breaker). */
const mainAppLoader = (index: string, react: string) =>
  `import { stitch, createEngine } from ${index}\nconsole.log(stitch, createEngine)\n${hooksLoader(react)}`;

export const ROWS: Row[] = [
  {
    id: 'call',
    label: 'the engine entry one call needs (Stitch: stitch-fetch/lite, no policy)',
    entries: {
      stitch: entry(
        'stitch-call',
        'import { stitch } from stitch-fetch/lite',
        `import { stitch } from ${dist('lite/index.js')}\nconsole.log(stitch)`,
      ),
      cockatiel: entry(
        'cockatiel-policies',
        'import { wrap, timeout, retry, circuitBreaker, bulkhead, handleAll, ConsecutiveBreaker, ExponentialBackoff, TimeoutStrategy }',
        `import { wrap, timeout, retry, circuitBreaker, bulkhead, handleAll, ConsecutiveBreaker, ExponentialBackoff, TimeoutStrategy } from 'cockatiel'\nconsole.log(wrap, timeout, retry, circuitBreaker, bulkhead, handleAll, ConsecutiveBreaker, ExponentialBackoff, TimeoutStrategy)`,
      ),
      tanstack: entry(
        'query-core-client',
        'import { QueryClient } from @tanstack/query-core',
        `import { QueryClient } from '@tanstack/query-core'\nconsole.log(QueryClient)`,
      ),
    },
  },
  {
    id: 'call-main',
    label: "one call, the main entry's stitch (options objects: every policy)",
    entries: {
      stitch: entry(
        'stitch-call-main',
        'import { stitch } from stitch-fetch',
        `import { stitch } from ${dist('index.js')}\nconsole.log(stitch)`,
      ),
    },
  },
  {
    id: 'engine',
    label: 'the whole engine (import *)',
    entries: {
      stitch: entry(
        'stitch-all',
        'import * from stitch-fetch',
        `import * as all from ${dist('index.js')}\nconsole.log(all)`,
      ),
      cockatiel: entry(
        'cockatiel-all',
        'import * from cockatiel',
        `import * as all from 'cockatiel'\nconsole.log(all)`,
      ),
      tanstack: entry(
        'query-core-all',
        'import * from @tanstack/query-core',
        `import * as all from '@tanstack/query-core'\nconsole.log(all)`,
      ),
    },
  },
  {
    id: 'hooks',
    label: 'the hook and its provider',
    entries: {
      stitch: entry(
        'stitch-hooks',
        'import { useStitch, StitchProvider } from stitch-fetch/react',
        `import { useStitch, StitchProvider } from ${dist('react/index.js')}\nconsole.log(useStitch, StitchProvider)`,
      ),
      tanstack: reactQueryHooks('react-query-hooks'),
      swr: swrHooks('swr-hooks'),
    },
  },
  {
    id: 'app',
    label: 'engine + hooks: what the search component imports (Stitch: lite, with retry)',
    entries: {
      stitch: entry(
        'stitch-app',
        'import { stitch, retry } from stitch-fetch/lite + { createEngine } + { useStitch, StitchProvider, skipToken }',
        appLoader(dist('lite/index.js'), dist('index.js'), dist('react/index.js')),
      ),
      tanstack: reactQueryHooks('react-query-app'),
      swr: swrHooks('swr-app'),
    },
  },
  {
    id: 'app-main',
    label: "the search component's import with the main entry's stitch",
    entries: {
      stitch: entry(
        'stitch-app-main',
        'import { stitch, createEngine } + { useStitch, StitchProvider, skipToken }',
        mainAppLoader(dist('index.js'), dist('react/index.js')),
      ),
    },
  },
];

/** size-limit's esbuild settings (its plugin minifies identifiers, syntax and whitespace). */
const SIZE_LIMIT_BUILD = {
  absWorkingDir: root,
  bundle: true,
  external: ['react', 'react-dom'],
  minifyIdentifiers: true,
  minifySyntax: true,
  minifyWhitespace: true,
  treeShaking: true,
  write: false,
  logLevel: 'silent',
} satisfies esbuild.BuildOptions;

/** size-limit's esbuild settings, on a loader written where bare imports resolve from node_modules. */
async function measure(item: Entry) {
  const dir = join(scratch, item.id);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'index.js');
  writeFileSync(file, `${item.code}\n`);
  const result = await esbuild.build({
    ...SIZE_LIMIT_BUILD,
    entryPoints: [file],
    outdir: join(dir, 'out'),
    allowOverwrite: true,
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error(`${item.id}: esbuild produced no output`);
  const text = Buffer.from(output.contents);
  const empty = text.toString().includes('Dynamic require of ')
    ? EMPTY_IMPORT_IGNORE_GZIP
    : EMPTY_IMPORT_GZIP;
  return { minified: text.length, gzip: gzipSync(text, { level: 9 }).length - empty };
}

/** The project's own budgets, through size-limit, as `npm run check` runs them. */
function sizeLimit() {
  const run = spawnSync(process.execPath, [join(root, 'node_modules', 'size-limit', 'bin.js'), '--json'], {
    cwd: root,
    encoding: 'utf8',
  });
  const checks = JSON.parse(run.stdout) as Array<{
    name: string;
    passed: boolean;
    size: number;
    sizeLimit: number;
  }>;
  const config = JSON.parse(readFileSync(join(root, '.size-limit.json'), 'utf8')) as Array<{
    name: string;
    limit: string;
  }>;
  return checks.map((check) => ({ ...check, limit: config.find((c) => c.name === check.name)?.limit }));
}

/** Minified bytes per Stitch source module in a bundle of `code` (over src/, not dist/). */
async function breakdown(code: string) {
  const result = await esbuild.build({
    ...SIZE_LIMIT_BUILD,
    stdin: { contents: code, resolveDir: root, sourcefile: 'entry.js' },
    metafile: true,
    outfile: join(scratch, 'breakdown.js'),
  });
  const output = Object.values(result.metafile.outputs)[0];
  const modules = Object.entries(output?.inputs ?? {})
    .filter(([file]) => file.startsWith('src/'))
    .map(([file, { bytesInOutput }]) => ({ module: relative('src', file), minified: bytesInOutput }))
    .sort((a, b) => b.minified - a.minified);
  return { total: modules.reduce((sum, module) => sum + module.minified, 0), modules };
}

runSuite(async () => {
  const rows = [];
  for (const row of ROWS) {
    const sizes: Record<string, { imports: string; minified: number; gzip: number }> = {};
    for (const [library, item] of Object.entries(row.entries)) {
      sizes[library] = { imports: item.imports, ...(await measure(item)) };
    }
    rows.push({ id: row.id, label: row.label, sizes });
  }
  return {
    settings:
      'esbuild (bundle, minify, tree-shaking, react + react-dom external), gzip -9, as @size-limit/esbuild',
    sizeLimit: sizeLimit(),
    rows,
    breakdown: await breakdown(
      appLoader("'./src/lite/index.ts'", "'./src/index.ts'", "'./src/react/index.ts'"),
    ),
  };
});
