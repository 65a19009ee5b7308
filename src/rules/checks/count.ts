// `count: { per, min, max, exactly }`: how many of the selected kernels run, in total or in each step.

import type { ProfileKind } from './kind.js';
import { boundSamples, boundsOf, boundsText, parseBounds } from './bounds.js';

export const count: ProfileKind<'count'> = {
  needsBase: false,
  unit: 'kernels',
  measure: 'kernels',
  parse: (node, reader) => ({ kind: 'count', ...parseBounds(node, reader, 'count') }),
  evaluate: (check, on) => boundSamples(on, check.per, 'kernels', boundsOf(check.bounds)),
  describe: (check) => boundsText('kernels', check.per, check.bounds),
  held: () => null,
};
