// A read worker started before the CLI is loaded. A worker thread's own start-up (Node's bootstrap of a new
// thread, then the worker's bundle) takes some 0.1-0.15 s; started by the pool, it would begin only once the main
// thread had loaded the CLI, parsed the options and planned the reads, and the main thread, done with its own
// input, would wait for it. bin/kprof.js starts it first (src/cli/early.ts) for a command that reads two
// profiles, so both start-ups run at once, and the pool takes it over for its first worker (takePrestarted).
// Unused, it is never waited for: it is unref'd, and ends with the process.

import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Below this many bytes in all, an input is read in this thread (read.ts). */
export const PARALLEL_MIN_BYTES = 8 << 20;

/**
 * The options of every read worker. A worker's young generation of 2 MB: reading allocates little per row, so a
 * small one costs no time, and it keeps each worker's heap (and so the process's peak memory, which counts every
 * thread) small.
 */
export const READ_WORKER_OPTIONS: WorkerOptions = { resourceLimits: { maxYoungGenerationSizeMb: 2 } };

interface Prestarted {
  worker: Worker;
  script: string;
  /** The worker failed or exited before it was taken: of no use. */
  dead: boolean;
  onEnd: () => void;
}

/** Where the worker waits: the pool is in another bundle (dist/bundle/cli.cjs) than the starter (early.cjs). */
const KEY = Symbol.for('kprof.prestartedReadWorker');

type Holder = { [KEY]?: Prestarted };

/** Start the read worker of `script` now, for the pool to take (once per process: the one waiting is returned). */
export function prestartReadWorker(script: URL): Worker {
  const holder = globalThis as Holder;
  const waiting = holder[KEY];
  if (waiting !== undefined) return waiting.worker;
  const worker = new Worker(script, READ_WORKER_OPTIONS);
  worker.unref();
  const p: Prestarted = {
    worker,
    script: script.href,
    dead: false,
    onEnd: () => {
      p.dead = true;
    },
  };
  // A failure before the pool takes it is not a failure of the run: the pool then starts a worker of its own.
  worker.on('error', p.onEnd);
  worker.on('exit', p.onEnd);
  holder[KEY] = p;
  return worker;
}

/** The worker started for `script`, if one was and is still of use (given once), else null. */
export function takePrestarted(script: URL): Worker | null {
  const holder = globalThis as Holder;
  const p = holder[KEY];
  if (p === undefined) return null;
  delete holder[KEY];
  p.worker.off('error', p.onEnd);
  p.worker.off('exit', p.onEnd);
  if (p.dead || p.script !== script.href) {
    // A worker that failed or ended says nothing more; one of another script is not the pool's to use.
    p.worker.on('error', () => {});
    void p.worker.terminate();
    return null;
  }
  return p.worker;
}
