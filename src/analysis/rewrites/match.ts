// Finding a chain of tokens in a step: exact occurrences (at the places of its first token, or Knuth–Morris–Pratt)
// and near occurrences within k edits (Levenshtein: substitutions, insertions, deletions), the latter with Myers'
// bit-parallel approximate matching (G. Myers, "A fast bit-vector algorithm for approximate string matching based
// on dynamic programming", JACM 1999, in Hyyrö's formulation) for chains of up to 32 tokens, and a column of the
// plain dynamic programme, cut off past k (Ukkonen), for longer ones. Both are tested against the textbook dynamic
// programme. nearOccurrences has a WebAssembly twin (search.wat, through searchEngine.ts), used where it runs.

import { nearInWasm } from './searchEngine.js';

/**
 * Start positions of the non-overlapping exact occurrences of `chain` in `text`, left to right: each the first
 * that starts at or after the end of the one before. The places of the chain's first token are found with the
 * typed array's own search (indexOf: fast from the first call, where a loop of this module runs interpreted until
 * V8 has compiled it, and a diff scans every shape for each of its rewrites' chains once) and the rest compared
 * there; past EXACT_WORK comparisons per text token (a repetitive text and a chain that matches far into it before
 * it fails, `A A A … A B` in `A A A …`), the rest of the text is scanned by Knuth–Morris–Pratt, linear whatever the
 * tokens. Either finds the same occurrences (`work`: the comparisons per token; tests switch at once with 0).
 */
export function exactOccurrences(text: Int32Array, chain: Int32Array, work = EXACT_WORK): number[] {
  const m = chain.length;
  const out: number[] = [];
  if (m === 0 || m > text.length) return out;
  const first = chain[0]!;
  const last = text.length - m;
  let budget = work * text.length;
  for (let i = text.indexOf(first); i >= 0 && i <= last; ) {
    let k = 1;
    while (k < m && text[i + k] === chain[k]) k++;
    budget -= k;
    if (k === m) {
      out.push(i);
      i = text.indexOf(first, i + m);
    } else if (budget < 0) {
      // No occurrence starts in [the end of the last, i): the scan goes on from i.
      kmpFrom(text, chain, i, out);
      break;
    } else i = text.indexOf(first, i + 1);
  }
  return out;
}

/** Comparisons per text token past which exactOccurrences scans on with Knuth–Morris–Pratt. */
export const EXACT_WORK = 4;

/** exactOccurrences by Knuth–Morris–Pratt over text[from, …), appended to `out`. */
export function kmpFrom(text: Int32Array, chain: Int32Array, from: number, out: number[]): void {
  const m = chain.length;
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && chain[i] !== chain[k]) k = fail[k - 1]!;
    if (chain[i] === chain[k]) k++;
    fail[i] = k;
  }
  for (let i = from, k = 0; i < text.length; i++) {
    while (k > 0 && text[i] !== chain[k]) k = fail[k - 1]!;
    if (text[i] === chain[k]) k++;
    if (k === m) {
      out.push(i - m + 1);
      // Non-overlapping: start again after this occurrence.
      k = 0;
    }
  }
}

/**
 * For each end position j of `text`, the least edit distance between `chain` and a substring of text ending at j
 * (an Int32Array of text.length), for distances up to k (larger ones are reported as k + 1).
 */
export function endDistances(text: Int32Array, chain: Int32Array, k: number): Int32Array {
  return chain.length <= 32 ? bitParallel(text, chain, k) : cutOffColumns(text, chain, k);
}

/** Chains whose token ids span at most this many values get their masks in a table (else in a Map). */
const MASK_TABLE_SPAN = 1 << 16;

/**
 * For each token of `text`, the bit mask of the chain's positions that hold it (bit i: chain[i]; 0 when none
 * does). Token ids are small integers of one table, so the masks are kept in a table over the chain's range of
 * ids; ids of no table (a wide range) are looked up in a Map instead.
 */
function textMasks(text: Int32Array, chain: Int32Array): Uint32Array {
  let lo = chain[0]!;
  let hi = lo;
  for (let i = 1; i < chain.length; i++) {
    const t = chain[i]!;
    if (t < lo) lo = t;
    else if (t > hi) hi = t;
  }
  const out = new Uint32Array(text.length);
  if (hi - lo < MASK_TABLE_SPAN) {
    const peq = new Uint32Array(hi - lo + 1);
    for (let i = 0; i < chain.length; i++) peq[chain[i]! - lo]! |= 1 << i;
    for (let j = 0; j < text.length; j++) {
      const t = text[j]!;
      if (t >= lo && t <= hi) out[j] = peq[t - lo]!;
    }
  } else {
    const peq = new Map<number, number>();
    for (let i = 0; i < chain.length; i++) peq.set(chain[i]!, ((peq.get(chain[i]!) ?? 0) | (1 << i)) >>> 0);
    for (let j = 0; j < text.length; j++) out[j] = peq.get(text[j]!) ?? 0;
  }
  return out;
}

function bitParallel(text: Int32Array, chain: Int32Array, k: number): Int32Array {
  const m = chain.length;
  const out = new Int32Array(text.length);
  if (m === 0) return out;
  const eqs = textMasks(text, chain);
  const high = (1 << (m - 1)) >>> 0;
  let pv = 0xffffffff;
  let mv = 0;
  let score = m;
  for (let j = 0; j < text.length; j++) {
    const eq = eqs[j]!;
    const xv = (eq | mv) >>> 0;
    const xh = ((((((eq & pv) >>> 0) + pv) >>> 0) ^ pv) | eq) >>> 0;
    let ph = (mv | ~(xh | pv)) >>> 0;
    let mh = (pv & xh) >>> 0;
    if (ph & high) score++;
    else if (mh & high) score--;
    // Searching (not comparing whole sequences): the top row is all zeros, so nothing is shifted in.
    ph = (ph << 1) >>> 0;
    mh = (mh << 1) >>> 0;
    pv = (mh | ~(xv | ph)) >>> 0;
    mv = (ph & xv) >>> 0;
    out[j] = score <= k ? score : k + 1;
  }
  return out;
}

function cutOffColumns(text: Int32Array, chain: Int32Array, k: number): Int32Array {
  const m = chain.length;
  const out = new Int32Array(text.length);
  let col = new Int32Array(m + 1);
  let next = new Int32Array(m + 1);
  for (let i = 0; i <= m; i++) col[i] = i;
  // Rows past `last` are known to exceed k (Ukkonen's cut-off): they are not computed.
  let last = Math.min(m, k + 1);
  for (let j = 0; j < text.length; j++) {
    const t = text[j]!;
    next[0] = 0;
    const upto = Math.min(m, last + 1);
    for (let i = 1; i <= upto; i++) {
      const sub = col[i - 1]! + (chain[i - 1] === t ? 0 : 1);
      const del = (i <= last ? col[i]! : k + 1) + 1;
      const ins = next[i - 1]! + 1;
      next[i] = Math.min(sub, del, ins);
    }
    for (let i = upto + 1; i <= m; i++) next[i] = k + 1;
    last = upto;
    while (last > 0 && next[last]! > k) last--;
    out[j] = next[m]! <= k ? next[m]! : k + 1;
    [col, next] = [next, col];
  }
  return out;
}

/** The edit distance between two whole sequences (the textbook dynamic programme). */
export function editDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let prev = new Int32Array(b.length + 1);
  let cur = new Int32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1), prev[j]! + 1, cur[j - 1]! + 1);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/** A stretch of a step that is the chain within some edits. */
export interface Site {
  start: number;
  /** Exclusive. */
  end: number;
  edits: number;
}

/**
 * The non-overlapping stretches of `text` within k edits of `chain`, left to right. Each ends where a run of
 * matching end positions reaches its least distance (the first such end), and starts where that distance is
 * reached with a length closest to the chain's.
 */
export function nearOccurrences(text: Int32Array, chain: Int32Array, k: number): Site[] {
  // The same search in WebAssembly where it runs (searchEngine.ts), else here.
  const fast = nearInWasm(text, chain, k);
  if (fast !== null) return fast;
  const m = chain.length;
  const out: Site[] = [];
  if (m === 0) return out;
  const dist = endDistances(text, chain, k);
  let floor = 0;
  // The scan for ends within k is a small function of its own (nextWithin): this loop runs once per site.
  let j = nextWithin(dist, 0, k);
  while (j < text.length) {
    // The run of ends within k (no further than k ahead): the first end with the least distance.
    let best = j;
    for (let e = j + 1; e < text.length && e <= j + k && dist[e]! <= k; e++) if (dist[e]! < dist[best]!) best = e;
    const start = bestStart(text, chain, floor, best, dist[best]!);
    if (start !== null) {
      out.push({ start, end: best + 1, edits: editDistance(chain, text.subarray(start, best + 1)) });
      floor = best + 1;
    }
    j = nextWithin(dist, best + 1, k);
  }
  return out;
}

/** The first end from j on whose distance is within k (dist.length when none is). */
function nextWithin(dist: Int32Array, j: number, k: number): number {
  while (j < dist.length && dist[j]! > k) j++;
  return j;
}

/**
 * The start s ≥ floor of the shortest substring text[s, end] within `edits` of the chain (so a site takes in no
 * neighbour it could do without); null when the floor cuts them all off.
 */
function bestStart(text: Int32Array, chain: Int32Array, floor: number, end: number, edits: number): number | null {
  const m = chain.length;
  const lo = Math.max(floor, end + 1 - m - edits);
  // Reverse dynamic programme: rev[i] is the distance between the last i tokens of the chain and text[s, end],
  // for s from end down to lo; the first s within `edits` is the shortest.
  const rev = new Int32Array(m + 1);
  for (let i = 0; i <= m; i++) rev[i] = i;
  for (let s = end; s >= lo; s--) {
    const t = text[s]!;
    let diag = rev[0]!;
    rev[0] = end - s + 1;
    for (let i = 1; i <= m; i++) {
      const up = rev[i]!;
      rev[i] = Math.min(diag + (chain[m - i] === t ? 0 : 1), up + 1, rev[i - 1]! + 1);
      diag = up;
    }
    if (rev[m]! <= edits) return s;
  }
  return null;
}
