// The step cells of a fine group of two steps or more as a read makes them: packed, five numbers a cell (step,
// count, ticks, minTicks, maxTicks) in one Float64Array that grows, in the order the steps came. A Map of a Cell
// object a step cost some 150 bytes a cell, and its first writes to fresh pages (a profile of 300 steps of 50
// kernel types: ~600 page faults a thread, and the collector's work on its objects); here 40 bytes, written in
// place by the accumulator (slot, addTicks), and walked by a loop over the array (forEachFigure: the time test
// reads every cell of every group once, before its code is optimised).
//
// It is a Map<number, Cell> in every way the code uses one: insertion order, set on a step it has replaces the
// cell, delete, clear. A cell got by get() is a view of its step's numbers, which reads and writes them (a cell
// looked up is changed in place, as one of a Map is: the accumulator's totals of a file of totals, a table's cell
// views); the cells forEach and the iterators give are copies, plain Cells (what walks the cells reads them, and
// may clone them). It is not an `instanceof Map`, and, its fields private, it writes as `{}` in JSON, as a Map
// does.

import { CellsOverMap, type Cell, type StepFigureFn, type StepFigures } from './model.js';

/** Numbers a cell: step, count, ticks, minTicks, maxTicks. */
const STRIDE = 5;

export class GrowingSteps extends CellsOverMap implements Map<number, Cell> {
  #buf = new Float64Array(4 * STRIDE);
  #n = 0;
  /** Every step so far greater than the one before it: a lookup bisects. */
  #ordered = true;

  get size(): number {
    return this.#n;
  }

  /** The index of `step`'s cell, or -1. */
  indexOf(step: number): number {
    const b = this.#buf;
    const n = this.#n;
    if (n === 0) return -1;
    // Most lookups are of the step being read: the last one.
    if (b[(n - 1) * STRIDE] === step) return n - 1;
    if (this.#ordered) {
      let lo = 0;
      let hi = n - 2;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const s = b[mid * STRIDE]!;
        if (s === step) return mid;
        if (s < step) lo = mid + 1;
        else hi = mid - 1;
      }
      return -1;
    }
    for (let k = n - 2; k >= 0; k--) if (b[k * STRIDE] === step) return k;
    return -1;
  }

  /** The index of `step`'s cell, an empty one appended first when it has none. */
  slot(step: number): number {
    const k = this.indexOf(step);
    return k >= 0 ? k : this.#append(step, 0, 0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY);
  }

  /** One kernel of `ticks` into cell `k` (an index slot gave). */
  addTicks(k: number, ticks: number): void {
    const b = this.#buf;
    const o = k * STRIDE;
    b[o + 1]!++;
    b[o + 2]! += ticks;
    if (ticks < b[o + 3]!) b[o + 3] = ticks;
    if (ticks > b[o + 4]!) b[o + 4] = ticks;
  }

  /** Field `f` (1 count, 2 ticks, 3 minTicks, 4 maxTicks) of `step`'s cell; NaN when it has none. */
  field(step: number, f: number): number {
    const k = this.indexOf(step);
    return k < 0 ? Number.NaN : small(this.#buf[k * STRIDE + f]!);
  }

  /** Set field `f` of `step`'s cell (false when it has none). */
  setField(step: number, f: number, v: number): boolean {
    const k = this.indexOf(step);
    if (k < 0) return false;
    this.#buf[k * STRIDE + f] = v;
    return true;
  }

  #append(step: number, count: number, ticks: number, min: number, max: number): number {
    const n = this.#n;
    if ((n + 1) * STRIDE > this.#buf.length) {
      const b = new Float64Array(this.#buf.length * 2);
      b.set(this.#buf);
      this.#buf = b;
    }
    if (n > 0 && !(step > this.#buf[(n - 1) * STRIDE]!)) this.#ordered = false;
    const o = n * STRIDE;
    const b = this.#buf;
    b[o] = step;
    b[o + 1] = count;
    b[o + 2] = ticks;
    b[o + 3] = min;
    b[o + 4] = max;
    this.#n = n + 1;
    return n;
  }

  get(step: number): Cell | undefined {
    return this.indexOf(step) < 0 ? undefined : new StepView(this, step);
  }

  has(step: number): boolean {
    return this.indexOf(step) >= 0;
  }

  /** The cell's figures are copied in (a later write to `cell` is not seen here). */
  set(step: number, cell: Cell): this {
    this.setFigures(step, cell.count, cell.ticks, cell.minTicks, cell.maxTicks);
    return this;
  }

  /** set() of a cell given by its figures (forEachStepFigure's), with no cell made. */
  setFigures(step: number, count: number, ticks: number, minTicks: number, maxTicks: number): void {
    const k = this.indexOf(step);
    if (k < 0) this.#append(step, count, ticks, minTicks, maxTicks);
    else {
      const o = k * STRIDE;
      const b = this.#buf;
      b[o + 1] = count;
      b[o + 2] = ticks;
      b[o + 3] = minTicks;
      b[o + 4] = maxTicks;
    }
  }

  delete(step: number): boolean {
    const k = this.indexOf(step);
    if (k < 0) return false;
    this.#buf.copyWithin(k * STRIDE, (k + 1) * STRIDE, this.#n * STRIDE);
    this.#n--;
    return true;
  }

  clear(): void {
    this.#n = 0;
    this.#ordered = true;
  }

  /** Each cell as a copy (a plain Cell: what iterates the cells reads them, and may clone them). */
  forEach(fn: (value: Cell, key: number, map: Map<number, Cell>) => void, thisArg?: unknown): void {
    const b = this.#buf;
    for (let k = 0; k < this.#n; k++) {
      const o = k * STRIDE;
      fn.call(
        thisArg,
        { count: small(b[o + 1]!), ticks: small(b[o + 2]!), minTicks: small(b[o + 3]!), maxTicks: small(b[o + 4]!) },
        small(b[o]!),
        this,
      );
    }
  }

  /** Its cells as they are held (see stepFigures): read in place. */
  packedFigures(): StepFigures {
    return { buf: this.#buf, at: 0, n: this.#n };
  }

  /** Each cell's figures, in order, read in place (see forEachStepFigure). */
  forEachFigure(fn: StepFigureFn): void {
    const b = this.#buf;
    for (let o = 0, end = this.#n * STRIDE; o < end; o += STRIDE)
      fn(small(b[o]!), small(b[o + 1]!), small(b[o + 2]!), small(b[o + 3]!), small(b[o + 4]!));
  }

  protected asMap(): Map<number, Cell> {
    const m = new Map<number, Cell>();
    this.forEach((c, s) => {
      m.set(s, c);
    });
    return m;
  }

  get [Symbol.toStringTag](): string {
    return 'GrowingSteps';
  }
}

/**
 * A cell whose four figures are read and written elsewhere (packed numbers): field k (0 count, 1 ticks, 2 minTicks,
 * 3 maxTicks) read by `field`, written by `setField`. A fine group's total and cells in its table's columns
 * (fineGroups.ts) and a step of a GrowingSteps are such views.
 */
export abstract class CellView implements Cell {
  protected abstract field(k: number): number;
  protected abstract setField(k: number, v: number): void;
  get count(): number {
    return this.field(0);
  }
  set count(v: number) {
    this.setField(0, v);
  }
  get ticks(): number {
    return this.field(1);
  }
  set ticks(v: number) {
    this.setField(1, v);
  }
  get minTicks(): number {
    return this.field(2);
  }
  set minTicks(v: number) {
    this.setField(2, v);
  }
  get maxTicks(): number {
    return this.field(3);
  }
  set maxTicks(v: number) {
    this.setField(3, v);
  }
  get [Symbol.toStringTag](): string {
    return 'CellView';
  }
  /** As JSON, the plain cell it stands for. */
  toJSON(): Cell {
    return { count: this.count, ticks: this.ticks, minTicks: this.minTicks, maxTicks: this.maxTicks };
  }
}

/** The cell of one step of a GrowingSteps, read and written there (NaN once the step is gone). */
class StepView extends CellView {
  constructor(
    private readonly steps: GrowingSteps,
    private readonly step: number,
  ) {
    super();
  }
  protected field(k: number): number {
    return this.steps.field(this.step, k + 1);
  }
  protected setField(k: number, v: number): void {
    if (!this.steps.setField(this.step, k + 1, v)) throw new Error(`internal error: a cell of step ${this.step} written after the step went`);
  }
}

/** A number read back from a Float64Array as the small integer it was (V8 then keeps it unboxed), when it was one. */
export function small(x: number): number {
  const i = x | 0;
  return i === x && !Object.is(x, -0) ? i : x;
}
