// Selector values that are valid YAML but mean something else than their writer meant: `type: Cast, Add` is one
// type named "Cast, Add", not a list, and `type: Interleave*` is the type "Interleave*", not a pattern (type: and
// name: match whole values). Such a value matches nothing, so `absent:` and `max:` would hold whatever runs; the
// hint says what to write instead, when the kernels it most likely meant run.

import type { Said } from './model.js';
import type { Budget } from '../util/nearName.js';

/**
 * The kernels `value` meant as a list or a pattern, as the end of a sentence; null when it reads as neither.
 * `budget` bounds the names a pattern is tried on (util/nearName.ts).
 */
export function shapeHint(kind: 'type' | 'name', value: string, pool: ReadonlySet<string>, budget: Budget): Said | null {
  if (value.includes(',')) {
    const parts = value
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    if (parts.length > 1 && parts.some((p) => pool.has(p))) {
      const list = parts.map((p) => (/^[\w.-]+$/.test(p) ? p : JSON.stringify(p))).join(', ');
      return [`a text with commas is one ${kind}, not a list; did you mean ${kind}: [`, { input: list, bare: true }, ']?'];
    }
  }
  if (value.includes('*')) {
    const parts = value.split('*');
    const quoteRe = (p: string): string => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const source = `^${parts.map(quoteRe).join('.*')}$`
      .replace(/(?:\.\*)+/g, '.*')
      .replace(/^\^\.\*/, '')
      .replace(/\.\*\$$/, '');
    // The parts between the first and the last, once: an empty one (`**`) matches anywhere, so it is left out,
    // and a name costs what it holds (each part found moves past a character), not what the value holds.
    const middle = parts.slice(1, -1).filter((p) => p !== '');
    for (const k of pool) {
      budget.cells -= k.length + 1;
      if (budget.cells < 0) break;
      if (globMatches(parts[0]!, middle, parts[parts.length - 1]!, k))
        return [`* is no wildcard in ${kind}: (it matches whole values); did you mean match: `, { input: JSON.stringify(source), bare: true }, '?'];
    }
  }
  return null;
}

/**
 * A value split at its * (`first`, the non-empty `middle` parts, `last`) matches `text` as a glob: no regular
 * expression, so no backtracking; at most one look-up per character of `text`, however many parts the value has.
 */
function globMatches(first: string, middle: readonly string[], last: string, text: string): boolean {
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const p of middle) {
    const i = text.indexOf(p, at);
    if (i < 0 || i + p.length > end) return false;
    at = i + p.length;
  }
  return true;
}
