// The classes of a lane's steps: a run that profiled prefill and decode steps has two kinds of step on each rank and
// stream, and a fusion on the prefill path changes only the prefill steps. The lane's most frequent shape (a decode
// step) is aligned first (rewrites.ts); the most frequent shape of each other class is aligned too, with the other
// side's class it pairs with, so that such a fusion is found. What is found there is verified on every step like any
// other rewrite.
//
// A class is found by counts alone (editLowerBound: no alignment): going through a side's shapes from the most
// frequent, a shape founds a class when, against every class so far, more than a tenth of its kernels differ by count
// or more than one in fifty are of kernels the class never runs (a prefill step whose attention kernel is another, the
// rest alike); a decode step that ran a kernel more, or a kernel type more once, stays in its class. A base class
// and a PR class pair when each is the other's nearest (the fewest kernels differing by count): a class of one side
// only (prefill profiled in the base alone) pairs with nothing, rather than with a step of another kind.

import { editLowerBound } from './editBound.js';

/** The most classes of one side of a lane, the representative's included. */
export const MAX_CLASSES = 4;

/**
 * The shapes of one side of a lane always looked at for classes (the most frequent); the rest, as long as a budget of
 * work shared by the whole comparison lasts (CLASSED_WORK).
 */
export const MAX_SHAPES_CLASSED = 16;

/**
 * The work (kernels compared, each shape's against each class's so far) that the shapes past the first
 * MAX_SHAPES_CLASSED of every lane may take in all: a prefill step seen once among decode steps of many shapes (each
 * a kernel more or less) is then looked at too, while a hostile profile of thousands of shapes costs a bounded time.
 */
export const CLASSED_WORK = 1 << 24;

/** A shape founds a class when more than 1/CLASS_APART of its kernels differ by count from every class so far. */
const CLASS_APART = 10;

/** …or when more than 1/FOREIGN of its kernels are of kernels a class so far never runs (see stepClasses). */
const FOREIGN = 50;

/** A lower bound of edits between two shapes' tokens (memoised by the caller across lanes). */
export type Bound = (a: number, b: number) => number;

/**
 * Memoised editLowerBound between shapes of two token tables (`a` and `b` may be the same table): lanes of several
 * ranks share their shapes.
 */
export function shapeBound(a: readonly Int32Array[], b: readonly Int32Array[]): Bound {
  const memo = new Map<number, Map<number, number>>();
  return (x, y) => {
    let row = memo.get(x);
    if (row === undefined) {
      row = new Map();
      memo.set(x, row);
    }
    let v = row.get(y);
    if (v === undefined) {
      v = editLowerBound(a[x]!, b[y]!);
      row.set(y, v);
    }
    return v;
  };
}

/** The shapes of a lane's steps from the most frequent (ties: the one seen first). */
export function byFrequency(shapeOf: (step: number) => number, steps: readonly number[]): number[] {
  const counts = new Map<number, number>();
  for (const i of steps) {
    const sh = shapeOf(i);
    counts.set(sh, (counts.get(sh) ?? 0) + 1);
  }
  // Map order is first seen; the sort is stable.
  return [...counts.keys()].sort((x, y) => counts.get(y)! - counts.get(x)!);
}

/**
 * The classes of one side of a lane: the most frequent shape of each, the representative (`shapes[0]`) first, of the
 * first MAX_SHAPES_CLASSED shapes and of those after them that `budget` (work, shared by the comparison's lanes)
 * leaves room for. A shape is apart from a class when over 1/CLASS_APART of its kernels differ by count from the class's, or over 1/FOREIGN of
 * them are of kernels the class never runs (a prefill step whose attention is another kernel, the rest alike).
 */
export function stepClasses(shapes: readonly number[], tokens: readonly Int32Array[], bound: Bound, budget: { work: number } = { work: 0 }): Classes {
  const of = new Map<number, number>();
  if (shapes.length === 0) return { reps: [], of };
  const classes = [shapes[0]!];
  of.set(shapes[0]!, 0);
  const kinds = new Map<number, Set<number>>();
  const foreign = (sh: number, c: number): number => {
    let set = kinds.get(c);
    if (set === undefined) {
      set = new Set(tokens[c]);
      kinds.set(c, set);
    }
    let k = 0;
    for (const t of tokens[sh]!) if (!set.has(t)) k++;
    return k;
  };
  for (let i = 1; i < shapes.length; i++) {
    const sh = shapes[i]!;
    const n = tokens[sh]!.length;
    if (i >= MAX_SHAPES_CLASSED) {
      // Past the most frequent shapes, while the comparison's budget lasts (the most each shape may cost).
      let cost = 0;
      for (const c of classes) cost += n + tokens[c]!.length;
      if (budget.work < cost) break;
      budget.work -= cost;
    }
    const within = classes.findIndex((c) => !(bound(sh, c) * CLASS_APART > Math.max(n, tokens[c]!.length) || foreign(sh, c) * FOREIGN > n));
    if (within >= 0) of.set(sh, within);
    else if (classes.length < MAX_CLASSES) {
      of.set(sh, classes.length);
      classes.push(sh);
    }
  }
  return { reps: classes, of };
}

/** The classes of one side of a lane: each one's most frequent shape (`reps`, the representative first), and the class of each shape looked at. */
export interface Classes {
  reps: number[];
  of: Map<number, number>;
}

/**
 * The pairs of classes to align besides the representatives (`base[0]`, `pr[0]`, aligned already), as shapes: a base
 * class and a PR class, neither a representative, that are each other's partner. `together[b][p]`: the steps (a rank's
 * Step Id; in order on a rank whose sides share none) that are of base class b on the base and of PR class p on the
 * PR; a class's partner is the class most of its steps are on the other side (ties to the more frequent class, but for
 * a tie with the representative, which goes to the other class: prefill steps at Step Ids 1 and 7 on the base, 1 and
 * 8 on the PR, pair), as
 * the steps are compared when the chains are counted. A class of no such step (the other side's lane did not run its
 * steps) is paired by its kernels: with the class nearest to it (`across(b, p)`: the
 * lower bound between base shape b and PR shape p; ties to the more frequent), when it is that one's nearest in turn.
 * Kernels alone miss a fusion that removed what set the class apart (a prefill attention fused away). In the order of
 * the base's classes.
 */
export function classPairs(
  base: readonly number[],
  pr: readonly number[],
  across: Bound,
  together: readonly (readonly number[])[] = [],
): [number, number][] {
  const most = (n: number, votes: (i: number) => number): number | null => {
    let best: number | null = null;
    let bestV = 0;
    for (let i = 0; i < n; i++) {
      const v = votes(i);
      // Ties to the more frequent class, but for the representative: its tie with another class is no majority of it.
      if (v > bestV || (v === bestV && v > 0 && best === 0)) {
        best = i;
        bestV = v;
      }
    }
    return best;
  };
  const byStep = (bi: number): number | null => {
    const p = most(pr.length, (pi) => together[bi]?.[pi] ?? 0);
    if (p === null) return null;
    return most(base.length, (b) => together[b]?.[p] ?? 0) === bi ? p : -1;
  };
  const nearest = (of: readonly number[], d: (x: number) => number): number => {
    let best = of[0]!;
    let bestD = d(best);
    for (const x of of.slice(1)) {
      const dx = d(x);
      if (dx < bestD) {
        best = x;
        bestD = dx;
      }
    }
    return best;
  };
  const out: [number, number][] = [];
  for (let bi = 1; bi < base.length; bi++) {
    const b = base[bi]!;
    const stepped = byStep(bi);
    if (stepped !== null) {
      // Its steps' partner on the other side, when that class's steps are mostly its in turn (not a representative).
      if (stepped > 0) out.push([b, pr[stepped]!]);
      continue;
    }
    const p = nearest(pr, (x) => across(b, x));
    // The representatives are paired with each other: a class nearest to the other side's is not aligned with it
    // again (the same PR steps read against two kinds of base step would make rewrites that contradict).
    if (p === pr[0]) continue;
    if (nearest(base, (x) => across(x, p)) !== b) continue;
    out.push([b, p]);
  }
  return out;
}

/**
 * The PR classes to align with the base's representative (as PR shapes): those no pair of classPairs (`pairs`) holds
 * whose steps (a rank's Step Id, as in classPairs) the base ran mostly as its representative's kind. A fusion made in
 * some steps only sets those steps apart as a class of their own (its fused kernel, one a layer, is of a kind the
 * base never runs), and the base's steps are all alike. Steps of another kind profiled on one side only (a PR's
 * prefill step where the base ran a decode step) pair so too: what is found there is kept only when it is a fusion
 * that the base's kernels could not have made (see rewrites.ts, `fusedOnly`). A base class so placed is not aligned
 * (the base's prefill step against the PR's decode step reads as a fusion into the decode kernels; the case is
 * alike, sides apart, to a fusion the base made in some steps that the PR made in all).
 */
export function fusedClasses(
  base: readonly number[],
  pr: readonly number[],
  pairs: readonly [number, number][],
  together: readonly (readonly number[])[],
): number[] {
  const taken = new Set(pairs.map(([, p]) => p));
  const out: number[] = [];
  for (let pi = 1; pi < pr.length; pi++) {
    if (taken.has(pr[pi]!)) continue;
    let best = -1;
    let bestV = 0;
    for (let b = 0; b < base.length; b++) {
      const v = together[b]?.[pi] ?? 0;
      if (v > bestV) {
        best = b;
        bestV = v;
      }
    }
    if (best === 0) out.push(pr[pi]!);
  }
  return out;
}
