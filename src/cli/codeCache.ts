// A bundle (CommonJS, scripts/bundle.mjs) loaded with V8's code cache of it, made by the build beside it (`file` +
// `.cache`): the CLI's (bin/kprof.js, through early.ts) and the read worker's (readWorkerStart.ts, the worker's
// script). A compiled bundle need not be parsed again, which is most of what loading it costs (Node 20 has no
// compile cache of its own); the build runs a command before it writes the cache, so the functions that command
// ran are in it too and need no compiling either.

import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import { onDisk } from '../util/files.js';

/** The largest code cache read: V8's cache of a bundle is under 1 MB; a larger file is not one of ours. */
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
 * Load and run the bundle at `file` (the CLI's or the read worker's), with V8's code cache of it (`file` + `.cache`)
 * when the cache fits this bundle and this V8 (codeCacheStamp). A cache that does not fit is not used (V8 itself
 * rejects one made with other flags), and the bundle is compiled as usual. Returns the script, from which the build
 * makes the cache. With `cache` false the bundle is required as any CommonJS module (returns null): Node maps the
 * stack traces of a required module through its source map (`node --enable-source-maps`), not those of a script
 * compiled by node:vm.
 */
export function runBundle(file: string, cache = true): Script | null {
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
