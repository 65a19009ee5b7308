// The read worker's script (bundled as dist/bundle/workers/readWorkerStart.cjs, a few kB): it loads the worker's
// bundle beside it (workers/readWorker.cjs, whose entry is readWorker.ts) with V8's code cache of it, as
// bin/kprof.js loads the CLI's (runBundle): the worker of a large diff starts reading as soon as the main thread
// asks, and its read is the end of the run. With --enable-source-maps (a worker has the process's flags), the
// bundle is required as a plain module, whose stack traces Node maps.

import { fileURLToPath } from 'node:url';
import { runBundle } from './codeCache.js';

runBundle(fileURLToPath(new URL('./readWorker.cjs', import.meta.url)), process.sourceMapsEnabled !== true);
