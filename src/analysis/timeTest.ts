// Is a diff's time change real, or step noise? The profile measures every step, so each step of each rank is a
// sample: a group's kernel time in that step (0 in a step where it does not run). The two sides' samples are
// compared by the Mann–Whitney U test (noise.ts, two-sided); a change is shown as a number only when p < alpha
// AND it is beyond --time-tolerance (the minimum effect size). Otherwise it is `~`.
//
// - A rank contributes its steps to a group's samples when the group runs on that rank on either side (a
//   pipeline stage that never runs it adds nothing; an added or removed group adds that rank's zeros).
// - The totals line is tested the same way on each rank's total kernel time per step.
// - The test needs the samples to hold the row's kernels: a row with kernels outside any step (no Step Id, an
//   op_statistic input, a rank without steps) on either side is judged by --time-tolerance alone (`no-steps`),
//   and so is one with too few samples to ever reach p < alpha (`too-few`: 2 against 2 steps cannot).
// - A time against zero (a group added or removed, or no time on either side) is never `~`: not a question of
//   noise.

import type { Group, RankSummary, Summary } from '../model/model.js';
import { mannWhitneyWithZeros, smallestP, type UTest } from './noise.js';

export const DEFAULT_ALPHA = 0.05;

/**
 * `changed`: p < alpha and beyond the tolerance, shown as a number. `noise`: p ≥ alpha, `~`. `small`: p < alpha
 * but within the tolerance, `~`. `too-few` and `no-steps`: not tested (see above), judged by the tolerance
 * alone. `zero`: a side has no kernel time, shown as it is.
 */
export const TIME_VERDICTS = ['changed', 'noise', 'small', 'too-few', 'no-steps', 'zero'] as const;
export type TimeVerdict = (typeof TIME_VERDICTS)[number];

/** How a time change was judged. */
export interface TimeJudgement {
  verdict: TimeVerdict;
  /** The change is within ±--time-tolerance (both sides non-zero). */
  withinTolerance: boolean;
  /** The test over per-step samples; null when there were none to test (`no-steps`, or `zero` without samples). */
  test: UTest | null;
}

/** The time change is shown as `~`. */
export function isTimeNoise(j: TimeJudgement): boolean {
  return j.verdict === 'noise' || j.verdict === 'small' || ((j.verdict === 'too-few' || j.verdict === 'no-steps') && j.withinTolerance);
}

/** One side's per-step samples of a row: the values of the steps it runs in, and how many steps it does not. */
export interface StepSamples {
  values: Float64Array;
  zeros: number;
  /** Every kernel of the row on this side is in a step (so in the samples). */
  complete: boolean;
}

/**
 * Judge one row's (or the totals') time change. `withinTolerance` as the diff computed it on the shown figures;
 * `samples` null when the inputs have no per-step cells.
 */
export function judgeTime(
  baseUs: number,
  prUs: number,
  withinTolerance: boolean,
  samples: { base: StepSamples; pr: StepSamples } | null,
  alpha: number,
): TimeJudgement {
  const usable = samples !== null && samples.base.complete && samples.pr.complete;
  const n1 = usable ? samples.base.values.length + samples.base.zeros : 0;
  const n2 = usable ? samples.pr.values.length + samples.pr.zeros : 0;
  const test = usable && n1 > 0 && n2 > 0 ? mannWhitneyWithZeros(samples.base.values, samples.base.zeros, samples.pr.values, samples.pr.zeros) : null;
  if (baseUs === 0 || prUs === 0) return { verdict: 'zero', withinTolerance: false, test };
  if (test === null) return { verdict: 'no-steps', withinTolerance, test };
  if (smallestP(n1, n2) >= alpha) return { verdict: 'too-few', withinTolerance, test };
  if (test.p >= alpha) return { verdict: 'noise', withinTolerance, test };
  return { verdict: withinTolerance ? 'small' : 'changed', withinTolerance, test };
}

/** One rank of one side, indexed for sampling. */
interface RankIndex {
  rank: string;
  steps: number;
  groups: Map<string, Group>;
}

/** Both sides, indexed by rank: what a diff needs to draw samples for any set of groups. */
export interface SampleSource {
  base: RankIndex[];
  pr: RankIndex[];
  /** The same rank of the other side, by this side's rank id (one rank against one: each other, whatever the ids). */
  otherOfBase: Map<string, RankIndex>;
  otherOfPr: Map<string, RankIndex>;
}

function indexRanks(s: Summary): RankIndex[] {
  return s.perRank.map((r: RankSummary) => ({ rank: r.rank, steps: r.steps.length, groups: new Map(r.groups.map((g) => [g.key, g])) }));
}

/** Index two summaries for sampling; null when a side has no Step Id at all (nothing to test). */
export function sampleSource(base: Summary, pr: Summary): SampleSource | null {
  if (!base.hasSteps || !pr.hasSteps) return null;
  const b = indexRanks(base);
  const p = indexRanks(pr);
  const one = b.length === 1 && p.length === 1;
  const byId = (xs: RankIndex[]) => new Map(xs.map((x) => [x.rank, x]));
  return {
    base: b,
    pr: p,
    otherOfBase: one ? new Map([[b[0]!.rank, p[0]!]]) : byId(p),
    otherOfPr: one ? new Map([[p[0]!.rank, b[0]!]]) : byId(b),
  };
}

const runs = (r: RankIndex | undefined, keys: readonly string[] | null): boolean => {
  if (r === undefined) return false;
  if (keys === null) return r.groups.size > 0;
  return keys.some((k) => (r.groups.get(k)?.total.count ?? 0) > 0);
};

/**
 * One side's samples of a set of groups (null: all of them, the totals): per rank where they run on either side,
 * per step of the rank, the sum of their kernel time in that step, in ticks.
 */
function sideSamples(ranks: RankIndex[], other: Map<string, RankIndex>, keys: readonly string[] | null): StepSamples {
  const values: number[] = [];
  let zeros = 0;
  let complete = true;
  for (const r of ranks) {
    if (!runs(r, keys) && !runs(other.get(r.rank), keys)) continue;
    const groups = keys === null ? [...r.groups.values()] : keys.map((k) => r.groups.get(k)).filter((g) => g !== undefined);
    if (groups.length === 1) {
      // One group (the common case): its step cells are the samples, no sum needed.
      const g = groups[0]!;
      let ticks = 0;
      let cells = 0;
      for (const c of g.steps.values()) {
        if (c.count === 0) continue;
        values.push(c.ticks);
        ticks += c.ticks;
        cells++;
      }
      if (ticks !== g.total.ticks || (r.steps === 0 && g.total.count > 0)) complete = false;
      zeros += Math.max(0, r.steps - cells);
      continue;
    }
    const perStep = new Map<number, number>();
    let stepped = 0;
    let total = 0;
    for (const g of groups) {
      total += g.total.ticks;
      for (const [st, c] of g.steps) {
        if (c.count === 0) continue;
        perStep.set(st, (perStep.get(st) ?? 0) + c.ticks);
        stepped += c.ticks;
      }
    }
    if (stepped !== total) complete = false;
    for (const v of perStep.values()) values.push(v);
    zeros += Math.max(0, r.steps - perStep.size);
  }
  return { values: Float64Array.from(values), zeros, complete };
}

/** Both sides' samples of a set of groups (null: the totals). */
export function samplesOf(src: SampleSource, keys: readonly string[] | null): { base: StepSamples; pr: StepSamples } {
  return { base: sideSamples(src.base, src.otherOfBase, keys), pr: sideSamples(src.pr, src.otherOfPr, keys) };
}

/** Of the rows judged, how many were not tested, and why (said once in the report). */
export interface TimeTestSummary {
  alpha: number;
  /** Rows (and the totals) judged by --time-tolerance alone. */
  tooFew: number;
  noSteps: number;
  /** Rows (and the totals) the test made `~` although beyond the tolerance. */
  noise: number;
  /** Rows tested: the samples held their kernels and could reach p < alpha. */
  tested: number;
}
