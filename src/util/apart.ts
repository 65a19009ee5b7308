// Long names cut to fit a cell can come out alike: CUDA kernel names share their first hundred characters of
// template arguments and differ after them, and a table of such rows would show two groups under one name. The
// functions here keep cut names apart: a cut that another, different name also came to is replaced by the name's
// start, `…`, and the part where it differs from those names (then `…` when more follows), in the same width.

import { clipped, escaped } from './inputText.js';

/** An escape escaped() writes, which a cut must keep whole: `\xHH` or `\uHHHH`, else one code point. */
export const ESCAPE_TOKEN = /\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|[\s\S]/gu;

/** How much of a name is looked at to tell it apart: names longer than this that differ only after it are numbered. */
const LOOKED_AT = 65_536;

// A text is read as its tokens (ESCAPE_TOKEN: an escape of escaped(), else one code point), but never split into
// them: a name of 64 KiB is 65,536 strings, and 400 of them took seconds. A text is held with a mark at the start
// of each token (Tokens.starts), found by one pass over its code units; the functions below step from token to
// token by the marks, and compare texts by their code units, as the token lists compared.

/**
 * A text (its first LOOKED_AT code units) and where its tokens start: starts[i] is 1 at each, and at its end; null
 * when every code unit is a token (no backslash, no surrogate: most names), which needs no pass at all.
 */
interface Tokens {
  text: string;
  starts: Uint8Array | null;
}

/** A code unit that may start a token of more than one: a backslash, a surrogate. */
const MULTI_UNIT = /[\\\ud800-\udfff]/;

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** The length of the token at i, as ESCAPE_TOKEN reads it: `\xHH` 4, `\uHHHH` 6, a surrogate pair 2, else 1. */
function tokenLength(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 92) {
    const k = s.charCodeAt(i + 1);
    if (k === 120 && isHex(s.charCodeAt(i + 2)) && isHex(s.charCodeAt(i + 3))) return 4;
    if (k === 117 && isHex(s.charCodeAt(i + 2)) && isHex(s.charCodeAt(i + 3)) && isHex(s.charCodeAt(i + 4)) && isHex(s.charCodeAt(i + 5))) return 6;
    return 1;
  }
  if (c >= 0xd800 && c <= 0xdbff) {
    const k = s.charCodeAt(i + 1);
    if (k >= 0xdc00 && k <= 0xdfff) return 2;
  }
  return 1;
}

function tokens(text: string): Tokens {
  const t = text.length > LOOKED_AT ? text.slice(0, LOOKED_AT) : text;
  if (!MULTI_UNIT.test(t)) return { text: t, starts: null };
  const starts = new Uint8Array(t.length + 1);
  for (let i = 0; i < t.length; i += tokenLength(t, i)) starts[i] = 1;
  starts[t.length] = 1;
  return { text: t, starts };
}

/** The start of the token after the one at i (i < the text's length). */
function next(ts: Tokens, i: number): number {
  const starts = ts.starts;
  let j = i + 1;
  if (starts !== null) while (starts[j] === 0) j++;
  return j;
}

/** Whether a token starts at i. */
const startsAt = (ts: Tokens, i: number): boolean => ts.starts === null || ts.starts[i] === 1;

/** The start of the token before the one at i (i > 0). */
function previous(ts: Tokens, i: number): number {
  const starts = ts.starts;
  let j = i - 1;
  if (starts !== null) while (starts[j] === 0) j--;
  return j;
}

/** How many leading code units two texts share: compared a block at a time, then unit by unit. */
function commonUnits(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  const BLOCK = 256;
  let i = 0;
  while (i + BLOCK <= n && a.slice(i, i + BLOCK) === b.slice(i, i + BLOCK)) i += BLOCK;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Where the leading tokens two texts share end (a code unit offset, a token start of both). A token is read from
 * at most its first 6 code units, so the tokens of both that start 6 units or more before the first unit that
 * differs are the same tokens: only the last few are compared one by one.
 */
function common(a: Tokens, b: Tokens): number {
  const p = commonUnits(a.text, b.text);
  let i = Math.max(0, p - 6);
  while (!startsAt(a, i)) i--;
  while (i < a.text.length && i < b.text.length) {
    const end = next(a, i);
    if (end > p || end !== next(b, i)) break;
    i = end;
  }
  return i;
}

/**
 * How wide a part of a text shows (`s` from `from` to `to`): by default its code units (a character each, an escape
 * its length); a terminal's table measures the columns a terminal shows it in (a wide character takes two).
 */
export type Measure = (s: string, from: number, to: number) => number;

const CODE_UNITS: Measure = (_s, from, to) => to - from;

/** Tokens from `from`, as many as fit in `room` (as `measure` counts), and where they end. */
function take(ts: Tokens, from: number, room: number, measure: Measure = CODE_UNITS): { text: string; end: number } {
  let i = from;
  let used = 0;
  while (i < ts.text.length) {
    const j = next(ts, i);
    const w = measure(ts.text, i, j);
    if (used + w > room) break;
    used += w;
    i = j;
  }
  return { text: ts.text.slice(from, Math.max(from, i)), end: i };
}

/** The token `k` tokens after the one at `at` (before it when k < 0), within the text. */
function moved(ts: Tokens, at: number, k: number): number {
  let i = at;
  for (; k > 0 && i < ts.text.length; k--) i = next(ts, i);
  for (; k < 0 && i > 0; k++) i = previous(ts, i);
  return i;
}

/**
 * An escaped text in at most `width` characters that shows its token at `at` (where it differs from the texts it
 * was alike with): its start, `…`, a window from a little before `at`, and `…` when more follows.
 */
function around(ts: Tokens, at: number, width: number, measure: Measure): string {
  const s = ts.text;
  if (measure(s, 0, s.length) <= width) return s;
  const headRoom = Math.max(1, Math.floor(width / 3));
  const head = take(ts, 0, headRoom, measure);
  const rest = width - measure(s, 0, head.end) - 1;
  // The end of the text fits after the start: show it whole.
  let tailFrom = s.length;
  let tail = 0;
  while (tailFrom > head.end) {
    const p = previous(ts, tailFrom);
    tail += measure(s, p, tailFrom);
    if (tail > rest) break;
    tailFrom = p;
  }
  if (tailFrom <= at) return `${head.text}…${s.slice(tailFrom)}`;
  const room = rest - 1;
  // A little before `at`: a quarter of the room, in tokens (past `at` when there is no room at all).
  const from = Math.max(head.end, moved(ts, at, -Math.floor(room / 4)));
  const win = take(ts, from, room, measure);
  return `${head.text}…${win.text}${win.end < s.length ? '…' : ''}`;
}

/** Whether the texts at these indices are all one text. */
function allOne(group: number[], texts: string[]): boolean {
  const first = texts[group[0]!];
  return group.every((i) => texts[i] === first);
}

/**
 * `shown[i]` is `texts[i]` (escaped) cut to at most `width` characters. Where cuts of different texts are alike,
 * each of them shows instead where its text differs from the others (see around); any still alike (texts that
 * differ only past what fits) end in `#1`, `#2`, … in the order given. Texts alike themselves stay alike.
 */
export function keptApart(texts: string[], shown: string[], width: number, measure: Measure = CODE_UNITS): string[] {
  const alike = new Map<string, number[]>();
  for (let i = 0; i < shown.length; i++) {
    if (shown[i] === texts[i]) continue;
    const g = alike.get(shown[i]!);
    if (g) g.push(i);
    else alike.set(shown[i]!, [i]);
  }
  const out = shown.slice();
  // One count for the whole list: cuts numbered in two groups could be cut alike again (`aa…#1` twice).
  const numbered = { n: 0 };
  // A text shown whole that another was cut to is in that group too.
  const wholeAt = new Map<string, number>();
  for (let i = shown.length - 1; i >= 0; i--) if (shown[i] === texts[i] && alike.has(shown[i]!)) wholeAt.set(shown[i]!, i);
  for (const [cut, group] of alike) {
    // Not a Set of the texts: V8 hashes a string of more than 16,383 code units by its length alone, so a Set of
    // long names of one length compares each with all the others.
    if (allOne(group, texts)) continue;
    const whole = wholeAt.get(cut);
    const members = whole !== undefined ? [whole, ...group] : group;
    const ts = members.map((i) => tokens(texts[i]!));
    const at = differAtTokens(
      members.map((i) => texts[i]!),
      ts,
    );
    members.forEach((i, k) => {
      out[i] = around(ts[k]!, at[k]!, width, measure);
    });
    numberAlike(members, texts, out, width, numbered, measure);
  }
  // Two groups' texts may still show alike: each shows where it differs from its own group, and those places can read
  // the same (`a:a…:\x1b…` of `a:a:a:a:\x1b\x1b` and of `a:a:a:a: :\x1baaa`). Those are numbered too.
  const byOut = new Map<string, number[]>();
  for (let i = 0; i < out.length; i++) {
    const g = byOut.get(out[i]!);
    if (g) g.push(i);
    else byOut.set(out[i]!, [i]);
  }
  const clash = [...byOut.values()].filter((g) => g.length > 1 && !allOne(g, texts)).flat();
  if (clash.length > 0) numberAlike(clash, texts, out, width, numbered, measure);
  return out;
}

/**
 * For each text, how many leading tokens (ESCAPE_TOKEN, of its first LOOKED_AT code units) it shares with a
 * different text of the list. See differAtTokens.
 */
export function differAt(texts: string[]): number[] {
  const ts = texts.map(tokens);
  return differAtTokens(texts, ts).map((at, k) => {
    let n = 0;
    for (let i = 0; i < at; i++) if (startsAt(ts[k]!, i)) n++;
    return n;
  });
}

/**
 * For each text, where the most leading tokens it shares with a different text of the list end. In the
 * lexicographic order of the token lists, the longest common start with any other list is that with a neighbour
 * (the common start of two lists is the least of those of the neighbours between them), so the lists are sorted
 * once and each is compared with the nearest lists of another text on either side: n log n comparisons, not n²
 * (2,000 CUDA names of 1,000 characters alike in their first 120 took 9 s).
 */
function differAtTokens(texts: string[], ts: Tokens[]): number[] {
  const order = texts.map((_, k) => k).sort((a, b) => compareTokens(ts[a]!, ts[b]!));
  // Runs of one text (equal texts have equal token lists, so they sort together, or beside lists equal to theirs).
  const runs: number[][] = [];
  for (const k of order) {
    const last = runs[runs.length - 1];
    if (last && texts[last[0]!] === texts[k]) last.push(k);
    else runs.push([k]);
  }
  const at = new Array<number>(texts.length).fill(0);
  runs.forEach((run, r) => {
    const k = run[0]!;
    const before = r > 0 ? common(ts[k]!, ts[runs[r - 1]![0]!]!) : 0;
    const after = r + 1 < runs.length ? common(ts[k]!, ts[runs[r + 1]![0]!]!) : 0;
    for (const x of run) at[x] = Math.max(before, after);
  });
  return at;
}

/** Token lists in lexicographic order (token by token, each compared as text; a list before its extensions). */
function compareTokens(a: Tokens, b: Tokens): number {
  const i = common(a, b);
  const aEnds = i === a.text.length;
  const bEnds = i === b.text.length;
  if (aEnds || bEnds) return aEnds && bEnds ? 0 : aEnds ? -1 : 1;
  return a.text.slice(i, next(a, i)) < b.text.slice(i, next(b, i)) ? -1 : 1;
}

/** Cuts of different texts still alike: each of them ends in `#n` instead (n counted over the whole list, from 1 in the order given). */
function numberAlike(members: number[], texts: string[], out: string[], width: number, numbered: { n: number }, measure: Measure): void {
  const seen = new Map<string, number[]>();
  for (const i of members) {
    const g = seen.get(out[i]!);
    if (g) g.push(i);
    else seen.set(out[i]!, [i]);
  }
  for (const g of seen.values()) {
    if (allOne(g, texts)) continue;
    g.forEach((i) => {
      const mark = `#${++numbered.n}`;
      const kept = take(tokens(out[i]!), 0, Math.max(1, width - mark.length - 1), measure).text;
      out[i] = `${kept}…${mark}`;
    });
  }
}

/** clipped() of each label, kept apart (see keptApart): different labels never show alike. */
export function clippedApart(labels: string[], max: number): string[] {
  const shown = labels.map((l) => clipped(l, max));
  const cutOnes = shown.map((s, i) => s.endsWith('…') && s !== escaped(labels[i]!.slice(0, 2 * max + 8)));
  if (!cutOnes.some((c) => c)) return shown;
  const texts = labels.map((l, i) => (cutOnes[i] ? escaped(l.slice(0, LOOKED_AT)) : shown[i]!));
  return keptApart(texts, shown, max);
}
