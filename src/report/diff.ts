// `kprof diff` in every output format. Pure: Diff (+ view) in, string out.

import { isAbsolute, relative, sep } from 'node:path';
import type { OutputFormat } from './choices.js';
import {
  headline,
  viewDiff,
  type Diff,
  type DiffFigures,
  type DiffOthers,
  type DiffRow,
  type DiffSideInfo,
  type DiffView,
  type RankDisagreement,
  type Side,
  type StepChange,
  type UnevenSteps,
} from '../analysis/diff.js';
import { relPath } from '../util/paths.js';
import {
  SCHEMA_VERSION,
  type DiffCellJson,
  type DiffInputJson,
  type DiffJson,
  type DiffRowJson,
} from '../model/schema.js';
import { fmtCount, fmtSignedCount, fmtSignedPct, fmtSignedUs, fmtUs, fmtUsShort, stepCountsText } from '../util/format.js';
import { arrays, jsonChunks, lazyLists, mapped, type ListOf } from './json.js';
import { WHOLE, clipped, mdCode, mdCell, csvLines, jsonSafe, markdownTable, paint, textTable, type Align, type RenderContext, type Paint } from './render.js';
import { groupHeading } from './summary.js';

/** The label of a row: its key, or a placeholder when the source had no value. */
function label(r: DiffRow): string {
  return r.key === '' ? '(empty)' : r.key;
}

/** A percentage change; against a zero base it is `new` (or `-` when both are zero), never a number. */
export function pctText(p: number | null, pr: number): string {
  if (p !== null) return fmtSignedPct(p);
  return pr > 0 ? 'new' : '-';
}

export function timePctText(p: number | null, pr: number, noise: boolean): string {
  return noise ? '~' : pctText(p, pr);
}

/** A compact signed duration for PR tables: "+674 µs", "-1.20 ms", "0 µs". */
function signedShort(us: number): string {
  const s = fmtUsShort(Math.abs(us));
  if (s === fmtUsShort(0)) return s;
  return us > 0 ? `+${s}` : `-${s}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${fmtCount(n)} ${n === 1 ? one : many}`;
}

function perStep(d: Diff): boolean {
  return d.normalization === 'per-step';
}

// ---------------------------------------------------------------------------------------------------------
// Sentences shared by the text formats. Text from input goes through `code`: clipped() for the terminal, a code
// span for Markdown.

/** The fusion story in two lines: what appeared, went away or was cut; then the net change. */
export function headlineLines(d: Diff, code: (s: string, max?: number) => string = clipped): string[] {
  const h = headline(d);
  const items: string[] = [
    ...h.added.map((r) => `${code(label(r))} appears (${fmtSignedCount(r.deltaCount)})`),
    ...h.removed.map((r) => `${code(label(r))} removed (${fmtSignedCount(r.deltaCount)})`),
    ...[...h.fewer, ...h.more].map((r) => `${code(label(r))} ${pctText(r.deltaCountPct, r.pr.count)} (${fmtCount(r.base.count)} → ${fmtCount(r.pr.count)})`),
  ];
  if (h.unnamed > 0) items.push(`${plural(h.unnamed, 'more changed group')}`);
  const first = items.length > 0 ? `${items.join(', ')}.` : 'No group changed its kernel count.';
  const t = d.totals;
  const what = perStep(d) ? ['Kernels per step', 'kernel time per step'] : ['Total kernels', 'kernel time'];
  const timeChange = t.timeNoise ? `${pctText(t.deltaUsPct, t.pr.us)}, within ±${d.timeTolerancePct}%` : pctText(t.deltaUsPct, t.pr.us);
  const second =
    `${what[0]} ${fmtCount(t.base.count)} → ${fmtCount(t.pr.count)} (${pctText(t.deltaCountPct, t.pr.count)}); ` +
    `${what[1]} ${fmtUs(t.base.us)} → ${fmtUs(t.pr.us)} (${timeChange}).`;
  return [first, second];
}

/** Each rank's own steps (never the distinct Step Ids across ranks, which offset or lost steps inflate). */
function stepsText(s: DiffSideInfo, code: (s: string) => string): string {
  return s.steps === null ? 'no Step Id' : stepCountsText(s.rankSteps, code);
}

/** Step Ids in short: `1-4`, `2, 4-6`. */
function idsText(ids: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < ids.length; ) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j]! + 1) j++;
    parts.push(j > i ? `${ids[i]}-${ids[j]}` : String(ids[i]));
    i = j + 1;
  }
  return listed(parts, 6);
}

/** Warnings that belong in the report itself (and on stderr): unequal steps, ranks on one side only. */
export function reportWarnings(d: Diff, code: (s: string, max?: number) => string = clipped): string[] {
  const out: string[] = [];
  if (d.stepMismatch) {
    const ranks = d.stepMismatchRanks;
    // Per rank, unless every rank shows the same difference as the sides do (each side's ranks alike).
    const alike = (x: DiffSideInfo): number | null => (x.rankSteps.every((r) => r.steps === x.rankSteps[0]?.steps) ? (x.rankSteps[0]?.steps ?? null) : null);
    const sides = ranks.length === d.pairedRanks.length && ranks.every((r) => r.base === alike(d.base) && r.pr === alike(d.pr));
    const byRank = ranks.length > 0 && !sides ? ` (${listed(ranks.map((r) => `rank ${code(r.rank)}: ${fmtCount(r.base)} → ${fmtCount(r.pr)}`), 6)})` : '';
    out.push(
      `Step counts differ: the base has ${stepsText(d.base, code)}, the PR has ${stepsText(d.pr, code)}${byRank}. Raw counts compare ` +
        `different amounts of work; ${d.base.steps !== null && d.pr.steps !== null ? 'rerun with --per-step.' : 'compare runs profiled alike.'}`,
    );
  }
  const ws = d.withoutStep;
  if (ws.base > 0 || ws.pr > 0) {
    out.push(
      `Kernels with an empty Step Id are in no step, so not in the figures per step: ${plural(ws.base, 'kernel')} of the base, ` +
        `${plural(ws.pr, 'kernel')} of the PR (they are in the inputs' totals).`,
    );
  }
  const us = d.unpairedSteps;
  if (us.length > 0) {
    const ranks = us.slice(0, 4).map((x) => {
      const names = listed(x.varying.map((k) => code(k === '' ? '(empty)' : k)), 4);
      return `${x.rank === '-' ? 'the rank' : `rank ${code(x.rank)}`} (base steps ${idsText(x.base)}, PR steps ${idsText(x.pr)}: ${names})`;
    });
    const notCompared = us.reduce((n, x) => n + x.notCompared.length, 0);
    out.push(
      `Step Ids differ where groups run a different number of times from step to step: ${ranks.join('; ')}` +
        `${us.length > 4 ? `; and ${plural(us.length - 4, 'more rank')}` : ''}. Their figures depend on which steps each side profiled, ` +
        `and their steps are compared one by one under the same Step Id only` +
        `${notCompared > 0 ? ` (PR steps without one are not compared: ${plural(notCompared, 'group')} on ${plural(us.filter((x) => x.notCompared.length > 0).length, 'rank')})` : ''}.`,
    );
  }
  const u = d.unpairedRanks;
  if (u.base.length > 0 || u.pr.length > 0) {
    const list = (r: string[]): string => (r.length > 0 ? r.map((x) => code(x)).join(', ') : 'none');
    out.push(
      `Ranks on one side only: base ${list(u.base)}; PR ${list(u.pr)}. Their kernels are in the counts, but they ` +
        `were not checked for a change that differs between ranks.`,
    );
  }
  return out;
}

function disagreeing(d: Diff): DiffRow[] {
  return d.rows.filter((r) => r.disagreeingRanks.length > 0);
}

function uneven(d: Diff): DiffRow[] {
  return d.rows.filter((r) => r.unevenSteps.length > 0);
}

/** The first `max` items, then `…`. */
function listed(items: string[], max: number): string {
  return items.length > max ? `${items.slice(0, max).join(', ')}, …` : items.join(', ');
}

/** A rank's change in words: `removed (-4)`, `same`, `-112 per step (-50.0%)`. */
function changeText(x: RankDisagreement, ps: string): string {
  if (x.status === 'added' || x.status === 'removed') return `${x.status} (${fmtSignedCount(x.deltaCount)}${ps})`;
  if (x.status === 'same') return 'same';
  return `${fmtSignedCount(x.deltaCount)}${ps} (${pctText(x.deltaCountPct, x.pr)})`;
}

/** The change most ranks show: its factor, which ranks of different sizes share (`-50.0%`). */
function majorityText(x: RankDisagreement): string {
  if (x.status === 'fewer' || x.status === 'more') return pctText(x.deltaCountPct, x.pr);
  return x.status;
}

/** One line per row whose change is not the same on every rank: in status or in size. */
export function disagreementLines(d: Diff, code: (s: string, max?: number) => string = clipped): string[] {
  const ps = perStep(d) || d.ranksPerStep ? ' per step' : '';
  return disagreeing(d).map((r) => {
    const m = r.rankMajority;
    const most = m !== null ? `${majorityText(m.change)} on ${m.ranks} of ${r.ranksCompared} ranks` : 'ranks differ';
    const ranks = r.disagreeingRanks.map((x) => `rank ${code(x.rank)} ${changeText(x, ps)}: ${fmtCount(x.base)} → ${fmtCount(x.pr)}`).join(', ');
    return `${code(label(r))}: ${most}; ${ranks}`;
  });
}

/** Steps that show the same change, in words: `-56 in 2 of 4 steps (52, 53: 224 → 168)`. */
function stepGroupText(changes: StepChange[], of: number): string {
  const ids = listed(changes.map((c) => String(c.step)), 8);
  const first = changes[0]!;
  const alike = changes.every((c) => c.base === first.base && c.pr === first.pr);
  const figures = alike ? `: ${fmtCount(first.base)} → ${fmtCount(first.pr)}` : '';
  const what = changes.length === 1 ? `step ${ids}${figures}` : `${changes.length} of ${of} steps (${ids}${figures})`;
  return `${fmtSignedCount(first.deltaCount)} in ${what}`;
}

function unevenText(u: UnevenSteps, code: (s: string) => string): string {
  const groups = new Map<number, StepChange[]>();
  for (const c of u.steps) groups.set(c.deltaCount, [...(groups.get(c.deltaCount) ?? []), c]);
  const parts = [...groups.values()].map((g) => stepGroupText(g, u.stepsCompared));
  if (u.reference !== null) parts.unshift(`${fmtSignedCount(u.reference.deltaCount)} in ${u.reference.steps} of ${u.stepsCompared} steps`);
  return `${u.rank === '-' ? 'steps differ' : `rank ${code(u.rank)} steps differ`}: ${parts.join('; ')}`;
}

/** How many groups the text formats list under "Changed differently across steps"; JSON has them all. */
const MAX_UNEVEN_GROUPS = 20;

/**
 * One line per row and rank whose change is not the same in every step (counts of each step, PR vs base), for
 * the first groups in row order; then how many more there are.
 */
export function unevenStepLines(d: Diff, code: (s: string) => string = clipped): string[] {
  const rows = uneven(d);
  const lines = rows.slice(0, MAX_UNEVEN_GROUPS).flatMap((r) => {
    const shown = r.unevenSteps.slice(0, 8).map((u) => `${code(label(r))}: ${unevenText(u, code)}`);
    const more = r.unevenSteps.length - shown.length;
    return more > 0 ? [...shown, `${code(label(r))}: and ${plural(more, 'more rank')}`] : shown;
  });
  const more = rows.length - MAX_UNEVEN_GROUPS;
  return more > 0 ? [...lines, `and ${plural(more, 'more group')} (all of them in --format json)`] : lines;
}

const DISAGREE_TITLE = 'Changed differently across ranks (a change that did not take effect on every rank, or not by as much):';
/** The ranks' title; raw counts with ranks compared per step say why. */
function disagreeTitle(d: Diff): string {
  return d.ranksPerStep && !perStep(d) ? DISAGREE_TITLE.replace(/:$/, '; each rank per step, as step counts differ:') : DISAGREE_TITLE;
}
const UNEVEN_TITLE = 'Changed differently across steps (count of each step against the base; a change that did not take effect in every step):';

/** Paths as shown: relative to the input folder when inside it, else relative to the working directory. */
function fileNames(s: DiffSideInfo): string[] {
  return s.files.map((f) => {
    const r = relative(s.input, f);
    return r !== '' && !r.startsWith('..') && !isAbsolute(r) ? r.split(sep).join('/') : relPath(f);
  });
}

function sideText(s: DiffSideInfo, code: (s: string, max?: number) => string, listFiles: boolean): string {
  const files = fileNames(s);
  const fileText = listFiles && files.length > 0 && files.length <= 4 ? files.map((f) => code(f, WHOLE)).join(', ') : plural(files.length, 'file');
  const ranks = s.ranks.length === 1 ? `rank ${code(s.ranks[0]!)}` : `ranks ${s.ranks.map((x) => code(x)).join(', ')}`;
  const skipped = s.skippedRows > 0 ? `; ${plural(s.skippedRows, 'row')} skipped` : '';
  return `${code(relPath(s.input), WHOLE)} (${fileText}; ${ranks}; ${stepsText(s, code)}${skipped})`;
}

/** Which inputs, files, ranks, steps, grouping and normalisation were compared. */
export function comparedLine(d: Diff, code: (s: string, max?: number) => string = clipped, listFiles = false): string {
  const norm = perStep(d)
    ? 'counts and times per step (each rank divided by its own number of steps, ranks added up)'
    : 'counts and times summed over all steps and ranks (not normalised)';
  const sel = d.selection ? ` (${d.selection.split('; ').map((x) => code(x, WHOLE)).join(', ')})` : '';
  return (
    `Compared base ${sideText(d.base, code, listFiles)} with PR ${sideText(d.pr, code, listFiles)}. ` +
    `Grouped by ${d.groupBy}${sel}; ${norm}; time changes within ±${d.timeTolerancePct}% shown as ~.`
  );
}

/** The stderr warnings of a diff (the report carries the same facts). */
export function diffWarnings(d: Diff): string {
  const lines = reportWarnings(d).map((w) => `kprof: warning: ${w}`);
  const dis = disagreeing(d);
  if (dis.length > 0) {
    const names = dis.slice(0, 5).map((r) => clipped(label(r))).join(', ');
    lines.push(
      `kprof: warning: ${plural(dis.length, 'group')} changed differently across ranks (${names}${dis.length > 5 ? ', …' : ''}); see the report.`,
    );
  }
  const un = uneven(d);
  if (un.length > 0) {
    const names = un.slice(0, 5).map((r) => clipped(label(r))).join(', ');
    lines.push(
      `kprof: warning: ${plural(un.length, 'group')} changed differently across steps (${names}${un.length > 5 ? ', …' : ''}); see the report.`,
    );
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

// ---------------------------------------------------------------------------------------------------------
// Terminal table.

const STATUS_PAINT = {
  removed: 'green',
  fewer: 'green',
  added: 'yellow',
  more: 'yellow',
  same: 'dim',
} as const satisfies Record<DiffRow['status'], Paint>;

function timePaint(ctx: RenderContext, text: string, delta: number, noise: boolean): string {
  if (noise || delta === 0) return text;
  return paint(ctx, delta < 0 ? 'green' : 'red', text);
}

/** A printed row: a group, the folded others, or the totals. */
interface Line extends DiffFigures {
  label: string;
  status: string;
}

function othersLine(o: DiffOthers, tol: number): Line {
  const deltaUsPct = o.base.us === 0 ? null : (100 * o.deltaUs) / o.base.us;
  return {
    label: `(${plural(o.groups, 'more group')})`,
    base: o.base,
    pr: o.pr,
    deltaCount: o.deltaCount,
    deltaCountPct: o.base.count === 0 ? null : (100 * o.deltaCount) / o.base.count,
    deltaUs: o.deltaUs,
    deltaUsPct,
    timeNoise: o.base.us > 0 && o.pr.us > 0 && deltaUsPct !== null && Math.abs(deltaUsPct) <= tol,
    status: '',
  };
}

function rowLine(r: DiffRow): Line {
  return { ...r, label: label(r), status: differs(r) ? `${r.status}*` : r.status };
}

/** The row's change was not the same on every rank or in every step. */
function differs(r: DiffRow): boolean {
  return r.disagreeingRanks.length > 0 || r.unevenSteps.length > 0;
}

export function diffTable(d: Diff, view: DiffView, ctx: RenderContext): string {
  const v = viewDiff(d, view);
  const ps = perStep(d) ? ' /step' : '';
  const head = [groupHeading(d.groupBy, d.rows), `base${ps}`, `PR${ps}`, 'Δ', 'Δ%', `base time${ps}`, `PR time${ps}`, 'Δ time', 'Δ% time', 'status'];
  const align: Align[] = ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'];
  const cells = (l: Line, others: boolean): string[] => [
    others ? paint(ctx, 'dim', l.label) : clipped(l.label),
    fmtCount(l.base.count),
    fmtCount(l.pr.count),
    fmtSignedCount(l.deltaCount),
    pctText(l.deltaCountPct, l.pr.count),
    fmtUs(l.base.us),
    fmtUs(l.pr.us),
    fmtSignedUs(l.deltaUs),
    timePaint(ctx, timePctText(l.deltaUsPct, l.pr.us, l.timeNoise), l.deltaUs, l.timeNoise),
    l.status === '' ? '' : paint(ctx, STATUS_PAINT[l.status.replace('*', '') as DiffRow['status']], l.status),
  ];
  const body = v.rows.map((r) => cells(rowLine(r), false));
  if (v.others) body.push(cells(othersLine(v.others, d.timeTolerancePct), true));
  const t = d.totals;
  const footer = cells({ ...t, label: 'total', status: '' }, false);
  const out: string[] = [...headlineLines(d).map((l, i) => (i === 0 ? paint(ctx, 'bold', l) : l)), ''];
  const warnings = reportWarnings(d);
  if (warnings.length > 0) {
    for (const w of warnings) out.push(paint(ctx, 'yellow', `Warning: ${w}`));
    out.push('');
  }
  out.push(textTable(ctx, head, body, align, footer), '');
  const dis = disagreementLines(d);
  // Loops, not push(...dis): one line per row that ranks disagree on would overflow the stack at ~125k.
  if (dis.length > 0) {
    out.push(paint(ctx, 'yellow', `* ${disagreeTitle(d)}`));
    for (const l of dis) out.push(`  ${l}`);
    out.push('');
  }
  const un = unevenStepLines(d);
  if (un.length > 0) {
    out.push(paint(ctx, 'yellow', `* ${UNEVEN_TITLE}`));
    for (const l of un) out.push(`  ${l}`);
    out.push('');
  }
  out.push(comparedLine(d));
  return `${out.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------------
// Markdown, ready to paste into a pull request.

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
  const ranks = r !== null && r.disagreeingRanks.length > 0 ? `; ranks differ (${listed(r.disagreeingRanks.map((x) => code(x.rank)), 6)})` : '';
  const perRank = r === null ? [] : r.unevenSteps.map(stepsNote);
  const steps = perRank.length > 0 ? `; steps differ (${perRank.slice(0, 4).join('; ')}${perRank.length > 4 ? '; …' : ''})` : '';
  return `${note}${ranks}${steps}`;
}

/** `rank 1: 52, 53` */
function stepsNote(u: UnevenSteps): string {
  const ids = listed(u.steps.map((c) => String(c.step)), 6);
  return u.rank === '-' ? ids : `rank ${code(u.rank)}: ${ids}`;
}

/**
 * The first line of every Markdown diff: an HTML comment (not shown where the Markdown is rendered) by which a CI
 * job finds its earlier pull request comment to update it. Never changes; no input text can start a line.
 */
export const DIFF_MARKDOWN_MARKER = '<!-- kprof:diff -->';

/**
 * GitHub's limit on a comment (and on a pull request's description), in characters: a Markdown diff never
 * exceeds it, whatever the number of groups. Measured in UTF-16 code units, never fewer than characters.
 */
export const MARKDOWN_LIMIT = 65_536;

/** Rows in the Markdown diff's table; the rows after them are folded into a `<details>` table below it. */
export const MARKDOWN_TABLE_ROWS = 50;

/** Room kept for the lines that say what was left out, the `<details>` markup and the titles. */
const MARKDOWN_RESERVE = 2_000;

/** Rows summed into one: the figures of a `(K more groups)` row. */
function summed(rows: DiffRow[]): DiffOthers {
  const o: DiffOthers = { groups: rows.length, base: { count: 0, us: 0 }, pr: { count: 0, us: 0 }, deltaCount: 0, deltaUs: 0 };
  for (const r of rows) {
    o.base.count += r.base.count;
    o.base.us += r.base.us;
    o.pr.count += r.pr.count;
    o.pr.us += r.pr.us;
  }
  o.deltaCount = o.pr.count - o.base.count;
  o.deltaUs = o.pr.us - o.base.us;
  return o;
}

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
  const line = (cells: string[]): string => `| ${cells.map(mdCell).join(' | ')} |`;
  const rowCells = (r: DiffRow): string[] => {
    const l = rowLine(r);
    const exact = mdExact(l);
    return [code(l.label), mdSide(l.base, exact), mdSide(l.pr, exact), mdDelta(l, exact), mdNote(l, r.status, r)];
  };
  const sumCells = (o: DiffOthers, text: string): string[] => {
    const l = { ...othersLine(o, d.timeTolerancePct), label: text };
    return [l.label, mdSide(l.base), mdSide(l.pr), mdDelta(l), ''];
  };
  const tableHead = markdownTable(head, [], align);
  const t: Line = { ...d.totals, label: 'total', status: '' };
  const totalLine = line(['**total**', `**${mdSide(t.base, true)}**`, `**${mdSide(t.pr, true)}**`, `**${mdDelta(t, true)}**`, mdNote(t, 'total', null)]);
  const othersText = v.others ? line(sumCells(v.others, othersLine(v.others, d.timeTolerancePct).label)) : null;

  const [first, second] = headlineLines(d, code);
  const top: string[] = [DIFF_MARKDOWN_MARKER, `**Kernel diff:** ${first}`, '', `${second}`, ''];
  for (const w of reportWarnings(d, code)) top.push(`> **Warning:** ${w}`, '');
  const compared = comparedLine(d, code, true);
  const fixed = top.join('\n').length + tableHead.length + totalLine.length + (othersText?.length ?? 0) + compared.length + 16;
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
    const f = fitted(items.map((l) => `- ${l}`), budget - title.length - 8, (n) => `- and ${plural(n, 'more line')} (all of them in --format json)`);
    budget -= f.used + title.length + 8;
    lists.push(`**${title}**`, '', ...f.lines, '');
  };
  list(disagreeTitle(d), disagreementLines(d, code));
  list(UNEVEN_TITLE, unevenStepLines(d, code));

  const out = [...top, tableHead];
  for (const l of rowLines) out.push(l);
  if (folded.length > 0) out.push(line(sumCells(summed(folded), `(${plural(folded.length, 'more group')}, in the table below)`)));
  if (othersText !== null) out.push(othersText);
  out.push(totalLine, '');
  if (folded.length > 0) {
    const body: string[] = [];
    for (const r of folded) {
      const l = line(rowCells(r));
      if (l.length + 1 > budget) break;
      body.push(l);
      budget -= l.length + 1;
    }
    const rest = folded.slice(body.length);
    if (rest.length > 0) body.push(line(sumCells(summed(rest), `(and ${plural(rest.length, 'more group')}: all of them in --format json or html)`)));
    out.push(`<details><summary>${plural(folded.length, 'more group')}</summary>`, '', tableHead);
    for (const l of body) out.push(l);
    out.push('', '</details>', '');
  }
  for (const l of lists) out.push(l);
  out.push(compared);
  return `${out.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------------
// JSON and CSV: numbers rounded to 4 decimals (0.1 ns for times), percentages null against a zero base.

function round4(x: number): number {
  const r = Math.round(x * 10_000) / 10_000;
  return r === 0 ? 0 : r; // no -0 in the output
}

function round4OrNull(x: number | null): number | null {
  return x === null ? null : round4(x);
}

function cellJson(s: Side): DiffCellJson {
  return { count: round4(s.count), totalUs: round4(s.us) };
}

function inputJson(s: DiffSideInfo): DiffInputJson {
  return {
    input: relPath(s.input),
    files: s.files.map(relPath),
    ranks: s.ranks,
    steps: s.steps,
    skippedRows: s.skippedRows,
    totals: { count: s.count, totalUs: round4(s.us) },
  };
}

function rowJson(r: DiffRow): DiffRowJson {
  return {
    key: r.key,
    ...(r.type !== undefined ? { type: r.type } : {}),
    ...(r.name !== undefined ? { name: r.name } : {}),
    ...(r.core !== undefined ? { core: r.core } : {}),
    ...(r.shapes !== undefined ? { shapes: r.shapes } : {}),
    ...(r.userGroup !== undefined ? { userGroup: r.userGroup } : {}),
    status: r.status,
    base: cellJson(r.base),
    pr: cellJson(r.pr),
    deltaCount: round4(r.deltaCount),
    deltaCountPct: round4OrNull(r.deltaCountPct),
    deltaUs: round4(r.deltaUs),
    deltaUsPct: round4OrNull(r.deltaUsPct),
    timeWithinTolerance: r.timeNoise,
    rankStatus: r.rankStatus,
    disagreeingRanks: r.disagreeingRanks.map((x) => ({
      rank: x.rank,
      status: x.status,
      base: round4(x.base),
      pr: round4(x.pr),
      deltaCount: round4(x.deltaCount),
      deltaCountPct: round4OrNull(x.deltaCountPct),
    })),
    unevenSteps: r.unevenSteps.map((u) => ({
      rank: u.rank,
      stepsCompared: u.stepsCompared,
      reference: u.reference === null ? null : { deltaCount: round4(u.reference.deltaCount), steps: u.reference.steps },
      steps: u.steps.map((c) => ({ step: c.step, baseStep: c.baseStep, base: round4(c.base), pr: round4(c.pr), deltaCount: round4(c.deltaCount) })),
    })),
  };
}

/** Rows a view folds into `others` whose change differs across ranks or steps, in the default order. */
function foldedDiffering(d: Diff, shown: DiffRow[]): DiffRow[] {
  const kept = new Set(shown);
  return d.rows.filter((r) => !kept.has(r) && differs(r));
}

/** The declared diff schema (see schema.ts). Rows follow --sort/--only/--top; what they leave out is `others`. */
export function diffJsonObject(d: Diff, view: DiffView): DiffJson {
  return diffJsonWith(d, view, arrays);
}

/** The diff's JSON, its rows made by `list` (see ListOf). */
function diffJsonWith(d: Diff, view: DiffView, list: ListOf): DiffJson {
  const v = viewDiff(d, view);
  const t = d.totals;
  return {
    schemaVersion: SCHEMA_VERSION,
    kind: 'diff',
    groupBy: d.groupBy,
    selection: d.selection,
    normalization: d.normalization,
    timeTolerancePct: d.timeTolerancePct,
    base: inputJson(d.base),
    pr: inputJson(d.pr),
    stepMismatch: d.stepMismatch,
    ranksComparedPerStep: d.ranksPerStep,
    pairedRanks: d.pairedRanks,
    unpairedRanks: d.unpairedRanks,
    totals: {
      base: cellJson(t.base),
      pr: cellJson(t.pr),
      deltaCount: round4(t.deltaCount),
      deltaCountPct: round4OrNull(t.deltaCountPct),
      deltaUs: round4(t.deltaUs),
      deltaUsPct: round4OrNull(t.deltaUsPct),
      timeWithinTolerance: t.timeNoise,
    },
    rows: list(mapped(v.rows, rowJson)),
    others: v.others
      ? {
          groups: v.others.groups,
          base: cellJson(v.others.base),
          pr: cellJson(v.others.pr),
          deltaCount: round4(v.others.deltaCount),
          deltaUs: round4(v.others.deltaUs),
          changedDifferently: list(mapped(foldedDiffering(d, v.rows), rowJson)),
        }
      : null,
  };
}

/** The JSON report, in chunks: each row is made as it is written (see json.ts). */
export function diffJson(d: Diff, view: DiffView): Iterable<string> {
  return mapped(jsonChunks(diffJsonWith(d, view, lazyLists)), jsonSafe);
}

const ranksCell = (r: DiffRowJson): string => r.disagreeingRanks.map((x) => `${x.rank}:${x.status}`).join(' ');
const stepsCell = (r: DiffRowJson): string => r.unevenSteps.map((u) => `${u.rank}:${u.steps.map((c) => c.step).join(',')}`).join(' ');

/** CSV: one line per shown row, then an `others` line when rows were left out, then the `total` line. */
export function diffCsv(d: Diff, view: DiffView): string {
  const j = diffJsonObject(d, view);
  const head = [
    'key', 'type', 'name', 'core', 'shapes', 'userGroup', 'status', 'baseCount', 'prCount', 'deltaCount', 'deltaCountPct',
    'baseUs', 'prUs', 'deltaUs', 'deltaUsPct', 'timeWithinTolerance', 'rankStatus', 'disagreeingRanks', 'unevenSteps',
  ];
  const body: (string | number | boolean | null | undefined)[][] = j.rows.map((r) => [
    r.key, r.type, r.name, r.core, r.shapes, r.userGroup, r.status, r.base.count, r.pr.count, r.deltaCount, r.deltaCountPct,
    r.base.totalUs, r.pr.totalUs, r.deltaUs, r.deltaUsPct, r.timeWithinTolerance, r.rankStatus,
    ranksCell(r),
    stepsCell(r),
  ]);
  if (j.others) {
    const o = j.others;
    // The folded rows whose change differs across ranks or steps keep their detail, by key: `A=0:fewer 1:more | B=…`.
    const detail = (f: (r: DiffRowJson) => string): string | null => {
      const parts = o.changedDifferently.map((r) => [r.key, f(r)] as const).filter(([, x]) => x !== '');
      return parts.length > 0 ? parts.map(([k, x]) => `${k}=${x}`).join(' | ') : null;
    };
    body.push([
      `(${plural(o.groups, 'more group')})`, null, null, null, null, null, 'others', o.base.count, o.pr.count, o.deltaCount, null, o.base.totalUs, o.pr.totalUs, o.deltaUs, null, null, null,
      detail(ranksCell), detail(stepsCell),
    ]);
  }
  const t = j.totals;
  body.push(['(total)', null, null, null, null, null, 'total', t.base.count, t.pr.count, t.deltaCount, t.deltaCountPct, t.base.totalUs, t.pr.totalUs, t.deltaUs, t.deltaUsPct, t.timeWithinTolerance, null, null, null]);
  return csvLines(head, body);
}

/** The diff reporters by output format (the same formats as summary's). */
export const DIFF_REPORTERS = {
  table: diffTable,
  markdown: (d: Diff, view: DiffView) => diffMarkdown(d, view),
  json: (d: Diff, view: DiffView) => diffJson(d, view),
  csv: (d: Diff, view: DiffView) => diffCsv(d, view),
} as const satisfies Record<TextFormat, (d: Diff, view: DiffView, ctx: RenderContext) => string | Iterable<string>>;

/** The formats of these reporters; `html` is report/html/diff.ts (it reads the summaries too, and imports these). */
export type TextFormat = Exclude<OutputFormat, 'html'>;
