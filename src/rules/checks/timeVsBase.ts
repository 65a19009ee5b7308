// `time-vs-base: { per, fell-by-at-least, rose-by-at-most }`: the change of the selected kernels' time against the
// base, in percent.

import type { BaseKind } from './kind.js';
import { changeSamples, changeText, parseChange } from './change.js';

export const timeVsBase: BaseKind<'time-vs-base'> = {
  needsBase: true,
  unit: 'percent',
  measure: 'us',
  parse: (node, reader) => ({ kind: 'time-vs-base', ...parseChange(node, reader, 'time-vs-base') }),
  evaluate: (check, on) => changeSamples(on, check.per, 'us', check.change),
  describe: (check) => changeText('time', check.per, check.change),
  held: () => null,
};
