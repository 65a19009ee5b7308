// Per-step cells cross from a worker to the main thread packed in one Float64Array (transferred, not copied)
// instead of as a structured clone of a Map of objects per group: at a thousand steps of a few hundred groups
// that is a few hundred thousand small objects, which cost memory twice (the serialized copy and the objects)
// and time. Everything else in RankData goes as a structured clone.

import type { Cell, FineGroup, RankData } from '../model.js';

/** The fields of a Cell, in packed order. The check below fails to compile if Cell gains a field. */
const FIELDS = ['count', 'ticks', 'minTicks', 'maxTicks'] as const;
type Missing = Exclude<keyof Cell, (typeof FIELDS)[number]>;
const exact: [Missing] extends [never] ? true : never = true;
void exact;

const STRIDE = FIELDS.length + 1; // step id, then the fields

export interface PackedRanks {
  /** The ranks with every group's `steps` emptied. */
  ranks: RankData[];
  /** Per group, in iteration order of every rank's groups: how many steps it had. */
  sizes: Int32Array<ArrayBuffer>;
  cells: Float64Array<ArrayBuffer>;
}

export function packRanks(ranks: RankData[]): PackedRanks {
  const groups: FineGroup[] = [];
  let n = 0;
  for (const r of ranks) {
    for (const g of r.groups.values()) {
      groups.push(g);
      n += g.steps.size;
    }
  }
  const sizes = new Int32Array(groups.length);
  const cells = new Float64Array(n * STRIDE);
  let o = 0;
  groups.forEach((g, i) => {
    sizes[i] = g.steps.size;
    for (const [step, c] of g.steps) {
      cells[o++] = step;
      cells[o++] = c.count;
      cells[o++] = c.ticks;
      cells[o++] = c.minTicks;
      cells[o++] = c.maxTicks;
    }
    g.steps = new Map();
  });
  return { ranks, sizes, cells };
}

export function unpackRanks(p: PackedRanks): RankData[] {
  let i = 0;
  let o = 0;
  const { sizes, cells } = p;
  for (const r of p.ranks) {
    for (const g of r.groups.values()) {
      const steps = new Map<number, Cell>();
      const size = sizes[i++]!;
      for (let k = 0; k < size; k++) {
        steps.set(small(cells[o]!), { count: small(cells[o + 1]!), ticks: cells[o + 2]!, minTicks: cells[o + 3]!, maxTicks: cells[o + 4]! });
        o += STRIDE;
      }
      g.steps = steps;
    }
  }
  return p.ranks;
}

/** A number read back from a Float64Array as the small integer it was (V8 then keeps it unboxed), when it was one. */
function small(x: number): number {
  const i = x | 0;
  return i === x ? i : x;
}
