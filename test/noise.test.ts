import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  erfc,
  judge,
  mannWhitney,
  mannWhitneyWithZeros,
  median,
  smallestP,
  smallestStratifiedP,
  stratifiedU,
  type Stratum,
} from '../src/analysis/noise.js';

// Reference values computed with SciPy 1.17.1: scipy.stats.mannwhitneyu(a, b, method=...) and scipy.special.erfc.
const SCIPY: { a: number[]; b: number[]; u: number; exact: number | null; asymptotic: number }[] = [
  { a: [1, 2, 3, 4], b: [5, 6, 7, 8], u: 0, exact: 0.02857142857142857, asymptotic: 0.03038282197657749 },
  { a: [3.1, 1.2, 5.5, 2.0, 4.4], b: [6.1, 2.5, 7.3, 8.8, 9.0, 3.3], u: 5, exact: 0.08225108225108226, asymptotic: 0.0828374251588063 },
  { a: [10, 11, 12, 13, 14, 15, 16, 17, 18], b: [12.5, 13.5, 19, 20, 21, 22, 23], u: 11, exact: 0.03111888111888112, asymptotic: 0.0342577688658701 },
  { a: [1, 2, 2, 3, 3, 3, 4], b: [2, 3, 4, 4, 5, 5, 6, 7], u: 8.5, exact: null, asymptotic: 0.025279736885893914 },
  { a: [5, 5, 5, 6, 6, 7], b: [5, 6, 6, 7, 7, 7, 8, 8], u: 10, exact: null, asymptotic: 0.07100725203114303 },
  {
    a: Array.from({ length: 30 }, (_, i) => i),
    b: Array.from({ length: 25 }, (_, i) => i + 5.5),
    u: 300,
    exact: 0.20975310070036732,
    asymptotic: 0.20792927248164417,
  },
  { a: [1.5, 2.5], b: [1.0, 3.0, 4.0], u: 2, exact: 0.8, asymptotic: 0.7728299926844475 },
];

const ERFC: [number, number][] = [
  [0, 1.0],
  [0.1, 0.8875370839817152],
  [0.5, 0.4795001221869535],
  [1, 0.15729920705028516],
  [2, 0.004677734981047266],
  [2.49, 0.00042928786773391303],
  [2.5, 0.00040695201744495886],
  [3, 2.2090496998585445e-5],
  [5, 1.5374597944280347e-12],
  [10, 2.0884875837625446e-45],
  [20, 5.395865611607901e-176],
];

describe('Mann–Whitney U against SciPy', () => {
  for (const c of SCIPY) {
    test(`${c.a.length} vs ${c.b.length}: U = ${c.u}`, () => {
      if (c.exact !== null) {
        const e = mannWhitney(c.a, c.b, 'exact');
        expect(e.u).toBe(c.u);
        expect(e.p).toBeCloseTo(c.exact, 12);
      }
      const s = mannWhitney(c.a, c.b, 'asymptotic');
      expect(s.u).toBe(c.u);
      expect(s.p / c.asymptotic).toBeCloseTo(1, 10);
      // auto: exact without ties, else asymptotic.
      expect(mannWhitney(c.a, c.b).method).toBe(c.exact === null ? 'asymptotic' : 'exact');
    });
  }
  test('erfc', () => {
    for (const [x, v] of ERFC) expect(erfc(x) / v).toBeCloseTo(1, 12);
    expect(erfc(-1)).toBeCloseTo(2 - 0.15729920705028516, 15);
  });
  test('the exact test refuses ties; empty samples are refused', () => {
    expect(() => mannWhitney([1, 1], [2], 'exact')).toThrow(/ties/);
    expect(() => mannWhitney([], [1])).toThrow(/empty/);
  });
});

describe('exact distribution, by hand', () => {
  test('2 against 2: the six orderings give U = 0,1,2,2,3,4', () => {
    // P(U ≥ 4) = 1/6, two-sided 1/3; P(U ≥ 3) = 2/6, two-sided 2/3; U = 2 is the centre: p = 1.
    expect(mannWhitney([3, 4], [1, 2]).p).toBeCloseTo(1 / 3, 15);
    expect(mannWhitney([2, 4], [1, 3]).p).toBeCloseTo(2 / 3, 15);
    expect(mannWhitney([1, 4], [2, 3]).p).toBe(1);
  });
  test('the smallest p', () => {
    expect(smallestP(4, 4)).toBeCloseTo(2 / 70, 15);
    expect(smallestP(1, 1)).toBe(1);
    expect(mannWhitney([1, 2, 3, 4], [5, 6, 7, 8]).p).toBeCloseTo(smallestP(4, 4), 15);
  });
});

const sample = fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 25 });

describe('properties', () => {
  test('symmetric, p in [0, 1], U1 + U2 = n1 n2', () => {
    fc.assert(
      fc.property(sample, sample, (a, b) => {
        const x = mannWhitney(a, b);
        const y = mannWhitney(b, a);
        expect(x.p).toBeGreaterThanOrEqual(0);
        expect(x.p).toBeLessThanOrEqual(1);
        expect(Math.abs(x.p - y.p)).toBeLessThan(1e-12);
        expect(x.u + y.u).toBe(a.length * b.length);
      }),
    );
  });
  test('identical samples are never significant', () => {
    fc.assert(
      fc.property(sample, (a) => {
        expect(mannWhitney(a, [...a]).p).toBe(1);
        expect(judge(a, [...a]).significant).toBe(false);
      }),
    );
  });
  test('exact and asymptotic agree roughly on larger samples without ties', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { minLength: 40, maxLength: 60 }),
        fc.integer({ min: 15, max: 25 }),
        (all, n1) => {
          const a = all.slice(0, n1);
          const b = all.slice(n1);
          expect(Math.abs(mannWhitney(a, b, 'exact').p - mannWhitney(a, b, 'asymptotic').p)).toBeLessThan(0.02);
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('judge', () => {
  const base = [100, 101, 99, 102, 100, 98, 101, 100];
  test('a clear change is significant, with the medians and their difference', () => {
    const j = judge(
      base,
      base.map((x) => x * 0.8),
    );
    expect(j.significant).toBe(true);
    expect(j.baseMedian).toBe(100);
    expect(j.prMedian).toBe(80);
    expect(j.delta).toBe(-20);
  });
  test('a real but small change is under the minimum effect', () => {
    const j = judge(
      base,
      base.map((x) => x + 1.5),
      { alpha: 0.05, minEffect: 0.02 },
    );
    expect(j.test!.p).toBeLessThan(0.05);
    expect(j.reason).toBe('small');
  });
  test('noise, and too few steps to tell', () => {
    expect(judge([100, 104, 98, 101, 99], [103, 97, 100, 102, 99]).reason).toBe('noise');
    expect(judge([100, 101], [50, 51]).reason).toBe('too-few');
    expect(judge([], [1]).reason).toBe('no-samples');
  });
  test('median', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

test('median by selection equals the median of the sorted sample', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 1, maxLength: 200 }), (xs) => {
      const s = [...xs].sort((a, b) => a - b);
      const m = s.length >> 1;
      expect(median(xs)).toBe(s.length % 2 ? s[m] : (s[m - 1]! + s[m]!) / 2);
    }),
    { numRuns: 500 },
  );
});

describe('samples with zeros not given, and strata', () => {
  const f = (xs: number[]) => Float64Array.from(xs);
  const nonZero = (xs: number[]) => xs.filter((x) => x !== 0);
  const zeros = (xs: number[]) => xs.filter((x) => x === 0).length;
  const nonNegative = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30 })), { minLength: 1, maxLength: 25 });

  test('zeros counted apart give the test of the zeros written out (U, p and method)', () => {
    fc.assert(
      fc.property(nonNegative, nonNegative, (a, b) => {
        const whole = mannWhitney(a, b);
        const apart = mannWhitneyWithZeros(f(nonZero(a)), zeros(a), f(nonZero(b)), zeros(b));
        expect(apart.u).toBe(whole.u);
        expect(apart.method).toBe(whole.method);
        expect(Math.abs(apart.p - whole.p)).toBeLessThan(1e-12);
      }),
    );
  });

  // Reference: van Elteren's statistic computed in Python with scipy.stats.rankdata (midranks), the tie-corrected
  // variance per stratum, weights 1 / (n + 1), and 2 · norm.sf(|T − E| / √V) (SciPy 1.17.1).
  const REF: { strata: [number[], number[]][]; u: number; p: number }[] = [
    {
      strata: [
        [
          [1, 2, 3, 4],
          [5, 6, 7, 8],
        ],
        [
          [10, 11, 12, 13],
          [10.5, 11.5, 12.5, 13.5],
        ],
      ],
      u: 6,
      p: 0.041226833337163676,
    },
    {
      strata: [
        [
          [0, 0, 3, 4, 5],
          [0, 2, 2, 6],
        ],
        [
          [100, 200, 300],
          [150, 250, 350, 450],
        ],
        [[7], [8]],
      ],
      u: 13,
      p: 0.3325637549003464,
    },
  ];
  const strata = (xs: [number[], number[]][]): Stratum[] => xs.map(([a, b]) => ({ a: f(a), zerosA: 0, b: f(b), zerosB: 0 }));

  test("van Elteren's stratified test against a reference", () => {
    for (const c of REF) {
      const t = stratifiedU(strata(c.strata));
      expect(t.method).toBe('stratified');
      expect(t.u).toBe(c.u);
      expect(t.p / c.p).toBeCloseTo(1, 10);
    }
  });

  test('one stratum is the plain test; a stratum with an empty side is left out', () => {
    const one = stratifiedU([
      { a: f([1, 2, 3, 4]), zerosA: 0, b: f([5, 6, 7, 8]), zerosB: 0 },
      { a: f([]), zerosA: 0, b: f([9, 9]), zerosB: 0 },
    ]);
    expect(one).toEqual(mannWhitney([1, 2, 3, 4], [5, 6, 7, 8]));
    expect(() => stratifiedU([{ a: f([]), zerosA: 0, b: f([1]), zerosB: 0 }])).toThrow(/both sides/);
  });

  test('the smallest p over strata: every stratum as extreme as it can be, the same way', () => {
    // Two ranks of one step each: 2 · (1/2)² = 0.5, whatever the test says.
    expect(
      smallestStratifiedP([
        { n1: 1, n2: 1 },
        { n1: 1, n2: 1 },
      ]),
    ).toBe(0.5);
    expect(smallestStratifiedP([{ n1: 4, n2: 4 }])).toBeCloseTo(smallestP(4, 4), 15);
    expect(
      smallestStratifiedP([
        { n1: 4, n2: 4 },
        { n1: 0, n2: 3 },
      ]),
    ).toBeCloseTo(2 / 70, 15);
  });

  test('swapping base and PR gives the same p, and U of the other side', () => {
    const side = fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(fc.array(fc.tuple(side, side), { minLength: 1, maxLength: 5 }), (xs) => {
        const x = stratifiedU(strata(xs));
        const y = stratifiedU(strata(xs.map(([a, b]) => [b, a])));
        expect(Math.abs(x.p - y.p)).toBeLessThan(1e-12);
        expect(x.u + y.u).toBe(xs.reduce((n, [a, b]) => n + a.length * b.length, 0));
      }),
    );
  });
});
