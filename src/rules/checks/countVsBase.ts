// `count-vs-base: { per, fell-by-at-least, rose-by-at-most }`: the change of the selected kernels' count against
// the base, in percent.

import type { BaseKind } from './kind.js';
import { changeSamples, changeText, parseChange } from './change.js';

export const countVsBase: BaseKind<'count-vs-base'> = {
  needsBase: true,
  unit: 'percent',
  measure: 'kernels',
  parse: (node, reader) => ({ kind: 'count-vs-base', ...parseChange(node, reader, 'count-vs-base') }),
  evaluate: (check, on) => changeSamples(on, check.per, 'kernels', check.change),
  describe: (check) => changeText('count', check.per, check.change),
  held: () => null,
};
