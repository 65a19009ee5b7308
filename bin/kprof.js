#!/usr/bin/env node
// The bundle of dist/cli/cli.js that `npm run build` makes (scripts/bundle.mjs): one file loads faster than dist/'s
// modules one by one.
import '../dist/bundle/cli.js';
