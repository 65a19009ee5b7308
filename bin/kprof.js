#!/usr/bin/env node
// The CLI is one bundle that `npm run build` makes of src/ (scripts/bundle.mjs): one file loads faster than
// dist/'s modules one by one, and it is compiled with V8's code cache of it. First, a command that reads two large
// profiles gets its read worker started, so that the worker's start-up runs while this thread loads the CLI
// (src/cli/early.ts).
//
// This file and the bundles it loads are CommonJS (bin/package.json says so for this folder): a process whose first
// module is an ES module loads Node's ES module loader first, some 15 ms of every run.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const early = join(__dirname, '..', 'dist', 'bundle', 'early.cjs');
const cli = join(__dirname, '..', 'dist', 'bundle', 'cli.cjs');
// A clone that was never built (or half built) has no bundle: say what to run, with exit code 2 (bad install), not
// Node's stack trace and exit code 1, which a CI gate would take for a rule that broke.
for (const file of [early, cli]) {
  if (!existsSync(file)) {
    process.stderr.write(
      `kprof: this copy of kprof is not built: ${file} is missing. Run npm install (or npm run build) in ${join(__dirname, '..')}, then run kprof again.\n`,
    );
    process.exit(2);
  }
}
const { runBundle, startEarly } = require(early);

startEarly(process.argv.slice(2));
// With --enable-source-maps (for --debug's stack traces), the bundle loads as a plain module, whose traces Node maps.
runBundle(cli, process.sourceMapsEnabled !== true);
