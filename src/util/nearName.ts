// "Did you mean": the kernel type or name that a selector value that matches nothing most likely meant. Close is
// the same but for case, within an edit or two (by the value's length), or the start of it (a value cut short,
// `ScatterNd` for `ScatterNdUpdate`); kernels of one family (`Mul`, `Muls`; `MatMulV2`, `MatMulV3`) are not
// typos of each other. Names come from the input: a profile may hold a million distinct names, each long, and a
// rules file thousands of values. So each pool of names is indexed once (by the first HEAD characters of their lower
// case, sorted for prefixes, and by length; the names by reference, no copy of a whole name), names longer than
// MAX_COMPARED are not compared, and the comparisons of one rules file share a budget (Budget): past it, a value
// gets only what OWN_LOOKUPS names of its own head show (case, prefix), never a scan. Linear in the names, whatever
// the number of values.

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

/** The index keeps of each name its first HEAD characters in lower case (the name itself by reference only). */
const HEAD = 32;

/** Look-ups of the index each value may make whatever is left of the budget (case, prefix). */
const OWN_LOOKUPS = 32;

function headOf(s: string): string {
  return (s.length > HEAD ? s.slice(0, HEAD) : s).toLowerCase();
}

/** A pool of names, indexed once: by the head of their lower case (sorted too, for prefixes) and by length. */
interface NameIndex {
  /** Head → the names whose lower case starts so, in the pool's order. */
  byHead: Map<string, string[]>;
  /** Every head, sorted. */
  heads: string[];
  /** Length → the names of that length, in the pool's order. */
  byLength: Map<number, string[]>;
}

const indexes = new WeakMap<ReadonlySet<string> | readonly string[], NameIndex>();

function push<K>(m: Map<K, string[]>, k: K, c: string): boolean {
  const list = m.get(k);
  if (list === undefined) m.set(k, [c]);
  else list.push(c);
  return list === undefined;
}

function indexOf(pool: ReadonlySet<string> | readonly string[]): NameIndex {
  let ix = indexes.get(pool);
  if (ix !== undefined) return ix;
  ix = { byHead: new Map(), heads: [], byLength: new Map() };
  for (const c of pool) {
    if (c.length > MAX_COMPARED) continue;
    const h = headOf(c);
    if (push(ix.byHead, h, c)) ix.heads.push(h);
    push(ix.byLength, c.length, c);
  }
  ix.heads.sort();
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

/** Spends `cost` of a value's own look-ups, else of the budget; false when neither has it left. */
type Spend = (cost: number) => boolean;

/**
 * The names the index holds that are `value` but for case, that start with it or that it starts with: those of
 * its head, of the heads that start with it (a short value), and of its own shorter heads.
 */
function alike(value: string, lower: string, ix: NameIndex, spend: Spend): { same: string | null; prefix: string | null } {
  let same: string | null = null;
  let prefix: string | null = null;
  const consider = (c: string): boolean => {
    if (!spend(c.length)) return false;
    if (c === value) return true;
    const cl = c.toLowerCase();
    if (cl === lower) {
      if (same === null || c < same) same = c;
    } else if ((cl.startsWith(lower) || lower.startsWith(cl)) && prefixClose(value, c)) {
      if (prefix === null || c.length < prefix.length || (c.length === prefix.length && c < prefix)) prefix = c;
    }
    return true;
  };
  const bucket = (h: string): boolean => (ix.byHead.get(h) ?? []).every(consider);
  const head = headOf(value);
  if (!bucket(head)) return { same, prefix };
  // A value shorter than a head: the heads that start with it (sorted after it), the shortest first in practice.
  if (value.length < HEAD) {
    const from = lowerBound(ix.heads, head);
    for (let i = ix.heads[from] === head ? from + 1 : from, seen = 0; i < ix.heads.length && seen < 64; i++, seen++) {
      const h = ix.heads[i]!;
      if (!h.startsWith(head) || !bucket(h)) break;
    }
  }
  // Names that the value starts with, shorter than a head: each is a head of its own.
  for (let n = Math.min(lower.length, HEAD) - 1; n >= MIN_PREFIX; n--) if (!bucket(lower.slice(0, n))) break;
  return { same, prefix };
}

/** The kernel in `pool` that `value` most likely meant, or null. `budget` bounds the letter-by-letter comparisons. */
export function closest(value: string, pool: ReadonlySet<string> | readonly string[], budget: Budget = newBudget()): string | null {
  if (value.length > MAX_COMPARED) return null;
  const lower = value.toLowerCase();
  const ix = indexOf(pool);
  let own = OWN_LOOKUPS;
  const spend: Spend = (cost) => {
    if (own > 0) {
      own--;
      return true;
    }
    if (budget.cells < cost) return false;
    budget.cells -= cost;
    return true;
  };
  const { same, prefix } = alike(value, lower, ix, spend);
  if (same !== null) return same;
  const limit = allowedEdits(value.length);
  let best: { c: string; d: number } | null = null;
  for (let len = value.length - limit; len <= value.length + limit && limit > 0; len++) {
    for (const c of ix.byLength.get(len) ?? []) {
      const cost = Math.min(value.length, len) * (2 * limit + 2);
      if (budget.cells < cost) break;
      budget.cells -= cost;
      if (c === value) continue;
      const d = distanceWithin(lower, c.toLowerCase(), limit);
      if (d > limit || (d > 0 && variants(value, c))) continue;
      if (best === null || d < best.d || (d === best.d && c < best.c)) best = { c, d };
    }
  }
  return best?.c ?? prefix;
}
