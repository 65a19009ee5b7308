// A rank's recording (recorderSink.ts) as it crosses from a read worker: its steps and shapes in a few typed
// arrays, transferred, and its token texts as positions in the names the rank's message carries already where
// they are those names (by name), so that no text crosses twice.

import type { RankNames } from '../../input/beside.js';
import type { GroupBy } from '../../model/model.js';
import type { SequenceStats, Sequences, StepRecord, StepShape } from './sequence.js';

/** What one rank's recorder saw: its sequences (rank text '' until merged) and why they may not be usable. */
export interface RecordedRank {
  seq: Sequences;
  /** The first file of the rank whose kernels are totals, not one by one in order (op_statistic). */
  unordered: string | null;
  /** The first file of the rank without a Step Id column. */
  withoutSteps: string | null;
  /** The first file of the rank without start times. */
  withoutStarts: string | null;
}

/** Per shape, what is packed besides its arrays. */
interface PackedShape {
  n: number;
  instances: number;
  sampled: number[];
  stride: number;
}

interface PackedRecorded {
  by: GroupBy;
  /** The token texts the rank's names do not carry (see tokenAt), in token order. */
  tokens: string[];
  /** Per token, its position in the rank's names, or -1: the next of `tokens` (null: every token is in `tokens`). */
  tokenAt: Int32Array<ArrayBuffer> | null;
  ranks: string[];
  streams: string[];
  stats: SequenceStats;
  shapes: PackedShape[];
  /** Every shape's tokens, one after the other. */
  shapeTokens: Int32Array<ArrayBuffer>;
  /** Per shape: its sums, then per sampled step its durations and its starts. */
  shapeTicks: Float64Array<ArrayBuffer>;
  /** Per step: rank, stream, step, shape, start, end, split (0/1). */
  steps: Float64Array<ArrayBuffer>;
  unordered: string | null;
  withoutSteps: string | null;
  withoutStarts: string | null;
}

const STEP_STRIDE = 7;

/** How far past the last token found a token is looked for in the rank's names (see tokensIn). */
const NAMES_AHEAD = 64;

/**
 * The position of each token in the rank's names, or -1 (null when tokens are not names). Tokens by name are the
 * names of the rank's groups, both in the order first read, less the names of communication kernels and the
 * second group of a name (another type or core): each is found a few names past the last, with no index (a
 * million names by name). A token not found there is carried as its text, so the order is a saving, not a rule.
 */
function tokensIn(seq: Sequences, names: RankNames): Int32Array<ArrayBuffer> | null {
  if (names === null || seq.by !== 'name' || seq.tokens.length === 0) return null;
  const at = new Int32Array(seq.tokens.length);
  let next = 0;
  for (let k = 0; k < at.length; k++) {
    const t = seq.tokens[k]!;
    let found = -1;
    for (let j = next, end = Math.min(names.length, next + NAMES_AHEAD); j < end; j++) {
      if (names[j] === t) {
        found = j;
        break;
      }
    }
    at[k] = found;
    if (found >= 0) next = found + 1;
  }
  return at;
}

export function packRecorded(r: RecordedRank, names: RankNames): { value: PackedRecorded; transfer: ArrayBuffer[] } {
  const { seq } = r;
  const tokenAt = tokensIn(seq, names);
  let nTokens = 0;
  let nTicks = 0;
  for (const s of seq.shapes) {
    nTokens += s.tokens.length;
    nTicks += s.tokens.length * (1 + 2 * s.sampled.length);
  }
  const shapeTokens = new Int32Array(nTokens);
  const shapeTicks = new Float64Array(nTicks);
  let t = 0;
  let f = 0;
  for (const s of seq.shapes) {
    shapeTokens.set(s.tokens, t);
    t += s.tokens.length;
    shapeTicks.set(s.sumTicks, f);
    f += s.tokens.length;
    for (let k = 0; k < s.sampled.length; k++) {
      shapeTicks.set(s.sampleDurTicks[k]!, f);
      f += s.tokens.length;
      shapeTicks.set(s.sampleStartTicks[k]!, f);
      f += s.tokens.length;
    }
  }
  const steps = new Float64Array(seq.steps.length * STEP_STRIDE);
  seq.steps.forEach((st, i) => {
    const o = i * STEP_STRIDE;
    steps[o] = st.rank;
    steps[o + 1] = st.stream;
    steps[o + 2] = st.step;
    steps[o + 3] = st.shape;
    steps[o + 4] = st.startTicks;
    steps[o + 5] = st.endTicks;
    steps[o + 6] = st.split ? 1 : 0;
  });
  return {
    value: {
      by: seq.by,
      tokens: tokenAt === null ? seq.tokens : seq.tokens.filter((_, k) => tokenAt[k]! < 0),
      tokenAt,
      ranks: seq.ranks,
      streams: seq.streams,
      stats: seq.stats,
      shapes: seq.shapes.map((s) => ({ n: s.tokens.length, instances: s.instances, sampled: s.sampled, stride: s.stride })),
      shapeTokens,
      shapeTicks,
      steps,
      unordered: r.unordered,
      withoutSteps: r.withoutSteps,
      withoutStarts: r.withoutStarts,
    },
    transfer: [shapeTokens.buffer, shapeTicks.buffer, steps.buffer, ...(tokenAt === null ? [] : [tokenAt.buffer])],
  };
}

/** The token texts of a packed recording, from the names of the rank it was packed with. */
function tokensOf(p: PackedRecorded, names: RankNames): string[] {
  const at = p.tokenAt;
  if (at === null) return p.tokens;
  if (names === null) throw new Error('rewrites: a recording packed with its rank names came without them');
  const tokens = new Array<string>(at.length);
  let own = 0;
  for (let k = 0; k < at.length; k++) tokens[k] = at[k]! >= 0 ? names[at[k]!]! : p.tokens[own++]!;
  return tokens;
}

export function unpackRecorded(value: unknown, names: RankNames): RecordedRank {
  const p = value as PackedRecorded;
  let t = 0;
  let f = 0;
  const shapes: StepShape[] = p.shapes.map((s, id) => {
    const tokens = p.shapeTokens.subarray(t, t + s.n);
    t += s.n;
    const sumTicks = p.shapeTicks.subarray(f, f + s.n);
    f += s.n;
    const sampleDurTicks: Float64Array[] = [];
    const sampleStartTicks: Float64Array[] = [];
    for (let k = 0; k < s.sampled.length; k++) {
      sampleDurTicks.push(p.shapeTicks.subarray(f, f + s.n));
      f += s.n;
      sampleStartTicks.push(p.shapeTicks.subarray(f, f + s.n));
      f += s.n;
    }
    return { id, tokens, instances: s.instances, sumTicks, sampled: s.sampled, sampleDurTicks, sampleStartTicks, stride: s.stride };
  });
  const steps: StepRecord[] = [];
  for (let o = 0; o < p.steps.length; o += STEP_STRIDE) {
    steps.push({
      rank: p.steps[o]!,
      stream: p.steps[o + 1]!,
      step: p.steps[o + 2]!,
      shape: p.steps[o + 3]!,
      startTicks: p.steps[o + 4]!,
      endTicks: p.steps[o + 5]!,
      split: p.steps[o + 6] === 1,
    });
  }
  return {
    seq: { by: p.by, tokens: tokensOf(p, names), ranks: p.ranks, streams: p.streams, shapes, steps, stats: p.stats },
    unordered: p.unordered,
    withoutSteps: p.withoutSteps,
    withoutStarts: p.withoutStarts,
  };
}
