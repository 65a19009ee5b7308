// `present: true`: the selected kernels run at least once.

import type { ProfileKind } from './kind.js';
import { boundSamples, parseTrue } from './bounds.js';

export const present: ProfileKind<'present'> = {
  needsBase: false,
  unit: 'kernels',
  measure: 'kernels',
  parse(node, reader) {
    parseTrue(node, reader, 'present', ' For "must not run", write absent: true.');
    return { kind: 'present' };
  },
  evaluate: (_check, on) => boundSamples(on, 'total', 'kernels', [{ op: '>=', value: 1 }]),
  describe: () => 'present',
  held: () => null,
};
