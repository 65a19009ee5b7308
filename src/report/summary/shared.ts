// What the formats of `kprof summary` share: the view, the rows as shown (the first groups, the rest folded into
// one), the key column's heading, the totals line. Pure.

import { groupPerStep, summaryPerStep, sortGroups, type SummarySort } from '../../aggregate/group.js';
import {
  addPerStep,
  emptyCell,
  forEachStepFigure,
  groupLabel,
  mergeCell,
  perStepCount,
  ZERO_PER_STEP,
  type Cell,
  type Group,
  type GroupBy,
  type GroupFields,
  type PerStep,
  type Summary,
} from '../../model/model.js';
import { fmtCount, fmtPct, fmtUs, plural, ranksCounted, stepCountsText, ticksToUs } from '../../util/format.js';
import { clipped } from '../../util/inputText.js';
import { listReader } from '../../model/fineGroups.js';

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

export interface Row {
  group: Group | null;
  label: string;
  cell: Cell;
  /** Kernels per step, as defined in model.ts ("Per step"); null without steps. */
  perStep: PerStep | null;
}

/** Kernels of a group that belong to a step. */
export function stepped(g: Group): number {
  let n = 0;
  forEachStepFigure(g.steps, (_step, count) => {
    n += count;
  });
  return n;
}

/**
 * The rows as shown, made one at a time (`at`): a report of a million groups writes each row as it makes it
 * rather than holding a million rows.
 */
export interface ShownRows {
  /** Rows: the groups shown, then the folded ones' row when there is one. */
  count: number;
  at(i: number): Row;
  /** The label of each row, in order. */
  labels(): string[];
}

export function shownRows(s: Summary, view: SummaryView): ShownRows {
  const sorted = sortGroups(s.groups, view.sort);
  // Read by position past the Proxy of a list made on read (listReader): indexing it names each position by a
  // string, and a million of them, kept a while by V8's cache of numbers' texts, outlive the young collections:
  // ~15 MB of old garbage at each pass over a summary of a million names (a table makes three).
  const group = listReader(sorted).group;
  const shown = view.top !== null ? Math.min(view.top, sorted.length) : sorted.length;
  let others: Row | null = null;
  if (shown < sorted.length) {
    const cell = emptyCell();
    let perStep: PerStep | null = summaryPerStep(s) !== null ? ZERO_PER_STEP : null;
    for (let i = shown; i < sorted.length; i++) {
      const g = group(i);
      mergeCell(cell, g.total);
      if (perStep !== null) perStep = addPerStep(perStep, groupPerStep(s, g)!);
    }
    others = { group: null, label: `(${plural(sorted.length - shown, 'more group')})`, cell, perStep };
  }
  return {
    count: shown + (others !== null ? 1 : 0),
    at: (i) => {
      if (i >= shown) return others!;
      const g = group(i);
      return { group: g, label: groupLabel(s.groupBy, g), cell: g.total, perStep: groupPerStep(s, g) };
    },
    labels: () => {
      const out: string[] = new Array(shown + (others !== null ? 1 : 0));
      for (let i = 0; i < shown; i++) out[i] = groupLabel(s.groupBy, group(i));
      if (others !== null) out[shown] = others.label;
      return out;
    },
  };
}

export function rows(s: Summary, view: SummaryView): Row[] {
  const v = shownRows(s, view);
  return Array.from({ length: v.count }, (_, i) => v.at(i));
}

/** Kernels per step of a row or of the totals, as shown. */
export function perStepText(p: PerStep | null | undefined): string {
  return p ? fmtCount(perStepCount(p)) : '-';
}

/** The per-step column is shown when some rank has steps. */
export function hasPerStep(s: Summary): boolean {
  return summaryPerStep(s) !== null;
}

/** With several ranks aggregated, a step's count is that of all of them: the heading says so. */
export function perStepHeading(s: Summary): string {
  return s.ranks.length > 1 ? 'per step (all ranks)' : 'per step';
}

export function totalStepped(s: Summary): number {
  return s.groups.reduce((n, g) => n + stepped(g), 0);
}

export function share(s: Summary, c: Cell): number | null {
  return s.totals.ticks > 0 ? (100 * c.ticks) / s.totals.ticks : null;
}

/** One line that says what was counted: kernels, time, steps, ranks (shown by `q`), skipped rows. */
export function totalsLine(s: Summary, q: (text: string) => string = clipped): string {
  const parts = [
    plural(s.totals.count, 'kernel'),
    `${fmtUs(ticksToUs(s.totals.ticks))} kernel time`,
    // Each rank's own steps, never the distinct Step Ids of all ranks (offset Step Ids would double them). Ranks of
    // a format without Step Id beside ranks with steps are said as such (`no Step Id on ranks 12, 13`): the run
    // has steps, the report no per-step figure.
    s.hasSteps || s.perRank.some((r) => r.steps.length > 0)
      ? stepCountsText(
          s.perRank.map((r) => ({ rank: r.rank, steps: r.steps.length, rows: r.rowsRead, kept: r.totals.count, filtered: r.filteredKernels })),
          q,
        )
      : 'no steps',
    ranksCounted(s.ranks, q),
    `${plural(s.skippedRows, 'row')} skipped`,
  ];
  if (s.filteredKernels > 0) parts.push(`${plural(s.filteredKernels, 'kernel')} filtered out`);
  const noStep = s.hasSteps ? s.totals.count - totalStepped(s) : 0;
  if (noStep > 0) parts.push(`${fmtCount(noStep)} with an empty Step Id (in the totals, not per step)`);
  return parts.join(', ');
}

export function fmtShare(p: number | null): string {
  return p === null ? '-' : fmtPct(p);
}
