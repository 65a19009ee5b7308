// Plain data shared by every stage: formats → aggregate → group → summary/diff → rules → reporters.
//
// Over 400 lines: the data types every stage shares, each documented, and the exact-tick arithmetic they rely on:
// declarations, hardly logic.

/**
 * Durations are summed as integer ticks of 0.1 ns (1e-4 µs) so that totals are exact and do not depend on the
 * order rows were added in (two worker threads, one thread: the same sum). Real exports carry at most 3
 * (torch_npu/msprof since 2024) or 4 (2023) decimals of a microsecond; a value with more is rounded to 0.1 ns.
 */
export const TICKS_PER_US = 10_000;

/**
 * Kernel time is summed exactly below 2^51 ticks of 0.1 ns (225,179,981,368.5248 µs, about 62.5 hours): there a sum
 * of integer ticks in a double is exact whatever the order, and a summary JSON's µs (ticks / 10^4, the nearest
 * double) reads back to the same ticks. A duration at or past it is an unreadable row; a profile whose kept
 * kernels add up to it is refused (exactTotals in input/accumulator.ts) rather than shown with figures that
 * are no longer exact.
 */
export const MAX_EXACT_TICKS = 2 ** 51;
/**
 * How far a group's minimum or maximum may pass its mean (total ÷ count), in ticks: 0.001 µs, the rounding of the
 * times a statistic row writes (op_statistic). Past it, no kernels have such figures: a row (or a summary JSON
 * group) that says so is damaged.
 */
export const MEAN_SLACK_TICKS = 10;

/**
 * Which of a group's minimum and maximum (ticks; an unknown one NaN) lies past its mean, total ÷ count, by more
 * than MEAN_SLACK_TICKS: 'min' (above it), 'max' (below it), or null when both are where kernels put them.
 */
export function pastMean(count: number, ticks: number, minTicks: number, maxTicks: number): 'min' | 'max' | null {
  const mean = count > 0 ? ticks / count : 0;
  if (minTicks > mean + MEAN_SLACK_TICKS) return 'min';
  if (maxTicks < mean - MEAN_SLACK_TICKS) return 'max';
  return null;
}

/** The limit in words, for messages. */
export const MAX_EXACT_TEXT = '2^51 ticks of 0.1 ns (225,179,981,368 µs, about 62 hours)';

/** A step_trace_time.csv time (µs, not summed into ticks) is kept below the same limit: past it, no time a step took. */
export const MAX_STEP_TRACE_US = MAX_EXACT_TICKS / TICKS_PER_US;

/** Count and time of a set of kernels. */
export interface Cell {
  count: number;
  /** Sum of durations, in ticks (see TICKS_PER_US). */
  ticks: number;
  minTicks: number;
  maxTicks: number;
}

export function emptyCell(): Cell {
  return { count: 0, ticks: 0, minTicks: Number.POSITIVE_INFINITY, maxTicks: Number.NEGATIVE_INFINITY };
}

export function addToCell(c: Cell, ticks: number): void {
  c.count++;
  c.ticks += ticks;
  if (ticks < c.minTicks) c.minTicks = ticks;
  if (ticks > c.maxTicks) c.maxTicks = ticks;
}

export function mergeCell(into: Cell, from: Cell): void {
  mergeFigures(into, from.count, from.ticks, from.minTicks, from.maxTicks);
}

/** mergeCell of a cell given by its figures (forEachStepFigure's), with no cell made. */
export function mergeFigures(into: Cell, count: number, ticks: number, minTicks: number, maxTicks: number): void {
  into.count += count;
  into.ticks += ticks;
  if (minTicks < into.minTicks) into.minTicks = minTicks;
  if (maxTicks > into.maxTicks) into.maxTicks = maxTicks;
}

export function cloneCell(c: Cell): Cell {
  return { count: c.count, ticks: c.ticks, minTicks: c.minTicks, maxTicks: c.maxTicks };
}

/** Merge one rank's fine groups into another map (for reading one rank from several files in parallel). */
export function mergeGroups(into: Map<string, FineGroup>, from: Map<string, FineGroup>): void {
  for (const [key, g] of from) {
    const t = into.get(key);
    if (!t) {
      into.set(key, g);
      continue;
    }
    mergeCell(t.total, g.total);
    for (const [step, c] of g.steps) {
      // A new cell, set: a cell read from packed step cells (StepCells) is a copy, written to nowhere.
      const tc = t.steps.get(step);
      const merged = cloneCell(c);
      if (tc) mergeCell(merged, tc);
      t.steps.set(step, merged);
    }
  }
}

/**
 * A per-step cell read from a summary JSON, which keeps no min or max per step: those two are the empty cell's,
 * held once by the class rather than twice by each of the hundreds of thousands of step cells of a large cluster
 * (each would be a boxed number). Writing them (merging into the cell) gives the cell its own.
 */
class SavedStepCell {
  declare minTicks: number;
  declare maxTicks: number;
  constructor(
    public count: number,
    public ticks: number,
  ) {}
}
Object.defineProperties(SavedStepCell.prototype, {
  minTicks: { value: Number.POSITIVE_INFINITY, writable: true },
  maxTicks: { value: Number.NEGATIVE_INFINITY, writable: true },
});

/** A step cell of `count` kernels and `ticks`, without min or max (see SavedStepCell). */
export function savedStepCell(count: number, ticks: number): Cell {
  return new SavedStepCell(count, ticks);
}

/**
 * The per-step cells of one group read from a summary JSON, packed as `step, count, ticks` triples in a Float64Array
 * shared by the groups of a file, and read as a Map that cannot be written (every reader of step cells only reads
 * them). A 1,000-rank folder of snapshots holds hundreds of thousands of step cells per side: as a Map of objects
 * per group they cost some 80 bytes each, packed 24. A cell read from it is made on each read, with the empty
 * min and max of savedStepCell; iteration is in the order the file gives the steps.
 */
export class PackedSteps implements Map<number, Cell> {
  /** Steps in ascending order (as kprof writes them): looked up by bisection, else one by one. */
  readonly #sorted: boolean;

  constructor(
    private readonly buf: Float64Array,
    /** The first triple of this group, and how many it has. */
    private readonly from: number,
    readonly size: number,
  ) {
    let sorted = true;
    for (let i = 1; i < size && sorted; i++) sorted = buf[(from + i) * 3]! > buf[(from + i - 1) * 3]!;
    this.#sorted = sorted;
  }

  /** The index (0-based, within this group) of a step's triple, or -1. */
  #find(step: number): number {
    const b = this.buf;
    const base = this.from;
    if (this.#sorted) {
      let lo = 0;
      let hi = this.size - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const s = b[(base + mid) * 3]!;
        if (s === step) return mid;
        if (s < step) lo = mid + 1;
        else hi = mid - 1;
      }
      return -1;
    }
    for (let i = 0; i < this.size; i++) if (b[(base + i) * 3] === step) return i;
    return -1;
  }

  #cell(i: number): Cell {
    const o = (this.from + i) * 3;
    return savedStepCell(small(this.buf[o + 1]!), this.buf[o + 2]!);
  }

  #step(i: number): number {
    return small(this.buf[(this.from + i) * 3]!);
  }

  get(step: number): Cell | undefined {
    const i = this.#find(step);
    return i < 0 ? undefined : this.#cell(i);
  }

  has(step: number): boolean {
    return this.#find(step) >= 0;
  }

  forEach(fn: (value: Cell, key: number, map: Map<number, Cell>) => void, thisArg?: unknown): void {
    for (let i = 0; i < this.size; i++) fn.call(thisArg, this.#cell(i), this.#step(i), this);
  }

  /** Each cell's figures, in order, read in place (see forEachStepFigure): no min or max kept (savedStepCell's). */
  forEachFigure(fn: StepFigureFn): void {
    const b = this.buf;
    for (let o = this.from * 3, end = (this.from + this.size) * 3; o < end; o += 3) {
      fn(small(b[o]!), small(b[o + 1]!), b[o + 2]!, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY);
    }
  }

  *entries(): MapIterator<[number, Cell]> {
    for (let i = 0; i < this.size; i++) yield [this.#step(i), this.#cell(i)];
  }

  *keys(): MapIterator<number> {
    for (let i = 0; i < this.size; i++) yield this.#step(i);
  }

  *values(): MapIterator<Cell> {
    for (let i = 0; i < this.size; i++) yield this.#cell(i);
  }

  [Symbol.iterator](): MapIterator<[number, Cell]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'PackedSteps';
  }

  set(): this {
    throw new Error('internal error: the step cells of a summary JSON are read-only');
  }

  delete(): boolean {
    throw new Error('internal error: the step cells of a summary JSON are read-only');
  }

  clear(): void {
    throw new Error('internal error: the step cells of a summary JSON are read-only');
  }
}

/**
 * The per-step cells of a fine group as the readers make them: a Map that holds its first step in two fields and
 * makes a real Map only for a second one. In a profile of many distinct names most groups run in one step, and an
 * empty Map with its table costs some 220 bytes where this costs 64. Cells a worker sent packed (workers/pack.ts)
 * stay packed until they are written (set, delete), and while forEach walks them; those of a group of at most
 * READ_PACKED steps also while they are looked up or iterated: reading them (get, has, forEach, the iterators) makes
 * each cell it returns anew, a copy that nothing writes back (a group of more steps is unpacked on its first get,
 * has or iterator: its cells are looked up one by one; no accessor per group either: that cost some 500 bytes a
 * group, each object getting a hidden class of its own). A million groups read from a worker are then a million
 * packed cells of 40 bytes rather than a million Cell objects with their boxed doubles, which every report that
 * reads the step cells of each group would otherwise make and keep. It behaves as a Map<number, Cell> in every way
 * the code uses one (insertion order, set on a step it has replaces the cell, delete, clear), except that a cell
 * got from packed cells is a copy (so a cell is changed by set, never in place: mergeGroups); it is not an
 * `instanceof Map`, and a structured clone of it is a plain object (the workers pack step cells instead).
 */
/** Packed step cells of at most this many steps are looked up in place (copies), never unpacked but to be written. */
const READ_PACKED = 4;

/**
 * The iterators of a group's step cells held in some other form than a Map: the iterators of the Map `asMap` gives
 * (the cells' own, or one made for the call). A generator per call, and keys() and values() as generators over
 * entries(), cost several times the iteration itself, and the noise test and the per-step check iterate the cells
 * of every group.
 */
export abstract class CellsOverMap {
  protected abstract asMap(): Map<number, Cell>;

  entries(): MapIterator<[number, Cell]> {
    return this.asMap().entries();
  }

  keys(): MapIterator<number> {
    return this.asMap().keys();
  }

  values(): MapIterator<Cell> {
    return this.asMap().values();
  }

  [Symbol.iterator](): MapIterator<[number, Cell]> {
    return this.entries();
  }
}

export class StepCells extends CellsOverMap implements Map<number, Cell> {
  /** The one step while there is at most one and `#cell` is set (packed: the first index), else 0. */
  #step = 0;
  #cell: Cell | undefined = undefined;
  #map: Map<number, Cell> | null = null;
  /** Packed cells (step, count, ticks, minTicks, maxTicks from #step on, #packed of them), until first written. */
  #buf: Float64Array | null = null;
  #packed = 0;

  /** The cells packed in `buf` from index `from` (5 numbers each: step, count, ticks, minTicks, maxTicks). */
  static packed(buf: Float64Array, from: number, size: number): StepCells {
    const s = new StepCells();
    if (size > 0) {
      s.#buf = buf;
      s.#step = from;
      s.#packed = size;
    }
    return s;
  }

  /** The packed cell `k` (a copy), and its step. */
  #packedCell(k: number): Cell {
    const b = this.#buf!;
    const o = this.#step + k * 5;
    return { count: small(b[o + 1]!), ticks: b[o + 2]!, minTicks: b[o + 3]!, maxTicks: b[o + 4]! };
  }

  #packedStep(k: number): number {
    return small(this.#buf![this.#step + k * 5]!);
  }

  /** The index of a step among the packed cells, or -1. */
  #packedIndex(step: number): number {
    for (let k = 0; k < this.#packed; k++) if (this.#packedStep(k) === step) return k;
    return -1;
  }

  #unpack(): void {
    const n = this.#packed;
    const cells: Cell[] = [];
    const steps: number[] = [];
    for (let k = 0; k < n; k++) {
      steps.push(this.#packedStep(k));
      cells.push(this.#packedCell(k));
    }
    this.#buf = null;
    this.#step = 0;
    this.#packed = 0;
    if (n === 1) {
      this.#step = steps[0]!;
      this.#cell = cells[0]!;
      return;
    }
    // Straight into a Map (the cells of a pack are of distinct steps): a set() per cell costs its checks.
    const map = new Map<number, Cell>();
    for (let k = 0; k < n; k++) map.set(steps[k]!, cells[k]!);
    this.#map = map;
  }

  get size(): number {
    if (this.#buf !== null) return this.#packed;
    return this.#map !== null ? this.#map.size : this.#cell === undefined ? 0 : 1;
  }

  get(step: number): Cell | undefined {
    if (this.#buf !== null) {
      if (this.#packed <= READ_PACKED) {
        const k = this.#packedIndex(step);
        return k < 0 ? undefined : this.#packedCell(k);
      }
      this.#unpack();
    }
    if (this.#map !== null) return this.#map.get(step);
    return this.#cell !== undefined && step === this.#step ? this.#cell : undefined;
  }

  has(step: number): boolean {
    if (this.#buf !== null) {
      if (this.#packed <= READ_PACKED) return this.#packedIndex(step) >= 0;
      this.#unpack();
    }
    return this.#map !== null ? this.#map.has(step) : this.#cell !== undefined && step === this.#step;
  }

  set(step: number, cell: Cell): this {
    if (this.#buf !== null) this.#unpack();
    if (this.#map !== null) this.#map.set(step, cell);
    else if (this.#cell === undefined || step === this.#step) {
      this.#step = step;
      this.#cell = cell;
    } else {
      this.#map = new Map([
        [this.#step, this.#cell],
        [step, cell],
      ]);
      this.#step = 0;
      this.#cell = undefined;
    }
    return this;
  }

  delete(step: number): boolean {
    if (this.#buf !== null) this.#unpack();
    if (this.#map !== null) return this.#map.delete(step);
    if (this.#cell === undefined || step !== this.#step) return false;
    this.clear();
    return true;
  }

  clear(): void {
    this.#buf = null;
    this.#packed = 0;
    this.#map = null;
    this.#step = 0;
    this.#cell = undefined;
  }

  forEach(fn: (value: Cell, key: number, map: Map<number, Cell>) => void, thisArg?: unknown): void {
    // Packed cells are read in place, each a copy, whatever their number: one walk needs no Map of them.
    if (this.#buf !== null) {
      for (let k = 0; k < this.#packed; k++) fn.call(thisArg, this.#packedCell(k), this.#packedStep(k), this);
      return;
    }
    if (this.#map !== null) {
      this.#map.forEach((c, s) => {
        fn.call(thisArg, c, s, this);
      });
      return;
    }
    if (this.#cell !== undefined) fn.call(thisArg, this.#cell, this.#step, this);
  }

  /** Its cells as they are packed (see stepFigures); null while they are a Map or one cell. */
  packedFigures(): StepFigures | null {
    return this.#buf === null ? null : { buf: this.#buf, at: this.#step, n: this.#packed };
  }

  /** Each cell's figures, in order, without making a cell (see forEachStepFigure). */
  forEachFigure(fn: StepFigureFn): void {
    const b = this.#buf;
    if (b !== null) {
      for (let o = this.#step, end = this.#step + this.#packed * 5; o < end; o += 5)
        fn(small(b[o]!), small(b[o + 1]!), b[o + 2]!, b[o + 3]!, b[o + 4]!);
      return;
    }
    if (this.#map !== null) {
      this.#map.forEach((c, s) => {
        fn(s, c.count, c.ticks, c.minTicks, c.maxTicks);
      });
      return;
    }
    const c = this.#cell;
    if (c !== undefined) fn(this.#step, c.count, c.ticks, c.minTicks, c.maxTicks);
  }

  /** The cells as a Map to iterate: the Map held, else a new one of the one cell (or none, or the packed copies). */
  protected asMap(): Map<number, Cell> {
    if (this.#buf !== null) {
      if (this.#packed <= READ_PACKED) {
        const m = new Map<number, Cell>();
        for (let k = 0; k < this.#packed; k++) m.set(this.#packedStep(k), this.#packedCell(k));
        return m;
      }
      this.#unpack();
    }
    if (this.#map !== null) return this.#map;
    return this.#cell !== undefined ? new Map([[this.#step, this.#cell]]) : new Map();
  }

  get [Symbol.toStringTag](): string {
    return 'StepCells';
  }
}

/** What forEachStepFigure calls with each step cell's figures. */
export type StepFigureFn = (step: number, count: number, ticks: number, minTicks: number, maxTicks: number) => void;

/**
 * Each step cell's step, count, ticks, min and max, in the cells' order. What the noise test, the per-step check
 * and the merge of a group's step cells read of every group's cells: packed cells (a worker's, a summary JSON's, a
 * merged group's) are read in place, with no cell made for the call and nothing unpacked; these run once a diff,
 * in the interpreter, where a cell object and a call through forEach per cell cost more than the cell's own work.
 */
export function forEachStepFigure(steps: Map<number, Cell>, fn: StepFigureFn): void {
  // The holders of step cells of kprof's own (StepCells, PackedSteps, a table's GroupSteps) walk them themselves.
  const own = (steps as Partial<FigureWalker>).forEachFigure;
  if (typeof own === 'function') own.call(steps, fn);
  else
    steps.forEach((c, s) => {
      fn(s, c.count, c.ticks, c.minTicks, c.maxTicks);
    });
}

/** A holder of step cells that walks their figures itself (forEachStepFigure). */
interface FigureWalker {
  forEachFigure(fn: StepFigureFn): void;
}

/** Step cells as numbers, five a cell (step, count, ticks, minTicks, maxTicks), `n` cells from `buf[at]`, in order. */
export interface StepFigures {
  buf: Float64Array;
  at: number;
  n: number;
}

/** A holder of step cells that may hold them as StepFigures already (null: it does not, now). */
interface FigureHolder {
  packedFigures(): StepFigures | null;
}

/**
 * Each step cell's figures as numbers (StepFigures): the holder's own where it keeps them packed (a read's
 * GrowingSteps, a worker's StepCells), read in place, else a copy. For the loops that read every group's cells
 * once a diff (the noise test, the per-step check), in the interpreter: a loop over the numbers there costs a
 * fraction of a call per cell (forEachStepFigure). Read only: the buffer may be the holder's.
 */
export function stepFigures(steps: Map<number, Cell>): StepFigures {
  const own = (steps as Partial<FigureHolder>).packedFigures;
  const held = typeof own === 'function' ? own.call(steps) : null;
  if (held !== null) return held;
  const buf = new Float64Array(steps.size * 5);
  let o = 0;
  forEachStepFigure(steps, (step, count, ticks, minTicks, maxTicks) => {
    buf[o] = step;
    buf[o + 1] = count;
    buf[o + 2] = ticks;
    buf[o + 3] = minTicks;
    buf[o + 4] = maxTicks;
    o += 5;
  });
  return { buf, at: 0, n: o / 5 };
}

/** A number read back from a Float64Array as the small integer it was (V8 then keeps it unboxed), when it was one. */
function small(x: number): number {
  const i = x | 0;
  return i === x ? i : x;
}

/**
 * `obj` with a property `key` that `compute` gives when it is first read, and that is a plain property from then
 * on (as it is when written first). For per-step cells, which many commands never read: nothing that reads the
 * property can tell it from one set at once, provided what `compute` reads does not change in between.
 */
export function lazyProperty<T extends object, K extends string, V>(obj: T, key: K, compute: () => V): T & Record<K, V> {
  const settle = (value: V): V => {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  Object.defineProperty(obj, key, { get: () => settle(compute()), set: settle, enumerable: true, configurable: true });
  return obj as T & Record<K, V>;
}

/** The finest unit kprof keeps: one (name, type, core, shapes) combination of one rank. */
export interface FineGroup {
  /**
   * Kernel name, with communication counters folded (input/formats/names.ts); null when the source has none, or
   * when the read kept no names (nothing of the run reads one: ReadOptions.kernelNames) and the kernel has a type.
   */
  name: string | null;
  /**
   * The name as the file wrote it, when normalising changed it (`hcom_allReduce__586_0_1`): the first one read of
   * the group. Fine groups are kept per normalised name, split only where a pattern or name of the run (--match,
   * --exclude, user groups, rules) tells raw names apart, so that they select by it exactly; every raw name of a
   * group answers those alike. Grouping merges them under `name`.
   */
  rawName?: string;
  type: string | null;
  core: string | null;
  /** Input shapes (`;`-joined tensors of `,`-joined dims), null when not read. */
  shapes: string | null;
  total: Cell;
  /**
   * Per Step Id. Rows with an empty Step Id are in `total` only. The readers make a StepCells (cells a worker sent
   * stay packed in it until first read).
   */
  steps: Map<number, Cell>;
  /** Set for groups read back from a summary JSON: the group key it was saved with. */
  savedKey?: string;
  /** Set for groups read back from a summary JSON that were a user-defined group. */
  savedUserGroup?: string;
}

/** Which kernel fields a source can answer questions about. */
export interface Fields {
  name: boolean;
  type: boolean;
  core: boolean;
  shapes: boolean;
  steps: boolean;
}

/** A row-level problem: counted, and reported as `file:line: message`. */
export interface RowWarning {
  file: string;
  line: number;
  message: string;
  /** Said of a row on no rank (its device cannot be told: SourceFile.rowsOnNoRank), kept with a rank's to be said. */
  noRank?: true;
}

/** One file that was read, and what was found in it. */
export interface SourceFile {
  /** Path as given or found (relative to the working directory when possible). */
  path: string;
  /** The id of its format in the input layer's registry (src/input/formats/registry.ts): `kernel_details` … */
  format: string;
  /** Human-readable traits: producer, header variant, block column spelling, metric set … */
  traits: string[];
  columns: string[];
  missing: string[];
  bytes: number;
  rowsRead: number;
  rowsSkipped: number;
  /**
   * Of those rows, the ones on no rank (a row of a file of several devices whose device cannot be told: skipped,
   * and counted here, in no rank's figures). Absent: none. A file of several ranks is in each rank's files.
   */
  rowsOnNoRank?: number;
  /** What else the reader found (what the file can answer, what it left out and why), a line each in inspect. */
  notes?: string[];
  /** Operations the file holds that are not kernels (memory copies and sets …), left out of the figures, by label. */
  apart?: { label: string; count: number; ticks: number }[];
  /**
   * With --short-names: the short names that stand for more than one full kernel name (kernels that differ in
   * their template arguments or parameters, grouped together), each with those full names (sorted; at most 1,000).
   */
  shortened?: { name: string; names: string[] }[];
}

/** Everything read for one rank. */
export interface RankData {
  /** Rank id as a string ("0", "3"); "-" when the input does not say. */
  rank: string;
  files: SourceFile[];
  fields: Fields;
  /** Fine groups keyed by an internal key. */
  groups: Map<string, FineGroup>;
  /** Data rows read (for op_statistic: statistic rows). */
  rowsRead: number;
  rowsSkipped: number;
  /** Kernels counted: for kernel tables equal to rows grouped; for op_statistic the sum of `Count`. */
  kernels: number;
  /** Rows with an empty Step Id (when the source has a step column). */
  rowsWithoutStep: number;
  /** Distinct Step Ids of all rows read, sorted (a step counts even when a filter keeps none of its kernels). */
  stepIds: number[];
  /** From the earliest kernel start to the latest kernel end, in exact ticks (null: no start times read). */
  spanTicks: number | null;
  /**
   * Kernels of a file with start times whose start is in no span: none, 0 (a placeholder), or one kprof does not
   * read as an exact time (negative, in exponent form, further from the file's first start than 2^53 ticks).
   * Absent when there are none, and when the span was not asked for.
   */
  spanWithoutStart?: number;
  /** The first warnings (capped), and how many there were in all. */
  warnings: RowWarning[];
  warningCount: number;
  /**
   * Of warningCount, those said of rows on no rank (`noRank` in `warnings`): a file's, kept with its first rank's
   * warnings so that every command says them once, but of no rank (inspect says them apart). Absent: none.
   */
  warningsOnNoRank?: number;
  /** Where the data came from when it was a saved summary JSON. */
  snapshot: SnapshotInfo | null;
  /** Where the rank id came from (profiler_info, folder name, folder path, Device_id …), for inspect. */
  rankSource?: string;
  /**
   * What the sinks read beside the accumulator gave (input/beside.ts): one result per accumulator that made this
   * rank (several when ranks of one id are merged). Absent when none was asked for, or the rank was not read
   * kernel by kernel (a summary JSON).
   */
  beside?: unknown[];
  /** The wall span of each step on the device (read with --step-time); absent when not asked for. */
  stepSpans?: StepSpans;
  /** The rank's step_trace_time.csv beside its kernel table (read with --step-time); absent when none. */
  stepTrace?: StepTrace;
}

/**
 * The wall span of one step of one rank on its device: from its first kernel start to its last kernel end, over
 * every kernel with that Step Id (communication too), in exact ticks (TICKS_PER_US).
 */
export interface StepSpan {
  step: number;
  /** First start and last end, in ticks after the rank's `originUs` (a summary JSON keeps 0 and the span). */
  startTicks: number;
  endTicks: number;
  /** Kernels of the step that had a start time. */
  kernels: number;
}

/** A rank's step spans. */
export interface StepSpans {
  /** The whole µs that startTicks count from; null when read from a summary JSON (it keeps the spans only). */
  originUs: number | null;
  /** By Step Id, ascending. */
  steps: StepSpan[];
  /** Kernels with a Step Id whose start cell held no time: in no span (a span is then a lower bound). */
  withoutStart: number;
  /** The same per Step Id, [step, kernels] ascending (absent when read from a summary JSON: its steps are kept). */
  withoutStartBySteps?: [number, number][];
  /** False when the rank's files have no start time per kernel (op_statistic): there are no spans. */
  available: boolean;
}

/** step_trace_time.csv: what the profiler says each step's time went to, per step, in µs as the file writes them. */
export interface StepTrace {
  file: string;
  /** Its time columns in file order (Computing, Communication(Not Overlapped), Overlapped, …, Free …). */
  columns: string[];
  /**
   * By Step, ascending; a value is null when its cell was empty, or a word in Stage (a phase). A row with a time
   * that is not a number of µs, or is negative, is skipped (rowsSkipped).
   */
  rows: { step: number; values: (number | null)[] }[];
  /** Rows that could not be read (warned of): in no step. */
  rowsSkipped: number;
}

/** Grouping and filters a saved summary JSON was made with. */
export interface SnapshotInfo {
  path: string;
  groupBy: GroupBy;
  /** Canonical text of the filters and user groups the snapshot was made with. */
  selection: string;
  /** Kernels the snapshot's filters left out, in this rank. */
  filteredKernels: number;
  /** The profiles the snapshot was made from (its "inputs"), as saved. */
  inputs: string[];
}

/** The ranks read from one `<profile>` argument. */
/**
 * The rows of these ranks' files that are on no rank (SourceFile.rowsOnNoRank), each file once: they are in the
 * profile's rows read and skipped, and in no rank's.
 */
export function rowsOnNoRank(ranks: readonly RankData[]): number {
  const byPath = new Map<string, number>();
  for (const r of ranks)
    for (const f of r.files) if (f.rowsOnNoRank !== undefined) byPath.set(f.path, Math.max(byPath.get(f.path) ?? 0, f.rowsOnNoRank));
  let n = 0;
  for (const v of byPath.values()) n += v;
  return n;
}

/** The rows of a profile's ranks that were skipped: each rank's, and those on no rank. */
export function skippedRowsOf(ranks: readonly RankData[]): number {
  return ranks.reduce((n, r) => n + r.rowsSkipped, 0) + rowsOnNoRank(ranks);
}

export interface Profile {
  /** The argument as given. */
  input: string;
  ranks: RankData[];
  /** What was found and not used (e.g. a rank folder with no kernel data), for inspect and warnings. */
  notes: string[] /** Of the notes, those of a profile folder or file not read: a note on stderr says how many (commands/options.ts). */;
  unread?: string[];
  /**
   * Rank folders left out for holding no kernel data (a note says each), of ranks the profile has no kernels of and
   * that --rank did not leave out: a gate cannot pass them by (rules/scope.ts).
   */
  emptyRanks?: { rank: string; dir: string }[];
}

export const GROUP_BYS = ['type', 'name', 'core', 'type+core', 'type+shapes'] as const;
export type GroupBy = (typeof GROUP_BYS)[number];

/** Which fields a grouping needs. */
export const GROUP_BY_FIELDS = {
  type: ['type'],
  name: ['name'],
  core: ['core'],
  'type+core': ['type', 'core'],
  'type+shapes': ['type', 'shapes'],
} as const satisfies Record<GroupBy, readonly (keyof Fields)[]>;

/**
 * The display key of a group. `type+core` is `Type @ CORE`, `type+shapes` is `Type [shapes]`.
 * Documented in docs/summary.md.
 */
export function groupKey(by: GroupBy, g: { name: string | null; type: string | null; core: string | null; shapes: string | null }): string {
  switch (by) {
    case 'type':
      return g.type ?? '';
    case 'name':
      return g.name ?? '';
    case 'core':
      return g.core ?? '';
    case 'type+core':
      return `${g.type ?? ''} @ ${g.core ?? ''}`;
    case 'type+shapes':
      return `${g.type ?? ''} [${g.shapes ?? ''}]`;
  }
}

/**
 * The label of a group where people read it (the terminal table, Markdown, HTML): its key, with `(empty)` for
 * an empty key and for each empty part of a two-part one, so that a kernel of no type grouped by type+core reads
 * `(empty) @ AI_CORE`, not ` @ AI_CORE`. Made from the group's fields, never by splitting the key: a type that
 * itself holds ` @ ` stays whole. A user group is labelled by its name. CSV and JSON keep the key as it is.
 */
export function groupLabel(by: GroupBy, g: { key: string; type?: string; core?: string; shapes?: string; userGroup?: string }): string {
  if (g.key === '') return EMPTY_LABEL;
  if (g.userGroup !== undefined || (by !== 'type+core' && by !== 'type+shapes')) return keyLabel(g.key);
  // Fields that do not make the key (a group without them): the key as it is.
  if (groupKey(by, { type: g.type ?? null, name: null, core: g.core ?? null, shapes: g.shapes ?? null }) !== g.key) return keyLabel(g.key);
  return by === 'type+core' ? `${keyLabel(g.type ?? '')} @ ${keyLabel(g.core ?? '')}` : `${keyLabel(g.type ?? '')} [${g.shapes ?? ''}]`;
}

/** How a label shows an empty key, or an empty part of one. */
export const EMPTY_LABEL = '(empty)';

/** A text that reads as EMPTY_LABEL, bare or in double quotes (`(empty)`, `"(empty)"`, `""(empty)""` …). */
const EMPTY_LIKE = /^"*\(empty\)"*$/;

/**
 * A key (or a part of one) as a label shows it: EMPTY_LABEL for an empty one, and a key that reads as it, bare or
 * quoted, in one more pair of double quotes, so that each label reads back to one key: `(empty)` is the empty key,
 * `"(empty)"` a kernel type named `(empty)`, `""(empty)""` one named `"(empty)"`.
 */
export function keyLabel(key: string): string {
  if (key === '') return EMPTY_LABEL;
  return EMPTY_LIKE.test(key) ? `"${key}"` : key;
}

/** A user-defined group: a name and the kernels it gathers. */
export interface UserGroup {
  name: string;
  /** Exact type or name matches. */
  exact: Set<string>;
  /** Regular expressions tested on name and type. */
  patterns: RegExp[];
  /** Where the group was defined (`file:line:col`), for errors about it. */
  at?: string;
}

/** An inclusive range of Step Ids; `to` is Infinity for an open range (`--steps 14-`). */
export interface StepRange {
  from: number;
  to: number;
}

/** Which rows and ranks to keep. */
export interface Selection {
  /** null: all ranks. */
  ranks: string[] | null;
  /** Inclusive Step Id ranges (sorted, disjoint; `to` may be Infinity); null: all rows (with or without a step). */
  steps: StepRange[] | null;
  cores: string[] | null;
  match: RegExp | null;
  exclude: RegExp | null;
  groups: UserGroup[];
}

/** A group's key and the fields it was formed by, where they are single-valued. */
export interface GroupFields {
  key: string;
  type?: string;
  name?: string;
  core?: string;
  shapes?: string;
  /** Set when the group is a user-defined group. */
  userGroup?: string;
}

/** One row of a summary: a group of kernels. */
export interface Group extends GroupFields {
  /** Of a group of one fine group it is that group's own cell: read it, never write to it. */
  total: Cell;
  /**
   * Per Step Id, merged when first read. Of a group of one fine group it is that group's own Map: read it, never
   * write to it.
   */
  steps: Map<number, Cell>;
}

/** Per-rank grouped data. */
export interface RankSummary {
  rank: string;
  totals: Cell;
  groups: Group[];
  steps: number[];
  /** The rank's own rows read, rows skipped and kernels filtered out (they add up to the profile's). */
  rowsRead: number;
  skippedRows: number;
  filteredKernels: number;
}

/** The result of grouping one profile. */
export interface Summary {
  input: string;
  groupBy: GroupBy;
  /** Canonical text of the selection (filters + user groups), to compare snapshots. */
  selection: string;
  ranks: string[];
  /** Distinct Step Ids among the kept rows, sorted; empty when the source has no steps. */
  stepIds: number[];
  hasSteps: boolean;
  files: SourceFile[];
  /** The ranks' rows, and those on no rank (rowsOnNoRank). */
  rowsRead: number;
  skippedRows: number;
  /** Rows read and skipped that are in no rank's figures (SourceFile.rowsOnNoRank): in rowsRead and skippedRows. */
  rowsOnNoRank: number;
  /** Kernels left out by --rank/--steps/--core/--match/--exclude. */
  filteredKernels: number;
  totals: Cell;
  groups: Group[];
  /** One entry per rank, always (also for a single rank). */
  perRank: RankSummary[];
  warnings: RowWarning[];
  warningCount: number;
  /** Each rank's step time (asked for with --step-time); absent when not asked for. */
  stepTime?: StepTimeSummary;
}

/** Why a rank has no step spans. */
export type StepTimeGap =
  /** Its files have no start time per kernel (op_statistic, a table without a start column). */
  | 'no-starts'
  /** Its kernels have no Step Id. */
  | 'no-steps'
  /** A summary JSON made without --step-time. */
  | 'not-saved';

/** One rank's step time within the selected steps (--steps). */
export interface RankStepTime {
  rank: string;
  /** Null when the rank has spans (maybe none in the selected steps); else why not. */
  gap: StepTimeGap | null;
  /** Per step (ascending): its wall span in ticks, and the kernels it spans. */
  spans: { step: number; ticks: number; kernels: number }[];
  /** Kernels with a Step Id whose start could not be read (in no span). */
  withoutStart: number;
  /** The rank's step_trace_time.csv rows in the selected steps; null when it has none. */
  trace: StepTrace | null;
}

/** The step time of a profile: one entry per rank, in rank order. */
export interface StepTimeSummary {
  ranks: RankStepTime[];
}

/** Numeric ranks in numeric order, then others by name. */
export function compareRanks(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  const ia = a !== '' && Number.isInteger(na);
  const ib = b !== '' && Number.isInteger(nb);
  if (ia && ib) return na - nb;
  if (ia) return -1;
  if (ib) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------------
// "Per step": one definition for summary, diff --per-step, check `per: step` and `count-vs-base per: step`.
//
// - A rank's steps are the distinct Step Ids of all its rows read (within --steps or a rule's `steps:`); a step
//   counts even where the kernels in question do not run (they count 0 there).
// - Rows with an empty Step Id are in no step: they are in every total, and in no per-step figure.
// - A rank's figure per step is its kernels with a Step Id ÷ its own number of steps (the mean over its steps).
// - Several ranks: the sum of each rank's own figure per step (what one step costs all ranks together). Ranks
//   with different step sets (one lost a step, offset Step Ids) are each divided by their own steps, never by
//   the steps of the profile as a whole. A rank with no step at all has no kernel in a step: it adds nothing.
//
// Figures are kept exact, as integer numerators over a common denominator (the least common multiple of the
// ranks' step counts), so that sums of rows equal totals and statuses compare without rounding.

/** An exact count and time per step: `count / den` kernels, `ticks / den` ticks. */
export interface PerStep {
  count: bigint;
  ticks: bigint;
  den: bigint;
}

export const ZERO_PER_STEP: PerStep = { count: 0n, ticks: 0n, den: 1n };

/** The kernels of a set of step cells (those with a Step Id), summed. */
export function steppedCell(steps: Map<number, Cell>): Cell {
  const out = emptyCell();
  // Each cell's figures read in place: packed cells (a worker's) are not made into a Map of Cell objects to be summed
  // (100,000 steps of 10 groups: a million Cells kept, and the time to make them).
  forEachStepFigure(steps, (_step, count, ticks, minTicks, maxTicks) => {
    mergeFigures(out, count, ticks, minTicks, maxTicks);
  });
  return out;
}

/** One rank's figure per step: its kernels with a Step Id over its number of steps (none without steps). */
export function rankPerStep(stepped: { count: number; ticks: number }, steps: number): PerStep {
  if (steps <= 0) return ZERO_PER_STEP;
  return { count: BigInt(stepped.count), ticks: BigInt(Math.round(stepped.ticks)), den: BigInt(steps) };
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** The sum of two figures per step (ranks combined), exact. */
export function addPerStep(a: PerStep, b: PerStep): PerStep {
  if (a.den === b.den) return { count: a.count + b.count, ticks: a.ticks + b.ticks, den: a.den };
  const den = (a.den / gcd(a.den, b.den)) * b.den;
  const fa = den / a.den;
  const fb = den / b.den;
  return { count: a.count * fa + b.count * fb, ticks: a.ticks * fa + b.ticks * fb, den };
}

/** Kernels per step, as a number (may be fractional). */
export function perStepCount(p: PerStep): number {
  return ratio(p.count, p.den);
}

/** Kernel time per step in µs. */
export function perStepUs(p: PerStep): number {
  return ratio(p.ticks, p.den) / TICKS_PER_US;
}

/** a / b for big integers, as close as a double allows. */
function ratio(a: bigint, b: bigint): number {
  const q = a / b;
  return Number(q) + Number(a - q * b) / Number(b);
}

/** The sign of `a.count/a.den − b.count/b.den`, exact. */
export function comparePerStepCount(a: PerStep, b: PerStep): -1 | 0 | 1 {
  const x = a.count * b.den;
  const y = b.count * a.den;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Two figures are exactly equal (count and time). */
export function samePerStep(a: PerStep, b: PerStep): boolean {
  return a.count * b.den === b.count * a.den && a.ticks * b.den === b.ticks * a.den;
}

/** A reduced fraction `n/d` as a text key, to tell equal ratios apart from unequal ones exactly. */
export function fractionKey(n: bigint, d: bigint): string {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return `${n / g}/${d / g}`;
}

/**
 * The patterns and names of a run that may select a kernel by the name its file wrote (a communication kernel's
 * `hcom_allReduce__586_0_1`) rather than by its normalised name: --match, --exclude, the members of user groups,
 * and the selectors of a rules file. Plain data, so that it crosses to a worker thread; null when there are none.
 */
export interface RawNameTests {
  patterns: { source: string; flags: string }[];
  exact: string[];
}

/**
 * Two spans of one rank read from two inputs (several PROF_* folders of one device): steps merged by Step Id, the
 * second rebased to the first's origin. Spans without an origin (saved) cannot be placed: null.
 */
export function mergeStepSpans(a: StepSpans, b: StepSpans): StepSpans | null {
  if (a.originUs === null || b.originUs === null) return null;
  const shift = (b.originUs - a.originUs) * TICKS_PER_US;
  const by = new Map(a.steps.map((s) => [s.step, { ...s }]));
  for (const s of b.steps) {
    const start = s.startTicks + shift;
    const end = s.endTicks + shift;
    const t = by.get(s.step);
    if (t === undefined) by.set(s.step, { step: s.step, startTicks: start, endTicks: end, kernels: s.kernels });
    else {
      t.startTicks = Math.min(t.startTicks, start);
      t.endTicks = Math.max(t.endTicks, end);
      t.kernels += s.kernels;
    }
  }
  return {
    originUs: a.originUs,
    steps: [...by.values()].sort((x, y) => x.step - y.step),
    withoutStart: a.withoutStart + b.withoutStart,
    withoutStartBySteps: [
      ...[...(a.withoutStartBySteps ?? []), ...(b.withoutStartBySteps ?? [])].reduce(
        (m, [s, n]) => m.set(s, (m.get(s) ?? 0) + n),
        new Map<number, number>(),
      ),
    ].sort((x, y) => x[0] - y[0]),
    available: a.available && b.available,
  };
}
