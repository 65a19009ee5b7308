/**
 * The cells of a kernel table that simd.wat reads in batches (see rows() there): column indices, -1 for a
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
  /** The start-time cell, whose place (not value) each row of a batch gives: startAt, startEnd. */
  start: number;
  /** The Stream ID cell, whose value each row of a batch gives (streams; -1 for a cell that holds none). */
  stream: number;
  /** Cells to locate: up to the last of the above. */
  locate: number;
}

/**
 * A batch of plain kernel rows: per row, the id keyId() gave its key, its Step Id (NO_STEP: none) and its
 * duration in ticks (as small integers, which V8 keeps unboxed), when the spec has a start column, where that
 * cell is in `buf`, and when it has a stream column, its Stream ID. The arrays are views of the scanner's memory,
 * reused by the next batch.
 */
export interface RowBatch {
  readonly ids: Int32Array;
  readonly steps: Int32Array;
  readonly ticks: Int32Array;
  readonly startAt: Int32Array;
  readonly startEnd: Int32Array;
  readonly streams: Int32Array;
  readonly buf: Buffer;
  readonly n: number;
}

export type BatchSink = (batch: RowBatch) => void;

/** What a kernel table reader needs of the scanner to be fed batches (CsvScanner implements it). */
export interface RowBatcher {
  /** Feed the plain rows of this table to `sink` in batches from now on; false when the scanner cannot. */
  batch(spec: BatchSpec, sink: BatchSink): boolean;
  /** The id of the key in these byte ranges of the current row (s2 = -1: one range), given one if new. */
  keyId(s1: number, e1: number, s2: number, e2: number): number;
}
