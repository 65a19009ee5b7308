// Long names cut to fit a cell can come out alike: CUDA kernel names share their first hundred characters of
// template arguments and differ after them, and a table of such rows would show two groups under one name. The
// functions here keep cut names apart: a cut that another, different name also came to is replaced by the name's
// start, `…`, and the part where it differs from those names (then `…` when more follows), in the same width.

import { clipped, escaped } from './inputText.js';

/** An escape escaped() writes, which a cut must keep whole: `\xHH` or `\uHHHH`, else one code point. */
export const ESCAPE_TOKEN = /\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|[\s\S]/gu;

/** How much of a name is looked at to tell it apart: names longer than this that differ only after it are numbered. */
const LOOKED_AT = 65_536;

function tokens(text: string): string[] {
  return text.slice(0, LOOKED_AT).match(ESCAPE_TOKEN) ?? [];
}

function lengthOf(ts: string[], from = 0, to = ts.length): number {
  let n = 0;
  for (let i = from; i < to; i++) n += ts[i]!.length;
  return n;
}

/** How many leading tokens two token lists share. */
function common(a: string[], b: string[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Tokens from `from`, as many as fit in `room` characters. */
function take(ts: string[], from: number, room: number): { text: string; end: number } {
  let text = '';
  let i = from;
  while (i < ts.length && text.length + ts[i]!.length <= room) text += ts[i++]!;
  return { text, end: i };
}

/**
 * An escaped text in at most `width` characters that shows its token `at` (where it differs from the texts it
 * was alike with): its start, `…`, a window from a little before `at`, and `…` when more follows.
 */
function around(ts: string[], at: number, width: number): string {
  if (lengthOf(ts) <= width) return ts.join('');
  const headRoom = Math.max(1, Math.floor(width / 3));
  const head = take(ts, 0, headRoom);
  const rest = width - head.text.length - 1;
  // The end of the text fits after the start: show it whole.
  const tailFrom = (() => {
    let i = ts.length;
    let n = 0;
    while (i > head.end && n + ts[i - 1]!.length <= rest) n += ts[--i]!.length;
    return i;
  })();
  if (tailFrom <= at) return `${head.text}…${ts.slice(tailFrom).join('')}`;
  const room = rest - 1;
  const from = Math.max(head.end, at - Math.floor(room / 4));
  const win = take(ts, from, room);
  return `${head.text}…${win.text}${win.end < ts.length ? '…' : ''}`;
}

/**
 * `shown[i]` is `texts[i]` (escaped) cut to at most `width` characters. Where cuts of different texts are alike,
 * each of them shows instead where its text differs from the others (see around); any still alike (texts that
 * differ only past what fits) end in `#1`, `#2`, … in the order given. Texts alike themselves stay alike.
 */
export function keptApart(texts: string[], shown: string[], width: number): string[] {
  const alike = new Map<string, number[]>();
  for (let i = 0; i < shown.length; i++) {
    if (shown[i] === texts[i]) continue;
    const g = alike.get(shown[i]!);
    if (g) g.push(i);
    else alike.set(shown[i]!, [i]);
  }
  const out = shown.slice();
  // A text shown whole that another was cut to is in that group too.
  const wholeAt = new Map<string, number>();
  for (let i = shown.length - 1; i >= 0; i--) if (shown[i] === texts[i] && alike.has(shown[i]!)) wholeAt.set(shown[i]!, i);
  for (const [cut, group] of alike) {
    if (new Set(group.map((i) => texts[i])).size < 2) continue;
    const whole = wholeAt.get(cut);
    const members = whole !== undefined ? [whole, ...group] : group;
    const ts = members.map((i) => tokens(texts[i]!));
    const at = differAt(
      members.map((i) => texts[i]!),
      ts,
    );
    members.forEach((i, k) => {
      out[i] = around(ts[k]!, at[k]!, width);
    });
    numberAlike(members, texts, out, width);
  }
  return out;
}

/**
 * For each text, the most leading tokens it shares with a different text of the list. In the lexicographic order
 * of the token lists, the longest common start with any other list is that with a neighbour (the common start of
 * two lists is the least of those of the neighbours between them), so the lists are sorted once and each is
 * compared with the nearest lists of another text on either side: n log n comparisons, not n² (2,000 CUDA names
 * of 1,000 characters alike in their first 120 took 9 s).
 */
export function differAt(texts: string[], ts: string[][]): number[] {
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
function compareTokens(a: string[], b: string[]): number {
  const i = common(a, b);
  if (i === a.length || i === b.length) return a.length - b.length;
  return a[i]! < b[i]! ? -1 : 1;
}

/** Cuts of different texts still alike: each of them ends in `#n` instead (n from 1 in the order given). */
function numberAlike(members: number[], texts: string[], out: string[], width: number): void {
  const seen = new Map<string, number[]>();
  for (const i of members) {
    const g = seen.get(out[i]!);
    if (g) g.push(i);
    else seen.set(out[i]!, [i]);
  }
  for (const g of seen.values()) {
    if (new Set(g.map((i) => texts[i])).size < 2) continue;
    g.forEach((i, n) => {
      const mark = `#${n + 1}`;
      const ts = tokens(out[i]!);
      const kept = take(ts, 0, Math.max(1, width - mark.length - 1)).text;
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
