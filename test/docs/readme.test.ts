/**
 * Every TypeScript block of README.md compiles under `strict` against the package's own source
 * (`stitch-fetch` and its subpaths map to `src/`), each block as a module of its own: an example
 * that drifts from the API fails here before a reader copies it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

/** A ```ts or ```tsx block of a Markdown file, with the line it starts on. */
interface Block {
  file: string;
  line: number;
  lang: 'ts' | 'tsx';
  code: string;
}

function codeBlocks(file: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|tsx)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    const start = i + 1;
    while (i + 1 < lines.length && lines[i + 1] !== '```') i++;
    blocks.push({
      file,
      line: start + 1,
      lang: open[1] as 'ts' | 'tsx',
      code: lines.slice(start, i + 1).join('\n'),
    });
    i++;
  }
  return blocks;
}

const options: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.ReactJSX,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  types: ['node'],
  skipLibCheck: true,
  noUncheckedIndexedAccess: true,
  baseUrl: root,
  paths: { 'stitch-fetch': ['src/index.ts'], 'stitch-fetch/*': ['src/*/index.ts'] },
};

/**
 * Type-checks `blocks` as files beside the README, under `options` and the `extra` ones; returns
 * each diagnostic as `file:line: text`.
 */
function check(blocks: Block[], extra: ts.CompilerOptions = {}): string[] {
  const files = new Map(blocks.map((block, n) => [join(root, `readme-block-${n}.${block.lang}`), block]));
  const settings = { ...options, ...extra };
  const host = ts.createCompilerHost(settings);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (name) => files.get(name)?.code ?? readFile(name);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => {
    const block = files.get(name);
    return block
      ? ts.createSourceFile(name, block.code, version, true)
      : getSourceFile(name, version, ...rest);
  };
  const program = ts.createProgram([...files.keys()], settings, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const block = diagnostic.file && files.get(diagnostic.file.fileName);
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!block || !diagnostic.file || diagnostic.start === undefined) return text;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${block.file}:${block.line + line}: ${text}`;
  });
}

/** A block that must not compile: proof that the check above can fail. */
const canary: Block = {
  file: 'canary',
  line: 1,
  lang: 'ts',
  code: "import { isAbortError } from 'stitch-fetch';\nconst n: number = isAbortError(1);",
};

describe('README.md', () => {
  const blocks = codeBlocks('README.md', readFileSync(join(root, 'README.md'), 'utf8'));
  // One program for every block and the canary: building it is most of the cost.
  let diagnostics: string[] = [];
  beforeAll(() => {
    diagnostics = check([...blocks, canary]);
  }, 180_000);

  it('has TypeScript examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
  });

  it('every TypeScript block compiles under strict', () => {
    expect(diagnostics.filter((line) => !line.startsWith('canary:'))).toEqual([]);
  });

  // Many strict apps turn this on; the package's types must hold there too (a Standard Schema
  // validator's optional fields, say, are `T | undefined` in the spec). Only the blocks are held
  // to it: the package's own source is compiled without it.
  it('every TypeScript block compiles with exactOptionalPropertyTypes too', () => {
    const exact = check(blocks, { exactOptionalPropertyTypes: true });
    expect(exact.filter((line) => line.startsWith('README.md:'))).toEqual([]);
  }, 180_000);

  it('the check catches a block that does not compile', () => {
    expect(diagnostics.filter((line) => line.startsWith('canary:'))).toHaveLength(1);
  });
});
