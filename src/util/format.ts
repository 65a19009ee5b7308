// Every number kprof prints is formatted here.

import { TICKS_PER_US } from '../model/model.js';

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
export function formatFixed(n: number, digits: number): string {
  if (Number.isNaN(n)) return 'NaN';
  const sign = n < 0 || Object.is(n, -0) ? '-' : '';
  const a = Math.abs(n);
  if (a === Infinity) return `${sign}∞`;
  // Between 1e-6 and 1e21, String() writes those shortest digits out in full ("1234.5678"): rounded there.
  if (a === 0 || (a >= 1e-6 && a < 1e21)) return sign + fixedOfPlain(String(a), digits);

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

/** A number as String() writes it without an exponent ("0.125", "1234"), rounded as formatFixed rounds. */
function fixedOfPlain(s: string, digits: number): string {
  const dot = s.indexOf('.');
  const int = dot < 0 ? s : s.slice(0, dot);
  const frac = dot < 0 ? '' : s.slice(dot + 1);
  if (frac.length <= digits) {
    const g = groupThousands(int);
    return digits === 0 ? g : `${g}.${frac}${'0'.repeat(digits - frac.length)}`;
  }
  // Half away from zero on the decimal digits: the first digit dropped decides.
  let scaled = int + frac.slice(0, digits);
  if (frac.charCodeAt(digits) >= 53 /* '5' */) scaled = incrementDecimal(scaled);
  const intLen = scaled.length - digits;
  const g = groupThousands(scaled.slice(0, intLen));
  return digits === 0 ? g : `${g}.${scaled.slice(intLen)}`;
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

/** A figure that rounds to zero prints as zero, without a sign: "-0.00" → "0.00", "-0" → "0". */
function unsignedZero(s: string): string {
  return /^-0(\.0+)?$/.test(s) ? s.slice(1) : s;
}

/** Zero, as every duration prints it (also one that rounds to zero, and -0). */
const ZERO_US = '0 µs';

/** 711070 → "711,070"; non-integers (per-step means) keep two decimals. */
export function fmtCount(n: number): string {
  return unsignedZero(Number.isInteger(n) ? INT.format(n) : FIX2.format(n));
}

/** Signed count: "+13,369", "-27,824", "0" (also for a mean that rounds to zero). */
export function fmtSignedCount(n: number): string {
  const s = fmtCount(Math.abs(n));
  if (/^0(\.0+)?$/.test(s)) return '0';
  return n > 0 ? `+${s}` : `-${s}`;
}

/**
 * A duration in µs, in µs below 1 ms, in ms below 1 s and in s above, two decimals: "812.30 µs", "629.40 ms",
 * "1.63 s". The unit is that of the rounded value (999.999 µs is "1.00 ms"); zero is "0 µs", and a duration that
 * is not zero but rounds to 0.00 µs is in ns ("4.00 ns", "0.10 ns": kprof reads times to 0.1 ns), never "0 µs".
 */
export function fmtUs(us: number): string {
  const a = Math.abs(us);
  if (FIX2.format(a) === '0.00') return tinyUs(us);
  if (a < 999.995) return `${FIX2.format(us)} µs`;
  if (a / 1000 < 999.995) return `${FIX2.format(us / 1000)} ms`;
  return `${FIX2.format(us / 1_000_000)} s`;
}

/** A duration that rounds to 0.00 µs: "0 µs" when it is zero (or rounds to 0.00 ns), else in ns. */
function tinyUs(us: number): string {
  const ns = FIX2.format(us * 1000);
  return /^-?0\.00$/.test(ns) ? ZERO_US : `${ns} ns`;
}

/**
 * fmtUs with `digits` decimals (2 or more) in the unit fmtUs picks: "1.0013 ms" (fmtUs itself at 2, and for a
 * duration it shows as 0 µs or in ns). For a figure beside a bound that two decimals would show as the bound.
 */
export function fmtUsDigits(us: number, digits: number): string {
  const two = fmtUs(us);
  if (digits <= 2 || two === ZERO_US || two.endsWith(' ns')) return two;
  const [scale, unit] = two.endsWith(' µs') ? [1, 'µs'] : two.endsWith(' ms') ? [1000, 'ms'] : [1_000_000, 's'];
  return `${unsignedZero(formatFixed(us / scale, digits))} ${unit}`;
}

/** The µs a text of fmtUsDigits shows ("1,001.30 µs" → 1001.3), or NaN for one in ns or of no unit. */
export function usOfText(text: string): number {
  const m = /^(-?[\d,]+(?:\.\d+)?) (\u00b5s|ms|s)$/.exec(text);
  if (!m) return text === ZERO_US ? 0 : Number.NaN;
  const n = Number(m[1]!.replace(/,/g, ''));
  return m[2] === 'µs' ? n : m[2] === 'ms' ? n * 1000 : n * 1_000_000;
}

/**
 * `x` to 12 significant digits: a percentage computed by a division carries its floating-point error (a mean of 2 →
 * 2.2 per step is +10.000000000000009%, 1 → 0.8 is -19.999999999999996%), which is no change, and must not take it
 * past a bound it meets exactly. Twelve digits are far finer than any bound or tolerance means.
 */
export function settled(x: number): number {
  return x === 0 ? 0 : Number(x.toPrecision(12));
}

/** a and b equal to 12 significant digits: a decimal read back, against the number it was written from. */
function near(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
}

/**
 * The fewest decimals, from `least` up to `most`, at which `text(d)` reads back (`read`) as `v`: a bound shown as
 * written (max: 1001us is "1.001 ms", not "1.00 ms"; rose-by-at-most: 0.01% is "0.01%", not "0.0%").
 */
export function exactDigits(v: number, least: number, most: number, text: (d: number) => string, read: (s: string) => number): number {
  for (let d = least; d < most; d++) if (near(read(text(d)), v)) return d;
  return most;
}

/**
 * The fewest decimals, from `least` up to `most`, at which `text(d)` shows `v` on its side of the bound `op value`:
 * past it when `v` is past it (1,001.3 µs against at most 1,001 µs is "1.0013 ms", not "1.00 ms", which reads as
 * the bound), and not past it when it is not (1,005.5 µs against at most 1,006 µs is "1.0055 ms", not "1.01 ms").
 */
export function sideDigits(
  v: number,
  op: '<=' | '>=',
  value: number,
  least: number,
  most: number,
  text: (d: number) => string,
  read: (s: string) => number,
): number {
  const past = (x: number): boolean => !near(x, value) && (op === '<=' ? x > value : x < value);
  const want = op === '<=' ? v > value : v < value;
  for (let d = least; d < most; d++) {
    const x = read(text(d));
    if (Number.isNaN(x) || past(x) === want) return d;
  }
  return most;
}

/** A signed duration: "+1.20 ms", "-794.00 ms", "0 µs". */
export function fmtSignedUs(us: number): string {
  const s = fmtUs(Math.abs(us));
  if (s === ZERO_US) return ZERO_US;
  return us > 0 ? `+${s}` : `-${s}`;
}

/**
 * A compact duration for PR tables, three significant digits in µs, ms or s: "8.30 µs", "830 µs", "12.4 ms",
 * "1.63 s", "1,629 s". Three digits tell apart any two times of 1 µs or more that are over 1% apart; zero is "0 µs".
 */
export function fmtUsShort(us: number): string {
  const a = Math.abs(us);
  if (FIX2.format(a) === '0.00') return tinyUs(us);
  const [scale, unit] = a < 999.5 ? [1, 'µs'] : a / 1000 < 999.5 ? [1000, 'ms'] : [1_000_000, 's'];
  const v = us / scale;
  const b = a / scale;
  const text = b < 9.995 ? FIX2.format(v) : b < 99.95 ? FIX1.format(v) : INT.format(v);
  return `${text} ${unit}`;
}

/** A count and its noun: "1 rule", "3,072 kernels", "2 new types". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${fmtCount(n)} ${n === 1 ? one : many}`;
}

/** A figure for JSON and CSV: rounded to 4 decimals (0.1 ns for times), never -0. */
export function round4(x: number): number {
  const r = Math.round(x * 10_000) / 10_000;
  return r === 0 ? 0 : r;
}

export function round4OrNull(x: number | null): number | null {
  return x === null ? null : round4(x);
}

/** The first `max` items, then `…`: "a, b, c, …". */
export function listed(items: readonly string[], max: number): string {
  return items.length > max ? `${items.slice(0, max).join(', ')}, …` : items.join(', ');
}

/** A p-value in two significant digits (`0.31`, `0.0042`), `under 0.0001` below that. */
export function fmtP(p: number): string {
  if (p < 1e-4) return 'under 0.0001';
  return String(Number(p.toPrecision(2)));
}

/** A percentage: "12.3%". */
export function fmtPct(p: number): string {
  return `${unsignedZero(FIX1.format(p))}%`;
}

/** A percentage with `digits` decimals (1 or more), signed or not: "0.01%", "+10.02%". */
export function fmtPctDigits(p: number, digits: number, signed: boolean): string {
  if (!signed) return `${unsignedZero(formatFixed(p, digits))}%`;
  const s = formatFixed(Math.abs(p), digits);
  if (/^0\.0*$/.test(s)) return `${s}%`;
  return p > 0 ? `+${s}%` : `-${s}%`;
}

/** A signed percentage: "+4.0%", "-96.0%". */
export function fmtSignedPct(p: number): string {
  const s = FIX1.format(Math.abs(p));
  if (s === '0.0') return '0.0%';
  return p > 0 ? `+${s}%` : `-${s}%`;
}

/** A range of Step Ids: "5-20", and one step as "13", not "13-13". */
export function fmtSteps(from: number, to: number): string {
  return from === to ? `${from}` : `${from}-${to}`;
}

export function ticksToUs(ticks: number): number {
  return ticks / TICKS_PER_US;
}

/** µs with at most 4 decimals, for JSON and CSV (exact: ticks are 1e-4 µs). */
export function exactUs(ticks: number): number {
  return Math.round(ticks) / TICKS_PER_US;
}

/**
 * Each rank's own number of steps in words: `4 steps` (one rank), `4 steps on each rank`, or by rank when they
 * differ (`4 steps on rank 0, 3 steps on rank 1`; a rank without any: `no Step Id on rank 2`; a rank whose files
 * held no kernel row, when `rows` is given: `no kernels on rank 3`; one whose every kernel was filtered out, when
 * `kept` and `filtered` are given: `no kernel kept on rank 1`). Never the
 * number of distinct Step Ids across ranks, which offset or lost steps inflate.
 */
export function stepCountsText(
  ranks: { rank: string; steps: number; rows?: number; kept?: number; filtered?: number }[],
  code: (s: string) => string = (s) => s,
): string {
  // A rank whose files held no kernel row at all (a header only) has no kernels, not merely no Step Id; one whose
  // every kernel the filters left out (--steps naming none of its steps, say) has no kernel kept.
  const label = (r: { steps: number; rows?: number; kept?: number; filtered?: number }): string =>
    r.rows === 0
      ? 'no kernels'
      : r.kept === 0 && (r.filtered ?? 0) > 0
        ? 'no kernel kept'
        : r.steps === 0
          ? 'no Step Id'
          : `${fmtCount(r.steps)} ${r.steps === 1 ? 'step' : 'steps'}`;
  if (ranks.length === 0) return 'no Step Id';
  if (ranks.every((r) => label(r) === label(ranks[0]!)))
    return ranks.length === 1 || ranks[0]!.steps === 0 ? label(ranks[0]!) : `${label(ranks[0]!)} on each rank`;
  if (ranks.every((r) => r.steps === 0)) return 'no Step Id';
  const byLabel = new Map<string, string[]>();
  for (const r of ranks) byLabel.set(label(r), [...(byLabel.get(label(r)) ?? []), r.rank]);
  const parts = [...byLabel].map(([text, rs]) => `${text} on ${ranksNamed(rs, code)}`);
  return listed(parts, 4);
}

/** The rank id the readers give a rank whose profile names none (no profiler_info, no rank in its folder name). */
export const NO_RANK_ID = '-';

/** A rank id that is a whole number (`0`, `15`), which ranges join; else null. */
function wholeRankId(rank: string | undefined): number | null {
  return rank !== undefined && /^(0|[1-9]\d{0,8})$/.test(rank) ? Number(rank) : null;
}

/**
 * Rank ids as every text format lists them, in the order given (kprof's rank order), each shown by `code`: three
 * or more consecutive whole numbers as one range (`0–999`, an en dash, which no range of Step Ids uses), the rank
 * of no id as `(no id)`; of more than 8 items, the first 6, `…` and the last (`0, 2, 4, 6, 8, 10, …, 998`).
 */
export function rankIdsText(ranks: readonly string[], code: (s: string) => string = (s) => s): string {
  const parts = rankRuns(ranks).map(([a, b]) => (a !== b ? `${code(a)}–${code(b)}` : a === NO_RANK_ID ? '(no id)' : code(a)));
  return parts.length > 8 ? `${parts.slice(0, 6).join(', ')}, …, ${parts[parts.length - 1]}` : parts.join(', ');
}

/** Ranks in the order given as runs [first, last]: three or more consecutive whole numbers one run, any other a run of one. */
function rankRuns(ranks: readonly string[]): [string, string][] {
  const runs: [string, string][] = [];
  for (let i = 0; i < ranks.length; ) {
    const n = wholeRankId(ranks[i]);
    let j = i;
    if (n !== null) while (j + 1 < ranks.length && wholeRankId(ranks[j + 1]) === n + (j + 1 - i)) j++;
    if (j - i < 2) j = i;
    runs.push([ranks[i]!, ranks[j]!]);
    i = j + 1;
  }
  return runs;
}

/** How many ranks, and which: `1 rank (3)`, `1,000 ranks (0–999)`; the one rank of no id: `1 rank`. */
export function ranksCounted(ranks: readonly string[], code: (s: string) => string = (s) => s): string {
  if (ranks.length === 1 && ranks[0] === NO_RANK_ID) return '1 rank';
  return `${plural(ranks.length, 'rank')} (${rankIdsText(ranks, code)})`;
}

/** Ranks as a sentence names them: `rank 3`, `rank (no id)`, `ranks 0–7`. */
export function ranksNamed(ranks: readonly string[], code: (s: string) => string = (s) => s): string {
  return `${ranks.length === 1 ? 'rank' : 'ranks'} ${rankIdsText(ranks, code)}`;
}

/**
 * Ranks as `--rank` takes them, shortest: runs of three or more consecutive whole numbers as `A-B` (`0-6,8-511`);
 * null when that is over `most` items (too long to suggest).
 */
export function rankOption(ranks: readonly string[], most = 8): string | null {
  const items = rankRuns(ranks).map(([a, b]) => (a !== b ? `${a}-${b}` : a));
  return items.length > 0 && items.length <= most ? items.join(',') : null;
}
