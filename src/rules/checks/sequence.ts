// `sequence: { per, min, max, exactly, layer-marker }`: how often the chain that the rule's `type:` or `name:` lists
// runs, in that order and back to back on one compute stream, in total or in each step. "This chain is gone":
// `max: 0`; "the fused kernel runs in both layers": the fused kernel as a chain of one, `min: 2`.
//
// Evaluated on the kernel sequence recorded while the profile was read (analysis/rewrites/recorderSink.ts): each
// distinct step shape is scanned once (Knuth–Morris–Pratt, non-overlapping occurrences), and every step of every
// stream adds the count of its shape. Communication kernels are not in the sequence, as in diff's rewrites. The
// chain comes from the rules file, so it is compared token by token (no regular expression is built from it) and
// its length and counts are bounded (MAX_CHAIN, MAX_CHAINS).

import { isScalar } from '../../util/yamlLib.js';
import { inputError } from '../../util/errors.js';
import { describe } from '../../aggregate/userGroups.js';
import { fmtCount, NO_RANK_ID, ranksNamed } from '../../util/format.js';
import { shown } from '../../util/inputText.js';
import type { RankData } from '../../model/model.js';
import { exactOccurrences, nearOccurrences } from '../../analysis/rewrites/match.js';
import { layerIn, layerPhase, markerPositions } from '../../analysis/rewrites/layers.js';
import { stepless, type RecordedRank } from '../../analysis/rewrites/recorderSink.js';
import type { Sequences } from '../../analysis/rewrites/sequence.js';
import type { Bound, Rule, SequenceSite } from '../model.js';
import { inRange, ruleAt } from '../slice.js';
import { boundsOf, boundsText } from './bounds.js';
import type { ProfileKind, RankOutcome, Sample } from './kind.js';
import { noStepsText, orderedWithStepsText, passKernelTable } from '../../input/formats/registry.js';
import { noTypesWhy } from '../../analysis/rewrites/noTypes.js';

/** The longest chain a rule may give (a step of a real model has a few thousand kernels). */
export const MAX_CHAIN = 1000;
/** The largest count a bound may give. */
export const MAX_CHAINS = 1_000_000_000;

const KEYS = ['per', 'min', 'max', 'exactly', 'layer-marker'] as const;

/** The chain of a sequence rule and what its entries are (the rule's selector). */
export function chainOf(rule: Rule): { by: 'type' | 'name'; chain: string[] } {
  const s = rule.selector;
  if (s === null || (s.kind !== 'type' && s.kind !== 'name')) throw new Error(`${ruleAt(rule)}: a sequence rule without a chain (a bug in kprof)`);
  return { by: s.kind, chain: s.values };
}

/** Why a rank cannot answer a sequence rule (its kernels are not in the order they ran, or have no step), or null. */
export function unavailable(rule: Rule, rank: RankData): string | null {
  if (rank.snapshot !== null) return `${rank.snapshot.path} is a summary JSON: it holds totals per group, not the kernels in the order they ran`;
  const parts = rank.beside as RecordedRank[] | undefined;
  if (parts === undefined) throw new Error(`${ruleAt(rule)}: rank ${rank.rank} was read without its kernel sequence (a bug in kprof)`);
  for (const p of parts) {
    if (p.unordered !== null) return `${p.unordered} holds totals per kernel group, not the kernels in the order they ran`;
    if (p.withoutSteps !== null) return `${p.withoutSteps} ${noStepsText(p.withoutSteps)[0]}, so its steps cannot be told apart`;
  }
  // A Step Id column with no compute kernel's cell filled: no step to count a chain in (as diff's rewrites say).
  if (stepless(parts)) return `${rank.files[0]?.path ?? 'the input'} has no compute kernel with a Step Id`;
  return null;
}

/** Stop (exit 2) when the rank cannot answer the rule, before anything else is asked of it. */
export function requireSequence(rule: Rule, rank: RankData): void {
  const why = unavailable(rule, rank);
  // A chain of types on a rank without types (a trace, a Level0 export) matches nothing whatever ran.
  const untyped = why === null && (rule.check.kind === 'fused' || chainOf(rule).by === 'type') ? noTypesWhy(rank) : null;
  if (untyped !== null) {
    const on = rank.rank === NO_RANK_ID ? '' : ` (${ranksNamed([rank.rank], shown)})`;
    const asks =
      rule.check.kind === 'fused'
        ? `the rule (fused: ${rule.check.entry}) looks for the catalogue entry's kernel types in the order the kernels ran`
        : 'the rule counts a chain of kernel types';
    const instead = rule.check.kind === 'fused' ? '' : 'Give the chain by name (name: [...]), or check ';
    const table = untyped.level0 ? 'an export with types (profiler_level Level1 or above)' : `the same run's ${passKernelTable()}`;
    throw inputError(
      `${ruleAt(rule)}: ${asks}, but ${untyped.text}${on}, so the chain would match nothing whatever ran. ${instead || 'Check '}${table}.`,
    );
  }
  if (why !== null) {
    // A fused rule asks the same of the profile: the entry's unfused chain, looked for in each step (as kprof audit does).
    const asks =
      rule.check.kind === 'fused'
        ? `the rule (fused: ${rule.check.entry}) looks for the entry's unfused chain and fused kernel in each step, in the order the kernels ran`
        : 'the rule counts a chain of kernels in the order they ran';
    throw inputError(
      `${ruleAt(rule)}: ${asks}, but ${why}${rank.rank === NO_RANK_ID ? '' : ` (${ranksNamed([rank.rank], shown)})`}. ` +
        `Check an export of the run that lists every kernel in the order it ran, with its steps (${orderedWithStepsText()}).`,
    );
  }
}

/** What one step shape holds of the chain: where it starts each time (memoised per shape). */
interface ShapeHits {
  starts: number[];
}

/** The count and the first site of each step on a rank, from one scan of each distinct shape. */
function scan(
  rank: RankData,
  by: 'type' | 'name',
  inStep: (step: number) => boolean,
  chain: string[],
  marker: string | null,
): { counts: Map<number, number>; first: Map<number, SequenceSite> } {
  const counts = new Map<number, number>();
  const first = new Map<number, SequenceSite>();
  for (const part of rank.beside as RecordedRank[]) {
    const seq = part.seq;
    if (seq.by !== by) throw new Error(`rank ${rank.rank} was recorded by ${seq.by}, and a chain is given by ${by} (a bug in kprof)`);
    const ids = tokenIds(seq, chain);
    const hits = new Map<number, ShapeHits>();
    const markerId = marker === null ? undefined : seq.tokens.indexOf(marker);
    for (const st of seq.steps) {
      if (!inStep(st.step)) continue;
      let h = hits.get(st.shape);
      if (h === undefined) {
        h = { starts: ids === null ? [] : exactOccurrences(seq.shapes[st.shape]!.tokens, ids) };
        hits.set(st.shape, h);
      }
      counts.set(st.step, (counts.get(st.step) ?? 0) + h.starts.length);
      if (h.starts.length > 0 && !first.has(st.step)) {
        const tokens = seq.shapes[st.shape]!.tokens;
        first.set(st.step, site(seq, st.stream, tokens, h.starts[0]!, chain.length, 0, markerId, h.starts));
      }
    }
  }
  return { counts, first };
}

/**
 * How often the chain runs in each of the rank's steps (those `inStep` keeps; 0 where it does not run), as a
 * sequence rule counts it. The rank must have been read with its sequence (see requireSequence).
 */
export function chainCounts(
  rank: RankData,
  by: 'type' | 'name',
  chain: string[],
  inStep: (step: number) => boolean = () => true,
): Map<number, number> {
  const { counts } = scan(rank, by, inStep, chain, null);
  const out = new Map<number, number>();
  for (const s of rank.stepIds) if (inStep(s)) out.set(s, counts.get(s) ?? 0);
  return out;
}

/** Token text → id, in a recorded part. */
function tokenIndex(seq: Sequences): Map<string, number> {
  const index = new Map<string, number>();
  for (let i = 0; i < seq.tokens.length; i++) index.set(seq.tokens[i]!, i);
  return index;
}

/** The chain's token ids in a recorded part; null when one of them never ran there (no occurrence possible). */
function tokenIds(seq: Sequences, chain: string[]): Int32Array | null {
  const index = tokenIndex(seq);
  const ids = new Int32Array(chain.length);
  for (let i = 0; i < chain.length; i++) {
    const id = index.get(chain[i]!);
    if (id === undefined) return null;
    ids[i] = id;
  }
  return ids;
}

function site(
  seq: Sequences,
  stream: number,
  tokens: Int32Array,
  start: number,
  length: number,
  edits: number,
  marker: number | undefined,
  starts: readonly number[] = [start],
): SequenceSite {
  // Every occurrence of the chain in the step tells where it sits in its layer (layerPhase), as in diff's rewrites.
  const m = marker === undefined || marker < 0 ? null : markerPositions(tokens, marker);
  const layer = m === null ? null : layerIn(m, start, start + length, layerPhase(starts.map((p) => ({ markers: m, start: p, end: p + length }))));
  return { stream: seq.streams[stream] ?? '-', index: start, of: tokens.length, layer, edits };
}

/**
 * Where a step that has too few chains comes nearest to one: the first stretch of its streams within a quarter of
 * the chain's length in edits (null when none is that near, or the chain has fewer than 4 kernels).
 */
function nearest(rank: RankData, rule: Rule, step: number, chain: string[], marker: string | null): SequenceSite | null {
  const k = Math.floor(chain.length / 4);
  if (k === 0) return null;
  let best: SequenceSite | null = null;
  for (const part of rank.beside as RecordedRank[]) {
    const seq = part.seq;
    const index = tokenIndex(seq);
    // A kernel that never ran here still counts as an edit: give it an id no recorded kernel has.
    const ids = Int32Array.from(chain, (c) => index.get(c) ?? -1);
    const markerId = marker === null ? undefined : index.get(marker);
    for (const st of seq.steps) {
      if (st.step !== step || !inRange(rule, st.step)) continue;
      const tokens = seq.shapes[st.shape]!.tokens;
      for (const s of nearOccurrences(tokens, ids, k)) {
        if (best === null || s.edits < best.edits) best = site(seq, st.stream, tokens, s.start, s.end - s.start, s.edits, markerId);
      }
    }
  }
  return best;
}

export const sequence: ProfileKind<'sequence'> = {
  needsBase: false,
  unit: 'chains',
  measure: 'kernels',
  parse(node, reader) {
    const e = reader.entries(node, KEYS, 'sequence (a mapping with min:, max: or exactly:, per: and layer-marker:)');
    const per = reader.per(e, 'sequence');
    const read = (k: 'min' | 'max' | 'exactly'): number | null => {
      const x = e.get(k);
      if (!x) return null;
      const v = x.value ?? x.key;
      if (isScalar(v) && typeof v.value === 'number' && Number.isInteger(v.value) && v.value > MAX_CHAINS) {
        reader.fail(v, `sequence: ${k}: expected at most ${fmtCount(MAX_CHAINS)} chains; found ${describe(v)}.`);
      }
      const n = isScalar(v) ? v.value : null;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
        return reader.fail(v, `sequence: ${k}: expected a whole number of chains (0 or more); found ${describe(v)}.`);
      }
      return n;
    };
    const exactly = read('exactly');
    let bounds = { min: read('min'), max: read('max') };
    if (exactly !== null) {
      if (bounds.min !== null || bounds.max !== null) reader.fail(e.get('exactly')!.key, 'sequence: exactly: cannot be combined with min: or max:.');
      bounds = { min: exactly, max: exactly };
    }
    if (bounds.min === null && bounds.max === null) reader.fail(node, 'sequence: expected min:, max: or exactly: (how many chains, e.g. max: 0).');
    if (bounds.min !== null && bounds.max !== null && bounds.min > bounds.max) {
      reader.fail(e.get('min')!.value, 'sequence: min is larger than max; no run can pass.');
    }
    if (bounds.min === 0 && bounds.max === null) {
      reader.fail(
        e.get('min')!.value,
        'sequence: min: 0 with no max: holds for every run, so the rule can never break. Write min: 1 for "runs at least once", or give a max:.',
      );
    }
    const m = e.get('layer-marker');
    let layerMarker: string | null = null;
    if (m) {
      const v = m.value ?? m.key;
      const t = isScalar(v) ? v.value : null;
      if ((typeof t !== 'string' && typeof t !== 'number') || String(t) === '') {
        return reader.fail(v, `sequence: layer-marker: expected a kernel type or name that runs once per layer; found ${describe(v)}.`);
      }
      layerMarker = String(t);
    }
    return { kind: 'sequence', per, bounds, layerMarker };
  },
  evaluate(check, { rule, rank }) {
    requireSequence(rule, rank);
    const { by, chain } = chainOf(rule);
    const { counts, first } = scan(rank, by, (s) => inRange(rule, s), chain, check.layerMarker);
    const bounds = boundsOf(check.bounds);
    const siteFor = (step: number | null, value: number, b: Bound): SequenceSite | null => {
      if (b.op === '<=' ? value <= b.value : value >= b.value) return null;
      if (b.op === '<=') {
        if (step !== null) return first.get(step) ?? null;
        for (const s of rank.stepIds) if (first.has(s)) return first.get(s)!;
        return null;
      }
      return step === null ? null : nearest(rank, rule, step, chain, check.layerMarker);
    };
    const samples: Sample[] = [];
    const steps = rank.stepIds.filter((s) => inRange(rule, s));
    if (check.per === 'total') {
      let total = 0;
      for (const s of steps) total += counts.get(s) ?? 0;
      for (const b of bounds) samples.push(sample(rank.rank, null, total, b, siteFor(null, total, b)));
      return { samples, steps: 0, newTypes: [], mismatch: null } satisfies RankOutcome;
    }
    for (const s of steps) {
      const v = counts.get(s) ?? 0;
      for (const b of bounds) samples.push(sample(rank.rank, s, v, b, siteFor(s, v, b)));
    }
    return { samples, steps: steps.length, newTypes: [], mismatch: null };
  },
  describe: (check, q) =>
    `the chain in this order ${boundsText('kernels', check.per, check.bounds)}${check.layerMarker !== null ? ` (layer marker ${q(check.layerMarker)})` : ''}`,
  held: () => null,
};

function sample(rank: string, step: number | null, value: number, bound: Bound, at: SequenceSite | null): Sample {
  const slack = bound.op === '<=' ? bound.value - value : value - bound.value;
  return { rank, step, value, bound, slack, compared: null, site: at };
}
