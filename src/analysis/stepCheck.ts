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
  baseSteps: number;
  /** The base's Step Ids, by index. */
  baseIds: number[];
  /** PR steps whose Step Id the base lacks. */
  notInBase: number;
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
      baseSteps: b.steps.length,
      baseIds: b.steps,
      notInBase: notIn(p.steps, b.steps),
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

/**
 * One row on one pair of ranks: its steps whose change differs (null: none), noting the row as varying there. Walks
 * the group's cells only (the steps it ran in), not every step: a profile of 80,000 steps of a kernel type each took
 * minutes when each of its groups walked every step. The PR steps where the group did not run and whose Step Id the
 * base lacks ("default" steps) are alike: counted, and listed only when they are not the reference.
 */
function checkRow(x: PairState, bg: Group | undefined, pg: Group | undefined, key: string): Omit<DiffRow['unevenSteps'][number], 'rank'> | null {
  if ((bg === undefined || totalFigure(bg, 0) === 0) && (pg === undefined || totalFigure(pg, 0) === 0)) return null;
  const { p, baseAt, prAt } = x;
  // Each side's counts by step index, where not 0.
  const bc = countsOf(bg, baseAt);
  const pc = countsOf(pg, prAt);
  const b0 = bc.size === 0 ? 0 : bc.values().next().value!;
  const uniform = bc.size === 0 || (bc.size === x.baseSteps && allEqual(bc));
  const prUniform = pc.size === 0 || (pc.size === p.steps.length && allEqual(pc));
  if (!x.same && !(uniform && prUniform)) x.varying.push(key);
  if (!uniform && x.notInBase > 0) x.notCompared.push(key);
  // The steps compared where the group ran on either side (PR index → change), then the default steps.
  const explicit = new Map<number, StepChange>();
  pc.forEach((pr, k) => {
    const st = p.steps[k]!;
    const at = baseAt.get(st);
    const base = at !== undefined ? (bc.get(at) ?? 0) : uniform ? b0 : null;
    if (base !== null) explicit.set(k, { step: st, baseStep: at !== undefined ? st : null, base, pr, deltaCount: pr - base });
  });
  bc.forEach((base, j) => {
    const st = x.baseIds[j]!;
    const k = prAt.get(st);
    if (k !== undefined && !pc.has(k)) explicit.set(k, { step: st, baseStep: st, base, pr: 0, deltaCount: -base });
  });
  let defaults = 0;
  if (uniform && b0 !== 0) {
    defaults = x.notInBase;
    pc.forEach((_, k) => {
      if (!baseAt.has(p.steps[k]!)) defaults--;
    });
  }
  const tally = new Map<number, number>();
  explicit.forEach((c) => {
    tally.set(c.deltaCount, (tally.get(c.deltaCount) ?? 0) + 1);
  });
  if (defaults > 0) tally.set(-b0, (tally.get(-b0) ?? 0) + defaults);
  if (tally.size <= 1) return null;
  const compared = explicit.size + defaults;
  // Without a majority, the steps that did not change are the reference: a fusion that took effect in 2
  // steps of 4 lists those 2.
  let m: { delta: number; n: number } | null = null;
  tally.forEach((n, delta) => {
    if (m === null && 2 * n > compared) m = { delta, n };
  });
  const unchanged = tally.get(0) ?? 0;
  const ref: { delta: number; n: number } | null = m ?? (unchanged > 0 ? { delta: 0, n: unchanged } : null);
  const listed = (d: number): boolean => ref === null || d !== ref.delta;
  let steps: StepChange[];
  if (defaults > 0 && listed(-b0)) {
    steps = [];
    for (let k = 0; k < p.steps.length; k++) {
      const c = explicit.get(k);
      if (c !== undefined) {
        if (listed(c.deltaCount)) steps.push(c);
      } else if (!baseAt.has(p.steps[k]!)) steps.push({ step: p.steps[k]!, baseStep: null, base: b0, pr: 0, deltaCount: -b0 });
    }
  } else
    steps = [...explicit]
      .filter(([, c]) => listed(c.deltaCount))
      .sort(([a], [b]) => a - b)
      .map(([, c]) => c);
  return { stepsCompared: compared, reference: ref === null ? null : { deltaCount: ref.delta, steps: ref.n }, steps };
}

/** A group's count (not 0) in the steps of a rank, by the index of each Step Id (`at`). */
function countsOf(g: Group | undefined, at: ReadonlyMap<number, number>): Map<number, number> {
  const out = new Map<number, number>();
  if (g === undefined) return out;
  // One loop over the cells' figures (read in place): it runs once a diff, before it is optimised.
  const { buf, at: from, n } = stepFigures(g.steps);
  for (let o = from, end = from + 5 * n; o < end; o += 5) {
    const k = at.get(buf[o]!);
    if (k !== undefined && buf[o + 1]! !== 0) out.set(k, buf[o + 1]!);
  }
  return out;
}

function allEqual(v: ReadonlyMap<number, number>): boolean {
  let first: number | null = null;
  for (const x of v.values()) {
    if (first === null) first = x;
    else if (x !== first) return false;
  }
  return true;
}

/** How many of `ids` are not among `of`. */
function notIn(ids: number[], of: number[]): number {
  const set = new Set(of);
  return ids.filter((st) => !set.has(st)).length;
}

function sameIds(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
