// Each rank's step time, within the selected steps: the wall span of every step (stepSpans.ts) and the rows of
// its step_trace_time.csv. Step time is a property of the step, not of kernels: --match, --exclude and --core do
// not change it (a step's span is that of all its kernels); --rank and --steps do. Pure: Profile in.

import type { Profile, RankData, RankStepTime, StepTimeSummary } from '../model/model.js';

/** The step time of each rank of a profile (read with --step-time); `inSelection`: is a Step Id kept (--steps)? */
export function stepTimeOf(profile: Profile, inSelection: (step: number) => boolean): StepTimeSummary {
  return { ranks: profile.ranks.map((r) => rankStepTime(r, inSelection)) };
}

function rankStepTime(rank: RankData, inSelection: (step: number) => boolean): RankStepTime {
  // A summary JSON was made with its selection: its steps are those kept.
  const keep = (step: number): boolean => rank.snapshot !== null || inSelection(step);
  const s = rank.stepSpans;
  const t = rank.stepTrace;
  const trace = t === undefined ? null : { ...t, rows: t.rows.filter((r) => keep(r.step)) };
  if (s === undefined) return { rank: rank.rank, gap: 'not-saved', spans: [], withoutStart: 0, trace };
  const gap = !s.available ? 'no-starts' : !rank.fields.steps ? 'no-steps' : null;
  const spans =
    gap !== null ? [] : s.steps.filter((x) => keep(x.step)).map((x) => ({ step: x.step, ticks: x.endTicks - x.startTicks, kernels: x.kernels }));
  const withoutStart =
    s.withoutStartBySteps === undefined ? s.withoutStart : s.withoutStartBySteps.reduce((n, [step, k]) => (keep(step) ? n + k : n), 0);
  return { rank: rank.rank, gap, spans, withoutStart: gap !== null ? 0 : withoutStart, trace };
}
