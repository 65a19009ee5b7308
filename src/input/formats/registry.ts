// The input formats kprof reads, in one table: each format's id, how its files are recognised, what it can
// answer, and how messages and --help name it. resolve.ts asks this table which files of a folder to read and as
// what, read.ts reads a plan with the reader its format has (readers.ts binds them), and every "pass …" / "expected
// …" / "looked for …" message and the --help text of <profile> are made from it.
//
// This module is a leaf: readers import it for their messages, so it imports no reader (readers.ts does).
//
// Adding a format (CONTRIBUTING.md; test/toyFormat.ts and test/klogFormat.ts are whole ones, added at run time):
// 1. A folder under formats/ (or its family's: ascend/, sqlite/, trace/, summary/) with its reader: `kernels`
//    (reads one file into the one KernelTarget it is given and returns its SourceFile; it opens the file itself,
//    through the byte layer input/bytes/, text or binary) or `ranks` (a file of finished ranks, as a summary
//    JSON is). It imports nothing of another family's folder, and only it and this table name its files.
// 2. Its entry in FORMATS below: id, what it holds, names / sniff / places, every answer, how messages name it,
//    and what it has beside it: `witness` (totals to cross-check it against), `exportKind` (for --prefer).
//    Order is preference: where two formats are found in one place, the earlier is read (`--prefer` puts its
//    kind of export first). A sniff tells apart formats whose names overlap (*.json, *.db).
// 3. Its line in readers.ts (READERS, with a `stepTime` file if the profiler writes one beside it); the compiler
//    refuses an id with no reader and an entry that leaves out an answer. Nothing else changes: resolve, read,
//    --help, inspect, --witness, --prefer, --step-time and the messages read this table, and every sink (the
//    rewrites' recorder too) is fed what the reader feeds its target.
// A format added at run time (registerFormat) is the same entry with its reader, read in the main thread.
//
// Over 400 lines: the table of the formats is one table (some 300 lines of entries) read beside the types that
// make each entry complete and the messages made from it.

import type { Fields, RankData, SourceFile, StepTrace } from '../../model/model.js';
import type { KernelSink, RankTarget, RowLog, SourceFacts } from '../sink.js';
import type { Engine } from '../engine.js';
// The trace formats' sniffers (content tests only: they read no file).
import { kinetoRank, sniffChromeTrace, sniffNsysCsv } from './trace/detect.js';

/** How a format answers a question about its kernels. */
export type Answer =
  /** Every file of the format does. */
  | 'yes'
  /** When the file has the column (or field) for it: said per file in inspect's `missing`. */
  | 'column'
  /** Never: a question that needs it is refused with what to pass instead. */
  | 'no';

/**
 * What a format can answer. Every field is required, so an entry that leaves one out does not compile: a format
 * that cannot say whether it has kernel order cannot be asked for a sequence view by mistake.
 */
export interface Answers {
  /** Kernel names (op_statistic holds totals per type only). */
  names: Answer;
  /** Kernel (OP) types. */
  types: Answer;
  /** Core types: Accelerator Core / Task Type. */
  cores: Answer;
  /** Input shapes (for --by type+shapes). */
  shapes: Answer;
  /** Step ids. */
  steps: Answer;
  /** Start times (inspect's span). */
  starts: Answer;
  /** Stream ids (which stream of the device a kernel ran on). */
  streams: Answer;
  /** Kernels one at a time in the order they ran (a sequence view can follow them); 'no' for totals. */
  order: Answer;
  /**
   * Where rank ids come from: the profile folder (profiler_info_*.json or its name), the folder or a column of the
   * file (msprof's Device_id: one file can hold several devices), the file itself (a summary JSON's perRank), or
   * the first bytes or name of each file, else its folder (a kineto trace's distributedInfo: see Recognition.rank).
   */
  ranks: 'folder' | 'column' | 'file' | 'head';
}

/** What a format's files hold, which decides how resolve and the commands treat them. */
export type Holds =
  /** One row (record) per kernel: the profile's own figures. */
  | 'kernels'
  /** Totals per kernel type, written by the profiler: read when a profile folder has no kernel table. */
  | 'totals'
  /** kprof's own summary, read back. */
  | 'summary'
  /** Data of a profile with no kernels in it (analysis.db, step_trace_time.csv): recognised, to say so. */
  | 'nothing';

/**
 * Where in a profile a format's files are found (FORMATS.md §1):
 * - `framework`: a torch_npu / MindSpore `ASCEND_PROFILER_OUTPUT` folder;
 * - `msprof`: an msprof output folder (mindstudio_profiler_output in a PROF_ folder, or its older device_N/summary);
 * - `loose`: a plain folder that holds export files itself (copied out of a profile);
 * - `collection`: a folder of such files that is read as one multi-rank profile, each file its own ranks, when it
 *   holds no profile folder (a folder of summary JSONs).
 */
export type Place = 'framework' | 'msprof' | 'loose' | 'collection';

/** What a file says of its rank (Recognition.rank): the id ('-': none) and where it was found; a warning of what was off. */
export interface RankClaim {
  rank: string;
  source: string;
  warning?: string;
}

export interface Recognition {
  /** Names its files have (tested on the base name), where it is found and when given alone. */
  names: readonly RegExp[];
  /**
   * A test of the first bytes of a file (up to 64 KiB, unpacked when gzip): true claims the file whatever its name
   * (SQLite's 16-byte header "SQLite format 3\0"; JSON that holds "traceEvents"). Asked only when the names of two
   * formats with different readers match a file, or of a file given alone that no format's names match (formats
   * found in `loose` places), so a plain read costs no extra open.
   */
  sniff?: (head: Uint8Array) => boolean;
  /** Where it is found in a profile; [] for a format read only when given as a file. */
  places: readonly Place[];
  /**
   * The rank of a file given alone or found in a collection, from its first bytes (as for sniff) and its base
   * name, when the file says it (kineto's distributedInfo); null: the folder's rank, as for other formats.
   */
  rank?: (head: Uint8Array, name: string) => RankClaim | null;
  /** From a folder: the first of its files by name (one export), or all of them in order (slices of one export). */
  takes: 'first' | 'all';
  /**
   * Its profiler writes a large export as slices, `<export>_slice_<n>_<rest>` (msprof): read in slice order as one
   * file, a missing slice warned of, and a slice given alone read with its siblings.
   */
  slices?: true;
  /** A file name that says its rank (its first group: torch_npu's `ascend_pytorch_profiler_3.db`), used when the folder says none. */
  rankInName?: RegExp;
}

/** How messages and --help name a format. */
export interface Naming {
  /** As --help lists it: `kernel_details.csv`, `a summary JSON`. */
  short: string;
  /** As a note names it in passing: `kernel_details.csv`, `op_summary`. */
  brief: string;
  /** As "pass …" lists it: `kernel_details.csv`, `a kprof summary JSON (*.json)`. */
  pass: string;
  /** With its producer, for "expected …": `a torch_npu kernel_details.csv`. */
  title: string;
  /** Who writes it: `torch_npu`, `msprof`, `kprof`. */
  by: string;
  /** Where it is looked for, for "looked for …": `ASCEND_PROFILER_OUTPUT/kernel_details.csv`. */
  lookedFor: readonly string[];
  /**
   * The start of its header as messages quote it, for a CSV export that ascend/detect.ts tells apart by its header
   * (listed in the messages of a CSV that is none of them); null otherwise, also for a format with a header of its own.
   */
  header: string | null;
  /**
   * What its writer is told so that it records kernels, for "was the profile collected with …?" when a file of
   * it holds none (`NPU activities on`); absent: the reader says itself why a file has none, or nothing is advised.
   */
  record?: string;
  /**
   * What a file of it lacks when its kernels have no step, said of one file and of two: absent, a kernel table's
   * `has no Step Id column`.
   */
  noSteps?: readonly [string, string];
}

/** The kinds of export `--prefer` chooses between, the default first. */
export const EXPORT_KINDS = ['text', 'db'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** A format's kind of export (FormatFacts.exportKind). */
export function exportKindOf(f: FormatFacts): ExportKind {
  return f.exportKind ?? EXPORT_KINDS[0];
}

/** Is a format of the db export of a run (not its text export)? */
export function isDbExport(f: FormatFacts): boolean {
  return exportKindOf(f) === 'db';
}

/** The other kind of export, for "--prefer … reads the other". */
export function otherExportKind(k: ExportKind): ExportKind {
  return EXPORT_KINDS.find((x) => x !== k)!;
}

/** Everything kprof knows about a format but its reader (readers.ts adds that). */
export interface FormatFacts<Id extends string = string> {
  id: Id;
  holds: Holds;
  recognise: Recognition;
  answers: Answers;
  naming: Naming;
  /** Its files may be gzipped (`.gz`), unpacked as they are read. */
  gzip: boolean;
  /**
   * Which kind of export of a run its files are, for `--prefer` where a folder holds both kinds of one run
   * (EXPORT_KINDS): absent, the first (`text`).
   */
  exportKind?: ExportKind;
  /**
   * The format of totals (`holds: 'totals'`, with types and cores) that the profiler writes of the same kernels
   * beside a file of this one, in its folder: what `--witness` cross-checks its kernels against. Absent: nothing to.
   */
  witness?: string;
  /**
   * The format a file no entry claims is read as (the CSV family: a CSV's header says which of its formats it is).
   * Exactly one entry has it.
   */
  fallback?: true;
}

/** Where a reader puts what it reads: the kernels into the rank's sink, what it could not read into its row log. */
export type KernelTarget = KernelSink & RowLog;

export interface KernelReadOptions {
  /** Read input shapes into the group key. */
  withShapes: boolean;
  /**
   * Sinks fed the same kernels beside `into`, for a caller that reads one file itself (tests). readRank passes
   * none: the target it gives a reader already feeds the sinks beside the accumulator (sink.ts asTarget), so a
   * reader that feeds `into` alone feeds them all.
   */
  beside?: readonly KernelSink[] | undefined;
  /**
   * Route the rows of a file that holds several devices to one target per device id (`column`: where it is read).
   * `rankOf`: the file says which rank a device is (`source`: where, as `RANK_DEVICE_MAP of x.db`), told before
   * the read returns; the device's rows are then that rank, not the device number. `noRank`: the log of the rows
   * whose device cannot be told (skipped there: counted as the file's, in no rank's figures).
   */
  split?: {
    targetFor(device: number, column?: string): RankTarget;
    rankOf?(device: number, rank: string, source: string): void;
    readonly noRank?: RowLog;
  };
  /** Called with the number of (as stored) bytes read since the last call. */
  onBytes?: ((n: number) => void) | undefined;
  /** The scan engine of a text format (undefined: the default, see engine.ts). */
  engine?: Engine | undefined;
  /** Kernel names of CUDA/ROCm traces without template arguments, parameters and return type (--short-names). */
  shortNames?: boolean | undefined;
  /** Told the rank the file says it holds (a db export's RANK_DEVICE_MAP), before the read returns. */
  ownRank?: ((rank: string, source: string) => void) | undefined;
  /** What a read of this file before learnt too late and asked to be read again with (ReadAgain.known). */
  known?: unknown;
}

/**
 * Thrown by a reader that learnt at the end of a file what it needed from its start (a trace whose ProfilerStep#N
 * events come after kernels they hold): what it handed on may be wrong, so the rank's files are read again into
 * fresh sinks, this reader given `known` for this file (KernelReadOptions.known). Not an error the user sees.
 */
export class ReadAgain extends Error {
  constructor(
    readonly file: string,
    readonly known: unknown,
  ) {
    super(`${file}: read again`);
  }
}

/**
 * A file the profiler writes beside one of a format's, with its time per step (`--step-time` reads it into the
 * rank's step time): where it is for a file of the format (null: none), and how to read it.
 */
export interface StepTimeFile {
  /** As messages and --help name it: `step_trace_time.csv`. */
  name: string;
  beside(file: string): string | null;
  read(path: string, log: RowLog): StepTrace | null;
  /** The text of one column per step (the audit's Stage), read as `read` reads the file; null without that column. */
  column(path: string, name: string): Map<number, string> | null;
}

export type FormatReader =
  | {
      kind: 'kernels';
      read(path: string, into: KernelTarget, options: KernelReadOptions): Promise<SourceFile>;
      /** Its step-time file, when the profiler writes one beside a file of the format. */
      stepTime?: StepTimeFile;
      /** Can it read here (the library it needs loads)? When not, every file of the format fails alike. */
      usable?(): boolean;
    }
  | {
      kind: 'ranks';
      read(path: string): RankData[] | Promise<RankData[]>;
      /** Check the ranks of one profile, its own among them, before they are combined (throws an input error). */
      combined?(ranks: RankData[]): void;
      /**
       * The most ranks of the format one profile holds, and the error past it: checked as each file is read, so that
       * a folder of many files is not held whole before `combined` sees it.
       */
      most?: { ranks: number; refuse(where: string, n: number): never };
    };

/** A format with its reader: what registerFormat takes. */
export type FormatEntry = FormatFacts & { reader: FormatReader };

const KERNEL_DETAILS = /^kernel_details\.csv(\.gz)?$/;
const OP_SUMMARY = /^op_summary_.*\.csv(\.gz)?$/;
const OP_STATISTIC = /^op_statistic(_.*)?\.csv(\.gz)?$/;
const SUMMARY_JSON = /\.json(\.gz)?$/i;
const TRACE_VIEW = /^trace_view\.json(\.gz)?$/;
/** Any JSON: kineto traces are named by their writer (`*.pt.trace.json`, `rank-0.json`, `…_kineto.json.gz`). */
const CHROME_TRACE = /\.json(\.gz)?$/i;
const NSYS_GPU_TRACE = /(^|_)(cuda_gpu_trace|gputrace)\.csv(\.gz)?$/i;
const NSYS_KERN_SUM = /(^|_)(cuda_gpu_kern_sum|gpukernsum)\.csv(\.gz)?$/i;
const DB_EXPORT = [/^ascend_pytorch_profiler(_\d+)?\.db$/, /^msprof_.*\.db$/];
const ANALYSIS_DB = /^analysis\.db$/;

/** SQLite's 16-byte header magic, "SQLite format 3" and a NUL. */
function isSqlite(head: Uint8Array): boolean {
  const magic = 'SQLite format 3\u0000';
  if (head.length < magic.length) return false;
  for (let i = 0; i < magic.length; i++) if (head[i] !== magic.charCodeAt(i)) return false;
  return true;
}

/** How kprof starts a summary JSON: `{"schemaVersion": N, "kind": "summary"` (pretty-printed or not, a BOM before, as bytes). */
const SUMMARY_JSON_START = /^(\xEF\xBB\xBF)?\s*\{\s*"schemaVersion"\s*:\s*\d+\s*,\s*"kind"\s*:\s*"summary"/;

/**
 * The formats kprof reads, in the order they are preferred where several are found in one place and listed in
 * messages. A CSV of the first three is told apart by its header (ascend/detect.ts): its name only says where to look.
 */
/** What a Chrome trace without steps lacks (FormatFacts.naming.noSteps). */
const TRACE_NO_STEPS = ['holds no ProfilerStep#N events', 'hold no ProfilerStep#N events'] as const;

export const FORMATS = [
  {
    id: 'kernel_details',
    holds: 'kernels',
    recognise: { names: [KERNEL_DETAILS], places: ['framework', 'loose'], takes: 'first' },
    answers: {
      names: 'yes',
      types: 'yes',
      cores: 'column',
      shapes: 'column',
      steps: 'column',
      starts: 'column',
      streams: 'column',
      order: 'yes',
      ranks: 'folder',
    },
    naming: {
      short: 'kernel_details.csv',
      brief: 'kernel_details.csv',
      pass: 'kernel_details.csv',
      title: 'a torch_npu kernel_details.csv',
      by: 'torch_npu',
      lookedFor: ['ASCEND_PROFILER_OUTPUT/kernel_details.csv'],
      header: '"Name,Type,…,Duration(us)"',
      record: 'NPU activities on',
    },
    gzip: true,
    witness: 'op_statistic',
    fallback: true,
  },
  {
    id: 'op_summary',
    holds: 'kernels',
    recognise: { names: [OP_SUMMARY], places: ['msprof', 'loose'], takes: 'all', slices: true },
    answers: {
      names: 'yes',
      types: 'yes',
      cores: 'column',
      shapes: 'column',
      steps: 'column',
      starts: 'column',
      streams: 'column',
      order: 'yes',
      ranks: 'column',
    },
    naming: {
      short: 'op_summary_*.csv',
      brief: 'op_summary',
      pass: 'op_summary_*.csv',
      title: 'an msprof op_summary_*.csv',
      by: 'msprof',
      lookedFor: ['PROF_*/mindstudio_profiler_output/op_summary_*.csv', 'PROF_*/device_*/summary/op_summary_*.csv'],
      header: '"Op Name,OP Type,…,Task Duration(us)"',
      record: 'NPU activities on',
    },
    gzip: true,
    witness: 'op_statistic',
  },
  {
    id: 'op_statistic',
    holds: 'totals',
    recognise: { names: [OP_STATISTIC], places: ['framework', 'msprof', 'loose'], takes: 'all', slices: true },
    answers: { names: 'no', types: 'yes', cores: 'yes', shapes: 'no', steps: 'no', starts: 'no', streams: 'no', order: 'no', ranks: 'folder' },
    naming: {
      short: 'op_statistic*.csv',
      brief: 'op_statistic',
      pass: 'op_statistic*.csv',
      title: 'an op_statistic*.csv',
      by: 'msprof and torch_npu',
      lookedFor: ['op_statistic*.csv'],
      header: '"OP Type,Core Type,Count,Total Time(us),…"',
      record: 'NPU activities on',
    },
    gzip: true,
  },
  {
    id: 'db',
    holds: 'kernels',
    // After the text exports: where a folder holds both exports of one run, the text is read unless --prefer db
    // says otherwise (it needs no SQLite library, and its Step Id is the device-side one).
    recognise: {
      names: DB_EXPORT,
      sniff: isSqlite,
      places: ['framework', 'msprof', 'loose'],
      takes: 'first',
      rankInName: /^ascend_pytorch_profiler_(\d+)\.db$/,
    },
    answers: {
      names: 'yes',
      types: 'yes',
      cores: 'column',
      shapes: 'column',
      steps: 'column',
      starts: 'yes',
      streams: 'column',
      order: 'yes',
      ranks: 'column',
    },
    naming: {
      short: 'ascend_pytorch_profiler*.db, msprof_*.db',
      brief: 'ascend_pytorch_profiler*.db / msprof_*.db',
      pass: 'ascend_pytorch_profiler*.db / msprof_*.db',
      title: 'a torch_npu / msprof SQLite export',
      by: 'torch_npu / msprof',
      lookedFor: ['ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler*.db', 'PROF_*/msprof_*.db'],
      header: null,
      noSteps: ['has no STEP_TIME table', 'have no STEP_TIME table'],
      record: 'NPU activities on',
    },
    gzip: false,
    exportKind: 'db',
  },
  {
    id: 'analysis_db',
    holds: 'nothing',
    recognise: { names: [ANALYSIS_DB], sniff: isSqlite, places: ['framework'], takes: 'first' },
    answers: { names: 'no', types: 'no', cores: 'no', shapes: 'no', steps: 'no', starts: 'no', streams: 'no', order: 'no', ranks: 'folder' },
    naming: {
      short: 'analysis.db',
      brief: 'analysis.db',
      pass: 'analysis.db',
      title: 'a torch_npu analysis.db (step and communication statistics, no kernels)',
      by: 'torch_npu and msprof-analyze',
      lookedFor: [],
      header: null,
    },
    gzip: false,
  },
  {
    id: 'trace_view',
    holds: 'kernels',
    // Read when a profile folder has no kernel table of the formats above (it has no op types).
    recognise: { names: [TRACE_VIEW], sniff: sniffChromeTrace, places: ['framework', 'loose'], takes: 'first' },
    answers: { names: 'yes', types: 'no', cores: 'no', shapes: 'no', steps: 'column', starts: 'yes', streams: 'yes', order: 'yes', ranks: 'folder' },
    naming: {
      short: 'trace_view.json',
      brief: 'trace_view.json',
      pass: 'trace_view.json',
      title: 'a torch_npu trace_view.json',
      by: 'torch_npu',
      lookedFor: ['ASCEND_PROFILER_OUTPUT/trace_view.json'],
      header: null,
      noSteps: TRACE_NO_STEPS,
    },
    gzip: true,
  },
  {
    id: 'summary_json',
    holds: 'summary',
    recognise: {
      names: [SUMMARY_JSON],
      // Another format's *.json (a trace) is told from a summary JSON by its content; a *.json that is neither is
      // read as a summary JSON, whose reader says what it found instead.
      sniff: (head) => SUMMARY_JSON_START.test(String.fromCharCode(...head.subarray(0, 256))),
      places: ['collection'],
      takes: 'all',
    },
    answers: {
      names: 'column',
      types: 'column',
      cores: 'column',
      shapes: 'column',
      steps: 'column',
      starts: 'no',
      streams: 'no',
      order: 'no',
      ranks: 'file',
    },
    naming: {
      short: 'a summary JSON',
      brief: 'summary JSON',
      pass: 'a kprof summary JSON (*.json)',
      title: 'a kprof summary JSON',
      by: 'kprof',
      lookedFor: ['summary JSONs (*.json)'],
      header: null,
    },
    gzip: true,
  },
  {
    id: 'kineto',
    holds: 'kernels',
    // A folder of per-rank traces is one multi-rank profile; each file's rank is its distributedInfo.rank.
    recognise: {
      names: [CHROME_TRACE],
      sniff: sniffChromeTrace,
      places: ['collection'],
      takes: 'all',
      rank: (head, name) => (sniffChromeTrace(head) ? kinetoRank(head, name) : null),
    },
    answers: { names: 'yes', types: 'no', cores: 'no', shapes: 'no', steps: 'column', starts: 'yes', streams: 'yes', order: 'yes', ranks: 'head' },
    naming: {
      short: 'a PyTorch kineto trace',
      brief: 'kineto trace',
      pass: 'a PyTorch kineto trace (*.pt.trace.json[.gz])',
      title: 'a PyTorch kineto trace',
      by: 'the PyTorch profiler',
      lookedFor: ['PyTorch kineto traces (*.json[.gz])'],
      header: null,
      noSteps: TRACE_NO_STEPS,
    },
    gzip: true,
  },
  {
    id: 'nsys_gpu_trace',
    holds: 'kernels',
    recognise: { names: [NSYS_GPU_TRACE], sniff: (head) => sniffNsysCsv(head) === 'nsys_gpu_trace', places: ['loose'], takes: 'first' },
    answers: {
      names: 'yes',
      types: 'no',
      cores: 'no',
      shapes: 'no',
      steps: 'column',
      starts: 'yes',
      streams: 'column',
      order: 'yes',
      ranks: 'column',
    },
    naming: {
      short: '*cuda_gpu_trace.csv',
      brief: 'cuda_gpu_trace',
      pass: 'an nsys stats cuda_gpu_trace CSV (*cuda_gpu_trace.csv)',
      title: 'an Nsight Systems cuda_gpu_trace CSV',
      by: 'nsys stats',
      lookedFor: ['*cuda_gpu_trace.csv'],
      header: null,
      noSteps: ['has no ProfilerStep#N range from an NVTX report beside it', 'have no ProfilerStep#N range from an NVTX report beside them'],
    },
    gzip: true,
  },
  {
    id: 'nsys_kern_sum',
    holds: 'totals',
    recognise: { names: [NSYS_KERN_SUM], sniff: (head) => sniffNsysCsv(head) === 'nsys_kern_sum', places: ['loose'], takes: 'first' },
    answers: { names: 'yes', types: 'no', cores: 'no', shapes: 'no', steps: 'no', starts: 'no', streams: 'no', order: 'no', ranks: 'folder' },
    naming: {
      short: '*cuda_gpu_kern_sum.csv',
      brief: 'cuda_gpu_kern_sum',
      pass: 'an nsys stats cuda_gpu_kern_sum CSV (*cuda_gpu_kern_sum.csv)',
      title: 'an Nsight Systems cuda_gpu_kern_sum CSV',
      by: 'nsys stats',
      lookedFor: ['*cuda_gpu_kern_sum.csv'],
      header: null,
    },
    gzip: true,
  },
] as const satisfies readonly FormatFacts[];

/** The id of a built-in format. */
export type FormatId = (typeof FORMATS)[number]['id'];

/** Formats added at run time (registerFormat in readers.ts): a plug-in, or a test's toy format. */
const added: FormatFacts[] = [];

/** Every format, built-in first, in the order of preference and of messages. */
export function allFormats(): readonly FormatFacts[] {
  return added.length === 0 ? FORMATS : [...FORMATS, ...added];
}

/** Add a format's facts (readers.ts registerFormat does, with its reader). */
export function addFacts(facts: FormatFacts): void {
  if (allFormats().some((f) => f.id === facts.id)) throw new Error(`format ${facts.id} is registered twice`);
  if (facts.fallback) throw new Error(`format ${facts.id}: only the CSV family is the fallback`);
  added.push(facts);
}

/** Remove a format added at run time (tests). */
export function removeFacts(id: string): void {
  const i = added.findIndex((f) => f.id === id);
  if (i >= 0) added.splice(i, 1);
}

/** The facts of a format by id; an id no entry has is a bug of ours. */
export function formatOf(id: string): FormatFacts {
  const f = allFormats().find((x) => x.id === id);
  if (f === undefined) throw new Error(`unknown format id ${JSON.stringify(id)}`);
  return f;
}

/** The format a file no entry claims is read as. */
export function fallbackFormat(): FormatFacts {
  return FORMATS.find((f) => 'fallback' in f)!;
}

/** Is a file (by its base name) one of this format's? */
export function namedAs(f: FormatFacts, name: string): boolean {
  return f.recognise.names.some((re) => re.test(name));
}

/** The formats whose names match a file, in order. */
export function formatsNamed(name: string): FormatFacts[] {
  return allFormats().filter((f) => namedAs(f, name));
}

/** Formats found in a place, in order of preference; `holds` narrows them. */
export function formatsIn(place: Place, holds?: Holds): FormatFacts[] {
  return allFormats().filter((f) => f.recognise.places.includes(place) && (holds === undefined || f.holds === holds));
}

/** Is a file of this name one some format reads (`kernel_details.csv`, `op_summary_1.csv`, any JSON)? */
export function isExportName(name: string): boolean {
  return allFormats().some((f) => f.recognise.names.some((re) => re.test(name)));
}

/** Is a rank of this format known only once its file is read (a summary JSON holds its own ranks)? */
export function ranksInFile(id: string): boolean {
  return formatOf(id).answers.ranks === 'file';
}

/** `a, b and c` / `a, b or c`. */
function listed(items: readonly string[], last: 'and' | 'or'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

/** Formats that a CSV header tells apart (ascend/detect.ts). */
function csvFormats(): FormatFacts[] {
  return allFormats().filter((f) => f.naming.header !== null);
}

/** Every format as "pass …" lists it: `kernel_details.csv, op_summary_*.csv, …, a kprof summary JSON (*.json)`. */
export function passAnyFormat(): string {
  return allFormats()
    .filter((f) => f.holds !== 'nothing')
    .map((f) => f.naming.pass)
    .join(', ');
}

/** The CSV formats as "pass …" lists them: `kernel_details.csv, op_summary_*.csv, op_statistic*.csv`. */
export function passCsvFormat(): string {
  return csvFormats()
    .filter((f) => f.holds !== 'nothing')
    .map((f) => f.naming.pass)
    .join(', ');
}

/** The CSV formats with their headers, for a CSV whose header is none of them. */
export function expectedCsvFormat(): string {
  return listed(
    csvFormats()
      .filter((f) => f.holds !== 'nothing')
      .map((f) => `${f.naming.title} (${f.naming.header})`),
    'or',
  );
}

/**
 * The profiler exports that hold kernels one by one with their names, for "pass the same run's …" when a question
 * needs names: `kernel_details.csv or op_summary_*.csv`, with who writes each when `by` is asked for.
 */
export function passKernelTable(by = false): string {
  // Kernel tables with op types too (the traces name their kernels only): what the question is asked beside.
  const tables = allFormats().filter(
    (f) => f.holds === 'kernels' && f.answers.names !== 'no' && f.answers.types !== 'no' && f.recognise.places.some((p) => p !== 'collection'),
  );
  return listed(
    tables.map((f) => (by ? `${f.naming.pass} (${f.naming.by})` : f.naming.pass)),
    'or',
  );
}

/** What a folder was searched for, for "no profile found": the places of a profile, then of a collection. */
export function lookedForText(depth: number): string {
  const inProfile = allFormats()
    .filter((f) => f.recognise.places.some((p) => p !== 'collection'))
    .flatMap((f) => f.naming.lookedFor);
  const collected = formatsIn('collection').flatMap((f) => f.naming.lookedFor);
  const own = collected.length > 0 ? `, and for ${listed(collected, 'or')} in the folder itself` : '';
  return `${listed(inProfile, 'and')}, up to ${depth} levels down${own}`;
}

/** The kinds of folder and file a <profile> argument can be, for "pass …" after a folder held none. */
export function passAnyFolder(): string {
  const collections = formatsIn('collection').map((f) => `a folder of ${plural(f.naming.short)}`);
  return `${['a *_ascend_pt folder', 'a PROF_* folder', 'a folder of ranks', ...collections].join(', ')}, or a file`;
}

/** `a summary JSON` → `summary JSONs`. */
function plural(short: string): string {
  return `${short.replace(/^an? /, '')}s`;
}

/** The <profile> argument's --help text. */
export function profileArgumentHelp(): string {
  const exports = allFormats().filter((f) => f.holds === 'kernels' || f.holds === 'totals');
  const packed = exports.filter((f) => f.gzip).map((f) => f.naming.short);
  const plain = exports.filter((f) => !f.gzip).map((f) => f.naming.short);
  const gz = packed.length > 0 ? [`${packed.join(', ')} (.gz too)`] : [];
  const saved = allFormats()
    .filter((f) => f.holds === 'summary')
    .map((f) => f.naming.short);
  return `${[...gz, ...plain].join(', ')}, a profile folder, a folder of ranks, or ${listed(saved, 'or')}`;
}

/** What a format can never answer is not asked of its files: those fields are off before its rows are read. */
export function limitFields(fields: Fields, answers: Answers): void {
  if (answers.names === 'no') fields.name = false;
  if (answers.types === 'no') fields.type = false;
  if (answers.cores === 'no') fields.core = false;
  if (answers.shapes === 'no') fields.shapes = false;
  if (answers.steps === 'no') fields.steps = false;
}

/**
 * What a file of this format can answer, told to the sink before its kernels: what the format always has, or has
 * when the file has the column (`has`); shapes only when asked for.
 */
export function sourceFacts(
  file: string,
  answers: Answers,
  has: { name?: boolean; core?: boolean; shapes?: boolean; steps?: boolean; starts?: boolean; streams?: boolean },
  withShapes: boolean,
): SourceFacts {
  const holds = (a: Answer, column: boolean | undefined): boolean => a === 'yes' || (a === 'column' && column === true);
  return {
    file,
    name: holds(answers.names, has.name),
    core: holds(answers.cores, has.core),
    shapes: withShapes && holds(answers.shapes, has.shapes),
    steps: holds(answers.steps, has.steps),
    ordered: answers.order !== 'no',
    starts: holds(answers.starts, has.starts),
    streams: holds(answers.streams, has.streams),
  };
}

/** The formats whose kernels --witness cross-checks, and the totals it checks them against, as messages name them. */
export function witnessText(): { tables: string; totals: string } {
  const tables = allFormats().filter((f) => f.witness !== undefined);
  const totals = [...new Set(tables.map((f) => f.witness!))].map((id) => formatOf(id).naming.brief);
  return { tables: tables.map((f) => f.naming.brief).join(', '), totals: listed(totals, 'or') };
}

// Texts of later stages' messages, made from the table (they name no format themselves: test/architecture.test.ts).

/** A question about kernels a format answers (Answers but where ranks come from). */
export type Question = Exclude<keyof Answers, 'ranks'>;

/** The formats that answer every one of these questions (always, or when the file has the column), in order. */
export function formatsAnswering(questions: readonly Question[], holds: readonly Holds[] = ['kernels']): FormatFacts[] {
  return allFormats().filter((f) => holds.includes(f.holds) && questions.every((q) => f.answers[q] !== 'no'));
}

/** The formats that answer none of these questions at all, in order. */
export function formatsNotAnswering(questions: readonly Question[], holds: readonly Holds[] = ['kernels', 'totals']): FormatFacts[] {
  return allFormats().filter((f) => holds.includes(f.holds) && questions.every((q) => f.answers[q] === 'no'));
}

/** Formats as a note names them in passing: `kernel_details.csv, op_summary or kineto trace`. */
export function briefList(formats: readonly FormatFacts[], last: 'and' | 'or' = 'or'): string {
  return listed(
    formats.map((f) => f.naming.brief),
    last,
  );
}

/**
 * The exports that hold each kernel in the order it ran with its step, for "pass an export that …" (a sequence
 * rule, the rewrites, the audit): `kernel_details.csv, op_summary, …, kineto trace or cuda_gpu_trace`.
 */
export function orderedWithStepsText(): string {
  return briefList(formatsAnswering(['order', 'steps']));
}

/** The formats of totals, with what their totals are per, for "X: totals per type (op_statistic)". */
export function totalsText(file: string): string {
  const base = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
  const f = formatsNamed(base).find((x) => x.holds === 'totals');
  if (f === undefined) return 'totals per kernel group';
  return `totals per ${f.answers.names === 'no' ? 'type' : 'kernel name'} (${f.naming.brief})`;
}

/**
 * Why a file of kernels in the order they ran has no steps, in its format's words, said of one file and of two:
 * a kernel table has no Step Id column, a trace no ProfilerStep#N events. The format is told by the file's name.
 */
export function noStepsText(file: string): readonly [string, string] {
  const base = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
  const f = formatsNamed(base).find((x) => x.holds === 'kernels' && x.answers.order !== 'no');
  return f?.naming.noSteps ?? ['has no Step Id column', 'have no Step Id column'];
}

/** The formats whose files are Chrome-trace JSON (sniffed as one), in order. */
export function chromeTraceFormats(): FormatFacts[] {
  return allFormats().filter((f) => f.recognise.sniff === sniffChromeTrace);
}

/** The Chrome-trace formats as "pass …" lists them: `trace_view.json or a PyTorch kineto trace (*.pt.trace.json[.gz])`. */
export function chromeTraceNames(): string {
  return listed(
    chromeTraceFormats().map((f) => f.naming.pass),
    'or',
  );
}

/** Who writes the Chrome-trace formats: `torch_npu and the PyTorch profiler`. */
export function chromeTraceWriters(): string {
  return listed([...new Set(chromeTraceFormats().map((f) => f.naming.by))], 'and');
}

/** The kernel tables of a run's text export (not its db export), for "or read the text export (…)". */
export function passTextExport(): string {
  return listed(
    allFormats()
      .filter((f) => f.holds === 'kernels' && !isDbExport(f) && f.answers.types !== 'no' && f.recognise.places.some((p) => p !== 'collection'))
      .map((f) => f.naming.pass),
    'or',
  );
}

/** The file names a format of the db export has in a place (`msprof_*.db` in a PROF_* folder), for a note. */
export function dbExportIn(place: Place, prefix: string): string {
  const names = formatsIn(place)
    .filter(isDbExport)
    .flatMap((f) => f.naming.lookedFor.filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length)));
  return names.length > 0 ? listed(names, 'or') : 'db export';
}
