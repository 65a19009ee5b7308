// `absent: true`: the selected kernels do not run (none in total, or none in any step with per: step).

import { fmtCount } from '../../util/format.js';
import type { ProfileKind } from './kind.js';
import { boundSamples, parseTrue } from './bounds.js';

export const absent: ProfileKind<'absent'> = {
  needsBase: false,
  unit: 'kernels',
  measure: 'kernels',
  parse(node, reader) {
    parseTrue(node, reader, 'absent', ' For "must run", write present: true.');
    return { kind: 'absent' };
  },
  evaluate: (_check, on) => boundSamples(on, 'total', 'kernels', [{ op: '<=', value: 0 }]),
  describe: () => 'absent',
  held: (ranks) => (ranks > 1 ? `none on any of ${fmtCount(ranks)} ranks` : 'none'),
};
