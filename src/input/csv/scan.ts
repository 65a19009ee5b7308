// A fast, streaming, RFC 4180 CSV scanner over bytes.
//
// Why hand-written: csv-parse reads ~30 MB/s here and a decode profile of one rank is ~250 MB. This scanner
// never builds a string for a cell it is not asked for: it records where each cell starts and ends in a
// reused buffer, and the format adapter decodes only the few cells it needs. csv-parse stays in the project
// as the reference this scanner is tested against (test/csv-scan.test.ts, test/differential.test.ts).
//
// Two engines: simd.wat (WebAssembly SIMD, the default; simdEngine.ts) reads the records it can, sixteen bytes at
// a time; the JavaScript code below reads every other record (damaged ones, the end of the input). `engine: 'js'`
// (or KPROF_ENGINE=js) uses the JavaScript code alone; both give the same records, which the tests check.
//
// A format may plug in a decoder of runs of records (plug(), RecordRuns): it is offered the bytes before each
// record and reads as many records as it can in place of the scanner (the kernel-table format reads runs of plain
// kernel rows in simd.wat that way: formats/kernelBatch.ts); the scanner reads the first record it leaves.
//
// Semantics (matching csv-parse with `bom: true, skip_empty_lines: true, relax_column_count: true`):
// - cells are separated by `,`, records by LF or CRLF (both may be mixed in one file);
// - a cell that starts with `"` is quoted: it ends at the next lone `"`; `""` inside stands for `"`; commas and
//   line breaks inside are data;
// - a UTF-8 byte order mark at the start of the input is dropped;
// - an empty line is not a record.
// Malformed input (text after a closing quote, a quote never closed) is not fatal: the record is flagged so the
// caller can report it with its line number, and scanning goes on with the next line.
//
// Over 400 lines: the scanner's state machine and the hot loop that drives it are kept in one module, the hot path
// of every CSV read.

import type { Engine } from '../engine.js';
import { acquireEngine, releaseEngine, simdAvailable, type SimdEngine } from './simdEngine.js';
import { LAYOUT } from './simdLayout.js';
import { countLf } from '../../util/bytes.js';

export { simdAvailable, type SimdEngine };

const COMMA = 44;
const LF = 10;
const CR = 13;
const QUOTE = 34;

/**
 * UTF-8 text in which each byte that is not part of a valid sequence is kept as the lone surrogate U+DC00 + byte
 * (U+DC80–U+DCFF, as Python's surrogateescape does; a real U+FFFD stays one). Valid UTF-8 never decodes to a lone
 * surrogate, so the decoding is injective: names that differ in any byte stay apart, and a literal `\x85` in
 * the file is not the byte 0x85. Text output shows such a byte as `\xNN` (inputText.ts), JSON as `\udcNN`.
 */
export function decodeKeepingBytes(buf: Uint8Array, start: number, end: number): string {
  let out = '';
  let run = start;
  let i = start;
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  while (i < end) {
    const len = utf8SequenceLength(buf, i, end);
    if (len > 0) {
      i += len;
      continue;
    }
    out += b.toString('utf8', run, i) + String.fromCharCode(0xdc00 + buf[i]!);
    i++;
    run = i;
  }
  return out + b.toString('utf8', run, end);
}

/** The length of the valid UTF-8 sequence at `i` (1 to 4), or 0 when the byte there does not start one. */
export function utf8SequenceLength(buf: Uint8Array, i: number, end: number): number {
  const c = buf[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => i + k < end && buf[i + k]! >= lo && buf[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** Node's undocumented-in-types but stable fast path for latin1 decoding (Buffer#toString calls it). */
type LatinBuffer = Buffer & { latin1Slice(start: number, end: number): string };

/** Flags per cell. */
export const CELL_QUOTED = 1;
export const CELL_ESCAPED = 2;

/** What is wrong with a record, when something is. */
export type RowProblem = 'none' | 'text-after-quote' | 'unclosed-quote' | 'too-long';

/** The warning for a row that has a problem (the readers skip it). */
export function problemMessage(problem: Exclude<RowProblem, 'none'>, maxRecordBytes = DEFAULT_MAX_RECORD): string {
  switch (problem) {
    case 'unclosed-quote':
      return 'a quote opened on this line is never closed; line skipped';
    case 'text-after-quote':
      return 'text after a closing quote; row skipped';
    case 'too-long':
      return `the row is longer than ${maxRecordBytes / (1 << 20)} MiB (no real export has a cell that long); skipped up to the next line break`;
  }
}

/** One record, valid only during the `row` callback: cells are offsets into a reused buffer. */
export class RowView {
  buf: Buffer = Buffer.alloc(0);
  /** Number of cells. */
  n = 0;
  /**
   * Cells located (0..located-1 have starts/ends/flags); the rest of the record was only counted. The consumer
   * sets `locate` during a callback to say how many cells it needs of the following records (at least 1):
   * skipping the others is most of the speed on wide tables.
   */
  located = 0;
  locate = Number.POSITIVE_INFINITY;
  starts: Int32Array = new Int32Array(64);
  ends: Int32Array = new Int32Array(64);
  flags: Uint8Array = new Uint8Array(64);
  /** 1-based line on which the record starts. */
  line = 0;
  problem: RowProblem = 'none';

  /** The cell's value, unquoted and unescaped. */
  text(i: number): string {
    if (i >= this.n) return '';
    if (i >= this.located) throw new Error(`cell ${i} was not located (locate = ${this.locate})`);
    const s = this.starts[i]!;
    const e = this.ends[i]!;
    const str = this.buf.toString('utf8', s, e);
    return (this.flags[i]! & CELL_ESCAPED) !== 0 ? str.replaceAll('""', '"') : str;
  }

  /**
   * The cell as a name to group by: text(), except that each byte that is not UTF-8 is kept as U+DC00 + byte
   * (see decodeKeepingBytes) rather than U+FFFD, so that two names that differ only in such bytes stay two groups.
   */
  key(i: number): string {
    const str = this.text(i);
    if (!str.includes('\uFFFD')) return str;
    const kept = decodeKeepingBytes(this.buf, this.starts[i]!, this.ends[i]!);
    return (this.flags[i]! & CELL_ESCAPED) !== 0 ? kept.replaceAll('""', '"') : kept;
  }

  /** Raw bytes of cells i..j (inclusive) as latin1, for use as a cheap cache key. */
  span(i: number, j: number): string {
    return (this.buf as LatinBuffer).latin1Slice(this.starts[i]!, this.ends[j]!);
  }

  /** All cells as strings (for tests and small files). */
  cells(): string[] {
    const out: string[] = new Array(this.n);
    for (let i = 0; i < this.n; i++) out[i] = this.text(i);
    return out;
  }

  grow(): void {
    const size = this.starts.length * 2;
    const s = new Int32Array(size);
    s.set(this.starts);
    const e = new Int32Array(size);
    e.set(this.ends);
    const f = new Uint8Array(size);
    f.set(this.flags);
    this.starts = s;
    this.ends = e;
    this.flags = f;
  }
}

export interface ScanOptions {
  /** Initial buffer size in bytes. */
  bufferSize?: number;
  /**
   * The buffer grows up to this size and no further: a record longer than this is reported (problem
   * 'too-long', or 'unclosed-quote' when a quote is open) and skipped up to a line break, so that a damaged
   * or hostile file cannot take memory without bound.
   */
  maxRecordBytes?: number;
  /**
   * 'simd' (the default where WebAssembly SIMD runs) scans common records in simd.wat and leaves the rest to
   * the JavaScript scanner; 'js' uses the JavaScript scanner alone. Both give the same records (tested).
   * KPROF_ENGINE chooses it for a run of the CLI (see simdEngine.ts).
   */
  engine?: Engine | undefined;
}

/** Bytes kept readable past the data: the sentinel line feed, and simd.wat's loads of up to 64 bytes from it. */
const SLACK = 64;
/** Cells simd.wat locates at most (the JavaScript scanner takes records with more). */
const CAP = LAYOUT.CAP;
/** The fields of simd.wat's META, as indices of i32s. */
const CELLS = (LAYOUT.META_CELLS - LAYOUT.META) >> 2;
const LINES = (LAYOUT.META_LINES - LAYOUT.META) >> 2;

/**
 * A decoder of runs of records, plugged into a scanner (CsvScanner.plug): offered the scanner's bytes before each
 * record, it reads the records it can in place of the scanner and hands them on itself. Positions are offsets into
 * the scanner's buffer (with the SIMD engine, its memory), with a line feed written at `end`.
 */
export interface RecordRuns {
  /** Read the complete records from p, the start of one, before end; returns where it stopped (p: it read none). */
  take(p: number, end: number): number;
  /** The line feeds in the records the last take() read. */
  readonly lines: number;
  /** The last take() stopped at a bound of its own, not at a record it leaves: offer it the bytes again at once. */
  readonly more: boolean;
}

export const DEFAULT_BUFFER_SIZE = 1 << 20;
export const DEFAULT_MAX_RECORD = 64 << 20;

/**
 * Push-based scanner: the caller fills `space()` with bytes, calls `commit(n)`, and `finish()` at the end.
 * Each complete record is handed to `onRow`.
 */
export class CsvScanner {
  private buf: Buffer;
  /** The same bytes as 32-bit words, for skipping plain runs four bytes at a time (see tail). */
  private words: Int32Array;
  /** Where data starts in buf (0, or DATA when buf is the WebAssembly memory). */
  private readonly base: number;
  /** Bytes of data buf holds (it is base + cap + SLACK long). */
  private cap: number;
  private pos: number; // start of the first unparsed record
  private end: number; // end of valid data
  // The SIMD engine, when used, and views of its results.
  private engine: SimdEngine | null;
  private readonly simd: boolean;
  private closed = false;
  private meta = new Int32Array(4);
  private wStarts = new Int32Array(0);
  private wEnds = new Int32Array(0);
  private wFlags = new Uint8Array(0);
  /** The decoder of record runs plugged in (see plug()). */
  private runs: RecordRuns | null = null;
  private eof = false;
  private atStart = true;
  private line = 1;
  private readonly maxRecord: number;
  private readonly view = new RowView();
  /** Bytes handed to the scanner so far. */
  bytesIn = 0;

  constructor(
    private readonly onRow: (row: RowView) => void,
    options: ScanOptions = {},
  ) {
    this.maxRecord = Math.max(8, options.maxRecordBytes ?? DEFAULT_MAX_RECORD);
    this.cap = Math.min(this.maxRecord, Math.max(8, options.bufferSize ?? DEFAULT_BUFFER_SIZE));
    this.engine = options.engine === 'js' ? null : acquireEngine();
    this.simd = this.engine !== null;
    if (this.engine !== null) {
      this.base = LAYOUT.DATA;
      this.buf = Buffer.alloc(0);
      this.words = new Int32Array(0);
      this.mapMemory();
    } else {
      this.base = 0;
      this.buf = alignedBuffer(this.cap + SLACK);
      this.words = wordsOf(this.buf);
    }
    this.pos = this.base;
    this.end = this.base;
  }

  /** Size the WebAssembly memory for base + cap + SLACK bytes and view it (growing it detaches old views). */
  private mapMemory(): void {
    const memory = this.engine!.memory;
    const need = this.base + this.cap + SLACK;
    if (memory.buffer.byteLength < need) memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65536));
    const ab = memory.buffer;
    const v = this.view;
    const viewed = v.starts === this.wStarts;
    this.buf = Buffer.from(ab, 0, need);
    this.words = new Int32Array(ab, 0, need >> 2);
    this.meta = new Int32Array(ab, LAYOUT.META, 4);
    this.wStarts = new Int32Array(ab, LAYOUT.STARTS, CAP);
    this.wEnds = new Int32Array(ab, LAYOUT.ENDS, CAP);
    this.wFlags = new Uint8Array(ab, LAYOUT.FLAGS, CAP);
    if (viewed) this.viewResults();
  }

  /**
   * The SIMD engine this scanner reads with, whose memory holds its buffer (for a decoder to run on: see plug());
   * null with the JavaScript engine.
   */
  get simdEngine(): SimdEngine | null {
    return this.engine;
  }

  /** Offer the bytes before each record to `runs` from now on (null: no more). */
  plug(runs: RecordRuns | null): void {
    this.runs = runs;
  }

  /** Point the row view at simd.wat's results (after the JavaScript scanner grew its own arrays). */
  private viewResults(): void {
    const v = this.view;
    v.starts = this.wStarts;
    v.ends = this.wEnds;
    v.flags = this.wFlags;
  }

  /** Free space to fill; returns the buffer and the offset and length that may be written. */
  space(): { buf: Buffer; offset: number; length: number } {
    const base = this.base;
    if (this.pos > base) {
      // Move the pending partial record to the front.
      this.buf.copy(this.buf, base, this.pos, this.end);
      this.end -= this.pos - base;
      this.pos = base;
    }
    // SLACK bytes stay free past the data for parse()'s sentinel and simd.wat's sixteen-byte loads. The buffer is
    // full only below maxRecord: commit() drops a record that fills all of it.
    if (this.end >= base + this.cap) {
      this.cap = Math.min(this.cap * 2, this.maxRecord);
      if (this.simd) {
        this.mapMemory();
      } else {
        const bigger = alignedBuffer(this.cap + SLACK);
        this.buf.copy(bigger, 0, 0, this.end);
        this.buf = bigger;
        this.words = wordsOf(bigger);
      }
    }
    return { buf: this.buf, offset: this.end, length: base + this.cap - this.end };
  }

  /**
   * Done with this scanner: its SIMD instance goes back for the next scanner of this thread (its key table
   * emptied). Nothing is scanned after this: a stream that still delivers bytes (e.g. after an error) is ignored.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const engine = this.engine;
    this.engine = null;
    if (engine !== null) releaseEngine(engine);
  }

  /**
   * `n` bytes were written at the offset `space()` returned. A record that is still incomplete after a parse is
   * parsed again only once the bytes waiting have doubled (or fill the buffer): a record that spans many small
   * chunks (zlib gives 1 MiB at a time) is then scanned a few times in all, not once per chunk, so the time
   * stays linear in its length.
   */
  commit(n: number): void {
    if (this.closed) return;
    this.end += n;
    this.bytesIn += n;
    if (this.skipping) this.skipLine();
    if (this.atStart && this.end - this.pos >= 3) this.skipBom();
    const waiting = this.end - this.pos;
    if (waiting < 2 * this.left && this.end < this.base + this.cap) return;
    this.parse();
    this.left = this.end - this.pos;
    // A record that fills the whole buffer, which cannot grow any more, is too long: dropped.
    if (this.pos === this.base && this.end >= this.base + this.maxRecord) this.dropLong();
  }

  /** Bytes left unparsed by the last parse (an incomplete record); see commit(). */
  private left = 0;
  /** Bytes parse() has looked at, in all: how the tests tell that scanning is linear. */
  bytesScanned = 0;
  /** Records the JavaScript loop (record()) was asked to read: how the tests tell what the SIMD scanner left it. */
  recordsReadHere = 0;
  /** Skipping the rest of a too-long record, up to and including its next line feed. */
  private skipping = false;

  /** Report the record that fills the buffer as too long, and skip the rest of it (see skipLine). */
  private dropLong(): void {
    const v = this.view;
    v.n = 0;
    v.located = 0;
    v.line = this.line;
    v.problem = 'too-long';
    this.onRow(v);
    this.line += countLf(this.buf, this.pos, this.end);
    this.pos = this.end;
    this.left = 0;
    this.skipping = true;
  }

  /** Drop bytes up to and including the next line feed (the end of a record being skipped), if it has come. */
  private skipLine(): void {
    const lf = this.buf.indexOf(LF, this.pos);
    if (lf < 0 || lf >= this.end) {
      this.pos = this.end;
      return;
    }
    this.pos = lf + 1;
    this.line++;
    this.skipping = false;
  }

  /** Copy a chunk in (for streams whose chunks we do not own, e.g. zlib). */
  write(chunk: Uint8Array): void {
    if (this.closed) return;
    let off = 0;
    while (off < chunk.length) {
      const sp = this.space();
      const n = Math.min(sp.length, chunk.length - off);
      sp.buf.set(chunk.subarray(off, off + n), sp.offset);
      off += n;
      this.commit(n);
    }
  }

  /** No more input: parse what is left. */
  finish(): void {
    if (this.closed) return;
    this.eof = true;
    if (this.skipping) return;
    if (this.atStart) this.skipBom();
    this.parse();
  }

  private skipBom(): void {
    this.atStart = false;
    const b = this.buf;
    if (this.end - this.pos >= 3 && b[this.pos] === 0xef && b[this.pos + 1] === 0xbb && b[this.pos + 2] === 0xbf) {
      this.pos += 3;
    }
  }

  private parse(): void {
    if (this.atStart && !this.eof) return; // wait for 3 bytes to decide about a BOM
    if (this.skipping) return;
    const b = this.buf;
    const end = this.end;
    this.bytesScanned += end - this.pos;
    const eof = this.eof;
    const v = this.view;
    v.buf = b;
    // Sentinel: a line feed just past the data lets the hot loops test one byte instead of also the position.
    // space() keeps SLACK bytes free for it.
    b[end] = LF;
    let p = this.pos;
    let line = this.line;
    const engine = this.engine;
    for (;;) {
      if (p >= end) break;
      const runs = this.runs;
      if (runs !== null) {
        // A run of records goes to the decoder; the first one it leaves (or an incomplete one) is read below.
        const q = runs.take(p, end);
        if (q > p) {
          line += runs.lines;
          p = q;
          if (runs.more || p >= end) continue;
        }
      }
      if (engine !== null) {
        // The SIMD scanner takes the record when it can; else (-1, -2) the code below does.
        const limit = v.locate;
        const r = engine.record(p, end, limit < CAP ? limit : CAP + 1);
        if (r >= 0) {
          const n = this.meta[CELLS]!;
          const rowLine = line;
          line += this.meta[LINES]!;
          p = r;
          if (v.starts !== this.wStarts) this.viewResults();
          // An empty line is not a record.
          if (n === 1 && this.wFlags[0] === 0 && this.wStarts[0] === this.wEnds[0]) continue;
          v.n = n;
          v.located = Math.min(n, limit);
          v.line = rowLine;
          v.problem = 'none';
          this.onRow(v);
          continue;
        }
        // Its end is not in the data yet: it waits for more (the code below reads it as it is at the end of the
        // input, or once it is as long as the longest record read). Scanning it in JavaScript too, once a buffer,
        // made that loop hot enough for V8 to optimise it in every read, for a record it only found incomplete.
        if (r === -1 && !eof && end - p < this.maxRecord) break;
      }
      // A record the scanners above left (one across the end of the data, or none to take): read here.
      const r = this.record(p, end, eof, line);
      if (r < 0) break;
      p = r;
      line = this.line;
    }
    this.pos = p;
    this.line = line;
  }

  /**
   * One record from `p` (line `line`), read by this loop, not the SIMD scanner: returns the position after it
   * (this.line the line it ends on), or NEED_MORE when its end is not in the data yet. A method apart from parse():
   * it runs for the few records the scanners leave, and V8 then optimises parse() (called once a buffer) without
   * compiling this loop into it.
   */
  private record(p: number, end: number, eof: boolean, line: number): number {
    this.recordsReadHere++;
    const b = this.buf;
    const v = this.view;
    const rowStart = p;
    const rowLine = line;
    const limit = v.locate;
    let n = 0;
    let problem: RowProblem = 'none';
    let complete = false;
    let emitted = false;
    // Scan one record: cells below `limit` are located, the rest only counted.
    for (;;) {
      if (n >= limit) {
        // Tail: count the remaining cells up to the end of the record.
        const r = this.tail(p, end, eof, rowStart);
        if (r === NEED_MORE) break;
        if (r === UNCLOSED) {
          // Unclosed quote: resume after the line the quote opened on.
          p = this.emitUnclosed(rowStart, rowLine, this.closeAt, end);
          line = this.line;
          emitted = true;
          complete = true;
          break;
        }
        n += this.count;
        line += this.nl;
        if (this.junk) problem = 'text-after-quote';
        p = r;
        complete = true;
        break;
      }
      if (n === v.starts.length) v.grow();
      if (b[p] === QUOTE && p < end) {
        const r = this.quoted(p, end, eof, rowStart);
        if (r < 0) {
          if (r === NEED_MORE) break;
          p = this.emitUnclosed(rowStart, rowLine, p, end);
          line = this.line;
          emitted = true;
          complete = true;
          break;
        }
        v.starts[n] = p + 1;
        v.ends[n] = this.closeAt;
        v.flags[n] = this.junk ? CELL_QUOTED : this.qflags;
        if (this.junk) {
          problem = 'text-after-quote';
          v.ends[n] = r < end && b[r - 1] === CR && b[r] === LF ? r - 1 : r;
        }
        line += this.nl;
        p = r;
        n++;
        if (p >= end) {
          complete = true; // quoted() only returns the end of the data at eof
          break;
        }
        if (b[p] === COMMA) {
          p++;
          continue;
        }
        // LF (a CR before it was stepped over by quoted())
        p++;
        line++;
        complete = true;
        break;
      }
      // Unquoted cell: stop at a comma or a line feed (the sentinel stops the loop at the end of the data).
      const s = p;
      let c = b[p]!;
      while (c > COMMA || (c !== COMMA && c !== LF)) c = b[++p]!;
      if (p >= end && !eof) break;
      let e = p;
      if (e > s && b[e - 1] === CR && (p >= end || c === LF)) e--;
      v.starts[n] = s;
      v.ends[n] = e;
      v.flags[n] = 0;
      n++;
      if (p >= end) {
        complete = true;
        break;
      }
      if (c === COMMA) {
        p++;
        if (p >= end && eof) {
          // trailing comma at end of input: one more empty cell
          if (n < limit) {
            if (n === v.starts.length) v.grow();
            v.starts[n] = p;
            v.ends[n] = p;
            v.flags[n] = 0;
          }
          n++;
          complete = true;
          break;
        }
        continue;
      }
      p++; // LF
      line++;
      complete = true;
      break;
    }
    if (!complete) return NEED_MORE;
    this.line = line;
    // An empty line is not a record (and one emitUnclosed() read is emitted already).
    if (emitted || (n === 1 && v.flags[0] === 0 && v.starts[0] === v.ends[0])) return p;
    v.n = n;
    v.located = Math.min(n, limit);
    v.line = rowLine;
    v.problem = problem;
    this.onRow(v);
    return p;
  }

  /** Cells counted by tail(). */
  private count = 0;

  /**
   * The cells of a record from `p` (the start of a cell) to its end, counted, not located. Returns the position
   * after the record's line feed (or the end of the data at eof), NEED_MORE, or UNCLOSED (closeAt = where the
   * quote opened). Sets count, nl and junk. Kept small so that V8 optimises its loop well: this is where most
   * bytes of a wide table go.
   */
  private tail(p: number, end: number, eof: boolean, rowStart: number): number {
    const b = this.buf;
    const w = this.words;
    let n = 1;
    let nl = 0;
    let junk = false;
    let c = b[p]!;
    cells: for (;;) {
      // p is at the start of a cell.
      if (c === QUOTE) {
        const r = this.quoted(p, end, eof, rowStart);
        if (r < 0) {
          if (r === UNCLOSED) this.closeAt = p;
          return r;
        }
        nl += this.nl;
        if (this.junk) junk = true;
        p = r;
        c = b[p]!;
      } else {
        // An unquoted cell: a quote inside it is data; only a comma or a line feed ends it. Once p is on a word
        // boundary, whole 4-byte words that hold no quote and no line feed are skipped at once, their commas
        // counted (the sentinel line feed at the end of the data stops the word loop).
        while (c !== COMMA && c !== LF) {
          if ((p & 3) === 0) {
            let i = p >> 2;
            let x = w[i]!;
            while (!hasByte(x, 0x0a0a0a0a) && !hasByte(x, 0x22222222)) {
              n += commas(x);
              x = w[++i]!;
            }
            if (i !== p >> 2) {
              p = i << 2;
              c = b[p]!;
              if (b[p - 1] === COMMA) continue cells; // the skipped words ended a cell: p starts the next one
              continue;
            }
          }
          c = b[++p]!;
        }
      }
      if (c === COMMA) {
        n++;
        c = b[++p]!;
        continue;
      }
      if (p >= end) {
        if (!eof) return NEED_MORE;
        break;
      }
      p++;
      nl++;
      break;
    }
    this.count = n;
    this.nl = nl;
    this.junk = junk;
    return p;
  }

  // Results of quoted(), kept in fields so the hot loop allocates nothing.
  private closeAt = 0;
  private nl = 0;
  private qflags = 0;
  private junk = false;

  /**
   * A quoted cell opening at `p`. Returns the position after it (at the comma, the line feed — past a CR
   * before it — or the end of the data at eof), NEED_MORE, or UNCLOSED. Sets closeAt (the closing quote),
   * nl (line feeds inside), qflags, and junk (text after the closing quote, skipped up to the next comma or
   * line feed).
   */
  private quoted(p: number, end: number, eof: boolean, rowStart: number): number {
    const b = this.buf;
    let q = p + 1;
    let flags = CELL_QUOTED;
    let nl = 0;
    let closed = false;
    while (q < end) {
      const c = b[q]!;
      if (c === QUOTE) {
        if (q + 1 < end) {
          if (b[q + 1] === QUOTE) {
            flags |= CELL_ESCAPED;
            q += 2;
            continue;
          }
          closed = true;
          break;
        }
        if (eof) {
          closed = true;
          break;
        }
        break; // need the next byte to decide
      }
      if (c === LF) nl++;
      q++;
    }
    if (!closed) {
      if (!eof && end - rowStart < this.maxRecord) return NEED_MORE;
      return UNCLOSED;
    }
    this.closeAt = q;
    this.nl = nl;
    this.qflags = flags;
    this.junk = false;
    let r = q + 1;
    if (r >= end) return eof ? r : NEED_MORE;
    const c = b[r];
    if (c === COMMA || c === LF) return r;
    if (c === CR) {
      if (r + 1 >= end) return eof ? r + 1 : NEED_MORE;
      if (b[r + 1] === LF) return r + 1;
    }
    // Text after the closing quote.
    this.junk = true;
    while (r < end && b[r] !== COMMA && b[r] !== LF) r++;
    if (r >= end && !eof) return NEED_MORE;
    return r;
  }

  /** Report a record whose quote (opened at `p`) is never closed; returns where scanning resumes. */
  private emitUnclosed(rowStart: number, rowLine: number, p: number, end: number): number {
    const b = this.buf;
    const v = this.view;
    const lf = b.indexOf(LF, p);
    const stop = lf < 0 || lf >= end ? end : lf + 1;
    // The line goes on past the data: its rest is skipped as it comes.
    if (stop === end && !this.eof) this.skipping = true;
    v.starts[0] = rowStart;
    v.ends[0] = lf < 0 || lf >= end ? end : lf;
    v.flags[0] = 0;
    v.n = 1;
    v.located = 1;
    v.line = rowLine;
    v.problem = 'unclosed-quote';
    // Lines already passed inside this record before the quote opened.
    this.line = rowLine + countLf(b, rowStart, stop);
    this.onRow(v);
    return stop;
  }
}

const NEED_MORE = -1;
const UNCLOSED = -2;

/** A buffer whose bytes start on a 4-byte boundary, its length a multiple of 4, so wordsOf can view it. */
function alignedBuffer(size: number): Buffer {
  return Buffer.from(new ArrayBuffer((size + 3) & ~3));
}

function wordsOf(b: Buffer): Int32Array {
  return new Int32Array(b.buffer, b.byteOffset, b.length >> 2);
}

/** Does the word hold a byte equal to `rep`'s byte (`rep` is that byte repeated four times)? Exact. */
function hasByte(x: number, rep: number): boolean {
  const v = x ^ rep;
  return ((v - 0x01010101) & ~v & 0x80808080) !== 0;
}

/** How many bytes of the word are commas. Exact: no borrow crosses bytes. */
function commas(x: number): number {
  const y = x ^ 0x2c2c2c2c;
  const nonzero = (((y & 0x7f7f7f7f) + 0x7f7f7f7f) | y) & 0x80808080;
  return Math.imul((~nonzero & 0x80808080) >>> 7, 0x01010101) >>> 24;
}

/** Scan a whole string or buffer (tests, small inputs). */
export function scanAll(input: string | Uint8Array, onRow: (row: RowView) => void, options: ScanOptions = {}): void {
  const scanner = new CsvScanner(onRow, options);
  try {
    scanner.write(typeof input === 'string' ? Buffer.from(input, 'utf8') : input);
    scanner.finish();
  } finally {
    scanner.close();
  }
}

/** Parse a string into arrays of cells (tests and small inputs). */
export function parseRecords(input: string | Uint8Array, options: ScanOptions = {}): string[][] {
  const out: string[][] = [];
  scanAll(input, (r) => out.push(r.cells()), options);
  return out;
}
