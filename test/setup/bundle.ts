// Vitest's global setup: make dist/bundle/ from the sources as they are now, unless it already was (the
// fingerprint in scripts/bundle.mjs). Tests import src/ directly; what runs in a worker thread or a spawned
// `bin/kprof.js` is the bundle, so without this a test could run code older than src/.

import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

export default async function setup(): Promise<void> {
  const script = pathToFileURL(join(import.meta.dirname, '../../scripts/bundle.mjs')).href;
  const { ensureBundle } = (await import(script)) as { ensureBundle: () => Promise<boolean> };
  await ensureBundle();
}
