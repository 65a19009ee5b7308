#!/usr/bin/env node
// The bundle of dist/cli/cli.js that `npm run build` makes (scripts/bundle.mjs): one file loads faster than dist/'s
// modules one by one. First, a command that reads two large profiles gets its read worker started
// (src/cli/early.ts), so that the worker's start-up runs while this thread loads the CLI.
import { startEarly } from '../dist/bundle/early.js';

startEarly(process.argv.slice(2));
await import('../dist/bundle/cli.js');
