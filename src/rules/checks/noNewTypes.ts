// `no-new-types: true` or `{ allow: [...] }`: no kernel type runs that the base lacks, but those allowed (exact
// types or /regular expressions/). It looks at every kernel type, so a rule of this kind has no selector.

import { isScalar, isSeq, type Node } from '../../util/yamlLib.js';
import { fmtCount } from '../../util/format.js';
import { typesOf } from '../slice.js';
import { sampleOf, type BaseKind } from './kind.js';

function allowed(type: string, allow: (string | RegExp)[]): boolean {
  return allow.some((a) => {
    if (typeof a === 'string') return a === type;
    a.lastIndex = 0;
    return a.test(type);
  });
}

export const noNewTypes: BaseKind<'no-new-types'> = {
  needsBase: true,
  unit: 'types',
  measure: 'types',
  parse(node, reader) {
    if (isScalar(node) && node.value === true) return { kind: 'no-new-types', allow: [] };
    const e = reader.entries(node, ['allow'], 'no-new-types (true, or a mapping with allow:)');
    const allow = e.get('allow');
    if (!allow) return { kind: 'no-new-types', allow: [] };
    const list = allow.value ?? allow.key;
    const items: Node[] = isSeq(list) ? (list.items as Node[]) : [list];
    return { kind: 'no-new-types', allow: items.map((item) => reader.member(item, 'allow')) };
  },
  evaluate(check, { rule, rank, baseRank }) {
    const before = typesOf(rule, baseRank);
    const added = [...typesOf(rule, rank)].filter((t) => !before.has(t) && !allowed(t, check.allow)).sort();
    return { samples: [sampleOf(rank.rank, null, added.length, { op: '<=', value: 0 })], steps: 0, newTypes: added, mismatch: null };
  },
  describe(check, q) {
    const allow = check.allow.map((a) => q(typeof a === 'string' ? a : `/${a.source}/${a.flags}`));
    return `no kernel type that the base lacks${allow.length ? ` (allowed: ${allow.join(', ')})` : ''}`;
  },
  held: (ranks) => (ranks > 1 ? `no new type on any of ${fmtCount(ranks)} ranks` : 'no new type'),
};
