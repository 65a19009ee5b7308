// Plain kernel rows in batches: the kernel-table format's fast path. A KernelRowBatcher is plugged into a CSV
// scanner that reads with the SIMD engine (CsvScanner.plug): before each record it runs kernelRows.wat's rows() on
// the scanner's memory, which reads as many plain kernel rows as it can (see the top of kernelRows.wat) into the
// batch regions of ROWS_LAYOUT, and hands them to the reader as a RowBatch of views of that memory. The first row
// it leaves the scanner reads as a record, and the reader the slow way (KernelTableReader.row, which gives a new
// key its id with keyId()).

import type { CsvScanner, RecordRuns } from '../../csv/scan.js';
import { decoderExports, type SimdEngine } from '../../csv/simdEngine.js';
import { ROWS_LAYOUT } from './kernelRowsLayout.js';

/**
 * The cells of a kernel table that kernelRows.wat reads in batches (see rows() there): column indices, -1 for a
 * column the table does not have (step, shapes) or that is not wanted (start). The key is the raw bytes from
 * the start of cell keyLo to the end of cell keyHi, and those of the shapes cell.
 */
export interface BatchSpec {
  width: number;
  duration: number;
  step: number;
  keyLo: number;
  keyHi: number;
  shapes: number;
  /** The start-time cell, read per row of a batch into exact ticks after the file's origin (starts). */
  start: number;
  /** The Stream ID cell, whose value each row of a batch gives (streams; -1 for a cell that holds none). */
  stream: number;
  /** Cells to locate: up to the last of the above. */
  locate: number;
}

/**
 * A batch of plain kernel rows: per row, the id keyId() gave its key, its Step Id (NO_STEP: none) and its
 * duration in ticks (as small integers, which V8 keeps unboxed), when the spec has a start column, its start in
 * exact ticks after the file's origin (NaN: no time; as startTicksOf in kernelCells.ts makes it), and when it has a
 * stream column, its Stream ID. The arrays are views of the scanner's memory, reused by the next batch. `originUs`:
 * the file's origin after the batch (the first time read, NaN: none yet), set by the decoder unless the reader set
 * it first (setOrigin).
 */
export interface RowBatch {
  readonly ids: Int32Array;
  readonly steps: Int32Array;
  readonly ticks: Int32Array;
  readonly starts: Float64Array;
  readonly originUs: number;
  readonly streams: Int32Array;
  readonly n: number;
}

export type BatchSink = (batch: RowBatch) => void;

/** kernelRows.wat's exports (checked when a batcher is made). */
interface KernelRows {
  /** The cells of the kernel rows rows() reads (column indices, -1: none). */
  configure(
    width: number,
    duration: number,
    step: number,
    keyLo: number,
    keyHi: number,
    shapes: number,
    start: number,
    stream: number,
    locate: number,
  ): void;
  /** Plain kernel rows from p into the batch (at most MAX_BATCH); returns where it stopped. */
  rows(p: number, end: number): number;
  /** The whole µs start times are ticks after (NaN: none yet; the decoder takes the first it reads). */
  setOrigin(us: number): void;
  origin(): number;
  /** The id of the key in these byte ranges (s2 = -1: one range), given one if new; -1 when the table is full. */
  keyId(s1: number, e1: number, s2: number, e2: number): number;
  /** Empty the key table. */
  resetKeys(): void;
}

const MAX_BATCH = ROWS_LAYOUT.MAX_BATCH;
const BATCH_ROWS = (ROWS_LAYOUT.BATCH_META_ROWS - ROWS_LAYOUT.BATCH_META) >> 2;
const BATCH_LINES = (ROWS_LAYOUT.BATCH_META_LINES - ROWS_LAYOUT.BATCH_META) >> 2;

/** Runs of plain kernel rows of one table, read in simd.wat as batches for `sink` (see the top of this file). */
export class KernelRowBatcher implements RecordRuns {
  lines = 0;
  more = false;
  private readonly rows: KernelRows;
  /** The memory the views below are of (growing it detaches them: see take()). */
  private mapped: ArrayBuffer | null = null;
  private meta = new Int32Array(0);
  private readonly batch: { -readonly [K in keyof RowBatch]: RowBatch[K] } = {
    ids: new Int32Array(0),
    steps: new Int32Array(0),
    ticks: new Int32Array(0),
    starts: new Float64Array(0),
    originUs: Number.NaN,
    streams: new Int32Array(0),
    n: 0,
  };

  private constructor(
    private readonly engine: SimdEngine,
    spec: BatchSpec,
    private readonly sink: BatchSink,
  ) {
    const rows = decoderExports<KernelRows>(engine, ['configure', 'rows', 'keyId', 'resetKeys', 'setOrigin', 'origin']);
    this.rows = rows;
    // An engine is reused from file to file: its key table starts empty, its ids given anew.
    rows.resetKeys();
    rows.configure(spec.width, spec.duration, spec.step, spec.keyLo, spec.keyHi, spec.shapes, spec.start, spec.stream, spec.locate);
  }

  /** Plug a batcher into the scanner, feeding `sink`; null when the scanner does not read with the SIMD engine. */
  static plug(scanner: CsvScanner, spec: BatchSpec, sink: BatchSink): KernelRowBatcher | null {
    const engine = scanner.simdEngine;
    if (engine === null) return null;
    const batcher = new KernelRowBatcher(engine, spec, sink);
    scanner.plug(batcher);
    return batcher;
  }

  take(p: number, end: number): number {
    const q = this.rows.rows(p, end);
    if (this.engine.memory.buffer !== this.mapped) this.map();
    const n = this.meta[BATCH_ROWS]!;
    this.lines = this.meta[BATCH_LINES]!;
    this.more = n === MAX_BATCH;
    if (n > 0) {
      this.batch.n = n;
      this.batch.originUs = this.rows.origin();
      this.sink(this.batch);
    }
    return q;
  }

  /** The file's origin, set by the reader from a row it read itself (before any batch set one). */
  setOrigin(us: number): void {
    this.rows.setOrigin(us);
  }

  /** The id of the key in these byte ranges of the current row (s2 = -1: one range), given one if new. */
  keyId(s1: number, e1: number, s2: number, e2: number): number {
    const rows = this.rows;
    let id = rows.keyId(s1, e1, s2, e2);
    if (id < 0) {
      // The key table is full (it is bounded, as the groups are not): start it again; ids are given anew.
      rows.resetKeys();
      id = rows.keyId(s1, e1, s2, e2);
    }
    return id;
  }

  /** View the batch regions of the engine's memory as it is now. */
  private map(): void {
    const ab = this.engine.memory.buffer;
    this.mapped = ab;
    this.meta = new Int32Array(ab, ROWS_LAYOUT.BATCH_META, 4);
    const b = this.batch;
    b.ids = new Int32Array(ab, ROWS_LAYOUT.IDS, MAX_BATCH);
    b.steps = new Int32Array(ab, ROWS_LAYOUT.STEPS, MAX_BATCH);
    b.ticks = new Int32Array(ab, ROWS_LAYOUT.TICKS, MAX_BATCH);
    b.starts = new Float64Array(ab, ROWS_LAYOUT.START_AFTER, MAX_BATCH);
    b.streams = new Int32Array(ab, ROWS_LAYOUT.STREAMS, MAX_BATCH);
  }
}
