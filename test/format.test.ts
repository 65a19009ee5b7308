// The number formatters in src/util/format.ts stand in for Intl.NumberFormat
// (which costs ICU start-up on every run); their output must stay byte-identical to it.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fmtCount, fmtPct, fmtSignedCount, fmtSignedPct, fmtSignedUs, fmtSteps, fmtUs, fmtUsShort, formatFixed } from '../src/util/format.js';

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
    0,
    -0,
    1,
    -1,
    0.5,
    -0.5,
    1.5,
    2.5,
    -2.5,
    3.5,
    0.125,
    0.375,
    0.005,
    0.015,
    0.025,
    0.045,
    1.005,
    1.015,
    1.045,
    8.345,
    4.35,
    0.05,
    0.15,
    0.25,
    0.35,
    0.95,
    0.995,
    9.995,
    99.95,
    999.5,
    999.95,
    999.995,
    1234.5,
    711070,
    123456789.995,
    1e21,
    1.5e21,
    1e23,
    2 ** 60,
    2 ** 64,
    2 ** 53,
    2 ** 53 + 2,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    Number.EPSILON,
    2.2250738585072014e-308,
    1e-7,
    5e-7,
    0.0049,
    0.0499,
    0.4999999999999999,
    0.49999999999999994,
    1.0049999999999999,
    -0.001,
    -0.004,
    -0.005,
    -0.04,
    -0.05,
    -0.4,
    -0.49,
    -1e-300,
    -Number.MIN_VALUE,
    NaN,
    Infinity,
    -Infinity,
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
    fc.assert(
      fc.property(fc.double(), (n) => agrees(n)),
      { numRuns: 20_000 },
    );
  });

  it('agrees on doubles of every magnitude that kprof prints', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e7, max: 1e7 }), (n) => agrees(n)),
      { numRuns: 20_000 },
    );
  });

  it('agrees on short decimals, where ties happen', () => {
    fc.assert(
      fc.property(fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }), fc.integer({ min: 0, max: 8 }), (m, k) => agrees(m / 10 ** k)),
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

describe('exported formatters print what Intl prints, under the rules of format.ts', () => {
  const [INT, FIX1, FIX2] = [intl[0], intl[1], intl[2]];
  const unsignedZero = (s: string) => (/^-0(\.0+)?$/.test(s) ? s.slice(1) : s);
  const refFmtCount = (n: number) => unsignedZero(Number.isInteger(n) ? INT.format(n) : FIX2.format(n));
  const refTiny = (us: number) => (/^-?0\.00$/.test(FIX2.format(us * 1000)) ? '0 µs' : `${FIX2.format(us * 1000)} ns`);
  const refFmtUs = (us: number) => {
    const a = Math.abs(us);
    if (FIX2.format(a) === '0.00') return refTiny(us);
    if (FIX2.format(a) !== '1,000.00' && a < 1000) return `${FIX2.format(us)} µs`;
    if (FIX2.format(a / 1000) !== '1,000.00' && a < 1e6) return `${FIX2.format(us / 1000)} ms`;
    return `${FIX2.format(us / 1e6)} s`;
  };
  const refFmtUsShort = (us: number) => {
    const a = Math.abs(us);
    if (FIX2.format(a) === '0.00') return refTiny(us);
    const [k, unit] = INT.format(a) !== '1,000' && a < 1000 ? [1, 'µs'] : INT.format(a / 1000) !== '1,000' && a < 1e6 ? [1000, 'ms'] : [1e6, 's'];
    const b = a / k;
    const f = FIX2.format(b) !== '10.00' && b < 10 ? FIX2 : FIX1.format(b) !== '100.0' && b < 100 ? FIX1 : INT;
    return `${f.format(us / k)} ${unit}`;
  };
  const refFmtSignedPct = (p: number) => {
    const s = FIX1.format(Math.abs(p));
    if (s === '0.0') return '0.0%';
    return p > 0 ? `+${s}%` : `-${s}%`;
  };

  it('on arbitrary doubles', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.double({ min: -1e6, max: 1e6 }), fc.double({ min: -1e9, max: 1e9 }), fc.integer()), (n) => {
        expect(fmtCount(n)).toBe(refFmtCount(n));
        expect(fmtUs(n)).toBe(refFmtUs(n));
        expect(fmtUsShort(n)).toBe(refFmtUsShort(n));
        expect(fmtPct(n)).toBe(`${unsignedZero(FIX1.format(n))}%`);
        expect(fmtSignedPct(n)).toBe(refFmtSignedPct(n));
      }),
      { numRuns: 10_000 },
    );
  });
});

describe('numbers are printed one way', () => {
  it('zero: "0" for counts, "0 µs" for times, "0.0%" for shares, whatever rounds to zero and -0 included', () => {
    for (const z of [0, -0, 0.000004, -0.000004, 1e-9]) {
      expect(fmtUs(z)).toBe('0 µs');
      expect(fmtSignedUs(z)).toBe('0 µs');
      expect(fmtUsShort(z)).toBe('0 µs');
    }
    for (const z of [0, -0, 0.004, -0.004, 1e-9]) {
      expect(fmtSignedCount(z)).toBe('0');
      expect(fmtPct(z / 100)).toBe('0.0%');
      expect(fmtSignedPct(z)).toBe('0.0%');
    }
    expect(fmtCount(-0)).toBe('0');
    expect(fmtCount(-0.001)).toBe('0.00');
    expect(fmtPct(-0.01)).toBe('0.0%');
  });

  it('a duration that is not zero but rounds to 0.00 µs is in ns, never "0 µs" (kprof reads times to 0.1 ns)', () => {
    expect(fmtUs(0.004)).toBe('4.00 ns');
    expect(fmtUs(-0.0001)).toBe('-0.10 ns');
    expect(fmtSignedUs(0.004)).toBe('+4.00 ns');
    expect(fmtSignedUs(-0.0049)).toBe('-4.90 ns');
    expect(fmtUsShort(0.003)).toBe('3.00 ns');
    expect(fmtUs(0.005)).toBe('0.01 µs');
  });

  it('durations of 1 s and more are in s; the unit is that of the rounded value', () => {
    expect(fmtUs(999.99)).toBe('999.99 µs');
    expect(fmtUs(999.996)).toBe('1.00 ms');
    expect(fmtUs(1_629_400)).toBe('1.63 s');
    expect(fmtUs(-2_500_000)).toBe('-2.50 s');
    expect(fmtUs(999_996)).toBe('1.00 s');
    expect(fmtSignedUs(1_200_000)).toBe('+1.20 s');
    expect(fmtUsShort(1_629_400)).toBe('1.63 s');
    expect(fmtUsShort(1_629_400_000)).toBe('1,629 s');
    expect(fmtUsShort(999_700)).toBe('1.00 s');
  });

  it('short durations keep three significant digits, so times of 1 µs or more that are over 1% apart never print alike', () => {
    expect([8.3, 83, 830, 8300, 83_000, 830_000].map(fmtUsShort)).toEqual(['8.30 µs', '83.0 µs', '830 µs', '8.30 ms', '83.0 ms', '830 ms']);
    fc.assert(
      fc.property(fc.double({ min: 1, max: 1e9, noNaN: true }), (a) => {
        expect(fmtUsShort(a * 1.0101)).not.toBe(fmtUsShort(a));
      }),
      { numRuns: 10_000 },
    );
  });

  it('one step is "13", a range "5-20"', () => {
    expect(fmtSteps(13, 13)).toBe('13');
    expect(fmtSteps(5, 20)).toBe('5-20');
  });
});
