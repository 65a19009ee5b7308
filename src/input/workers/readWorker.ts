// Worker thread: reads one rank plan (readRank, the per-rank job) and posts its RankData back, packed (pack.ts); or
// runs a job (jobs.ts) of a later stage, when the pool kept it after its reads.
// Errors are posted as kind + message, so the main thread throws the same KprofError the in-thread read would
// have. The messages are those of protocol.ts. The worker's entry (src/cli/readWorker.ts) registers the kinds of
// beside sinks (../beside.ts) a task may ask for, then calls serveReads.

import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { isKprofError } from '../../util/errors.js';
import { collectGarbage } from '../../util/heap.js';
import { dropIdleEngines } from '../csv/simdEngine.js';
import { besideKind, rankNames } from '../beside.js';
import { readRank } from '../readRank.js';
import { packedBuffers, packRanks } from './pack.js';
import { jobNamed } from './jobs.js';
import { inTaskDir, type JobTask, PROGRESS_STEP, type TaskMessage, type WorkerReply } from './protocol.js';

export type { ReadTask } from './protocol.js';

/** Answer the tasks the main thread posts (a no-op outside a worker thread). */
export function serveReads(): void {
  const port = parentPort;
  if (!port) return;
  port.on('message', (m: TaskMessage) => {
    const post = (r: WorkerReply<unknown>): void => port.postMessage(r);
    if ('tidy' in m.payload) {
      tidy();
      return;
    }
    if ('job' in m.payload) {
      runJob(m.id, m.payload, post);
      return;
    }
    const read = m.payload;
    tidied = false;
    let pending = 0;
    const onBytes = m.progress
      ? (n: number): void => {
          pending += n;
          if (pending >= PROGRESS_STEP) {
            post({ id: m.id, type: 'bytes', n: pending });
            pending = 0;
          }
        }
      : undefined;
    const task = read.beside ?? null;
    // Found before reading: a kind the entry did not register is a bug, said at once.
    let kind: ReturnType<typeof besideKind> | null = null;
    try {
      kind = task === null ? null : besideKind(task.name);
    } catch (e) {
      const err = e as Error;
      post({ id: m.id, type: 'error', kind: null, message: err.message, stack: err.stack });
      return;
    }
    inTaskDir(read, () =>
      readRank(read.plan, {
        withShapes: read.withShapes,
        withSpan: read.withSpan,
        stepTime: read.stepTime,
        engine: read.engine,
        rawNames: read.rawNames,
        kernelNames: read.kernelNames,
        beside: kind === null || task === null ? null : { kind, options: task.options },
        shortNames: read.shortNames,
        onBytes,
      }),
    ).then(
      (ranks) => {
        if (pending > 0) post({ id: m.id, type: 'bytes', n: pending });
        // A large read (a million distinct names) lets its scanners' memories and its garbage go before the pack is
        // made beside them, while the main thread may still be reading its own input: the two threads' peaks then
        // add up less. A read of a few groups leaves less than this (the engines are kept for the next task).
        const large = tidiesBeforePack(getHeapStatistics().used_heap_size);
        if (large) tidy();
        const transfer: ArrayBuffer[] = [];
        if (kind !== null) {
          for (const r of ranks) {
            r.beside = r.beside?.map((v) => {
              const p = kind.pack(v, rankNames(r));
              for (const b of p.transfer) transfer.push(b);
              return p.value;
            });
          }
        }
        const packed = packRanks(ranks);
        // The fine groups are columns now, their objects garbage: collected before the main thread makes its own.
        releaseHeap();
        port.postMessage({ id: m.id, type: 'done', result: packed } satisfies WorkerReply, [...packedBuffers(packed), ...transfer]);
        // Once this callback has returned, nothing holds the columns' strings (copied into the message) either:
        // after a large read they go at once, while the main thread makes its own copies from the message (they
        // were collected ~0.5 s later, after it: two heaps of a million names at once).
        const after = releaseAfterPost(large);
        setImmediate(() => collectGarbage(after));
      },
      (e: unknown) => {
        const err = e instanceof Error ? e : new Error(String(e));
        post({ id: m.id, type: 'error', kind: isKprofError(e) ? e.kind : null, message: err.message, stack: err.stack });
      },
    );
  });
}

/** The reads' memory was let go since the last read (a tidy message came). */
let tidied = false;

/**
 * Let go of the reads' memory: the scanners' memories, and the garbage when the heap in use is TIDY_MIN_BYTES or
 * more (tidyCollects). A read of a few hundred groups leaves some 8 MB in use: a full collection of it (the first
 * one also makes the context V8's collector is called from) took ~19 ms, on the way from the reads to the Fusion
 * rewrites job, for no lower peak (the scanners' memories go at the next collection V8 makes of its own).
 */
function tidy(): void {
  dropIdleEngines();
  if (tidyCollects(getHeapStatistics().used_heap_size)) collectGarbage(0);
  tidied = true;
}

/** Run a job and post its result (a clone), or the error it threw. */
function runJob(id: number, task: JobTask, post: (r: WorkerReply<unknown>) => void): void {
  try {
    // Done reading: the scanners' memories and the read's garbage go before the job makes its own (at once, unless
    // the pool's tidy message came first).
    if (!tidied) tidy();
    post({ id, type: 'done', result: jobNamed(task.job).run(task.input) });
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    post({ id, type: 'error', kind: isKprofError(e) ? e.kind : null, message: err.message, stack: err.stack });
  }
}

/** From this much heap in use on, the worker's tidy collects its garbage (see tidy). */
export const TIDY_MIN_BYTES = 32 << 20;

/** Does the worker's tidy (after its reads, before a job) collect its garbage with this much heap in use? */
export function tidyCollects(usedHeapBytes: number): boolean {
  return usedHeapBytes >= TIDY_MIN_BYTES;
}

/** Past this much heap in use, the worker collects its garbage at once after an answer (see util/heap.ts). */
export const RELEASE_MIN_BYTES = 64 << 20;

/** Does a read that left this much heap in use let its memory go (tidy) before its answer is packed? */
export function tidiesBeforePack(usedHeapBytes: number): boolean {
  return usedHeapBytes >= RELEASE_MIN_BYTES;
}

/**
 * The heap in use from which the worker collects once its answer is posted: from none at all after a read that let
 * its memory go before the pack (tidiesBeforePack), whose columns' strings are then most of its heap (~60 MB of a
 * million names, under RELEASE_MIN_BYTES); else RELEASE_MIN_BYTES.
 */
export function releaseAfterPost(large: boolean): number {
  return large ? 0 : RELEASE_MIN_BYTES;
}

function releaseHeap(): void {
  collectGarbage(RELEASE_MIN_BYTES);
}
