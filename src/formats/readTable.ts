// Read one CSV export (plain or gzip) into an accumulator. The only place that opens export files.

import { closeSync, createReadStream, fstatSync, lstatSync, openSync, readlinkSync, readSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { Accumulator } from '../aggregate.js';
import { CsvScanner, type RowBatcher, type RowView, type ScanOptions } from '../csv/scan.js';
import { inputError, isKprofError, type KprofError } from '../errors.js';
import type { SourceFile } from '../model.js';
import { detectHeader, SYNONYMS, type DetectedHeader } from './detect.js';
import { KernelTableReader, type DeviceSplit } from './kernelTable.js';
import { OpStatisticReader } from './opStatistic.js';

export interface ReadTableOptions {
  /** Read Input Shapes into the group key. */
  withShapes: boolean;
  /** Parse start times for the time span (inspect). */
  withSpan?: boolean;
  /** Route msprof rows to one accumulator per Device_id. */
  split?: DeviceSplit;
  /** Called with the number of (compressed) bytes read since the last call. */
  onBytes?: (n: number) => void;
  bufferSize?: number;
  /** The scanner's engine (tests compare the two; see ScanOptions). */
  engine?: ScanOptions['engine'];
}

const GZIP = [0x1f, 0x8b];
const LF = 0x0a;
/** How many bytes are sniffed to tell CSV from JSON, ZIP or binary data. */
const SNIFF_BYTES = 65536;

export type ByteKind = 'gzip' | 'zip' | 'json' | 'binary' | 'text';

/** What the first bytes say the file is. */
export function sniffBytes(head: Uint8Array): ByteKind {
  if (head[0] === GZIP[0] && head[1] === GZIP[1]) return 'gzip';
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return 'zip';
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  if (head[i] === 0x7b || head[i] === 0x5b) return 'json';
  return binaryAt(head) === null ? 'text' : 'binary';
}

/** Where the first bytes stop looking like text: the offset of a NUL byte, or of the first control byte when
 * more than 5% are control bytes; null for text. */
function binaryAt(head: Uint8Array): { offset: number; what: string } | null {
  const n = Math.min(head.length, SNIFF_BYTES);
  let bad = 0;
  let first = -1;
  for (let k = 0; k < n; k++) {
    const c = head[k]!;
    if (c === 0) return { offset: k, what: 'a NUL byte' };
    if (c < 9 || (c > 13 && c < 32)) {
      bad++;
      if (first < 0) first = k;
    }
  }
  if (n > 0 && bad / n > 0.05) return { offset: first, what: `${bad} control bytes in the first ${n}` };
  return null;
}

/** The error for a file whose first bytes say it is not CSV text, or null. */
function notCsv(path: string, kind: ByteKind, head: Uint8Array, inGzip: boolean): KprofError | null {
  const it = inGzip ? 'the file inside this gzip' : 'the file';
  switch (kind) {
    case 'gzip':
      return inGzip ? inputError(`${path}: a gzip inside a gzip; expected one gzip holding a CSV export. Unpack it once (gunzip) and pass the result.`) : null;
    case 'zip':
      return inputError(
        `${path}: ${it} is a ZIP archive or an XLSX workbook, not a CSV export. ` +
          `Save the sheet as CSV (or unzip the archive), or pass the profiler's own kernel_details.csv.`,
      );
    case 'json':
      return inputError(
        `${path}: ${it} is JSON, not a CSV export (trace_view.json and msprof_*.json timelines are not read). ` +
          `Pass kernel_details.csv, op_summary_*.csv, op_statistic*.csv, a kprof summary JSON (*.json), or the profile folder.`,
      );
    case 'binary': {
      const at = binaryAt(head);
      return inputError(
        `${path}: ${it} holds binary data, not CSV text (found ${at?.what ?? 'control bytes'} at byte ${at?.offset ?? 0}). ` +
          `Expected a CSV export with a header row; is the file damaged? Copy it again or export the profile again.`,
      );
    }
    case 'text':
      return null;
  }
}

/**
 * Read one export file into `acc`. Returns what was found. Throws an input error for an unusable file
 * (unreadable, empty, binary, not a kernel export).
 */
export async function readTable(path: string, acc: Accumulator, options: ReadTableOptions): Promise<SourceFile> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw fsError(path, e);
  }
  let size = 0;
  let scanner: CsvScanner | null = null;
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw fsError(path, Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
    size = st.size;
    const head = Buffer.alloc(Math.min(size, SNIFF_BYTES));
    readFully(fd, head);
    const kind = sniffBytes(head);
    if (size === 0) {
      throw inputError(
        `${path}: the file is empty (0 bytes); expected a CSV export that starts with a header row. ` +
          `Was the profiler stopped before it wrote its output? Export the profile again.`,
      );
    }
    const bad = notCsv(path, kind, head, false);
    if (bad) throw bad;

    const state = new TableState(path, acc, options.withShapes, options.withSpan === true, options.split ?? null);
    scanner = new CsvScanner((row) => state.row(row), { bufferSize: options.bufferSize, engine: options.engine });
    state.batcher = scanner;
    if (kind === 'gzip') {
      closeSync(fd);
      fd = -1;
      await readGzip(path, scanner, state, options.onBytes);
    } else {
      let last = -1;
      for (;;) {
        const sp = scanner.space();
        const n = readSync(fd, sp.buf, sp.offset, sp.length, null);
        if (n === 0) break;
        last = sp.buf[sp.offset + n - 1]!;
        options.onBytes?.(n);
        scanner.commit(n);
      }
      scanner.finish();
      state.finish(last);
    }
    if (!state.detected) {
      throw inputError(
        `${path}: no header row; the file holds only ${kind === 'gzip' ? 'an empty CSV once unpacked' : 'blank lines'}. ` +
          `Expected a CSV export that starts with a header row; export the profile again.`,
      );
    }
    const d = state.detected;
    if (state.rows === 0) {
      acc.warn(path, 1, 'header only: the file has no data rows');
    }
    return {
      path,
      format: d.format,
      traits: d.traits,
      columns: d.header,
      missing: d.missing,
      bytes: size,
      rowsRead: state.rows,
      rowsSkipped: acc.rowsSkipped - state.skippedBefore,
    };
  } catch (e) {
    // An I/O error while reading (EISDIR, EIO …) is a property of the input, not a crash.
    if (!isKprofError(e) && isSystemError(e)) throw fsError(path, e);
    throw e;
  } finally {
    scanner?.close();
    if (fd >= 0) closeSync(fd);
  }
}

function readFully(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) {
    const n = readSync(fd, buf, off, buf.length - off, off);
    if (n === 0) break;
    off += n;
  }
}

/** Names a header cell of another export can have in the duration column (files joined together). */
const DURATION_NAMES: ReadonlySet<string> = new Set(SYNONYMS.duration);

/**
 * Routes rows to the reader of the format the header names. Rows with fewer cells than the header are
 * handled here, one row late, so that the last row of a file cut short can be said to be cut short.
 */
class TableState {
  detected: DetectedHeader | null = null;
  private reader: KernelTableReader | OpStatisticReader | null = null;
  private width = 0;
  /** A short row waiting to be reported: its line and number of cells. */
  private shortLine = 0;
  private shortCells = 0;
  rows = 0;
  readonly skippedBefore: number;
  /** The scanner, to be asked for batches of plain kernel rows. */
  batcher: RowBatcher | null = null;

  constructor(
    private readonly path: string,
    private readonly acc: Accumulator,
    private readonly withShapes: boolean,
    private readonly withSpan: boolean,
    private readonly split: DeviceSplit | null,
  ) {
    this.skippedBefore = acc.rowsSkipped;
  }

  row(v: RowView): void {
    if (this.reader) {
      this.rows++;
      if (this.shortLine > 0) this.flushShort(false);
      if (v.n !== this.width && v.problem === 'none') {
        if (this.isOtherHeader(v)) {
          this.acc.rowsRead++;
          this.acc.skip(
            this.path,
            v.line,
            `a different header (${v.n} columns) starts here: files of two exports joined together? Row skipped; ` +
              `the rows below it are read only where they match the first header (${this.width} columns)`,
          );
          return;
        }
        if (v.n < this.width) {
          this.acc.rowsRead++;
          this.shortLine = v.line;
          this.shortCells = v.n;
          return;
        }
      }
      this.reader.row(v);
      return;
    }
    if (v.problem === 'unclosed-quote') {
      throw inputError(
        `${this.path}:${v.line}: the header row has a quote that is never closed; expected a header such as ` +
          `"Step Id,Name,Type,…,Duration(us),…". Is the file damaged? Export it again.`,
      );
    }
    const d = detectHeader(this.path, v.cells());
    this.detected = d;
    this.width = d.header.length;
    const f = this.acc.fields;
    if (d.format === 'op_statistic') {
      f.name = false;
      f.shapes = false;
      f.steps = false;
      this.reader = new OpStatisticReader(d, this.path, this.acc);
    } else {
      if (d.columns.core < 0) f.core = false;
      if (d.columns.step < 0) f.steps = false;
      if (!this.withShapes || d.columns.shapes < 0) f.shapes = false;
      const reader = new KernelTableReader(d, this.path, this.acc, this.withShapes && d.columns.shapes >= 0, this.withSpan, this.split);
      this.reader = reader;
      const spec = reader.batchSpec();
      if (spec !== null && this.batcher !== null) {
        const batched = this.batcher.batch(spec, (ids, steps, ticks, n) => {
          // As row() does for each row: a short row held back is reported before the rows after it.
          this.rows += n;
          if (this.shortLine > 0) this.flushShort(false);
          reader.addBatch(ids, steps, ticks, n);
        });
        if (batched) reader.useBatches(this.batcher);
      }
    }
  }

  /** The input has ended; `lastByte` is its last byte (-1 when empty). */
  finish(lastByte: number): void {
    if (this.shortLine > 0) this.flushShort(lastByte !== LF);
  }

  private flushShort(cutAtEnd: boolean): void {
    const message = cutAtEnd
      ? `the file ends in the middle of this row (${this.shortCells} of ${this.width} cells): it was cut short, e.g. by a profiler stopped while writing or a partial copy; row skipped`
      : `row has ${this.shortCells} cells, the header has ${this.width}; row skipped`;
    this.acc.skip(this.path, this.shortLine, message);
    this.shortLine = 0;
  }

  /** A row with a duration-column name among its located cells is the header of another export. */
  private isOtherHeader(v: RowView): boolean {
    const located = Math.min(v.n, v.located);
    for (let i = 0; i < located; i++) if (DURATION_NAMES.has(v.text(i).trim())) return true;
    return false;
  }
}

async function readGzip(path: string, scanner: CsvScanner, state: TableState, onBytes?: (n: number) => void): Promise<void> {
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  file.on('data', (chunk) => onBytes?.(chunk.length));
  const gunzip = createGunzip({ chunkSize: 1 << 20 });
  let first = true;
  let last = -1;
  try {
    for await (const chunk of file.pipe(gunzip)) {
      const buf = chunk as Buffer;
      if (first && buf.length > 0) {
        first = false;
        const bad = notCsv(path, sniffBytes(buf.subarray(0, SNIFF_BYTES)), buf.subarray(0, SNIFF_BYTES), true);
        if (bad) throw bad;
      }
      if (buf.length > 0) last = buf[buf.length - 1]!;
      scanner.write(buf);
    }
  } catch (e) {
    file.destroy();
    if (e instanceof Error && 'code' in e && typeof e.code === 'string' && e.code.startsWith('Z_')) {
      throw inputError(
        `${path}: the gzip data is damaged or cut short (${e.message}) after ${scanner.bytesIn} unpacked bytes; ` +
          `expected a complete gzip file. Copy the file again or export the profile again.`,
      );
    }
    throw e;
  }
  scanner.finish();
  state.finish(last);
}

function isSystemError(e: unknown): e is Error & { code: string } {
  return e instanceof Error && 'code' in e && typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code);
}

/** A path that does not exist; a dangling symbolic link is named as one. */
export function missingPathError(path: string): KprofError {
  try {
    if (lstatSync(path).isSymbolicLink()) {
      return inputError(
        `${path}: a symbolic link to ${readlinkSync(path)}, which does not exist. ` +
          `Fix the link, or pass the file or folder it should point to.`,
      );
    }
  } catch {
    /* not there at all */
  }
  return inputError(`${path}: no such file or folder. Check the path.`);
}

/** A file-system error as a message for the user. */
export function fsError(path: string, e: unknown): KprofError {
  const code = e instanceof Error && 'code' in e ? String(e.code) : '';
  if (code === 'ENOENT') return missingPathError(path);
  if (code === 'EACCES' || code === 'EPERM') {
    return inputError(`${path}: permission denied. Make it readable (chmod +r) or run as a user who can read it.`);
  }
  if (code === 'EISDIR') {
    return inputError(`${path}: is a folder, expected a file. Pass the export file itself, or the profile folder that holds it.`);
  }
  if (code === 'ENOTDIR') {
    return inputError(`${path}: a part of this path is a file, not a folder. Check the path.`);
  }
  return inputError(`${path}: cannot be read (${code || (e instanceof Error ? e.message : String(e))}). Check the file and its disk.`);
}
