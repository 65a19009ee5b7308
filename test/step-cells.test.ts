// StepCells (model.ts), the per-step cells of a fine group: one step inline, a Map from the second on, or cells a
// worker packed until first read. Under any sequence of operations it answers as a Map does, in the same order.

import { describe, expect, it } from 'vitest';
import { StepCells, type Cell } from '../src/model/model.js';
import { prng } from './decodeGen.js';

const cell = (n: number): Cell => ({ count: n, ticks: n * 10, minTicks: n, maxTicks: n * 2 });

function same(s: StepCells, m: Map<number, Cell>): void {
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
});
