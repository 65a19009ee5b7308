// Kernels moved beside a fusion. A fused kernel that runs one kernel later than the chain it replaced (`A B C D E` →
// `D F E`), or a kernel of the chain's neighbourhood that swapped places with another beside the change (`A B C D E`
// → `F E D`), makes a shortest edit script of two hunks a few kernels apart: `A B C` → nothing and nothing → `F`,
// or `A B C D` → `F` and nothing → `D`. Listed as they are, the first is two rewrites that never happened and no
// fusion, the second a fusion of a chain one kernel too long and a kernel added. So two hunks at most MOVE_GAP
// unchanged kernels apart are one change when one removed what the other added (a kernel moved), or when one only
// removed and the other only added (the new kernel runs where the old ones did not): the change is what the base's
// kernels of the two hunks and the kernels between them lose to the PR's of the same stretch, each kernel the other
// side runs there too (moved, or in place) left out. It is taken only when what is left is a run of kernels on each
// side (a chain that occurs as such), not the whole stretch on either side (something stayed in place or moved).
// Likewise a replacement a kernel or two (KEPT_GAP) from a removal is one chain with the kernels between kept (kept()),
// and, where no hunk alone is a fusion, two or three hunks whose losses hold up to KEPT_GAP kernels the PR still runs
// (`A B C D E` → `B D F E`: A B C → F, B kept).
// Every merge must make a fusion: a chain of two kernels or more replaced by fewer, each of a kind the base never
// runs (`novel`); two unrelated changes a kernel apart (a Cast dropped, a TransData added) stay two.
// Hunks next to each other (no kernel between them) are left as they are: splitDuplicates made them, apart.

import type { Hunk } from './myers.js';

/** Hunks at most this many unchanged kernels apart may be one change with kernels moved. */
export const MOVE_GAP = 4;

/** A replacement and a removal at most this many kernels apart may be one chain with the kernels between kept (kept()). */
export const KEPT_GAP = 2;

/** Hunks of more kernels than this (both sides) are no fused chain's: not looked at (two steps of unrelated runs). */
const MAX_HUNK = 256;

/**
 * Whether a chain of `removed` kernels replaced by `added` is a fusion the base could not have made: two kernels or
 * more replaced by fewer, each of a kind the base never runs (`novel`).
 */
export function isFusion(removed: number, added: ArrayLike<number>, novel: (token: number) => boolean): boolean {
  if (removed < 2 || added.length < 1 || added.length >= removed) return false;
  for (let j = 0; j < added.length; j++) if (!novel(added[j]!)) return false;
  return true;
}

/** Whether a[i, i + k) equals a[j, j + k) (both inside a). */
export function sameRun(a: Int32Array, i: number, j: number, k: number): boolean {
  if (i < 0 || j < 0 || i + k > a.length || j + k > a.length) return false;
  for (let x = 0; x < k; x++) if (a[i + x] !== a[j + x]) return false;
  return true;
}

/** The hunks with those that are one change with kernels moved merged (see the top of this file), in order. */
export function mergeMoves(
  a: Int32Array,
  b: Int32Array,
  hunks: readonly (Hunk & { copy?: true })[],
  novel: (token: number) => boolean,
): (Hunk & { copy?: true })[] {
  const out: (Hunk & { copy?: true })[] = [];
  const fusion = (x: Hunk | null): Hunk | null => (x !== null && isFusion(x.aLen, b.subarray(x.bStart, x.bStart + x.bLen), novel) ? x : null);
  // A copy splitDuplicates cut off is its own change; a hunk past MAX_HUNK no fused chain's.
  const small = (x: Hunk & { copy?: true }): boolean => x.copy !== true && x.aLen + x.bLen <= MAX_HUNK;
  for (let i = 0; i < hunks.length; i++) {
    const h = hunks[i]!;
    const next = hunks[i + 1];
    const third = hunks[i + 2];
    let merged =
      next === undefined || !small(h) || !small(next) ? null : (fusion(moved(a, b, [h, next], novel)) ?? fusion(kept(a, b, h, next, novel)));
    let used = 1;
    // Three hunks: a kernel of the chain kept between its removals, the fused kernel a kernel or more later
    // (`A B C D E` → `B D F E`: A, C and F apart, B kept, D moved).
    if (merged === null && next !== undefined && third !== undefined && small(h) && small(next) && small(third)) {
      merged = fusion(moved(a, b, [h, next, third], novel));
      used = 2;
    }
    if (merged === null) out.push(h);
    else {
      out.push(merged);
      i += used;
    }
  }
  return out;
}

/** Whether hunk x alone is a fusion (isFusion). */
function fusedAlone(b: Int32Array, x: Hunk, novel: (token: number) => boolean): boolean {
  return isFusion(x.aLen, b.subarray(x.bStart, x.bStart + x.bLen), novel);
}

/**
 * The one change that hunks hs (two or three, in order) are with kernels moved, or null. Where no hunk alone is a
 * fusion (by the kernels it removed that no other hunk adds back), the chain may hold up to KEPT_GAP kernels the PR
 * still runs in the stretch (kept: `A B C` → `B … F`): the merge is then what makes the fusion. Where one alone is
 * (`X Y A B C` → `Y F`: A B C → F), a kernel dropped beside it is a change of its own.
 */
function moved(a: Int32Array, b: Int32Array, hs: Hunk[], novel: (token: number) => boolean): Hunk | null {
  for (let x = 0; x + 1 < hs.length; x++) {
    const gap = hs[x + 1]!.aStart - (hs[x]!.aStart + hs[x]!.aLen);
    if (gap < 1 || gap > MOVE_GAP || hs[x + 1]!.bStart - (hs[x]!.bStart + hs[x]!.bLen) !== gap) return null;
  }
  const removes = (x: Hunk): boolean => x.aLen > 0 && x.bLen === 0;
  const adds = (x: Hunk): boolean => x.aLen === 0 && x.bLen > 0;
  const pure = hs.every((x) => removes(x) || adds(x)) && hs.some(removes) && hs.some(adds);
  const shares = (x: Hunk, y: Hunk): boolean => {
    const removed = new Set(a.subarray(x.aStart, x.aStart + x.aLen));
    for (let j = y.bStart; j < y.bStart + y.bLen; j++) if (removed.has(b[j]!)) return true;
    return false;
  };
  if (!pure && !hs.some((x) => hs.some((y) => x !== y && shares(x, y)))) return null;
  const last = hs[hs.length - 1]!;
  const [aFrom, aTo] = [hs[0]!.aStart, last.aStart + last.aLen];
  const [bFrom, bTo] = [hs[0]!.bStart, last.bStart + last.bLen];
  // A hunk is a fusion alone by the kernels it removed that no other hunk adds (`G S I D M` → `M S I F`: `D M` → `F`
  // removed M only to add it two kernels earlier).
  const alone = (x: Hunk): boolean => {
    let moves = 0;
    for (let i = x.aStart; i < x.aStart + x.aLen; i++)
      if (hs.some((y) => y !== x && b.subarray(y.bStart, y.bStart + y.bLen).includes(a[i]!))) moves++;
    return isFusion(x.aLen - moves, b.subarray(x.bStart, x.bStart + x.bLen), novel);
  };
  const keep = hs.some(alone) ? 0 : KEPT_GAP;
  // Each kernel the other side runs in the stretch paired with the first of its kind, or the last: a kind that runs
  // twice there (GroupedMatmul before and after the chain) leaves a run one way only. A run with nothing kept in it
  // first.
  const removedWith = (k: number) => lost(a, aFrom, aTo, b, bFrom, bTo, false, k) ?? lost(a, aFrom, aTo, b, bFrom, bTo, true, k);
  const removed = removedWith(0) ?? (keep > 0 ? removedWith(keep) : null);
  const added = lost(b, bFrom, bTo, a, aFrom, aTo, false, 0) ?? lost(b, bFrom, bTo, a, aFrom, aTo, true, 0);
  if (removed === null || added === null) return null;
  // Something changed on each side, and something of the stretch stayed on each (else it is no move).
  if (removed[1] === removed[0] && added[1] === added[0]) return null;
  if (removed[1] - removed[0] === aTo - aFrom || added[1] - added[0] === bTo - bFrom) return null;
  return { aStart: removed[0], aLen: removed[1] - removed[0], bStart: added[0], bLen: added[1] - added[0] };
}

/**
 * The one change that hunks h and k are with kernels of its chain kept between them: one replaced kernels and the
 * other only removed some, a kernel or two apart (`A B C D E` → `C F`: `A B` removed, `C` kept, `D E` → `F`). The chain
 * is the whole stretch of the base, the kernels between the hunks in it (the rewrite's kept kernels, which the PR
 * still runs beside the fused one); what replaced it is the replacement's. Only where the kernels between are of
 * kinds the chain runs besides, and not where the stretch would then start or end with a copy of the kernels beside
 * it (`… C M S M S` → `… F M S`: a copy dropped beside the fusion is a change of its own, as splitDuplicates has
 * it). Else null.
 */
function kept(a: Int32Array, b: Int32Array, h: Hunk, k: Hunk, novel: (token: number) => boolean): Hunk | null {
  const gap = k.aStart - (h.aStart + h.aLen);
  if (gap < 1 || gap > KEPT_GAP || k.bStart - (h.bStart + h.bLen) !== gap) return null;
  const replaced = (x: Hunk): boolean => x.aLen > 0 && x.bLen > 0;
  const removedOnly = (x: Hunk): boolean => x.aLen > 0 && x.bLen === 0;
  const start = h.aStart;
  const end = k.aStart + k.aLen;
  let out: Hunk | null = null;
  if (removedOnly(h) && replaced(k)) out = { aStart: start, aLen: end - start, bStart: k.bStart, bLen: k.bLen };
  else if (replaced(h) && removedOnly(k)) out = { aStart: start, aLen: end - start, bStart: h.bStart, bLen: h.bLen };
  if (out === null) return null;
  const only = removedOnly(h) ? h : k;
  for (let n = 1; n <= only.aLen; n++) if (sameRun(a, end - n, end, n) || sameRun(a, start, start - n, n)) return null;
  // The kernels between are of kinds the chain runs besides (one of its two RmsNorms kept), or the replacement alone is
  // no fusion (`A B C` → `B F`: C → F alone is one kernel for one, and the merge makes the fusion): else they are a
  // neighbour, and the two changes apart (a fusion, and a kernel dropped a kernel before it).
  if (!fusedAlone(b, replaced(h) ? h : k, novel)) return out;
  const between = h.aStart + h.aLen;
  const rest = new Set<number>();
  for (let i = start; i < end; i++) if (i < between || i >= k.aStart) rest.add(a[i]!);
  for (let i = between; i < k.aStart; i++) if (!rest.has(a[i]!)) return null;
  return out;
}

/**
 * The kernels of x[from, to) that y[yFrom, yTo) does not run (each of y's kernels taken once, the first of x's that
 * is of its kind, or the last when `fromEnd`), as the range they make, when they make one run, with at most `keep`
 * kernels the other side runs inside it (kept): [start, end), start = end for none; else null.
 */
function lost(
  x: Int32Array,
  from: number,
  to: number,
  y: Int32Array,
  yFrom: number,
  yTo: number,
  fromEnd: boolean,
  keep: number,
): [number, number] | null {
  const left = new Map<number, number>();
  for (let j = yFrom; j < yTo; j++) left.set(y[j]!, (left.get(y[j]!) ?? 0) + 1);
  const gone = new Uint8Array(to - from);
  for (let n = 0; n < to - from; n++) {
    const i = fromEnd ? to - 1 - n : from + n;
    const k = left.get(x[i]!) ?? 0;
    if (k > 0) left.set(x[i]!, k - 1);
    else gone[i - from] = 1;
  }
  let start = -1;
  let end = -1;
  let inside = 0;
  for (let i = from; i < to; i++) {
    if (gone[i - from] === 0) continue;
    if (start < 0) start = i;
    else if (end !== i) inside += i - end;
    end = i + 1;
  }
  if (inside > keep) return null;
  return start < 0 ? [from, from] : [start, end];
}
