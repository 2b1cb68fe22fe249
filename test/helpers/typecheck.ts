/**
 * Type-checks snippets of user code against the package's own source (`stitch-fetch` and its
 * subpaths map to `src/`), as an app under `strict` would compile them.
 */
import { join } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '../..');

/** A snippet: where it comes from (for messages), the line it starts on, and its code. */
export interface Snippet {
  file: string;
  line: number;
  lang: 'ts' | 'tsx';
  code: string;
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
 * Type-checks `snippets`, each a module of its own, under `strict` and the `extra` options;
 * returns each diagnostic as `file:line: text`. Only the snippets are held to `extra`: the
 * package's own source is compiled without it, so its diagnostics are left out then.
 */
export function typecheck(snippets: Snippet[], extra: ts.CompilerOptions = {}): string[] {
  const settings = { ...options, ...extra };
  const files = new Map(snippets.map((snippet, n) => [join(root, `snippet-${n}.${snippet.lang}`), snippet]));
  const host = ts.createCompilerHost(settings);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (name) => files.get(name)?.code ?? readFile(name);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => {
    const snippet = files.get(name);
    return snippet
      ? ts.createSourceFile(name, snippet.code, version, true)
      : getSourceFile(name, version, ...rest);
  };
  const program = ts.createProgram([...files.keys()], settings, host);
  const held = Object.keys(extra).length === 0;
  return ts.getPreEmitDiagnostics(program).flatMap((diagnostic) => {
    const snippet = diagnostic.file && files.get(diagnostic.file.fileName);
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!snippet || !diagnostic.file || diagnostic.start === undefined) return held ? [text] : [];
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return [`${snippet.file}:${snippet.line + line}: ${text}`];
  });
}
