// Is a diff's time change real, or step noise? The profile measures every step, so each step of each rank is a
// sample: a group's kernel time in that step (0 in a step where it does not run). The two sides' samples are
// compared by the Mann–Whitney U test (noise.ts, two-sided), rank by rank: each pair of ranks (the same rank id
// on both sides) is a stratum, combined by van Elteren's test, as a rank's steps are alike but ranks are not
// (pipeline stages); one rank against one is the plain test. A change is shown as a number only when p < alpha
// AND it is beyond --time-tolerance (the minimum effect size). Otherwise it is `~`.
//
// - A pair of ranks contributes its steps to a group's samples when the group runs there on either side (a
//   pipeline stage that never runs it adds nothing; an added or removed group adds that rank's zeros). Ranks on
//   one side only are in no stratum: a row with kernels there is judged by the tolerance alone. With no rank id
//   on both sides (but one rank against one, a pair whatever the ids), every rank is on one side only.
// - The totals line is tested the same way on each rank's total kernel time per step.
// - The test needs the samples to hold the row's kernels: a row with kernels outside any step (no Step Id, an
//   op_statistic input, a rank without steps, a rank on one side only) is judged by --time-tolerance alone
//   (`no-steps`), and so is one with too few samples to ever reach p < alpha (`too-few`: one step per rank on
//   two ranks cannot, 2 · (1/2)² = 0.5; nor can 2 against 2 steps).
// - A time against zero (a group added or removed, or no time on either side) is never `~`: not a question of
//   noise.

import { stepFigures, type Group, type RankSummary, type Summary } from '../model/model.js';
import { groupsByKey } from '../aggregate/group.js';
import { totalFigure } from '../model/fineGroups.js';
import type { KeyIndex } from '../aggregate/keyIndex.js';
import { smallestStratifiedP, stratifiedU, type Stratum, type UTest } from './noise.js';

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
  /** Pairs of ranks (strata) with samples on both sides. */
  strata: number;
}

/** The time change is shown as `~`. */
export function isTimeNoise(j: TimeJudgement): boolean {
  return j.verdict === 'noise' || j.verdict === 'small' || ((j.verdict === 'too-few' || j.verdict === 'no-steps') && j.withinTolerance);
}

/** One side's per-step samples of a row on one rank: the values of the steps it runs in, and the steps it does not. */
export interface StepSamples {
  values: Float64Array;
  zeros: number;
}

/** A row's samples: one stratum per paired rank (base and PR), and whether they hold all of its kernels. */
export interface RowSamples {
  strata: Stratum[];
  /** Every kernel of the row on both sides is in a step of a rank in the strata (so in the samples). */
  complete: boolean;
}

/**
 * Judge one row's (or the totals') time change. `withinTolerance` as the diff computed it on the shown figures;
 * `samples` null when the inputs have no per-step cells.
 */
export function judgeTime(baseUs: number, prUs: number, withinTolerance: boolean, samples: RowSamples | null, alpha: number): TimeJudgement {
  const usable = samples?.complete === true;
  const sizes = usable ? samples!.strata.map((s) => ({ n1: s.a.length + s.zerosA, n2: s.b.length + s.zerosB })) : [];
  const strata = sizes.filter((x) => x.n1 > 0 && x.n2 > 0).length;
  const test = strata > 0 ? stratifiedU(samples!.strata) : null;
  if (baseUs === 0 || prUs === 0) return { verdict: 'zero', withinTolerance: false, test, strata };
  if (test === null) return { verdict: usable ? 'too-few' : 'no-steps', withinTolerance, test, strata };
  if (smallestStratifiedP(sizes) >= alpha) return { verdict: 'too-few', withinTolerance, test, strata };
  if (test.p >= alpha) return { verdict: 'noise', withinTolerance, test, strata };
  return { verdict: withinTolerance ? 'small' : 'changed', withinTolerance, test, strata };
}

/** One rank of one side, indexed for sampling. */
interface RankIndex {
  rank: string;
  steps: number;
  groups: KeyIndex;
}

/**
 * Both sides, indexed by rank: what a diff needs to draw samples for any set of groups. Each pair of ranks is a
 * stratum (ranks on one side only are left out of the test); one rank against one is a pair whatever their ids.
 * Without a pair (no rank id in common), every rank is unpaired and nothing is tested.
 */
export interface SampleSource {
  pairs: { base: RankIndex[]; pr: RankIndex[] }[];
  /** Ranks on one side only (their kernels are in no stratum, so a row with kernels there is not tested). */
  unpaired: { base: RankIndex[]; pr: RankIndex[] };
}

function indexRanks(s: Summary): RankIndex[] {
  return s.perRank.map((r: RankSummary) => ({ rank: r.rank, steps: r.steps.length, groups: groupsByKey(r.groups) }));
}

/** Index two summaries for sampling; null when a side has no Step Id at all (nothing to test). */
export function sampleSource(base: Summary, pr: Summary): SampleSource | null {
  if (!base.hasSteps || !pr.hasSteps) return null;
  const b = indexRanks(base);
  const p = indexRanks(pr);
  if (b.length === 1 && p.length === 1) return { pairs: [{ base: b, pr: p }], unpaired: { base: [], pr: [] } };
  const pi = new Map(p.map((x) => [x.rank, x]));
  const bi = new Map(b.map((x) => [x.rank, x]));
  const pairs = b.filter((x) => pi.has(x.rank)).map((x) => ({ base: [x], pr: [pi.get(x.rank)!] }));
  // No rank id on both sides (and not one rank against one): every rank is on one side only, so no row is tested.
  // Pooling the ranks of each side would test one rank's time per step while the row shows the sum over ranks:
  // two ranks against one halve the row's time with every sample alike, and the test would call -50% noise.
  return { pairs, unpaired: { base: b.filter((x) => !pi.has(x.rank)), pr: p.filter((x) => !bi.has(x.rank)) } };
}

const runsOn = (r: RankIndex, keys: readonly string[] | null): boolean =>
  keys === null ? r.groups.size > 0 : keys.some((k) => (r.groups.get(k)?.total.count ?? 0) > 0);

/**
 * The samples of a set of groups (null: all of them, the totals) on some ranks of one side: per rank, per step
 * of the rank, the sum of their kernel time in that step, in ticks. `complete` is false when some of their
 * kernels are in no step.
 */
function rankSamples(ranks: RankIndex[], keys: readonly string[] | null): StepSamples & { complete: boolean } {
  const values: number[] = [];
  let zeros = 0;
  let complete = true;
  for (const r of ranks) {
    // The totals sum every group of the rank as it comes: a list of them held at once (a rank of a million names
    // made on read) lived long enough to be promoted, 100 MB and more of old garbage a side.
    const groups = keys === null ? null : keys.map((k) => r.groups.get(k)).filter((g) => g !== undefined);
    const one =
      groups === null
        ? severalGroupsSamples(r.steps, r.groups.values(), values)
        : groups.length <= 1
          ? oneGroupSamples(r.steps, groups[0], values)
          : severalGroupsSamples(r.steps, groups, values);
    zeros += one.zeros;
    complete &&= one.complete;
  }
  return { values: Float64Array.from(values), zeros, complete };
}

/**
 * The samples of one group (undefined: none) on a rank of `steps` steps, pushed to `values`: its step cells are
 * the samples, no sum needed (the common case).
 */
function oneGroupSamples(steps: number, g: Group | undefined, values: number[]): { zeros: number; complete: boolean } {
  if (g === undefined) return { zeros: steps, complete: true };
  let ticks = 0;
  let cells = 0;
  // This runs before the code is optimised, where an iterator, a cell object or a call per cell costs several
  // times the cell's work: the cells' figures are read in place, in one loop.
  const { buf, at, n } = stepFigures(g.steps);
  for (let o = at, end = at + 5 * n; o < end; o += 5) {
    if (buf[o + 1] === 0) continue;
    const t = buf[o + 2]!;
    values.push(t);
    ticks += t;
    cells++;
  }
  return { zeros: Math.max(0, steps - cells), complete: !(ticks !== totalFigure(g, 1) || (steps === 0 && totalFigure(g, 0) > 0)) };
}

/** The samples of several groups on a rank of `steps` steps, pushed to `values`: per step, the sum of their times. */
function severalGroupsSamples(steps: number, groups: Iterable<Group>, values: number[]): { zeros: number; complete: boolean } {
  const sums = new StepSums();
  for (const g of groups) sums.add(g);
  return sums.samples(steps, values);
}

/** Groups of one rank added one by one: their time per step, and whether all of it is in a step. */
export class StepSums {
  private readonly perStep = new Map<number, number>();
  private stepped = 0;
  private total = 0;
  /** Their kernels. */
  count = 0;

  add(g: Group): void {
    this.total += g.total.ticks;
    this.count += g.total.count;
    const { buf, at, n } = stepFigures(g.steps);
    const perStep = this.perStep;
    for (let o = at, end = at + 5 * n; o < end; o += 5) {
      if (buf[o + 1] === 0) continue;
      const st = buf[o]!;
      const t = buf[o + 2]!;
      perStep.set(st, (perStep.get(st) ?? 0) + t);
      this.stepped += t;
    }
  }

  /** The sums as samples of a rank of `steps` steps, pushed to `values` (a step they do not run in is a zero). */
  samples(steps: number, values: number[]): { zeros: number; complete: boolean } {
    for (const v of this.perStep.values()) values.push(v);
    return { zeros: Math.max(0, steps - this.perStep.size), complete: !(this.stepped !== this.total || (steps === 0 && this.count > 0)) };
  }
}

/**
 * samplesOf one row of a diff of one rank against one whose groups are each summary's own list (so the row's
 * group on each side is the rank's: `bg` and `pg`, undefined where the side has none), without looking its key
 * up in each rank's index (a diff by name looks up millions).
 */
export function pairSamples(src: SampleSource, bg: Group | undefined, pg: Group | undefined): RowSamples {
  const pair = src.pairs[0];
  if (src.pairs.length !== 1 || pair!.base.length !== 1 || pair!.pr.length !== 1) throw new Error('pairSamples: not one rank against one');
  if ((bg === undefined || totalFigure(bg, 0) === 0) && (pg === undefined || totalFigure(pg, 0) === 0)) return { strata: [], complete: true };
  return oneStratum(
    (a) => oneGroupSamples(pair!.base[0]!.steps, bg, a),
    (b) => oneGroupSamples(pair!.pr[0]!.steps, pg, b),
  );
}

type SideSamples = (values: number[]) => { zeros: number; complete: boolean };

/** The samples of one pair of ranks: each side's values, pushed by `base` and `pr`. */
function oneStratum(base: SideSamples, pr: SideSamples): RowSamples {
  const a: number[] = [];
  const b: number[] = [];
  const sa = base(a);
  const sb = pr(b);
  return {
    strata: [{ a: Float64Array.from(a), zerosA: sa.zeros, b: Float64Array.from(b), zerosB: sb.zeros }],
    complete: sa.complete && sb.complete,
  };
}

/**
 * samplesOf rows folded into one (their groups on each side summed, `base` and `pr`), of one rank of `baseSteps`
 * steps against one of `prSteps` whose groups are each summary's own list: the groups are the rows', not looked up
 * (a view of 10 rows of a million folds the rest). One group summed is its own samples (oneGroupSamples's).
 */
export function pairSumSamples(baseSteps: number, prSteps: number, base: StepSums, pr: StepSums): RowSamples {
  if (base.count === 0 && pr.count === 0) return { strata: [], complete: true };
  return oneStratum(
    (a) => base.samples(baseSteps, a),
    (b) => pr.samples(prSteps, b),
  );
}

/**
 * A row's samples (keys: its groups; null: the totals). A pair of ranks where the groups run on neither side is
 * left out (a pipeline stage that never runs them); an added or removed group's side is that rank's zeros.
 */
export function samplesOf(src: SampleSource, keys: readonly string[] | null): RowSamples {
  const strata: Stratum[] = [];
  let complete = true;
  for (const pair of src.pairs) {
    if (!pair.base.some((r) => runsOn(r, keys)) && !pair.pr.some((r) => runsOn(r, keys))) continue;
    const b = rankSamples(pair.base, keys);
    const p = rankSamples(pair.pr, keys);
    complete &&= b.complete && p.complete;
    strata.push({ a: b.values, zerosA: b.zeros, b: p.values, zerosB: p.zeros });
  }
  // Kernels on a rank of one side only are in no stratum: the samples do not hold them.
  if ([...src.unpaired.base, ...src.unpaired.pr].some((r) => runsOn(r, keys))) complete = false;
  return { strata, complete };
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
