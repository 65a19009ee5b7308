// Base vs PR step time: the wall span of each step (and each step_trace_time.csv column both sides have), judged
// by the same test as group times (noise.ts): every step of a rank is a sample; a change is a number only when
// the Mann–Whitney U test says the samples differ at alpha AND the medians differ by at least --time-tolerance of
// the base's median; otherwise `~`. Rows: every metric over all ranks (each step of each rank a sample), and the
// wall span of each rank present on both sides when a side has several ranks. Pure.

import { compareRanks, TICKS_PER_US, type RankStepTime, type StepTimeGap, type StepTimeSummary } from '../model/model.js';
import { DEFAULT_NOISE, judge, type Judged } from './noise.js';

/** The wall span metric's name (the others are step_trace_time.csv column names). */
export const SPAN = 'span';

export interface StepTimeRow {
  /** SPAN, or a step_trace_time.csv column. */
  metric: string;
  /** null: all ranks. */
  rank: string | null;
  /** Samples (steps) on each side. */
  baseSteps: number;
  prSteps: number;
  /** Medians and their change in µs, the test, and whether the change is shown as a number. */
  judged: Judged;
}

export interface StepTimeDiff {
  /** Ranks of each side without spans, and why. */
  gaps: { base: { rank: string; gap: StepTimeGap }[]; pr: { rank: string; gap: StepTimeGap }[] };
  /** Kernels of each side with a Step Id whose start could not be read (in no span). */
  withoutStart: { base: number; pr: number };
  rows: StepTimeRow[];
  /** The significance level and minimum effect (a fraction of the base's median) the rows were judged with. */
  alpha: number;
  minEffect: number;
}

function spans(ranks: readonly RankStepTime[]): number[] {
  return ranks.flatMap((r) => r.spans.map((s) => s.ticks / TICKS_PER_US));
}

function column(ranks: readonly RankStepTime[], name: string): number[] {
  const out: number[] = [];
  for (const r of ranks) {
    const i = r.trace?.columns.indexOf(name) ?? -1;
    if (i < 0) continue;
    for (const row of r.trace!.rows) {
      const v = row.values[i];
      if (v !== null && v !== undefined) out.push(v);
    }
  }
  return out;
}

/** The step_trace columns every rank of both sides that has a step_trace_time.csv has, in the base's order. */
function sharedColumns(base: StepTimeSummary, pr: StepTimeSummary): string[] {
  const traced = [...base.ranks, ...pr.ranks].filter((r) => r.trace !== null);
  if (!base.ranks.some((r) => r.trace !== null) || !pr.ranks.some((r) => r.trace !== null)) return [];
  const first = traced[0]!.trace!.columns;
  return first.filter((c) => traced.every((r) => r.trace!.columns.includes(c)));
}

/** Base vs PR step time; `timeTolerancePct`: the minimum effect, in percent of the base's median. */
export function diffStepTime(base: StepTimeSummary, pr: StepTimeSummary, timeTolerancePct: number): StepTimeDiff {
  const opts = { alpha: DEFAULT_NOISE.alpha, minEffect: timeTolerancePct / 100 };
  const row = (metric: string, rank: string | null, b: number[], p: number[]): StepTimeRow => ({
    metric,
    rank,
    baseSteps: b.length,
    prSteps: p.length,
    judged: judge(b, p, opts),
  });
  const rows: StepTimeRow[] = [row(SPAN, null, spans(base.ranks), spans(pr.ranks))];
  if (base.ranks.length > 1 || pr.ranks.length > 1) {
    const p = new Map(pr.ranks.map((r) => [r.rank, r]));
    const paired = base.ranks.filter((r) => p.has(r.rank)).sort((a, b) => compareRanks(a.rank, b.rank));
    for (const r of paired) rows.push(row(SPAN, r.rank, spans([r]), spans([p.get(r.rank)!])));
  }
  for (const c of sharedColumns(base, pr)) rows.push(row(c, null, column(base.ranks, c), column(pr.ranks, c)));
  const gaps = (s: StepTimeSummary) => s.ranks.flatMap((r) => (r.gap === null ? [] : [{ rank: r.rank, gap: r.gap }]));
  const missing = (s: StepTimeSummary) => s.ranks.reduce((n, r) => n + r.withoutStart, 0);
  return {
    gaps: { base: gaps(base), pr: gaps(pr) },
    withoutStart: { base: missing(base), pr: missing(pr) },
    rows,
    alpha: opts.alpha,
    minEffect: opts.minEffect,
  };
}
