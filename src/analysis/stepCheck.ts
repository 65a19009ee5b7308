// The diff's per-step check (diff.ts runs it on the rows): on every pair of ranks that both have steps, is each
// row's change the same in every step? A fusion that took effect in some steps only shows here. Each row's group
// on a rank is the row's own where the rank is its side's one summary list (rankGroups): a diff by name of a
// million rows looks nothing up then.

import type { RankSummary, Summary } from '../model/model.js';
import { stepFigures, type Group } from '../model/model.js';
import { totalFigure } from '../model/fineGroups.js';
import { NO_UNEVEN_STEPS, type DiffRow, type DiffRowTable, type StepChange } from './diffRows.js';
import { rankGroups } from './rowGroups.js';

/** A paired rank whose Step Ids are not the same on both sides, and the groups there that vary from step to step. */
export interface UnpairedSteps {
  rank: string;
  /** The rank's Step Ids on each side. */
  base: number[];
  pr: number[];
  /**
   * Groups whose count is not the same in every step of the rank (on either side): their figures depend on
   * which steps each side profiled.
   */
  varying: string[];
  /** Of those, the groups with PR steps that were not compared one by one (no base step of the same Step Id). */
  notCompared: string[];
}

/** The value most items of a list show (more than half), or null. */
export function majorityOf<T>(items: T[], key: (t: T) => string): { key: string; n: number } | null {
  const tally = new Map<string, number>();
  for (const t of items) {
    const k = key(t);
    tally.set(k, (tally.get(k) ?? 0) + 1);
  }
  for (const [k, n] of tally) if (2 * n > items.length) return { key: k, n };
  return null;
}

/** One pair of ranks, ready for the check: its groups by row, its steps, and what it found. */
interface PairState {
  rank: string;
  p: RankSummary;
  baseGroup: (i: number) => Group | undefined;
  prGroup: (i: number) => Group | undefined;
  same: boolean;
  /** The index of each base Step Id in b.steps, and of each PR Step Id in p.steps. */
  baseAt: Map<number, number>;
  prAt: Map<number, number>;
  /** The row's count in each step of each side (filled anew for each row). */
  bv: number[];
  pv: number[];
  varying: string[];
  notCompared: string[];
}

/**
 * Per-step check, on every pair of ranks that both have steps. Each PR step is compared with the base step of
 * the same Step Id; a PR step whose Step Id the base lacks (offset Step Ids, a lost or extra step) is compared
 * with the base's count per step only when the base ran the group alike in every step (otherwise it is not
 * compared). A step where the group is absent on both sides is not compared (a kernel of even steps only). The
 * change most steps show is the reference (without a majority: no change); the steps with another change are
 * listed, so a fusion that took effect in 2 steps of 4 is seen. Steps are never paired by position: a workload
 * whose steps differ from one another would show changes that never happened. Returns the ranks whose Step
 * Ids differ, with the groups that vary from step to step there.
 *
 * `rows[k]` is the row of index `order[k]` in the table; the lists of groups are in the order of `rows`.
 */
export function checkSteps(
  pairs: { rank: string; b: RankSummary; p: RankSummary }[],
  t: DiffRowTable,
  order: ArrayLike<number>,
  rows: DiffRow[],
  sides: { base: Summary; pr: Summary },
): UnpairedSteps[] {
  const withSteps = pairs.filter(({ b, p }) => b.steps.length > 0 && p.steps.length > 0);
  if (withSteps.length === 0) return [];
  const states = withSteps.map(
    ({ rank, b, p }): PairState => ({
      rank,
      p,
      baseGroup: rankGroups(t, 'base', sides.base, b),
      prGroup: rankGroups(t, 'pr', sides.pr, p),
      same: sameIds(b.steps, p.steps),
      baseAt: new Map(b.steps.map((st, i) => [st, i])),
      prAt: new Map(p.steps.map((st, i) => [st, i])),
      bv: new Array<number>(b.steps.length).fill(0),
      pv: new Array<number>(p.steps.length).fill(0),
      varying: [],
      notCompared: [],
    }),
  );
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    for (const x of states) {
      const uneven = checkRow(x, x.baseGroup(i), x.prGroup(i), t.keys[i]!);
      if (uneven === null) continue;
      const row = rows[k]!;
      if (row.unevenSteps === NO_UNEVEN_STEPS) row.unevenSteps = [];
      row.unevenSteps.push({ rank: x.rank, ...uneven });
    }
  }
  return withSteps
    .map(({ b, p }, i) => ({ rank: states[i]!.rank, base: b.steps, pr: p.steps, varying: states[i]!.varying, notCompared: states[i]!.notCompared }))
    .filter((x) => x.varying.length > 0);
}

/** One row on one pair of ranks: its steps whose change differs (null: none), noting the row as varying there. */
function checkRow(x: PairState, bg: Group | undefined, pg: Group | undefined, key: string): Omit<DiffRow['unevenSteps'][number], 'rank'> | null {
  if ((bg === undefined || totalFigure(bg, 0) === 0) && (pg === undefined || totalFigure(pg, 0) === 0)) return null;
  // Each side's count per step, in one walk of the group's cells.
  const { bv, pv, p, baseAt } = x;
  countsInto(bg, x.baseAt, bv);
  countsInto(pg, x.prAt, pv);
  const uniform = allEqual(bv);
  if (!x.same && !(uniform && allEqual(pv))) x.varying.push(key);
  // Most groups change alike in every step (or not at all): the steps are only listed when they differ.
  let missed = false;
  let first: number | null = null;
  let differ = false;
  for (let k = 0; k < p.steps.length; k++) {
    if (!uniform && !baseAt.has(p.steps[k]!)) missed = true;
    const base = compared(x, k, uniform);
    if (base === null) continue;
    const delta = pv[k]! - base;
    if (first === null) first = delta;
    else if (delta !== first) differ = true;
  }
  if (missed) x.notCompared.push(key);
  if (!differ) return null;
  const changes: StepChange[] = [];
  for (let k = 0; k < p.steps.length; k++) {
    const base = compared(x, k, uniform);
    if (base === null) continue;
    const st = p.steps[k]!;
    changes.push({ step: st, baseStep: baseAt.has(st) ? st : null, base, pr: pv[k]!, deltaCount: pv[k]! - base });
  }
  // Without a majority, the steps that did not change are the reference: a fusion that took effect in 2
  // steps of 4 lists those 2.
  const unchanged = changes.filter((c) => c.deltaCount === 0).length;
  const m = majorityOf(changes, (c) => String(c.deltaCount)) ?? (unchanged > 0 ? { key: '0', n: unchanged } : null);
  return {
    stepsCompared: changes.length,
    reference: m === null ? null : { deltaCount: Number(m.key), steps: m.n },
    steps: changes.filter((c) => String(c.deltaCount) !== m?.key),
  };
}

/** The base count PR step `k` is compared with, or null when not compared (absent on both sides in that step). */
function compared(x: PairState, k: number, uniform: boolean): number | null {
  const at = x.baseAt.get(x.p.steps[k]!);
  const base = at !== undefined ? x.bv[at]! : uniform ? x.bv[0]! : null;
  return base === null || (base === 0 && x.pv[k] === 0) ? null : base;
}

/** The count of a group (none: 0) in each step of a rank, given as the index of each of its Step Ids, into `out`. */
function countsInto(g: Group | undefined, at: ReadonlyMap<number, number>, out: number[]): void {
  out.fill(0);
  if (g === undefined) return;
  // One loop over the cells' figures (read in place): it runs once a diff, before it is optimised.
  const { buf, at: from, n } = stepFigures(g.steps);
  for (let o = from, end = from + 5 * n; o < end; o += 5) {
    const k = at.get(buf[o]!);
    if (k !== undefined) out[k] = buf[o + 1]!;
  }
}

function allEqual(v: readonly number[]): boolean {
  for (let i = 1; i < v.length; i++) if (v[i] !== v[0]) return false;
  return true;
}

function sameIds(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
