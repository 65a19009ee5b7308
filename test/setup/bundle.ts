// Vitest's global setup: make dist/bundle/ from the sources as they are now, unless it already was (the
// fingerprint in scripts/bundle.mjs). Tests import src/ directly; what runs in a worker thread or a spawned
// `bin/kprof.js` is the bundle, so without this a test could run code older than src/.
// The working directory is not set here: the CLI runs in-process with Io.cwd (the repo root by default, see
// helpers.ts), and vitest finds the tests only when started in the repo root (vitest.config.ts: `root: '.'`),
// where the paths the tests write relative to it lead.

import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

export default async function setup(): Promise<void> {
  const script = pathToFileURL(join(import.meta.dirname, '../../scripts/bundle.mjs')).href;
  const { ensureBundle } = (await import(script)) as { ensureBundle: () => Promise<boolean> };
  await ensureBundle();
}
