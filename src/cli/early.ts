// What bin/kprof.js runs first (bundled alone as dist/bundle/early.js, a few kB, so that it runs at once):
// - a command that reads two large profiles, each in a thread of its own, gets its read worker started now, while
//   this thread loads the CLI (input/workers/prestart.ts). Small profiles are read in this thread, so a worker
//   started for them would only cost time and memory: the paths on the command line are measured first, a few
//   hundred files at most;
// - then the CLI bundle is loaded with V8's code cache of it (runCli).

import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { PARALLEL_MIN_BYTES, prestartReadWorker } from '../input/workers/prestart.js';
import { onDisk } from '../util/files.js';

/** The commands that read a base and a PR profile. */
const TWO_PROFILES = new Set(['diff', 'rules']);

/** Files looked at in all: past them, a folder counts as large. */
const MAX_ENTRIES = 512;

/**
 * Start the read worker (`script`: the bundle's, beside this one) for the command line `args` (the arguments after
 * the program) when it reads two profiles that will each be read in a thread: two of its paths hold
 * PARALLEL_MIN_BYTES or more.
 */
export function startEarly(args: readonly string[], script = new URL('./workers/readWorker.js', import.meta.url)): void {
  if (!TWO_PROFILES.has(args[0] ?? '')) return;
  if (args.includes('-h') || args.includes('--help')) return;
  const budget = { entries: MAX_ENTRIES };
  let large = 0;
  for (const a of args.slice(1)) {
    if (a.startsWith('-')) continue;
    if (bytesBelow(a, PARALLEL_MIN_BYTES, budget, 0) >= PARALLEL_MIN_BYTES) large++;
    if (large === 2) {
      prestartReadWorker(script);
      return;
    }
  }
}

/**
 * The bytes of the file or folder at `path`, counted up to `enough` (a count past it stops there; an unreadable
 * path counts 0; a folder past the budget of entries counts as `enough`). Links are not followed into folders.
 */
function bytesBelow(path: string, enough: number, budget: { entries: number }, depth: number): number {
  try {
    const st = depth === 0 ? statSync(onDisk(path)) : lstatSync(onDisk(path));
    if (st.isFile()) return st.size;
    if (!st.isDirectory() || depth > 6) return 0;
    let n = 0;
    for (const name of readdirSync(onDisk(path))) {
      if (--budget.entries < 0) return enough;
      n += bytesBelow(join(path, name), enough - n, budget, depth + 1);
      if (n >= enough) return n;
    }
    return n;
  } catch {
    return 0;
  }
}

/**
 * What the code cache beside the CLI bundle starts with: it fits the bundle of this size and modification time, as
 * compiled by this V8, only. V8 checks that a cache was made by the same V8 with the same flags, but of the source
 * only its length: a cache of an older bundle of the same length would run the old code. A cache of another V8
 * (another Node) is not even offered to it.
 */
export function codeCacheStamp(size: number, mtimeMs: number): Buffer {
  return Buffer.from(`kprof code cache ${size} ${Math.round(mtimeMs * 1000)} v8 ${process.versions.v8}\n`);
}

/**
 * Load and run the CLI bundle (CommonJS, scripts/bundle.mjs) at `file`, with V8's code cache of it (`file` +
 * `.cache`, made by the build) when the cache fits this bundle and this Node: a compiled bundle need not be
 * parsed again, which is most of what loading it costs (Node 20 has no compile cache of its own). A cache that
 * does not fit is not used (V8 rejects one of another V8 or other flags), and the bundle is compiled as usual.
 * Returns the script, from which the build makes the cache. With `cache` false the bundle is required as any
 * CommonJS module (returns null): Node maps the stack traces of a required module through its source map
 * (`node --enable-source-maps`), not those of a script compiled by node:vm.
 */
export function runCli(file: string, cache = true): Script | null {
  if (!cache) {
    createRequire(file)(file);
    return null;
  }
  const fd = openSync(onDisk(file), 'r');
  let source: string;
  let stamp: Buffer;
  try {
    const st = fstatSync(fd);
    source = readFileSync(fd, 'utf8');
    stamp = codeCacheStamp(st.size, st.mtimeMs);
  } finally {
    closeSync(fd);
  }
  let cachedData: Buffer | undefined;
  try {
    const cache = readFileSync(onDisk(`${file}.cache`));
    if (cache.subarray(0, stamp.length).equals(stamp)) cachedData = cache.subarray(stamp.length);
  } catch {
    // no cache: compile
  }
  // The wrapper is CommonJS's own, on the bundle's first line (whose banner is one statement), so that lines keep
  // their numbers for the source map.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`, {
    filename: file,
    ...(cachedData !== undefined ? { cachedData } : {}),
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return script;
}
