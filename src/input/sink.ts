// The seam between the readers and what consumes kernels. A reader pushes every kernel it reads, in file order,
// into a KernelSink; the accumulator (aggregate/accumulator.ts) is one sink, and others (a recorder of the
// kernel sequence of each step) can sit beside it behind a FanOut. What a reader says about rows it could not
// read goes to a RowLog, which only the rank's own record keeps.
//
// Kernels are named by small integer ids that the reader binds to a kind (bind) before the first kernel of that
// id; an id may later be bound again to another kind (the scanner's key table was full and started again), and
// a sink then counts what follows under the new kind. The batch path costs one array load per kernel for that.

import type { Cell } from '../model/model.js';

/** The step of a kernel whose Step Id cell is empty, in a batch. */
export const NO_STEP = -2147483648;

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
}

/**
 * Kernels in file order: kernel i has the kind bound to ids[i], its Step Id steps[i] (NO_STEP: none), its
 * duration ticks[i] in ticks of 0.1 ns, and, when a sink wants them (wantsStarts), its start in µs starts[i]
 * (NaN: the cell held no time). The arrays are reused by the next batch and hold more than n entries.
 */
export interface KernelBatch {
  readonly ids: Int32Array;
  readonly steps: Int32Array;
  readonly ticks: Int32Array;
  readonly starts: Float64Array | null;
  readonly n: number;
}

export interface KernelSink {
  /** The sink wants start times: readers then parse them (it costs a float parse per kernel). */
  readonly wantsStarts: boolean;
  /** A file begins; its kernels follow. */
  begin(facts: SourceFacts): void;
  /** Kernels with this id are of this kind from now on. */
  bind(id: number, kind: KernelKind): void;
  /** Kernels that came by the batch. */
  addBatch(batch: KernelBatch): void;
  /** One kernel (step null: none; startUs NaN when not parsed or not a time). */
  addKernel(id: number, step: number | null, ticks: number, startUs: number): void;
  /** Kernels already aggregated into a cell, in no order (op_statistic rows). */
  addAggregated(kind: KernelKind, cell: Cell): void;
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

  constructor(private readonly sinks: readonly KernelSink[]) {
    this.wantsStarts = sinks.some((s) => s.wantsStarts);
  }

  begin(facts: SourceFacts): void {
    for (const s of this.sinks) s.begin(facts);
  }

  bind(id: number, kind: KernelKind): void {
    for (const s of this.sinks) s.bind(id, kind);
  }

  addBatch(batch: KernelBatch): void {
    for (const s of this.sinks) s.addBatch(batch);
  }

  addKernel(id: number, step: number | null, ticks: number, startUs: number): void {
    for (const s of this.sinks) s.addKernel(id, step, ticks, startUs);
  }

  addAggregated(kind: KernelKind, cell: Cell): void {
    for (const s of this.sinks) s.addAggregated(kind, cell);
  }
}

/** `primary`, or it and the others behind one FanOut. */
export function besides(primary: KernelSink, others: readonly KernelSink[] | undefined): KernelSink {
  return others === undefined || others.length === 0 ? primary : new FanOut([primary, ...others]);
}
