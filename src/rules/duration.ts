// Durations of a rules file (`time: { max: 150us }`): a number with a unit (us, µs, ms, s), or a bare number, which
// is µs. A bare number is taken (rules files written so keep working) and remembered with its line, so that
// `kprof check` can say once which unit it assumed: `max: 150` meant as milliseconds would be a bound a thousand
// times tighter than meant, and the check would say nothing.

import { isScalar, type Node } from '../util/yamlLib.js';
import { describe } from '../aggregate/userGroups.js';
import { MAX_EXACT_TEXT, MAX_EXACT_TICKS, TICKS_PER_US } from '../model/model.js';
import { fmtCount, settled } from '../util/format.js';
import type { BareDuration, BareFraction } from './model.js';

/** A duration in µs, and whether it was a bare number (no unit). `fail` throws the rules file's input error. */
export function readDuration(node: Node, what: string, fail: (node: Node, message: string) => never): { us: number; bare: boolean } {
  let us: number;
  const n0 = isScalar(node) ? node.value : null;
  const bare = typeof n0 === 'number';
  if (typeof n0 === 'number' && n0 >= 0 && Number.isFinite(n0)) us = n0;
  else {
    // µs is written with the micro sign (U+00B5) or the Greek mu (U+03BC): they look alike, and keyboards give either.
    const m = isScalar(node) && typeof node.value === 'string' ? /^\s*(\d+)(?:\.(\d+))?\s*(us|\u00b5s|\u03bcs|ms|s)\s*$/.exec(node.value) : null;
    if (!m) fail(node, `${what}: expected a duration such as 150us, 1.5ms or 2s (a bare number is µs); found ${describe(node)}.`);
    us = decimalUs(m[1]!, m[2] ?? '', m[3] === 'ms' ? 3 : m[3] === 's' ? 6 : 0);
  }
  // No kernel time kprof sums can be larger (it refuses such a profile): a larger bound is a typo, and one of
  // 400 digits would read as Infinity and print as ∞.
  if (!(us <= MAX_EXACT_TICKS / TICKS_PER_US)) {
    fail(node, `${what}: expected a duration of at most ${MAX_EXACT_TEXT}, the most kernel time kprof sums; found ${describe(node)}.`);
  }
  // kprof reads times to 0.1 ns (a tick): a bound above 0 and below it is no time kprof can tell from 0.
  if (us > 0 && us * TICKS_PER_US < 1) {
    fail(node, `${what}: expected 0 or a duration of at least 0.1 ns (0.0001 µs), the finest time kprof reads; found ${describe(node)}.`);
  }
  return { us, bare };
}

/**
 * The µs of a decimal `int.frac` of a unit 10^shift µs, read as the number written with the point moved: the
 * nearest double to the exact value, as a kernel time of that many µs is (1.001ms is 1001 µs; multiplying the
 * number read, 1.001 × 1000, gives 1000.9999999999999, and a kernel of exactly 1.001 ms would break max: 1.001ms).
 */
function decimalUs(int: string, frac: string, shift: number): number {
  const digits = `${int}${frac.padEnd(shift, '0')}`;
  const point = int.length + shift;
  return Number(`${digits.slice(0, point)}.${digits.slice(point) || '0'}`);
}

/**
 * The one line `kprof check` says of a file's bare durations (the file as the messages show it), or '':
 * `rules.yaml:4: time: max: 150 has no unit, read as 150 µs (150us); write the unit to say so. …`. The number is
 * named as the file writes it (`0x10`, `1e3`: the line holds no `16` or `1000` to find).
 */
export function bareDurationNote(file: string, bare: readonly BareDuration[]): string {
  if (bare.length === 0) return '';
  const first = bare[0]!;
  const number = String(first.us);
  const more = moreLines(bare);
  return (
    `${file}:${first.line}: ${first.what}: ${first.written} has no unit, read as ${number} µs (${number}us)${more}. ` +
    'Write the unit (150us, 1.5ms, 2s) to say which is meant.'
  );
}

/** `; so is 1 more, at line 9` / `; so are 3 more, at lines 9, 12, 15` of the notes past the first, or ''. */
function moreLines(all: readonly { line: number }[]): string {
  if (all.length <= 1) return '';
  return (
    `; so ${all.length === 2 ? 'is 1 more' : `are ${fmtCount(all.length - 1)} more`}, at line${all.length === 2 ? '' : 's'} ` +
    `${all
      .slice(1, 9)
      .map((b) => b.line)
      .join(', ')}${all.length > 9 ? ', …' : ''}`
  );
}

/**
 * The one line `kprof check` says of a file's percentages written as a bare number below 1, or '':
 * `rules.yaml:4: count-vs-base: fell-by-at-least: 0.2 is read as 0.2%, not as the fraction 0.2 (20%). …`. A
 * percentage is a number of per cent (20 or 20%), and a fraction written for it makes a bound a hundred times
 * looser or tighter than meant, with nothing said.
 */
export function bareFractionNote(file: string, bare: readonly BareFraction[]): string {
  if (bare.length === 0) return '';
  const first = bare[0]!;
  const whole = settled(first.pct * 100);
  return (
    `${file}:${first.line}: ${first.what}: ${first.written} is read as ${first.pct}%, not as the fraction ${first.pct} ` +
    `(${whole}%)${moreLines(bare)}. Write the % sign (${first.pct}% or ${whole}%) to say which is meant.`
  );
}
