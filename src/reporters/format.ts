// Every number kprof prints is formatted here.

import { TICKS_PER_US } from '../model.js';

// These reproduce, character for character, what
// `new Intl.NumberFormat('en-US', { minimumFractionDigits: d, maximumFractionDigits: d })`
// prints (test/format.test.ts compares the two). Intl itself is not used because
// constructing the first NumberFormat starts ICU, about 20 ms of every run.
//
// What has to be matched: Intl rounds the SHORTEST decimal that round-trips to the
// double (what String(n) shows), half away from zero, not the double's exact binary
// value. So 1.005 prints "1.01" although toFixed(2) gives "1.00" (1.005 is stored as
// 1.00499999…). A negative number, -0 included, keeps its minus sign even when it
// rounds to zero ("-0.00"). Numbers of any size are written out in full, the digits
// past the shortest representation as zeros (1e23 → "100,000,…,000"). NaN prints
// "NaN" and the infinities "∞" and "-∞".
export function formatFixed(n: number, digits: 0 | 1 | 2): string {
  if (n !== n) return 'NaN';
  const sign = n < 0 || Object.is(n, -0) ? '-' : '';
  const a = Math.abs(n);
  if (a === Infinity) return `${sign}∞`;

  // toExponential() with no argument gives the shortest round-trip digits: "d.ddde±x".
  const e = a.toExponential();
  const ePos = e.indexOf('e');
  const mant = e.slice(0, ePos);
  const sig = mant.length > 1 ? mant[0]! + mant.slice(2) : mant;
  // Number of significant digits that lie at or above the last kept decimal place.
  const keep = Number(e.slice(ePos + 1)) + 1 + digits;

  let scaled: string; // a · 10^digits, rounded, as a decimal integer
  if (keep >= sig.length) {
    scaled = sig + '0'.repeat(keep - sig.length);
  } else if (keep <= 0) {
    scaled = keep === 0 && sig.charCodeAt(0) >= 53 /* '5' */ ? '1' : '0';
  } else {
    scaled = sig.slice(0, keep);
    if (sig.charCodeAt(keep) >= 53 /* '5' */) scaled = incrementDecimal(scaled);
  }

  if (scaled.length <= digits) scaled = '0'.repeat(digits + 1 - scaled.length) + scaled;
  const intLen = scaled.length - digits;
  const int = groupThousands(scaled.slice(0, intLen));
  return digits === 0 ? sign + int : `${sign}${int}.${scaled.slice(intLen)}`;
}

/** "1299" → "1300", "999" → "1000". */
function incrementDecimal(s: string): string {
  let i = s.length - 1;
  while (i >= 0 && s[i] === '9') i--;
  if (i < 0) return '1' + '0'.repeat(s.length);
  return s.slice(0, i) + String.fromCharCode(s.charCodeAt(i) + 1) + '0'.repeat(s.length - 1 - i);
}

/** "1234567" → "1,234,567". */
function groupThousands(s: string): string {
  if (s.length <= 3) return s;
  let out = s.slice(0, s.length % 3 || 3);
  for (let i = out.length; i < s.length; i += 3) out += ',' + s.slice(i, i + 3);
  return out;
}

const INT = { format: (n: number): string => formatFixed(n, 0) };
const FIX2 = { format: (n: number): string => formatFixed(n, 2) };
const FIX1 = { format: (n: number): string => formatFixed(n, 1) };

/** 711070 → "711,070"; non-integers (per-step means) keep two decimals. */
export function fmtCount(n: number): string {
  return Number.isInteger(n) ? INT.format(n) : FIX2.format(n);
}

/** Signed count: "+13,369", "-27,824", "0". */
export function fmtSignedCount(n: number): string {
  return n > 0 ? `+${fmtCount(n)}` : n < 0 ? `-${fmtCount(-n)}` : '0';
}

/** A duration in µs, shown in µs below 1 ms and in ms above: "812.30 µs", "1,629.40 ms". */
export function fmtUs(us: number): string {
  const a = Math.abs(us);
  if (a < 1000) return `${FIX2.format(us)} µs`;
  return `${FIX2.format(us / 1000)} ms`;
}

/** A signed duration: "+1.20 ms", "-794.00 ms". */
export function fmtSignedUs(us: number): string {
  if (us === 0) return '0 µs';
  return us > 0 ? `+${fmtUs(us)}` : `-${fmtUs(-us)}`;
}

/** A compact duration for PR tables: "1,629 ms", "12.4 ms", "830 µs". */
export function fmtUsShort(us: number): string {
  const a = Math.abs(us);
  if (a >= 10_000) return `${INT.format(us / 1000)} ms`;
  if (a >= 1000) return `${FIX1.format(us / 1000)} ms`;
  if (a >= 10) return `${INT.format(us)} µs`;
  return `${FIX2.format(us)} µs`;
}

/** A percentage: "12.3%". */
export function fmtPct(p: number): string {
  return `${FIX1.format(p)}%`;
}

/** A signed percentage: "+4.0%", "-96.0%". */
export function fmtSignedPct(p: number): string {
  const s = FIX1.format(Math.abs(p));
  if (s === '0.0') return '0.0%';
  return p > 0 ? `+${s}%` : `-${s}%`;
}

export function ticksToUs(ticks: number): number {
  return ticks / TICKS_PER_US;
}

/** µs with at most 4 decimals, for JSON and CSV (exact: ticks are 1e-4 µs). */
export function exactUs(ticks: number): number {
  return Math.round(ticks) / TICKS_PER_US;
}
