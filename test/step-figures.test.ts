// The sums and reports over a group's step cells read each cell's figures in place (forEachStepFigure), never the
// cells as a Map: a worker's packed cells of a group of many steps were otherwise made into a Map of Cell objects
// that stayed (100,000 steps of 10 groups: a diff --per-step at 800 MB), and a summary JSON made an entry, a cell
// and an object per step of every group at once. Step cells that refuse to be iterated hold them to it.

import { describe, expect, it } from 'vitest';
import { type Cell, type Group, type StepFigureFn, StepCells, stepFigures, steppedCell } from '../src/model/model.js';
import { GrowingSteps } from '../src/model/growingSteps.js';
import { StepSums } from '../src/analysis/timeTest.js';
import { groupJson, groupFields } from '../src/report/summary/json.js';
import { stepped } from '../src/report/summary/shared.js';
import { summaryShell } from './helpers.js';

/** Step cells that give their figures (in this order) and refuse every other way of reading them. */
class FiguresOnly extends Map<number, Cell> {
  constructor(private readonly figures: [number, number, number, number, number][]) {
    super();
  }
  override get size(): number {
    return this.figures.length;
  }
  forEachFigure(fn: StepFigureFn): void {
    for (const [s, c, t, lo, hi] of this.figures) fn(s, c, t, lo, hi);
  }
  override get(): Cell | undefined {
    throw new Error('a step cell was looked up');
  }
  override values(): MapIterator<Cell> {
    throw new Error('the step cells were iterated');
  }
  override entries(): MapIterator<[number, Cell]> {
    throw new Error('the step cells were iterated');
  }
  override keys(): MapIterator<number> {
    throw new Error('the step cells were iterated');
  }
  override [Symbol.iterator](): MapIterator<[number, Cell]> {
    throw new Error('the step cells were iterated');
  }
  override forEach(): void {
    throw new Error('the step cells were iterated');
  }
}

/** Steps 9, 2, 5 (out of order, as a table's cells may be), of counts 3, 1, 2. */
function group(): Group {
  const steps = new FiguresOnly([
    [9, 3, 30_000, 10_000, 10_000],
    [2, 1, 5_000, 5_000, 5_000],
    [5, 2, 40_000, 15_000, 25_000],
  ]);
  return { key: 'MatMul', type: 'MatMul', total: { count: 6, ticks: 75_000, minTicks: 5_000, maxTicks: 25_000 }, steps };
}

describe("a group's step cells", () => {
  it('are summed from their figures (steppedCell, stepped)', () => {
    const g = group();
    expect(steppedCell(g.steps)).toEqual({ count: 6, ticks: 75_000, minTicks: 5_000, maxTicks: 25_000 });
    expect(stepped(g)).toBe(6);
  });

  it("are a summary JSON's byStep in step order, made from their figures", () => {
    const g = group();
    const s = summaryShell({ input: 'p', ranks: ['0'], stepIds: [2, 5, 9], hasSteps: true, totals: { ...g.total }, groups: [g], perRank: [] });
    expect(groupJson(s, g, null).byStep).toEqual([
      { step: 2, count: 1, totalUs: 0.5 },
      { step: 5, count: 2, totalUs: 4 },
      { step: 9, count: 3, totalUs: 3 },
    ]);
    // The CSV's fields are the JSON's without its cells per step.
    const { byStep: _, ...fields } = groupJson(s, g, null);
    expect(groupFields(s, g, null)).toEqual(fields);
  });
});

describe('stepFigures', () => {
  const figures = [
    [9, 3, 30_000, 10_000, 10_000],
    [2, 1, 5_000, 5_000, 5_000],
    [5, 2, 40_000, 15_000, 25_000],
  ];
  const flat = figures.flat();

  it("reads the cells packed where they are held: a read's GrowingSteps, a worker's StepCells (no copy)", () => {
    const growing = new GrowingSteps();
    for (const [st, c, t] of figures) {
      const k = growing.slot(st!);
      // Kernels of equal ticks: the cell's min and max are the figures' when c kernels of t / c each are added.
      for (let i = 0; i < c!; i++) growing.addTicks(k, t! / c!);
    }
    const g = stepFigures(growing);
    expect(g.n).toBe(3);
    expect(stepFigures(growing).buf).toBe(g.buf);
    expect([...g.buf.subarray(g.at, g.at + 15)]).toEqual([9, 3, 30_000, 10_000, 10_000, 2, 1, 5_000, 5_000, 5_000, 5, 2, 40_000, 20_000, 20_000]);

    const buf = new Float64Array([7, 7, 7, 7, 7, ...flat]);
    const packed = stepFigures(StepCells.packed(buf, 5, 3));
    expect(packed).toEqual({ buf, at: 5, n: 3 });
    expect(packed.buf).toBe(buf);
  });

  it('copies the cells of any other holder, in their order, with the same figures', () => {
    const plain = new Map<number, Cell>(figures.map(([st, c, t, lo, hi]) => [st!, { count: c!, ticks: t!, minTicks: lo!, maxTicks: hi! }]));
    const g = stepFigures(plain);
    expect({ at: g.at, n: g.n, figures: [...g.buf] }).toEqual({ at: 0, n: 3, figures: flat });
    expect([...stepFigures(group().steps).buf]).toEqual(flat);
    expect(stepFigures(new Map()).n).toBe(0);
  });

  it("give the noise test's sums per step alike from any holder", () => {
    const sums = (steps: Map<number, Cell>): number[] => {
      const s = new StepSums();
      s.add({ ...group(), steps });
      const values: number[] = [];
      s.samples(4, values);
      return values;
    };
    const want = [30_000, 5_000, 40_000];
    expect(sums(group().steps)).toEqual(want);
    expect(sums(StepCells.packed(new Float64Array(flat), 0, 3))).toEqual(want);
  });
});
