import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { editLowerBound } from '../src/analysis/rewrites/editBound.js';
import { alignSequences, compactHunks, hunksOf, type Alignment } from '../src/analysis/rewrites/myers.js';
import { tokenSeq } from './tokenArbs.js';

/** Length of a longest common subsequence (the textbook dynamic programme). */
function lcs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur = [0];
    for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    prev = cur;
  }
  return prev[b.length]!;
}

/** The unchanged elements of each side, in order, must be the same sequence; D is the number of changed ones. */
function checkAlignment(a: Int32Array, b: Int32Array, al: Alignment): void {
  const keptA = Array.from(a).filter((_, i) => al.changedA[i + 1] === 0);
  const keptB = Array.from(b).filter((_, i) => al.changedB[i + 1] === 0);
  expect(keptA).toEqual(keptB);
  expect(al.changedA[0]).toBe(0);
  expect(al.changedA[a.length + 1]).toBe(0);
  expect(al.changedB[0]).toBe(0);
  expect(al.changedB[b.length + 1]).toBe(0);
  expect(a.length - keptA.length + b.length - keptB.length).toBe(al.edits);
}

const seq = (max: number) => tokenSeq(max, 5);

describe('alignSequences', () => {
  test('a shortest edit script: D = N + M − 2·LCS, and the kept elements agree', () => {
    fc.assert(
      fc.property(seq(60), seq(60), (a, b) => {
        const al = alignSequences(a, b, Number.POSITIVE_INFINITY)!;
        checkAlignment(a, b, al);
        expect(al.edits).toBe(a.length + b.length - 2 * lcs(a, b));
      }),
      { numRuns: 300 },
    );
  });
  test('the lower bound never exceeds D, and the cap is exact', () => {
    fc.assert(
      fc.property(seq(50), seq(50), (a, b) => {
        const d = a.length + b.length - 2 * lcs(a, b);
        expect(editLowerBound(a, b)).toBeLessThanOrEqual(d);
        expect(alignSequences(a, b, d)).not.toBeNull();
        if (d > 0) expect(alignSequences(a, b, d - 1)).toBeNull();
      }),
      { numRuns: 300 },
    );
  });
  test('the lower bound is D when only insertions and deletions of distinct tokens happened', () => {
    const a = Int32Array.from([1, 2, 3, 4, 5, 6]);
    const b = Int32Array.from([1, 3, 9, 4, 5, 7, 6]);
    expect(editLowerBound(a, b)).toBe(3);
    expect(alignSequences(a, b, 100)!.edits).toBe(3);
  });
  test('the lower bound is the sum of count differences, for tokens of any range (counted in an array or a Map)', () => {
    const token = fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), fc.array(token, { maxLength: 40 }), (xs, ys) => {
        const counts = new Map<number, number>();
        for (const t of xs) counts.set(t, (counts.get(t) ?? 0) + 1);
        for (const t of ys) counts.set(t, (counts.get(t) ?? 0) - 1);
        const sum = [...counts.values()].reduce((n, c) => n + Math.abs(c), 0);
        expect(editLowerBound(Int32Array.from(xs), Int32Array.from(ys))).toBe(sum);
      }),
      { numRuns: 500 },
    );
  });
  test('steps too different: the lower bound refuses before any search', () => {
    const a = new Int32Array(1500).fill(1);
    const b = new Int32Array(1500).fill(2);
    expect(editLowerBound(a, b)).toBe(3000);
    expect(alignSequences(a, b, 2999)).toBeNull();
    expect(alignSequences(a, b, 3000)!.edits).toBe(3000);
  });
  test('long sequences with few edits (the work list does not nest)', () => {
    const a = Int32Array.from({ length: 20000 }, (_, i) => i % 7);
    const b = a.slice();
    for (let i = 100; i < 20000; i += 400) b[i] = 9;
    const al = alignSequences(a, b, 1000)!;
    checkAlignment(a, b, al);
    expect(al.edits).toBe(2 * 50);
  });
});

describe('xdl_change_compact', () => {
  test('a deletion slides down into the next one and merges (git: x y x x z → y x)', () => {
    const a = Int32Array.from([1, 2, 1, 1, 0]);
    const b = Int32Array.from([2, 1]);
    const al = alignSequences(a, b, 10)!;
    expect(compactHunks(a, b, al)).toEqual([
      { aStart: 0, aLen: 1, bStart: 0, bLen: 0 },
      { aStart: 3, aLen: 2, bStart: 2, bLen: 0 },
    ]);
  });
  test('a chain that shares a token with its neighbour is one hunk', () => {
    // Q A B Q C D M → Q F M: the Q kept is the first, so the removed run and its replacement are one hunk.
    const a = Int32Array.from([7, 1, 2, 7, 3, 4, 8]);
    const b = Int32Array.from([7, 5, 8]);
    const al = alignSequences(a, b, 10)!;
    const hunks = compactHunks(a, b, al);
    expect(hunks).toEqual([{ aStart: 1, aLen: 5, bStart: 1, bLen: 1 }]);
  });
  test('compaction keeps a shortest edit script and never adds hunks', () => {
    fc.assert(
      fc.property(seq(50), seq(50), (a, b) => {
        const al = alignSequences(a, b, Number.POSITIVE_INFINITY)!;
        const raw = hunksOf(al.changedA, a.length, al.changedB, b.length).length;
        const hunks = compactHunks(a, b, al);
        checkAlignment(a, b, al);
        expect(al.edits).toBe(a.length + b.length - 2 * lcs(a, b));
        expect(hunks.length).toBeLessThanOrEqual(raw);
        // The hunks cover exactly the changed elements.
        expect(hunks.reduce((n, h) => n + h.aLen + h.bLen, 0)).toBe(al.edits);
      }),
      { numRuns: 300 },
    );
  });
});
