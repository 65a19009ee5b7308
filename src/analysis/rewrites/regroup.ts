// Among the shortest edit scripts of two steps, the one with the fewest hunks, near each cluster of hunks.
//
// A shortest edit script is not unique where tokens repeat. `TD TD Conv2D TD Relu TD` → `TD TD ConvRelu TD` (TD a
// TransData that runs everywhere) is 4 edits as one hunk (Conv2D TD Relu → ConvRelu) or as two (Conv2D → ConvRelu,
// then Relu TD → nothing, keeping the other TD), and Myers' bisection may pick either. The split one makes
// fragments (`Conv2D → ConvRelu`, `Relu → nothing`, `nothing → ConvRelu` …) whose exact occurrences over the
// profile count the kernels of the whole fusion again, each: rewrites that never happened. Hunks never merge at a
// cost: joining two hunks across an unchanged token takes two more edits, so no script with fewer hunks is as short
// unless the hunks were fragments of one change.
//
// Each run of hunks less than GAP unchanged tokens apart is aligned again by dynamic programming, minimising
// (edits, hunks) in that order; the edits stay those of the script given (it is shortest, and so is each of its
// stretches between unchanged tokens). The work is bounded: a window of at most MAX_CELLS cells, and at most
// MAX_TOTAL_CELLS over one alignment; past those, the script is kept as it is.

import type { Alignment } from './myers.js';
import { regroupInWasm } from './searchEngine.js';

/** Hunks closer than this many unchanged tokens are aligned again together. */
export const GAP = 8;
/** The most cells (window of A × window of B) one dynamic programme may take. */
export const MAX_CELLS = 1 << 18;
/** The most cells over all the windows of one alignment. */
export const MAX_TOTAL_CELLS = 1 << 22;

export interface Span {
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/** The hunks of the change flags (element i at index i + 1), in order. */
function spans(al: Alignment, n: number, m: number): Span[] {
  const out: Span[] = [];
  const fa = al.changedA;
  const fb = al.changedB;
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if ((i < n && fa[i + 1]) || (j < m && fb[j + 1])) {
      const aStart = i;
      const bStart = j;
      while (i < n && fa[i + 1]) i++;
      while (j < m && fb[j + 1]) j++;
      out.push({ aStart, aEnd: i, bStart, bEnd: j });
    } else {
      i++;
      j++;
    }
  }
  return out;
}

/** Rewrite the flags of `al` in place so that no cluster of hunks has more of them than a shortest script needs. */
export function fewestHunks(a: Int32Array, b: Int32Array, al: Alignment): Alignment {
  const hunks = spans(al, a.length, b.length);
  let budget = MAX_TOTAL_CELLS;
  for (let h = 0; h < hunks.length; ) {
    const first = hunks[h]!;
    let last = h;
    while (last + 1 < hunks.length) {
      const next = hunks[last + 1]!;
      if (next.aStart - hunks[last]!.aEnd >= GAP) break;
      if ((next.aEnd - first.aStart + 1) * (next.bEnd - first.bStart + 1) > MAX_CELLS) break;
      last++;
    }
    if (last > h) {
      const w = { aStart: first.aStart, aEnd: hunks[last]!.aEnd, bStart: first.bStart, bEnd: hunks[last]!.bEnd };
      const cells = (w.aEnd - w.aStart + 1) * (w.bEnd - w.bStart + 1);
      if (cells <= budget) {
        budget -= cells;
        realign(a, b, al, w, last - h + 1);
      }
    }
    h = last + 1;
  }
  return al;
}

/**
 * Align a[w.aStart, w.aEnd) with b[w.bStart, w.bEnd) again with the fewest edits, then the fewest hunks, and write
 * the result into the flags when it has fewer hunks than `hunks`.
 */
function realign(a: Int32Array, b: Int32Array, al: Alignment, w: Span, hunks: number): void {
  const n = w.aEnd - w.aStart;
  const m = w.bEnd - w.bStart;
  const cols = m + 1;
  // Cost = edits × K + hunks: the edits first (a window has fewer than K hunks).
  const K = n + m + 1;
  // In WebAssembly where it runs (searchEngine.ts): the same cells, compiled before the first window.
  const { keep, edit } = regroupInWasm(a, b, w, K) ?? realignTables(a, b, w, K);
  const end = n * cols + m;
  const best = Math.min(keep[end]!, edit[end]!);
  const edits = Math.floor(best / K);
  const given = countEdits(al, w);
  // The script given is a shortest one; a window that disagrees is left alone (it cannot, but stay safe).
  if (edits !== given || best - edits * K >= hunks) return;
  // Walk back, writing the flags (1: changed).
  const fa = al.changedA;
  const fb = al.changedB;
  let i = n;
  let j = m;
  let state: 0 | 1 = keep[end]! <= edit[end]! ? 0 : 1;
  while (i > 0 || j > 0) {
    const c = i * cols + j;
    if (state === 0) {
      fa[w.aStart + i] = 0;
      fb[w.bStart + j] = 0;
      const p = c - cols - 1;
      state = keep[p]! <= edit[p]! ? 0 : 1;
      i--;
      j--;
      continue;
    }
    const v = edit[c]!;
    if (i > 0 && keep[c - cols]! + K + 1 === v) {
      fa[w.aStart + i] = 1;
      i--;
      state = 0;
    } else if (i > 0 && edit[c - cols]! + K === v) {
      fa[w.aStart + i] = 1;
      i--;
    } else if (j > 0 && keep[c - 1]! + K + 1 === v) {
      fb[w.bStart + j] = 1;
      j--;
      state = 0;
    } else {
      fb[w.bStart + j] = 1;
      j--;
    }
  }
}

/** Past any cost of a window: the tables' "none". */
const INF = 0x3fffffff;

/**
 * The dynamic programme of realign over a[w.aStart, w.aEnd) × b[w.bStart, w.bEnd), cost = edits × K + hunks:
 * keep[c], the best cost of a[0, i) against b[0, j) ending on an unchanged pair (or at the start); edit[c], ending
 * on an edit (c = i · (m + 1) + j; INF: none). Each cell from the one before it in its row and the two above it,
 * carried in variables: a diff runs a few windows, mostly before V8 has compiled this loop, where each load and
 * call is paid in full.
 */
export function realignTables(a: Int32Array, b: Int32Array, w: Span, K: number): { keep: Int32Array; edit: Int32Array } {
  const n = w.aEnd - w.aStart;
  const m = w.bEnd - w.bStart;
  const cols = m + 1;
  const keep = new Int32Array((n + 1) * cols).fill(INF);
  const edit = new Int32Array((n + 1) * cols).fill(INF);
  const open = K + 1;
  keep[0] = 0;
  // Row 0: edits only (insertions of b).
  for (let j = 1, leftKeep = 0, leftEdit = INF; j <= m; j++) {
    let e = leftKeep + open;
    const e2 = leftEdit + K;
    if (e2 < e) e = e2;
    leftKeep = INF;
    if (e < INF) edit[j] = e;
    leftEdit = edit[j]!;
  }
  const bFrom = w.bStart - 1;
  for (let i = 1; i <= n; i++) {
    const ai = a[w.aStart + i - 1]!;
    const row = i * cols;
    const up = row - cols;
    let diagKeep = keep[up]!;
    let diagEdit = edit[up]!;
    // j = 0: a deletion of a[i − 1] only.
    let e0 = diagKeep + open;
    if (diagEdit + K < e0) e0 = diagEdit + K;
    if (e0 < INF) edit[row] = e0;
    let leftKeep = INF;
    let leftEdit = edit[row]!;
    for (let j = 1; j <= m; j++) {
      const upKeep = keep[up + j]!;
      const upEdit = edit[up + j]!;
      let k = INF;
      if (ai === b[bFrom + j]) {
        k = diagKeep;
        if (diagEdit < k) k = diagEdit;
        keep[row + j] = k;
      }
      let e = upKeep + open;
      let x = upEdit + K;
      if (x < e) e = x;
      x = leftKeep + open;
      if (x < e) e = x;
      x = leftEdit + K;
      if (x < e) e = x;
      if (e < INF) edit[row + j] = e;
      else e = INF;
      leftKeep = k;
      leftEdit = e;
      diagKeep = upKeep;
      diagEdit = upEdit;
    }
  }
  return { keep, edit };
}

function countEdits(al: Alignment, w: Span): number {
  let n = 0;
  for (let i = w.aStart; i < w.aEnd; i++) n += al.changedA[i + 1]!;
  for (let j = w.bStart; j < w.bEnd; j++) n += al.changedB[j + 1]!;
  return n;
}
