// Base vs PR: a pure function of two summaries. Every group present on either side gets a row; the totals row
// is the sum of the rows (checked); a percentage against zero is null, never Infinity. Sorting, --only and
// --top are a view over the rows (viewDiff) that folds what it hides into one row, so what is shown still adds
// up to the totals.

import { inputError } from './errors.js';
import { compareRanks, TICKS_PER_US, type Group, type GroupBy, type GroupFields, type RankSummary, type Summary } from './model.js';

export const DIFF_STATUSES = ['removed', 'added', 'fewer', 'more', 'same'] as const;
export type DiffStatus = (typeof DIFF_STATUSES)[number];

export const NORMALIZATIONS = ['none', 'per-step'] as const;
export type Normalization = (typeof NORMALIZATIONS)[number];

/** Row orders for --sort. Documented in the README ("kprof diff"). */
export const DIFF_SORTS = ['delta-count', 'delta-time', 'name', 'base-time', 'pr-time'] as const;
export type DiffSort = (typeof DIFF_SORTS)[number];

/** Row filters for --only. */
export const DIFF_ONLY = ['changed', 'removed', 'added'] as const;
export type DiffOnly = (typeof DIFF_ONLY)[number];

export const DEFAULT_TIME_TOLERANCE_PCT = 2;

/** One side of a row: a count and a time, per step when normalised (then the count may be fractional). */
export interface Side {
  count: number;
  us: number;
}

/** Both sides of a row or of the totals, and how they differ. */
export interface DiffFigures {
  base: Side;
  pr: Side;
  deltaCount: number;
  /** null when the base count is zero. */
  deltaCountPct: number | null;
  deltaUs: number;
  /** null when the base time is zero. */
  deltaUsPct: number | null;
  /** The time change is within --time-tolerance: shown as `~`. */
  timeNoise: boolean;
}

export interface DiffRow extends DiffFigures, GroupFields {
  status: DiffStatus;
  /**
   * With several paired ranks: the status most ranks show (more than half of the ranks that have the group on
   * either side), or null when no status has a majority.
   */
  rankStatus: DiffStatus | null;
  /** How many paired ranks have the group on either side (0 with fewer than two paired ranks). */
  ranksCompared: number;
  /** Ranks whose own change has a status other than rankStatus (all compared ranks when rankStatus is null). */
  disagreeingRanks: RankDisagreement[];
}

export interface RankDisagreement {
  rank: string;
  status: DiffStatus;
  /** The rank's count on each side (per step of that rank when normalised). */
  base: number;
  pr: number;
}

export interface DiffSideInfo {
  input: string;
  ranks: string[];
  /** Number of distinct steps; null when the side has no Step Id. */
  steps: number | null;
  files: string[];
  skippedRows: number;
  /** Raw totals (never normalised). */
  count: number;
  us: number;
}

export type DiffTotals = DiffFigures;

export interface Diff {
  groupBy: GroupBy;
  selection: string;
  normalization: Normalization;
  timeTolerancePct: number;
  base: DiffSideInfo;
  pr: DiffSideInfo;
  /** Step counts differ (or one side has none) and the diff is not normalised: raw counts mislead. */
  stepMismatch: boolean;
  /** Rows in the default order (delta-count, see sortDiffRows). */
  rows: DiffRow[];
  totals: DiffTotals;
  /** Ranks present on both sides; the per-rank agreement check runs when there are at least two. */
  pairedRanks: string[];
  /** Ranks present on one side only. */
  unpairedRanks: { base: string[]; pr: string[] };
}

export interface DiffOptions {
  normalization: Normalization;
  /** Time changes within ±this percentage are noise. Default 2. */
  timeTolerancePct: number;
}

function pct(delta: number, base: number): number | null {
  return base === 0 ? null : (100 * delta) / base;
}

/** The status of a change from `base` to `pr` (counts, possibly normalised). */
export function statusOf(base: number, pr: number): DiffStatus {
  if (base === 0 && pr > 0) return 'added';
  if (base > 0 && pr === 0) return 'removed';
  if (pr < base) return 'fewer';
  if (pr > base) return 'more';
  return 'same';
}

/**
 * The status of `bc / bd` → `pc / pd` compared exactly: counts and step numbers are integers, so the
 * cross-multiplied comparison has no rounding (10 of 4 steps vs 15 of 6 steps is `same`).
 */
function scaledStatus(bc: number, bd: number, pc: number, pd: number): DiffStatus {
  return statusOf(bc * pd, pc * bd);
}

function groupFields(g: Group | undefined): Partial<DiffRow> {
  if (!g) return {};
  const f: Partial<DiffRow> = {};
  if (g.type !== undefined) f.type = g.type;
  if (g.name !== undefined) f.name = g.name;
  if (g.core !== undefined) f.core = g.core;
  if (g.shapes !== undefined) f.shapes = g.shapes;
  if (g.userGroup !== undefined) f.userGroup = g.userGroup;
  return f;
}

function side(count: number, ticks: number, divisor: number): Side {
  return { count: count / divisor, us: ticks / TICKS_PER_US / divisor };
}

function isNoise(base: Side, pr: Side, deltaUsPct: number | null, tol: number): boolean {
  return base.us > 0 && pr.us > 0 && deltaUsPct !== null && Math.abs(deltaUsPct) <= tol;
}

function makeRow(key: string, b: Group | undefined, p: Group | undefined, bd: number, pd: number, tol: number): DiffRow {
  const bc = b?.total.count ?? 0;
  const pc = p?.total.count ?? 0;
  const base = side(bc, b?.total.ticks ?? 0, bd);
  const pr = side(pc, p?.total.ticks ?? 0, pd);
  const deltaCount = pr.count - base.count;
  const deltaUs = pr.us - base.us;
  const deltaUsPct = pct(deltaUs, base.us);
  return {
    key,
    ...groupFields(b),
    ...groupFields(p),
    status: scaledStatus(bc, bd, pc, pd),
    base,
    pr,
    deltaCount,
    deltaCountPct: pct(deltaCount, base.count),
    deltaUs,
    deltaUsPct,
    timeNoise: isNoise(base, pr, deltaUsPct, tol),
    rankStatus: null,
    ranksCompared: 0,
    disagreeingRanks: [],
  };
}

const byKey = (a: DiffRow, b: DiffRow): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const changedFirst = (a: DiffRow, b: DiffRow): number => (a.status === 'same' ? 1 : 0) - (b.status === 'same' ? 1 : 0);
const absCount = (a: DiffRow, b: DiffRow): number => Math.abs(b.deltaCount) - Math.abs(a.deltaCount);
const absTime = (a: DiffRow, b: DiffRow): number => Math.abs(b.deltaUs) - Math.abs(a.deltaUs);

const SORTS = {
  /** Changed rows first, then |Δ count|, then |Δ time| (descending), ties by key. The default. */
  'delta-count': (a, b) => changedFirst(a, b) || absCount(a, b) || absTime(a, b) || byKey(a, b),
  /** |Δ time| then |Δ count| (descending), ties by key. */
  'delta-time': (a, b) => absTime(a, b) || absCount(a, b) || byKey(a, b),
  /** Key ascending. */
  name: byKey,
  /** Base time, then PR time (descending), ties by key. */
  'base-time': (a, b) => b.base.us - a.base.us || b.pr.us - a.pr.us || byKey(a, b),
  /** PR time, then base time (descending), ties by key. */
  'pr-time': (a, b) => b.pr.us - a.pr.us || b.base.us - a.base.us || byKey(a, b),
} as const satisfies Record<DiffSort, (a: DiffRow, b: DiffRow) => number>;

/** Sort rows (a copy); the default is delta-count. */
export function sortDiffRows(rows: DiffRow[], sort: DiffSort = 'delta-count'): DiffRow[] {
  return [...rows].sort(SORTS[sort]);
}

function sideInfo(s: Summary): DiffSideInfo {
  return {
    input: s.input,
    ranks: s.ranks,
    steps: s.hasSteps ? s.stepIds.length : null,
    files: s.files.map((f) => f.path),
    skippedRows: s.skippedRows,
    count: s.totals.count,
    us: s.totals.ticks / TICKS_PER_US,
  };
}

/**
 * Per-rank check: on every pair of ranks, the status of each row's own change. A rank where the group is
 * absent on both sides is not compared (pipeline stages run different kernels). The status shown by more than
 * half of the compared ranks is the row's rankStatus; ranks with another status disagree. Without a majority,
 * every compared rank is listed.
 */
function checkRanks(base: Summary, pr: Summary, rows: DiffRow[], perStep: boolean): { paired: string[]; unpaired: { base: string[]; pr: string[] } } {
  const baseRanks = new Map(base.perRank.map((r) => [r.rank, r]));
  const prRanks = new Map(pr.perRank.map((r) => [r.rank, r]));
  // One rank against one rank (rank 0 of one run vs rank 1 of another) is a pair whatever the ids.
  if (base.perRank.length === 1 && pr.perRank.length === 1) {
    const same = base.perRank[0]!.rank === pr.perRank[0]!.rank;
    return { paired: same ? [base.perRank[0]!.rank] : [], unpaired: { base: [], pr: [] } };
  }
  const paired = [...baseRanks.keys()].filter((r) => prRanks.has(r)).sort(compareRanks);
  const unpaired = {
    base: [...baseRanks.keys()].filter((r) => !prRanks.has(r)).sort(compareRanks),
    pr: [...prRanks.keys()].filter((r) => !baseRanks.has(r)).sort(compareRanks),
  };
  if (paired.length < 2) return { paired, unpaired };
  const index = (r: RankSummary): Map<string, number> => new Map(r.groups.map((g) => [g.key, g.total.count]));
  const divisor = (r: RankSummary): number => (perStep ? Math.max(1, r.steps.length) : 1);
  const pairs = paired.map((rank) => {
    const b = baseRanks.get(rank)!;
    const p = prRanks.get(rank)!;
    return { rank, b: index(b), p: index(p), bd: divisor(b), pd: divisor(p) };
  });
  for (const row of rows) {
    const seen: RankDisagreement[] = [];
    for (const { rank, b, p, bd, pd } of pairs) {
      const bc = b.get(row.key) ?? 0;
      const pc = p.get(row.key) ?? 0;
      if (bc === 0 && pc === 0) continue;
      seen.push({ rank, status: scaledStatus(bc, bd, pc, pd), base: bc / bd, pr: pc / pd });
    }
    if (seen.length === 0) continue;
    const tally = new Map<DiffStatus, number>();
    for (const s of seen) tally.set(s.status, (tally.get(s.status) ?? 0) + 1);
    let majority: DiffStatus | null = null;
    for (const [status, n] of tally) if (2 * n > seen.length) majority = status;
    row.rankStatus = majority;
    row.ranksCompared = seen.length;
    if (tally.size > 1) row.disagreeingRanks = seen.filter((s) => s.status !== majority);
  }
  return { paired, unpaired };
}

/** Why --per-step cannot be used on one side. */
function noSteps(which: 'base' | 'PR', s: Summary): never {
  const file = s.files[0]?.path ?? s.input;
  const why = s.hasSteps ? 'its Step Id cells are all empty (or --steps kept none)' : 'it has no Step Id column';
  const input = file === s.input ? '' : ` (${s.input})`;
  throw inputError(
    `${file}: --per-step needs the number of steps of both sides, but the ${which}${input} cannot give it: ${why}. ` +
      `Drop --per-step, or profile both runs with a torch_npu schedule so that kernel_details.csv has a Step Id column.`,
  );
}

/**
 * Diff two summaries made with the same grouping and selection. With `per-step`, both sides need steps; each
 * side's counts and times are divided by its own number of steps.
 */
export function diffSummaries(base: Summary, pr: Summary, opts: DiffOptions): Diff {
  if (base.groupBy !== pr.groupBy || base.selection !== pr.selection) {
    throw new Error('diffSummaries: both sides must be grouped and filtered alike');
  }
  const perStep = opts.normalization === 'per-step';
  if (perStep) {
    if (!base.hasSteps || base.stepIds.length === 0) noSteps('base', base);
    if (!pr.hasSteps || pr.stepIds.length === 0) noSteps('PR', pr);
  }
  const bd = perStep ? base.stepIds.length : 1;
  const pd = perStep ? pr.stepIds.length : 1;
  const tol = opts.timeTolerancePct;
  const b = new Map(base.groups.map((g) => [g.key, g]));
  const p = new Map(pr.groups.map((g) => [g.key, g]));
  const keys = [...new Set([...b.keys(), ...p.keys()])];
  const rows = sortDiffRows(keys.map((k) => makeRow(k, b.get(k), p.get(k), bd, pd, tol)));

  // Totals are the sum of the rows, in whole counts and ticks so that no rounding creeps in.
  let bc = 0;
  let pc = 0;
  let bt = 0;
  let pt = 0;
  for (const k of keys) {
    bc += b.get(k)?.total.count ?? 0;
    pc += p.get(k)?.total.count ?? 0;
    bt += b.get(k)?.total.ticks ?? 0;
    pt += p.get(k)?.total.ticks ?? 0;
  }
  if (bc !== base.totals.count || pc !== pr.totals.count || bt !== base.totals.ticks || pt !== pr.totals.ticks) {
    throw new Error('diff totals do not add up to the sum of the rows (a bug in kprof)');
  }
  const bs = side(bc, bt, bd);
  const ps = side(pc, pt, pd);
  const deltaUsPct = pct(ps.us - bs.us, bs.us);
  const totals: DiffTotals = {
    base: bs,
    pr: ps,
    deltaCount: ps.count - bs.count,
    deltaCountPct: pct(ps.count - bs.count, bs.count),
    deltaUs: ps.us - bs.us,
    deltaUsPct,
    timeNoise: isNoise(bs, ps, deltaUsPct, tol),
  };
  const { paired, unpaired } = checkRanks(base, pr, rows, perStep);
  const baseSteps = base.hasSteps ? base.stepIds.length : null;
  const prSteps = pr.hasSteps ? pr.stepIds.length : null;
  return {
    groupBy: base.groupBy,
    selection: base.selection,
    normalization: opts.normalization,
    timeTolerancePct: tol,
    base: sideInfo(base),
    pr: sideInfo(pr),
    stepMismatch: !perStep && baseSteps !== prSteps,
    rows,
    totals,
    pairedRanks: paired,
    unpairedRanks: unpaired,
  };
}

/** How rows are shown: order, filter, how many. */
export interface DiffView {
  sort: DiffSort;
  only: DiffOnly | null;
  top: number | null;
}

export const DEFAULT_DIFF_VIEW: DiffView = { sort: 'delta-count', only: null, top: null };

/** The rows a view leaves out, summed, so that shown rows + others = totals. */
export interface DiffOthers {
  groups: number;
  base: Side;
  pr: Side;
  deltaCount: number;
  deltaUs: number;
}

export interface DiffViewRows {
  rows: DiffRow[];
  others: DiffOthers | null;
}

function keeps(only: DiffOnly | null, r: DiffRow): boolean {
  if (only === null) return true;
  if (only === 'changed') return r.status !== 'same';
  return r.status === only;
}

/** Apply --sort, --only and --top; the rows left out are folded into `others`. */
export function viewDiff(d: Diff, view: DiffView): DiffViewRows {
  const kept = sortDiffRows(d.rows.filter((r) => keeps(view.only, r)), view.sort);
  const rows = view.top !== null ? kept.slice(0, view.top) : kept;
  const shown = new Set(rows);
  const hidden = d.rows.filter((r) => !shown.has(r));
  if (hidden.length === 0) return { rows, others: null };
  const sum = (f: (r: DiffRow) => number): number => hidden.reduce((n, r) => n + f(r), 0);
  const base = { count: sum((r) => r.base.count), us: sum((r) => r.base.us) };
  const pr = { count: sum((r) => r.pr.count), us: sum((r) => r.pr.us) };
  return { rows, others: { groups: hidden.length, base, pr, deltaCount: pr.count - base.count, deltaUs: pr.us - base.us } };
}

/** What the headline tells: the changed rows by kind, biggest count change first, and how many more. */
export interface Headline {
  added: DiffRow[];
  removed: DiffRow[];
  fewer: DiffRow[];
  more: DiffRow[];
  /** Changed rows not named above. */
  unnamed: number;
}

/**
 * Pick the rows the headline names, up to `perKind` of each status: added and removed groups by the size of
 * the count change; cut (fewer) groups deepest cut first and grown (more) groups biggest growth first, as a
 * fusion shows as the kernels it absorbs losing most of their calls; ties as the default sort.
 */
export function headline(d: Diff, perKind = 4): Headline {
  const sorted = sortDiffRows(d.rows);
  const pick = (s: DiffStatus, cmp?: (a: DiffRow, b: DiffRow) => number): DiffRow[] => {
    const rows = sorted.filter((r) => r.status === s);
    return (cmp ? [...rows].sort(cmp) : rows).slice(0, perKind);
  };
  // For fewer/more rows the base count is > 0, so the percentage is never null.
  const h = {
    added: pick('added'),
    removed: pick('removed'),
    fewer: pick('fewer', (a, b) => (a.deltaCountPct ?? 0) - (b.deltaCountPct ?? 0)),
    more: pick('more', (a, b) => (b.deltaCountPct ?? 0) - (a.deltaCountPct ?? 0)),
  };
  const changed = d.rows.filter((r) => r.status !== 'same').length;
  const named = h.added.length + h.removed.length + h.fewer.length + h.more.length;
  return { ...h, unnamed: changed - named };
}
