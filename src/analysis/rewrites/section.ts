// The Fusion rewrites section of `kprof diff`: the rewrites of the two sides' sequences (rewrites.ts), or why
// there are none to show (a side with no kernel order or no steps). Pure.

import { stepsLabel } from '../../aggregate/group.js';
import type { GroupBy, Selection } from '../../model/model.js';
import { DEFAULT_NOISE, type NoiseOptions } from '../noise.js';
import type { SideSequences, Unavailable } from './recorderSink.js';
import { findRewrites, type Rewrites } from './rewrites.js';

export type RewritesSection =
  | {
      status: 'ok';
      by: GroupBy;
      result: Rewrites;
      /** Each side had one rank, of different ids: they were compared with each other (under the base's id). */
      ranksPaired: { base: string; pr: string } | null;
      scope: RewritesScope;
    }
  | { status: 'unavailable'; by: GroupBy; sides: { side: 'base' | 'pr'; why: Unavailable; file: string }[] };

export interface SectionOptions {
  layerMarker: string | null;
  noise: NoiseOptions;
  scope: RewritesScope;
}

/**
 * What of the selection the section follows: `--steps` (its ranges as read, `14-20`; null: every step) and `--rank`
 * apply (the recorder reads only those steps and ranks); the options it does not follow, given, are named: the
 * section compares every compute kernel of the steps and ranks read (a chain is cut by no name filter).
 */
export interface RewritesScope {
  steps: string | null;
  notApplied: string[];
}

/** The scope of a selection (see RewritesScope). */
export function rewritesScope(s: Selection): RewritesScope {
  const notApplied: string[] = [];
  if (s.match !== null) notApplied.push('--match');
  if (s.exclude !== null) notApplied.push('--exclude');
  if (s.cores !== null) notApplied.push('--core');
  if (s.groups.length > 0) notApplied.push('--groups');
  return { steps: s.steps === null ? null : stepsLabel(s.steps), notApplied };
}

export function rewritesSection(by: GroupBy, base: SideSequences, pr: SideSequences, options: Partial<SectionOptions> = {}): RewritesSection {
  const sides: { side: 'base' | 'pr'; why: Unavailable; file: string }[] = [];
  if (!base.ok) sides.push({ side: 'base', why: base.why, file: base.file });
  if (!pr.ok) sides.push({ side: 'pr', why: pr.why, file: pr.file });
  if (!base.ok || !pr.ok) return { status: 'unavailable', by, sides };
  // One rank on each side, not of the same id (two single-rank runs): compared with each other, as the group
  // diff compares them, and said.
  const [b] = base.seq.ranks;
  const [p] = pr.seq.ranks;
  const lone = base.seq.ranks.length === 1 && pr.seq.ranks.length === 1 && b !== p;
  const prSeq = lone ? { ...pr.seq, ranks: [b!] } : pr.seq;
  const result = findRewrites(base.seq, prSeq, { layerMarker: options.layerMarker ?? null, noise: options.noise ?? DEFAULT_NOISE });
  return { status: 'ok', by, result, ranksPaired: lone ? { base: b!, pr: p! } : null, scope: options.scope ?? { steps: null, notApplied: [] } };
}
