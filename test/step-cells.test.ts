// StepCells (model.ts), the per-step cells of a fine group: one step inline, a Map from the second on, or cells a
// worker packed until first read. Under any sequence of operations it answers as a Map does, in the same order.

import { describe, expect, it } from 'vitest';
import { forEachStepFigure, PackedSteps, StepCells, type Cell } from '../src/model/model.js';
import { prng } from './decodeGen.js';

const cell = (n: number): Cell => ({ count: n, ticks: n * 10, minTicks: n, maxTicks: n * 2 });

/** What forEachStepFigure gives of some cells: [step, count, ticks, min, max] each, in order. */
function figures(steps: Map<number, Cell>): number[][] {
  const out: number[][] = [];
  forEachStepFigure(steps, (step, count, ticks, min, max) => out.push([step, count, ticks, min, max]));
  return out;
}

const figuresOf = (m: Map<number, Cell>): number[][] => [...m].map(([k, c]) => [k, c.count, c.ticks, c.minTicks, c.maxTicks]);

function same(s: StepCells, m: Map<number, Cell>): void {
  expect(figures(s)).toEqual(figuresOf(m));
  expect(s.size).toBe(m.size);
  expect([...s]).toEqual([...m]);
  expect([...s.keys()]).toEqual([...m.keys()]);
  expect([...s.values()]).toEqual([...m.values()]);
  const seen: [number, Cell][] = [];
  s.forEach((c, k, map) => {
    expect(map).toBe(s);
    seen.push([k, c]);
  });
  expect(seen).toEqual([...m]);
}

describe('StepCells', () => {
  it('answers every operation as a Map does, in insertion order', () => {
    const rnd = prng(7);
    for (let round = 0; round < 300; round++) {
      const s = new StepCells();
      const m = new Map<number, Cell>();
      for (let op = 0; op < 12; op++) {
        const step = Math.floor(rnd() * 4) - 1;
        const r = rnd();
        if (r < 0.55) {
          const c = cell(op);
          expect(s.set(step, c)).toBe(s);
          m.set(step, c);
        } else if (r < 0.75) expect(s.delete(step)).toBe(m.delete(step));
        else if (r < 0.8) {
          s.clear();
          m.clear();
        } else {
          expect(s.get(step)).toBe(m.get(step));
          expect(s.has(step)).toBe(m.has(step));
        }
        same(s, m);
      }
    }
  });

  it('reads packed cells back as they were; a cell read from a few is a copy, and set() writes one', () => {
    const buf = new Float64Array([99, 0, 0, 0, 0, 7, 2, 2 ** 52 + 1, 1, 2 ** 52 - 1, -3, 1, 5, 5, 5]);
    const s = StepCells.packed(buf, 5, 2);
    expect(s.size).toBe(2);
    expect([...s]).toEqual([
      [7, { count: 2, ticks: 2 ** 52 + 1, minTicks: 1, maxTicks: 2 ** 52 - 1 }],
      [-3, { count: 1, ticks: 5, minTicks: 5, maxTicks: 5 }],
    ]);
    // Read in place: each read makes the cell anew (a group of one step read from a worker keeps no Cell object).
    expect(s.get(7)).not.toBe(s.get(7));
    s.get(7)!.count += 1;
    expect(s.get(7)!.count).toBe(2);
    expect(s.has(-3)).toBe(true);
    expect(s.has(8)).toBe(false);
    s.set(7, { count: 3, ticks: 9, minTicks: 1, maxTicks: 8 });
    expect([...s]).toEqual([
      [7, { count: 3, ticks: 9, minTicks: 1, maxTicks: 8 }],
      [-3, { count: 1, ticks: 5, minTicks: 5, maxTicks: 5 }],
    ]);
    expect(s.get(7)).toBe(s.get(7));
    expect(StepCells.packed(buf, 0, 0).size).toBe(0);
    expect([...StepCells.packed(buf, 0, 0)]).toEqual([]);
  });

  it('unpacks the packed cells of a group of many steps on first read: a cell read from them stays written', () => {
    const n = 6;
    const buf = new Float64Array(n * 5);
    for (let k = 0; k < n; k++) buf.set([k + 1, 1, 10, 10, 10], k * 5);
    const s = StepCells.packed(buf, 0, n);
    s.get(3)!.count += 1;
    expect(s.get(3)!.count).toBe(2);
    expect(s.get(3)).toBe(s.get(3));
    expect([...s.keys()]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('walks the packed cells of a group of many steps in place with forEach: copies, nothing unpacked', () => {
    const n = 6;
    const buf = new Float64Array(n * 5 + 5);
    for (let k = 0; k < n; k++) buf.set([k + 1, k % 2, 10 * k, k, 2 * k], 5 + k * 5);
    const s = StepCells.packed(buf, 5, n);
    const seen: [number, Cell][] = [];
    s.forEach((c, k) => {
      c.count += 100;
      seen.push([k, c]);
    });
    expect(seen.map(([k, c]) => [k, c.count - 100, c.ticks])).toEqual([1, 2, 3, 4, 5, 6].map((k) => [k, (k - 1) % 2, 10 * (k - 1)]));
    // The copies were written, not the cells: still packed (a get is a copy until the first unpacking read).
    expect(s.get(2)!.count).toBe(1);
    expect(figures(s)).toEqual([1, 2, 3, 4, 5, 6].map((k) => [k, (k - 1) % 2, 10 * (k - 1), k - 1, 2 * (k - 1)]));
    expect(buf.slice(5, 10)).toEqual(new Float64Array([1, 0, 0, 0, 0]));
  });
});

describe('forEachStepFigure', () => {
  it("gives each cell's step, count and ticks in order, for every form of step cells", () => {
    const rnd = prng(11);
    for (let round = 0; round < 200; round++) {
      const n = Math.floor(rnd() * 9);
      const steps = [...new Set(Array.from({ length: n }, () => Math.floor(rnd() * 40) - 5))];
      const m = new Map<number, Cell>(steps.map((st, i) => [st, cell(i + Math.floor(rnd() * 3))]));
      // A Map, a StepCells written cell by cell, packed cells (as a worker sends them) and a summary JSON's triples.
      const written = new StepCells();
      for (const [k, c] of m) written.set(k, c);
      const packed = new Float64Array(3 + steps.length * 5);
      const triples = new Float64Array(6 + steps.length * 3);
      [...m].forEach(([k, c], i) => {
        packed.set([k, c.count, c.ticks, c.minTicks, c.maxTicks], 3 + i * 5);
        triples.set([k, c.count, c.ticks], 6 + i * 3);
      });
      const want = figuresOf(m);
      expect(figures(m)).toEqual(want);
      expect(figures(written)).toEqual(want);
      expect(figures(StepCells.packed(packed, 3, steps.length))).toEqual(want);
      // A summary JSON keeps no min or max per step: those of the empty cell.
      const noBounds = want.map(([k, n, t]) => [k!, n!, t!, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
      expect(figures(new PackedSteps(triples, 2, steps.length))).toEqual(noBounds);
    }
  });
});
