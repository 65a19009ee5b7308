// A rank whose kernels have no op types to match a chain of types against: an export that names its kernels only
// (a trace, an Nsight CSV), or one whose Type is N/A for every compute kernel (torch_npu's profiler_level Level0
// writes none). Its kernel sequence by type is one token for every kernel ('' or N/A), so a chain of types, a
// catalogue entry or a rule's selected type matches nothing there whatever ran: an audit would find no fusion and
// a `max: 0` rule would hold on a profile that ran the chain.

import type { FineGroup, RankData } from '../../model/model.js';
import { formatOf } from '../../input/formats/registry.js';
import { isCommunication } from '../comparable.js';
import type { RecordedRank } from './recorderSink.js';

/** The Type every compute kernel of a Level0 export has. */
export const NO_TYPE = 'N/A';

/** Why a rank has no kernel types: the file and what it lacks; `level0` when it has the column, N/A throughout. */
export interface NoTypes {
  text: string;
  level0: boolean;
}

/** Why the rank has no kernel types, or null when it has them. */
export function noTypesWhy(rank: Pick<RankData, 'files' | 'snapshot' | 'beside'>): NoTypes | null {
  if (rank.snapshot !== null) return null;
  const file = rank.files[0];
  if (file === undefined) return null;
  if (rank.files.every((f) => formatOf(f.format).answers.types === 'no')) {
    return { text: `${file.path} is ${formatOf(file.format).naming.title}, which names its kernels only (no op types)`, level0: false };
  }
  const parts = rank.beside as RecordedRank[] | undefined;
  if (parts === undefined || parts.length === 0) return null;
  // Tokens by type: every kernel type the sequence holds (communication kernels are not in it).
  const tokens = parts.flatMap((p) => (p.seq.by === 'type' ? p.seq.tokens : []));
  if (tokens.length > 0 && tokens.every((t) => t === NO_TYPE)) {
    return { text: `${file.path} has no kernel types (Type is N/A for every compute kernel: a Level0 export writes none)`, level0: true };
  }
  return null;
}

const typeless = new WeakMap<object, boolean>();

/**
 * Is Type N/A for every compute kernel of these groups (a rank of a Level0 export, or a summary JSON of one)? Then
 * each N/A kernel may be of any type: which of them a rule's type selects is unknown. Memoised per groups map.
 */
export function groupsWithoutTypes(groups: Map<string, FineGroup>): boolean {
  let out = typeless.get(groups);
  if (out === undefined) {
    let compute = 0;
    let na = 0;
    for (const g of groups.values()) {
      if (g.total.count === 0 || isCommunication(g)) continue;
      compute++;
      if (g.type === NO_TYPE) na++;
    }
    out = compute > 0 && na === compute;
    typeless.set(groups, out);
  }
  return out;
}
