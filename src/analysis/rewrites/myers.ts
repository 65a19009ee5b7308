// The diff of two token sequences (one representative step of each side): Myers' O((N+M)·D) algorithm in linear
// space (the "middle snake" bisection, as diff-match-patch's diff_bisect does it), an exact lower bound on D to
// refuse hopeless pairs before any work, then git's xdl_change_compact (xdiff/xdiffi.c) to slide and merge the
// changed runs, and the hunks that result.
//
// Changes are kept as xdiff keeps them: one flag per element (`rchg`), with a zero sentinel before the first and
// after the last element, so that the group walks of xdl_change_compact port line for line.

import { editLowerBound } from './editBound.js';
import { alignInWasm } from './searchEngine.js';

/** Per-element change flags of one sequence; element i is at index i + 1 (indexes 0 and n + 1 are sentinels). */
export type ChangeFlags = Uint8Array;

/** One hunk: `aLen` elements of A from `aStart` replaced by `bLen` elements of B from `bStart`. */
export interface Hunk {
  aStart: number;
  aLen: number;
  bStart: number;
  bLen: number;
}

/** The result of diffing a and b: change flags of each, and D (insertions + deletions). */
export interface Alignment {
  changedA: ChangeFlags;
  changedB: ChangeFlags;
  edits: number;
}

/**
 * A shortest edit script (insertions and deletions) from a to b, or null when it needs more than `maxEdits` edits
 * (checked first against editLowerBound, then while searching: the search stops after about maxEdits / 2 rounds
 * from each end).
 */
export function alignSequences(a: Int32Array, b: Int32Array, maxEdits: number): Alignment | null {
  if (editLowerBound(a, b) > maxEdits) return null;
  const changedA = new Uint8Array(a.length + 2);
  const changedB = new Uint8Array(b.length + 2);
  // The same search in WebAssembly where it runs (searchEngine.ts), else here.
  const ok = alignInWasm(a, b, capRounds(maxEdits), changedA, changedB) ?? compare(a, 0, a.length, b, 0, b.length, changedA, changedB, maxEdits);
  if (!ok) return null;
  let edits = 0;
  for (let i = 1; i <= a.length; i++) edits += changedA[i]!;
  for (let i = 1; i <= b.length; i++) edits += changedB[i]!;
  if (edits > maxEdits) return null;
  return { changedA, changedB, edits };
}

/**
 * Marks the changes between a[aLo, aHi) and b[bLo, bHi). `cap`: the most edits allowed (only the outermost call
 * is capped; the halves it splits into need fewer edits than the whole). False when the cap was reached.
 */
function compare(
  a: Int32Array,
  aLo: number,
  aHi: number,
  b: Int32Array,
  bLo: number,
  bHi: number,
  changedA: ChangeFlags,
  changedB: ChangeFlags,
  cap: number,
): boolean {
  // Work list instead of recursion: a long run of small splits would otherwise nest deeply.
  const stack: number[] = [aLo, aHi, bLo, bHi];
  let first = true;
  while (stack.length > 0) {
    let bh = stack.pop()!;
    let bl = stack.pop()!;
    let ah = stack.pop()!;
    let al = stack.pop()!;
    while (al < ah && bl < bh && a[al] === b[bl]) {
      al++;
      bl++;
    }
    while (al < ah && bl < bh && a[ah - 1] === b[bh - 1]) {
      ah--;
      bh--;
    }
    if (al === ah) {
      for (let j = bl; j < bh; j++) changedB[j + 1] = 1;
      first = false;
      continue;
    }
    if (bl === bh) {
      for (let i = al; i < ah; i++) changedA[i + 1] = 1;
      first = false;
      continue;
    }
    const found = bisect(a, al, ah, b, bl, bh, first ? cap : Number.POSITIVE_INFINITY);
    first = false;
    if (found === CAPPED) return false;
    if (found === DISJOINT) {
      // No common element at all: everything changed.
      for (let i = al; i < ah; i++) changedA[i + 1] = 1;
      for (let j = bl; j < bh; j++) changedB[j + 1] = 1;
      continue;
    }
    // Small integers from an Int32Array: the work list stays one of small integers.
    const x = SEARCH[MEET_X]!;
    const y = SEARCH[MEET_Y]!;
    stack.push(al + x, ah, bl + y, bh);
    stack.push(al, al + x, bl, bl + y);
  }
  return true;
}

/** The rounds bisect takes for `cap` before it meets maxD, min(maxD, ⌈cap / 2⌉ + 1), as search.wat takes them (-1: no cap). */
function capRounds(cap: number): number {
  if (cap >= 2 ** 30) return -1;
  return (Math.ceil(cap / 2) + 1) | 0;
}

/** Sequences are shorter than this. */
const MAX_LENGTH = 2 ** 26;

/** What bisect found: a split point (SEARCH[MEET_X], SEARCH[MEET_Y]), no common element, more edits than its cap. */
const FOUND = 1;
const DISJOINT = 0;
const CAPPED = -1;

/**
 * Myers' middle snake of a[al, ah) against b[bl, bh) (both non-empty, no common prefix or suffix): a point (x, y)
 * on a shortest edit path, relative to (al, bl), put in SEARCH (FOUND); DISJOINT when the two share no element;
 * CAPPED when more than `cap` edits are needed. Its numbers stay small integers: a double among them (a split
 * encoded in one number, a bound from an infinite cap) deoptimised the compiled rounds on every new call.
 */
function bisect(a: Int32Array, al: number, ah: number, b: Int32Array, bl: number, bh: number, cap: number): number {
  const n = ah - al;
  const m = bh - bl;
  if (n >= MAX_LENGTH || m >= MAX_LENGTH) throw new Error(`sequence too long to align: ${n} and ${m} kernels`);
  const maxD = (n + m + 1) >> 1;
  // Round d of each direction reaches paths of d edits; the whole path has at most 2d edits when they meet.
  // min(maxD, ⌈cap / 2⌉ + 1), kept a small integer for any cap (Infinity: none), as the rounds take it.
  const rounds = cap / 2 + 1 >= maxD ? maxD : (Math.ceil(cap / 2) + 1) | 0;
  // Diagonals -d..d of rounds d < rounds, and one either side: sized by the cap, not by the sequences.
  const offset = rounds + 1;
  const length = 2 * rounds + 3;
  const v1 = new Int32Array(length).fill(-1);
  const v2 = new Int32Array(length).fill(-1);
  v1[offset + 1] = 0;
  v2[offset + 1] = 0;
  const delta = n - m;
  // With an odd delta the paths meet while extending forward, else while extending backward.
  const front = delta % 2 !== 0;
  // Each round of each direction is a function of its own, called once a round: small to compile, and what it
  // meets first late (a path past an end, the meeting) recompiles a small function, not the whole search.
  const st = SEARCH;
  st.fill(0);
  for (let d = 0; d < rounds; d++) {
    if (forwardRound(a, al, b, bl, n, m, v1, v2, d, offset, length, delta, front, st)) return FOUND;
    if (backwardRound(a, ah, b, bh, n, m, v1, v2, d, offset, length, delta, front, st)) return FOUND;
  }
  return rounds < maxD ? CAPPED : DISJOINT;
}

/** bisect's search state: the diagonals each direction skips at either end, and where the paths met. */
const K1_START = 0;
const K1_END = 1;
const K2_START = 2;
const K2_END = 3;
const MEET_X = 4;
const MEET_Y = 5;
/** bisect's search state (one search at a time: compare works through a list, not by recursion). */
const SEARCH = new Int32Array(6);

/** Round d of the forward paths (v1); true when one meets a reverse path (the point is in st). */
function forwardRound(
  a: Int32Array,
  al: number,
  b: Int32Array,
  bl: number,
  n: number,
  m: number,
  v1: Int32Array,
  v2: Int32Array,
  d: number,
  offset: number,
  length: number,
  delta: number,
  front: boolean,
  st: Int32Array,
): boolean {
  let k1start = st[K1_START]!;
  let k1end = st[K1_END]!;
  let met = false;
  for (let k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
    const k1o = offset + k1;
    let x1 = k1 === -d || (k1 !== d && v1[k1o - 1]! < v1[k1o + 1]!) ? v1[k1o + 1]! : v1[k1o - 1]! + 1;
    let y1 = x1 - k1;
    while (x1 < n && y1 < m && a[al + x1] === b[bl + y1]) {
      x1++;
      y1++;
    }
    v1[k1o] = x1;
    if (x1 > n) k1end += 2;
    else if (y1 > m) k1start += 2;
    else if (front) {
      const k2o = offset + delta - k1;
      if (k2o >= 0 && k2o < length && v2[k2o] !== -1) {
        const x2 = n - v2[k2o]!;
        if (x1 >= x2) {
          st[MEET_X] = x1;
          st[MEET_Y] = y1;
          met = true;
          break;
        }
      }
    }
  }
  st[K1_START] = k1start;
  st[K1_END] = k1end;
  return met;
}

/** Round d of the reverse paths (v2); true when one meets a forward path (the point is in st). */
function backwardRound(
  a: Int32Array,
  ah: number,
  b: Int32Array,
  bh: number,
  n: number,
  m: number,
  v1: Int32Array,
  v2: Int32Array,
  d: number,
  offset: number,
  length: number,
  delta: number,
  front: boolean,
  st: Int32Array,
): boolean {
  let k2start = st[K2_START]!;
  let k2end = st[K2_END]!;
  let met = false;
  for (let k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
    const k2o = offset + k2;
    let x2 = k2 === -d || (k2 !== d && v2[k2o - 1]! < v2[k2o + 1]!) ? v2[k2o + 1]! : v2[k2o - 1]! + 1;
    let y2 = x2 - k2;
    while (x2 < n && y2 < m && a[ah - x2 - 1] === b[bh - y2 - 1]) {
      x2++;
      y2++;
    }
    v2[k2o] = x2;
    if (x2 > n) k2end += 2;
    else if (y2 > m) k2start += 2;
    else if (!front) {
      const k1o = offset + delta - k2;
      if (k1o >= 0 && k1o < length && v1[k1o] !== -1) {
        const x1 = v1[k1o]!;
        const y1 = offset + x1 - k1o;
        if (x1 >= n - x2) {
          st[MEET_X] = x1;
          st[MEET_Y] = y1;
          met = true;
          break;
        }
      }
    }
  }
  st[K2_START] = k2start;
  st[K2_END] = k2end;
  return met;
}

// ---------------------------------------------------------------------------------------------------------
// xdl_change_compact, from git's xdiff/xdiffi.c (without the indent heuristic, which is about text lines).

interface Group {
  start: number;
  end: number;
}

/** Flag of element i (0-based; -1 and n read the sentinels). */
function chg(f: ChangeFlags, i: number): number {
  return f[i + 1]!;
}

function setChg(f: ChangeFlags, i: number, v: number): void {
  f[i + 1] = v;
}

function groupInit(f: ChangeFlags, g: Group): void {
  g.start = 0;
  g.end = 0;
  while (chg(f, g.end)) g.end++;
}

/** Move to the next group; false at the end. */
function groupNext(f: ChangeFlags, n: number, g: Group): boolean {
  if (g.end === n) return false;
  g.start = g.end + 1;
  for (g.end = g.start; chg(f, g.end); g.end++);
  return true;
}

/** Move to the previous group; false at the start. */
function groupPrevious(f: ChangeFlags, g: Group): boolean {
  if (g.start === 0) return false;
  g.end = g.start - 1;
  for (g.start = g.end; chg(f, g.start - 1); g.start--);
  return true;
}

/** Slide the group down by one (when the element after it equals its first); false when it cannot. */
function groupSlideDown(f: ChangeFlags, recs: Int32Array, g: Group): boolean {
  if (g.end < recs.length && recs[g.start] === recs[g.end]) {
    setChg(f, g.start++, 0);
    setChg(f, g.end++, 1);
    while (chg(f, g.end)) g.end++;
    return true;
  }
  return false;
}

/** Slide the group up by one (when the element before it equals its last); false when it cannot. */
function groupSlideUp(f: ChangeFlags, recs: Int32Array, g: Group): boolean {
  if (g.start > 0 && recs[g.start - 1] === recs[g.end - 1]) {
    setChg(f, --g.start, 1);
    setChg(f, --g.end, 0);
    while (chg(f, g.start - 1)) g.start--;
    return true;
  }
  return false;
}

function bug(what: string): never {
  throw new Error(`change compaction: ${what}`);
}

/**
 * Slide each run of changes of `recs` (flags `f`) up and down as far as it goes, merging it with the runs it meets,
 * and leave it where it lines up with a change of the other sequence (`fo`, `nOther` elements) when it can:
 * xdl_change_compact. Call it for each side in turn, as xdiff does.
 */
export function changeCompact(recs: Int32Array, f: ChangeFlags, fo: ChangeFlags, nOther: number): void {
  const n = recs.length;
  const g: Group = { start: 0, end: 0 };
  const go: Group = { start: 0, end: 0 };
  groupInit(f, g);
  groupInit(fo, go);
  for (;;) {
    if (g.end !== g.start) {
      let groupSize: number;
      let earliestEnd: number;
      let endMatchingOther: number;
      do {
        groupSize = g.end - g.start;
        endMatchingOther = -1;
        while (groupSlideUp(f, recs, g)) if (!groupPrevious(fo, go)) bug('group sync broken sliding up');
        earliestEnd = g.end;
        if (go.end > go.start) endMatchingOther = g.end;
        for (;;) {
          if (!groupSlideDown(f, recs, g)) break;
          if (!groupNext(fo, nOther, go)) bug('group sync broken sliding down');
          if (go.end > go.start) endMatchingOther = g.end;
        }
      } while (groupSize !== g.end - g.start);
      if (g.end !== earliestEnd && endMatchingOther !== -1) {
        while (go.end === go.start) {
          if (!groupSlideUp(f, recs, g)) bug('match disappeared');
          if (!groupPrevious(fo, go)) bug('group sync broken sliding to match');
        }
      }
    }
    if (!groupNext(f, n, g)) break;
    if (!groupNext(fo, nOther, go)) bug('group sync broken moving to next group');
  }
}

/** Compact both sides (A then B, as git does) and list the hunks, in order. */
export function compactHunks(a: Int32Array, b: Int32Array, al: Alignment): Hunk[] {
  changeCompact(a, al.changedA, al.changedB, b.length);
  changeCompact(b, al.changedB, al.changedA, a.length);
  return hunksOf(al.changedA, a.length, al.changedB, b.length);
}

/** The hunks of two change-flag arrays: unchanged elements pair up in order. */
export function hunksOf(fa: ChangeFlags, n: number, fb: ChangeFlags, m: number): Hunk[] {
  const out: Hunk[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if ((i < n && chg(fa, i)) || (j < m && chg(fb, j))) {
      const aStart = i;
      const bStart = j;
      while (i < n && chg(fa, i)) i++;
      while (j < m && chg(fb, j)) j++;
      out.push({ aStart, aLen: i - aStart, bStart, bLen: j - bStart });
    } else {
      i++;
      j++;
    }
  }
  return out;
}
