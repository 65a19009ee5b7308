// What the kinds against the base share (count-vs-base, time-vs-base): the change of a rank's total, or of its
// figure per step, against its base rank's; and their mapping of fell-by-at-least:, rose-by-at-most: and per:.

import { perStepCount, perStepUs, rankPerStep, steppedCell, type RankData } from '../../model/model.js';
import { exactDigits, fmtPctDigits, settled } from '../../util/format.js';
import type { Node } from '../../util/yamlLib.js';
import { describe } from '../../aggregate/userGroups.js';
import type { Bound, ChangeBounds, Per, Rule } from '../model.js';
import { inRange, slice, type Slice } from '../slice.js';
import { metric, type BaseRankInput, type CheckReader, type Measure, type RankOutcome, type Sample, type StepMismatch } from './kind.js';

/**
 * The value compared against the base: the total, or the rank's figure per step as defined in model.ts ("Per
 * step", as diff --per-step): its kernels with a Step Id over its own number of steps.
 */
function comparable(per: Per, measure: Measure, s: Slice): number {
  if (per === 'total') return metric(measure, s.total);
  const f = rankPerStep(steppedCell(s.steps), s.stepIds.length);
  return measure === 'us' ? perStepUs(f) : perStepCount(f);
}

/** The step counts of a rank and its base rank, when they differ and the rule compares totals. */
function stepMismatch(rule: Rule, per: Per, rank: RankData, baseRank: RankData): StepMismatch | null {
  if (per === 'step') return null;
  const steps = (r: RankData): number | null => (r.fields.steps ? r.stepIds.filter((s) => inRange(rule, s)).length : null);
  const p = steps(rank);
  const b = steps(baseRank);
  return p === b ? null : { rank: rank.rank, base: b, profile: p };
}

/** The change from `b` to `p` in percent, settled (util/format.ts): 2 → 2.2 meets rose-by-at-most: 10%. */
export function changePct(p: number, b: number): number {
  return settled((100 * (p - b)) / b);
}

/** A rank's samples: its change in percent against the base rank, against each bound of `change`. */
export function changeSamples(on: BaseRankInput, per: Per, measure: Measure, change: ChangeBounds): RankOutcome {
  const { rule, rank, baseRank, known } = on;
  const p = comparable(per, measure, slice(rule, rank, rule.selector, known));
  const b = comparable(per, measure, slice(rule, baseRank, rule.selector, known));
  // Against a base of zero there is no percentage: no kernels at all is no rise (0%), any kernel is an unbounded
  // rise, and nothing can fall.
  const pct = b === 0 ? (p === 0 ? 0 : null) : changePct(p, b);
  const compared = { base: b, profile: p };
  const out: Sample[] = [];
  if (change.roseByAtMostPct !== null) {
    const bound: Bound = { op: '<=', value: change.roseByAtMostPct };
    out.push({ rank: rank.rank, step: null, value: pct, bound, slack: pct === null ? Number.NEGATIVE_INFINITY : bound.value - pct, compared });
  }
  if (change.fellByAtLeastPct !== null) {
    const bound: Bound = { op: '<=', value: -change.fellByAtLeastPct };
    const value = b === 0 ? null : pct;
    out.push({ rank: rank.rank, step: null, value, bound, slack: value === null ? Number.NEGATIVE_INFINITY : bound.value - value, compared });
  }
  return { samples: out, steps: 0, newTypes: [], mismatch: stepMismatch(rule, per, rank, baseRank) };
}

const CHANGE_KEYS = ['per', 'fell-by-at-least', 'rose-by-at-most'] as const;

export function parseChange(node: Node, reader: CheckReader, kind: 'count-vs-base' | 'time-vs-base'): { per: Per; change: ChangeBounds } {
  const e = reader.entries(node, CHANGE_KEYS, `${kind} (a mapping with fell-by-at-least: or rose-by-at-most:, and per:)`);
  const per = reader.per(e, kind);
  const read = (k: 'fell-by-at-least' | 'rose-by-at-most'): number | null => {
    const x = e.get(k);
    if (!x) return null;
    const v = x.value ?? x.key;
    const pct = reader.percent(v, `${kind}: ${k}`);
    if (k === 'fell-by-at-least' && (pct <= 0 || pct > 100)) {
      reader.fail(v, `${kind}: ${k}: expected a percentage above 0% and at most 100%; found ${describe(v)}.`);
    }
    return pct;
  };
  const change: ChangeBounds = { fellByAtLeastPct: read('fell-by-at-least'), roseByAtMostPct: read('rose-by-at-most') };
  if (change.fellByAtLeastPct === null && change.roseByAtMostPct === null) {
    reader.fail(node, `${kind}: expected fell-by-at-least: or rose-by-at-most: (a percentage such as 20%).`);
  }
  return { per, change };
}

/** A bound in percent as written: "20.0%", "0.01%" (not "0.0%"). */
function pctAsWritten(p: number): string {
  return fmtPctDigits(
    p,
    exactDigits(
      p,
      1,
      8,
      (d) => fmtPctDigits(p, d, false),
      (t) => Number(t.replace(/[,%]/g, '')),
    ),
    false,
  );
}

/** "count fell by at least 20.0% against the base", "mean time per step rose by at most 5.0% against the base". */
export function changeText(what: 'count' | 'time', per: Per, change: ChangeBounds): string {
  const parts: string[] = [];
  if (change.fellByAtLeastPct !== null) parts.push(`fell by at least ${pctAsWritten(change.fellByAtLeastPct)}`);
  if (change.roseByAtMostPct !== null) parts.push(`rose by at most ${pctAsWritten(change.roseByAtMostPct)}`);
  return `${per === 'step' ? `mean ${what} per step` : what} ${parts.join(' and ')} against the base`;
}
