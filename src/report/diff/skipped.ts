// What the reports of `kprof diff` say of rows that could not be read: they are in no figure, so a group can look
// removed (or fewer) for rows kprof skipped, and a step none of whose rows was read is not counted. Pure.

import type { Diff } from '../../analysis/diff.js';
import { plural } from '../../util/format.js';

/** `208 rows of the PR`, `1 row of the base and 3 rows of the PR`; '' when neither side skipped a row. */
function skippedText(d: Diff): string {
  const [b, p] = [d.base.skippedRows, d.pr.skippedRows];
  return [...(b > 0 ? [`${plural(b, 'row')} of the base`] : []), ...(p > 0 ? [`${plural(p, 'row')} of the PR`] : [])].join(' and ');
}

/**
 * The report's warning of rows that could not be read (stderr says it in its own words before the report): a
 * group the headline calls removed may have run in rows kprof skipped. null when none was skipped.
 */
export function skippedRowsWarning(d: Diff): string | null {
  const sides = skippedText(d);
  if (sides === '') return null;
  const one = d.base.skippedRows + d.pr.skippedRows === 1;
  return (
    `${sides} could not be read and ${one ? 'is' : 'are'} in no figure of this report (each is warned of on stderr, with its file ` +
    'and line): a group shown as fewer, or removed, may have run in them. Repair or export the profile again, or pass --strict to stop on such rows.'
  );
}

/** After a warning that steps differ: a step none of whose rows was read (as one of a negative Step Id) is not counted. */
export function skippedStepsText(d: Diff): string {
  const sides = skippedText(d);
  if (sides === '') return '';
  const one = d.base.skippedRows + d.pr.skippedRows === 1;
  return ` ${sides} could not be read (a row of a negative Step Id is one): ${one ? 'it is' : 'they are'} in no step, so a step none of whose rows was read is not counted.`;
}
