// `kprof summary` in every output format. Pure: Summary (+ options) in, string out.

import type { OutputFormat } from './choices.js';
import { sortGroups, summaryPerStep, type SummarySort } from '../aggregate/group.js';
import { addPerStep, emptyCell, mergeCell, perStepCount, rankPerStep, steppedCell, ZERO_PER_STEP, type Cell, type Group, type GroupBy, type GroupFields, type PerStep, type Summary } from '../model/model.js';
import { SCHEMA_VERSION, type CellJson, type SummaryGroupJson, type SummaryJson } from '../model/schema.js';
import { exactUs, fmtCount, fmtPct, fmtUs, stepCountsText, ticksToUs } from '../util/format.js';
import { arrays, jsonChunks, lazyLists, mapped, type ListOf } from './json.js';
import { WHOLE, clipped, mdCode, csvLines, jsonSafe, markdownTable, paint, textTable, type Align, type RenderContext } from './render.js';

const md = mdCode;

export interface SummaryView {
  sort: SummarySort;
  /** Show the first N groups; the rest are folded into one "others" row so totals still add up. */
  top: number | null;
  /** The JSON's "inputs" when they are not the summary's own input (kprof merge: those of the merged snapshots). */
  inputs?: readonly string[];
}

export const GROUP_HEADINGS = {
  type: 'type',
  name: 'name',
  core: 'core',
  'type+core': 'type @ core',
  'type+shapes': 'type [input shapes]',
} as const satisfies Record<GroupBy, string>;

/**
 * The heading of the key column: the grouping's name, or `group` when the rows are user-defined groups (`group /
 * type` when some rows are user groups and the others kernels that matched none and kept their own key).
 */
export function groupHeading(by: GroupBy, rows: readonly GroupFields[]): string {
  const users = rows.filter((r) => r.userGroup !== undefined).length;
  if (users === 0) return GROUP_HEADINGS[by];
  return users === rows.length ? 'group' : `group / ${GROUP_HEADINGS[by]}`;
}

interface Row {
  group: Group | null;
  label: string;
  cell: Cell;
  /** Kernels per step, as defined in model.ts ("Per step"); null without steps. */
  perStep: PerStep | null;
}

/** Kernels of a group that belong to a step. */
function stepped(g: Group): number {
  let n = 0;
  for (const c of g.steps.values()) n += c.count;
  return n;
}

function rows(s: Summary, view: SummaryView): Row[] {
  const sorted = sortGroups(s.groups, view.sort);
  const shown = view.top !== null ? sorted.slice(0, view.top) : sorted;
  const ps = summaryPerStep(s);
  const of = (g: Group): PerStep | null => (ps ? (ps.groups.get(g.key) ?? ZERO_PER_STEP) : null);
  const out: Row[] = shown.map((g) => ({ group: g, label: g.key, cell: g.total, perStep: of(g) }));
  const rest = sorted.slice(shown.length);
  if (rest.length > 0) {
    const cell = emptyCell();
    for (const g of rest) mergeCell(cell, g.total);
    const perStep = ps ? rest.reduce((n, g) => addPerStep(n, of(g)!), ZERO_PER_STEP) : null;
    out.push({ group: null, label: `(${fmtCount(rest.length)} more group${rest.length === 1 ? '' : 's'})`, cell, perStep });
  }
  return out;
}

/** Kernels per step of a row or of the totals, as shown. */
function perStepText(p: PerStep | null | undefined): string {
  return p ? fmtCount(perStepCount(p)) : '-';
}

/** The per-step column is shown when some rank has steps. */
function hasPerStep(s: Summary): boolean {
  return summaryPerStep(s) !== null;
}

/** With several ranks aggregated, a step's count is that of all of them: the heading says so. */
function perStepHeading(s: Summary): string {
  return s.ranks.length > 1 ? 'per step (all ranks)' : 'per step';
}

function totalStepped(s: Summary): number {
  return s.groups.reduce((n, g) => n + stepped(g), 0);
}

function share(s: Summary, c: Cell): number | null {
  return s.totals.ticks > 0 ? (100 * c.ticks) / s.totals.ticks : null;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${fmtCount(n)} ${n === 1 ? one : many}`;
}

/** One line that says what was counted: kernels, time, steps, ranks (shown by `q`), skipped rows. */
export function totalsLine(s: Summary, q: (text: string) => string = clipped): string {
  const parts = [
    plural(s.totals.count, 'kernel'),
    `${fmtUs(ticksToUs(s.totals.ticks))} kernel time`,
    // Each rank's own steps, never the distinct Step Ids of all ranks (offset Step Ids would double them).
    s.hasSteps ? stepCountsText(s.perRank.map((r) => ({ rank: r.rank, steps: r.steps.length })), q) : 'no steps',
    `${s.ranks.length} rank${s.ranks.length === 1 ? '' : 's'} (${s.ranks.map((x) => q(x)).join(', ')})`,
    `${fmtCount(s.skippedRows)} row${s.skippedRows === 1 ? '' : 's'} skipped`,
  ];
  if (s.filteredKernels > 0) parts.push(`${plural(s.filteredKernels, 'kernel')} filtered out`);
  const noStep = s.hasSteps ? s.totals.count - totalStepped(s) : 0;
  if (noStep > 0) parts.push(`${fmtCount(noStep)} with an empty Step Id (in the totals, not per step)`);
  return parts.join(', ');
}

export function summaryTable(s: Summary, view: SummaryView, ctx: RenderContext): string {
  const withSteps = hasPerStep(s);
  const head = [groupHeading(s.groupBy, s.groups), 'count', 'total', 'avg', 'min', 'max', 'share'];
  if (withSteps) head.push(perStepHeading(s));
  const align: Align[] = ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'];
  const body = rows(s, view).map((r) => {
    const c = r.cell;
    const line = [
      r.group ? clipped(r.label) : paint(ctx, 'dim', r.label),
      fmtCount(c.count),
      fmtUs(ticksToUs(c.ticks)),
      c.count > 0 ? fmtUs(ticksToUs(c.ticks) / c.count) : '-',
      Number.isFinite(c.minTicks) ? fmtUs(ticksToUs(c.minTicks)) : '-',
      Number.isFinite(c.maxTicks) ? fmtUs(ticksToUs(c.maxTicks)) : '-',
      fmtShare(share(s, c)),
    ];
    if (withSteps) line.push(perStepText(r.perStep));
    return line;
  });
  const t = s.totals;
  const footer = ['total', fmtCount(t.count), fmtUs(ticksToUs(t.ticks)), t.count > 0 ? fmtUs(ticksToUs(t.ticks) / t.count) : '-', '', '', t.count > 0 ? '100.0%' : '-'];
  if (withSteps) footer.push(perStepText(summaryPerStep(s)?.total));
  return `${textTable(ctx, head, body, align, footer)}\n\n${totalsLine(s)}\n`;
}

function fmtShare(p: number | null): string {
  return p === null ? '-' : fmtPct(p);
}

export function summaryMarkdown(s: Summary, view: SummaryView): string {
  const withSteps = hasPerStep(s);
  const head = [groupHeading(s.groupBy, s.groups), 'count', 'total', 'avg', 'share'];
  if (withSteps) head.push(perStepHeading(s));
  const align: Align[] = ['left', 'right', 'right', 'right', 'right', 'right'];
  const body = rows(s, view).map((r) => {
    const c = r.cell;
    const line = [
      r.group ? md(r.label) : r.label,
      fmtCount(c.count),
      fmtUs(ticksToUs(c.ticks)),
      c.count > 0 ? fmtUs(ticksToUs(c.ticks) / c.count) : '-',
      fmtShare(share(s, c)),
    ];
    if (withSteps) line.push(perStepText(r.perStep));
    return line;
  });
  const t = s.totals;
  const total = ['**total**', `**${fmtCount(t.count)}**`, `**${fmtUs(ticksToUs(t.ticks))}**`, t.count > 0 ? fmtUs(ticksToUs(t.ticks) / t.count) : '-', fmtShare(share(s, t))];
  if (withSteps) total.push(perStepText(summaryPerStep(s)?.total));
  body.push(total);
  return `${markdownTable(head, body, align)}\n\n${totalsLine(s, md)}. Source: ${s.files.length} file${s.files.length === 1 ? '' : 's'}, grouped by ${s.groupBy}${s.selection ? `, ${md(s.selection, WHOLE)}` : ''}.\n`;
}

function cellJson(c: Cell): CellJson {
  return { count: c.count, totalUs: exactUs(c.ticks) };
}

function groupJson(s: Summary, g: Group, perStep: PerStep | null): SummaryGroupJson {
  const c = g.total;
  return {
    key: g.key,
    ...(g.type !== undefined ? { type: g.type } : {}),
    ...(g.name !== undefined ? { name: g.name } : {}),
    ...(g.core !== undefined ? { core: g.core } : {}),
    ...(g.shapes !== undefined ? { shapes: g.shapes } : {}),
    ...(g.userGroup !== undefined ? { userGroup: g.userGroup } : {}),
    count: c.count,
    totalUs: exactUs(c.ticks),
    avgUs: c.count > 0 ? round4(ticksToUs(c.ticks) / c.count) : null,
    minUs: Number.isFinite(c.minTicks) ? exactUs(c.minTicks) : null,
    maxUs: Number.isFinite(c.maxTicks) ? exactUs(c.maxTicks) : null,
    sharePct: s.totals.ticks > 0 ? round4((100 * c.ticks) / s.totals.ticks) : null,
    countPerStep: perStep ? round4(perStepCount(perStep)) : null,
    byStep: [...g.steps.entries()].sort((a, b) => a[0] - b[0]).map(([step, sc]) => ({ step, ...cellJson(sc) })),
  };
}

/** A group's kernels per step in the whole profile (ranks combined), null without steps. */
function profilePerStep(s: Summary, g: Group): PerStep | null {
  const ps = summaryPerStep(s);
  return ps ? (ps.groups.get(g.key) ?? ZERO_PER_STEP) : null;
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

/** The declared summary schema (see schema.ts). All groups are written: --top applies to text formats only. */
export function summaryJsonObject(s: Summary, view: SummaryView): SummaryJson {
  return summaryJsonWith(s, view, arrays);
}

/** The summary's JSON, its groups made by `list` (see ListOf). */
function summaryJsonWith(s: Summary, view: SummaryView, list: ListOf): SummaryJson {
  const groups = sortGroups(s.groups, view.sort);
  return {
    schemaVersion: SCHEMA_VERSION,
    kind: 'summary',
    groupBy: s.groupBy,
    selection: s.selection,
    inputs: view.inputs ? [...view.inputs] : [s.input],
    steps: s.hasSteps ? s.stepIds.length : null,
    stepIds: s.stepIds,
    ranks: s.ranks,
    rowsRead: s.rowsRead,
    skippedRows: s.skippedRows,
    filteredKernels: s.filteredKernels,
    totals: cellJson(s.totals),
    groups: list(mapped(groups, (g) => groupJson(s, g, profilePerStep(s, g)))),
    perRank: list(
      mapped(s.perRank, (r) => ({
        rank: r.rank,
        steps: r.steps,
        rowsRead: r.rowsRead,
        skippedRows: r.skippedRows,
        filteredKernels: r.filteredKernels,
        totals: cellJson(r.totals),
        groups: list(
          mapped(sortGroups(r.groups, view.sort), (g) =>
            groupJson(s, g, s.hasSteps && r.steps.length > 0 ? rankPerStep(steppedCell(g.steps), r.steps.length) : null),
          ),
        ),
      })),
    ),
  };
}

/** The JSON report, in chunks: each group is made as it is written (see json.ts). */
export function summaryJson(s: Summary, view: SummaryView): Iterable<string> {
  return mapped(jsonChunks(summaryJsonWith(s, view, lazyLists)), jsonSafe);
}

/**
 * One row per group, in the --sort order; with --top the groups after the first N are folded into one
 * `(K more groups)` row; then a `(total)` row. The last column, `row`, says which is which (`group`, `others`,
 * `total`), so a kernel named like a label cannot pass for one.
 */
export function summaryCsv(s: Summary, view: SummaryView): string {
  const head = ['key', 'type', 'name', 'core', 'shapes', 'userGroup', 'count', 'totalUs', 'avgUs', 'minUs', 'maxUs', 'sharePct', 'countPerStep', 'row'];
  const body: (string | number | null | undefined)[][] = rows(s, view).map((r) => {
    if (r.group !== null) {
      const j = groupJson(s, r.group, r.perStep);
      return [j.key, j.type, j.name, j.core, j.shapes, j.userGroup, j.count, j.totalUs, j.avgUs, j.minUs, j.maxUs, j.sharePct, j.countPerStep, 'group'];
    }
    return [r.label, null, null, null, null, null, ...cellCsv(s, r.cell, r.perStep), 'others'];
  });
  body.push(['(total)', null, null, null, null, null, ...cellCsv(s, s.totals, summaryPerStep(s)?.total ?? null), 'total']);
  return csvLines(head, body);
}

/** count, totalUs, avgUs, minUs, maxUs, sharePct, countPerStep of a folded or total row, as groupJson gives them. */
function cellCsv(s: Summary, c: Cell, perStep: PerStep | null): (number | null)[] {
  return [
    c.count,
    exactUs(c.ticks),
    c.count > 0 ? round4(ticksToUs(c.ticks) / c.count) : null,
    Number.isFinite(c.minTicks) ? exactUs(c.minTicks) : null,
    Number.isFinite(c.maxTicks) ? exactUs(c.maxTicks) : null,
    s.totals.ticks > 0 ? round4((100 * c.ticks) / s.totals.ticks) : null,
    perStep ? round4(perStepCount(perStep)) : null,
  ];
}

/**
 * The summary reporters by output format: one for each `--format` choice of summary and diff (OUTPUT_FORMATS) but
 * `html`, which is report/html/summary.ts (it imports these).
 */
export const SUMMARY_REPORTERS = {
  table: summaryTable,
  markdown: (s: Summary, view: SummaryView) => summaryMarkdown(s, view),
  json: (s: Summary, view: SummaryView) => summaryJson(s, view),
  csv: (s: Summary, view: SummaryView) => summaryCsv(s, view),
} as const satisfies Record<Exclude<OutputFormat, 'html'>, (s: Summary, view: SummaryView, ctx: RenderContext) => string | Iterable<string>>;
