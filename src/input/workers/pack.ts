// A worker's ranks cross to the main thread packed: each rank's fine groups as columns (their totals and per-step
// cells in Float64Arrays, transferred, not copied; their type, core and shapes texts as indices into one table of
// the distinct texts; their keys and names as two arrays of strings) instead of as a structured clone of a Map of
// objects. A million fine groups (a profile of a million distinct names) cloned as objects cost some 250 bytes each
// in the message alone, on top of the worker's objects and the main thread's; packed, some 60, and the main thread
// makes the objects from the columns. Everything else in RankData goes as a structured clone.

import { forEachStepFigure, StepCells, stepFigures, type Cell, type FineGroup, type RankData } from '../../model/model.js';
import { FineGroupTable, type TableColumns } from '../../model/fineGroups.js';

/** The fields of a Cell, in packed order. The check below fails to compile if Cell gains a field. */
const FIELDS = ['count', 'ticks', 'minTicks', 'maxTicks'] as const;
type Missing = Exclude<keyof Cell, (typeof FIELDS)[number]>;
const exact: [Missing] extends [never] ? true : never = true;
void exact;

/** The fields of a FineGroup that are packed. The check below fails to compile if FineGroup gains a field. */
const GROUP_FIELDS = ['name', 'rawName', 'type', 'core', 'shapes', 'total', 'steps', 'savedKey', 'savedUserGroup'] as const;
type MissingGroupField = Exclude<keyof FineGroup, (typeof GROUP_FIELDS)[number]>;
const exactGroup: [MissingGroupField] extends [never] ? true : never = true;
void exactGroup;

const STRIDE = FIELDS.length + 1; // step id, then the fields (the layout StepCells.packed reads back)

/** One rank's fine groups as columns, in the Map's order. */
export interface PackedGroups {
  keys: string[];
  names: (string | null)[];
  /** The distinct type, core and shapes texts; the columns below index it (-1: null). */
  texts: string[];
  type: Int32Array<ArrayBuffer>;
  core: Int32Array<ArrayBuffer>;
  shapes: Int32Array<ArrayBuffer>;
  /** count, ticks, minTicks, maxTicks of each group. */
  totals: Float64Array<ArrayBuffer>;
  /** The few groups with a raw name or a saved key or user group: their index and those fields. */
  rare: { i: number; rawName?: string; savedKey?: string; savedUserGroup?: string }[];
}

export interface PackedRanks {
  /** The ranks with every `groups` emptied (packed in `groups`, one per rank). */
  ranks: RankData[];
  /**
   * Per rank: the columns of its table (an accumulator's: model/fineGroups.ts, the step cells of its groups of
   * several steps in `cells`), or its groups packed one by one (a Map of objects: a summary JSON's).
   */
  groups: (PackedGroups | { table: TableColumns })[];
  /** Per group, in order of every rank's groups: how many steps it had. */
  sizes: Int32Array<ArrayBuffer>;
  cells: Float64Array<ArrayBuffer>;
}

/** The buffers of a pack, to transfer rather than copy. */
export function packedBuffers(p: PackedRanks): ArrayBuffer[] {
  const out: ArrayBuffer[] = [p.sizes.buffer, p.cells.buffer];
  for (const g of p.groups) {
    if ('table' in g)
      out.push(g.table.type.buffer, g.table.core.buffer, g.table.shapes.buffer, g.table.next.buffer, g.table.totals.buffer, g.table.inline.buffer);
    else out.push(g.type.buffer, g.core.buffer, g.shapes.buffer, g.totals.buffer);
  }
  return out;
}

export function packRanks(ranks: RankData[]): PackedRanks {
  let groups = 0;
  let n = 0;
  const tables = ranks.map((r) => (r.groups instanceof FineGroupTable ? { t: r.groups, cols: r.groups.columns() } : null));
  ranks.forEach((r, ri) => {
    const t = tables[ri];
    if (t != null && t.cols !== null) {
      // Only the step cells of groups of several steps go in `cells`: the others are inline in the columns.
      for (const i of t.cols.many) {
        groups++;
        n += t.t.manySteps(i)!.size;
      }
      return;
    }
    for (const g of r.groups.values()) {
      groups++;
      n += g.steps.size;
    }
  });
  const sizes = new Int32Array(groups);
  const cells = new Float64Array(n * STRIDE);
  let i = 0;
  let o = 0;
  // Each cell's figures read in place (forEachStepFigure), not a cell or an iterator's [step, cell] entry made per
  // cell: this runs once, mostly before it is optimised.
  const put = (step: number, count: number, ticks: number, minTicks: number, maxTicks: number): void => {
    cells[o] = step;
    cells[o + 1] = count;
    cells[o + 2] = ticks;
    cells[o + 3] = minTicks;
    cells[o + 4] = maxTicks;
    o += STRIDE;
  };
  const packed: (PackedGroups | { table: TableColumns })[] = [];
  for (const [ri, r] of ranks.entries()) {
    const table = tables[ri];
    if (table != null && table.cols !== null) {
      for (const gi of table.cols.many) {
        const m = table.t.manySteps(gi)!;
        sizes[i++] = m.size;
        // A read's cells are packed already, in this layout (stepFigures): copied whole (a walk of 18 k cells of the
        // bench pair's 60 groups took ~6 ms, on the way from the worker's read to the rewrites section).
        const f = stepFigures(m);
        cells.set(f.buf.subarray(f.at, f.at + STRIDE * f.n), o);
        o += STRIDE * f.n;
      }
      packed.push({ table: table.cols });
      r.groups = new Map();
      continue;
    }
    const size = r.groups.size;
    const p: PackedGroups = {
      keys: new Array<string>(size),
      names: new Array<string | null>(size),
      texts: [],
      type: new Int32Array(size),
      core: new Int32Array(size),
      shapes: new Int32Array(size),
      totals: new Float64Array(size * FIELDS.length),
      rare: [],
    };
    const textIds = new Map<string, number>();
    const text = (t: string | null): number => {
      if (t === null) return -1;
      let id = textIds.get(t);
      if (id === undefined) {
        id = p.texts.length;
        p.texts.push(t);
        textIds.set(t, id);
      }
      return id;
    };
    let k = 0;
    for (const [key, g] of r.groups) {
      p.keys[k] = key;
      p.names[k] = g.name;
      p.type[k] = text(g.type);
      p.core[k] = text(g.core);
      p.shapes[k] = text(g.shapes);
      const t = k * FIELDS.length;
      p.totals[t] = g.total.count;
      p.totals[t + 1] = g.total.ticks;
      p.totals[t + 2] = g.total.minTicks;
      p.totals[t + 3] = g.total.maxTicks;
      if (g.rawName !== undefined || g.savedKey !== undefined || g.savedUserGroup !== undefined) {
        p.rare.push({
          i: k,
          ...(g.rawName !== undefined ? { rawName: g.rawName } : {}),
          ...(g.savedKey !== undefined ? { savedKey: g.savedKey } : {}),
          ...(g.savedUserGroup !== undefined ? { savedUserGroup: g.savedUserGroup } : {}),
        });
      }
      sizes[i++] = g.steps.size;
      forEachStepFigure(g.steps, put);
      k++;
    }
    packed.push(p);
    r.groups = new Map();
  }
  return { ranks, groups: packed, sizes, cells };
}

/**
 * The ranks with their fine groups made again from the columns, each group's step cells made when first read
 * (StepCells.packed): a diff reads only totals, and making tens of thousands of cells would be most of the time
 * between the worker's answer and the report.
 */
export function unpackRanks(p: PackedRanks): RankData[] {
  const { sizes, cells } = p;
  let i = 0;
  let o = 0;
  p.ranks.forEach((r, ri) => {
    const c = p.groups[ri]!;
    if ('table' in c) {
      r.groups = FineGroupTable.fromColumns(c.table, () => {
        const size = sizes[i++]!;
        const s = StepCells.packed(cells, o, size);
        o += size * STRIDE;
        return s;
      });
      return;
    }
    const rare = new Map(c.rare.map((x) => [x.i, x]));
    const text = (id: number): string | null => (id < 0 ? null : c.texts[id]!);
    const groups = new Map<string, FineGroup>();
    for (let k = 0; k < c.keys.length; k++) {
      const t = k * FIELDS.length;
      const size = sizes[i++]!;
      const g: FineGroup = {
        name: c.names[k]!,
        type: text(c.type[k]!),
        core: text(c.core[k]!),
        shapes: text(c.shapes[k]!),
        total: { count: small(c.totals[t]!), ticks: small(c.totals[t + 1]!), minTicks: small(c.totals[t + 2]!), maxTicks: small(c.totals[t + 3]!) },
        steps: StepCells.packed(cells, o, size),
      };
      o += size * STRIDE;
      const x = rare.get(k);
      if (x !== undefined) {
        if (x.rawName !== undefined) g.rawName = x.rawName;
        if (x.savedKey !== undefined) g.savedKey = x.savedKey;
        if (x.savedUserGroup !== undefined) g.savedUserGroup = x.savedUserGroup;
      }
      groups.set(c.keys[k]!, g);
    }
    r.groups = groups;
  });
  return p.ranks;
}

/** A number read back from a Float64Array as the small integer it was (V8 then keeps it unboxed), when it was one. */
function small(x: number): number {
  const i = x | 0;
  return i === x && !Object.is(x, -0) ? i : x;
}
