// Base vs PR: a pure function of two summaries. Every group present on either side gets a row; the totals row
// is the sum of the rows (checked); a percentage against zero is null, never Infinity.

import { compareRanks } from './read.js';
import type { Group, GroupBy, RankSummary, Summary } from './model.js';
import { TICKS_PER_US } from './model.js';

export const DIFF_STATUSES = ['removed', 'added', 'fewer', 'more', 'same'] as const;
export type DiffStatus = (typeof DIFF_STATUSES)[number];

export type Normalization = 'none' | 'per-step';

/** One side of a row: a count and a time, per step when normalised (then the count may be fractional). */
export interface Side {
  count: number;
  us: number;
}

export interface DiffRow {
  key: string;
  type?: string;
  name?: string;
  core?: string;
  shapes?: string;
  userGroup?: string;
  status: DiffStatus;
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
  /** Ranks on which this row changed differently from the row as a whole (with several ranks). */
  disagreeingRanks: RankDisagreement[];
}

export interface RankDisagreement {
  rank: string;
  status: DiffStatus;
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

export interface DiffTotals {
  base: Side;
  pr: Side;
  deltaCount: number;
  deltaCountPct: number | null;
  deltaUs: number;
  deltaUsPct: number | null;
  timeNoise: boolean;
}

export interface Diff {
  groupBy: GroupBy;
  selection: string;
  normalization: Normalization;
  timeTolerancePct: number;
  base: DiffSideInfo;
  pr: DiffSideInfo;
  /** Step counts differ and the diff is not normalised: raw counts mislead. */
  stepMismatch: boolean;
  /** Rows in the default order (see sortDiffRows). */
  rows: DiffRow[];
  totals: DiffTotals;
  /** Ranks present on one side only (with several ranks). */
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

export function statusOf(base: number, pr: number): DiffStatus {
  if (base === 0 && pr > 0) return 'added';
  if (base > 0 && pr === 0) return 'removed';
  if (pr < base) return 'fewer';
  if (pr > base) return 'more';
  return 'same';
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

function side(g: Group | undefined, divisor: number): Side {
  if (!g) return { count: 0, us: 0 };
  return { count: g.total.count / divisor, us: g.total.ticks / TICKS_PER_US / divisor };
}

function makeRow(key: string, b: Group | undefined, p: Group | undefined, bd: number, pd: number, tol: number): DiffRow {
  const base = side(b, bd);
  const pr = side(p, pd);
  const deltaCount = pr.count - base.count;
  const deltaUs = pr.us - base.us;
  const deltaUsPct = pct(deltaUs, base.us);
  return {
    key,
    ...groupFields(b),
    ...groupFields(p),
    status: statusOf(b?.total.count ?? 0, p?.total.count ?? 0),
    base,
    pr,
    deltaCount,
    deltaCountPct: pct(deltaCount, base.count),
    deltaUs,
    deltaUsPct,
    timeNoise: base.us > 0 && pr.us > 0 && deltaUsPct !== null && Math.abs(deltaUsPct) <= tol,
    disagreeingRanks: [],
  };
}

/** Changed rows first, by |Δ count| then |Δ time| (descending), ties by key. */
export function sortDiffRows(rows: DiffRow[]): DiffRow[] {
  const changed = (r: DiffRow): number => (r.status === 'same' ? 1 : 0);
  return [...rows].sort(
    (a, b) =>
      changed(a) - changed(b) ||
      Math.abs(b.deltaCount) - Math.abs(a.deltaCount) ||
      Math.abs(b.deltaUs) - Math.abs(a.deltaUs) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
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

/** Per-rank check: for each changed row, the ranks whose own change has a different status. */
function rankDisagreements(base: Summary, pr: Summary, rows: DiffRow[]): { base: string[]; pr: string[] } {
  const baseRanks = new Map(base.perRank.map((r) => [r.rank, r]));
  const prRanks = new Map(pr.perRank.map((r) => [r.rank, r]));
  const paired = [...baseRanks.keys()].filter((r) => prRanks.has(r)).sort(compareRanks);
  const unpaired = {
    base: [...baseRanks.keys()].filter((r) => !prRanks.has(r)).sort(compareRanks),
    pr: [...prRanks.keys()].filter((r) => !baseRanks.has(r)).sort(compareRanks),
  };
  if (paired.length < 2) return unpaired;
  const index = (r: RankSummary): Map<string, number> => new Map(r.groups.map((g) => [g.key, g.total.count]));
  const pairs = paired.map((rank) => ({ rank, b: index(baseRanks.get(rank)!), p: index(prRanks.get(rank)!) }));
  for (const row of rows) {
    if (row.status === 'same') continue;
    for (const { rank, b, p } of pairs) {
      const bc = b.get(row.key) ?? 0;
      const pc = p.get(row.key) ?? 0;
      const st = statusOf(bc, pc);
      if (st !== row.status) row.disagreeingRanks.push({ rank, status: st, base: bc, pr: pc });
    }
  }
  return unpaired;
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
  const bd = perStep ? Math.max(1, base.stepIds.length) : 1;
  const pd = perStep ? Math.max(1, pr.stepIds.length) : 1;
  const b = new Map(base.groups.map((g) => [g.key, g]));
  const p = new Map(pr.groups.map((g) => [g.key, g]));
  const keys = [...new Set([...b.keys(), ...p.keys()])];
  const rows = sortDiffRows(keys.map((k) => makeRow(k, b.get(k), p.get(k), bd, pd, opts.timeTolerancePct)));

  // Totals are the sum of the rows, in ticks so that no rounding creeps in.
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
  const bs: Side = { count: bc / bd, us: bt / TICKS_PER_US / bd };
  const ps: Side = { count: pc / pd, us: pt / TICKS_PER_US / pd };
  const deltaUsPct = pct(ps.us - bs.us, bs.us);
  const totals: DiffTotals = {
    base: bs,
    pr: ps,
    deltaCount: ps.count - bs.count,
    deltaCountPct: pct(ps.count - bs.count, bs.count),
    deltaUs: ps.us - bs.us,
    deltaUsPct,
    timeNoise: deltaUsPct !== null && Math.abs(deltaUsPct) <= opts.timeTolerancePct,
  };
  const unpairedRanks = rankDisagreements(base, pr, rows);
  const baseSteps = base.hasSteps ? base.stepIds.length : null;
  const prSteps = pr.hasSteps ? pr.stepIds.length : null;
  return {
    groupBy: base.groupBy,
    selection: base.selection,
    normalization: opts.normalization,
    timeTolerancePct: opts.timeTolerancePct,
    base: sideInfo(base),
    pr: sideInfo(pr),
    stepMismatch: !perStep && baseSteps !== prSteps,
    rows,
    totals,
    unpairedRanks,
  };
}
