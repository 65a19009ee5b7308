import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { EXACT_WORK, editDistance, endDistances, exactOccurrences, kmpFrom, nearOccurrences } from '../src/analysis/rewrites/match.js';

/** Least edit distance of the chain to a substring ending at each position (the textbook programme). */
function naiveEnds(text: number[], chain: number[]): number[] {
  const out: number[] = [];
  for (let j = 0; j < text.length; j++) {
    let best = Number.POSITIVE_INFINITY;
    for (let s = 0; s <= j + 1; s++) best = Math.min(best, editDistance(chain, text.slice(s, j + 1)));
    out.push(best);
  }
  return out;
}

function naiveExact(text: number[], chain: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + chain.length <= text.length; ) {
    if (chain.every((t, j) => text[i + j] === t)) {
      out.push(i);
      i += chain.length;
    } else i++;
  }
  return out;
}

const tokens = (min: number, max: number) => fc.array(fc.integer({ min: 0, max: 3 }), { minLength: min, maxLength: max });

describe('exactOccurrences', () => {
  test('non-overlapping, left to right, as a naive scan', () => {
    fc.assert(
      fc.property(tokens(0, 60), tokens(1, 4), (text, chain) => {
        expect(exactOccurrences(Int32Array.from(text), Int32Array.from(chain))).toEqual(naiveExact(text, chain));
      }),
      { numRuns: 500 },
    );
  });
  test('A A in A A A is one occurrence', () => {
    expect(exactOccurrences(Int32Array.from([1, 1, 1]), Int32Array.from([1, 1]))).toEqual([0]);
  });
  test('a repetitive text that a long chain matches far into before it fails: the same occurrences (scanned on by KMP)', () => {
    // `0 … 0 1` in runs of 0: each place of the first token compares up to the chain's length, past EXACT_WORK a token.
    const runs = fc.array(fc.constantFrom(0, 0, 0, 0, 0, 0, 0, 1, 2), { minLength: 0, maxLength: 300 });
    fc.assert(
      fc.property(runs, fc.integer({ min: EXACT_WORK + 1, max: 16 }), (text, zeros) => {
        const chain = [...Array.from({ length: zeros }, () => 0), 1];
        expect(exactOccurrences(Int32Array.from(text), Int32Array.from(chain))).toEqual(naiveExact(text, chain));
      }),
      { numRuns: 300 },
    );
    // Occurrences before and after the switch to KMP, and none missed at it.
    const chain = [0, 0, 0, 0, 0, 0, 0, 0, 1];
    const text = [...chain, ...Array.from({ length: 100 }, () => 0), ...chain, 2, ...chain];
    expect(exactOccurrences(Int32Array.from(text), Int32Array.from(chain))).toEqual(naiveExact(text, chain));
    expect(naiveExact(text, chain)).toEqual([0, 109, 119]);
  });
  test('switched to KMP at the first place that does not match: the same occurrences', () => {
    fc.assert(
      fc.property(tokens(0, 60), tokens(1, 4), (text, chain) => {
        expect(exactOccurrences(Int32Array.from(text), Int32Array.from(chain), 0)).toEqual(naiveExact(text, chain));
      }),
      { numRuns: 500 },
    );
  });
  test('KMP from a position: the occurrences starting there or later', () => {
    fc.assert(
      fc.property(tokens(0, 60), tokens(1, 4), fc.nat(60), (text, chain, from) => {
        const out: number[] = [];
        kmpFrom(Int32Array.from(text), Int32Array.from(chain), from, out);
        expect(out).toEqual(naiveExact(text.slice(from), chain).map((i) => i + from));
      }),
      { numRuns: 300 },
    );
  });
});

describe('endDistances', () => {
  test('bit-parallel (chains up to 32) equals the dynamic programme', () => {
    fc.assert(
      fc.property(tokens(0, 40), tokens(1, 32), fc.integer({ min: 0, max: 8 }), (text, chain, k) => {
        const got = Array.from(endDistances(Int32Array.from(text), Int32Array.from(chain), k));
        expect(got).toEqual(naiveEnds(text, chain).map((d) => (d <= k ? d : k + 1)));
      }),
      { numRuns: 300 },
    );
  });
  test('bit-parallel with token ids far apart (and negative) equals the dynamic programme', () => {
    // Ids of one table are small; any Int32 ids must still match, those outside the chain's range too.
    const far = [-(2 ** 31), -7, 0, 5, 2 ** 20, 2 ** 31 - 1];
    const wide = (min: number, max: number) => fc.array(fc.constantFrom(...far), { minLength: min, maxLength: max });
    fc.assert(
      fc.property(wide(0, 40), wide(1, 32), fc.integer({ min: 0, max: 8 }), (text, chain, k) => {
        const got = Array.from(endDistances(Int32Array.from(text), Int32Array.from(chain), k));
        expect(got).toEqual(naiveEnds(text, chain).map((d) => (d <= k ? d : k + 1)));
      }),
      { numRuns: 200 },
    );
  });
  test('the cut-off columns (chains over 32) equal the dynamic programme', () => {
    fc.assert(
      fc.property(tokens(0, 50), tokens(33, 45), fc.integer({ min: 0, max: 12 }), (text, chain, k) => {
        const got = Array.from(endDistances(Int32Array.from(text), Int32Array.from(chain), k));
        expect(got).toEqual(naiveEnds(text, chain).map((d) => (d <= k ? d : k + 1)));
      }),
      { numRuns: 60 },
    );
  });
  test('a chain of exactly 32 tokens (the top bit of the word)', () => {
    const chain = Array.from({ length: 32 }, (_, i) => i % 5);
    const text = [9, 9, ...chain, 9, ...chain.slice(0, 31), 8];
    const got = Array.from(endDistances(Int32Array.from(text), Int32Array.from(chain), 2));
    expect(got).toEqual(naiveEnds(text, chain).map((d) => (d <= 2 ? d : 3)));
    expect(got[33]).toBe(0);
  });
});

describe('nearOccurrences', () => {
  test('sites are within k edits, in order and apart; every exact occurrence lies in a site', () => {
    fc.assert(
      fc.property(tokens(0, 80), tokens(2, 12), (text, chain) => {
        const k = Math.floor(chain.length / 4);
        const t = Int32Array.from(text);
        const sites = nearOccurrences(t, Int32Array.from(chain), k);
        let prevEnd = 0;
        for (const s of sites) {
          expect(s.start).toBeGreaterThanOrEqual(prevEnd);
          expect(s.end).toBeGreaterThan(s.start);
          expect(s.edits).toBe(editDistance(chain, text.slice(s.start, s.end)));
          expect(s.edits).toBeLessThanOrEqual(k);
          prevEnd = s.end;
        }
        if (k === 0) expect(sites.map((s) => s.start)).toEqual(naiveExact(text, chain));
      }),
      { numRuns: 400 },
    );
  });
  test('the unfused MTP chain of the README example: 2 edits (one kernel swapped, one gone), the shortest site', () => {
    // QBMM RmsNorm RmsNorm DQ QBMM BMM Rope Rope Cast Cast DBQ Scatter Scatter; the MTP layer has ScatterPaKvCache.
    const chain = Int32Array.from([1, 2, 2, 3, 1, 4, 5, 5, 6, 6, 7, 8, 8]);
    const text = Int32Array.from([3, 1, 2, 2, 3, 1, 4, 5, 5, 6, 6, 7, 9, 10, 11]);
    expect(nearOccurrences(text, chain, 3)).toEqual([{ start: 1, end: 12, edits: 2 }]);
    expect(nearOccurrences(text, chain, 1)).toEqual([]);
  });
});
