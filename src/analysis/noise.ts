// Is a time change real, or noise? A benchstat-style test over repeated measurements: the profile measures every
// step, so each step (or each occurrence of a chain) is a sample. Two sides differ when the Mann–Whitney U test
// (Wilcoxon rank-sum) says so at `alpha` AND the change of the medians is at least `minEffect` of the base's
// median (`--time-tolerance`, an effect size the steps cannot veto). Otherwise the change is shown as `~`.
//
// The test is two-sided and assumes nothing about the distribution of step times (they are skewed, with outliers).
// Its p-value is:
//   - exact, from the distribution of U over all orderings, when the samples have no ties and n1 · n2 ≤ 10,000;
//   - otherwise the normal approximation with the tie correction and a continuity correction of 0.5, as SciPy's
//     `mannwhitneyu(method="asymptotic")` computes it (benchstat does the same for large samples).
// With few samples the smallest p the test can reach is 2 / C(n1 + n2, n1) (4 against 4 steps: 0.029); when that
// is not below alpha the result says so (`tooFew`) instead of pretending the change is noise.

/** Result of a Mann–Whitney U test of a against b. */
export interface UTest {
  /** U of the first sample (the number of pairs where a's value is larger, ties counting one half); stratified: the sum over strata. */
  u: number;
  /** Two-sided p-value, in [0, 1]. */
  p: number;
  /** `stratified`: van Elteren's test over several strata (see stratifiedU). */
  method: 'exact' | 'asymptotic' | 'stratified';
  n1: number;
  n2: number;
}

/**
 * U of the first sample and Σ (t³ − t) over groups of t tied values, by one merge of the two samples sorted
 * ascending, with `zerosA` and `zerosB` more values of 0 on each side that are not in the arrays (steps where a
 * group does not run: most of a sparse group's samples, never materialised). Midranks for ties, 1-based.
 */
function uStatistic(a: Float64Array, zerosA: number, b: Float64Array, zerosB: number): { u1: number; tieTerm: number } {
  const n1 = a.length + zerosA;
  let i = 0;
  let j = 0;
  let zeros = zerosA + zerosB > 0;
  let placed = 0;
  let r1 = 0;
  let tieTerm = 0;
  while (i < a.length || j < b.length || zeros) {
    let v = Number.POSITIVE_INFINITY;
    if (i < a.length) v = a[i]!;
    if (j < b.length && b[j]! < v) v = b[j]!;
    if (zeros && 0 < v) v = 0;
    let ca = 0;
    let cb = 0;
    while (i < a.length && a[i] === v) {
      i++;
      ca++;
    }
    while (j < b.length && b[j] === v) {
      j++;
      cb++;
    }
    if (zeros && v === 0) {
      ca += zerosA;
      cb += zerosB;
      zeros = false;
    }
    const t = ca + cb;
    r1 += ca * (placed + (t + 1) / 2);
    tieTerm += t * t * t - t;
    placed += t;
  }
  return { u1: r1 - (n1 * (n1 + 1)) / 2, tieTerm };
}

/** Throw unless every value is finite (an indexed loop: this runs before it is optimised, where for…of costs an iterator result a value). */
function allFinite(a: Float64Array): void {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i]!)) throw new Error('mannWhitney: a value is not a finite number');
}

const EXACT_MAX_PAIRS = 10_000;

/**
 * The Mann–Whitney U test of a against b (two-sided). Both samples must be non-empty. `method`: `auto` as at the
 * top of this file; `asymptotic` forces the normal approximation; `exact` is refused for samples with ties.
 */
export function mannWhitney(a: readonly number[], b: readonly number[], method: 'auto' | 'exact' | 'asymptotic' = 'auto'): UTest {
  return mannWhitneyWithZeros(Float64Array.from(a), 0, Float64Array.from(b), 0, method);
}

/**
 * The same test, for samples given as their values (in any order; the arrays are sorted in place) and a number
 * of further zeros on each side: the per-step samples of a kernel group, many of which can be steps where it
 * does not run. Costs O(n log n) in the values given, nothing in the zeros.
 */
export function mannWhitneyWithZeros(
  a: Float64Array,
  zerosA: number,
  b: Float64Array,
  zerosB: number,
  method: 'auto' | 'exact' | 'asymptotic' = 'auto',
): UTest {
  const n1 = a.length + zerosA;
  const n2 = b.length + zerosB;
  if (n1 === 0 || n2 === 0) throw new Error('mannWhitney: empty sample');
  if (!(Number.isSafeInteger(zerosA) && zerosA >= 0 && Number.isSafeInteger(zerosB) && zerosB >= 0)) {
    throw new Error('mannWhitney: a count of zeros is not a whole number');
  }
  allFinite(a);
  allFinite(b);
  a.sort();
  b.sort();
  const { u1, tieTerm } = uStatistic(a, zerosA, b, zerosB);
  const ties = tieTerm > 0;
  const u2 = n1 * n2 - u1;
  const uMax = Math.max(u1, u2);
  if (method === 'exact' && ties) throw new Error('mannWhitney: the exact test needs samples without ties');
  if (method === 'exact' || (method === 'auto' && !ties && n1 * n2 <= EXACT_MAX_PAIRS)) {
    const p = Math.min(1, 2 * exactUpperTail(n1, n2, uMax));
    return { u: u1, p, method: 'exact', n1, n2 };
  }
  const n = n1 + n2;
  const mu = (n1 * n2) / 2;
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  if (!(variance > 0)) return { u: u1, p: 1, method: 'asymptotic', n1, n2 };
  const z = (uMax - mu - 0.5) / Math.sqrt(variance);
  const p = Math.min(1, Math.max(0, erfc(z / Math.SQRT2)));
  return { u: u1, p, method: 'asymptotic', n1, n2 };
}

/**
 * P(U ≥ u) under the null hypothesis, without ties: the number of orderings with U = k is the coefficient of q^k
 * in the Gaussian binomial [n1 + n2 choose n1]_q = Π_{i=1..n1} (1 − q^(n2+i)) / (1 − q^i).
 */
function exactUpperTail(n1: number, n2: number, u: number): number {
  const max = n1 * n2;
  const c = new Float64Array(max + 1);
  c[0] = 1;
  let degree = 0;
  for (let i = 1; i <= n1; i++) {
    // Multiply by (1 − q^(n2+i)), then divide by (1 − q^i) (exact: the quotient is a polynomial).
    const s = n2 + i;
    const newDegree = degree + n2;
    for (let k = Math.min(max, degree + s); k >= s; k--) c[k]! -= c[k - s]!;
    for (let k = i; k <= newDegree; k++) c[k]! += c[k - i]!;
    // What the product had above the quotient's degree cancels in the division.
    for (let k = newDegree + 1; k <= Math.min(max, degree + s); k++) c[k] = 0;
    degree = newDegree;
  }
  let total = 0;
  let tail = 0;
  for (let k = 0; k <= max; k++) {
    total += c[k]!;
    if (k >= u) tail += c[k]!;
  }
  return tail / total;
}

/** One stratum of a stratified test: each side's values (sorted in place) and further zeros. */
export interface Stratum {
  a: Float64Array;
  zerosA: number;
  b: Float64Array;
  zerosB: number;
}

/**
 * Van Elteren's stratified rank-sum test (two-sided): a Mann–Whitney U in each stratum (here: each rank, whose
 * steps are alike among themselves but not like another rank's, as pipeline stages differ), combined with the
 * weights 1/(n_s + 1), by the normal approximation with each stratum's tie correction. One stratum is the plain
 * test (exact where it can be). Strata with an empty side are left out; at least one must have both.
 */
export function stratifiedU(strata: readonly Stratum[]): UTest {
  const used = strata.filter((s) => s.a.length + s.zerosA > 0 && s.b.length + s.zerosB > 0);
  if (used.length === 0) throw new Error('stratifiedU: no stratum has samples on both sides');
  if (used.length === 1) {
    const s = used[0]!;
    return mannWhitneyWithZeros(s.a, s.zerosA, s.b, s.zerosB);
  }
  let t = 0;
  let mean = 0;
  let variance = 0;
  let u = 0;
  let n1 = 0;
  let n2 = 0;
  for (const s of used) {
    allFinite(s.a);
    allFinite(s.b);
    s.a.sort();
    s.b.sort();
    const m1 = s.a.length + s.zerosA;
    const m2 = s.b.length + s.zerosB;
    const n = m1 + m2;
    const { u1, tieTerm } = uStatistic(s.a, s.zerosA, s.b, s.zerosB);
    const w = 1 / (n + 1);
    t += w * u1;
    mean += (w * m1 * m2) / 2;
    variance += w * w * ((m1 * m2) / 12) * (n + 1 - (n > 1 ? tieTerm / (n * (n - 1)) : 0));
    u += u1;
    n1 += m1;
    n2 += m2;
  }
  if (!(variance > 0)) return { u, p: 1, method: 'stratified', n1, n2 };
  const z = Math.abs(t - mean) / Math.sqrt(variance);
  return { u, p: Math.min(1, Math.max(0, erfc(z / Math.SQRT2))), method: 'stratified', n1, n2 };
}

/**
 * The smallest two-sided p-value a test over these strata can give (sizes of both sides per stratum): every
 * stratum as extreme as it can be, the same way, 2 · Π 1 / C(n1 + n2, n1). Strata with an empty side add nothing.
 */
export function smallestStratifiedP(sizes: readonly { n1: number; n2: number }[]): number {
  let p = 2;
  for (const { n1, n2 } of sizes) if (n1 > 0 && n2 > 0) p *= smallestP(n1, n2) / 2;
  return Math.min(1, p);
}

/** The smallest two-sided p-value the exact test can give for these sample sizes. */
export function smallestP(n1: number, n2: number): number {
  // 2 / C(n1 + n2, n1), computed as a product to stay in range.
  let inv = 1;
  const k = Math.min(n1, n2);
  const n = n1 + n2;
  for (let i = 1; i <= k; i++) inv *= i / (n - k + i);
  return Math.min(1, 2 * inv);
}

/** erfc(x), to about 1e-15 relative: the series of erf near 0, a continued fraction in the tails. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 2.5) {
    // erf(x) = 2/√π Σ (−1)^n x^(2n+1) / (n! (2n+1))
    let term = x;
    let sum = x;
    const x2 = x * x;
    for (let n = 1; n < 200; n++) {
      term *= -x2 / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * sum;
  }
  if (x > 27) return 0;
  // erfc(x) = exp(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))), by Lentz's method.
  const tiny = 1e-300;
  let f = x;
  let cc = x;
  let d = 0;
  for (let n = 1; n < 500; n++) {
    const an = n / 2;
    d = x + an * d;
    d = d === 0 ? tiny : d;
    cc = x + an / cc;
    cc = cc === 0 ? tiny : cc;
    d = 1 / d;
    const delta = cc * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

/** The median of a sample (the mean of the two middle values for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  // Selection (Hoare's quickselect, middle pivot) in a copy: linear time, where sorting every chain's samples is not.
  const a = Float64Array.from(values);
  const hi = select(a, n >> 1);
  if (n % 2 === 1) return hi;
  // The lower middle is the largest value left of the upper one after selection.
  let lo = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n >> 1; i++) if (a[i]! > lo) lo = a[i]!;
  return (lo + hi) / 2;
}

/** The k-th smallest value of a (0-based); reorders a so that a[0, k) ≤ a[k] ≤ a(k, n). */
function select(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k]!;
}

export interface NoiseOptions {
  /** Significance level of the test (benchstat's default: 0.05). */
  alpha: number;
  /** The smallest change of the median that counts, as a fraction of the base's median (0.02 = 2%). */
  minEffect: number;
}

export const DEFAULT_NOISE: NoiseOptions = { alpha: 0.05, minEffect: 0.02 };

/** A change judged by the samples. */
export interface Judged {
  baseMedian: number;
  prMedian: number;
  /** prMedian − baseMedian. */
  delta: number;
  /** Null when a side has no sample. */
  test: UTest | null;
  /** The change is shown as a number: the test says it is real, and it is at least the minimum effect. */
  significant: boolean;
  /** Why it is not: `noise` (p ≥ alpha), `small` (under the minimum effect), `too-few` (no p below alpha is possible), `no-samples`. */
  reason: 'significant' | 'noise' | 'small' | 'too-few' | 'no-samples';
}

/**
 * Judge the change from base samples to PR samples. `medians`: the figures shown for each side, when they are
 * not the medians of these samples (a chain's median over its occurrences, tested over per-step samples).
 */
export function judge(
  base: readonly number[],
  pr: readonly number[],
  opts: NoiseOptions = DEFAULT_NOISE,
  medians?: { base: number; pr: number },
): Judged {
  const baseMedian = medians?.base ?? median(base);
  const prMedian = medians?.pr ?? median(pr);
  const delta = prMedian - baseMedian;
  if (base.length === 0 || pr.length === 0) return { baseMedian, prMedian, delta, test: null, significant: false, reason: 'no-samples' };
  const test = mannWhitney(base, pr);
  let reason: Judged['reason'] = 'significant';
  if (test.p >= opts.alpha) reason = smallestP(base.length, pr.length) >= opts.alpha ? 'too-few' : 'noise';
  else if (Math.abs(delta) < opts.minEffect * Math.abs(baseMedian) || delta === 0) reason = 'small';
  return { baseMedian, prMedian, delta, test, significant: reason === 'significant', reason };
}
