// The packed step cells a read makes (model/growingSteps.ts) behave as the Map of cells they replace: any sequence
// of kernels added, cells set, written through a looked-up cell, deleted and cleared leaves the same cells, in the
// same order, read every way the code reads them.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GrowingSteps } from '../src/model/growingSteps.js';
import { addToCell, emptyCell, forEachStepFigure, type Cell } from '../src/model/model.js';

type Op =
  | { op: 'add'; step: number; ticks: number }
  | { op: 'set'; step: number; cell: Cell }
  | { op: 'write'; step: number; field: keyof Cell; value: number }
  | { op: 'delete'; step: number }
  | { op: 'clear' };

const step = fc.oneof(fc.integer({ min: -3, max: 12 }), fc.constantFrom(2 ** 40, -(2 ** 31)));
const ticks = fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom(2 ** 52 + 1, 0.5));
const cell = fc.record({ count: fc.nat(1000), ticks, minTicks: ticks, maxTicks: ticks });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ op: fc.constant('add' as const), step, ticks }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('set' as const), step, cell }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('write' as const),
      step,
      field: fc.constantFrom('count', 'ticks', 'minTicks', 'maxTicks') as fc.Arbitrary<keyof Cell>,
      value: ticks,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), step }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const) }) },
);

/** Every way the code reads step cells, as plain data. */
function read(m: Map<number, Cell>, probes: number[]) {
  const plain = (c: Cell | undefined) =>
    c === undefined ? undefined : { count: c.count, ticks: c.ticks, minTicks: c.minTicks, maxTicks: c.maxTicks };
  const each: unknown[] = [];
  m.forEach((c, s) => each.push([s, plain(c)]));
  const figures: unknown[] = [];
  forEachStepFigure(m, (s, count, t, min, max) => figures.push([s, { count, ticks: t, minTicks: min, maxTicks: max }]));
  return {
    size: m.size,
    each,
    figures,
    entries: [...m.entries()].map(([s, c]) => [s, plain(c)]),
    keys: [...m.keys()],
    got: probes.map((s) => [m.has(s), plain(m.get(s))]),
    json: JSON.stringify(m),
    clone: structuredClone([...m.values()]),
  };
}

describe('GrowingSteps', () => {
  it('holds the cells a Map of cells holds, after any sequence of adds, sets, writes through get, deletes and clears', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const want = new Map<number, Cell>();
        const got = new GrowingSteps();
        for (const o of ops) {
          if (o.op === 'add') {
            if (!want.has(o.step)) want.set(o.step, emptyCell());
            addToCell(want.get(o.step)!, o.ticks);
            got.addTicks(got.slot(o.step), o.ticks);
          } else if (o.op === 'set') {
            want.set(o.step, { ...o.cell });
            got.set(o.step, o.cell);
          } else if (o.op === 'write') {
            const w = want.get(o.step);
            const g = got.get(o.step);
            expect(g === undefined).toBe(w === undefined);
            if (w !== undefined) w[o.field] = o.value;
            if (g !== undefined) g[o.field] = o.value;
          } else if (o.op === 'delete') expect(got.delete(o.step)).toBe(want.delete(o.step));
          else {
            want.clear();
            got.clear();
          }
        }
        const probes = [...new Set([...want.keys(), -3, 0, 5, 99])];
        expect(read(got, probes)).toEqual(read(want, probes));
      }),
      { numRuns: 300 },
    );
  });

  it('finds a step by bisection while steps come in order, and by a walk once they do not', () => {
    const g = new GrowingSteps();
    for (let s = 0; s < 1000; s += 3) g.addTicks(g.slot(s), s);
    expect(g.size).toBe(334);
    expect(g.indexOf(300)).toBe(100);
    expect(g.indexOf(301)).toBe(-1);
    g.addTicks(g.slot(-1), 7);
    expect(g.indexOf(300)).toBe(100);
    expect(g.indexOf(-1)).toBe(334);
    expect([...g.keys()].slice(-2)).toEqual([999, -1]);
  });

  it('a cell looked up reads the cell as it is now, and fails to be written once its step is gone', () => {
    const g = new GrowingSteps();
    g.addTicks(g.slot(4), 10);
    const c = g.get(4)!;
    g.addTicks(g.slot(4), 30);
    expect(c.ticks).toBe(40);
    g.delete(4);
    expect(c.count).toBeNaN();
    expect(() => {
      c.count = 1;
    }).toThrow(/internal error/);
  });
});
