/**
 * `stitch-fetch/react` is client-only: its built module starts with the `'use client'` directive,
 * which React Server Components frameworks (Next.js App Router) read from the first line. The
 * engine entry stays directive-free, so a server component can import it. Builds the package
 * into a temporary folder with the project's own tsdown config.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let out: string;

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'stitch-build-'));
  execFileSync('npx', ['tsdown', '--out-dir', out, '--logLevel', 'error'], { stdio: 'pipe' });
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

const firstLine = (file: string) => readFileSync(join(out, file), 'utf8').split('\n', 1)[0];

describe('the built package', () => {
  it.each(['react/index.js', 'react/index.cjs'])('%s starts with the use client directive', (file) => {
    expect(firstLine(file)).toMatch(/^["']use client["'];?$/);
  });

  it.each(['index.js', 'index.cjs'])('the engine entry %s has no directive', (file) => {
    expect(firstLine(file)).not.toMatch(/use client/);
  });
});
