/**
 * Issue 13, item 4: `stitch-fetch/react` (and `stitch-fetch/otel`) import only what a third-party
 * adapter could import. A module of theirs that reaches outside its own folder reaches the
 * public `stitch-fetch` entry (`../index`), never an engine module, so the engine's public API is
 * proven enough to build them on.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const src = new URL('../../src/', import.meta.url);

/** Every module specifier of a source file: `import`/`export ... from`, bare `import`, `import()`. */
function specifiers(code: string): string[] {
  const found = code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g);
  return [...found].map((match) => match[1] as string);
}

describe.each(['react', 'otel'])('src/%s', (folder) => {
  const files = readdirSync(new URL(`${folder}/`, src), { recursive: true, encoding: 'utf8' }).filter(
    (file) => /\.tsx?$/.test(file),
  );

  it('has modules to check', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s leaves its folder only for the public entry', (file) => {
    const code = readFileSync(new URL(`${folder}/${file}`, src), 'utf8');
    const outside = specifiers(code).filter((path) => path.startsWith('../'));
    expect(outside.filter((path) => path !== '../index')).toEqual([]);
  });
});
