// Vitest's global setup: make dist/bundle/ from the sources as they are now, unless it already was (the
// fingerprint in scripts/bundle.mjs). Tests import src/ directly; what runs in a worker thread or a spawned
// `bin/kprof.js` is the bundle, so without this a test could run code older than src/.
// The tests run from the repo root (transcripts show paths relative to it): set once here, for every test
// thread, so that no test changes the working directory.

import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';

export default async function setup(): Promise<void> {
  process.chdir(resolve(import.meta.dirname, '../..'));
  const script = pathToFileURL(join(import.meta.dirname, '../../scripts/bundle.mjs')).href;
  const { ensureBundle } = (await import(script)) as { ensureBundle: () => Promise<boolean> };
  await ensureBundle();
}
