// The seam between the readers and what consumes kernels. A reader pushes every kernel it reads, in file order,
// into a KernelSink; the accumulator (input/accumulator.ts) is one sink, and others (a recorder of the
// kernel sequence of each step) can sit beside it behind a FanOut. What a reader says about rows it could not
// read goes to a RowLog, which only the rank's own record keeps.
//
// Kernels are named by small integer ids that the reader binds to a kind (bind) before the first kernel of that
// id; an id may later be bound again to another kind (the scanner's key table was full and started again), and
// a sink then counts what follows under the new kind. The batch path costs one array load per kernel for that.
//
// Start times are exact: ticks of 0.1 ns after an origin, a whole number of µs the reader tells the sink
// (origin()) before the first kernel with a start of each file. Absolute µs timestamps (~1.7e15) do not fit a
// double to the tick; their difference from the origin does (2^53 ticks are ten days).

import type { Cell } from '../model/model.js';

/** The step of a kernel whose Step Id cell is empty, in a batch. */
export const NO_STEP = -2147483648;

/** The stream of a kernel that has none (no Stream ID column, `N/A`, or not an integer of at most 9 digits). */
export const NO_STREAM = -1;

/**
 * The longest kernel name or type a reader takes, in bytes as the file writes it: a row with a longer one cannot be
 * read (counted and reported with its file and line, as any such row). Real names are short (the longest CUDA
 * template instances run to a few KiB); without a bound, a few names of megabytes would cost memory many times
 * their size (each is decoded, folded, keyed and kept).
 */
export const MAX_NAME_BYTES = 64 * 1024;

/** The message of a row skipped for a name or type over MAX_NAME_BYTES (`column`: the file's column name). */
export function nameTooLong(column: string, bytes: number): string {
  return `${column} is ${bytes.toLocaleString('en-US')} bytes long, more than the 64 KiB kprof takes of a kernel name or type; row skipped`;
}

/** What a kernel is grouped by. */
export interface KernelKind {
  readonly name: string | null;
  /** The name as the file wrote it, before normalisation (the same as name when normalising changed nothing). */
  readonly rawName: string | null;
  readonly type: string | null;
  readonly core: string | null;
  readonly shapes: string | null;
}

/** What a file can answer, told to the sink before its kernels (begin). */
export interface SourceFacts {
  readonly file: string;
  /** The kernels carry a name, a core type, input shapes (read only when asked for), a Step Id. */
  readonly name: boolean;
  readonly core: boolean;
  readonly shapes: boolean;
  readonly steps: boolean;
  /** The kernels come one by one in the order they ran (false: already aggregated, e.g. op_statistic). */
  readonly ordered: boolean;
  /** The file has a start time per kernel (given to sinks that want starts). */
  readonly starts: boolean;
  /** The kernels carry a stream id (the Stream ID column; given to sinks that want streams). */
  readonly streams: boolean;
}

/**
 * Kernels in file order: kernel i has the kind bound to ids[i], its Step Id steps[i] (NO_STEP: none), its
 * duration ticks[i] in ticks of 0.1 ns, and, when a sink wants them, its start starts[i] in ticks after the
 * current origin (wantsStarts; exact integer-valued doubles; NaN: the cell held no time) and its stream id
 * streams[i] (wantsStreams; NO_STREAM: none). An array nobody wants, or of a column the file lacks (see
 * SourceFacts), is null. The arrays are reused by the next batch and hold more than n entries.
 */
export interface KernelBatch {
  readonly ids: Int32Array;
  readonly steps: Int32Array;
  readonly ticks: Int32Array;
  readonly starts: Float64Array | null;
  readonly streams: Int32Array | null;
  readonly n: number;
}

export interface KernelSink {
  /** The sink wants start times: readers then parse them (an exact decimal parse per kernel). */
  readonly wantsStarts: boolean;
  /** The sink wants stream ids: readers then read them. */
  readonly wantsStreams: boolean;
  /** A file begins; its kernels follow. */
  begin(facts: SourceFacts): void;
  /**
   * Start ticks from now on are after this time: a whole number of µs (exact, below 2^53), set by the reader
   * from the first start it reads in a file, before any kernel with a start (only for a sink that wants starts).
   * A rank of several files gets one origin() per file; a sink that spans files rebases the starts of the later
   * ones by (us - firstUs) * 10_000 ticks.
   */
  origin(us: number): void;
  /** Kernels with this id are of this kind from now on. */
  bind(id: number, kind: KernelKind): void;
  /** Kernels that came by the batch. */
  addBatch(batch: KernelBatch): void;
  /**
   * One kernel (step null: none; startTicks after the origin, NaN when not wanted or not a time; stream
   * NO_STREAM when not wanted or none).
   */
  addKernel(id: number, step: number | null, ticks: number, startTicks: number, stream: number): void;
  /**
   * Kernels already aggregated into a cell, in no order: op_statistic rows (no `step`: a total over no steps), or
   * the kernels of one step (`step`; null: of no step) grouped by the file's own engine (a db export).
   */
  addAggregated(kind: KernelKind, cell: Cell, step?: number | null): void;
}

/** Rows a reader read and could not read, with the warnings of a file. */
export interface RowLog {
  rowsRead: number;
  readonly rowsSkipped: number;
  /** A row that cannot be read: counted and warned of. */
  skip(file: string, line: number, message: string): void;
  warn(file: string, line: number, message: string): void;
}

/** Where the rows of a rank go: the sink of its kernels and the log of its rows. */
export interface RankTarget {
  readonly sink: KernelSink;
  readonly log: RowLog;
}

/** Several sinks fed as one, each in the order given. */
export class FanOut implements KernelSink {
  readonly wantsStarts: boolean;
  readonly wantsStreams: boolean;

  constructor(private readonly sinks: readonly KernelSink[]) {
    this.wantsStarts = sinks.some((s) => s.wantsStarts);
    this.wantsStreams = sinks.some((s) => s.wantsStreams);
  }

  begin(facts: SourceFacts): void {
    for (const s of this.sinks) s.begin(facts);
  }

  origin(us: number): void {
    for (const s of this.sinks) s.origin(us);
  }

  bind(id: number, kind: KernelKind): void {
    for (const s of this.sinks) s.bind(id, kind);
  }

  addBatch(batch: KernelBatch): void {
    for (const s of this.sinks) s.addBatch(batch);
  }

  addKernel(id: number, step: number | null, ticks: number, startTicks: number, stream: number): void {
    for (const s of this.sinks) s.addKernel(id, step, ticks, startTicks, stream);
  }

  addAggregated(kind: KernelKind, cell: Cell, step?: number | null): void {
    for (const s of this.sinks) s.addAggregated(kind, cell, step);
  }
}

/** `primary`, or it and the others behind one FanOut. */
export function besides(primary: KernelSink, others: readonly KernelSink[] | undefined): KernelSink {
  return others === undefined || others.length === 0 ? primary : new FanOut([primary, ...others]);
}

/**
 * A rank's target as the one object a reader is given: its kernels go to the sink (the accumulator, and the sinks
 * beside it behind a FanOut), its rows to the log. Every reader feeds this and nothing else, so a sink beside the
 * accumulator (the rewrites' recorder) sees the kernels of every format, also of one that knows nothing of it.
 */
export function asTarget(t: RankTarget): KernelSink & RowLog {
  return (t.sink as unknown) === t.log ? (t.log as KernelSink & RowLog) : new Target(t.sink, t.log);
}

class Target implements KernelSink, RowLog {
  readonly wantsStarts: boolean;
  readonly wantsStreams: boolean;

  constructor(
    private readonly sink: KernelSink,
    private readonly log: RowLog,
  ) {
    this.wantsStarts = sink.wantsStarts;
    this.wantsStreams = sink.wantsStreams;
  }

  get rowsRead(): number {
    return this.log.rowsRead;
  }

  set rowsRead(n: number) {
    this.log.rowsRead = n;
  }

  get rowsSkipped(): number {
    return this.log.rowsSkipped;
  }

  skip(file: string, line: number, message: string): void {
    this.log.skip(file, line, message);
  }

  warn(file: string, line: number, message: string): void {
    this.log.warn(file, line, message);
  }

  begin(facts: SourceFacts): void {
    this.sink.begin(facts);
  }

  origin(us: number): void {
    this.sink.origin(us);
  }

  bind(id: number, kind: KernelKind): void {
    this.sink.bind(id, kind);
  }

  addBatch(batch: KernelBatch): void {
    this.sink.addBatch(batch);
  }

  addKernel(id: number, step: number | null, ticks: number, startTicks: number, stream: number): void {
    this.sink.addKernel(id, step, ticks, startTicks, stream);
  }

  addAggregated(kind: KernelKind, cell: Cell, step?: number | null): void {
    this.sink.addAggregated(kind, cell, step);
  }
}
