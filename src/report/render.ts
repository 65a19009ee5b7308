// Shared building blocks for reporters: terminal tables, Markdown tables, CSV lines, colour. Pure functions.
//
// Over 400 lines: the building blocks every reporter shares: tables fitted to the terminal, Markdown, CSV and
// colour.

import { createRequire } from 'node:module';
import type TableType from 'cli-table3';
import { ESCAPE_TOKEN, keptApart, type Measure } from '../util/apart.js';
import { CELL_WIDTH, clipped, escaped, hexEscape } from '../util/inputText.js';

// Loaded on first use: only a terminal table with a cell that is not plain (see isPlain) needs it.
let TableClass: typeof TableType | null = null;
function Table(): typeof TableType {
  TableClass ??= createRequire(import.meta.url)('cli-table3') as typeof TableType;
  return TableClass;
}

export type Align = 'left' | 'right';

export interface RenderContext {
  /** Colour allowed (stdout is a TTY and NO_COLOR is not set). */
  color: boolean;
  /**
   * Present only when stdout is a terminal: its width, which terminal tables and lines are fitted to (see
   * fitTable). A reporter that had to shorten or leave something out says so in `cut` (what it left out), and the
   * command prints one line on how to see everything. Absent (pipes, files, CI), output is as wide as it needs.
   */
  fit?: Fit;
}

export interface Fit {
  /** The terminal's columns; a line is kept below the last one (a line that reaches it wraps on some terminals). */
  width: number;
  /** What was shortened or left out to fit, in words ("names shortened", "columns Δ, Δ% left out"). */
  cut: string[];
}

const ANSI = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
} as const;

export type Paint = keyof typeof ANSI;

export function paint(ctx: RenderContext, style: Paint, text: string): string {
  if (!ctx.color) return text;
  const [on, off] = ANSI[style];
  return `\u001b[${on}m${text}\u001b[${off}m`;
}

/** A borderless terminal table: a header, a rule under it, right-aligned numbers. */
export function textTable(
  ctx: RenderContext,
  head: string[],
  rows: string[][],
  align: Align[],
  footer?: string[],
  /** Columns a terminal too narrow for the table may leave out, the first to go first (never the first column). */
  droppable: number[] = [],
): string {
  if (ctx.fit) ({ head, rows, align, footer } = fitTable(ctx.fit, head, rows, align, footer, droppable));
  const all = tableRows(ctx, head, rows, footer);
  const plain = head.length > 0 && all.every((r) => r.length === head.length && r.every(isPlain));
  return plain ? padTable(all, align) : trimLines(cliTable(all, align));
}

/**
 * textTable in chunks, for a table of many rows: the rows are made by `row(i)`, twice (once to measure the
 * columns, once to write them), and never held together: a summary of a million names would otherwise hold a
 * million arrays of cells, their padded lines and the joined text at once. The chunks joined are textTable's
 * text: fitted to a terminal, or with a cell that is not plain (drawn by cli-table3), it is textTable itself.
 */
export function* textTableChunks(
  ctx: RenderContext,
  head: string[],
  count: number,
  row: (i: number) => string[],
  align: Align[],
  footer?: string[],
  droppable: number[] = [],
): Generator<string> {
  const whole = (): string =>
    textTable(
      ctx,
      head,
      Array.from({ length: count }, (_, i) => row(i)),
      align,
      footer,
      droppable,
    );
  if (ctx.fit || head.length === 0) {
    yield whole();
    return;
  }
  // The widths of tableRows (head, rows, footer), which are padTable's too: the rule is as wide as its column.
  const n = head.length;
  const widths = head.map((h) => visible(h));
  const painted = head.map((h) => paint(ctx, 'bold', h));
  let plain = painted.every(isPlain) && (footer === undefined || (footer.length === n && footer.every(isPlain)));
  const measure = (r: string[]): void => {
    if (r.length !== n) plain = false;
    for (let c = 0; c < r.length && c < n; c++) {
      const cell = r[c]!;
      if (!isPlain(cell)) plain = false;
      const w = visible(cell);
      if (w > widths[c]!) widths[c] = w;
    }
  };
  for (let i = 0; i < count && plain; i++) measure(row(i));
  if (footer) measure(footer);
  if (!plain) {
    yield whole();
    return;
  }
  const rule = widths.map((w) => '─'.repeat(w));
  // Every row has n cells here (measure saw to it).
  const line = (r: string[]): string => paddedLine(r, widths, align);
  let buf = `${line(painted)}\n${line(rule)}`;
  for (let i = 0; i < count; i++) {
    buf += `\n${line(row(i))}`;
    if (buf.length >= TABLE_CHUNK_CHARS) {
      yield buf;
      buf = '';
    }
  }
  if (footer) buf += `\n${line(rule)}\n${line(footer)}`;
  if (buf !== '') yield buf;
}

/** Characters per chunk of textTableChunks, about. */
const TABLE_CHUNK_CHARS = 1 << 16;

/** The same table as textTable, always drawn by cli-table3 (for tests), `block` rows per cli-table3 table. */
export function cliTextTable(
  ctx: RenderContext,
  head: string[],
  rows: string[][],
  align: Align[],
  footer?: string[],
  block = CLI_BLOCK_ROWS,
): string {
  return trimLines(cliTable(tableRows(ctx, head, rows, footer), align, block));
}

/** The header (painted), a rule, the rows, and a rule and the footer when there is one. */
function tableRows(ctx: RenderContext, head: string[], rows: string[][], footer: string[] | undefined): string[][] {
  // Loops, not Math.max(...) or push(...): a spread of one argument per row overflows the stack at ~125k rows.
  // The columns a terminal shows: a wide character (融, an emoji) takes two, a combining one none, as cli-table3
  // pads them, so that the rule is as wide as its column.
  const widths = head.map((h, i) => {
    let w = shownWidth(h);
    for (const r of rows) w = Math.max(w, shownWidth(r[i] ?? ''));
    return footer ? Math.max(w, shownWidth(footer[i] ?? '')) : w;
  });
  const rule = widths.map((w) => '─'.repeat(w));
  const out = [head.map((h) => paint(ctx, 'bold', h)), rule];
  for (const r of rows) out.push(r);
  if (footer) out.push(rule, footer);
  return out;
}

/** The narrowest the first column (the names) is made to fit a terminal: shorter names read as no name. */
export const MIN_NAME_WIDTH = 24;

/**
 * A table fitted to a terminal of `fit.width` columns: the first column's long texts shortened in the middle
 * (middleCut, so that names alike at their start stay apart by their ends), down to MIN_NAME_WIDTH; then, while
 * it is still too wide, the `droppable` columns left out in that order. What it did is added to `fit.cut`.
 */
export function fitTable(
  fit: Fit,
  head: string[],
  rows: string[][],
  align: Align[],
  footer: string[] | undefined,
  droppable: number[],
): { head: string[]; rows: string[][]; align: Align[]; footer: string[] | undefined } {
  const limit = fit.width - 1;
  // The columns a terminal shows each cell in (a wide character takes two), as tableRows pads them.
  const widthOf = (i: number): number => {
    let w = shownWidth(head[i] ?? '');
    for (const r of rows) w = Math.max(w, shownWidth(r[i] ?? ''));
    return footer ? Math.max(w, shownWidth(footer[i] ?? '')) : w;
  };
  const widths = head.map((_, i) => widthOf(i));
  const total = (keep: number[]): number => keep.reduce((a, i) => a + widths[i]!, 0) + GAP.length * (keep.length - 1);
  let keep = head.map((_, i) => i);
  if (total(keep) <= limit || head.length === 0) return { head, rows, align, footer };
  const floor = Math.max(MIN_NAME_WIDTH, shownWidth(head[0]!), footer ? shownWidth(footer[0] ?? '') : 0);
  const rest = (k: number[]): number => total(k) - widths[0]!;
  // Leave out columns only while the shortest names would not fit beside the others.
  const dropped: string[] = [];
  for (const i of droppable) {
    if (rest(keep) + Math.min(widths[0]!, floor) <= limit) break;
    keep = keep.filter((k) => k !== i);
    dropped.push(head[i]!);
  }
  const nameWidth = Math.max(floor, limit - rest(keep));
  let shortened = false;
  const shorten = (r: string[]): string[] => {
    const cells = keep.map((i) => r[i] ?? '');
    if (shownWidth(cells[0]!) > nameWidth) {
      cells[0] = middleCut(cells[0]!, nameWidth);
      shortened = true;
    }
    return cells;
  };
  const cutRows = rows.map(shorten);
  // Names the cut made alike show where they differ instead (painted cells, kprof's own, are left as they are).
  const plain = rows.map((r, i) => (PAINTED.test(r[0] ?? '') ? null : i)).filter((i) => i !== null);
  const apart = keptApart(
    plain.map((i) => rows[i]![0] ?? ''),
    plain.map((i) => cutRows[i]![0]!),
    nameWidth,
    columnsOf,
  );
  plain.forEach((i, k) => {
    cutRows[i]![0] = apart[k]!;
  });
  const out = {
    head: keep.map((i) => head[i]!),
    rows: cutRows,
    align: keep.map((i) => align[i]!),
    footer: footer ? shorten(footer) : undefined,
  };
  if (shortened) fit.cut.push('names shortened');
  if (dropped.length > 0) fit.cut.push(`${dropped.length === 1 ? 'column' : 'columns'} ${dropped.join(', ')} left out`);
  if (total(keep) - widths[0]! + nameWidth > limit) fit.cut.push('table wider than the terminal');
  return out;
}

/**
 * Text already escaped (a table cell), at most `width` columns on a terminal (a wide character takes two): its start
 * and its end with `…` between, the escapes of escaped() kept whole, so that nothing reads differently than in the
 * whole text. A painted cell (see PAINTED) keeps its paint.
 */
export function middleCut(cell: string, width: number): string {
  const m = PAINTED.exec(cell);
  if (m) {
    const inner = m[1] ?? m[2]!;
    const at = cell.indexOf(inner);
    return cell.slice(0, at) + middleCut(inner, width) + cell.slice(at + inner.length);
  }
  const tokens = cell.match(ESCAPE_TOKEN) ?? [];
  // Each token's columns: an escape's and a narrow character's its length, a wide one's two, a combining one's none.
  const plain = isPlain(cell);
  const cols = tokens.map((t) => (plain ? t.length : shownWidth(t)));
  let length = 0;
  for (const c of cols) length += c;
  if (length <= width) return cell;
  const room = Math.max(1, width - 1);
  const headRoom = Math.ceil(room / 2);
  let tailRoom = room - headRoom;
  let head = '';
  let headCols = 0;
  let i = 0;
  while (i < tokens.length && headCols + cols[i]! <= headRoom) {
    headCols += cols[i]!;
    head += tokens[i++]!;
  }
  tailRoom += headRoom - headCols;
  let tail = '';
  let tailCols = 0;
  let j = tokens.length - 1;
  while (j >= i && tailCols + cols[j]! <= tailRoom) {
    tailCols += cols[j]!;
    tail = tokens[j--]! + tail;
  }
  // A name's own backslash just before the `…` or a tail that starts as `x1b` would never read as an escape (the
  // backslash of an escape is always kept with it), so nothing more is needed here.
  return `${head}…${tail}`;
}

/**
 * Text already escaped, in lines of at most `width` characters broken at spaces; a word longer than a line is
 * broken inside, never inside an escape of escaped() (see ESCAPE_TOKEN).
 */
export function wrapWords(text: string, width: number): string[] {
  const w = Math.max(8, width);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    let rest = word;
    while (rest.length > 0) {
      const sep = line === '' ? '' : ' ';
      if (line.length + sep.length + rest.length <= w) {
        line += sep + rest;
        rest = '';
      } else if (line !== '' && rest.length <= w) {
        lines.push(line);
        line = '';
      } else {
        // A word longer than what is left of the line: as much of it as fits, in whole escapes.
        const room = w - line.length - sep.length;
        let piece = '';
        for (const t of rest.match(ESCAPE_TOKEN) ?? []) {
          if (piece.length + t.length > room) break;
          piece += t;
        }
        if (piece === '') {
          lines.push(line);
          line = '';
          continue;
        }
        line += sep + piece;
        rest = rest.slice(piece.length);
        lines.push(line);
        line = '';
      }
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/**
 * A report's prose fitted to a terminal (tables are fitted by fitTable): each line wider than `fit.width` broken
 * at spaces (wrapWords), its continuation lines under the text after its label (`    base   text`) or else
 * indented as the line is, plus two. A line painted as a whole keeps its paint on each piece; other painted lines
 * and table rows (columns apart by runs of spaces) are left as they are. Without `fit`, the text as it is.
 */
export function fitProse(text: string, fit: Fit | undefined): string {
  if (!fit) return text;
  const limit = fit.width - 1;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (visible(line) <= limit) {
      out.push(line);
      continue;
    }
    const m = PAINTED.exec(line);
    const inner = m ? (m[1] ?? m[2]!) : line;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: an escape code left in a line is what this finds
    if (/\u001b/.test(inner)) {
      out.push(line);
      continue;
    }
    // A table row left wider than the terminal (its columns are apart by runs of spaces) is left whole.
    const lead = /^ */.exec(inner)![0];
    if ((inner.slice(lead.length).match(/\S {2,}(?=\S)/g) ?? []).length >= 2) {
      out.push(line);
      continue;
    }
    // A labelled line (`    base   text …`) goes on under its text; another under its start, two further in.
    const label = /^ *\S+ {2,}(?=\S)/.exec(inner)?.[0];
    const hang = label !== undefined && label.length <= limit / 2 ? label.length : lead.length + 2;
    const first = label ?? lead;
    const pieces = wrapWords(inner.slice(first.length), limit - hang);
    pieces.forEach((piece, i) => {
      const text = `${i === 0 ? first : ' '.repeat(hang)}${piece}`;
      out.push(m ? line.slice(0, line.indexOf(inner)) + text + line.slice(line.indexOf(inner) + inner.length) : text);
    });
  }
  return out.join('\n');
}

function trimLines(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}

/** Space after every column (cli-table3's right padding). */
const GAP = '  ';

/**
 * What cli-table3 draws with the options of cliTable when every cell is plain (see isPlain), trimmed as
 * trimLines trims it: each cell padded to its column's width, then GAP. Loading cli-table3 (and its width measuring) and its layout were most of the
 * time of rendering a report.
 */
function padTable(rows: string[][], align: Align[]): string {
  const widths = rows[0]!.map((_, i) => {
    let w = 0;
    for (const r of rows) w = Math.max(w, visible(r[i]!));
    return w;
  });
  // Each line trimmed as it is made (trimLines on the whole table would hold it twice more, split and joined).
  return rows.map((r) => paddedLine(r, widths, align)).join('\n');
}

/** A row of a plain table, each cell padded to its column's width and followed by GAP, the line's end trimmed. */
function paddedLine(r: readonly string[], widths: readonly number[], align: readonly Align[]): string {
  let out = '';
  for (let c = 0; c < r.length; c++) {
    const cell = r[c]!;
    const width = widths[c]! + cell.length - visible(cell);
    out += (align[c] === 'right' ? cell.padStart(width) : cell.padEnd(width)) + GAP;
  }
  return out.trimEnd();
}

/** Printable ASCII, and the other characters reports put in tables that a terminal shows one column wide (Δ µ ─ … → ± · ∞, escaped: the bundle is ASCII). */
const NARROW = /^[\x20-\x7e\u0394\u00b5\u2500\u2026\u2192\u00b1\u00b7\u221e]*$/;
/** A text as paint() makes it: one style, closed again at the end (cli-table3 then adds no codes of its own). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds
const PAINTED = /^\u001b\[(?:[12]m(.*)\u001b\[22m|3\dm(.*)\u001b\[39m)$/;

/**
 * A cell as wide as its length, as cli-table3 measures it: one line of narrow characters, painted at most once
 * as a whole. Any other (wide or combining characters, emoji, line breaks) leaves the table to cli-table3.
 */
function isPlain(cell: string): boolean {
  const m = PAINTED.exec(cell);
  return NARROW.test(m ? (m[1] ?? m[2]!) : cell);
}

/**
 * Rows cli-table3 draws in one table at most: its toString() spreads every row into one call (push.apply),
 * which overflows the stack at ~125k rows. Larger tables are drawn in blocks of this many rows with the column
 * widths of the whole table, which draws the same lines.
 */
const CLI_BLOCK_ROWS = 10_000;

function cliTable(rows: string[][], align: Align[], block = CLI_BLOCK_ROWS): string {
  if (rows.length <= block) return cliBlock(rows, align, undefined);
  const { strlen } = createRequire(import.meta.url)('cli-table3/src/utils.js') as { strlen(s: string): number };
  const widths: number[] = [];
  for (const r of rows) {
    r.forEach((c, i) => {
      widths[i] = Math.max(widths[i] ?? 1, strlen(c) + GAP.length);
    });
  }
  const out: string[] = [];
  for (let i = 0; i < rows.length; i += block) out.push(cliBlock(rows.slice(i, i + block), align, widths, i > 0));
  return out.join('\n');
}

/** One cli-table3 table: rows[0] is its head unless `headless`; `widths` fixes the column widths. */
function cliBlock(rows: string[][], align: Align[], widths: number[] | undefined, headless = false): string {
  const table = new (Table())({
    head: headless ? [] : rows[0]!,
    ...(widths ? { colWidths: widths } : {}),
    colAligns: align,
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': GAP.length },
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '',
    },
  });
  for (const r of headless ? rows : rows.slice(1)) table.push(r);
  return table.toString();
}

/** cli-table3's measure of a cell (loaded on first use, as the table itself). */
let cliStrlen: ((s: string) => number) | null = null;

/** The columns a cell takes on a terminal: its length when plain (see isPlain), else as cli-table3 measures it. */
function shownWidth(s: string): number {
  if (isPlain(s)) return visible(s);
  cliStrlen ??= (createRequire(import.meta.url)('cli-table3/src/utils.js') as { strlen(s: string): number }).strlen;
  return cliStrlen(s);
}

/** The columns a part of a cell takes on a terminal (keptApart's measure, as shownWidth measures a cell). */
const columnsOf: Measure = (s, from, to) => (to - from === 1 && s.charCodeAt(from) < 0x7f ? 1 : shownWidth(s.slice(from, to)));

function visible(s: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds
  return s.replace(/\u001b\[[0-9;]*m/g, '').length;
}

// ---------------------------------------------------------------------------------------------------------
// Text from input is shown through the one scheme of inputText.ts (re-exported here for the reporters).

export { CELL_WIDTH, WHOLE, clipped, escaped, jsonSafe, oneLine } from '../util/inputText.js';

/**
 * A Markdown code span for any text, kernel names with backticks included: its fence is one backtick longer
 * than the longest run of backticks in the text, with a space inside it when the text starts or ends with one
 * (CommonMark strips that space again).
 */
export function codeSpan(s: string): string {
  let longest = 0;
  for (const run of s.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  const pad = s.startsWith('`') || s.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
}

/**
 * Text from input in Markdown: clipped(), in a code span, where nothing opens HTML, a link, a mention or a
 * comment. A backslash just before a `|` is written `\x5c`, so that `\|` (see mdCell) is never read as an
 * escaped backslash and a pipe that ends the cell.
 */
export function mdCode(s: string, max = CELL_WIDTH): string {
  return mdCodeOf(clipped(s, max));
}

/** mdCode() of a text already escaped and cut (e.g. by clippedApart). */
export function mdCodeOf(shown: string): string {
  return codeSpan(shown.replace(/\\(?=\|)/g, '\\x5c'));
}

/**
 * Escape a Markdown table cell: `|` would end the cell and a line break the table. GFM reads `\|` as a pipe
 * inside the cell, code spans included; text from input is in code spans (where a backslash is plain text), so
 * nothing else is escaped.
 */
export function mdCell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n|\r/g, ' ');
}

/**
 * GitHub's limit on a comment (and on a pull request's description), in characters: no Markdown report of a
 * command that lists groups exceeds it. Measured in UTF-16 code units, never fewer than characters.
 */
export const MARKDOWN_LIMIT = 65_536;

/** One row of a GFM table (its cells escaped by mdCell), without its line break. */
export function markdownRow(cells: string[]): string {
  return `| ${cells.map(mdCell).join(' | ')} |`;
}

/**
 * A GFM table. Its delimiter row has one cell per heading, whatever `align` holds (a column it does not name is
 * left-aligned): GFM shows no table at all where the two rows differ in cells.
 */
export function markdownTable(head: string[], rows: string[][], align: Align[]): string {
  const rule = `|${head.map((_, i) => (align[i] === 'right' ? '---:' : ':---')).join('|')}|`;
  return [markdownRow(head), rule, ...rows.map(markdownRow)].join('\n');
}

/**
 * One CSV cell: quoted when needed; a text cell starting with = + - @ is prefixed with `'` so a spreadsheet does
 * not run it as a formula. Numbers are passed as numbers and never prefixed.
 */
export function csvCell(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  // One record per line: line breaks and other unsafe characters are escaped as everywhere (see escaped).
  let s = escaped(v);
  if (/^[=+\-@]/.test(s)) s = `'${s}`;
  if (/[",]/.test(s)) s = `"${s.replace(/"/g, '""')}"`;
  return s;
}

export function csvLines(head: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  return [head.map(csvCell).join(','), ...rows.map((r) => r.map(csvCell).join(','))].join('\n') + '\n';
}

/** csvLines in chunks, each row made by `row(i)` as it is written (see textTableChunks). */
export function* csvChunks(head: string[], count: number, row: (i: number) => (string | number | boolean | null | undefined)[]): Generator<string> {
  let buf = `${head.map(csvCell).join(',')}\n`;
  for (let i = 0; i < count; i++) {
    buf += `${row(i).map(csvCell).join(',')}\n`;
    if (buf.length >= TABLE_CHUNK_CHARS) {
      yield buf;
      buf = '';
    }
  }
  if (buf !== '') yield buf;
}

/**
 * Escape text for XML (JUnit). Markup characters become entities; characters XML 1.0 cannot hold at all (C0
 * controls other than TAB, LF and CR, U+FFFE/U+FFFF, lone surrogates) are written as escaped() writes them, so the
 * document is well-formed whatever the text. Text from input goes through escaped() before it gets here.
 */
export function xmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(XML_ILLEGAL, (m) => hexEscape(m.charCodeAt(0)));
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds
const XML_ILLEGAL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
