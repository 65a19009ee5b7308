// torch_npu's step_trace_time.csv (FORMATS.md §6): per step, where its time went on the device (Computing,
// Communication(Not Overlapped), Overlapped, Communication, Free, Stage, Bubble, … in µs). It holds no kernels, so
// it is no format of its own (detect.ts refuses it as a kernel table): with --step-time it is read as a companion
// of the kernel_details.csv beside it, into the rank's step time. A few hundred bytes per step, read whole.
//
// Its records are the CSV scanner's (input/csv/scan.ts), the one CSV parser of kprof.
//
// Header variants: 2023 `Step,Computing,…`; Jan 2025 adds `,Preparing`; Nov 2025 prepends `Device_id,`. Every
// column but Step, Device_id (and a cluster roll-up's Type, Index) is a time column, kept in file order.

import { basename, dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import { MAX_EXACT_TEXT, MAX_STEP_TRACE_US, type StepTrace } from '../../../model/model.js';
import { onDisk } from '../../../util/files.js';
import { readSmall } from '../../bytes/whole.js';
import { excerpt, inQuotes } from '../../../util/inputText.js';
import { noteInput } from '../../../util/io.js';
import type { RowLog } from '../../sink.js';
import { CsvScanner } from '../../csv/scan.js';

export const STEP_TRACE_FILE = 'step_trace_time.csv';

/** The largest step_trace_time.csv read (a line per step: millions of steps). */
export const MAX_STEP_TRACE_BYTES = 64 << 20;

/** The most time columns kept (real files have 8 to 9). */
const MAX_COLUMNS = 32;

const NOT_TIME = new Set(['Step', 'Device_id', 'Type', 'Index']);

/** A plain decimal number as profilers write µs (`8827.472999999998`, `0`, `1e3`). */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The step_trace_time.csv beside a kernel table in an ASCEND_PROFILER_OUTPUT folder, or null. */
export function stepTraceBeside(kernelTable: string): string | null {
  if (!/^kernel_details\.csv(\.gz)?$/.test(basename(kernelTable))) return null;
  const p = join(dirname(kernelTable), STEP_TRACE_FILE);
  return existsSync(onDisk(p)) ? p : null;
}

/** The records of a small CSV file, each its cells and the line it starts on (the CSV scanner's: input/csv/). */
function records(bytes: Buffer): { cells: string[]; line: number }[] {
  const out: { cells: string[]; line: number }[] = [];
  const scanner = new CsvScanner((row) => out.push({ cells: row.cells(), line: row.line }), { maxRecordBytes: MAX_STEP_TRACE_BYTES });
  scanner.write(bytes);
  scanner.finish();
  scanner.close();
  return out;
}

/** The time columns of a header (every column but Step, Device_id, Type, Index), at most MAX_COLUMNS. */
function timeColumns(header: string[]): number[] {
  const timeAt: number[] = [];
  for (let i = 0; i < header.length && timeAt.length < MAX_COLUMNS; i++) if (!NOT_TIME.has(header[i]!) && header[i] !== '') timeAt.push(i);
  return timeAt;
}

/**
 * A time cell as a number of µs: null when empty (the profiler gave no time), or when it is Stage's and holds a
 * word (some exports write the step's phase there: the audit reads it); else a number of 0 µs or more, or why not.
 */
function timeCell(column: string, text: string): number | null | { why: string } {
  const t = text.trim();
  if (t === '') return null;
  if (column === 'Stage' && /^[A-Za-z][A-Za-z _-]*$/.test(t)) return null;
  const v = NUMBER.test(t) ? Number(t) : Number.NaN;
  if (!Number.isFinite(v)) return { why: `${column} is ${inQuotes(excerpt(t))}, expected a number of µs` };
  if (v < 0) return { why: `${column} is negative (${excerpt(t)})` };
  // Past the longest time kprof takes of a kernel (1e308 µs was read, and printed as a number of 309 digits).
  if (v >= MAX_STEP_TRACE_US) return { why: `${column} is ${excerpt(t)}, more than kprof takes of a time (${MAX_EXACT_TEXT})` };
  return v;
}

/**
 * Read a step_trace_time.csv. A file that is not one (no Step column) is said in a warning and gives null; a row
 * that cannot be read (a Step that is not a step number, a step twice, a wrong number of cells, a time that is not
 * a number of µs or is negative) is warned of, counted and left out. An empty time cell is null.
 */
export function readStepTrace(path: string, log: RowLog): StepTrace | null {
  noteInput(path);
  const recs = records(readSmall(path, MAX_STEP_TRACE_BYTES, 'a step_trace_time.csv'));
  const header = (recs[0]?.cells ?? ['']).map((c) => c.trim());
  const stepAt = header.indexOf('Step');
  if (stepAt < 0) {
    log.warn(path, 1, `no "Step" column (found ${excerpt(header.slice(0, 6).join(', '))}); expected a step_trace_time.csv header, file not read`);
    return null;
  }
  const timeAt = timeColumns(header);
  const columns = timeAt.map((i) => header[i]!);
  const rows: StepTrace['rows'] = [];
  let skipped = 0;
  const skip = (line: number, message: string): void => {
    skipped++;
    log.warn(path, line, `${message}; step_trace row skipped`);
  };
  for (const { step, values } of stepRows(recs, header, stepAt, timeAt, skip)) rows.push({ step, values });
  rows.sort((a, b) => a.step - b.step);
  return { file: path, columns, rows, rowsSkipped: skipped };
}

/**
 * The text of one column per Step of a step_trace_time.csv (the audit asks for Stage, which some exports fill with
 * a phase word), read with the CSV scanner as readStepTrace reads the file: quoted cells, CRLF and a BOM as in every
 * CSV. null when the file has no Step column or no such column; a row readStepTrace would skip for its shape or
 * its Step (a wrong number of cells, a Step that is not a step number, a step twice) is left out here, quietly (a
 * --step-time read warns); its time cells are not looked at (a damaged Computing says nothing of the Stage).
 */
export function readStepColumn(path: string, column: string): Map<number, string> | null {
  noteInput(path);
  const recs = records(readSmall(path, MAX_STEP_TRACE_BYTES, 'a step_trace_time.csv'));
  const header = (recs[0]?.cells ?? ['']).map((c) => c.trim());
  const stepAt = header.indexOf('Step');
  const at = header.indexOf(column);
  if (stepAt < 0 || at < 0) return null;
  const out = new Map<number, string>();
  for (const { step, cells } of stepRows(recs, header, stepAt, [], () => {})) out.set(step, cells[at]!);
  return out;
}

/**
 * The rows of a step_trace_time.csv (records after the header) that can be read, with their Step and the values of
 * the time columns `timeAt`; the others go to `skip` with why: a wrong number of cells, a Step that is not a step
 * number (a whole number, 0 or more, as a kernel table's Step Id), a time that is not a number of µs or is
 * negative (timeCell), a step already read (its first row is kept). Empty lines are passed over.
 */
function* stepRows(
  recs: { cells: string[]; line: number }[],
  header: string[],
  stepAt: number,
  timeAt: number[],
  skip: (line: number, message: string) => void,
): Generator<{ step: number; cells: string[]; values: (number | null)[] }> {
  const seen = new Set<number>();
  const width = header.length;
  rows: for (const { cells: c, line } of recs.slice(1)) {
    if (c.length === 1 && c[0]!.trim() === '') continue;
    if (c.length !== width) {
      skip(line, `row has ${c.length} cells, the header has ${width}`);
      continue;
    }
    const stepText = c[stepAt]!.trim();
    const read = /^-?\d+$/.test(stepText) ? Number(stepText) : Number.NaN;
    if (!Number.isSafeInteger(read)) {
      skip(line, `Step is ${inQuotes(excerpt(stepText))}, expected a whole number`);
      continue;
    }
    if (read < 0) {
      skip(line, `Step is ${read}, expected a step number (0 or more)`);
      continue;
    }
    const step = read + 0; // -0 is step 0
    const values: (number | null)[] = [];
    for (const i of timeAt) {
      const v = timeCell(header[i]!, c[i]!);
      if (v !== null && typeof v === 'object') {
        skip(line, v.why);
        continue rows;
      }
      values.push(v);
    }
    if (seen.has(step)) {
      skip(line, `step ${step} is in the file twice`);
      continue;
    }
    seen.add(step);
    yield { step, cells: c, values };
  }
}
