/**
 * The package as tsdown builds it (into a temporary folder, with the project's own config):
 * `stitch-fetch/react` and `stitch-fetch/devtools` are client-only, their modules starting with
 * the `'use client'` directive that React Server Components frameworks (Next.js App Router) read
 * from the first line, while the engine entry stays directive-free so a server component can
 * import it; and its types compile in a Node-only app, whose lib has no DOM.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let out: string;

beforeAll(() => {
  // Inside the project, so the built modules find its React as an app's would.
  const cache = join(import.meta.dirname, '../../node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  out = mkdtempSync(join(cache, 'stitch-build-'));
  execFileSync('npx', ['tsdown', '--out-dir', out, '--logLevel', 'error'], { stdio: 'pipe' });
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

type Engine = typeof import('../../src/index');
type React = typeof import('../../src/react/index');

/** Shows the data of `read` as the hooks of one copy of the package read it. */
function Reader({ hooks, read }: { hooks: React; read: import('../../src/index').Stitch<string> }) {
  return createElement('p', null, hooks.useStitch(read, undefined).data ?? 'none');
}

const firstLine = (file: string) => readFileSync(join(out, file), 'utf8').split('\n', 1)[0];

/** Every module specifier `file` loads, its own chunks followed: what loading it loads. */
function loadedBy(file: string, seen = new Set<string>()): Set<string> {
  const code = readFileSync(join(out, file), 'utf8');
  for (const [, specifier = ''] of code.matchAll(/(?:from|import|require\()\s*["']([^"']+)["']/g)) {
    if (!specifier.startsWith('.')) seen.add(specifier);
    else {
      const chunk = join(file, '..', specifier);
      if (!seen.has(chunk)) loadedBy(chunk, seen.add(chunk));
    }
  }
  return seen;
}

describe('the built package', () => {
  it.each(['devtools/model.js', 'devtools/model.cjs'])(
    '%s (the devtools model for another framework) loads no React, nor anything of the panel',
    (file) => {
      const loaded = [...loadedBy(file)];
      expect(loaded.filter((specifier) => /react|Panel/.test(specifier))).toEqual([]);
      expect(loadedBy('devtools/index.js')).toContain('react');
    },
  );

  it.each(['react/index.js', 'react/index.cjs', 'devtools/index.js', 'devtools/index.cjs'])(
    '%s starts with the use client directive',
    (file) => {
      expect(firstLine(file)).toMatch(/^["']use client["'];?$/);
    },
  );

  it.each(['index.js', 'index.cjs'])('the engine entry %s has no directive', (file) => {
    expect(firstLine(file)).not.toMatch(/use client/);
  });

  /** The diagnostics of an app of `lines` compiled against the built types, Node-only, `lib` its lib. */
  function compileApp(lines: string[], lib: string) {
    const app = join(out, 'app.ts');
    writeFileSync(app, lines.join('\n'));
    const program = ts.createProgram([app], {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      // The oldest target the README names: `#private` fields need ES2015.
      target: ts.ScriptTarget.ES2015,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: [lib],
      types: ['node'],
      typeRoots: [join(import.meta.dirname, '../../node_modules/@types')],
      paths: { 'stitch-fetch': [join(out, 'index.d.ts')], 'stitch-fetch/*': [join(out, '*/index.d.ts')] },
    });
    return ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  }

  // A whole program type-checked from scratch: seconds on a loaded machine.
  it('its types compile in a Node-only app (no DOM lib, skipLibCheck off)', () => {
    const app = [
      "import { createEngine, stitch } from 'stitch-fetch';",
      "import { retry, stitch as lite } from 'stitch-fetch/lite';",
      "import { createRedisStore } from 'stitch-fetch/redis';",
      "import { createManualClock } from 'stitch-fetch/testing';",
      'const engine = createEngine({ clock: createManualClock() });',
      "const post = stitch<{ id: number }>({ name: 'post', method: 'POST', url: 'https://api.example.com/items' });",
      "const read = lite<{ id: number }>({ name: 'read', url: 'https://api.example.com/items', retry: retry(2) });",
      "export const runs = [post({ body: { title: 'x' } }, { engine }), read(undefined, { engine })];",
      'export const store = createRedisStore;',
    ];
    expect(compileApp(app, 'lib.es2023.d.ts')).toEqual([]);
  }, 60_000);

  it("an error's cause is typed where the app's lib predates ES2022's Error cause", () => {
    const app = [
      "import { isAbortError, isStitchError } from 'stitch-fetch';",
      'export function reason(error: unknown): unknown {',
      '  if (isAbortError(error)) return error.cause;',
      "  if (isStitchError(error) && error.kind === 'aborted') return error.cause;",
      '  return undefined;',
      '}',
    ];
    expect(compileApp(app, 'lib.es2020.d.ts')).toEqual([]);
  }, 60_000);

  it.each([
    'index',
    'lite/index',
    'react/index',
    'testing/index',
    'otel/index',
    'devtools/index',
    'devtools/model',
    'redis/index',
  ])(
    'every class the types of %s export is a value of its ESM and CJS modules (instanceof works)',
    async (entry) => {
      const types = join(out, `${entry}.d.ts`);
      const program = ts.createProgram([types], { noEmit: true, skipLibCheck: true });
      const checker = program.getTypeChecker();
      const module = checker.getSymbolAtLocation(program.getSourceFile(types) as ts.SourceFile);
      const classes = checker
        .getExportsOfModule(module as ts.Symbol)
        .filter((symbol) => {
          const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
          return (target.flags & ts.SymbolFlags.Class) !== 0;
        })
        .map((symbol) => symbol.name);
      const esm = await import(join(out, `${entry}.js`));
      const cjs = createRequire(import.meta.url)(join(out, `${entry}.cjs`));
      for (const name of classes) {
        expect(typeof esm[name], `${entry}: ${name} (ESM)`).toBe('function');
        expect(typeof cjs[name], `${entry}: ${name} (CJS)`).toBe('function');
      }
    },
    60_000,
  );

  it('its ESM and CJS copies share one default engine per process', async () => {
    const esm = (await import(join(out, 'index.js'))) as typeof import('../../src/index');
    const cjs = createRequire(import.meta.url)(join(out, 'index.cjs')) as typeof import('../../src/index');
    expect(esm.defaultEngine()).toBe(cjs.defaultEngine());
  });

  it('stitches of its ESM and CJS copies on one engine share one throttle per key', async () => {
    const esm = (await import(join(out, 'index.js'))) as typeof import('../../src/index');
    const cjs = createRequire(import.meta.url)(join(out, 'index.cjs')) as typeof import('../../src/index');
    const held: Array<() => void> = [];
    let sentTwo = () => {};
    const secondSent = new Promise<void>((resolve) => {
      sentTwo = resolve;
    });
    const fetch = () =>
      new Promise<Response>((resolve) => {
        held.push(() => resolve(Response.json('ok')));
        if (held.length === 2) sentTwo();
      });
    const engine = esm.createEngine({ fetch });
    const queued = new Promise<void>((resolve) => {
      engine.inspect((event) => {
        if (event.type === 'throttle' && event.queued === 1) resolve();
      });
    });
    const throttle = { concurrency: 1 };
    const a = esm.stitch({ name: 'a', url: 'https://api.test/a', throttle })(undefined, { engine });
    const b = cjs.stitch({ name: 'b', url: 'https://api.test/b', throttle })(undefined, { engine });
    // Both calls placed: the second sent (a throttle per copy) or queued (one for the origin).
    await Promise.race([secondSent, queued]);
    expect(held).toHaveLength(1);
    held[0]?.();
    await a;
    await secondSent;
    held[1]?.();
    await b;
  });

  it('its ESM and CJS copies number their runs apart: a trace sink shared by both keys runs by id', async () => {
    const esm = (await import(join(out, 'index.js'))) as typeof import('../../src/index');
    const cjs = createRequire(import.meta.url)(join(out, 'index.cjs')) as typeof import('../../src/index');
    const ids = new Set<string>();
    const trace = { handle: (event: { type: string; run: string }) => ids.add(event.run) };
    const fetch = async () => Response.json('ok');
    for (const copy of [esm, cjs, esm, cjs]) {
      const read = copy.stitch({ name: 'read', url: 'https://api.test/x', cache: false });
      await read(undefined, { engine: copy.createEngine({ fetch, trace }) });
    }
    expect(ids.size).toBe(4);
  });

  it('a provider of one copy reaches the hooks of the other (a CommonJS library under an ESM app)', async () => {
    const require = createRequire(import.meta.url);
    const copies = {
      esm: {
        engine: (await import(join(out, 'index.js'))) as Engine,
        react: (await import(join(out, 'react/index.js'))) as React,
      },
      cjs: {
        engine: require(join(out, 'index.cjs')) as Engine,
        react: require(join(out, 'react/index.cjs')) as React,
      },
    };
    const read = copies.esm.engine.stitch<string>({
      name: 'provided',
      url: 'https://api.example.com/provided',
    });
    for (const [outer, inner] of [
      [copies.esm, copies.cjs],
      [copies.cjs, copies.esm],
    ] as const) {
      const engine = outer.engine.createEngine();
      engine.setData(read, undefined, 'from the provided engine');
      const reader = createElement(Reader, { hooks: inner.react, read });
      const page = renderToString(createElement(outer.react.StitchProvider, { engine }, reader));
      expect(page).toContain('from the provided engine');
    }
  });
});
