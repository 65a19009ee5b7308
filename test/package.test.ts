// The package as npm publishes it: its metadata, the files it holds, and `kprof --version` from package.json
// (its one source). Installing the packed package and a git URL of the clone is tested by .ci/install.

import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { kprof, ROOT, walk } from './helpers.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  repository: { type: string; url: string };
  bugs: { url: string };
  homepage: string;
  keywords: string[];
  engines: { node: string };
  files: string[];
  bin: Record<string, string>;
  scripts: Record<string, string>;
};

describe('package.json', () => {
  it('is ready to publish: licence file, repository, bugs, homepage, keywords, engines', () => {
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
    // One repository behind the three addresses.
    const repo = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    expect(pkg.repository.type).toBe('git');
    expect(repo).toMatch(/^https:\/\/github\.com\/[\w-]+\/[\w-]+$/);
    expect(pkg.bugs.url).toBe(`${repo}/issues`);
    expect(pkg.homepage).toBe(`${repo}#readme`);
    expect(pkg.keywords).toEqual(expect.arrayContaining(['ascend', 'npu', 'torch_npu', 'msprof', 'profiler']));
    expect(pkg.engines.node).toBe('>=20');
  });

  it('has a CHANGELOG section for this version (after the changes not yet released, if any)', () => {
    const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
    const sections = [...changelog.matchAll(/^## (\S+)/gm)].map((m) => m[1]);
    expect(sections[0] === 'Unreleased' ? sections[1] : sections[0]).toBe(pkg.version);
  });

  it('builds on install from a git URL (prepare) and runs the bundle', () => {
    // npm runs `prepare` after installing a git dependency's devDependencies, and before `npm pack`.
    expect(pkg.scripts.prepare).toBe('npm run build');
    expect(pkg.bin).toEqual({ kprof: 'bin/kprof.js' });
    expect(readFileSync(join(ROOT, 'bin/kprof.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  });

  it('packs exactly what an install needs: the bin, the bundles, the docs', () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const [packed] = JSON.parse(r.stdout) as { files: { path: string }[] }[];
    expect(packed!.files.map((f) => f.path).sort()).toEqual([
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'bin/kprof.js',
      'bin/package.json',
      'dist/bundle/cli.cjs',
      'dist/bundle/cli.cjs.cache',
      'dist/bundle/early.cjs',
      'dist/bundle/workers/readWorker.cjs',
      'dist/bundle/workers/readWorker.cjs.cache',
      'dist/bundle/workers/readWorkerStart.cjs',
      'package.json',
    ]);
  });
});

describe('kprof --version', () => {
  const tmp = join(ROOT, 'dist', `.version-test-${process.pid}`);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('is package.json version, in-process and from bin/kprof.js', async () => {
    const r = await kprof(['--version']);
    expect(r).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    const bin = spawnSync(process.execPath, ['bin/kprof.js', '--version'], { cwd: ROOT, encoding: 'utf8' });
    expect(bin.stdout).toBe(`${pkg.version}\n`);
  });

  it('is written into the bundle by the build, not kept in the sources', async () => {
    // Bundle the CLI as `npm run build` does, with another version: the bundle prints that one.
    const script = pathToFileURL(join(ROOT, 'scripts/bundle.mjs')).href;
    const { bundleOptions, packageVersion } = (await import(script)) as {
      bundleOptions: (o: { entries?: string[]; outdir?: string; version?: string }) => Parameters<typeof build>[0];
      packageVersion: () => string;
    };
    expect(packageVersion()).toBe(pkg.version);
    await build({ ...bundleOptions({ entries: ['cli.cjs'], outdir: tmp, version: '9.8.7-test.1' }), logLevel: 'silent' });
    const r = spawnSync(process.execPath, [join(tmp, 'cli.cjs'), '--version'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stdout).toBe('9.8.7-test.1\n');
    // No version literal left in the sources or the bin to drift from package.json.
    const literal = new RegExp(`['"\`]v?${pkg.version.replaceAll('.', '\\.')}['"\`]`);
    expect(walk(join(ROOT, 'src')).filter((f) => literal.test(readFileSync(f, 'utf8')))).toEqual([]);
    expect(readFileSync(join(ROOT, 'bin/kprof.js'), 'utf8')).not.toMatch(literal);
  });

  it('is the one in package-lock.json too (npm version writes both)', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      version: string;
      packages: Record<string, { version?: string }>;
    };
    expect([lock.version, lock.packages['']?.version]).toEqual([pkg.version, pkg.version]);
  });
});
