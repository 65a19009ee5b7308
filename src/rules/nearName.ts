// "Did you mean": the kernel type or name that a selector value that matches nothing most likely meant. Close is
// the same but for case, within an edit or two (by the value's length), or the start of it (a value cut short,
// `ScatterNd` for `ScatterNdUpdate`); kernels of one family (`Mul`, `Muls`; `MatMulV2`, `MatMulV3`) are not
// typos of each other. Names come from the input: a profile may hold a million distinct names, each long, and a
// rules file thousands of values. So each pool of names is indexed once (by lower case, by length, sorted for
// prefixes), names longer than MAX_COMPARED are not compared, and the letter-by-letter comparisons of one rules
// file share a budget (Budget): past it, a value gets the suggestions the index gives in one look-up only (case,
// prefix), never a scan. Linear in the names, whatever the number of values.

/** Edits allowed between a misspelt value and a kernel that exists, by the value's length. */
function allowedEdits(length: number): number {
  return length < 5 ? 0 : length < 12 ? 1 : 2;
}

/** Values longer than this are not compared letter by letter (kernel names are far shorter). */
export const MAX_COMPARED = 256;

/** The cells of edit-distance tables one rules file may fill, all its values together (some 0.1 s of work). */
export const COMPARE_BUDGET = 20_000_000;

/** A prefix is a suggestion from this many characters, and when it is at least half the longer name. */
const MIN_PREFIX = 5;

/** What is left of the comparisons of one rules file (see COMPARE_BUDGET). */
export interface Budget {
  cells: number;
}

export function newBudget(cells = COMPARE_BUDGET): Budget {
  return { cells };
}

/**
 * Two kernels of one family, not a typo: names that differ only in their digits (MatMulV2, MatMulV3), or where
 * one is the other with a variant suffix (Mul and Muls, ReduceSum and ReduceSumD, BatchMatMul and BatchMatMulV2).
 */
function variants(a: string, b: string): boolean {
  const strip = (s: string): string => s.toLowerCase().replace(/[0-9]+/g, '0');
  if (a.length === b.length && strip(a) === strip(b)) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return long.startsWith(short) && /^(?:s|D|V?[0-9]+)$/.test(long.slice(short.length));
}

/** The candidate nearest to `word` (its lower case) within 2 edits, the first in text order of the nearest; undefined when none is. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  return candidates
    .map((c) => ({ c, d: distance(word.toLowerCase(), c) }))
    .filter((x) => x.d <= 2)
    .sort((a, b) => a.d - b.d || (a.c < b.c ? -1 : 1))[0]?.c;
}

/** Edit distance, for "did you mean" among kprof's own words (keys, ids: short, so the quadratic table is cheap). */
export function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * Edit distance when it is at most `limit`, else `limit + 1`: only the cells within `limit` of the diagonal are
 * computed, so a name of 200 characters costs 1,000 cells, not 40,000 (a rule that matched nothing was compared
 * with every kernel name of the profile: 20,000 names of 200 characters took 10 s).
 */
export function distanceWithin(a: string, b: string, limit: number): number {
  const cap = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return cap;
  // Two rows, used in turn; the cells just outside the band are set to cap before they are read.
  let prev = new Array<number>(b.length + 1).fill(cap);
  let cur = new Array<number>(b.length + 1).fill(cap);
  for (let j = 0; j <= Math.min(b.length, limit); j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const lo = Math.max(1, i - limit);
    const hi = Math.min(b.length, i + limit);
    cur[lo - 1] = lo === 1 && i <= limit ? i : cap;
    let least = cur[lo - 1]!;
    for (let j = lo; j <= hi; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1), cap);
      cur[j] = v;
      if (v < least) least = v;
    }
    if (hi < b.length) cur[hi + 1] = cap;
    // A row's least value never falls in the rows below it.
    if (least > limit) return cap;
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/** A pool of names, indexed once: by lower case, by length, and sorted (lower case) for prefixes. */
interface NameIndex {
  /** Lower case → the name (the least, in code unit order, of those alike but for case). */
  byLower: Map<string, string>;
  /** Length → the names of that length with their lower case, in the pool's order. */
  byLength: Map<number, { c: string; lower: string }[]>;
  /** Every lower case, sorted. */
  sorted: string[];
}

const indexes = new WeakMap<ReadonlySet<string> | readonly string[], NameIndex>();

function indexOf(pool: ReadonlySet<string> | readonly string[]): NameIndex {
  let ix = indexes.get(pool);
  if (ix !== undefined) return ix;
  ix = { byLower: new Map(), byLength: new Map(), sorted: [] };
  for (const c of pool) {
    if (c.length > MAX_COMPARED) continue;
    const lower = c.toLowerCase();
    const had = ix.byLower.get(lower);
    if (had === undefined) ix.sorted.push(lower);
    if (had === undefined || c < had) ix.byLower.set(lower, c);
    const bucket = ix.byLength.get(c.length);
    if (bucket === undefined) ix.byLength.set(c.length, [{ c, lower }]);
    else bucket.push({ c, lower });
  }
  ix.sorted.sort();
  indexes.set(pool, ix);
  return ix;
}

/** The first index of `sorted` whose text is not below `key`. */
function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Two names one of which starts the other, close enough to be a name cut short (and not one family's). */
function prefixClose(value: string, c: string): boolean {
  const [short, long] = value.length < c.length ? [value, c] : [c, value];
  return short.length >= MIN_PREFIX && 2 * short.length >= long.length && !variants(value, c);
}

/** The shortest name (then the least) that `value` starts, or that starts `value`, in the index; null when none. */
function byPrefix(value: string, lower: string, ix: NameIndex): string | null {
  let best: string | null = null;
  const consider = (c: string): void => {
    if (c !== value && prefixClose(value, c) && (best === null || c.length < best.length || (c.length === best.length && c < best))) best = c;
  };
  // Names that start with the value: they follow it in sorted order; the first few are the shortest candidates.
  for (let i = lowerBound(ix.sorted, lower), seen = 0; i < ix.sorted.length && seen < 64; i++, seen++) {
    const l = ix.sorted[i]!;
    if (!l.startsWith(lower) || l.length > 2 * lower.length) break;
    consider(ix.byLower.get(l)!);
  }
  // Names that the value starts with: its own prefixes, one look-up each.
  for (let n = lower.length - 1; n >= MIN_PREFIX; n--) {
    const c = ix.byLower.get(lower.slice(0, n));
    if (c !== undefined) consider(c);
  }
  return best;
}

/** The kernel in `pool` that `value` most likely meant, or null. `budget` bounds the letter-by-letter comparisons. */
export function closest(value: string, pool: ReadonlySet<string> | readonly string[], budget: Budget = newBudget()): string | null {
  if (value.length > MAX_COMPARED) return null;
  const lower = value.toLowerCase();
  const ix = indexOf(pool);
  const same = ix.byLower.get(lower);
  if (same !== undefined && same !== value) return same;
  const limit = allowedEdits(value.length);
  let best: { c: string; d: number } | null = null;
  for (let len = value.length - limit; len <= value.length + limit && limit > 0; len++) {
    for (const { c, lower: cl } of ix.byLength.get(len) ?? []) {
      const cost = Math.min(value.length, len) * (2 * limit + 1);
      if (budget.cells < cost) break;
      budget.cells -= cost;
      if (c === value) continue;
      const d = cl === lower ? 0 : distanceWithin(lower, cl, limit);
      if (d > limit || (d > 0 && variants(value, c))) continue;
      if (best === null || d < best.d || (d === best.d && c < best.c)) best = { c, d };
    }
  }
  return best?.c ?? byPrefix(value, lower, ix);
}
