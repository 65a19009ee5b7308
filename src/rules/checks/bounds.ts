// What the kinds with bounds share (absent, present, count, time): a rank's samples against fixed bounds, in
// total or in each step; and count's and time's mapping of min:, max:, exactly: and per:.

import { isScalar, type Node } from '../../util/yamlLib.js';
import { describe, yaml11Boolean, yaml11Hint } from '../../aggregate/userGroups.js';
import type { Bound, Bounds, Per } from '../model.js';
import { slice } from '../slice.js';
import { boundAmount, metric, outcome, sampleOf, type CheckReader, type Measure, type RankInput, type RankOutcome, type Sample } from './kind.js';

/** A rank's samples against `bounds`: its total, or each of its steps (per: step). */
export function boundSamples(on: RankInput, per: Per, measure: Measure, bounds: Bound[]): RankOutcome {
  const { rule, rank, known } = on;
  const s = slice(rule, rank, rule.selector, known);
  if (per === 'total') return outcome(bounds.map((b) => sampleOf(rank.rank, null, metric(measure, s.total), b)));
  const samples: Sample[] = [];
  let inSteps = 0;
  for (const step of s.stepIds) {
    const c = s.steps.get(step);
    inSteps += c?.count ?? 0;
    const v = metric(measure, c);
    for (const b of bounds) samples.push(sampleOf(rank.rank, step, v, b));
  }
  // Over every step (no steps: in the rule), the total holds the kernels with an empty Step Id too: no step counts them.
  const outsideSteps = rule.steps === null ? s.total.count - inSteps : 0;
  return { ...outcome(samples, s.stepIds.length), ...(outsideSteps > 0 ? { outsideSteps } : {}) };
}

/** min and max as bounds, the maximum first. */
export function boundsOf(b: Bounds): Bound[] {
  const out: Bound[] = [];
  if (b.max !== null) out.push({ op: '<=', value: b.max });
  if (b.min !== null) out.push({ op: '>=', value: b.min });
  return out;
}

const BOUND_KEYS = ['per', 'min', 'max', 'exactly'] as const;

/** `{ per, min, max, exactly }` of count: (kernels) or time: (durations). */
export function parseBounds(node: Node, reader: CheckReader, kind: 'count' | 'time'): { per: Per; bounds: Bounds } {
  const e = reader.entries(node, BOUND_KEYS, `${kind} (a mapping with min:, max: or exactly:, and per:)`);
  const per = reader.per(e, kind);
  const read = (k: 'min' | 'max' | 'exactly'): number | null => {
    const x = e.get(k);
    if (!x) return null;
    const v = x.value ?? x.key;
    return kind === 'count' ? reader.count(v, `${kind}: ${k}`) : reader.duration(v, `${kind}: ${k}`);
  };
  const exactly = read('exactly');
  let bounds: Bounds = { min: read('min'), max: read('max') };
  if (exactly !== null) {
    if (bounds.min !== null || bounds.max !== null) reader.fail(e.get('exactly')!.key, `${kind}: exactly: cannot be combined with min: or max:.`);
    bounds = { min: exactly, max: exactly };
  }
  if (bounds.min === null && bounds.max === null) reader.fail(node, `${kind}: expected min:, max: or exactly:.`);
  if (bounds.min !== null && bounds.max !== null && bounds.min > bounds.max) {
    reader.fail(e.get('min')!.value, `${kind}: min is larger than max; no run can pass.`);
  }
  // The other way round: a gate that no run can break (a typo for min: 1, most often) would pass forever.
  if (bounds.min === 0 && bounds.max === null) {
    reader.fail(
      e.get('min')!.value,
      `${kind}: min: 0 with no max: holds for every run, so the rule can never break. ${kind === 'count' ? 'Write min: 1 for "runs at least once"' : 'Write a min: above 0'}, or give a max:.`,
    );
  }
  return { per, bounds };
}

/** "exactly 1 per step", "between 2 and 4 in total", "at most 1.20 ms per step". */
export function boundsText(measure: Measure, per: Per, { min, max }: Bounds): string {
  const b =
    min !== null && max !== null
      ? min === max
        ? `exactly ${boundAmount(measure, min)}`
        : `between ${boundAmount(measure, min)} and ${boundAmount(measure, max)}`
      : min !== null
        ? `at least ${boundAmount(measure, min)}`
        : `at most ${boundAmount(measure, max!)}`;
  return `${b}${per === 'step' ? ' per step' : ' in total'}`;
}

/** `absent: true` / `present: true`: anything but true is refused, with `hint`. */
export function parseTrue(node: Node, reader: CheckReader, key: 'absent' | 'present', hint: string): void {
  if (!isScalar(node) || node.value !== true) {
    // `absent: yes` (YAML 1.1's true) is the text "yes" to a YAML 1.2 reader: said so, and what to write.
    reader.fail(node, `${key}: expected true; found ${describe(node)}${yaml11Boolean(node) === true ? yaml11Hint(node) : ''}.${hint}`);
  }
}
