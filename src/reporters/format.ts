// Every number kprof prints is formatted here.

import { TICKS_PER_US } from '../model.js';

const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const FIX2 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const FIX1 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

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
