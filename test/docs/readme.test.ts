/**
 * Every TypeScript block of README.md (and docs/MIGRATING.md) compiles under `strict` against the package's own source
 * (`stitch-fetch` and its subpaths map to `src/`), each block as a module of its own: an example
 * that drifts from the API fails here before a reader copies it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Snippet, typecheck } from '../helpers/typecheck';

const root = join(import.meta.dirname, '../..');

function codeBlocks(file: string, markdown: string): Snippet[] {
  const blocks: Snippet[] = [];
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

/** A block that must not compile: proof that the check above can fail. */
const canary: Snippet = {
  file: 'canary',
  line: 1,
  lang: 'ts',
  code: "import { isAbortError } from 'stitch-fetch';\nconst n: number = isAbortError(1);",
};

describe('README.md and docs/MIGRATING.md', () => {
  const blocks = ['README.md', 'docs/MIGRATING.md'].flatMap((file) =>
    codeBlocks(file, readFileSync(join(root, file), 'utf8')),
  );
  // One program for every block and the canary: building it is most of the cost.
  let diagnostics: string[] = [];
  beforeAll(() => {
    diagnostics = typecheck([...blocks, canary]);
  }, 180_000);

  it('has TypeScript examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
  });

  it('every TypeScript block compiles under strict', () => {
    expect(diagnostics.filter((line) => !line.startsWith('canary:'))).toEqual([]);
  });

  // Many strict apps turn this on; the package's types must hold there too (a Standard Schema
  // validator's optional fields, say, are `T | undefined` in the spec).
  it('every TypeScript block compiles with exactOptionalPropertyTypes too', () => {
    expect(typecheck(blocks, { exactOptionalPropertyTypes: true })).toEqual([]);
  }, 180_000);

  it('the check catches a block that does not compile', () => {
    expect(diagnostics.filter((line) => line.startsWith('canary:'))).toHaveLength(1);
  });
});
