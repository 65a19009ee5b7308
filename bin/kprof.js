#!/usr/bin/env node
// The CLI is one bundle that `npm run build` makes of src/ (scripts/bundle.mjs): one file loads faster than
// dist/'s modules one by one, and it is compiled with V8's code cache of it. First, a command that reads two large
// profiles gets its read worker started, so that the worker's start-up runs while this thread loads the CLI
// (src/cli/early.ts).
import { fileURLToPath } from 'node:url';
import { runCli, startEarly } from '../dist/bundle/early.js';

startEarly(process.argv.slice(2));
// With --enable-source-maps (for --debug's stack traces), the bundle loads as a plain module, whose traces Node maps.
runCli(fileURLToPath(new URL('../dist/bundle/cli.cjs', import.meta.url)), process.sourceMapsEnabled !== true);
