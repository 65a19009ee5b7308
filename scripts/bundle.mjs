// `npm run build`: bundle src/ into dist/bundle/ with esbuild, one file for the CLI (what bin/kprof.js runs), one
// for the read worker, and early.cjs, the few kB bin/kprof.js runs first (src/cli/early.ts). Loading some 40 modules one by one (resolve, read, compile, link each; commander's
// CJS files through the ESM loader) cost every run tens of milliseconds, in the main thread and again in the
// worker of a diff; one file of each costs a fraction of it. Type-checking is tsc's (`npm run typecheck`); esbuild
// only strips the types.
//
// - The reader (src/input/read.ts) starts the worker on ./workers/readWorkerStart.cjs beside its own module, a few
//   kB (src/cli/readWorkerStart.ts) that load the worker's bundle beside it, workers/readWorker.cjs, with V8's code
//   cache of it (its entry is src/cli/readWorker.ts, which registers the beside-sink kinds of later stages): the
//   bundle's CLI file is dist/bundle/cli.cjs, so both are bundled below dist/bundle/workers/ (ENTRY_SOURCES). Under
//   vitest the reader runs from src/ and starts that same bundled worker. The worker is
//   CommonJS as the CLI is: a worker thread that starts an ES module first loads Node's ES module loader, some 15 ms
//   of every diff's worker start-up (median of 12 paired starts).
// - A command's `await import()` (src/cli/run.ts) stays lazy inside the bundle: its modules run only when it does.
// - Dependencies loaded on first use with createRequire (cli-table3, yaml, cli-progress) stay out of the bundle
//   and load from node_modules when needed.
// - The source maps go back to src/*.ts (node --enable-source-maps bin/kprof.js … --debug).
// - `kprof --version` is package.json's version, written into the bundle here (KPROF_VERSION in src/cli/run.ts):
//   package.json is its one source, and the installed package need not read it at run time.
// - dist/bundle/fingerprint names the sources a bundle was made from (a hash of src/, package.json and this
//   script): the tests' global setup (test/setup/bundle.ts) rebuilds when it differs, so a test always runs the
//   code in src/ and a stale bundle can neither pass nor fail one.

import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
const BUNDLE = join(DIST, 'bundle');
const FINGERPRINT = join(BUNDLE, 'fingerprint');

/** The version in package.json. */
export function packageVersion() {
  return JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
}

/** The bundle's files (below dist/bundle/) and the module of src/ each one bundles. */
const ENTRY_SOURCES = {
  'cli.cjs': 'cli/cli.ts',
  'workers/readWorker.cjs': 'cli/readWorker.ts',
  'workers/readWorkerStart.cjs': 'cli/readWorkerStart.ts',
  'early.cjs': 'cli/early.ts',
};
const ENTRIES = Object.keys(ENTRY_SOURCES);

/**
 * esbuild's options for the bundle of `entries` (names below dist/bundle/, each `.cjs`) into `outdir`, with
 * `version` written in. Every bundle is CommonJS: the CLI and the read worker's bundle are compiled with V8's code
 * cache of each (src/cli/codeCache.ts runBundle), which Node 20 offers for scripts, not for ES modules; a thread
 * whose first module is an ES module loads Node's ES module loader first (some 15 ms of every run, and again in the read worker); and
 * `import.meta.url` is then the bundle's own URL. The code is written without its comments and indentation
 * (`minifyWhitespace`; names are kept, and the source maps map it back to src/), in ASCII: 0.9 MB instead of
 * 1.2 MB to read and turn into a string at every start (a text with no other byte is decoded on a faster path).
 */
export function bundleOptions({ entries = ENTRIES, outdir = BUNDLE, version = packageVersion() } = {}) {
  if (!entries.every((e) => e.endsWith('.cjs'))) throw new Error(`bundleOptions: ${entries.join(', ')}: every bundle is .cjs`);
  return {
    entryPoints: entries.map((e) => ({ in: join(SRC, ENTRY_SOURCES[e]), out: e.replace(/\.cjs$/, '') })),
    outdir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    target: 'node20',
    sourcemap: true,
    define: { KPROF_VERSION: JSON.stringify(version), 'import.meta.url': '__kprofUrl' },
    banner: { js: "const __kprofUrl = require('node:url').pathToFileURL(__filename).href;" },
    logLevel: 'warning',
    minifyWhitespace: true,
    charset: 'ascii',
  };
}

/**
 * Make V8's code caches of the CLI bundle (dist/bundle/cli.cjs.cache) and of the read worker's
 * (dist/bundle/workers/readWorker.cjs.cache), see src/cli/codeCache.ts. A child process runs a command as
 * bin/kprof.js does and writes the cache of what it ran (scripts/codeCache.mjs), so that the functions the command
 * compiles are in it too: for the CLI, the README's diff of the example profiles; for the worker, a diff of two
 * profiles large enough to be read in a worker thread (PARALLEL_MIN_BYTES, 8 MiB, each), made here of the
 * example's first rank (bench/generate.mjs), whose worker also runs the Fusion rewrites section. A cache only saves
 * time: when it cannot be made, there is none, and the bundle is compiled at each run.
 */
async function codeCaches() {
  const make = (which, cache, command) => {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/codeCache.mjs'), BUNDLE, which, ...command], {
      cwd: ROOT,
      stdio: 'ignore',
      env: { ...process.env, NO_COLOR: '1' },
    });
    if (r.status !== 0) rmSync(join(BUNDLE, cache), { force: true });
  };
  make('cli', 'cli.cjs.cache', ['diff', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr']);
  const tmp = mkdtempSync(join(tmpdir(), 'kprof-build-'));
  try {
    const { generate } = await import(pathToFileURL(join(ROOT, 'bench/generate.mjs')).href);
    const sides = ['base', 'pr'].map((side) => {
      const example = join(ROOT, 'fixtures/fusion-example', side);
      const rank = readdirSync(example).sort()[0];
      const out = join(tmp, `${side}.csv`);
      generate(join(example, rank, 'ASCEND_PROFILER_OUTPUT/kernel_details.csv'), out, 9);
      return out;
    });
    make('worker', 'workers/readWorker.cjs.cache', ['diff', ...sides]);
    // A write the end of the run cut short (codeCache.mjs writes a cache beside it first) is not part of the bundle.
    for (const f of readdirSync(join(BUNDLE, 'workers'))) if (f.includes('.cache.part')) rmSync(join(BUNDLE, 'workers', f), { force: true });
  } catch {
    rmSync(join(BUNDLE, 'workers/readWorker.cjs.cache'), { force: true });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Every file below `dir`, sorted. */
function files(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

/**
 * A hash of what a bundle is made from: every file of src/ (path and bytes), package.json, this script and those it
 * runs to make the code caches (codeCache.mjs, bench/generate.mjs).
 */
export function fingerprint() {
  const h = createHash('sha256');
  for (const f of [
    ...files(SRC),
    join(ROOT, 'package.json'),
    fileURLToPath(import.meta.url),
    join(ROOT, 'scripts/codeCache.mjs'),
    join(ROOT, 'bench/generate.mjs'),
  ]) {
    const bytes = readFileSync(f);
    h.update(`${relative(ROOT, f)}\0${bytes.length}\0`).update(bytes);
  }
  return h.digest('hex');
}

/** Bundle src/ into dist/bundle/ (dist/ is emptied first: nothing else in it is kprof's). */
export async function bundle() {
  const print = fingerprint();
  rmSync(DIST, { recursive: true, force: true });
  await build(bundleOptions());
  await codeCaches();
  writeFileSync(FINGERPRINT, `${print}\n`);
}

/** Bundle unless dist/bundle/ was made from the sources as they are now; true when it bundled. */
export async function ensureBundle() {
  let made = '';
  try {
    made = readFileSync(FINGERPRINT, 'utf8').trim();
  } catch {
    // no bundle yet
  }
  if (made === fingerprint()) return false;
  await bundle();
  return true;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await bundle();
}
