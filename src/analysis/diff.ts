// Base vs PR: a pure function of two summaries. Every group present on either side gets a row; the totals row
// is the sum of the rows (checked); a percentage against zero is null, never Infinity. Sorting, --only and
// --top are a view over the rows (viewDiff) that folds what it hides into one row, so what is shown still adds
// up to the totals. The rows are columns (diffRows.ts), read as DiffRows through one view object a row: a diff by
// name may have a million.
//
// Over 400 lines: the row diff, the per-rank check and the view (sort, --only, --top) share the row type and the
// totals check (the per-step check is in stepCheck.ts).

import { inputError } from '../util/errors.js';
import { NO_RANK_ID, rankOption, ranksNamed, settled } from '../util/format.js';
import { shown } from '../util/inputText.js';
import { diffStepTime, type StepTimeDiff } from './stepTime.js';
import { checkPairedKeys, groupsByKey, ranksWithoutSteps, summaryPerStep, totalStepped } from '../aggregate/group.js';
import { totalFigure } from '../model/fineGroups.js';
import {
  comparePerStepCount,
  compareRanks,
  fractionKey,
  perStepCount,
  perStepUs,
  rankPerStep,
  samePerStep,
  steppedCell,
  addPerStep,
  TICKS_PER_US,
  ZERO_PER_STEP,
  type Group,
  type GroupBy,
  type PerStep,
  type RankSummary,
  type Summary,
} from '../model/model.js';
import {
  DEFAULT_ALPHA,
  isTimeNoise,
  judgeTime,
  pairSumSamples,
  StepSums,
  pairSamples,
  samplesOf,
  sampleSource,
  type RowSamples,
  type SampleSource,
  type TimeJudgement,
  type TimeTestSummary,
} from './timeTest.js';

import type { RewritesSection } from './rewrites/section.js';
import { briefList, formatsAnswering } from '../input/formats/registry.js';
import { checkSteps, majorityOf, type UnpairedSteps } from './stepCheck.js';
import { oneList, rankGroups, tableRow } from './rowGroups.js';
import { DiffRowTable, type DiffFigures, type DiffRow, type DiffStatus, type RankDisagreement, type Side } from './diffRows.js';

// The row types live with the rows (diffRows.ts); every user imports them from here.
export { DIFF_STATUSES } from './diffRows.js';
export type * from './diffRows.js';
export type { UnpairedSteps } from './stepCheck.js';

export const NORMALIZATIONS = ['none', 'per-step'] as const;
export type Normalization = (typeof NORMALIZATIONS)[number];

/** Row orders for --sort. Documented in docs/diff.md. */
export const DIFF_SORTS = ['delta-count', 'delta-time', 'name', 'base-time', 'pr-time'] as const;
export type DiffSort = (typeof DIFF_SORTS)[number];

/** Row filters for --only. */
export const DIFF_ONLY = ['changed', 'removed', 'added'] as const;
export type DiffOnly = (typeof DIFF_ONLY)[number];

export const DEFAULT_TIME_TOLERANCE_PCT = 2;

export interface DiffSideInfo {
  input: string;
  ranks: string[];
  /** Number of distinct Step Ids across the ranks; null when the side has no Step Id. */
  steps: number | null;
  /** Each rank's own number of steps (0 for a rank without any) and kernel rows read, in rank order. */
  rankSteps: { rank: string; steps: number; rows?: number }[];
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
  /** Significance level of the time test (--alpha). */
  alpha: number;
  /** How many rows (and the totals) the time test judged, and how many it could not. */
  timeTestSummary: TimeTestSummary;
  base: DiffSideInfo;
  pr: DiffSideInfo;
  /** Step counts differ (or one side has none) and the diff is not normalised: raw counts mislead. */
  stepMismatch: boolean;
  /** Paired ranks whose step counts differ (the diff not normalised). */
  stepMismatchRanks: { rank: string; base: number; pr: number }[];
  /** With --per-step: kernels of each side with an empty Step Id, in no step and so in no per-step figure. */
  withoutStep: { base: number; pr: number };
  /** Rows in the default order (delta-count, see sortDiffRows). */
  rows: DiffRow[];
  totals: DiffTotals;
  /**
   * The per-rank check compared each rank's figure per step: with --per-step, or when a paired rank's step
   * counts differ (its raw counts would show the lost step as a change).
   */
  ranksPerStep: boolean;
  /** Paired ranks whose Step Ids differ between the sides, with the groups that vary from step to step there. */
  unpairedSteps: UnpairedSteps[];
  /** Ranks present on both sides; the per-rank agreement check runs when there are at least two. */
  pairedRanks: string[];
  /** Ranks present on one side only. */
  unpairedRanks: { base: string[]; pr: string[] };
  /** The Fusion rewrites section (rewrites/section.ts); absent with --rewrites off. */
  rewrites?: RewritesSection;
  /** Base vs PR step time (--step-time); absent when not asked for. */
  stepTime?: StepTimeDiff;
}

export interface DiffOptions {
  normalization: Normalization;
  /** Time changes within ±this percentage are noise. Default 2. */
  timeTolerancePct: number;
  /** Significance level of the test over per-step samples (default 0.05). */
  alpha?: number;
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

function side(count: number, ticks: number): Side {
  return { count, us: ticks / TICKS_PER_US };
}

function perStepSide(p: PerStep): Side {
  return { count: perStepCount(p), us: perStepUs(p) };
}

/**
 * Within ±tol percent, the bound included, the change settled (util/format.ts: 1.00 µs → 1.02 µs is +2.0000000000000018%
 * unrounded, within ±2%); settled only when it is past the tolerance unrounded (a row of a million makes no text).
 */
function isNoise(base: Side, pr: Side, deltaUsPct: number | null, tol: number): boolean {
  if (!(base.us > 0 && pr.us > 0 && deltaUsPct !== null)) return false;
  const a = Math.abs(deltaUsPct);
  return a <= tol || settled(a) <= tol;
}

/** The time judgement of shown figures, with the per-step samples of their kernels (null: none). */
function judged(
  base: Side,
  pr: Side,
  deltaUsPct: number | null,
  tol: number,
  samples: Parameters<typeof judgeTime>[3],
  alpha: number,
): { timeNoise: boolean; timeTest: TimeJudgement } {
  const timeTest = judgeTime(base.us, pr.us, isNoise(base, pr, deltaUsPct, tol), samples, alpha);
  return { timeNoise: isTimeNoise(timeTest), timeTest };
}

/** Judge every row's time change and the totals' by the test over per-step samples (see timeTest.ts). */
function judgeRows(
  src: SampleSource | null,
  t: DiffRowTable,
  totals: DiffTotals,
  tol: number,
  alpha: number,
  sides: { base: Summary; pr: Summary },
): TimeTestSummary {
  const sum: TimeTestSummary = { alpha, tooFew: 0, noSteps: 0, noise: 0, tested: 0 };
  const count = (j: TimeJudgement): void => {
    const v = j.verdict;
    if (v === 'too-few') sum.tooFew++;
    else if (v === 'no-steps') sum.noSteps++;
    else if (v !== 'zero') sum.tested++;
    if (v === 'noise' && !j.withinTolerance) sum.noise++;
  };
  const f = t.figures;
  // One rank against one, each its summary's own list: a row's groups are the ranks' (no key looked up).
  const direct = src !== null && oneList(sides.base) && oneList(sides.pr);
  for (let i = 0; i < t.size; i++) {
    const base = { count: f[4 * i]!, us: f[4 * i + 1]! };
    const pr = { count: f[4 * i + 2]!, us: f[4 * i + 3]! };
    const samples = src === null ? null : direct ? pairSamples(src, t.group(i, 0), t.group(i, 1)) : samplesOf(src, [t.keys[i]!]);
    const j = judged(base, pr, pct(pr.us - base.us, base.us), tol, samples, alpha);
    t.judge(i, j.timeTest);
    count(j.timeTest);
  }
  const j = judged(totals.base, totals.pr, totals.deltaUsPct, tol, src === null ? null : samplesOf(src, null), alpha);
  totals.timeNoise = j.timeNoise;
  totals.timeTest = j.timeTest;
  count(j.timeTest);
  return sum;
}

/** The per-step figures of both sides, when the diff is per step. */
interface PerStepSides {
  base: Map<string, PerStep>;
  pr: Map<string, PerStep>;
}

/** Row `i` of the table: the group of `key` on each side (undefined: none), its figures and status. */
function fillRow(
  t: DiffRowTable,
  i: number,
  key: string,
  b: Group | undefined,
  bAt: number,
  p: Group | undefined,
  pAt: number,
  ps: PerStepSides | null,
): void {
  if (ps) {
    const bf = ps.base.get(key) ?? ZERO_PER_STEP;
    const pf = ps.pr.get(key) ?? ZERO_PER_STEP;
    t.set(i, key, b, bAt, p, pAt, perStepSide(bf), perStepSide(pf), perStepStatus(bf, pf));
  } else {
    const bc = b === undefined ? 0 : totalFigure(b, 0);
    const pc = p === undefined ? 0 : totalFigure(p, 0);
    const bs = side(bc, b === undefined ? 0 : totalFigure(b, 1));
    t.set(i, key, b, bAt, p, pAt, bs, side(pc, p === undefined ? 0 : totalFigure(p, 1)), statusOf(bc, pc));
  }
}

/** The status of a change between two exact figures per step. */
function perStepStatus(b: PerStep, p: PerStep): DiffStatus {
  if (b.count === 0n && p.count > 0n) return 'added';
  if (b.count > 0n && p.count === 0n) return 'removed';
  const c = comparePerStepCount(p, b);
  return c < 0 ? 'fewer' : c > 0 ? 'more' : 'same';
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

/** Sort rows (a copy); the default is delta-count. Rows in that order already (a diff's) are only copied. */
export function sortDiffRows(rows: readonly DiffRow[], sort: DiffSort = 'delta-count'): DiffRow[] {
  const sorted = rowsInOrder(rows, sort);
  return sorted === rows ? [...rows] : (sorted as DiffRow[]);
}

/** Rows in the `sort` order: `rows` itself when in that order already (a diff's, by default), else a sorted copy. */
function rowsInOrder(rows: readonly DiffRow[], sort: DiffSort): readonly DiffRow[] {
  const cmp = SORTS[sort];
  for (let i = 1; i < rows.length; i++) if (cmp(rows[i - 1]!, rows[i]!) > 0) return [...rows].sort(cmp);
  return rows;
}

function sideInfo(s: Summary): DiffSideInfo {
  return {
    input: s.input,
    ranks: s.ranks,
    steps: s.hasSteps ? s.stepIds.length : null,
    rankSteps: s.perRank.map((r) => ({ rank: r.rank, steps: r.steps.length, rows: r.rowsRead })),
    files: s.files.map((f) => f.path),
    skippedRows: s.skippedRows,
    count: s.totals.count,
    us: s.totals.ticks / TICKS_PER_US,
  };
}

/** A figure of one rank for the cross-rank check: its total (not normalised) or its figure per step. */
type RankFigure = PerStep;

function rawFigure(count: number, ticks: number): RankFigure {
  return { count: BigInt(count), ticks: BigInt(Math.round(ticks)), den: 1n };
}

/**
 * The size of a rank's change, exactly: the factor PR ÷ base as a reduced fraction, or `added` against a base of
 * zero (an added group has no base to scale by: its size is not compared). Ranks with the same key changed the
 * same way, also where they run different numbers of layers (pipeline stages).
 */
function changeKey(b: RankFigure, p: RankFigure): string {
  if (b.count === 0n) return p.count === 0n ? 'none' : 'added';
  return fractionKey(p.count * b.den, b.count * p.den);
}

function rankChange(rank: string, b: RankFigure, p: RankFigure): RankDisagreement {
  const base = perStepCount(b);
  const pr = perStepCount(p);
  return { rank, status: perStepStatus(b, p), base, pr, deltaCount: pr - base, deltaCountPct: pct(pr - base, base) };
}

/** The ranks compared with each other (and step by step): those on both sides, or one against one. */
function pairRanks(
  base: Summary,
  pr: Summary,
): { pairs: { rank: string; b: RankSummary; p: RankSummary }[]; paired: string[]; unpaired: { base: string[]; pr: string[] } } {
  const baseRanks = new Map(base.perRank.map((r) => [r.rank, r]));
  const prRanks = new Map(pr.perRank.map((r) => [r.rank, r]));
  // One rank against one rank (rank 0 of one run vs rank 1 of another) is a pair whatever the ids.
  if (base.perRank.length === 1 && pr.perRank.length === 1) {
    const b = base.perRank[0]!;
    const p = pr.perRank[0]!;
    return { pairs: [{ rank: p.rank, b, p }], paired: b.rank === p.rank ? [b.rank] : [], unpaired: { base: [], pr: [] } };
  }
  const paired = [...baseRanks.keys()].filter((r) => prRanks.has(r)).sort(compareRanks);
  const unpaired = {
    base: [...baseRanks.keys()].filter((r) => !prRanks.has(r)).sort(compareRanks),
    pr: [...prRanks.keys()].filter((r) => !baseRanks.has(r)).sort(compareRanks),
  };
  return { pairs: paired.map((rank) => ({ rank, b: baseRanks.get(rank)!, p: prRanks.get(rank)! })), paired, unpaired };
}

/**
 * Per-rank check: on every pair of ranks, each row's own change, per step of that rank when normalised. A rank
 * where the group is absent on both sides is not compared (pipeline stages run different kernels). The status
 * shown by more than half of the compared ranks is the row's rankStatus. Ranks whose change differs from the one
 * most ranks show, in status or in size (the factor PR ÷ base), disagree; without a majority, every compared rank
 * is listed.
 */
function checkRanks(
  pairs: { rank: string; b: RankSummary; p: RankSummary }[],
  t: DiffRowTable,
  order: ArrayLike<number>,
  rows: DiffRow[],
  sides: { base: Summary; pr: Summary },
  perStep: boolean,
): void {
  if (pairs.length < 2) return;
  const figure = (r: RankSummary, g: Group | undefined): RankFigure => {
    if (!g) return ZERO_PER_STEP;
    return perStep ? rankPerStep(steppedCell(g.steps), r.steps.length) : rawFigure(g.total.count, g.total.ticks);
  };
  const indexed = pairs.map(({ rank, b, p }) => ({ rank, b, p, bi: rankGroups(t, 'base', sides.base, b), pi: rankGroups(t, 'pr', sides.pr, p) }));
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const row = rows[k]!;
    const seen: { change: RankDisagreement; key: string }[] = [];
    for (const { rank, b, p, bi, pi } of indexed) {
      const bf = figure(b, bi(i));
      const pf = figure(p, pi(i));
      // Absent on both sides (per step: in no step on either side): not compared.
      if (bf.count === 0n && pf.count === 0n) continue;
      seen.push({ change: rankChange(rank, bf, pf), key: changeKey(bf, pf) });
    }
    if (seen.length === 0) continue;
    const status = majorityOf(seen, (x) => x.change.status);
    row.rankStatus = status === null ? null : (status.key as DiffStatus);
    row.ranksCompared = seen.length;
    const size = majorityOf(seen, (x) => x.key);
    if (size !== null) row.rankMajority = { change: seen.find((x) => x.key === size.key)!.change, ranks: size.n };
    if (new Set(seen.map((x) => x.key)).size > 1) row.disagreeingRanks = seen.filter((x) => x.key !== size?.key).map((x) => x.change);
  }
}

/** Why --per-step cannot be used on one side. */
function noSteps(which: 'base' | 'PR', s: Summary): never {
  // Ranks of a format without Step Id beside ranks with steps (an msprof op_summary among kernel_details): those ranks.
  const none = ranksWithoutSteps(s);
  if (none.length < s.perRank.length) rankWithoutSteps(which, s, none);
  const file = s.files[0]?.path ?? s.input;
  const why = s.hasSteps ? 'its Step Id cells are all empty (or --steps kept none)' : 'it has no Step Id column';
  const input = file === s.input ? '' : ` (${s.input})`;
  throw inputError(
    `${file}: --per-step needs the number of steps of both sides, but the ${which}${input} cannot give it: ${why}. ` +
      `Drop --per-step, or profile both runs with a schedule (torch_npu's, the PyTorch profiler's) so that their export has a Step Id per kernel (${briefList(formatsAnswering(['steps']))}).`,
  );
}

/** Why --per-step cannot be used on one rank of a side. */
function rankWithoutSteps(which: 'base' | 'PR', s: Summary, ranks: string[]): never {
  // A rank whose files held no kernel row (a header only) has no kernels at all, which is not a missing Step Id.
  const empty = new Set(s.perRank.filter((r) => r.rowsRead === 0).map((r) => r.rank));
  const what = ranks.every((r) => empty.has(r))
    ? 'no kernels at all (no kernel row was read from its files; see the warnings)'
    : `no Step Id in any row${s.selection.includes('steps=') ? ' within --steps' : ''}`;
  // The --rank that leaves them out: the side's other ranks, as ranges (a rank of no id cannot be named).
  const left = s.perRank.map((r) => r.rank).filter((r) => !ranks.includes(r));
  const others = left.includes(NO_RANK_ID) ? null : rankOption(left);
  throw inputError(
    `${s.input}: --per-step divides each rank by its own number of steps, but ${ranksNamed(ranks, shown)} of the ${which} ` +
      `${ranks.length === 1 ? 'has' : 'have'} ${what}. ` +
      `Leave ${ranks.length === 1 ? 'it' : 'them'} out with --rank${others !== null ? ` ${others}` : ''}, or drop --per-step.`,
  );
}

/**
 * Diff two summaries made with the same grouping and selection. With `per-step`, every rank of both sides needs
 * steps; each rank's kernels with a Step Id are divided by its own number of steps, and the ranks are added up
 * (see "Per step" in model.ts), on each side.
 */
export function diffSummaries(base: Summary, pr: Summary, opts: DiffOptions): Diff {
  if (base.groupBy !== pr.groupBy || base.selection !== pr.selection) {
    throw new Error('diffSummaries: both sides must be grouped and filtered alike');
  }
  const perStep = opts.normalization === 'per-step';
  let ps: PerStepSides | null = null;
  let bps: PerStep = ZERO_PER_STEP;
  let pps: PerStep = ZERO_PER_STEP;
  if (perStep) {
    const bs = summaryPerStep(base);
    const prs = summaryPerStep(pr);
    if (bs === null) noSteps('base', base);
    if (prs === null) noSteps('PR', pr);
    const bNone = ranksWithoutSteps(base);
    if (bNone.length > 0) rankWithoutSteps('base', base, bNone);
    const pNone = ranksWithoutSteps(pr);
    if (pNone.length > 0) rankWithoutSteps('PR', pr, pNone);
    ps = { base: bs.groups, pr: prs.groups };
    bps = bs.total;
    pps = prs.total;
  }
  const tol = opts.timeTolerancePct;
  const b = groupsByKey(base.groups);
  const p = groupsByKey(pr.groups);
  // A row per key of either side: the base's keys, then the PR's the base lacks (no list or Set of both sides'
  // keys: a diff by name has millions), as columns (diffRows.ts). Each base key is looked up once among the PR's:
  // its PR position is kept, and the PR's positions the base has are marked.
  const prAt = new Int32Array(base.groups.length);
  const inBase = new Uint8Array(pr.groups.length);
  let n = b.size + p.size;
  b.forEachEntry((k, _, i) => {
    const j = p.position(k);
    prAt[i] = j;
    if (j >= 0) {
      inBase[j] = 1;
      n--;
    }
  });
  const t = new DiffRowTable(n, base.groups, pr.groups);
  let at = 0;
  b.forEachEntry((k, g, i) => {
    const j = prAt[i]!;
    const pg = j < 0 ? undefined : p.groupAt(j);
    if (pg !== undefined) checkPairedKeys(base.groupBy, g, pg, { base: base.input, pr: pr.input });
    fillRow(t, at++, k, g, b.listed(i) ? i : -1, pg, j >= 0 && p.listed(j) ? j : -1, ps);
  });
  p.forEachEntry((k, g, j) => {
    if (inBase[j] === 0) fillRow(t, at++, k, undefined, -1, g, p.listed(j) ? j : -1, ps);
  });

  // Totals are the sum of the rows, in whole counts and ticks (or exact figures per step) so that no rounding
  // creeps in.
  let bc = 0;
  let pc = 0;
  let bt = 0;
  let pt = 0;
  for (let i = 0; i < n; i++) {
    const bg = t.group(i, 0);
    const pg = t.group(i, 1);
    if (bg !== undefined) {
      bc += totalFigure(bg, 0);
      bt += totalFigure(bg, 1);
    }
    if (pg !== undefined) {
      pc += totalFigure(pg, 0);
      pt += totalFigure(pg, 1);
    }
  }
  if (bc !== base.totals.count || pc !== pr.totals.count || bt !== base.totals.ticks || pt !== pr.totals.ticks) {
    throw new Error('diff totals do not add up to the sum of the rows (a bug in kprof)');
  }
  let bs = side(bc, bt);
  let prs = side(pc, pt);
  if (ps) {
    const sum = (m: Map<string, PerStep>): PerStep => t.keys.reduce((x, k) => addPerStep(x, m.get(k) ?? ZERO_PER_STEP), ZERO_PER_STEP);
    if (!samePerStep(sum(ps.base), bps) || !samePerStep(sum(ps.pr), pps)) {
      throw new Error('diff totals per step do not add up to the sum of the rows (a bug in kprof)');
    }
    bs = perStepSide(bps);
    prs = perStepSide(pps);
  }
  const deltaUsPct = pct(prs.us - bs.us, bs.us);
  const totals: DiffTotals = {
    base: bs,
    pr: prs,
    deltaCount: prs.count - bs.count,
    deltaCountPct: pct(prs.count - bs.count, bs.count),
    deltaUs: prs.us - bs.us,
    deltaUsPct,
    ...judged(bs, prs, deltaUsPct, tol, null, DEFAULT_ALPHA),
  };
  const alpha = opts.alpha ?? DEFAULT_ALPHA;
  const sides = { base, pr };
  const timeTestSummary = judgeRows(sampleSource(base, pr), t, totals, tol, alpha, sides);
  // The rows in the default order (SORTS['delta-count']).
  const order = t.deltaCountOrder();
  const rows = t.views(order);
  const { pairs, paired, unpaired } = pairRanks(base, pr);
  const baseSteps = base.hasSteps ? base.stepIds.length : null;
  const prSteps = pr.hasSteps ? pr.stepIds.length : null;
  // Steps are compared rank by rank, as check compares a rank with its base rank (ranks with offset Step Ids
  // have as many steps as before); without paired ranks, side by side.
  const mismatchRanks =
    base.hasSteps && pr.hasSteps
      ? pairs.filter(({ b, p }) => b.steps.length !== p.steps.length).map(({ rank, b, p }) => ({ rank, base: b.steps.length, pr: p.steps.length }))
      : [];
  const stepsDiffer = base.hasSteps !== pr.hasSteps || (pairs.length > 0 ? mismatchRanks.length > 0 : baseSteps !== prSteps);
  // Raw counts of a rank that lost a step show the lost step as a change: then ranks are compared per step of
  // each rank, when every paired rank has steps on both sides.
  const ranksPerStep = perStep || (mismatchRanks.length > 0 && pairs.every(({ b, p }) => b.steps.length > 0 && p.steps.length > 0));
  checkRanks(paired.length >= 2 ? pairs : [], t, order, rows, sides, ranksPerStep);
  const unpairedSteps = checkSteps(pairs, t, order, rows, sides);
  return {
    groupBy: base.groupBy,
    selection: base.selection,
    normalization: opts.normalization,
    timeTolerancePct: tol,
    alpha,
    timeTestSummary,
    base: sideInfo(base),
    pr: sideInfo(pr),
    stepMismatch: !perStep && stepsDiffer,
    stepMismatchRanks: perStep ? [] : mismatchRanks,
    withoutStep: perStep ? { base: base.totals.count - totalStepped(base), pr: pr.totals.count - totalStepped(pr) } : { base: 0, pr: 0 },
    rows,
    totals,
    ranksPerStep: ranksPerStep && paired.length >= 2,
    unpairedSteps,
    pairedRanks: paired,
    unpairedRanks: unpaired,
    ...(base.stepTime && pr.stepTime ? { stepTime: diffStepTime(base.stepTime, pr.stepTime, tol) } : {}),
  };
}

/** How rows are shown: order, filter, how many. */
export interface DiffView {
  sort: DiffSort;
  only: DiffOnly | null;
  top: number | null;
  /**
   * The two summaries the diff was made of, for the reporters that show more than the Diff holds (the HTML
   * report's charts: kernels per step, each rank's figures); `kprof diff` always gives them.
   */
  sides?: { base: Summary; pr: Summary };
}

export const DEFAULT_DIFF_VIEW: DiffView = { sort: 'delta-count', only: null, top: null };

/** The rows a view leaves out, summed, so that shown rows + others = totals. */
export interface DiffOthers {
  groups: number;
  base: Side;
  pr: Side;
  deltaCount: number;
  deltaUs: number;
  /**
   * The time change of the rows left out, judged by the test over the per-step sums of their kernels when the
   * view has the two summaries (`sides`), else by --time-tolerance alone.
   */
  timeTest: TimeJudgement;
}

export interface DiffViewRows {
  /** The rows shown, in order: the diff's own list when it shows all of them in its order (read it, never write to it). */
  rows: readonly DiffRow[];
  others: DiffOthers | null;
}

function keeps(only: DiffOnly | null, r: DiffRow): boolean {
  if (only === null) return true;
  if (only === 'changed') return r.status !== 'same';
  return r.status === only;
}

/** Apply --sort, --only and --top; the rows left out are folded into `others`. */
export function viewDiff(d: Diff, view: DiffView): DiffViewRows {
  // No --only, and the diff's order (the default sort): the diff's own list, not two copies of a million rows.
  const kept = rowsInOrder(view.only === null ? d.rows : d.rows.filter((r) => keeps(view.only, r)), view.sort);
  const rows = view.top !== null ? kept.slice(0, view.top) : kept;
  // Every row shown (no --only, no --top): nothing is folded, and no Set of a million rows is made to say so.
  if (rows.length === d.rows.length) return { rows, others: null };
  // The rows left out, in the diff's order: past --top of rows in that order already, else found by a Set.
  const inOrder = kept === d.rows || (view.only === null && kept.length === d.rows.length && kept.every((r, i) => r === d.rows[i]));
  const shown = inOrder ? null : new Set(rows);
  const hidden = inOrder ? kept.slice(rows.length) : d.rows.filter((r) => !shown!.has(r));
  if (hidden.length === 0) return { rows, others: null };
  return { rows, others: foldRows(d, hidden, view.sides) };
}

/**
 * Rows summed into one (the `(K more groups)` row), their time change judged by the test over the per-step sums
 * of their kernels when the two summaries are given, else by --time-tolerance alone.
 */
export function foldRows(d: Diff, hidden: DiffRow[], sides?: { base: Summary; pr: Summary }): DiffOthers {
  const base = { count: 0, us: 0 };
  const pr = { count: 0, us: 0 };
  for (const r of hidden) {
    const b = r.base;
    const p = r.pr;
    base.count += b.count;
    base.us += b.us;
    pr.count += p.count;
    pr.us += p.us;
  }
  const deltaUs = pr.us - base.us;
  const samples = sides ? (foldedPairSamples(hidden, sides) ?? samplesOfKeys(sides, hidden)) : null;
  const { timeTest } = judged(base, pr, base.us === 0 ? null : (100 * deltaUs) / base.us, d.timeTolerancePct, samples, d.alpha);
  return { groups: hidden.length, base, pr, deltaCount: pr.count - base.count, deltaUs, timeTest };
}

/** The samples of rows folded into one, their groups looked up by key in each rank (null: a side has no step). */
function samplesOfKeys(sides: { base: Summary; pr: Summary }, rows: DiffRow[]): RowSamples | null {
  const src = sampleSource(sides.base, sides.pr);
  return src === null
    ? null
    : samplesOf(
        src,
        rows.map((r) => r.key),
      );
}

/**
 * The samples of rows folded into one of a diff of one rank against one, each its summary's own list, read from
 * the rows' groups (pairListSamples); undefined when the sides are otherwise, or a row is not a table's.
 */
function foldedPairSamples(rows: DiffRow[], sides: { base: Summary; pr: Summary }): RowSamples | null | undefined {
  const { base, pr } = sides;
  if (!oneList(base) || !oneList(pr)) return undefined;
  if (!base.hasSteps || !pr.hasSteps) return null;
  const b = new StepSums();
  const p = new StepSums();
  for (const r of rows) {
    const t = tableRow(r);
    if (t === null) return undefined;
    const bg = t.group('base');
    const pg = t.group('pr');
    if (bg !== undefined) b.add(bg);
    if (pg !== undefined) p.add(pg);
  }
  return pairSumSamples(base.perRank[0]!.steps.length, pr.perRank[0]!.steps.length, b, p);
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
