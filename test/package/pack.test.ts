/**
 * What `npm pack` puts in the tarball users install: the package's own name, the licence its
 * `license` field names, the README, and nothing outside dist/ besides them.
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

it('packs as stitch-fetch with its MIT LICENSE, README and only dist/ besides', async () => {
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
    'package.json',
  ]);
  expect(manifest.license).toBe('MIT');
  expect(readFileSync(new URL('LICENSE', root), 'utf8')).toMatch(/^MIT License/);
}, 30_000);
