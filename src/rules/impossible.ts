// Rules that read well and can never hold, refused when the rules file is read (exit 2), before any profile is
// read. `kernels: all` with `absent: true` (or a count of at most 0) asks that no kernel at all runs: a profile
// where nothing was read stops the check with exit 2 of its own ("nothing read, nothing passed"), so every run
// the rule is evaluated on breaks it, and the gate fails for a reason no change can fix. The other way round,
// `kernels: all` with `present: true` (or a count of at least 1 and no max) asks that some kernel runs: every run
// the rule is evaluated on has one, so it holds for every run and the gate can never fail on it.

import { inputError } from '../util/errors.js';
import type { Rule } from './model.js';
import { boundsText } from './checks/bounds.js';

/** The rule as it is, or an input error naming its file:line when no run can pass it. */
export function rejectImpossible(rule: Rule): Rule {
  if (rule.selector?.kind !== 'all') return rule;
  const c = rule.check;
  const what =
    c.kind === 'absent' ? 'absent: true' : c.kind === 'count' && c.bounds.max === 0 ? `a count of ${boundsText('kernels', c.per, c.bounds)}` : null;
  if (what === null) {
    const always =
      c.kind === 'present'
        ? 'present: true'
        : c.kind === 'count' && c.bounds.max === null && c.bounds.min !== null && c.bounds.min <= 1
          ? `a count of ${boundsText('kernels', c.per, c.bounds)}`
          : null;
    if (always === null) return rule;
    throw inputError(
      `${rule.file}:${rule.line}:${rule.col}: kernels: all with ${always} holds for every run, so the rule can never break: a profile ` +
        'where no kernel was read stops the check with exit 2 before any rule is evaluated. ' +
        'To ask that a kernel runs, name it (type: MlaPrologV3 with present: true); to ask for a number of kernels, ' +
        'give a min: above 1 or a max: (kernels: all with count: { per: step, min: 40, max: 80 }).',
    );
  }
  throw inputError(
    `${rule.file}:${rule.line}:${rule.col}: kernels: all with ${what} can never hold: it asks that no kernel at all runs, and a profile ` +
      'where no kernel was read stops the check with exit 2, so every run would break the rule. ' +
      'To keep kernels out, name them (type: InterleaveRope with absent: true, or a group: or match:); ' +
      'to cap every kernel, give a bound above 0 (kernels: all with count: { per: step, max: 80 }).',
  );
}
