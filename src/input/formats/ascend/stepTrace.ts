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
import type { StepTrace } from '../../../model/model.js';
import { onDisk } from '../../../util/files.js';
import { readSmall } from '../../bytes/whole.js';
import { excerpt } from '../../../util/inputText.js';
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

/**
 * Read a step_trace_time.csv. A file that is not one (no Step column) is said in a warning and gives null; a row
 * that cannot be read (a Step that is not a whole number, a step twice, a wrong number of cells) is warned of,
 * counted and left out. A cell that is not a number is null.
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
  const timeAt: number[] = [];
  for (let i = 0; i < header.length && timeAt.length < MAX_COLUMNS; i++) if (!NOT_TIME.has(header[i]!) && header[i] !== '') timeAt.push(i);
  const columns = timeAt.map((i) => header[i]!);
  const rows: StepTrace['rows'] = [];
  let skipped = 0;
  const skip = (line: number, message: string): void => {
    skipped++;
    log.warn(path, line, `${message}; step_trace row skipped`);
  };
  for (const { step, cells: c } of stepRows(recs, header.length, stepAt, skip)) {
    const values = timeAt.map((i) => {
      const t = c[i]!.trim();
      const v = NUMBER.test(t) ? Number(t) : Number.NaN;
      return Number.isFinite(v) ? v : null;
    });
    rows.push({ step, values });
  }
  rows.sort((a, b) => a.step - b.step);
  return { file: path, columns, rows, rowsSkipped: skipped };
}

/**
 * The text of one column per Step of a step_trace_time.csv (the audit asks for Stage, which some exports fill with
 * a phase word), read with the CSV scanner as readStepTrace reads the file: quoted cells, CRLF and a BOM as in every
 * CSV. null when the file has no Step column or no such column; a row readStepTrace would skip (a wrong number of
 * cells, a Step that is not a whole number, a step twice) is left out here, quietly (a --step-time read warns).
 */
export function readStepColumn(path: string, column: string): Map<number, string> | null {
  noteInput(path);
  const recs = records(readSmall(path, MAX_STEP_TRACE_BYTES, 'a step_trace_time.csv'));
  const header = (recs[0]?.cells ?? ['']).map((c) => c.trim());
  const stepAt = header.indexOf('Step');
  const at = header.indexOf(column);
  if (stepAt < 0 || at < 0) return null;
  const out = new Map<number, string>();
  for (const { step, cells } of stepRows(recs, header.length, stepAt, () => {})) out.set(step, cells[at]!);
  return out;
}

/**
 * The rows of a step_trace_time.csv (records after the header) that can be read, with their Step; the others go to
 * `skip` with why: a wrong number of cells, a Step that is not a whole number, a step already read (its first row
 * is kept). Empty lines are passed over.
 */
function* stepRows(
  recs: { cells: string[]; line: number }[],
  width: number,
  stepAt: number,
  skip: (line: number, message: string) => void,
): Generator<{ step: number; cells: string[] }> {
  const seen = new Set<number>();
  for (const { cells: c, line } of recs.slice(1)) {
    if (c.length === 1 && c[0]!.trim() === '') continue;
    if (c.length !== width) {
      skip(line, `row has ${c.length} cells, the header has ${width}`);
      continue;
    }
    const stepText = c[stepAt]!.trim();
    const step = /^-?\d+$/.test(stepText) ? Number(stepText) : Number.NaN;
    if (!Number.isSafeInteger(step)) {
      skip(line, `Step is "${excerpt(stepText)}", expected a whole number`);
      continue;
    }
    if (seen.has(step)) {
      skip(line, `step ${step} is in the file twice`);
      continue;
    }
    seen.add(step);
    yield { step, cells: c };
  }
}
