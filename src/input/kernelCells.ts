// The per-kernel cells a sequence needs, parsed exactly from bytes (or text) for any reader: start times as
// integer ticks after a whole-µs origin (see KernelSink.origin), and stream ids. By byte values, not regular
// expressions, as they run once per kernel.

import { TICKS_PER_US } from '../model/model.js';
import { NO_STREAM } from './sink.js';

/**
 * startTicksAfter on the bytes `b[s, e)` of a cell: `1764246877073569.640` (spaces, TAB, CR around allowed) as
 * exact integer ticks after `originUs` (whole µs). Ticks are 1e-4 µs: four decimals, rounded half up on the
 * fifth (as durations are). NaN when the cell is not such a time (empty, `N/A`, a sign, an exponent) or is
 * more than 2^53 ticks (ten days) from the origin.
 */
export function startTicksAfterBytes(b: Uint8Array, s: number, e: number, originUs: number): number {
  let i = s;
  while (i < e && isSpace(b[i]!)) i++;
  let whole = 0;
  const first = i;
  for (; i < e; i++) {
    const c = b[i]! - 48;
    if (c < 0 || c > 9) break;
    whole = whole * 10 + c;
  }
  if (i === first || !Number.isSafeInteger(whole)) return Number.NaN;
  let ticks = 0;
  if (i < e && b[i] === 46) {
    i++;
    let place = 0;
    for (; i < e; i++, place++) {
      const c = b[i]! - 48;
      if (c < 0 || c > 9) break;
      if (place < 4) ticks = ticks * 10 + c;
      else if (place === 4 && c >= 5) ticks++;
    }
    // Fewer than four decimals: scale up (ticks was rounded only when there were five or more).
    for (; place < 4; place++) ticks *= 10;
  }
  while (i < e && isSpace(b[i]!)) i++;
  if (i !== e) return Number.NaN;
  return startTicksOf(whole, ticks, originUs);
}

/**
 * A start time read in two parts, its whole µs (NaN: the cell was no time) and the ticks of its decimals, as
 * exact ticks after `originUs`; NaN when it is none or more than 2^53 ticks from the origin. The SIMD engine reads
 * a cell by the rules of startTicksAfterBytes and makes its start so, in the same operations
 * (formats/ascend/kernelCells.wat's $start).
 */
export function startTicksOf(us: number, ticks: number, originUs: number): number {
  const after = (us - originUs) * TICKS_PER_US + ticks;
  // Further from the origin than a double holds to the tick: not a time of this file.
  return Number.isSafeInteger(after) ? after : Number.NaN;
}

/**
 * The whole µs of a start cell `b[s, e)` that startTicksAfterBytes reads, to use as the origin of a file's
 * starts; NaN when it reads none.
 */
export function startOriginUsBytes(b: Uint8Array, s: number, e: number): number {
  let i = s;
  while (i < e && isSpace(b[i]!)) i++;
  let whole = 0;
  for (; i < e; i++) {
    const c = b[i]! - 48;
    if (c < 0 || c > 9) break;
    whole = whole * 10 + c;
  }
  return Number.isNaN(startTicksAfterBytes(b, s, e, whole)) ? Number.NaN : whole;
}

/** A buffer reused by startTicksAfter (no allocation per row). */
let cellBytes = new Uint8Array(64);

/** startTicksAfterBytes of a cell given as text (a character past Latin-1 makes it unreadable). */
export function startTicksAfter(cell: string, originUs: number): number {
  const n = cell.length;
  if (n > cellBytes.length) cellBytes = new Uint8Array(n * 2);
  for (let i = 0; i < n; i++) {
    const c = cell.charCodeAt(i);
    // 0 is neither a digit, a dot nor a space.
    cellBytes[i] = c < 256 ? c : 0;
  }
  return startTicksAfterBytes(cellBytes, 0, n, originUs);
}

/** The whole µs of a start time cell, to use as a rank's origin for startTicksAfter (NaN when unreadable). */
export function startOriginUs(cell: string): number {
  const m = /^\s*(\d+)/.exec(cell);
  return m === null ? Number.NaN : Number(m[1]);
}

/**
 * A Stream ID cell `b[s, e)`: its value when it is a plain integer of 1 to 9 digits (spaces, TAB, CR around
 * allowed), else NO_STREAM (empty, `N/A` as communication kernels have, a sign, longer). The SIMD engine reads
 * the cell by the same rule (simd.wat's $step), so both engines agree on every cell.
 */
export function parseStreamCell(b: Uint8Array, s: number, e: number): number {
  while (s < e && isTrim(b[s]!)) s++;
  while (e > s && isTrim(b[e - 1]!)) e--;
  if (s === e || e - s > 9) return NO_STREAM;
  let v = 0;
  for (; s < e; s++) {
    const d = b[s]! - 48;
    if (d < 0 || d > 9) return NO_STREAM;
    v = v * 10 + d;
  }
  return v;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10;
}

/** What the number parsers trim (numbers.ts): space, TAB, CR. */
function isTrim(c: number): boolean {
  return c === 32 || c === 9 || c === 13;
}
