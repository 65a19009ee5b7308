#!/usr/bin/env node
// The CLI is one bundle that `npm run build` makes of src/ (scripts/bundle.mjs): one file loads faster than
// dist/'s modules one by one, and it is compiled with V8's code cache of it. First, a command that reads two large
// profiles gets its read worker started, so that the worker's start-up runs while this thread loads the CLI
// (src/cli/early.ts).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const early = fileURLToPath(new URL('../dist/bundle/early.js', import.meta.url));
const cli = fileURLToPath(new URL('../dist/bundle/cli.cjs', import.meta.url));
// A clone that was never built (or half built) has no bundle: say what to run, with exit code 2 (bad install), not
// Node's stack trace and exit code 1, which a CI gate would take for a rule that broke.
for (const file of [early, cli]) {
  if (!existsSync(file)) {
    const root = fileURLToPath(new URL('..', import.meta.url));
    process.stderr.write(
      `kprof: this copy of kprof is not built: ${file} is missing. Run npm install (or npm run build) in ${root}, then run kprof again.\n`,
    );
    process.exit(2);
  }
}
const { runCli, startEarly } = await import(early);

startEarly(process.argv.slice(2));
// With --enable-source-maps (for --debug's stack traces), the bundle loads as a plain module, whose traces Node maps.
runCli(cli, process.sourceMapsEnabled !== true);
