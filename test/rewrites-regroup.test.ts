import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { alignSequences, compactHunks, hunksOf, type Alignment } from '../src/analysis/rewrites/myers.js';
import { fewestHunks, GAP, realignTables, type Span } from '../src/analysis/rewrites/regroup.js';
import { tokenSeq, windowed } from './tokenArbs.js';

/** The unchanged elements of each side must be the same sequence; D is the number of changed ones. */
function kept(a: Int32Array, b: Int32Array, al: Alignment): void {
  const keptA = Array.from(a).filter((_, i) => al.changedA[i + 1] === 0);
  const keptB = Array.from(b).filter((_, i) => al.changedB[i + 1] === 0);
  expect(keptA).toEqual(keptB);
  expect([al.changedA[0], al.changedA[a.length + 1], al.changedB[0], al.changedB[b.length + 1]]).toEqual([0, 0, 0, 0]);
}

const edits = (al: Alignment) => al.changedA.reduce((n, x) => n + x, 0) + al.changedB.reduce((n, x) => n + x, 0);
const hunks = (a: Int32Array, b: Int32Array, al: Alignment) => hunksOf(al.changedA, a.length, al.changedB, b.length);

/** The fewest hunks of any shortest script (the textbook dynamic programme over the whole of both). */
function fewest(a: Int32Array, b: Int32Array): number {
  const INF = 1e9;
  const K = a.length + b.length + 1;
  let keep = new Array<number>(b.length + 1).fill(INF);
  let edit = new Array<number>(b.length + 1).fill(INF);
  keep[0] = 0;
  for (let j = 1; j <= b.length; j++) edit[j] = Math.min(keep[j - 1]! + K + 1, edit[j - 1]! + K);
  for (let i = 1; i <= a.length; i++) {
    const k2 = new Array<number>(b.length + 1).fill(INF);
    const e2 = new Array<number>(b.length + 1).fill(INF);
    for (let j = 0; j <= b.length; j++) {
      if (j > 0 && a[i - 1] === b[j - 1]) k2[j] = Math.min(keep[j - 1]!, edit[j - 1]!);
      e2[j] = Math.min(keep[j]! + K + 1, edit[j]! + K);
      if (j > 0) e2[j] = Math.min(e2[j]!, k2[j - 1]! + K + 1, e2[j - 1]! + K);
    }
    keep = k2;
    edit = e2;
  }
  return Math.min(keep[b.length]!, edit[b.length]!) % K;
}

const seq = (max: number) => tokenSeq(max, 4);

/** realign's tables as the plain programme writes them: every cell from its three neighbours, in full. */
function plainTables(a: Int32Array, b: Int32Array, w: Span, K: number): { keep: Int32Array; edit: Int32Array } {
  const n = w.aEnd - w.aStart;
  const m = w.bEnd - w.bStart;
  const cols = m + 1;
  const INF = 0x3fffffff;
  const keep = new Int32Array((n + 1) * cols).fill(INF);
  const edit = new Int32Array((n + 1) * cols).fill(INF);
  keep[0] = 0;
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= m; j++) {
      const c = i * cols + j;
      if (i > 0 && j > 0 && a[w.aStart + i - 1] === b[w.bStart + j - 1]) keep[c] = Math.min(keep[c - cols - 1]!, edit[c - cols - 1]!);
      let e = INF;
      if (i > 0) e = Math.min(e, keep[c - cols]! + K + 1, edit[c - cols]! + K);
      if (j > 0) e = Math.min(e, keep[c - 1]! + K + 1, edit[c - 1]! + K);
      if (e < edit[c]!) edit[c] = e;
    }
  }
  return { keep, edit };
}

describe('realignTables', () => {
  test('the same tables as the plain programme, for any window of any two sequences', () => {
    const window = windowed(30, 4);
    fc.assert(
      fc.property(window, ({ a, b, w }) => {
        const K = w.aEnd - w.aStart + (w.bEnd - w.bStart) + 1;
        expect(realignTables(a, b, w, K)).toEqual(plainTables(a, b, w, K));
      }),
      { numRuns: 500 },
    );
  });
});

describe('fewestHunks', () => {
  test('keeps a shortest edit script and never adds a hunk; hunks less than GAP apart take the fewest', () => {
    fc.assert(
      fc.property(seq(40), seq(40), (a, b) => {
        const al = alignSequences(a, b, Number.POSITIVE_INFINITY)!;
        const given = hunks(a, b, al);
        const before = given.length;
        const d = al.edits;
        fewestHunks(a, b, al);
        kept(a, b, al);
        expect(edits(al)).toBe(d);
        const after = hunks(a, b, al);
        expect(after.length).toBeLessThanOrEqual(before);
        // Hunks all less than GAP apart are one window: the fewest of any shortest script.
        const spread = given.some((h, i) => i > 0 && h.aStart - (given[i - 1]!.aStart + given[i - 1]!.aLen) >= GAP);
        if (!spread) expect(after.length).toBe(fewest(a, b));
        // Compaction after it keeps the script shortest.
        compactHunks(a, b, al);
        kept(a, b, al);
        expect(edits(al)).toBe(d);
      }),
      { numRuns: 400 },
    );
  });

  test('a fusion split by a kernel that repeats is one hunk again', () => {
    // TD TD Conv2D TD Relu TD Pool → TD TD ConvRelu TD Pool, with an equally short split script given:
    // Conv2D → ConvRelu, then Relu TD → nothing.
    const [TD, CONV, RELU, POOL, FUSED] = [0, 1, 2, 3, 4];
    const a = Int32Array.from([TD, TD, CONV, TD, RELU, TD, POOL]);
    const b = Int32Array.from([TD, TD, FUSED, TD, POOL]);
    const al: Alignment = {
      changedA: Uint8Array.from([0, 0, 0, 1, 0, 1, 1, 0, 0]),
      changedB: Uint8Array.from([0, 0, 0, 1, 0, 0, 0]),
      edits: 4,
    };
    expect(hunks(a, b, al)).toHaveLength(2);
    fewestHunks(a, b, al);
    kept(a, b, al);
    expect(hunks(a, b, al)).toEqual([{ aStart: 2, aLen: 3, bStart: 2, bLen: 1 }]);
  });

  test('hunks GAP or more unchanged tokens apart are left as they are', () => {
    const a = Int32Array.from([0, 1, ...Array.from({ length: GAP }, (_, i) => 10 + i), 2, 0]);
    const b = Int32Array.from([0, 9, ...Array.from({ length: GAP }, (_, i) => 10 + i), 8, 0]);
    const al = alignSequences(a, b, 100)!;
    const before = hunks(a, b, al);
    fewestHunks(a, b, al);
    expect(hunks(a, b, al)).toEqual(before);
  });
});
