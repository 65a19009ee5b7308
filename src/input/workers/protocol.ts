// The messages between the main thread (the scheduler in read.ts, through pool.ts) and a read worker
// (readWorker.ts): one task per rank plan, answered by progress messages and then exactly one `done` or `error`;
// or a job (jobs.ts) for a worker kept after its reads, answered by one `done` or `error`.
// Both sides import their types from here, and neither imports the other.

import type { BesideTask } from '../beside.js';
import type { Engine } from '../engine.js';
import type { RankPlan } from '../formats/resolve.js';
import type { PackedRanks } from './pack.js';
import type { RawNameTests } from '../../model/model.js';
import { inWorkingDir } from '../../util/files.js';

/** What a worker is asked to read: one rank plan, with the options of readRank. */
export interface ReadTask {
  plan: RankPlan;
  /**
   * The run's working directory (absolute), which the plan's paths are resolved against: they stay as the user
   * wrote them, as the messages that name them do (see onDisk). Undefined outside a run.
   */
  cwd: string | undefined;
  withShapes: boolean;
  withSpan: boolean;
  /** Keep each step's wall span (--step-time). */
  stepTime?: boolean;
  /** The scan engine (undefined: the default, 'simd'). */
  engine?: Engine | undefined;
  /** What may select kernels by raw name in this run (see Accumulator). */
  rawNames: RawNameTests | null;
  /** Keep kernel names in the fine groups (see ReadOptions.kernelNames); default true. */
  kernelNames?: boolean | undefined;
  /** A sink to read beside each accumulator, by its kind's name (beside.ts); null: none. */
  beside: BesideTask | null;
  /** Shorten CUDA/ROCm kernel names (--short-names). */
  shortNames?: boolean | undefined;
}

/** A job (jobs.ts) to run in a worker, by its name, and its input. */
export interface JobTask {
  job: string;
  input: unknown;
}

/**
 * Let go of the reads' memory now (the scanners' memories and the garbage): posted by the pool to a worker it keeps
 * idle for a job (pool.hold), so that the collection runs while the main thread makes the job's input, not after
 * the job has arrived. No answer.
 */
export interface TidyTask {
  tidy: true;
}

/** Run a task's read in the working directory it names, wherever it runs (a worker, or the main thread). */
export function inTaskDir<T>(task: ReadTask, read: () => T): T {
  return task.cwd === undefined ? read() : inWorkingDir(task.cwd, read);
}

/** The message that gives a worker a task; `progress`: post `bytes` messages while reading. */
export interface TaskMessage<P = ReadTask | JobTask | TidyTask> {
  id: number;
  payload: P;
  progress: boolean;
}

/** What a worker posts back: progress while it works, then exactly one `done` or `error`. */
export type WorkerReply<R = PackedRanks> =
  | { id: number; type: 'bytes'; n: number }
  | { id: number; type: 'done'; result: R }
  | { id: number; type: 'error'; kind: string | null; message: string; stack: string | undefined };

/** Progress is posted in steps of this many bytes (a message per 4 MiB read buffer is cheap, fewer is fine). */
export const PROGRESS_STEP = 1 << 22;
