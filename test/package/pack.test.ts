/**
 * What `npm pack` puts in the tarball users install: the package's own name, the licence its
 * `license` field names, the README and the documents it links to, and nothing outside dist/
 * besides them.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  name: string;
  license: string;
  dependencies?: Record<string, string>;
};

it('depends on nothing: installing the engine alone installs no React (React is an optional peer)', () => {
  expect(manifest.dependencies ?? {}).toEqual({});
});

it('packs as stitch-fetch with its MIT LICENSE, README, the documents it links to and only dist/ besides', async () => {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
  });
  const [pack] = JSON.parse(stdout) as [{ name: string; files: { path: string }[] }];
  const paths = pack.files.map((file) => file.path);

  expect(pack.name).toBe('stitch-fetch');
  expect(paths).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
  expect(paths.filter((path) => !path.startsWith('dist/')).sort()).toEqual([
    'LICENSE',
    'README.md',
    'docs/MIGRATING.md',
    'docs/RELIABILITY.md',
    'docs/SCALING.md',
    'package.json',
  ]);
  // The README's links to documents resolve in the installed package too.
  const readme = readFileSync(new URL('README.md', root), 'utf8');
  const linked = [...readme.matchAll(/\]\(([^)#:]+\.md)\)/g)].map((match) => match[1]);
  expect(linked.length).toBeGreaterThan(0);
  expect(paths).toEqual(expect.arrayContaining(linked));
  expect(manifest.license).toBe('MIT');
  expect(readFileSync(new URL('LICENSE', root), 'utf8')).toMatch(/^MIT License/);
}, 30_000);
