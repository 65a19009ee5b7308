// Markup for the HTML reports: escaping, and the JSON data a page carries. Pure functions.
//
// Text from input (kernel names, ranks, paths, rules) reaches a page only through text() or attr(): it is first
// shown as every text format shows it (control and bidirectional characters as `\xHH` / `\uHHHH`, see
// inputText.ts), then the characters that mean markup are written as entities, so a name is always text and
// never opens an element, an attribute or a comment.

import { CELL_WIDTH, clipped, jsonSafeWith } from '../../util/inputText.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text that is already safe to show (made by kprof, or through clipped()), written for HTML text or attributes. */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** Text from input in element content: escaped as everywhere, clipped to `max` characters, then as HTML. */
export function text(s: string, max = CELL_WIDTH): string {
  return esc(clipped(s, max));
}

/**
 * A value as JSON inside `<script type="application/json">`: what JSON.parse of the element's text gives back
 * is `value`. `<`, `>` and `&` are written as `\u003c`, `\u003e`, `\u0026` (also in keys), so neither
 * `</script>` nor `<!--` can occur in the element, whatever the strings hold; U+2028/U+2029 and the characters
 * that are unsafe in a CI log (see jsonSafe) are escaped too, `##[` as `\\u0023#[`. JSON outside strings is plain
 * ASCII without `#`, so the whole text can be passed through.
 */
export function scriptJson(value: unknown): string {
  return scriptSafe(JSON.stringify(value));
}

const scriptSafe = jsonSafeWith('<>&');

/** A number for an SVG attribute: at most two decimals, no `-0`, no exponent. */
export function num(n: number): string {
  const r = Math.round(n * 100) / 100;
  return r === 0 ? '0' : String(r);
}

/** An element with attributes (values escaped) and raw inner markup. */
export function el(tag: string, attrs: Record<string, string | number | boolean | null | undefined>, inner = ''): string {
  let a = '';
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    a += v === true ? ` ${k}` : ` ${k}="${esc(typeof v === 'number' ? num(v) : v)}"`;
  }
  return `<${tag}${a}>${inner}</${tag}>`;
}
