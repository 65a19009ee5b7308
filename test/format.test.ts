// The number formatters in src/reporters/format.ts stand in for Intl.NumberFormat
// (which costs ICU start-up on every run); their output must stay byte-identical to it.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fmtCount, fmtPct, fmtSignedPct, fmtUs, fmtUsShort, formatFixed } from '../src/reporters/format.js';

const intl = {
  0: new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }),
  1: new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 }),
  2: new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
} as const;
const DIGITS = [0, 1, 2] as const;

function agrees(n: number): void {
  for (const d of DIGITS) {
    const got = formatFixed(n, d);
    const want = intl[d].format(n);
    // expect() only on a mismatch: it is slow, and this runs a few hundred thousand times.
    if (got !== want) expect(got, `${Object.is(n, -0) ? '-0' : n} with ${d} decimals`).toBe(want);
  }
}

/** The double next to n, `steps` units in the last place away (towards +∞ for positive n). */
function ulpStep(n: number, steps: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, n);
  view.setBigUint64(0, view.getBigUint64(0) + BigInt(steps));
  return view.getFloat64(0);
}

describe('formatFixed matches Intl.NumberFormat en-US', () => {
  const edges = [
    0, -0, 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, 0.125, 0.375, 0.005, 0.015, 0.025, 0.045, 1.005, 1.015,
    1.045, 8.345, 4.35, 0.05, 0.15, 0.25, 0.35, 0.95, 0.995, 9.995, 99.95, 999.5, 999.95, 999.995,
    1234.5, 711070, 123456789.995, 1e21, 1.5e21, 1e23, 2 ** 60, 2 ** 64, 2 ** 53, 2 ** 53 + 2,
    Number.MAX_SAFE_INTEGER, Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON, 2.2250738585072014e-308,
    1e-7, 5e-7, 0.0049, 0.0499, 0.4999999999999999, 0.49999999999999994, 1.0049999999999999,
    -0.001, -0.004, -0.005, -0.04, -0.05, -0.4, -0.49, -1e-300, -Number.MIN_VALUE,
    NaN, Infinity, -Infinity,
  ];
  for (const n of edges) {
    it(`${Object.is(n, -0) ? '-0' : n}`, () => {
      agrees(n);
      if (!Number.isNaN(n)) agrees(-n);
    });
  }

  it('agrees next to decimal ties and at every power of ten', () => {
    for (let e = -324; e <= 308; e++) {
      for (const m of [1, 5, 4.5, 9.5, 9.95, 9.995, 1.25]) {
        const n = Number(`${m}e${e}`);
        for (let s = -2; s <= 2; s++) {
          const x = n === 0 ? n : ulpStep(n, s);
          agrees(x);
          agrees(-x);
        }
      }
    }
  });

  it('agrees on arbitrary doubles', () => {
    fc.assert(fc.property(fc.double(), (n) => agrees(n)), { numRuns: 20_000 });
  });

  it('agrees on doubles of every magnitude that kprof prints', () => {
    fc.assert(fc.property(fc.double({ min: -1e7, max: 1e7 }), (n) => agrees(n)), { numRuns: 20_000 });
  });

  it('agrees on short decimals, where ties happen', () => {
    fc.assert(
      fc.property(fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }), fc.integer({ min: 0, max: 8 }), (m, k) =>
        agrees(m / 10 ** k),
      ),
      { numRuns: 20_000 },
    );
  });

  it('agrees on integers and on tick counts turned into µs and ms', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.integer({ min: 0, max: 2 ** 30 }), (i, t) => {
        agrees(i);
        agrees(t / 1e4);
        agrees(t / 1e4 / 1000);
        agrees((t * 1024) / 1e4);
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('exported formatters print what they printed with Intl', () => {
  const [INT, FIX1, FIX2] = [intl[0], intl[1], intl[2]];
  const oldFmtCount = (n: number) => (Number.isInteger(n) ? INT.format(n) : FIX2.format(n));
  const oldFmtUs = (us: number) => (Math.abs(us) < 1000 ? `${FIX2.format(us)} µs` : `${FIX2.format(us / 1000)} ms`);
  const oldFmtUsShort = (us: number) => {
    const a = Math.abs(us);
    if (a >= 10_000) return `${INT.format(us / 1000)} ms`;
    if (a >= 1000) return `${FIX1.format(us / 1000)} ms`;
    if (a >= 10) return `${INT.format(us)} µs`;
    return `${FIX2.format(us)} µs`;
  };
  const oldFmtSignedPct = (p: number) => {
    const s = FIX1.format(Math.abs(p));
    if (s === '0.0') return '0.0%';
    return p > 0 ? `+${s}%` : `-${s}%`;
  };

  it('on arbitrary doubles', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.double({ min: -1e6, max: 1e6 }), fc.integer()), (n) => {
        expect(fmtCount(n)).toBe(oldFmtCount(n));
        expect(fmtUs(n)).toBe(oldFmtUs(n));
        expect(fmtUsShort(n)).toBe(oldFmtUsShort(n));
        expect(fmtPct(n)).toBe(`${FIX1.format(n)}%`);
        expect(fmtSignedPct(n)).toBe(oldFmtSignedPct(n));
      }),
      { numRuns: 10_000 },
    );
  });
});
