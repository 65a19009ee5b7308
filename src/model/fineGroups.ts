// A rank's fine groups held as columns: what a profile of a million distinct kernel names costs, read.
//
// Over 400 lines: one data structure (the columns, the index, and the views that make them a Map of FineGroups
// with cells to every stage that reads one), whose parts only work together.
//
// The accumulator made one FineGroup object a fine group: the object, its total Cell and step Cell (each with four
// boxed doubles: minTicks starts at +∞, so the fields are doubles), a StepCells, the Map entry and its JSON key:
// some 520 bytes a group once read, 1 M distinct names ~520 MB before anything else ran. Here a group is a row of
// typed arrays (its total, and its step when all its kernels are of one: that step's cell is its total, 40
// bytes), its type, core and shapes texts are indices into one table of the distinct texts, its name is the one
// string a group keeps (the index looks a group up by its name when it has no shapes, so no key string is made),
// and a group of two steps or more (or kernels outside any step beside those in one) keeps its cells packed, 40
// bytes a cell (model/growingSteps.ts: a Map of a Cell object a step cost ~150).
// FineGroupTable is a Map<string, FineGroup> to every stage that reads one: a FineGroup read from it is a view of
// its row (a small object made on each read, never kept by the table), whose cells read and write the
// columns. Groups set from outside as objects (a summary JSON's) are kept as the objects they are.

import { CellView, GrowingSteps, small } from './growingSteps.js';
import { TextIndex } from './textIndex.js';
import { CellsOverMap, type Cell, type FineGroup, type Group, type GroupFields, type StepFigureFn } from './model.js';

/**
 * The key of a fine group: the fields as a JSON array, so that no text in a field (a name holding a separator, say)
 * can make two groups one. A missing field and an empty one are the same here. `cls`: the class of its raw name
 * (input/accumulator.ts), '' for most. The table below makes a key only to iterate, or for a group with shapes.
 */
export function fineKey(name: string | null, type: string | null, core: string | null, shapes: string | null, cls = ''): string {
  return JSON.stringify([name ?? '', type ?? '', core ?? '', shapes ?? '', cls]);
}

/** The few fields of a group that most groups lack. */
interface Rare {
  rawName?: string;
  /** The raw-name class of its key (see fineKey): '' when absent. */
  cls?: string;
}

const TOT = 4; // count, ticks, minTicks, maxTicks
/** A group's figures in FineGroupTable.totals (count, ticks, min, max); .inlineSteps holds one number a group. */
export const TOTAL_STRIDE = TOT;
/**
 * A group's steps in Columns.st, one number: a step (finite), when every kernel of the group is of that step so
 * far (its one step cell is its total, not held twice: 32 bytes a group, most groups by name); NaN when it has no
 * step cell; MANY when its cells are in its Map (Columns.multi).
 */
export const MANY = Number.POSITIVE_INFINITY;

/** Tables of this many groups or more let their index go once read (Columns.trim). */
const INDEX_DROPPED_FROM = 1 << 16;

/** The columns of a table, shared with the views of its groups (which read them anew at each access: they grow). */
class Columns {
  n = 0;
  tot: Float64Array<ArrayBuffer> = new Float64Array(16 * TOT);
  /** The step whose cell is the total, NaN or MANY (see MANY). */
  st: Float64Array<ArrayBuffer> = new Float64Array(16);
  names: (string | null)[] = [];
  type: Int32Array<ArrayBuffer> = new Int32Array(16);
  core: Int32Array<ArrayBuffer> = new Int32Array(16);
  shapes: Int32Array<ArrayBuffer> = new Int32Array(16);
  /** The next group of the same name (index of byName), -1 at the end of the chain. */
  next: Int32Array<ArrayBuffer> = new Int32Array(16);
  texts: string[] = [];
  textIds = new Map<string, number>();
  /** The first group of each name, for groups with a name and no shapes (most groups by name). */
  byName = this.nameIndex();
  /** The other groups, by key (fineKey). */
  byKey = new Map<string, number>();
  /** How many of those have a name (and shapes): a name's chain then holds not every group of that name. */
  namedByKey = 0;
  /**
   * byName and byKey hold every group (false: a worker's columns not looked up yet: made on the first find or
   * add, as a summary by name looks no group up, and the index of a million names costs tens of MB).
   */
  indexed = true;
  /** Of each group, whether a group is before it in its name's chain (made when first asked, dropped on add). */
  #chained: Uint8Array | null = null;
  /** The step cells of a group of more than one step (or made elsewhere: a worker's packed cells). */
  multi = new Map<number, Map<number, Cell>>();
  rare = new Map<number, Rare>();

  /** An index of names to the first group of each (whose name it reads from the column). */
  private nameIndex(): TextIndex {
    return new TextIndex((i) => this.names[i]!);
  }

  text(t: string | null): number {
    if (t === null) return -1;
    let id = this.textIds.get(t);
    if (id === undefined) {
      id = this.texts.length;
      this.texts.push(t);
      this.textIds.set(t, id);
    }
    return id;
  }

  textOf(id: number): string | null {
    return id < 0 ? null : this.texts[id]!;
  }

  /**
   * Group `i`'s step cells in its Map, when they are not already (made with the cell of its one step, a copy of
   * its total, if it has one): before its total and that cell part (a write to its total, or to another step).
   */
  promote(i: number): Map<number, Cell> {
    let m = this.multi.get(i);
    if (m === undefined) {
      const s = this.st[i]!;
      const g = new GrowingSteps();
      if (!Number.isNaN(s)) g.set(small(s), totalCopy(this, i));
      m = g;
      this.multi.set(i, m);
      this.st[i] = MANY;
    }
    return m;
  }

  grow(): void {
    const cap = Math.max(16, this.type.length * 2);
    const f64 = (a: Float64Array, w: number): Float64Array<ArrayBuffer> => {
      const b = new Float64Array(cap * w);
      b.set(a);
      return b;
    };
    const i32 = (a: Int32Array): Int32Array<ArrayBuffer> => {
      const b = new Int32Array(cap);
      b.set(a);
      return b;
    };
    this.tot = f64(this.tot, TOT);
    this.st = f64(this.st, 1);
    this.type = i32(this.type);
    this.core = i32(this.core);
    this.shapes = i32(this.shapes);
    this.next = i32(this.next);
  }

  /**
   * The columns cut to the groups they hold (they grow by doubling: up to half of them unused), when a quarter or
   * more is unused (the cut copies them).
   */
  trim(): void {
    // A large index goes too (made again from the chains if a group is looked up after): tens of MB at a million
    // groups, which a summary does not look up.
    if (this.n >= INDEX_DROPPED_FROM && this.indexed) {
      this.byName = this.nameIndex();
      this.byKey = new Map();
      this.indexed = false;
    }
    const n = Math.max(this.n, 1);
    if (this.type.length * 3 <= n * 4) return;
    this.tot = this.tot.slice(0, n * TOT);
    this.st = this.st.slice(0, n);
    this.type = this.type.slice(0, n);
    this.core = this.core.slice(0, n);
    this.shapes = this.shapes.slice(0, n);
    this.next = this.next.slice(0, n);
  }

  /** The index of the group of these fields, or -1. */
  find(name: string | null, type: string | null, core: string | null, shapes: string | null, cls: string): number {
    if (!this.indexed) this.makeIndex();
    if (useName(name, shapes)) {
      for (let i = this.byName.get(name!) ?? -1; i >= 0; i = this.next[i]!) {
        if (same(this.textOf(this.type[i]!), type) && same(this.textOf(this.core[i]!), core) && (this.rare.get(i)?.cls ?? '') === cls) return i;
      }
      return -1;
    }
    return this.byKey.get(lookupKey(name, type, core, shapes, cls)) ?? -1;
  }

  /** A new empty group of these fields (the caller found none). */
  add(name: string | null, type: string | null, core: string | null, shapes: string | null, cls: string, rawName: string | undefined): number {
    if (!this.indexed) this.makeIndex();
    this.#chained = null;
    if (this.n === this.type.length) this.grow();
    const i = this.n++;
    this.names.push(name);
    this.type[i] = this.text(type);
    this.core[i] = this.text(core);
    this.shapes[i] = this.text(shapes);
    const t = i * TOT;
    this.tot[t] = 0;
    this.tot[t + 1] = 0;
    this.tot[t + 2] = Number.POSITIVE_INFINITY;
    this.tot[t + 3] = Number.NEGATIVE_INFINITY;
    this.st[i] = Number.NaN;
    if (cls !== '' || rawName !== undefined) {
      const r: Rare = {};
      if (cls !== '') r.cls = cls;
      if (rawName !== undefined) r.rawName = rawName;
      this.rare.set(i, r);
    }
    if (useName(name, shapes)) {
      // Appended at the end of its name's chain: the chain is short (the types and cores of one name).
      const first = this.byName.get(name!);
      this.next[i] = -1;
      if (first === undefined) this.byName.set(name!, i);
      else {
        let j = first;
        while (this.next[j]! >= 0) j = this.next[j]!;
        this.next[j] = i;
      }
    } else {
      this.next[i] = -1;
      if (name !== null && name !== '') this.namedByKey++;
      this.byKey.set(lookupKey(name, type, core, shapes, cls), i);
    }
    return i;
  }

  /** Make byName and byKey of columns that came with their chains (next) and no index. */
  makeIndex(): void {
    this.indexed = true;
    const chained = this.chained();
    for (let i = 0; i < this.n; i++) {
      const name = this.names[i]!;
      if (useName(name, this.textOf(this.shapes[i]!))) {
        if (chained[i] === 0) this.byName.set(name!, i);
      } else
        this.byKey.set(
          lookupKey(name, this.textOf(this.type[i]!), this.textOf(this.core[i]!), this.textOf(this.shapes[i]!), this.rare.get(i)?.cls ?? ''),
          i,
        );
    }
  }

  /** The class of this table's NamedRow groups, made on first use. */
  #named: (new (i: number) => Group) | null = null;

  /** The group by name of row `i` (alone in its name: see FineGroupTable.aloneGroup). */
  named(i: number): Group {
    if (this.#named === null) {
      const c = this;
      this.#named = class extends NamedRow {
        protected get c(): Columns {
          return c;
        }
      };
    }
    return new this.#named(i);
  }

  /** Is group `i` the only one of its name's chain (no other type, core or raw-name class of its name)? */
  aloneInChain(i: number): boolean {
    return this.next[i] === -1 && this.chained()[i] === 0;
  }

  private chained(): Uint8Array {
    if (this.#chained === null) {
      const c = new Uint8Array(this.n);
      for (let i = 0; i < this.n; i++) if (this.next[i]! >= 0) c[this.next[i]!] = 1;
      this.#chained = c;
    }
    return this.#chained;
  }

  key(i: number): string {
    return fineKey(this.names[i]!, this.textOf(this.type[i]!), this.textOf(this.core[i]!), this.textOf(this.shapes[i]!), this.rare.get(i)?.cls ?? '');
  }
}

/**
 * The key byKey finds a group by: its fields, each after its length (so no text can make two groups one, as with
 * fineKey, and a missing field is an empty one), made without fineKey's array and JSON escaping. A read of a
 * million distinct names folded by type looks a group up for each row.
 */
function lookupKey(name: string | null, type: string | null, core: string | null, shapes: string | null, cls: string): string {
  const n = name ?? '';
  const t = type ?? '';
  const c = core ?? '';
  const s = shapes ?? '';
  return `${n.length}:${n}${t.length}:${t}${c.length}:${c}${s.length}:${s}${cls}`;
}

/** Groups with a name and no shapes are found by their name (no key string made): the others by key. */
function useName(name: string | null, shapes: string | null): boolean {
  return name !== null && name !== '' && (shapes === null || shapes === '');
}

/** Two field texts are the same in a key (a missing field and an empty one are: fineKey). */
function same(a: string | null, b: string | null): boolean {
  return (a ?? '') === (b ?? '');
}

const FIELDS = ['count', 'ticks', 'minTicks', 'maxTicks'] as const;

/** A cell of a group read and written in the columns: field k (FIELDS) read by `field`, written by `setField`. */
abstract class ColumnCell extends CellView {
  constructor(
    protected readonly c: Columns,
    protected readonly i: number,
  ) {
    super();
  }
}

/** The total cell of group `i` (read anew at each access: the columns grow). */
class TotalCell extends ColumnCell {
  protected field(k: number): number {
    return small(this.c.tot[this.i * TOT + k]!);
  }
  protected setField(k: number, v: number): void {
    // The cell of the group's one step was its total: it keeps its figures.
    if (Number.isFinite(this.c.st[this.i]!)) this.c.promote(this.i);
    this.c.tot[this.i * TOT + k] = v;
  }
}

/**
 * The cell of group `i`'s one step, `step`: its total while that step is inline (see MANY), else (once the total
 * and it part) the cell of that step in its Map.
 */
class InlineCell extends ColumnCell {
  constructor(
    c: Columns,
    i: number,
    private readonly step: number,
  ) {
    super(c, i);
  }
  protected field(k: number): number {
    if (this.c.st[this.i] === this.step) return small(this.c.tot[this.i * TOT + k]!);
    return this.c.multi.get(this.i)?.get(this.step)?.[FIELDS[k]!] ?? Number.NaN;
  }
  protected setField(k: number, v: number): void {
    const cell = this.c.promote(this.i).get(this.step);
    if (cell === undefined) throw new Error(`internal error: a cell of step ${this.step} written after the step went`);
    cell[FIELDS[k]!] = v;
  }
}

/**
 * The step cells of a group: its total as the cell of its one step while every kernel of it is of that step (see
 * MANY), else the group's Map. set() of a cell equal to the total, as the group's first or only step, makes it that
 * step; any other cell goes in the Map (a copy, as the cell was copied inline before). A cell got from it is a view
 * of the columns while the step is inline.
 */
class GroupSteps extends CellsOverMap implements Map<number, Cell> {
  constructor(
    private readonly c: Columns,
    private readonly i: number,
  ) {
    super();
  }

  #many(): Map<number, Cell> | undefined {
    return this.c.multi.get(this.i);
  }

  /** The inline step (NaN: none; read only while the group has no Map). */
  #step(): number {
    return this.c.st[this.i]!;
  }

  get size(): number {
    const m = this.#many();
    if (m !== undefined) return m.size;
    return Number.isNaN(this.#step()) ? 0 : 1;
  }

  get(step: number): Cell | undefined {
    const m = this.#many();
    if (m !== undefined) return m.get(step);
    return this.#step() === step ? new InlineCell(this.c, this.i, step) : undefined;
  }

  has(step: number): boolean {
    const m = this.#many();
    return m !== undefined ? m.has(step) : this.#step() === step;
  }

  set(step: number, cell: Cell): this {
    const m = this.#many();
    if (m !== undefined) {
      m.set(step, cell);
      return this;
    }
    const s = this.#step();
    if ((Number.isNaN(s) || s === step) && sameCell(cell, this.c, this.i)) {
      this.c.st[this.i] = step;
      return this;
    }
    if (s === step) this.c.st[this.i] = Number.NaN;
    this.c.promote(this.i).set(step, { count: cell.count, ticks: cell.ticks, minTicks: cell.minTicks, maxTicks: cell.maxTicks });
    return this;
  }

  delete(step: number): boolean {
    const m = this.#many();
    if (m !== undefined) return m.delete(step);
    if (this.#step() !== step) return false;
    this.c.st[this.i] = Number.NaN;
    return true;
  }

  clear(): void {
    const m = this.#many();
    if (m !== undefined) m.clear();
    else this.c.st[this.i] = Number.NaN;
  }

  forEach(fn: (value: Cell, key: number, map: Map<number, Cell>) => void, thisArg?: unknown): void {
    const m = this.#many();
    if (m !== undefined) {
      m.forEach((c, s) => {
        fn.call(thisArg, c, s, this);
      });
      return;
    }
    const s = this.#step();
    if (!Number.isNaN(s)) fn.call(thisArg, new InlineCell(this.c, this.i, small(s)), small(s), this);
  }

  /** Each cell's figures, in order, without a cell made or a call through forEach (see forEachStepFigure). */
  forEachFigure(fn: StepFigureFn): void {
    const m = this.#many();
    if (m !== undefined) {
      m.forEach((c, s) => {
        fn(s, c.count, c.ticks, c.minTicks, c.maxTicks);
      });
      return;
    }
    const s = this.#step();
    if (Number.isNaN(s)) return;
    // The one step's cell is the group's total (InlineCell).
    const t = this.c.tot;
    const o = this.i * TOT;
    fn(small(s), small(t[o]!), small(t[o + 1]!), small(t[o + 2]!), small(t[o + 3]!));
  }

  /** The cells as a Map to iterate: the group's own, else a new one of the inline cell (or none). */
  protected asMap(): Map<number, Cell> {
    const m = this.#many();
    if (m !== undefined) return m;
    const s = this.#step();
    return Number.isNaN(s) ? new Map() : new Map([[small(s), new InlineCell(this.c, this.i, small(s)) as Cell]]);
  }

  get [Symbol.toStringTag](): string {
    return 'GroupSteps';
  }
}

/** Group `i`'s total, as a cell of its own. */
function totalCopy(c: Columns, i: number): Cell {
  const o = i * TOT;
  return { count: small(c.tot[o]!), ticks: small(c.tot[o + 1]!), minTicks: small(c.tot[o + 2]!), maxTicks: small(c.tot[o + 3]!) };
}

/** Has `cell` the figures of group `i`'s total? */
function sameCell(cell: Cell, c: Columns, i: number): boolean {
  const o = i * TOT;
  return cell.count === c.tot[o] && cell.ticks === c.tot[o + 1] && cell.minTicks === c.tot[o + 2] && cell.maxTicks === c.tot[o + 3];
}

/** One group of a table, as a FineGroup: made on each read, reading the columns. */
class GroupView implements FineGroup {
  constructor(
    readonly table: Columns,
    readonly index: number,
  ) {}
  get name(): string | null {
    return this.table.names[this.index]!;
  }
  get type(): string | null {
    return this.table.textOf(this.table.type[this.index]!);
  }
  get core(): string | null {
    return this.table.textOf(this.table.core[this.index]!);
  }
  get shapes(): string | null {
    return this.table.textOf(this.table.shapes[this.index]!);
  }
  get rawName(): string | undefined {
    return this.table.rare.get(this.index)?.rawName;
  }
  get total(): Cell {
    return new TotalCell(this.table, this.index);
  }
  get steps(): Map<number, Cell> {
    return this.table.multi.get(this.index) ?? new GroupSteps(this.table, this.index);
  }
  get savedKey(): undefined {
    return undefined;
  }
  get savedUserGroup(): undefined {
    return undefined;
  }
  get [Symbol.toStringTag](): string {
    return 'FineGroupView';
  }
  /** As JSON, the plain group it stands for (step cells as a Map write: {}). */
  toJSON(): FineGroup {
    const g: FineGroup = { name: this.name, type: this.type, core: this.core, shapes: this.shapes, total: this.total, steps: this.steps };
    const raw = this.rawName;
    if (raw !== undefined) g.rawName = raw;
    return g;
  }
}

/** Which of its fine group's fields a group of one holds (bits of RowGroup.fields). */
const FIELD_BITS = { name: 1, type: 2, core: 4, shapes: 8 } as const;

/**
 * A summary's group of one fine group of a table (most groups by name): its key, and the fine group's row, whose
 * cells it reads (views, as the fine group's), where a Group object with its two views costs ~140 bytes. Its
 * single-valued fields are those of its fine group that the grouping keeps (keyOf): a set of FIELD_BITS.
 */
abstract class RowView implements Group {
  abstract readonly key: string;
  protected abstract get c(): Columns;
  /** The row's index. */
  protected abstract get i(): number;
  /** Does the group hold this field of FIELD_BITS? */
  protected abstract has(bit: number): boolean;
  get name(): string | undefined {
    return this.has(FIELD_BITS.name) ? (this.c.names[this.i] ?? undefined) : undefined;
  }
  get type(): string | undefined {
    return this.has(FIELD_BITS.type) ? (this.c.textOf(this.c.type[this.i]!) ?? undefined) : undefined;
  }
  get core(): string | undefined {
    return this.has(FIELD_BITS.core) ? (this.c.textOf(this.c.core[this.i]!) ?? undefined) : undefined;
  }
  get shapes(): string | undefined {
    return this.has(FIELD_BITS.shapes) ? (this.c.textOf(this.c.shapes[this.i]!) ?? undefined) : undefined;
  }
  get userGroup(): undefined {
    return undefined;
  }
  get total(): Cell {
    return new TotalCell(this.c, this.i);
  }
  get steps(): Map<number, Cell> {
    return this.c.multi.get(this.i) ?? new GroupSteps(this.c, this.i);
  }
  get [Symbol.toStringTag](): string {
    return 'RowGroup';
  }
  /** Its total's count (0) or ticks (1), read with no cell made (see totalFigure). */
  figure(k: 0 | 1): number {
    return small(this.c.tot[this.i * TOT + k]!);
  }
  /** As JSON, the plain group it stands for. */
  toJSON(): Group {
    const g: Group = { key: this.key, total: this.total, steps: this.steps };
    for (const f of ['type', 'name', 'core', 'shapes'] as const) {
      const v = this[f];
      if (v !== undefined) g[f] = v;
    }
    return g;
  }
}

/** A row's group of any fields: the row's index and the field bits in one number (`at`: index × 16 + bits). 48 bytes. */
class RowGroup extends RowView {
  constructor(
    readonly key: string,
    protected readonly c: Columns,
    private readonly at: number,
  ) {
    super();
  }
  protected get i(): number {
    return Math.floor(this.at / 16);
  }
  protected has(bit: number): boolean {
    return Math.floor(this.at / bit) % 2 === 1;
  }
}

/**
 * The group by name of a fine group alone in its name (FineGroupTable.aloneGroup): its key and only field are its
 * name, and it holds the row's index alone (32 bytes): its columns are its class's, one class a table
 * (Columns.named).
 */
abstract class NamedRow extends RowView {
  constructor(protected readonly i: number) {
    super();
  }
  get key(): string {
    return this.c.names[this.i]!;
  }
  protected has(bit: number): boolean {
    return bit === FIELD_BITS.name;
  }
  /** Hold `name`, a string equal to its own, in its place (see shareName). */
  adopt(name: string): void {
    if (this.c.names[this.i] === name) this.c.names[this.i] = name;
  }
}

/** The lists of namedGroups: in sortGroups' order by time as made (read-only). */
const byTime = new WeakSet<readonly Group[]>();

/** How a list's groups and their keys are read by position (ListReader). */
export interface ListReader {
  group(i: number): Group;
  key(i: number): string;
}

/** The readers of the lists of namedGroups, past their Proxy (which has each index as a string to parse). */
const readers = new WeakMap<readonly Group[], ListReader>();

/**
 * How to read `list`'s groups and keys by position, for a pass over many: a list of namedGroups is read past its
 * Proxy (a key read from its column, with no group made), any other as the array it is.
 */
export function listReader(list: readonly Group[]): ListReader {
  return readers.get(list) ?? { group: (i) => list[i]!, key: (i) => list[i]!.key };
}

/** Is `groups` a list of namedGroups, in sortGroups' order by time (not to be checked by reading every group)? */
export function sortedByTime(groups: readonly Group[]): boolean {
  return byTime.has(groups);
}

/**
 * A list of the groups by name of rows (NamedRows of one table), in that order, whose groups are made when read:
 * a list of a million groups held as the rows' indices (4 bytes each), not as a million objects and their slots
 * (40 bytes each). It is a list to every reader (an Array: length, indexing, iteration, the Array methods): a
 * Proxy of an empty array whose indices below its length read the row's group. A group read twice is two objects
 * (nothing compares groups by identity: a diff's index by key keeps positions); it is read-only.
 */
function namedGroupList(c: Columns, rows: Int32Array): Group[] {
  const n = rows.length;
  /** The element index `p` names (a whole number below n: Array methods ask for their indices as such), else -1. */
  const at = (p: string | symbol): number => {
    if (typeof p !== 'string') return -1;
    const d = p.charCodeAt(0);
    if (d < 48 || d > 57) return -1;
    const i = +p;
    // An array index is written as its number is: `01`, `1e2` and `0x10` name properties, not elements.
    return i < n && (i | 0) === i && String(i) === p ? i : -1;
  };
  const readOnly = (): never => {
    throw new Error('internal error: a list of groups by name made on read is read-only');
  };
  return new Proxy<Group[]>([], {
    get(target, p, receiver) {
      const i = at(p);
      if (i >= 0) return c.named(rows[i]!);
      if (p === 'length') return n;
      return Reflect.get(target, p, receiver);
    },
    has(target, p) {
      return at(p) >= 0 || Reflect.has(target, p);
    },
    getOwnPropertyDescriptor(target, p) {
      const i = at(p);
      if (i >= 0) return { value: c.named(rows[i]!), writable: false, enumerable: true, configurable: true };
      if (p === 'length') return { value: n, writable: true, enumerable: false, configurable: false };
      return Reflect.getOwnPropertyDescriptor(target, p);
    },
    ownKeys(target) {
      const keys: (string | symbol)[] = [];
      for (let i = 0; i < n; i++) keys.push(String(i));
      return [...keys, ...Reflect.ownKeys(target)];
    },
    set: readOnly,
    defineProperty: readOnly,
    deleteProperty: readOnly,
  });
}

/**
 * A group whose key is `key` holds that string rather than its own copy of it, where it can (a group alone in its
 * name: the name is its key). The diff gives the PR's groups the base's keys: a million names by name are then
 * held once, not once a side (~45 MB).
 */
export function shareName(g: Group, key: string): void {
  if (g instanceof NamedRow) g.adopt(key);
}

/** The count (0) or ticks (1) of a group's total; of a row's group, read from the row with no cell made. */
export function totalFigure(g: Group, k: 0 | 1): number {
  if (g instanceof RowView) return g.figure(k);
  return k === 0 ? g.total.count : g.total.ticks;
}

/** Is this group one of a fine group's row (groupOfRow)? */
export function isRowGroup(g: Group): boolean {
  return g instanceof RowView;
}

/**
 * The group of one fine group `fine` with these fields (keyOf's: the fine group's own, a subset of name, type,
 * core and shapes), reading its row: when `fine` is a view of a table and its whole cells are the group's (no
 * --steps). Null otherwise (the caller makes a Group object).
 */
export function groupOfRow(key: string, fields: Partial<GroupFields>, fine: FineGroup): Group | null {
  if (!(fine instanceof GroupView) || fields.userGroup !== undefined) return null;
  let bits = 0;
  for (const f of ['name', 'type', 'core', 'shapes'] as const) {
    const v = fields[f];
    if (v === undefined) continue;
    if (v !== fine[f]) return null;
    bits |= FIELD_BITS[f];
  }
  // A field the grouping keeps must be in `fields` exactly when the fine group has it (keyOf copies non-null
  // fields): a null one reads back as undefined, as keyOf leaves it out.
  return new RowGroup(key, fine.table, fine.index * 16 + bits);
}

/**
 * A rank's fine groups, by key (see fineKey), as columns. Iteration is in the order groups were added (those of
 * the table, then any set as objects). Nothing deletes a fine group: delete() refuses.
 */
export class FineGroupTable implements Map<string, FineGroup> {
  #c = new Columns();
  /** Groups set as objects (a summary JSON's, with keys of their own), by key. */
  #objects = new Map<string, FineGroup>();

  get size(): number {
    return this.#c.n + this.#objects.size;
  }

  /** The index of the group of these fields, created (empty) when there is none. */
  index(name: string | null, type: string | null, core: string | null, shapes: string | null, cls: string, rawName?: string): number {
    const c = this.#c;
    const i = c.find(name, type, core, shapes, cls);
    return i >= 0 ? i : c.add(name, type, core, shapes, cls, rawName);
  }

  /**
   * Cut the columns to the groups they hold, once the read is done (a group added later grows them again), and
   * let a large index go (made again when a group is next looked up).
   */
  trim(): void {
    this.#c.trim();
  }

  /**
   * Is `g` a group of this table and the only one of its name (no other type, core, shapes or raw-name class of
   * it)? Then grouping by name makes it a group of its own, with no index by key to find out (see summarize).
   */
  aloneInName(g: FineGroup): boolean {
    const c = this.#c;
    if (!(g instanceof GroupView) || g.table !== c || this.#objects.size > 0 || c.namedByKey > 0) return false;
    return useName(c.names[g.index]!, c.textOf(c.shapes[g.index]!)) && c.aloneInChain(g.index);
  }

  /**
   * The group by name of `g` when `g` is alone in its name (aloneInName) and its whole: a NamedRow, whose key and
   * only field are its name. Null when it is not alone.
   */
  aloneGroup(g: FineGroup): Group | null {
    return this.aloneInName(g) ? this.#c.named((g as GroupView).index) : null;
  }

  /** The row of `g` when it is alone in its name (aloneInName: its group by name is aloneGroup's), else -1. */
  aloneRow(g: FineGroup): number {
    return this.aloneInName(g) ? (g as GroupView).index : -1;
  }

  /**
   * The groups by name of rows `rows` (each alone in its name: aloneRow), sorted as sortGroups sorts by time (time
   * then count descending, then by key: the name), as a list that makes each group when it is read (namedGroupList):
   * no object a group is held, where a list of NamedRows held 40 bytes a group (1 M names: 40 MB). Sorts `rows` in
   * place, and keeps it.
   */
  namedGroups(rows: Int32Array): Group[] {
    const c = this.#c;
    const t = c.tot;
    const names = c.names;
    rows.sort((a, b) => {
      const x = names[a]!;
      const y = names[b]!;
      return t[b * TOT + 1]! - t[a * TOT + 1]! || t[b * TOT]! - t[a * TOT]! || (x < y ? -1 : x > y ? 1 : 0);
    });
    const list = namedGroupList(c, rows);
    byTime.add(list);
    readers.set(list, { group: (i) => c.named(rows[i]!), key: (i) => c.names[rows[i]!]! });
    return list;
  }

  /** The group at an index. */
  at(i: number): FineGroup {
    return new GroupView(this.#c, i);
  }

  /** The columns a hot loop writes: totals (4 a group) and inline steps (1 a group: see MANY). */
  get totals(): Float64Array {
    return this.#c.tot;
  }
  get inlineSteps(): Float64Array {
    return this.#c.st;
  }
  /** The Map of step cells of a group of more than one step, if it has one. */
  manySteps(i: number): Map<number, Cell> | undefined {
    return this.#c.multi.get(i);
  }
  /**
   * The step cells of group `i`, packed (GrowingSteps), made when it has none (with the cell of its inline step, a
   * copy of its total): call it before the total takes a kernel of another step or of none. The accumulator finds a
   * step's cell there once (slot) and adds each kernel to it in place (addTicks).
   */
  growingSteps(i: number): GrowingSteps {
    const m = this.#c.promote(i);
    if (!(m instanceof GrowingSteps)) throw new Error('internal error: the step cells of a table read from a worker are read-only');
    return m;
  }

  get(key: string): FineGroup | undefined {
    const o = this.#objects.get(key);
    if (o !== undefined) return o;
    const f = parseKey(key);
    if (f === null) return undefined;
    const i = this.#c.find(f[0] === '' ? null : f[0], f[1], f[2], f[3], f[4]);
    return i < 0 ? undefined : this.at(i);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /**
   * A group of another table (merging ranks read apart) is copied into this one, into its group of the same key
   * (made if there is none); any other FineGroup is kept as it is, by its key.
   */
  set(key: string, g: FineGroup): this {
    if (!(g instanceof GroupView) || key !== g.table.key(g.index)) {
      this.#objects.set(key, g);
      return this;
    }
    const from = g.table;
    const cls = from.rare.get(g.index)?.cls ?? '';
    const i = this.index(g.name, g.type, g.core, g.shapes, cls, g.rawName);
    const c = this.#c;
    c.tot.set(from.tot.subarray(g.index * TOT, g.index * TOT + TOT), i * TOT);
    c.multi.delete(i);
    c.st[i] = Number.NaN;
    const steps = new GroupSteps(c, i);
    g.steps.forEach((cell, s) => {
      steps.set(s, { count: cell.count, ticks: cell.ticks, minTicks: cell.minTicks, maxTicks: cell.maxTicks });
    });
    return this;
  }

  delete(): boolean {
    throw new Error('internal error: fine groups are never deleted');
  }

  clear(): void {
    this.#c = new Columns();
    this.#objects.clear();
  }

  forEach(fn: (value: FineGroup, key: string, map: Map<string, FineGroup>) => void, thisArg?: unknown): void {
    for (const [k, g] of this.entries()) fn.call(thisArg, g, k, this);
  }

  *entries(): MapIterator<[string, FineGroup]> {
    const c = this.#c;
    for (let i = 0; i < c.n; i++) yield [c.key(i), new GroupView(c, i)];
    yield* this.#objects.entries();
  }

  *keys(): MapIterator<string> {
    const c = this.#c;
    for (let i = 0; i < c.n; i++) yield c.key(i);
    yield* this.#objects.keys();
  }

  *values(): MapIterator<FineGroup> {
    const c = this.#c;
    for (let i = 0; i < c.n; i++) yield new GroupView(c, i);
    yield* this.#objects.values();
  }

  [Symbol.iterator](): MapIterator<[string, FineGroup]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'FineGroupTable';
  }

  /** The names of the groups, in the order of columns() (null where columns() is). */
  columnNames(): readonly (string | null)[] | null {
    return this.#objects.size > 0 ? null : this.#c.names;
  }

  /**
   * The columns, for a worker to send (pack.ts): only a table with no group set as an object. Views of the table's
   * own arrays, cut to its groups (trim left a quarter unused at most), not copies: a copy of a million groups'
   * columns cost the worker 84 MB more at its peak. Moved to another thread, they are the table's no more.
   */
  columns(): TableColumns | null {
    if (this.#objects.size > 0) return null;
    const c = this.#c;
    const n = c.n;
    return {
      n,
      names: c.names,
      texts: c.texts,
      type: c.type.subarray(0, n),
      core: c.core.subarray(0, n),
      shapes: c.shapes.subarray(0, n),
      next: c.next.subarray(0, n),
      namedByKey: c.namedByKey,
      totals: c.tot.subarray(0, n * TOT),
      inline: c.st.subarray(0, n),
      rare: [...c.rare].map(([i, r]) => ({ i, ...r })),
      many: [...c.multi.keys()],
    };
  }

  /** A table from a worker's columns; `many(i)`: the step cells of a group listed in `many`. */
  static fromColumns(t: TableColumns, many: (i: number) => Map<number, Cell>): FineGroupTable {
    const table = new FineGroupTable();
    const c = table.#c;
    const n = t.n;
    c.n = n;
    c.names = t.names;
    c.texts = t.texts;
    for (let k = 0; k < t.texts.length; k++) c.textIds.set(t.texts[k]!, k);
    c.type = t.type;
    c.core = t.core;
    c.shapes = t.shapes;
    c.tot = t.totals;
    c.st = t.inline;
    c.next = t.next;
    c.namedByKey = t.namedByKey;
    for (const r of t.rare) {
      const x: Rare = {};
      if (r.cls !== undefined) x.cls = r.cls;
      if (r.rawName !== undefined) x.rawName = r.rawName;
      c.rare.set(r.i, x);
    }
    for (const i of t.many) c.multi.set(i, many(i));
    // The index is made again when first needed (a Map does not cross threads but as a copy of every key).
    c.indexed = false;
    if (n === 0) {
      c.type = new Int32Array(16);
      c.core = new Int32Array(16);
      c.shapes = new Int32Array(16);
      c.next = new Int32Array(16);
      c.tot = new Float64Array(16 * TOT);
      c.st = new Float64Array(16);
    }
    return table;
  }
}

/** A table's columns as a worker sends them (trimmed to its groups). */
export interface TableColumns {
  n: number;
  names: (string | null)[];
  texts: string[];
  type: Int32Array<ArrayBuffer>;
  core: Int32Array<ArrayBuffer>;
  shapes: Int32Array<ArrayBuffer>;
  /** The chains of names (Columns.next), and how many groups with a name are in no chain (namedByKey). */
  next: Int32Array<ArrayBuffer>;
  namedByKey: number;
  totals: Float64Array<ArrayBuffer>;
  inline: Float64Array<ArrayBuffer>;
  rare: ({ i: number } & Rare)[];
  /** The groups with a Map of step cells (sent apart). */
  many: number[];
}

/** The fields of a fine key, or null when it is not one. */
function parseKey(key: string): [string, string | null, string | null, string | null, string] | null {
  if (!key.startsWith('[')) return null;
  let a: unknown;
  try {
    a = JSON.parse(key);
  } catch {
    return null;
  }
  if (!Array.isArray(a) || a.length !== 5 || !a.every((x) => typeof x === 'string')) return null;
  const [name, type, core, shapes, cls] = a as string[];
  return [name!, type!, core!, shapes!, cls!];
}
