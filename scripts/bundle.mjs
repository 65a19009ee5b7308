// `npm run build`, after tsc: bundle dist/ into dist/bundle/, one file for the CLI (what bin/kprof.js runs) and
// one for the read worker. Loading some 40 modules one by one (resolve, read, compile, link each; commander's
// CJS files through the ESM loader) cost every run tens of milliseconds, in the main thread and again in the
// worker of a diff; one file of each costs a fraction of it.
//
// - The reader (src/input/read.ts) starts the worker as ./workers/readWorker.js beside its own module: in dist/
//   that is dist/input/workers/, and in the bundle, whose CLI file is dist/bundle/cli.js, the worker's entry is
//   bundled to dist/bundle/workers/readWorker.js (ENTRY_SOURCES).
// - A command's `await import()` (src/cli/run.ts) stays lazy inside the bundle: its modules run only when it does.
// - Dependencies loaded on first use with createRequire (cli-table3, yaml, cli-progress) stay out of the bundle
//   and load from node_modules when needed. Commander is CommonJS: its require() of node builtins needs a
//   `require` in the ESM bundle, which the banner makes.
// - The source maps go back through tsc's to src/*.ts (node --enable-source-maps bin/kprof.js … --debug).
// - `kprof --version` is package.json's version, written into the bundle here (KPROF_VERSION in src/cli/run.ts):
//   package.json is its one source, and the installed package need not read it at run time.

import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');

/** The version in package.json. */
export function packageVersion() {
  return JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
}

/** The bundle's files (below dist/bundle/) and the module of dist/ each one bundles. */
const ENTRY_SOURCES = { 'cli.js': 'cli/cli.js', 'workers/readWorker.js': 'input/workers/readWorker.js' };
const ENTRIES = Object.keys(ENTRY_SOURCES);

/** esbuild's options for the bundle of `entries` (names below dist/bundle/) into `outdir`, with `version` written in. */
export function bundleOptions({ entries = ENTRIES, outdir = join(DIST, 'bundle'), version = packageVersion() } = {}) {
  return {
    entryPoints: entries.map((e) => ({ in: join(DIST, ENTRY_SOURCES[e]), out: e.replace(/\.js$/, '') })),
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    define: { KPROF_VERSION: JSON.stringify(version) },
    banner: { js: "import { createRequire as __kprofRequire } from 'node:module'; const require = __kprofRequire(import.meta.url);" },
    logLevel: 'warning',
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await build(bundleOptions());
}
