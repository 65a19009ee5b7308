// `<profile>` argument → Profile: resolve the paths, then schedule the read of each rank plan (the per-rank job
// is readRank.ts) and put the ranks together.
//
// A large input is read in worker threads (one per core at most, see pool.ts): each rank plan is one task, so
// the ranks of a cluster run, or the two sides of a diff (two readProfile calls under Promise.all), are read in
// parallel, and the main thread stays free to draw the progress bar. Each worker runs the same readRank as the
// main thread would and hands back its RankData (workers/protocol.ts: the messages), so the result is the same
// whichever thread read it: counts are integers and durations integer ticks, so merging is exact. A small input
// is read in this thread: starting a worker costs more than reading it.

import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { inputError, KprofError, type ErrorKind } from '../util/errors.js';
import { collectGarbage } from '../util/heap.js';
import { currentWorkingDir, onDisk } from '../util/files.js';
import { readerOf, readInWorker } from './formats/readers.js';
import { allFormats } from './formats/registry.js';
import type { Prefer, RankPlan, ResolvedInput } from './formats/resolve.js';
import { escaped, shown } from '../util/inputText.js';
import { relPath } from '../util/paths.js';
import { NO_RANK_ID, ranksNamed } from '../util/format.js';
import { compareRanks, mergeGroups, mergeStepSpans, rowsOnNoRank, type Profile, type RankData, type RawNameTests } from '../model/model.js';
import { WorkerPool, type WorkerFailure } from './pool.js';
import { PARALLEL_MIN_BYTES } from './workers/prestart.js';
import type { ByteCounter } from '../model/progress.js';
import { readRank } from './readRank.js';
import { noKernelRows, planProfile, withOtherRanks, type PlannedProfile } from './plans.js';
import { unpackRanks, type PackedRanks } from './workers/pack.js';
import { inTaskDir, type JobTask, type ReadTask } from './workers/protocol.js';
import type { WorkerJob } from './workers/jobs.js';
import { defaultEngine, type Engine } from './engine.js';
import { dropIdleEngines } from './csv/simdEngine.js';
import { besideKind, besideTask, rankNames, registerBeside, type BesideRequest } from './beside.js';

export interface ReadOptions {
  /** Read Input Shapes into the group key (grouping by shapes). */
  withShapes: boolean;
  /** Parse start times for the time span (inspect only: it costs a float parse per row). */
  withSpan?: boolean;
  /** Keep each step's wall span and read step_trace_time.csv (--step-time: it costs a parse of every start). */
  stepTime?: boolean;
  /** Ranks to read; null for all. */
  ranks: string[] | null;
  /** Progress: called with bytes read since the last call (and told the total, when it listens for it). */
  onBytes?: ByteCounter;
  /**
   * Worker threads: 'auto' (the default) reads in workers when the input holds at least PARALLEL_MIN_BYTES,
   * 'off' always in this thread, 'on' in workers whatever the size (tests).
   */
  threads?: 'auto' | 'on' | 'off';
  /** What may select kernels by the name their file wrote (see RawNameTests); none when absent. */
  rawNames?: RawNameTests | null;
  /**
   * Keep kernel names in the fine groups (the default). false when neither the grouping nor the selection reads a
   * name (--by type, core, type+core or type+shapes without --match, --exclude or user groups): kernels that have a
   * type are then kept per (type, core, shapes), so memory does not grow with distinct names (see Accumulator).
   */
  kernelNames?: boolean;
  /** The scan engine (default: the run's, see engine.ts). */
  engine?: Engine;
  /** A sink to read beside each rank's accumulator (see beside.ts): its results are each RankData's `beside`. */
  beside?: BesideRequest | null;
  /** Shorten CUDA/ROCm kernel names of traces: template arguments, parameters and return type stripped (--short-names). */
  shortNames?: boolean;
  /** Which export to read where a folder holds both the text and the db export of one run (--prefer). */
  prefer?: Prefer | null;
  /** Set by readProfile: the ranks of formats of finished ranks read so far (see readRank). */
  held?: { ranks: number };
}

export { PARALLEL_MIN_BYTES };

export { planPair, planProfile, selectPlans, type PlannedProfile } from './plans.js';

let onRead: ((input: string) => void) | null = null;

/** Be told of each read readProfile starts (the `<profile>` as given), or no longer (null): tests count reads by it. */
export function observeReads(observer: ((input: string) => void) | null): void {
  onRead = observer;
}

/** Past this much heap in use after a read, this thread collects its garbage at once (see util/heap.ts). */
const COLLECT_AFTER_READ_BYTES = 64 << 20;

/** Read a `<profile>` argument, or one planned by planProfile with the same ranks and --prefer. */
export async function readProfile(profile: string | PlannedProfile, options: ReadOptions): Promise<Profile> {
  const { input, resolved, plans } = typeof profile === 'string' ? planProfile(profile, options) : profile;
  onRead?.(input);
  tidiedHere = false;
  // `held`: the ranks of formats of finished ranks read so far (readRank checks them as each file is read).
  options = { ...options, engine: options.engine ?? defaultEngine(), held: { ranks: 0 } };
  if (options.beside) registerBeside(options.beside.kind);
  const counter = options.onBytes;
  try {
    const total = plans.reduce((n, p) => n + planBytes(p), 0);
    counter?.total?.(total);
    const mode = options.threads ?? 'auto';
    const pool = mode === 'on' || (mode === 'auto' && total >= PARALLEL_MIN_BYTES) ? sharedPool() : null;
    const ranks = pool ? await readInWorkers(pool, plans, options) : await readInThread(plans, options);
    // A read that leaves a large heap leaves much garbage with it (a million distinct names: hundreds of MB).
    collectGarbage(COLLECT_AFTER_READ_BYTES);
    return finishProfile(input, resolved, ranks, options.ranks);
  } finally {
    counter?.end?.();
  }
}

async function readInThread(plans: RankPlan[], options: ReadOptions): Promise<RankData[]> {
  const ranks: RankData[] = [];
  for (const plan of plans) {
    let read: RankData[];
    try {
      read = await readRank(plan, options);
    } catch (e) {
      throw withOtherRanks(e, plan, plans);
    }
    for (const r of read) ranks.push(r);
  }
  return ranks;
}

/**
 * One task per rank plan; results are taken in plan order and the first failure in plan order is thrown, as the
 * in-thread loop would.
 */
async function readInWorkers(pool: WorkerPool, plans: RankPlan[], options: ReadOptions): Promise<RankData[]> {
  const settled = await Promise.allSettled(
    plans.map((plan) =>
      !readInWorker(plan.format)
        ? readRank(plan, options)
        : pool
            .run<PackedRanks | InlineRanks>(
              {
                plan,
                cwd: currentWorkingDir(),
                withShapes: options.withShapes,
                withSpan: options.withSpan === true,
                stepTime: options.stepTime === true,
                engine: options.engine,
                rawNames: options.rawNames ?? null,
                kernelNames: options.kernelNames !== false,
                beside: besideTask(options.beside),
                shortNames: options.shortNames,
              } satisfies ReadTask,
              options.onBytes,
              // The main thread may take a task only when it has no progress bar to keep drawing, and not when
              // the caller asked for workers (threads: 'on').
              options.onBytes === undefined && (options.threads ?? 'auto') === 'auto',
            )
            .then(
              (r) => ('inline' in r ? r.ranks : unpackBeside(unpackRanks(r), options.beside ?? null)),
              (f: WorkerFailure) => {
                throw workerError(f);
              },
            ),
    ),
  );
  const ranks: RankData[] = [];
  for (const [i, s] of settled.entries()) {
    if (s.status === 'rejected') throw withOtherRanks(s.reason, plans[i]!, plans);
    for (const r of s.value) ranks.push(r);
  }
  return ranks;
}

/** The beside results of ranks read in a worker, unpacked. */
function unpackBeside(ranks: RankData[], request: BesideRequest | null): RankData[] {
  if (request !== null) for (const r of ranks) if (r.beside !== undefined) r.beside = r.beside.map((v) => request.kind.unpack(v, rankNames(r)));
  return ranks;
}

/** The error a worker reported, rebuilt in this thread: the same KprofError kind and message. */
function workerError(f: WorkerFailure): Error {
  if (f.kind !== null) return new KprofError(f.kind as ErrorKind, f.message);
  const e = new Error(f.message);
  if (f.stack !== undefined) e.stack = f.stack;
  return e;
}

/** Bytes of a plan's files (as stored: a .gz counts compressed, as progress does). */
function planBytes(plan: RankPlan): number {
  let n = 0;
  for (const f of plan.files) {
    try {
      n += statSync(onDisk(f)).size;
    } catch {
      // unreadable: the read reports it
    }
  }
  return n;
}

/**
 * The worker script: next to this module in the bundle (dist/bundle/cli.cjs starts dist/bundle/workers/), the few
 * kB that load the worker's bundle (readWorker.cjs) with V8's code cache of it (src/cli/readWorkerStart.ts). Under
 * vitest this module is src/input/read.ts and a worker cannot load .ts, so the bundled worker is used: the tests'
 * global setup makes it from src/ first (test/setup/bundle.ts). Null when there is none, and reading then stays
 * in this thread.
 */
export function workerScript(): URL | null {
  const here = new URL('./workers/readWorkerStart.cjs', import.meta.url);
  if (existsSync(fileURLToPath(here))) return here;
  const built = new URL('../../dist/bundle/workers/readWorkerStart.cjs', import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  return null;
}

let pool: WorkerPool | null | undefined;

/** This thread let go of its reads' memory since its last read (tidyHere). */
let tidiedHere = false;

/** Let go of this thread's reads' memory: its scanners' memories and the garbage. */
function tidyHere(): void {
  dropIdleEngines();
  collectGarbage(0);
  tidiedHere = true;
}

/** A task's result when it ran in the main thread: no need to pack it for a transfer. */
interface InlineRanks {
  inline: true;
  ranks: RankData[];
}

/** The process-wide pool (null when there is no worker script). */
export function sharedPool(): WorkerPool | null {
  if (pool === undefined) {
    const script = workerScript();
    pool = script
      ? new WorkerPool(script, undefined, async (payload) => {
          const task = payload as ReadTask;
          const beside = task.beside === null ? null : { kind: besideKind(task.beside.name), options: task.beside.options };
          tidiedHere = false;
          const ranks = await inTaskDir(task, () => readRank(task.plan, { ...task, beside }));
          // Done before a worker: this thread would wait for it, so it lets its read's memory go now (as runJob
          // would, once the reads are done, on the way to the job).
          if (pool?.onlyWorkersBusy() === true) tidyHere();
          return { inline: true, ranks } satisfies InlineRanks;
        })
      : null;
  }
  return pool;
}

/**
 * Keep the read workers that finish their reads (instead of stopping them) until the returned function is called:
 * a command that runs a job after its reads (runJob) holds them before it reads.
 */
export function holdReadWorkers(): () => void {
  return sharedPool()?.hold() ?? (() => {});
}

/**
 * Run a job (workers/jobs.ts) in a read worker that is there and idle (held), while this thread goes on; or here,
 * at once, when there is none (inputs read in this thread). The same result either way; the buffers the job
 * moves (WorkerJob.transfer) are the caller's no more once it ran in a worker.
 */
export function runJob<I, R>(job: WorkerJob<I, R>, input: I): Promise<R> {
  const inWorker = pool?.runOnIdle<R>({ job: job.name, input } satisfies JobTask, pool.hasIdle() ? (job.transfer?.(input) ?? []) : []);
  if (inWorker) {
    // While the worker keeps its core busy, this thread lets its reads' memory go (its scanners' memories and the
    // garbage), as the worker does before the job: the two threads' peaks then do not add up. Not again when it did
    // so while it waited for a worker's read (the collection is then not on the way to the diff).
    if (!tidiedHere) tidyHere();
    return inWorker.catch((f: WorkerFailure) => {
      throw workerError(f);
    });
  }
  try {
    return Promise.resolve(job.run(input));
  } catch (e) {
    return Promise.reject(e);
  }
}

/** Merge ranks that share an id (several `PROF_*` folders of one device), filter snapshot ranks, check. */
export function finishProfile(input: string, resolved: ResolvedInput, read: RankData[], ranks: string[] | null): Profile {
  // What a format of finished ranks checks of its ranks combined into one profile (a summary JSON: made alike).
  for (const f of allFormats()) {
    const reader = readerOf(f.id);
    if (reader.kind === 'ranks') reader.combined?.(read);
  }
  const byRank = new Map<string, RankData>();
  for (const r of read) {
    const prev = byRank.get(r.rank);
    if (!prev) {
      byRank.set(r.rank, r);
      continue;
    }
    if (prev.snapshot || r.snapshot) duplicateRank(prev, r);
    mergeGroups(prev.groups, r.groups);
    for (const f of r.files) prev.files.push(f);
    prev.rowsRead += r.rowsRead;
    prev.rowsSkipped += r.rowsSkipped;
    prev.kernels += r.kernels;
    prev.rowsWithoutStep += r.rowsWithoutStep;
    prev.stepIds = [...new Set([...prev.stepIds, ...r.stepIds])].sort((a, b) => a - b);
    for (const w of r.warnings) prev.warnings.push(w);
    prev.warningCount += r.warningCount;
    if (r.warningsOnNoRank !== undefined) prev.warningsOnNoRank = (prev.warningsOnNoRank ?? 0) + r.warningsOnNoRank;
    if (r.beside !== undefined) prev.beside = [...(prev.beside ?? []), ...r.beside];
    if (prev.stepSpans !== undefined && r.stepSpans !== undefined) {
      const spans = mergeStepSpans(prev.stepSpans, r.stepSpans);
      if (spans !== null) prev.stepSpans = spans;
    }
    if (prev.stepTrace === undefined && r.stepTrace !== undefined) prev.stepTrace = r.stepTrace;
  }
  let out = [...byRank.values()];
  if (ranks !== null) {
    const missing = ranks.filter((r) => !byRank.has(r));
    if (missing.length > 0) {
      throw inputError(
        `${input}: ${ranksNamed(missing, shown)} not found; the input has ${ranksNamed([...byRank.keys()].sort(compareRanks), shown)}. ` +
          'Use --rank with one of those, or --rank all.',
      );
    }
    out = out.filter((r) => ranks.includes(r.rank));
  }
  out.sort((a, b) => compareRanks(a.rank, b.rank));
  // Read whole, the profile's rows are its ranks' and those on no rank (of a file of several devices, a row whose
  // device cannot be told): an op_summary whose every Device_id is N/A has rows, every one of them skipped.
  const onNoRank = ranks === null ? rowsOnNoRank(out) : 0;
  const rows = out.reduce((n, r) => n + r.rowsRead, 0) + onNoRank;
  if (rows === 0) noKernelRows(input, resolved, byRank, out, ranks);
  // Rows, none of which could be read: every figure would be a zero the profile never measured (a diff would say
  // every kernel of the other side was removed).
  const skipped = out.reduce((n, r) => n + r.rowsSkipped, 0) + onNoRank;
  if (skipped >= rows && out.every((r) => r.kernels === 0)) {
    const first = out.flatMap((r) => r.warnings)[0];
    const why = first === undefined ? '' : ` The first: ${escaped(relPath(first.file))}${first.line > 0 ? `:${first.line}` : ''}: ${first.message}.`;
    throw inputError(
      `${input}: no kernel could be read: ${rows === 1 ? 'its one row was' : `every one of its ${rows.toLocaleString('en-US')} rows was`} skipped.${why} ` +
        'Expected kernel rows kprof can read; repair the file or export the profile again.',
    );
  }
  // Rank folders of no kernel data, of ranks not read elsewhere (another folder of the same device) nor left out.
  // (A folder of no rank id is no other folder's rank: an empty one beside one of data is a rank not read.)
  const empty = (resolved.emptyRanks ?? []).filter(
    (e) => (e.rank === NO_RANK_ID || !byRank.has(e.rank)) && (ranks === null || ranks.includes(e.rank)),
  );
  return { input, ranks: out, notes: resolved.notes, unread: resolved.unread, ...(empty.length > 0 ? { emptyRanks: empty } : {}) };
}

/**
 * A rank read twice, once from a summary JSON: two snapshots (or a snapshot and an export) of one rank would be
 * counted twice, so they are refused rather than added.
 */
function duplicateRank(a: RankData, b: RankData): never {
  const where = (r: RankData): string => r.snapshot?.path ?? r.files[0]?.path ?? '(input)';
  if (where(a) === where(b)) {
    throw inputError(
      `${where(a)}: given twice (${ranksNamed([a.rank], shown)} would be counted twice). Pass each summary JSON once, alone or in one folder.`,
    );
  }
  const unknown = a.rank === '-' ? ' (a rank of unknown id: the profile it was made from had no profiler_info or rank in its folder name)' : '';
  throw inputError(
    `${ranksNamed([a.rank], shown)} is in both ${where(a)} and ${where(b)}${unknown}. Expected each rank in one summary JSON only: ` +
      `leave one of the files out (a copy, or the summary of a node made twice), or summarise each node's own ranks with --rank.`,
  );
}
