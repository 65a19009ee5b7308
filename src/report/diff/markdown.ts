// `kprof diff --format markdown`: ready to paste into a pull request. Pure: Diff (+ view) in, string out.

import { foldRows, viewDiff, type Diff, type DiffOthers, type DiffRow, type DiffView, type Side, type UnevenSteps } from '../../analysis/diff.js';
import { fmtCount, fmtSignedCount, fmtSignedUs, fmtUs, fmtUsShort, listed, plural } from '../../util/format.js';
import { clippedApart } from '../../util/apart.js';
import { CELL_WIDTH } from '../../util/inputText.js';
import { MARKDOWN_LIMIT, markdownRow, markdownTable, mdCode, mdCodeOf, type Align } from '../render.js';
import { blockMarkdown, diffStepTimeBlock } from '../stepTime.js';
import { groupHeading } from '../summary/shared.js';
import { labelled, rewritesMarkdown } from './rewrites.js';
import {
  comparedLine,
  disagreementLines,
  disagreeTitle,
  headlineLines,
  othersLine,
  pctText,
  perStep,
  reportWarnings,
  rowLine,
  timeFallbackNote,
  unevenStepLines,
  UNEVEN_TITLE,
  type Line,
} from './shared.js';

/** A compact signed duration for PR tables: "+674 µs", "-1.20 ms", "0 µs". */
function signedShort(us: number): string {
  const s = fmtUsShort(Math.abs(us));
  if (s === fmtUsShort(0)) return s;
  return us > 0 ? `+${s}` : `-${s}`;
}

const code = mdCode;

/** `73,652 (1.63 s)`; the totals row keeps two decimals of time (`832 (22.27 ms)`). */
function mdSide(s: Side, exact = false): string {
  if (s.count === 0 && s.us === 0) return '0';
  return `${fmtCount(s.count)} (${exact ? fmtUs(s.us) : fmtUsShort(s.us)})`;
}

/**
 * Whether a row's times need two decimals: a time change that is not `~` is never shown as two equal times
 * (three significant digits can round two times under 1% apart alike).
 */
function mdExact(l: Line): boolean {
  return !l.timeNoise && l.base.us !== l.pr.us && fmtUsShort(l.base.us) === fmtUsShort(l.pr.us);
}

function mdDelta(l: Line, exact = false): string {
  const time = l.timeNoise ? '~' : exact ? fmtSignedUs(l.deltaUs) : signedShort(l.deltaUs);
  return `${fmtSignedCount(l.deltaCount)} (${time})`;
}

function mdNote(l: Line, status: string, r: DiffRow | null): string {
  const time = l.timeNoise ? 'time ~' : `${pctText(l.deltaUsPct, l.pr.us)} time`;
  let note: string;
  if (status === 'removed' || status === 'added') note = status;
  else if (status === 'same') note = l.timeNoise ? 'same' : `same count, ${time}`;
  else note = `${pctText(l.deltaCountPct, l.pr.count)} count, ${time}`;
  const ranks =
    r !== null && r.disagreeingRanks.length > 0
      ? `; ranks differ (${listed(
          r.disagreeingRanks.map((x) => code(x.rank)),
          6,
        )})`
      : '';
  const perRank = r === null ? [] : r.unevenSteps.map(stepsNote);
  const steps = perRank.length > 0 ? `; steps differ (${perRank.slice(0, 4).join('; ')}${perRank.length > 4 ? '; …' : ''})` : '';
  return `${note}${ranks}${steps}`;
}

/** `rank 1: 52, 53` */
function stepsNote(u: UnevenSteps): string {
  const ids = listed(
    u.steps.map((c) => String(c.step)),
    6,
  );
  return u.rank === '-' ? ids : `rank ${code(u.rank)}: ${ids}`;
}

/**
 * The first line of every Markdown diff: an HTML comment (not shown where the Markdown is rendered) by which a CI
 * job finds its earlier pull request comment to update it. Never changes; no input text can start a line.
 */
export const DIFF_MARKDOWN_MARKER = '<!-- kprof:diff -->';

/** GitHub's limit on a comment: a Markdown diff never exceeds it, whatever the number of groups. */
export { MARKDOWN_LIMIT };

/** Rows in the Markdown diff's table; the rows after them are folded into a `<details>` table below it. */
export const MARKDOWN_TABLE_ROWS = 50;

/** Room kept for the lines that say what was left out, the `<details>` markup and the titles. */
const MARKDOWN_RESERVE = 2_000;

/** The lines of a list that fit in `budget` characters (each with its line break), then how many were left out. */
function fitted(lines: string[], budget: number, more: (n: number) => string): { lines: string[]; used: number } {
  const out: string[] = [];
  let used = 0;
  for (const l of lines) {
    if (used + l.length + 1 > budget) break;
    out.push(l);
    used += l.length + 1;
  }
  if (out.length < lines.length) out.push(more(lines.length - out.length));
  return { lines: out, used };
}

/**
 * The Markdown diff, under MARKDOWN_LIMIT characters: its table holds the first MARKDOWN_TABLE_ROWS rows and
 * one row that sums the others, which follow in a folded `<details>` table; rows that do not fit there either
 * are summed in an `and K more groups` row (all of them are in --format json and html). The lists of groups that
 * changed differently end with `and K more` when they do not fit. What is shown always adds up to the totals.
 */
export function diffMarkdown(d: Diff, view: DiffView): string {
  const v = viewDiff(d, view);
  const ps = perStep(d) ? ' per step' : '';
  const head = [groupHeading(d.groupBy, d.rows), `base${ps}`, `PR${ps}`, 'Δ', 'note'];
  const align: Align[] = ['left', 'right', 'right', 'right', 'left'];
  const line = markdownRow;
  // The first rows' names kept apart (clippedApart): those are the ones the table shows.
  const names = new Map(
    clippedApart(
      v.rows.slice(0, MARKDOWN_TABLE_ROWS).map((r) => rowLine(d, r).label),
      CELL_WIDTH,
    ).map((n, i) => [v.rows[i]!, n]),
  );
  const rowCells = (r: DiffRow): string[] => {
    const l = rowLine(d, r);
    const exact = mdExact(l);
    const name = names.get(r);
    return [
      name === undefined ? code(l.label) : mdCodeOf(name),
      mdSide(l.base, exact),
      mdSide(l.pr, exact),
      mdDelta(l, exact),
      mdNote(l, r.status, r),
    ];
  };
  const sumCells = (o: DiffOthers, text: string): string[] => {
    const l = { ...othersLine(o), label: text };
    return [l.label, mdSide(l.base), mdSide(l.pr), mdDelta(l), ''];
  };
  const tableHead = markdownTable(head, [], align);
  const t: Line = { ...d.totals, label: 'total', status: '' };
  const totalLine = line([
    '**total**',
    `**${mdSide(t.base, true)}**`,
    `**${mdSide(t.pr, true)}**`,
    `**${mdDelta(t, true)}**`,
    mdNote(t, 'total', null),
  ]);
  const othersText = v.others ? line(sumCells(v.others, othersLine(v.others).label)) : null;

  const [first, second] = headlineLines(d, code);
  const top: string[] = [DIFF_MARKDOWN_MARKER, `**Kernel diff:** ${first}`, '', `${second}`, ''];
  for (const w of reportWarnings(d, code)) top.push(`> **Warning:** ${w}`, '');
  const compared = comparedLine(d, code, true);
  const rewrites = d.rewrites === undefined ? [] : [...rewritesMarkdown(labelled(d, d.rewrites), code), ''];
  const note = timeFallbackNote(d);
  const stepTime = d.stepTime ? blockMarkdown(diffStepTimeBlock(d.stepTime, code)) : null;
  const fixed =
    top.join('\n').length +
    tableHead.length +
    totalLine.length +
    (othersText?.length ?? 0) +
    compared.length +
    rewrites.join('\n').length +
    (note?.length ?? 0) +
    (stepTime?.length ?? 0) +
    18;
  let budget = MARKDOWN_LIMIT - MARKDOWN_RESERVE - fixed;

  // The table: the first rows, as many as fit in half of what is left.
  const rowLines: string[] = [];
  let used = 0;
  for (const r of v.rows) {
    if (rowLines.length === MARKDOWN_TABLE_ROWS) break;
    const l = line(rowCells(r));
    if (used + l.length + 1 > budget / 2) break;
    rowLines.push(l);
    used += l.length + 1;
  }
  budget -= used;
  const folded = v.rows.slice(rowLines.length);

  const lists: string[] = [];
  const list = (title: string, items: string[]): void => {
    if (items.length === 0) return;
    // A list of the first groups ends with how many more groups it left out (`and 180 more groups (…)`): that
    // line is no line of the list, and ends the count of those cut here (`and 160 more lines; and 180 more groups`).
    const last = items[items.length - 1]!;
    const tail = last.startsWith('and ') ? last : null;
    const own = tail === null ? items : items.slice(0, -1);
    const f = fitted(
      own.map((l) => `- ${l}`),
      budget - title.length - 8 - (tail?.length ?? 0),
      (n) => `- and ${plural(n, 'more line')}${tail === null ? ' (all of them in --format json)' : `; ${tail}`}`,
    );
    if (tail !== null && f.lines.length === own.length) f.lines.push(`- ${tail}`);
    budget -= f.used + title.length + 8 + (tail?.length ?? 0);
    lists.push(`**${title}**`, '', ...f.lines, '');
  };
  list(disagreeTitle(d), disagreementLines(d, code));
  list(UNEVEN_TITLE, unevenStepLines(d, code));

  // The folded rows that fit below the table; when none does, the table's row of them says where they are, and no
  // `<details>` is written (one that opened on no group but the same sum again).
  const body: string[] = [];
  for (const r of folded) {
    const l = line(rowCells(r));
    if (l.length + 1 > budget) break;
    body.push(l);
    budget -= l.length + 1;
  }
  const out = [...top, tableHead];
  for (const l of rowLines) out.push(l);
  if (folded.length > 0) {
    const where = body.length > 0 ? ', in the table below)' : ': all of them in --format json or html)';
    out.push(line(sumCells(foldRows(d, folded, view.sides), `(${plural(folded.length, 'more group')}${where}`)));
  }
  if (othersText !== null) out.push(othersText);
  out.push(totalLine, '');
  if (body.length > 0) {
    const rest = folded.slice(body.length);
    if (rest.length > 0)
      body.push(line(sumCells(foldRows(d, rest, view.sides), `(and ${plural(rest.length, 'more group')}: all of them in --format json or html)`)));
    out.push(`<details><summary>${plural(folded.length, 'more group')}</summary>`, '', tableHead);
    for (const l of body) out.push(l);
    out.push('', '</details>', '');
  }
  for (const l of lists) out.push(l);
  for (const l of rewrites) out.push(l);
  if (note !== null) out.push(note, '');
  if (stepTime !== null) out.push(stepTime);
  out.push(compared);
  return `${out.join('\n')}\n`;
}
