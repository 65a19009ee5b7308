// Steps a profile holds only in part: the profiler started in the middle of a lane's first step, or stopped in the
// middle of its last (a step cut short). Such a step is the start or the end of another step of its lane, kernel for
// kernel; compared with the other side's whole step, the chains of the layers it never ran would count as replaced,
// and their time as saved. rewrites.ts (pairSteps) compares it with nothing, as a step of one side only, and says so.
// Only a step of a model is told so (another step of its lane of MIN_WHOLE kernels or more, hundreds in a model's
// step): of a few kernels, a last step that is the start of another may as well be a step of its own. Nor is a step
// whose shape the lane runs again: a shape that recurs is a step of its own (one every other step that stops early).

import { entry } from '../../util/maps.js';
import type { Sequences } from './sequence.js';
import { sameTokens } from './stepArrays.js';

/** The fewest kernels of the whole step a step cut short is the start or the end of. */
export const MIN_WHOLE = 16;

/**
 * Per rank, the Step Ids of `seq` cut short: a lane's first step whose kernels are the last ones of another of its
 * steps' (fewer; of MIN_WHOLE or more), or its last whose kernels are the first ones of another's, when no other step
 * of the lane has its shape. `lanes`: per lane, its steps (indexes into seq.steps) in order.
 */
export function cutStepIds(seq: Sequences, lanes: Iterable<number[]>): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const steps of lanes) {
    if (steps.length < 2) continue;
    const shapes = new Map<number, number>();
    for (const i of steps) shapes.set(seq.steps[i]!.shape, (shapes.get(seq.steps[i]!.shape) ?? 0) + 1);
    if (shapes.size < 2) continue;
    for (const [i, end] of [
      [steps[0]!, false],
      [steps[steps.length - 1]!, true],
    ] as const) {
      const st = seq.steps[i]!;
      if (shapes.get(st.shape)! > 1) continue;
      const part = seq.shapes[st.shape]!.tokens;
      for (const other of shapes.keys()) {
        const whole = seq.shapes[other]!.tokens;
        if (whole.length <= part.length || whole.length < MIN_WHOLE) continue;
        if (!sameTokens(end ? whole.subarray(0, part.length) : whole.subarray(whole.length - part.length), part)) continue;
        entry(out, seq.ranks[st.rank]!, () => new Set<number>()).add(st.step);
        break;
      }
    }
  }
  return out;
}
