// `node scripts/codeCache.mjs <dist/bundle> cli|worker <command…>`, run by scripts/bundle.mjs: run the command as
// bin/kprof.js does (src/cli/early.ts: startEarly, then runBundle of the CLI bundle) and write V8's code cache of
// one bundle beside it, stamped with the V8 that made it and hashes of the bundle and of the cache
// (codeCacheStamp), which runBundle checks:
// - cli: the CLI bundle's (cli.cjs.cache), written when the process exits;
// - worker: the read worker's bundle's (workers/readWorker.cjs.cache); the command reads two large profiles, so that
//   a read worker runs. Each worker is started on this script instead of the worker's script
//   (workers/readWorkerStart.cjs), loads the worker's bundle as that script does, and writes the cache before each
//   answer it posts, the last before that of its last task: a worker is stopped at the end of a run, and runs
//   nothing then.
// A cache fits only the V8 flags it was made with, and the first collection of a read's garbage sets --expose-gc
// for a moment (src/util/heap.ts sets it back at once): it is set back here too before the cache is made, as a run
// starts without it.

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const threads = require('node:worker_threads');

/**
 * Write the code cache of the bundle `file`, compiled as `script` (`early`: the bundle of src/cli/early.ts). Written
 * beside it and renamed over it: a worker is stopped when the run ends, which can be in the middle of a write, and
 * a cache cut short there would be an empty or partial file (the stamp refuses it, but there would be no cache).
 */
function writeCache(file, script, early) {
  setFlagsFromString('--no-expose-gc');
  const body = script.createCachedData();
  const { codeCacheStamp } = require(early);
  const part = `${file}.cache.part${threads.threadId}`;
  writeFileSync(part, Buffer.concat([codeCacheStamp(readFileSync(file), body), body]));
  renameSync(part, `${file}.cache`);
}

if (!threads.isMainThread) {
  const { bundle, early } = threads.workerData.kprofCodeCache;
  const { runBundle } = require(early);
  const port = threads.parentPort;
  const post = port.postMessage.bind(port);
  let script = null;
  // Written before the answer is posted: the main thread may end the run as soon as it has the last one.
  port.postMessage = (reply, transfer) => {
    if (reply?.type === 'done') writeCache(bundle, script, early);
    post(reply, transfer);
  };
  script = runBundle(bundle, true);
} else {
  const [dir, which, ...command] = process.argv.slice(2);
  const early = join(dir, 'early.cjs');
  const cli = join(dir, 'cli.cjs');
  const { runBundle, startEarly } = require(early);
  if (which === 'worker') {
    const start = pathToFileURL(join(dir, 'workers/readWorkerStart.cjs')).href;
    const bundle = join(dir, 'workers/readWorker.cjs');
    const { Worker } = threads;
    threads.Worker = class extends Worker {
      constructor(script, options) {
        if ((script instanceof URL ? script.href : pathToFileURL(script).href) !== start) super(script, options);
        else super(new URL(import.meta.url), { ...options, workerData: { kprofCodeCache: { bundle, early } } });
      }
    };
  } else if (which !== 'cli') {
    throw new Error(`codeCache.mjs: ${which}: expected cli or worker`);
  }
  process.argv = [process.argv[0], cli, ...command];
  startEarly(command);
  const script = runBundle(cli, true);
  process.on('exit', (code) => {
    if (code === 0 && which === 'cli') writeCache(cli, script, early);
  });
}
