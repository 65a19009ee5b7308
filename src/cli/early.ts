// What bin/kprof.js runs first (bundled alone as dist/bundle/early.cjs, a few kB, so that it runs at once):
// - a command that reads two large profiles, each in a thread of its own, gets its read worker started now, while
//   this thread loads the CLI (input/workers/prestart.ts). Small profiles are read in this thread, so a worker
//   started for them would only cost time and memory: the paths on the command line are measured first, a few
//   hundred files at most;
// - then the CLI bundle is loaded with V8's code cache of it (runBundle, codeCache.ts).

import { lstatSync, opendirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PARALLEL_MIN_BYTES, prestartReadWorker } from '../input/workers/prestart.js';
import { onDisk } from '../util/files.js';

export { codeCacheStamp, runBundle } from './codeCache.js';

/** The commands that read a base and a PR profile. */
const TWO_PROFILES = new Set(['diff', 'rules']);

/** Entries looked at below each path: past them, a folder counts as large. */
const MAX_ENTRIES = 512;

/**
 * Start the read worker (`script`: the bundle's, beside this one) for the command line `args` (the arguments after
 * the program) when it reads two profiles that will each be read in a thread: two of its paths hold
 * PARALLEL_MIN_BYTES or more.
 */
export function startEarly(args: readonly string[], script = new URL('./workers/readWorkerStart.cjs', import.meta.url)): void {
  if (!TWO_PROFILES.has(args[0] ?? '')) return;
  if (args.includes('-h') || args.includes('--help')) return;
  let large = 0;
  for (const a of args.slice(1)) {
    if (a.startsWith('-')) continue;
    if (bytesBelow(a, PARALLEL_MIN_BYTES, { entries: MAX_ENTRIES }, 0) >= PARALLEL_MIN_BYTES) large++;
    if (large === 2) {
      prestartReadWorker(script);
      return;
    }
  }
}

/**
 * The bytes of the file or folder at `path`, counted up to `enough` (a count past it stops there; an unreadable
 * path counts 0; a folder past the budget of entries counts as `enough`, and its entries are read one by one, so a
 * folder of a million files costs no more than the budget). Links are not followed into folders.
 */
function bytesBelow(path: string, enough: number, budget: { entries: number }, depth: number): number {
  try {
    const st = depth === 0 ? statSync(onDisk(path)) : lstatSync(onDisk(path));
    if (st.isFile()) return st.size;
    if (!st.isDirectory() || depth > 6) return 0;
    const dir = opendirSync(onDisk(path));
    try {
      let n = 0;
      for (let e = dir.readSync(); e !== null; e = dir.readSync()) {
        if (--budget.entries < 0) return enough;
        n += bytesBelow(join(path, e.name), enough - n, budget, depth + 1);
        if (n >= enough) return n;
      }
      return n;
    } finally {
      dir.closeSync();
    }
  } catch {
    return 0;
  }
}
