// Read one CSV export (plain or gzip) into an accumulator. The only place that opens export files.

import { closeSync, fstatSync, openSync, readSync, createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { Accumulator } from '../aggregate.js';
import { CsvScanner, type RowView } from '../csv/scan.js';
import { inputError } from '../errors.js';
import type { SourceFile } from '../model.js';
import { detectHeader, type DetectedHeader } from './detect.js';
import { KernelTableReader } from './kernelTable.js';
import { OpStatisticReader } from './opStatistic.js';

export interface ReadTableOptions {
  /** Read Input Shapes into the group key. */
  withShapes: boolean;
  /** Called with the number of (compressed) bytes read since the last call. */
  onBytes?: (n: number) => void;
  bufferSize?: number;
}

const GZIP = [0x1f, 0x8b];

/** What the first bytes say the file is. */
export function sniffBytes(head: Uint8Array): 'gzip' | 'zip' | 'json' | 'binary' | 'text' {
  if (head[0] === GZIP[0] && head[1] === GZIP[1]) return 'gzip';
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return 'zip';
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  if (head[i] === 0x7b || head[i] === 0x5b) return 'json';
  const n = Math.min(head.length, 65536);
  let bad = 0;
  for (let k = 0; k < n; k++) {
    const c = head[k]!;
    if (c === 0) return 'binary';
    if (c < 9 || (c > 13 && c < 32)) bad++;
  }
  if (n > 0 && bad / n > 0.05) return 'binary';
  return 'text';
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
  try {
    size = fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(size, 65536));
    readSync(fd, head, 0, head.length, 0);
    const kind = sniffBytes(head);
    if (size === 0) throw inputError(`${path}: the file is empty (0 bytes). Expected a CSV export with a header row; was the profiler stopped before it wrote its output?`);
    if (kind === 'zip') throw inputError(`${path}: this is a ZIP/XLSX workbook, not CSV. Export the sheet as CSV, or pass the profiler's own kernel_details.csv.`);
    if (kind === 'json') throw inputError(`${path}: this is JSON, not a CSV export (trace_view.json and msprof_*.json timelines are not read). Pass kernel_details.csv, op_summary_*.csv, op_statistic*.csv, a kprof summary JSON, or the profile folder.`);
    if (kind === 'binary') throw inputError(`${path}: binary data, not a CSV export (found NUL or control bytes in the first ${head.length} bytes). Is the file damaged?`);

    const state = new TableState(path, acc, options.withShapes);
    const scanner = new CsvScanner((row) => state.row(row), { bufferSize: options.bufferSize });
    if (kind === 'gzip') {
      closeSync(fd);
      fd = -1;
      await readGzip(path, scanner, options.onBytes);
    } else {
      for (;;) {
        const sp = scanner.space();
        const n = readSync(fd, sp.buf, sp.offset, sp.length, null);
        if (n === 0) break;
        options.onBytes?.(n);
        scanner.commit(n);
      }
      scanner.finish();
    }
    if (!state.detected) {
      throw inputError(`${path}: no header row (the file holds only blank lines). Expected a CSV export with a header row.`);
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
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

class TableState {
  detected: DetectedHeader | null = null;
  private reader: KernelTableReader | OpStatisticReader | null = null;
  rows = 0;
  readonly skippedBefore: number;

  constructor(
    private readonly path: string,
    private readonly acc: Accumulator,
    private readonly withShapes: boolean,
  ) {
    this.skippedBefore = acc.rowsSkipped;
  }

  row(v: RowView): void {
    if (this.reader) {
      this.rows++;
      this.reader.row(v);
      return;
    }
    const d = detectHeader(this.path, v.cells());
    this.detected = d;
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
      this.reader = new KernelTableReader(d, this.path, this.acc, this.withShapes && d.columns.shapes >= 0);
    }
  }
}

async function readGzip(path: string, scanner: CsvScanner, onBytes?: (n: number) => void): Promise<void> {
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  file.on('data', (chunk) => onBytes?.(chunk.length));
  const gunzip = createGunzip({ chunkSize: 1 << 20 });
  try {
    for await (const chunk of file.pipe(gunzip)) scanner.write(chunk as Buffer);
  } catch (e) {
    if (e instanceof Error && 'code' in e && typeof e.code === 'string' && e.code.startsWith('Z_')) {
      throw inputError(`${path}: the gzip data is damaged or cut short (${e.message}); ${scanner.bytesIn} bytes were unpacked before the damage. Copy the file again or re-export it.`);
    }
    throw e;
  }
  scanner.finish();
}

export function fsError(path: string, e: unknown): Error {
  const code = e instanceof Error && 'code' in e ? String(e.code) : '';
  if (code === 'ENOENT') return inputError(`${path}: no such file or folder. Check the path.`);
  if (code === 'EACCES' || code === 'EPERM') return inputError(`${path}: permission denied. Make the file readable (chmod +r) or run as a user who can read it.`);
  if (code === 'EISDIR') return inputError(`${path}: is a folder where a file was expected.`);
  return inputError(`${path}: cannot be read (${code || (e instanceof Error ? e.message : String(e))}).`);
}
