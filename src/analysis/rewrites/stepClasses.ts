// The classes of a lane's steps: a run that profiled prefill and decode steps has two kinds of step on each rank and
// stream, and a fusion on the prefill path changes only the prefill steps. The lane's most frequent shape (a decode
// step) is aligned first (rewrites.ts); the most frequent shape of each other class is aligned too, with the other
// side's class it pairs with, so that such a fusion is found. What is found there is verified on every step like any
// other rewrite.
//
// A class is found by counts alone (editLowerBound: no alignment): going through a side's shapes from the most
// frequent, a shape founds a class when more than a tenth of its kernels differ by count from every class so far (a
// decode step that ran a kernel more, or a last step cut short by a few kernels, stays in its class). A base class
// and a PR class pair when each is the other's nearest (the fewest kernels differing by count): a class of one side
// only (prefill profiled in the base alone) pairs with nothing, rather than with a step of another kind.

import { editLowerBound } from './editBound.js';

/** The most classes of one side of a lane, the representative's included. */
export const MAX_CLASSES = 4;

/** The most shapes of one side of a lane looked at for classes (the most frequent). */
export const MAX_SHAPES_CLASSED = 16;

/** A shape founds a class when more than 1/CLASS_APART of its kernels differ by count from every class so far. */
const CLASS_APART = 10;

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

/** The classes of one side of a lane: the most frequent shape of each, the representative (`shapes[0]`) first. */
export function stepClasses(shapes: readonly number[], tokens: readonly Int32Array[], bound: Bound): number[] {
  if (shapes.length === 0) return [];
  const classes = [shapes[0]!];
  for (const sh of shapes.slice(1, MAX_SHAPES_CLASSED)) {
    const n = tokens[sh]!.length;
    const apart = classes.every((c) => bound(sh, c) * CLASS_APART > Math.max(n, tokens[c]!.length));
    if (!apart) continue;
    classes.push(sh);
    if (classes.length === MAX_CLASSES) break;
  }
  return classes;
}

/**
 * The pairs of classes to align besides the representatives (`base[0]`, `pr[0]`, aligned already): a base class and
 * a PR class, neither a representative, that are each other's nearest among all classes (`across(b, p)`: the lower
 * bound between base shape b and PR shape p; ties to the more frequent class). In the order of the base's classes.
 */
export function classPairs(base: readonly number[], pr: readonly number[], across: Bound): [number, number][] {
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
  for (const b of base.slice(1)) {
    const p = nearest(pr, (x) => across(b, x));
    // The representatives are paired with each other: a class nearest to the other side's is not aligned with it
    // again (the same PR steps read against two kinds of base step would make rewrites that contradict).
    if (p === pr[0]) continue;
    if (nearest(base, (x) => across(x, p)) !== b) continue;
    out.push([b, p]);
  }
  return out;
}
