// `npm run build`, after tsc: bundle dist/ into dist/bundle/, one file for the CLI (what bin/kprof.js runs) and
// one for the read worker. Loading some 40 modules one by one (resolve, read, compile, link each; commander's
// CJS files through the ESM loader) cost every run tens of milliseconds, in the main thread and again in the
// worker of a diff; one file of each costs a fraction of it.
//
// - The bundle of a module keeps its place relative to the others: dist/bundle/cli.js starts the worker as
//   ./workers/readWorker.js beside it (src/read.ts), so that entry is bundled to dist/bundle/workers/.
// - A command's `await import()` (src/run.ts) stays lazy inside the bundle: its modules run only when it does.
// - Dependencies loaded on first use with createRequire (cli-table3, yaml, cli-progress) stay out of the bundle
//   and load from node_modules when needed. Commander is CommonJS: its require() of node builtins needs a
//   `require` in the ESM bundle, which the banner makes.
// - The source maps go back through tsc's to src/*.ts (node --enable-source-maps bin/kprof.js … --debug).

import { build } from 'esbuild';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');

await build({
  entryPoints: [join(DIST, 'cli.js'), join(DIST, 'workers/readWorker.js')],
  outbase: DIST,
  outdir: join(DIST, 'bundle'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  banner: { js: "import { createRequire as __kprofRequire } from 'node:module'; const require = __kprofRequire(import.meta.url);" },
  logLevel: 'warning',
});
