// Each format's reader, bound to its id in the registry (registry.ts holds everything else about a format, and
// the reader types). Two kinds of reader:
// - `kernels`: reads one file of a rank's kernels into the rank's KernelTarget, and says what it found (a
//   SourceFile). It gets the file from the byte layer (input/bytes/: bytes into its scanner, chunks, a whole small
//   file, or a checked path for a library that opens by path), so it may be text or binary, row-based or not (a CSV
//   scanner, a SQLite query, a streaming JSON tokenizer); the plan's files are read into one target, in order.
// - `ranks`: reads one file that holds finished ranks (kprof's summary JSON), read in the main thread.

export type { FormatEntry, FormatReader, KernelReadOptions, KernelTarget } from './registry.js';

import { readTable } from './ascend/readTable.js';
import { addFacts, FORMATS, removeFacts, type FormatEntry, type FormatId, type FormatReader } from './registry.js';
import { MAX_SNAPSHOT_RANKS, readSnapshot, sameMaking, tooManyRanks } from './summary/snapshot.js';
import { readStepColumn, readStepTrace, STEP_TRACE_FILE, stepTraceBeside } from './ascend/stepTrace.js';
import { readDb } from './sqlite/source.js';
import { sqliteAvailable } from './sqlite/library.js';
import { readChromeTraceFile, readNsysFile } from './trace/files.js';

/** The CSV exports share one reader: the header says which of them a file is (detect.ts). */
const csvTable: FormatReader = { kind: 'kernels', read: readTable };

/** Every built-in format's reader: an id with no reader, or a reader of no id, does not compile. */
const READERS = {
  // torch_npu writes a step_trace_time.csv beside it.
  kernel_details: { ...csvTable, stepTime: { name: STEP_TRACE_FILE, beside: stepTraceBeside, read: readStepTrace, column: readStepColumn } },
  op_summary: csvTable,
  op_statistic: csvTable,
  db: { kind: 'kernels', read: readDb, usable: sqliteAvailable },
  // An analysis.db holds no kernels: the db reader says so (its tables tell it), naming the file.
  analysis_db: { kind: 'kernels', read: readDb },
  summary_json: { kind: 'ranks', read: readSnapshot, combined: sameMaking, most: { ranks: MAX_SNAPSHOT_RANKS, refuse: tooManyRanks } },
  trace_view: { kind: 'kernels', read: readChromeTraceFile },
  kineto: { kind: 'kernels', read: readChromeTraceFile },
  nsys_gpu_trace: { kind: 'kernels', read: readNsysFile },
  nsys_kern_sum: { kind: 'kernels', read: readNsysFile },
} as const satisfies Record<FormatId, FormatReader>;

const addedReaders = new Map<string, FormatReader>();

/**
 * Add a format at run time (a plug-in, or a test's toy format): resolve, read, messages and --help know it from
 * then on. Such a format is read in the main thread (workers load the built-in table only).
 */
export function registerFormat(entry: FormatEntry): () => void {
  const { reader, ...facts } = entry;
  addFacts(facts);
  addedReaders.set(facts.id, reader);
  return () => {
    removeFacts(facts.id);
    addedReaders.delete(facts.id);
  };
}

/** The reader of a format; an id no entry has is a bug of ours. */
export function readerOf(id: string): FormatReader {
  const r = (READERS as Record<string, FormatReader>)[id] ?? addedReaders.get(id);
  if (r === undefined) throw new Error(`no reader for format id ${JSON.stringify(id)}`);
  return r;
}

/** Can the reader of this format read here (false: every file of it fails alike, e.g. a db without an SQLite library)? */
export function readerUsable(id: string): boolean {
  const r = readerOf(id);
  return r.kind !== 'kernels' || r.usable === undefined || r.usable();
}

/** Can a worker thread read this format (one of the built-in table)? */
export function readInWorker(id: string): boolean {
  return FORMATS.some((f) => f.id === id) && readerOf(id).kind === 'kernels';
}

/** The step-time files the readers declare, as --help names them: `step_trace_time.csv`. */
export function stepTimeFiles(): string {
  const names = [...Object.values(READERS), ...addedReaders.values()].flatMap((r: FormatReader) =>
    r.kind === 'kernels' && r.stepTime !== undefined ? [r.stepTime.name] : [],
  );
  return [...new Set(names)].join(' / ');
}

/** The step-time file a reader declares beside a file of its format (`step_trace_time.csv` beside a kernel table), or null. */
export function stepTimeBeside(format: string, path: string): string | null {
  if (!FORMATS.some((f) => f.id === format) && !addedReaders.has(format)) return null;
  const r = readerOf(format);
  return r.kind === 'kernels' && r.stepTime !== undefined ? r.stepTime.beside(path) : null;
}

/**
 * The text of one column per step of the step-time file beside a file of this format (the audit's Stage), read by
 * its reader with the CSV scanner; null when there is no such file or it has no such column.
 */
export function stepTimeColumn(format: string, path: string, name: string): Map<number, string> | null {
  const file = stepTimeBeside(format, path);
  if (file === null) return null;
  const r = readerOf(format);
  return r.kind === 'kernels' && r.stepTime !== undefined ? r.stepTime.column(file, name) : null;
}
