// `time: { per, min, max, exactly }`: the kernel time of the selected kernels (µs), in total or in each step.

import type { ProfileKind } from './kind.js';
import { boundSamples, boundsOf, boundsText, parseBounds } from './bounds.js';

export const time: ProfileKind<'time'> = {
  needsBase: false,
  unit: 'us',
  measure: 'us',
  parse: (node, reader) => ({ kind: 'time', ...parseBounds(node, reader, 'time') }),
  evaluate: (check, on) => boundSamples(on, check.per, 'us', boundsOf(check.bounds)),
  describe: (check) => `time ${boundsText('us', check.per, check.bounds)}`,
  held: () => null,
};
