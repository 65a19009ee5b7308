// Kernels moved beside a change. A fused kernel that runs one kernel later than the chain it replaced (`A B C D E` →
// `D F E`), or a kernel of the chain's neighbourhood that swapped places with another beside the change (`A B C D E`
// → `F E D`), makes a shortest edit script of two hunks a kernel or two apart: `A B C` → nothing and nothing → `F`,
// or `A B C D` → `F` and nothing → `D`. Listed as they are, the first is two rewrites that never happened and no
// fusion, the second a fusion of a chain one kernel too long and a kernel added. So two hunks at most MOVE_GAP
// unchanged kernels apart are one change when one removed what the other added (a kernel moved), or when one only
// removed and the other only added (the new kernel runs where the old ones did not): the change is what the base's
// kernels of the two hunks and the kernels between them lose to the PR's of the same stretch, each kernel the other
// side runs there too (moved, or in place) left out. It is taken only when what is left is a run of kernels on each
// side (a chain that occurs as such), not the whole stretch on either side (something stayed in place or moved).
// Hunks next to each other (no kernel between them) are left as they are: splitDuplicates made them, apart.

import type { Hunk } from './myers.js';

/** Hunks at most this many unchanged kernels apart may be one change with kernels moved. */
export const MOVE_GAP = 2;

/** The hunks with those that are one change with kernels moved merged (see the top of this file), in order. */
export function mergeMoves(a: Int32Array, b: Int32Array, hunks: readonly (Hunk & { copy?: true })[]): (Hunk & { copy?: true })[] {
  const out: (Hunk & { copy?: true })[] = [];
  for (let i = 0; i < hunks.length; i++) {
    const h = hunks[i]!;
    const next = hunks[i + 1];
    // A copy splitDuplicates cut off is its own change.
    const merged = next === undefined || h.copy === true || next.copy === true ? null : moved(a, b, h, next);
    if (merged === null) out.push(h);
    else {
      out.push(merged);
      i++;
    }
  }
  return out;
}

/** The one change that hunks h and k (k after h) are with kernels moved, or null. */
function moved(a: Int32Array, b: Int32Array, h: Hunk, k: Hunk): Hunk | null {
  const gap = k.aStart - (h.aStart + h.aLen);
  if (gap < 1 || gap > MOVE_GAP || k.bStart - (h.bStart + h.bLen) !== gap) return null;
  const pure = (h.bLen === 0 && k.aLen === 0 && h.aLen > 0 && k.bLen > 0) || (h.aLen === 0 && k.bLen === 0 && h.bLen > 0 && k.aLen > 0);
  const shares = (x: Hunk, y: Hunk): boolean => {
    const removed = new Set(a.subarray(x.aStart, x.aStart + x.aLen));
    for (let j = y.bStart; j < y.bStart + y.bLen; j++) if (removed.has(b[j]!)) return true;
    return false;
  };
  if (!pure && !shares(h, k) && !shares(k, h)) return null;
  const [aFrom, aTo] = [h.aStart, k.aStart + k.aLen];
  const [bFrom, bTo] = [h.bStart, k.bStart + k.bLen];
  const removed = lost(a, aFrom, aTo, b, bFrom, bTo);
  const added = lost(b, bFrom, bTo, a, aFrom, aTo);
  if (removed === null || added === null) return null;
  // Something changed on each side, and something of the stretch stayed on each (else it is no move).
  if (removed[1] === removed[0] && added[1] === added[0]) return null;
  if (removed[1] - removed[0] === aTo - aFrom || added[1] - added[0] === bTo - bFrom) return null;
  return { aStart: removed[0], aLen: removed[1] - removed[0], bStart: added[0], bLen: added[1] - added[0] };
}

/**
 * The kernels of x[from, to) that y[yFrom, yTo) does not run (each of y's kernels taken once, the first of x's that
 * is of its kind), as the range they make, when they make one run: [start, end), start = end for none; else null.
 */
function lost(x: Int32Array, from: number, to: number, y: Int32Array, yFrom: number, yTo: number): [number, number] | null {
  const left = new Map<number, number>();
  for (let j = yFrom; j < yTo; j++) left.set(y[j]!, (left.get(y[j]!) ?? 0) + 1);
  let start = -1;
  let end = -1;
  for (let i = from; i < to; i++) {
    const n = left.get(x[i]!) ?? 0;
    if (n > 0) {
      left.set(x[i]!, n - 1);
      continue;
    }
    if (start < 0) start = i;
    else if (end !== i) return null;
    end = i + 1;
  }
  return start < 0 ? [from, from] : [start, end];
}
