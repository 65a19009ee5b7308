// Per-step cells cross from a worker to the main thread packed in one Float64Array (transferred, not copied)
// instead of as a structured clone of a Map of objects per group: at a thousand steps of a few hundred groups
// that is a few hundred thousand small objects, which cost memory twice (the serialized copy and the objects)
// and time. Everything else in RankData goes as a structured clone.

import { StepCells, type Cell, type RankData } from '../../model/model.js';

/** The fields of a Cell, in packed order. The check below fails to compile if Cell gains a field. */
const FIELDS = ['count', 'ticks', 'minTicks', 'maxTicks'] as const;
type Missing = Exclude<keyof Cell, (typeof FIELDS)[number]>;
const exact: [Missing] extends [never] ? true : never = true;
void exact;

const STRIDE = FIELDS.length + 1; // step id, then the fields (the layout StepCells.packed reads back)

export interface PackedRanks {
  /** The ranks with every group's `steps` emptied. */
  ranks: RankData[];
  /** Per group, in iteration order of every rank's groups: how many steps it had. */
  sizes: Int32Array<ArrayBuffer>;
  cells: Float64Array<ArrayBuffer>;
}

export function packRanks(ranks: RankData[]): PackedRanks {
  let groups = 0;
  let n = 0;
  for (const r of ranks) {
    for (const g of r.groups.values()) {
      groups++;
      n += g.steps.size;
    }
  }
  const sizes = new Int32Array(groups);
  const cells = new Float64Array(n * STRIDE);
  let i = 0;
  let o = 0;
  // forEach rather than for-of: this runs once, mostly before it is optimised, where each [step, cell] entry of
  // an iterator would be an allocation.
  const put = (c: Cell, step: number): void => {
    cells[o] = step;
    cells[o + 1] = c.count;
    cells[o + 2] = c.ticks;
    cells[o + 3] = c.minTicks;
    cells[o + 4] = c.maxTicks;
    o += STRIDE;
  };
  for (const r of ranks) {
    for (const g of r.groups.values()) {
      sizes[i++] = g.steps.size;
      g.steps.forEach(put);
      // A Map (what a structured clone keeps as one; a StepCells would arrive as a plain object): emptied.
      g.steps = new Map();
    }
  }
  return { ranks, sizes, cells };
}

/**
 * The ranks with each group's `steps` back, made into cells when first read (StepCells.packed): a diff reads only
 * totals, and making tens of thousands of cells would be most of the time between the worker's answer and the
 * report.
 */
export function unpackRanks(p: PackedRanks): RankData[] {
  const { sizes, cells } = p;
  let i = 0;
  let o = 0;
  for (const r of p.ranks) {
    for (const g of r.groups.values()) {
      const size = sizes[i++]!;
      g.steps = StepCells.packed(cells, o, size);
      o += size * STRIDE;
    }
  }
  return p.ranks;
}
