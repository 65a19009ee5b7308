// Read one CSV export (plain or gzip): its kernels into a KernelSink, its rows' problems into a RowLog. A plain
// file is read straight into the scanner's buffer; a gzip one is unpacked by the byte layer (bytes/chunks.ts).
//
// Over 400 lines: one file's read: the checks of its bytes (not CSV, gzip in gzip, CR-only, NUL, not UTF-8), the
// header and the rows to the kernel-table or op_statistic reader, each message naming what was found.

import { closeSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { CsvScanner, DEFAULT_MAX_RECORD, utf8SequenceLength, type RowView, type ScanOptions } from '../../csv/scan.js';
import { KernelRowBatcher } from './kernelBatch.js';
import { inputError, isKprofError, type KprofError } from '../../../util/errors.js';
import { excerpt, inQuotes } from '../../../util/inputText.js';
import type { SourceFile } from '../../../model/model.js';
import { besides, type KernelSink, type RankTarget, type RowLog } from '../../sink.js';
import { fsError, isSystemError, textEncoding } from '../../../util/files.js';
import { lineAt, openWithHead, readInto } from '../../bytes/open.js';
import { countLf } from '../../../util/bytes.js';
import { binaryAt, sniffBytes, SNIFF_BYTES, type ByteKind } from '../../bytes/sniff.js';
import { gunzipChunks } from '../../bytes/chunks.js';
import { detectHeader, SYNONYMS, type DetectedHeader } from './detect.js';
import { chromeTraceNames, formatOf, passAnyFormat, sourceFacts } from '../registry.js';
import { KernelTableReader, type DeviceSplit } from './kernelTable.js';
import { OpStatisticReader } from './opStatistic.js';

export interface ReadTableOptions {
  /** Read Input Shapes into the group key. */
  withShapes: boolean;
  /** Sinks fed the same kernels beside the rank's own (`into`); they see no row problems. */
  beside?: readonly KernelSink[];
  /** Route msprof rows to a target per Device_id. */
  split?: DeviceSplit;
  /** Called with the number of (compressed) bytes read since the last call. */
  onBytes?: (n: number) => void;
  bufferSize?: number;
  /** The scanner's engine (tests compare the two; see ScanOptions). */
  engine?: ScanOptions['engine'];
}

const LF = 0x0a;
const CR = 0x0d;

/** The error for a file whose first bytes say it is not CSV text, or null. */
function notCsv(path: string, kind: ByteKind, head: Uint8Array, inGzip: boolean): KprofError | null {
  const it = inGzip ? 'the file inside this gzip' : 'the file';
  switch (kind) {
    case 'gzip':
      return inGzip
        ? inputError(`${path}: a gzip inside a gzip; expected one gzip holding a CSV export. Unpack it once (gunzip) and pass the result.`)
        : null;
    case 'zip':
      return inputError(
        `${path}: ${it} is a ZIP archive or an XLSX workbook, not a CSV export. ` +
          `Save the sheet as CSV (or unzip the archive), or pass the profiler's own kernel_details.csv.`,
      );
    case 'json':
      return inputError(
        `${path}: ${it} is JSON, not a CSV export (a trace is read as one when its name says JSON: ${chromeTraceNames()}). ` +
          `Pass ${passAnyFormat()}, or the profile folder.`,
      );
    case 'binary': {
      const encoding = textEncoding(head);
      if (encoding !== null) {
        return inputError(
          `${path}: ${it} is ${encoding} text, not UTF-8 (a spreadsheet's "Unicode text" export?); expected a CSV export in UTF-8. ` +
            `Convert it: iconv -f ${encoding} -t UTF-8 FILE > NEW.csv, and pass the new file.`,
        );
      }
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
 * Read one export file into `into` (the rank's record: the sink of its kernels and the log of its rows). Returns
 * what was found. Throws an input error for an unusable file (unreadable, empty, binary, not a kernel export).
 */
export async function readTable(path: string, into: KernelSink & RowLog, options: ReadTableOptions): Promise<SourceFile> {
  const acc = into;
  // The byte layer opens the file and reads the head its sniff is given (a FIFO or a device is refused there).
  let { fd, size, head } = openWithHead(path, SNIFF_BYTES);
  let scanner: CsvScanner | null = null;
  try {
    const kind = sniffBytes(head);
    if (size === 0) {
      throw inputError(
        `${path}: the file is empty (0 bytes); expected a CSV export that starts with a header row. ` +
          `Was the profiler stopped before it wrote its output? Export the profile again.`,
      );
    }
    const bad = notCsv(path, kind, head, false) ?? crOnly(path, kind, head, size, false);
    if (bad) throw bad;
    const audit = new ByteAudit(kind === 'gzip');

    const target: RankTarget = { sink: besides(into, options.beside), log: into };
    const state = new TableState(path, target, options.withShapes, options.split ?? null);
    scanner = new CsvScanner((row) => state.row(row), { bufferSize: options.bufferSize, engine: options.engine });
    state.scanner = scanner;
    if (kind === 'gzip') {
      const gzFd = fd;
      fd = -1;
      await readGzip(path, gzFd, scanner, state, audit, options.onBytes);
      audit.report(path, acc, null);
    } else {
      // Straight into the scanner's buffer (the byte layer reads, the scanner owns the memory).
      const last = readInto(fd, scanner, (buf, start, end) => {
        options.onBytes?.(end - start);
        audit.chunk(buf, start, end);
      });
      scanner.finish();
      state.finish(last);
      audit.report(path, acc, (offset) => lineAt(fd, offset));
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

/**
 * Lines that end with CR alone (classic Mac OS, some spreadsheet exports): the whole file would be one line.
 * Said rather than read, since such a file has been through a tool that may have changed more.
 */
function crOnly(path: string, kind: ByteKind, head: Uint8Array, size: number, inGzip: boolean): KprofError | null {
  if (kind !== 'text' || head.includes(LF) || !head.includes(CR)) return null;
  // A first line longer than the sniffed bytes may still end with LF further on.
  if (size > head.length) return null;
  return inputError(
    `${path}: ${inGzip ? 'the file inside this gzip has' : 'the file has'} lines that end with CR alone (old Mac OS line endings), no LF; ` +
      "expected a CSV export with LF or CRLF line endings. Convert it: tr '\\r' '\\n' < FILE > NEW.csv, and pass the new file.",
  );
}

/**
 * Checks of the bytes of a whole file that cost nothing per row: once per chunk, a search for a NUL byte
 * (memchr) and a UTF-8 validation (Node's native one). Each finding is one warning with the line of its first
 * byte, counted only when there is one (a plain file is read again up to that byte; a gzip's lines are counted
 * as it streams, which costs little beside unpacking it).
 */
class ByteAudit {
  private offset = 0;
  private lines = 1;
  private nul: { offset: number; line: number } | null = null;
  private utf8: { offset: number; line: number } | null = null;

  constructor(private readonly countLines: boolean) {}

  chunk(buf: Buffer, start: number, end: number): void {
    if (this.nul === null) {
      const j = buf.subarray(start, end).indexOf(0);
      if (j >= 0) this.nul = { offset: this.offset + j, line: this.countLines ? this.lines + countLf(buf, start, start + j) : 0 };
    }
    if (this.utf8 === null) {
      // A character split between two chunks is passed over at both ends.
      let s = start;
      while (s < end && s < start + 3 && (buf[s]! & 0xc0) === 0x80) s++;
      const e = completeEnd(buf, s, end);
      if (!isUtf8(buf.subarray(s, e))) {
        const i = firstInvalidUtf8(buf, s, e);
        this.utf8 = { offset: this.offset + i - start, line: this.countLines ? this.lines + countLf(buf, start, i) : 0 };
      }
    }
    if (this.countLines && (this.nul === null || this.utf8 === null)) this.lines += countLf(buf, start, end);
    this.offset += end - start;
  }

  /** Warn of what was found; `lineOf` gives the line of a byte offset when lines were not counted. */
  report(path: string, acc: RowLog, lineOf: ((offset: number) => number) | null): void {
    if (this.nul !== null) {
      acc.warn(
        path,
        lineOf ? lineOf(this.nul.offset) : this.nul.line,
        `NUL bytes (0x00) in the file, the first at byte ${this.nul.offset}: a damaged copy, or a file written over? ` +
          'Cells that hold them are read as they are; check the file',
      );
    }
    if (this.utf8 !== null) {
      acc.warn(
        path,
        lineOf ? lineOf(this.utf8.offset) : this.utf8.line,
        `bytes that are not UTF-8, the first at byte ${this.utf8.offset}: the file is in another encoding (GBK? Latin-1?) or damaged. ` +
          'Names with such bytes show each of them as \\xNN, so names that differ there stay apart; convert the file with iconv for readable names',
      );
    }
  }
}

/** `end`, or the start of a UTF-8 sequence cut off by it. */
function completeEnd(buf: Buffer, start: number, end: number): number {
  for (let k = 1; k <= 3 && end - k >= start; k++) {
    const c = buf[end - k]!;
    if ((c & 0xc0) === 0x80) continue;
    const len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return len > k ? end - k : end;
  }
  return end;
}

/** The offset of the first byte of [start, end) that is not part of a valid UTF-8 sequence. */
export function firstInvalidUtf8(buf: Uint8Array, start: number, end: number): number {
  let i = start;
  while (i < end) {
    const len = utf8SequenceLength(buf, i, end);
    if (len === 0) return i;
    i += len;
  }
  return end;
}

/** A warning for header cells that name the same column twice (the first of them is read), or null. */
export function duplicateColumns(header: string[]): string | null {
  const first = new Map<string, number>();
  const twice: string[] = [];
  header.forEach((cell, i) => {
    const name = cell.trim();
    if (name === '') return;
    const at = first.get(name);
    if (at === undefined) first.set(name, i);
    else twice.push(`${inQuotes(excerpt(name))} (columns ${at + 1} and ${i + 1})`);
  });
  if (twice.length === 0) return null;
  const shown = twice.slice(0, 3).join(', ') + (twice.length > 3 ? ` and ${twice.length - 3} more` : '');
  return `the header names a column twice: ${shown}; the first of each is read. Two exports pasted side by side?`;
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
  /** The log the short row is counted on (KernelTableReader.damagedLog). */
  private shortLog: RowLog;
  rows = 0;
  readonly skippedBefore: number;
  /** The scanner, to plug a batcher of plain kernel rows into. */
  scanner: CsvScanner | null = null;

  private readonly acc: RowLog;

  constructor(
    private readonly path: string,
    private readonly target: RankTarget,
    private readonly withShapes: boolean,
    private readonly split: DeviceSplit | null,
  ) {
    this.acc = target.log;
    this.shortLog = target.log;
    this.skippedBefore = target.log.rowsSkipped;
  }

  row(v: RowView): void {
    if (this.reader) {
      this.rows++;
      if (this.shortLine > 0) this.flushShort(false);
      if (v.n !== this.width && v.problem === 'none') {
        // A damaged row is counted on its own device's rank where its Device_id can be read, else on no rank
        // (KernelTableReader.damagedLog), never on the rank of the row before it.
        const log = this.reader.damagedLog(v);
        if (this.isOtherHeader(v)) {
          log.rowsRead++;
          log.skip(
            this.path,
            v.line,
            `a different header (${v.n} columns) starts here: files of two exports joined together? Row skipped; ` +
              `the rows below it are read only where they match the first header (${this.width} columns)`,
          );
          return;
        }
        if (v.n < this.width) {
          log.rowsRead++;
          this.shortLog = log;
          this.shortLine = v.line;
          this.shortCells = v.n;
          return;
        }
      }
      this.reader.row(v);
      return;
    }
    if (v.problem === 'too-long') {
      throw inputError(
        `${this.path}:${v.line}: the first line is longer than ${DEFAULT_MAX_RECORD >> 20} MiB; expected a CSV export's header row. Is it a CSV file?`,
      );
    }
    if (v.problem === 'unclosed-quote') {
      throw inputError(
        `${this.path}:${v.line}: the header row has a quote that is never closed; expected a header such as ` +
          `"Step Id,Name,Type,…,Duration(us),…". Is the file damaged? Export it again.`,
      );
    }
    const d = detectHeader(this.path, v.cells());
    this.detected = d;
    const twice = duplicateColumns(d.header);
    if (twice !== null) this.acc.warn(this.path, v.line, twice);
    this.width = d.header.length;
    const sink = this.target.sink;
    const answers = formatOf(d.format).answers;
    if (d.format === 'op_statistic') {
      sink.begin(sourceFacts(this.path, answers, {}, false));
      this.reader = new OpStatisticReader(d, this.path, this.target);
    } else {
      const c = d.columns;
      const facts = sourceFacts(
        this.path,
        answers,
        { core: c.core >= 0, shapes: c.shapes >= 0, steps: c.step >= 0, starts: c.start >= 0, streams: c.stream >= 0 },
        this.withShapes,
      );
      sink.begin(facts);
      const reader = new KernelTableReader(d, this.path, this.target, facts, this.split);
      this.reader = reader;
      const spec = reader.batchSpec();
      if (spec !== null && this.scanner !== null) {
        const batcher = KernelRowBatcher.plug(this.scanner, spec, (batch) => {
          // As row() does for each row: a short row held back is reported before the rows after it.
          this.rows += batch.n;
          if (this.shortLine > 0) this.flushShort(false);
          reader.addBatch(batch);
        });
        if (batcher !== null) reader.useBatches(batcher);
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
    this.shortLog.skip(this.path, this.shortLine, message);
    this.shortLine = 0;
  }

  /** A row with a duration-column name among its located cells is the header of another export. */
  private isOtherHeader(v: RowView): boolean {
    const located = Math.min(v.n, v.located);
    for (let i = 0; i < located; i++) if (DURATION_NAMES.has(v.text(i).trim())) return true;
    return false;
  }
}

/** Unpack and scan a gzip file; takes over `fd` (the regular file that was opened and checked) and closes it. */
async function readGzip(
  path: string,
  fd: number,
  scanner: CsvScanner,
  state: TableState,
  audit: ByteAudit,
  onBytes?: (n: number) => void,
): Promise<void> {
  let first = true;
  let last = -1;
  for await (const buf of gunzipChunks(path, fd, onBytes)) {
    if (first && buf.length > 0) {
      first = false;
      const head = buf.subarray(0, SNIFF_BYTES);
      const kind = sniffBytes(head);
      const bad = notCsv(path, kind, head, true) ?? crOnly(path, kind, head, head.length < SNIFF_BYTES ? head.length : Infinity, true);
      if (bad) throw bad;
    }
    if (buf.length > 0) last = buf[buf.length - 1]!;
    audit.chunk(buf, 0, buf.length);
    scanner.write(buf);
  }
  scanner.finish();
  state.finish(last);
}
