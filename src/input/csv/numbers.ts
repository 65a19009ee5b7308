// Number parsing straight from bytes, for the hot loop. Cells may carry a trailing TAB (msprof writes one after
// high-precision times so spreadsheets keep the digits) or spaces; both are trimmed.

import { TICKS_PER_US } from '../../model/model.js';

const SP = 32;
const TAB = 9;
const CR = 13;
const DOT = 46;
const MINUS = 45;
const PLUS = 43;
const ZERO = 48;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function isSpace(c: number | undefined): boolean {
  return c === SP || c === TAB || c === CR;
}

/**
 * Parse a µs value into integer ticks of 0.1 ns (see TICKS_PER_US). Returns NaN when the cell is not a number
 * (`N/A`, empty, text). More than 4 decimals are rounded half up.
 */
export function parseTicks(b: Uint8Array, s: number, e: number): number {
  while (s < e && isSpace(b[s])) s++;
  while (e > s && isSpace(b[e - 1])) e--;
  if (s === e) return Number.NaN;
  const start = s;
  let neg = false;
  if (b[s] === MINUS) {
    neg = true;
    s++;
  } else if (b[s] === PLUS) s++;
  let int = 0;
  let digits = 0;
  while (s < e) {
    const d = b[s]! - ZERO;
    if (d < 0 || d > 9) break;
    int = int * 10 + d;
    s++;
    digits++;
  }
  let frac = 0;
  let fd = 0;
  let roundUp = false;
  if (s < e && b[s] === DOT) {
    s++;
    while (s < e) {
      const d = b[s]! - ZERO;
      if (d < 0 || d > 9) break;
      if (fd < 4) {
        frac = frac * 10 + d;
        fd++;
      } else if (fd === 4) {
        roundUp = d >= 5;
        fd = 5;
      }
      s++;
      digits++;
    }
  }
  if (s !== e || digits === 0) return slowTicks(b, start, e);
  for (let k = fd; k < 4; k++) frac *= 10;
  let ticks = int * TICKS_PER_US + frac + (roundUp ? 1 : 0);
  if (neg) ticks = -ticks;
  return ticks;
}

/** Exponent notation and other forms Number() accepts. */
function slowTicks(b: Uint8Array, s: number, e: number): number {
  const text = Buffer.from(b.buffer, b.byteOffset + s, e - s).toString('latin1');
  if (!NUMBER.test(text)) return Number.NaN;
  return Math.round(Number(text) * TICKS_PER_US);
}

/** Parse a float (for start times: 16 integer digits, precision ~0.25 µs is fine for display). */
export function parseFloatCell(b: Uint8Array, s: number, e: number): number {
  while (s < e && isSpace(b[s])) s++;
  while (e > s && isSpace(b[e - 1])) e--;
  if (s === e) return Number.NaN;
  const start = s;
  let int = 0;
  let digits = 0;
  while (s < e) {
    const d = b[s]! - ZERO;
    if (d < 0 || d > 9) break;
    int = int * 10 + d;
    s++;
    digits++;
  }
  let frac = 0;
  let scale = 1;
  if (s < e && b[s] === DOT) {
    s++;
    while (s < e) {
      const d = b[s]! - ZERO;
      if (d < 0 || d > 9) break;
      if (scale < 1e6) {
        frac = frac * 10 + d;
        scale *= 10;
      }
      s++;
      digits++;
    }
  }
  if (s === e && digits > 0) return int + frac / scale;
  const text = Buffer.from(b.buffer, b.byteOffset + start, e - start).toString('latin1');
  if (!NUMBER.test(text)) return Number.NaN;
  return Number(text);
}

/**
 * Parse an integer cell (Step Id, Count). Returns null for an empty cell, NaN when it is not an integer.
 */
export function parseIntCell(b: Uint8Array, s: number, e: number): number | null {
  while (s < e && isSpace(b[s])) s++;
  while (e > s && isSpace(b[e - 1])) e--;
  if (s === e) return null;
  let neg = false;
  if (b[s] === MINUS) {
    neg = true;
    s++;
    if (s === e) return Number.NaN;
  }
  let v = 0;
  while (s < e) {
    const d = b[s]! - ZERO;
    if (d < 0 || d > 9) return Number.NaN;
    v = v * 10 + d;
    s++;
  }
  return neg ? -v : v;
}

/** Ticks → µs. */
export function ticksToUs(ticks: number): number {
  return ticks / TICKS_PER_US;
}

/** µs (as written in a JSON snapshot) → ticks. */
export function usToTicks(us: number): number {
  return Math.round(us * TICKS_PER_US);
}

/**
 * A text cell without the ASCII white space around it (space, TAB, CR, LF, VT, FF): a writer's padding. Not
 * String.trim, which takes Unicode spaces too: a name that ends in U+00A0, U+2028 or U+FEFF is another name than
 * the one without it, and is kept as written.
 */
export function trimCell(text: string): string {
  let s = 0;
  let e = text.length;
  while (s < e && isAsciiSpace(text.charCodeAt(s))) s++;
  while (e > s && isAsciiSpace(text.charCodeAt(e - 1))) e--;
  return s === 0 && e === text.length ? text : text.slice(s, e);
}

function isAsciiSpace(c: number): boolean {
  return c === SP || (c >= TAB && c <= CR);
}
