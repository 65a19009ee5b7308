// The per-rank job: read every file of one rank plan into its accumulator (and the sinks beside it) and hand
// back its RankData. The scheduler (read.ts) runs it in this thread or in a read worker (workers/readWorker.ts),
// the same code either way.

import { Accumulator } from './accumulator.js';
import { inputError, KprofError } from '../util/errors.js';
import type { RankData, RawNameTests, SourceFile } from '../model/model.js';
import type { Engine } from './engine.js';
import { readerOf } from './formats/readers.js';
import { formatOf, limitFields, ReadAgain } from './formats/registry.js';
import { FOLDER_OF_SNAPSHOTS, type RankPlan } from './formats/resolve.js';
import type { BesideRequest, BesideSink } from './beside.js';
import { asTarget, besides, type KernelSink, type RankTarget, type RowLog } from './sink.js';

/** Read every file of one rank plan. */
export async function readRank(
  plan: RankPlan,
  options: {
    withShapes: boolean;
    withSpan?: boolean | undefined;
    /** Keep each step's wall span and read the step_trace_time.csv beside the kernel table (--step-time). */
    stepTime?: boolean | undefined;
    onBytes?: ((n: number) => void) | undefined;
    /** The scan engine (undefined: the default). */
    engine?: Engine | undefined;
    /** A sink to feed beside each rank's accumulator: one made for each accumulator (one per Device_id). */
    beside?: BesideRequest | null | undefined;
    /** What may select kernels by raw name in this run (see Accumulator). */
    rawNames?: RawNameTests | null | undefined;
    /** Keep kernel names in the fine groups (see Accumulator); default true. */
    kernelNames?: boolean | undefined;
    /** Shorten CUDA/ROCm kernel names (--short-names). */
    shortNames?: boolean | undefined;
    /** The ranks of formats of finished ranks read so far for this profile (FormatReader `most`). */
    held?: { ranks: number } | undefined;
  },
): Promise<RankData[]> {
  const reader = readerOf(plan.format);
  if (reader.kind === 'ranks') {
    // The ranks read so far, counted as each file is read and checked before the next one is (a folder's files are
    // all started at once, each read in full before its first await: past the most, none more is read).
    const held = reader.most !== undefined ? options.held : undefined;
    const refuse = (): void => {
      if (held !== undefined && held.ranks > reader.most!.ranks) reader.most!.refuse(`${plan.files[0]!} and the files read before it`, held.ranks);
    };
    refuse();
    let got: RankData[] | Promise<RankData[]>;
    try {
      got = reader.read(plan.files[0]!);
    } catch (e) {
      throw inFolderOfSnapshots(e, plan);
    }
    if (!Array.isArray(got)) got = await got.catch((e: unknown) => Promise.reject(inFolderOfSnapshots(e, plan)));
    if (held !== undefined) held.ranks += got.length;
    refuse();
    const rankSource = `${formatOf(plan.format).naming.short.replace(/^an? /, '')} (its perRank entry)`;
    return got.map((r) => ({ ...r, rankSource }));
  }
  // A reader that learnt too late what it needed (ReadAgain): the plan is read again into fresh accumulators,
  // that reader told what it learnt; each file at most once more.
  const known = new Map<string, unknown>();
  for (;;) {
    try {
      return await readKernels(plan, known.size === 0 ? options : { ...options, onBytes: undefined }, known);
    } catch (e) {
      if (!(e instanceof ReadAgain) || known.has(e.file)) throw e;
      known.set(e.file, e.known);
    }
  }
}

/**
 * The log of a plan's rows on no rank (KernelReadOptions.split.noRank): counted; their warnings said with `said`'s,
 * marked as no rank's (inspect says them apart from the rank's own).
 */
class NoRankLog implements RowLog {
  rowsRead = 0;
  rowsSkipped = 0;
  constructor(private readonly said: Accumulator) {}
  skip(file: string, line: number, message: string): void {
    this.rowsSkipped++;
    this.said.warnOnNoRank(file, line, message);
  }
  warn(file: string, line: number, message: string): void {
    this.said.warnOnNoRank(file, line, message);
  }
}

/** Read the files of a plan of kernels into fresh accumulators (`known`: what a read before learnt of a file). */
async function readKernels(plan: RankPlan, options: Parameters<typeof readRank>[1], known: ReadonlyMap<string, unknown>): Promise<RankData[]> {
  const reader = readerOf(plan.format);
  if (reader.kind !== 'kernels') throw new Error(`${plan.format} is not read as kernels`);
  const span = options.withSpan === true;
  const rawNames = options.rawNames ?? null;
  const stepTime = options.stepTime === true;
  const names = options.kernelNames !== false;
  const acc = new Accumulator({ name: true, type: true, core: true, shapes: options.withShapes, steps: true }, { span, stepTime, rawNames, names });
  limitFields(acc.fields, formatOf(plan.format).answers);
  const request = options.beside ?? null;
  const sinks = new Map<Accumulator, BesideSink<unknown>>();
  const beside = (a: Accumulator): KernelSink[] | undefined => {
    if (request === null) return undefined;
    const sink = request.kind.make(request.options);
    sinks.set(a, sink);
    return [sink];
  };
  const others = beside(acc);
  // msprof can write the rows of several devices into one op_summary (and nsys into one CSV, by its Device
  // column): the first device seen is this plan's rank, any other gets an accumulator (a rank) of its own.
  const devices = new Map<number, Accumulator>();
  let deviceColumn = 'Device_id';
  // Each accumulator's target is one object (sink.ts asTarget): its kernels fanned out to the sinks beside it, its
  // rows to it. Readers tell a device's target from the one they began by its log, so the first device's is `into`.
  const targetOf = (a: Accumulator, sinks: KernelSink[] | undefined): RankTarget => {
    const t = asTarget({ sink: besides(a, sinks), log: a });
    return { sink: t, log: t };
  };
  const targets = new Map<Accumulator, RankTarget>([[acc, targetOf(acc, others)]]);
  // The rank a file names a device (a db's RANK_DEVICE_MAP), by device: that rank, not the device number, is the
  // device's rank (as the text export of the same run names it).
  const named = new Map<number, { rank: string; source: string; file: string }>();
  let reading = '';
  // Rows whose device cannot be told: counted as the file's (SourceFile.rowsOnNoRank), in no rank's figures; their
  // warnings are said with the plan's own (the first accumulator's, as plan.warnings are).
  const noRank = new NoRankLog(acc);
  const split = {
    noRank,
    targetFor(device: number, column = 'Device_id'): RankTarget {
      deviceColumn = column;
      let a = devices.get(device);
      if (!a) {
        a = devices.size === 0 ? acc : new Accumulator(acc.fields, { span, stepTime, rawNames, names });
        devices.set(device, a);
      }
      let t = targets.get(a);
      if (!t) {
        t = targetOf(a, beside(a));
        targets.set(a, t);
      }
      return t;
    },
    rankOf(device: number, rank: string, source: string): void {
      named.set(device, { rank, source, file: reading });
    },
  };
  for (const w of plan.warnings ?? []) acc.warn(w.file, w.line, w.message);
  const skipped = (): number => acc.rowsSkipped + noRank.rowsSkipped + [...devices.values()].reduce((n, a) => n + (a === acc ? 0 : a.rowsSkipped), 0);
  const files: SourceFile[] = [];
  let own: { rank: string; source: string; file: string } | null = null;
  for (const f of plan.files) {
    const before = skipped();
    const beforeNoRank = noRank.rowsSkipped;
    reading = f;
    // One target: the accumulator's rows, and its kernels fanned out to the sinks beside it.
    const file = await reader.read(f, asTarget(targets.get(acc)!), {
      withShapes: options.withShapes,
      onBytes: options.onBytes,
      split,
      engine: options.engine,
      shortNames: options.shortNames,
      ownRank: (rank, source) => {
        own ??= { rank, source, file: f };
      },
      known: known.get(f),
    });
    file.rowsSkipped = skipped() - before;
    if (noRank.rowsSkipped > beforeNoRank) file.rowsOnNoRank = noRank.rowsSkipped - beforeNoRank;
    if (files.length > 0 && formatOf(file.format).holds !== formatOf(files[0]!.format).holds) {
      throw inputError(
        `${f}: is ${file.format} but ${files[0]!.path} of the same rank is ${files[0]!.format}; ` +
          `one rank is read from one kind of export. Pass the files separately.`,
      );
    }
    files.push(file);
  }
  const besideOf = (a: Accumulator): { beside?: unknown[] } => {
    const sink = sinks.get(a);
    return sink === undefined ? {} : { beside: [sink.finish()] };
  };
  if (devices.size <= 1) {
    const [rank, rankSource] = withOwnRank(plan, own, acc);
    const data: RankData = { ...acc.toRankData(rank, files), rankSource, ...besideOf(acc) };
    // The step-time file its format's reader declares beside it (readers.ts), with --step-time.
    const companion = reader.stepTime;
    const trace = stepTime && companion !== undefined && plan.files.length === 1 ? companion.beside(plan.files[0]!) : null;
    if (trace !== null) {
      const t = companion!.read(trace, acc);
      if (t !== null) data.stepTrace = t;
      data.warnings = acc.warnings;
      data.warningCount = acc.warningCount;
      if (acc.warningsOnNoRank > 0) data.warningsOnNoRank = acc.warningsOnNoRank;
    }
    return [data];
  }
  const ids = [...devices.keys()].sort((a, b) => a - b);
  const rankNames = deviceRanks(ids, named, acc);
  const by = rankNames === null ? deviceColumn : `${deviceColumn}, each the rank ${[...rankNames.values()][0]!.source} names it`;
  for (const f of files) f.traits = [...f.traits, `rows of ${ids.length} devices (${ids.join(', ')}): one rank per ${by}`];
  return ids.map((d) => {
    const n = rankNames?.get(d);
    return {
      ...devices.get(d)!.toRankData(n?.rank ?? String(d), files),
      rankSource:
        n !== undefined
          ? `${n.source} (device ${d}; the file holds the rows of ${ids.length} devices)`
          : `${deviceColumn} ${d} (the file holds the rows of ${ids.length} devices)`,
      ...besideOf(devices.get(d)!),
    };
  });
}

/**
 * The ranks the file names its devices (KernelReadOptions.split.rankOf), where it names each device a rank of
 * its own; else null, and the devices are ranks by their numbers (a file that names some, or two devices one
 * rank, is warned of: its ranks cannot be told apart by what it says).
 */
function deviceRanks(
  ids: number[],
  named: ReadonlyMap<number, { rank: string; source: string; file: string }>,
  acc: Accumulator,
): ReadonlyMap<number, { rank: string; source: string }> | null {
  if (named.size === 0) return null;
  const first = [...named.values()][0]!;
  const unnamed = ids.filter((d) => !named.has(d));
  const byRank = new Map<string, number[]>();
  for (const d of ids) {
    const n = named.get(d);
    if (n !== undefined) byRank.set(n.rank, [...(byRank.get(n.rank) ?? []), d]);
  }
  const shared = [...byRank].find(([, ds]) => ds.length > 1);
  if (unnamed.length === 0 && shared === undefined) return named;
  const why =
    shared !== undefined
      ? `names devices ${shared[1].join(' and ')} one rank (${shared[0]})`
      : `names no rank for device${unnamed.length === 1 ? '' : 's'} ${unnamed.join(', ')}`;
  acc.warn(first.file, 0, `${first.source} ${why}: each device is read as the rank of its number`);
  return null;
}

/**
 * The rank of a plan, or the one its file says it holds (a db's RANK_DEVICE_MAP) where the folder said none of
 * its own (no profiler_info, no rank in the folder name); a file that says another rank than profiler_info is
 * warned of, and the folder's rank kept (the text export beside it is read as that rank too).
 */
function withOwnRank(plan: RankPlan, own: { rank: string; source: string; file: string } | null, acc: Accumulator): [string, string] {
  if (own === null || own.rank === plan.rank) return [plan.rank, plan.rankSource];
  if (plan.rank === '-' || /^(not found|folder path|file name )/.test(plan.rankSource)) return [own.rank, own.source];
  acc.warn(own.file, 0, `${own.source} says rank ${own.rank}; the rank is taken from ${plan.rankSource} (${plan.rank})`);
  return [plan.rank, plan.rankSource];
}

/** An error reading a file of a folder of summary JSONs or traces, with what such a folder holds (else as it is). */
function inFolderOfSnapshots(e: unknown, plan: RankPlan): unknown {
  if (plan.rankSource !== FOLDER_OF_SNAPSHOTS || !(e instanceof KprofError)) return e;
  return new KprofError(
    e.kind,
    `${e.message} (In a folder of summary JSONs or PyTorch kineto traces every *.json file is read as one or the other: move other JSON files out of ${plan.root}.)`,
  );
}
