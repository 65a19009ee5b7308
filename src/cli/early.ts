// What bin/kprof.js runs first (bundled alone as dist/bundle/early.cjs, a few kB, so that it runs at once):
// - a command that reads two large profiles, each in a thread of its own, gets its read worker started now, while
//   this thread loads the CLI (input/workers/prestart.ts). Small profiles are read in this thread, so a worker
//   started for them would only cost time and memory: the paths on the command line are measured first, a few
//   hundred files at most;
// - then the CLI bundle is loaded with V8's code cache of it (runCli).

import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, opendirSync, openSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { PARALLEL_MIN_BYTES, prestartReadWorker } from '../input/workers/prestart.js';
import { onDisk } from '../util/files.js';

/** The commands that read a base and a PR profile. */
const TWO_PROFILES = new Set(['diff', 'rules']);

/** Entries looked at below each path: past them, a folder counts as large. */
const MAX_ENTRIES = 512;

/**
 * Start the read worker (`script`: the bundle's, beside this one) for the command line `args` (the arguments after
 * the program) when it reads two profiles that will each be read in a thread: two of its paths hold
 * PARALLEL_MIN_BYTES or more.
 */
export function startEarly(args: readonly string[], script = new URL('./workers/readWorker.cjs', import.meta.url)): void {
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

/** The largest code cache read: V8's cache of the bundle is under 1 MB; a larger file is not one of ours. */
const MAX_CACHE_BYTES = 16 << 20;

/**
 * The first line of the code cache of the bundle `source`, whose body (what V8 made) is `body`: the V8 that made it,
 * and a SHA-256 of the bundle and of the body. V8 checks that a cache was made by the same V8 with the same flags,
 * but of the source only its length, and of the body nothing (a release build does not checksum it): a cache of
 * another bundle of the same length would run that bundle's code, and a damaged one can crash the process or
 * compute wrong figures. So a cache is offered to V8 only when it was made by this V8, for this bundle, and is
 * whole; else the bundle is compiled as usual.
 */
export function codeCacheStamp(source: Uint8Array, body: Uint8Array): Buffer {
  const sha = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');
  return Buffer.from(`kprof code cache v8 ${process.versions.v8} bundle ${sha(source)} body ${sha(body)}\n`);
}

/** The code cache file's body when its stamp fits this V8, `source` and the body itself; else undefined. */
function fittingCache(path: string, source: Buffer): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(onDisk(path), constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined; // none: compile
  }
  try {
    // A FIFO or a device (which could block, or never end) is not a cache; nor is a file larger than one.
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_CACHE_BYTES) return undefined;
    const cache = readFileSync(fd);
    const eol = cache.indexOf(10);
    if (eol < 0) return undefined;
    const body = cache.subarray(eol + 1);
    return cache.subarray(0, eol + 1).equals(codeCacheStamp(source, body)) ? body : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Load and run the CLI bundle (CommonJS, scripts/bundle.mjs) at `file`, with V8's code cache of it (`file` +
 * `.cache`, made by the build) when the cache fits this bundle and this V8 (codeCacheStamp): a compiled bundle
 * need not be parsed again, which is most of what loading it costs (Node 20 has no compile cache of its own). A
 * cache that does not fit is not used (V8 itself rejects one made with other flags), and the bundle is compiled
 * as usual. Returns the script, from which the build makes the cache. With `cache` false the bundle is required
 * as any CommonJS module (returns null): Node maps the stack traces of a required module through its source map
 * (`node --enable-source-maps`), not those of a script compiled by node:vm.
 */
export function runCli(file: string, cache = true): Script | null {
  if (!cache) {
    createRequire(file)(file);
    return null;
  }
  const bytes = readFileSync(onDisk(file));
  const cachedData = fittingCache(`${file}.cache`, bytes);
  // The wrapper is CommonJS's own, on the bundle's first line (whose banner is one statement), so that lines keep
  // their numbers for the source map.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${bytes.toString('utf8')}\n})`, {
    filename: file,
    ...(cachedData !== undefined ? { cachedData } : {}),
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return script;
}
