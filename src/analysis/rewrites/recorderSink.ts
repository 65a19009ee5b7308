// The sequence recorder as a kernel sink beside each rank's accumulator (input/beside.ts), in whichever thread
// reads the rank: one recorder per rank (and per Device_id), finished after the rank's last file, packed into a
// few typed arrays when it crosses from a read worker (recordedPack.ts), and the ranks of a side merged into one
// Sequences in the main thread (token, rank and stream tables merged; identical step shapes of different ranks
// made one).
//
// Start times are exact integer ticks after the reader's origin (an integer µs per file): a rank of several
// files is rebased onto the origin of its first. Streams are the file's Stream ID (`-` when it has none).

import type { BesideKind, BesideSink } from '../../input/beside.js';
import { packRecorded, unpackRecorded, type RecordedRank } from './recordedPack.js';
import { addInto, sameTokens } from './stepArrays.js';
import { NO_STEP, NO_STREAM, type KernelBatch, type KernelKind, type SourceFacts } from '../../input/sink.js';
import { TICKS_PER_US, type Cell, type GroupBy, type Profile, type StepRange } from '../../model/model.js';
import {
  SAMPLE_CAP,
  SequenceRecorder,
  TokenTable,
  tokenKey,
  type SequenceStats,
  type Sequences,
  type StepShape,
  type StepRecord,
} from './sequence.js';

export type { RecordedRank };

/**
 * A rank's recorded sequences hold no step: its Step Id cells are all empty (the column is there, or withoutSteps
 * would say so). No step to count a chain in: sequence rules cannot be answered (rules/checks/sequence.ts says why).
 */
export function stepless(parts: readonly RecordedRank[]): boolean {
  return parts.every((x) => x.seq.steps.length === 0) && parts.some((x) => x.seq.stats.withoutStep > 0);
}

/** Of the token kinds a bound id can be: communication (kept out) or unbound. */
const COMMUNICATION = -1;

/** The recorder sink of one rank. */
export class RecorderSink implements BesideSink<RecordedRank> {
  readonly wantsStarts = true;
  readonly wantsStreams = true;
  private readonly rec: SequenceRecorder;
  private readonly rankId: number;
  /** Per id the reader bound: the token, or COMMUNICATION. */
  private readonly tokens: number[] = [];
  private readonly streamIds = new Map<number, number>();
  private lastStream = Number.NaN;
  private lastStreamId = 0;
  private firstOriginUs: number | null = null;
  /** Ticks from this file's origin to the rank's first. */
  private offset = 0;
  private unordered: string | null = null;
  private withoutSteps: string | null = null;
  private withoutStarts: string | null = null;

  /** `--steps`: the Step Id ranges kept (null: all), and the verdict of the last step asked for. */
  private readonly steps: readonly StepRange[] | null;
  private lastStep = Number.NaN;
  private lastStepIn = true;

  constructor(
    readonly by: GroupBy,
    steps: readonly StepRange[] | null = null,
  ) {
    this.steps = steps;
    this.rec = new SequenceRecorder(by);
    this.rankId = this.rec.rank('');
  }

  begin(facts: SourceFacts): void {
    if (!facts.ordered) this.unordered ??= facts.file;
    if (!facts.steps) this.withoutSteps ??= facts.file;
    if (!facts.starts) this.withoutStarts ??= facts.file;
    this.offset = 0;
  }

  origin(us: number): void {
    if (this.firstOriginUs === null) this.firstOriginUs = us;
    this.offset = (us - this.firstOriginUs) * TICKS_PER_US;
  }

  bind(id: number, kind: KernelKind): void {
    const key = tokenKey(this.by, kind);
    this.tokens[id] = key === null ? COMMUNICATION : this.rec.table.intern(key);
  }

  addBatch(batch: KernelBatch): void {
    const { ids, steps, ticks, n } = batch;
    const starts = batch.starts;
    const streams = batch.streams;
    for (let i = 0; i < n; i++)
      this.kernel(ids[i]!, steps[i]!, ticks[i]!, starts === null ? Number.NaN : starts[i]!, streams === null ? NO_STREAM : streams[i]!);
  }

  addKernel(id: number, step: number | null, ticks: number, startTicks: number, stream: number): void {
    this.kernel(id, step === null ? NO_STEP : step, ticks, startTicks, stream);
  }

  addAggregated(_kind: KernelKind, _cell: Cell): void {
    // Totals have no order: begin() said so (unordered).
  }

  finish(): RecordedRank {
    return { seq: this.rec.finish(), unordered: this.unordered, withoutSteps: this.withoutSteps, withoutStarts: this.withoutStarts };
  }

  private kernel(id: number, step: number, ticks: number, startTicks: number, stream: number): void {
    const token = this.tokens[id]!;
    if (token === COMMUNICATION) {
      this.rec.skipCommunication();
      return;
    }
    if (step === NO_STEP) {
      this.rec.skipWithoutStep();
      return;
    }
    if (this.steps !== null) {
      // A step outside --steps is not read, as the kernel table leaves it out.
      if (step !== this.lastStep) {
        this.lastStep = step;
        this.lastStepIn = this.steps.some((r) => step >= r.from && step <= r.to);
      }
      if (!this.lastStepIn) return;
    }
    if (stream !== this.lastStream) {
      let s = this.streamIds.get(stream);
      if (s === undefined) {
        s = this.rec.stream(stream === NO_STREAM ? '-' : String(stream));
        this.streamIds.set(stream, s);
      }
      this.lastStream = stream;
      this.lastStreamId = s;
    }
    this.rec.add(this.rankId, this.lastStreamId, step, token, ticks, startTicks + this.offset);
  }
}

/** The beside-sink kind of the recorder: options are the grouping of tokens. */
export const SEQUENCE_RECORDER: BesideKind<{ by: GroupBy; steps?: readonly StepRange[] | null }, RecordedRank> = {
  name: 'sequence-recorder',
  make: (options) => new RecorderSink(options.by, options.steps ?? null),
  pack: packRecorded,
  unpack: unpackRecorded,
};

/** A token sequence's hash (FNV-1a over the ids), as the recorder hashes a step. */
function hashTokens(tokens: Int32Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < tokens.length; i++) h = Math.imul(h ^ tokens[i]!, 0x01000193);
  return Math.imul(h ^ tokens.length, 0x01000193);
}

/**
 * The sequences of a side: each recorded part (in rank order) under its rank's id. Token, rank and stream tables
 * are merged; a step shape that several parts have becomes one (its sums added, its sampled steps joined and, past
 * SAMPLE_CAP, thinned to SAMPLE_CAP spread evenly over them, so the choice is the same in any thread).
 */
export function mergeRecorded(by: GroupBy, parts: { rank: string; seq: Sequences }[]): Sequences {
  const tokens = new TokenTable();
  const ranks = new TokenTable();
  const streams = new TokenTable();
  const shapes: StepShape[] = [];
  const byHash = new Map<number, number[]>();
  const steps: StepRecord[] = [];
  const stats: SequenceStats = { kernels: 0, communication: 0, withoutStep: 0, badStart: 0, outOfOrder: 0, splitSteps: 0, pastLaneLimit: 0 };
  for (const { rank, seq } of parts) {
    if (seq.by !== by) throw new Error(`rewrites: a rank was recorded by ${seq.by}, not by ${by}`);
    // One part (one rank of one device, most profiles): its tokens are the side's, as they are (distinct texts,
    // a recorder's token table); interning them again would make a Map of every one (a million distinct names).
    const tokenMap = parts.length === 1 ? null : seq.tokens.map((t) => tokens.intern(t));
    const rankId = ranks.intern(rank);
    const streamMap = seq.streams.map((s) => streams.intern(s));
    const stepBase = steps.length;
    const shapeMap = seq.shapes.map((s) => {
      const mapped = new Int32Array(s.tokens.length);
      if (tokenMap === null) mapped.set(s.tokens);
      else for (let i = 0; i < mapped.length; i++) mapped[i] = tokenMap[s.tokens[i]!]!;
      const h = hashTokens(mapped);
      const ids = byHash.get(h) ?? [];
      let into = ids.map((id) => shapes[id]!).find((x) => sameTokens(x.tokens, mapped));
      if (into === undefined) {
        into = {
          id: shapes.length,
          tokens: mapped,
          instances: 0,
          sumTicks: new Float64Array(mapped.length),
          sampled: [],
          sampleDurTicks: [],
          sampleStartTicks: [],
          stride: 1,
        };
        shapes.push(into);
        ids.push(into.id);
        byHash.set(h, ids);
      }
      into.instances += s.instances;
      addInto(into.sumTicks, s.sumTicks, mapped.length);
      // The rank's own sums (a copy: the part's arrays may go once its samples are thinned).
      into.rankTicks ??= new Map();
      const own = into.rankTicks.get(rankId);
      if (own === undefined) into.rankTicks.set(rankId, s.sumTicks.slice(0, mapped.length));
      else addInto(own, s.sumTicks, mapped.length);
      for (let k = 0; k < s.sampled.length; k++) {
        into.sampled.push(stepBase + s.sampled[k]!);
        into.sampleDurTicks.push(s.sampleDurTicks[k]!);
        into.sampleStartTicks.push(s.sampleStartTicks[k]!);
      }
      into.stride = Math.max(into.stride, s.stride);
      return into.id;
    });
    for (const st of seq.steps) steps.push({ ...st, rank: rankId, stream: streamMap[st.stream]!, shape: shapeMap[st.shape]! });
    for (const key of Object.keys(stats) as (keyof SequenceStats)[]) stats[key] += seq.stats[key];
  }
  for (const s of shapes) {
    if (s.sampled.length <= SAMPLE_CAP) continue;
    const keep = Array.from({ length: SAMPLE_CAP }, (_, j) => Math.floor((j * s.sampled.length) / SAMPLE_CAP));
    s.sampled = keep.map((j) => s.sampled[j]!);
    s.sampleDurTicks = keep.map((j) => s.sampleDurTicks[j]!);
    s.sampleStartTicks = keep.map((j) => s.sampleStartTicks[j]!);
  }
  return { by, tokens: parts.length === 1 ? parts[0]!.seq.tokens : tokens.texts, ranks: ranks.texts, streams: streams.texts, shapes, steps, stats };
}

/** Why a side has no sequences to compare. */
export type Unavailable =
  /** A summary JSON: totals per group. */
  | 'summary-json'
  /** Totals per type (op_statistic). */
  | 'totals'
  /** A file without a Step Id column. */
  | 'no-step-column'
  /** Step Id cells all empty. */
  | 'no-step-ids'
  /** Only communication kernels. */
  | 'no-compute-kernels'
  /** Grouped by type, and every kernel's type is N/A (a Level0 export). */
  | 'no-types';

/** One side's sequences, or why it has none to compare (the section then says so), naming the file. */
export type SideSequences = { ok: true; seq: Sequences } | { ok: false; why: Unavailable; file: string };

/**
 * The sequences of a profile read with SEQUENCE_RECORDER beside it: its ranks' parts merged, or why they cannot
 * be used: a summary JSON or an op_statistic (totals, not kernels in the order they ran), a file without a Step
 * Id column, or no compute kernel in a step.
 */
export function profileSequences(profile: Profile, by: GroupBy): SideSequences {
  const parts: { rank: string; seq: Sequences }[] = [];
  for (const r of profile.ranks) {
    if (r.beside === undefined) return { ok: false, why: 'summary-json', file: r.snapshot?.path ?? r.files[0]?.path ?? profile.input };
    for (const b of r.beside as RecordedRank[]) {
      if (b.unordered !== null) return { ok: false, why: 'totals', file: b.unordered };
      if (b.withoutSteps !== null) return { ok: false, why: 'no-step-column', file: b.withoutSteps };
      parts.push({ rank: r.rank, seq: b.seq });
    }
  }
  const seq = mergeRecorded(by, parts);
  if (seq.steps.length === 0) return { ok: false, why: seq.stats.withoutStep > 0 ? 'no-step-ids' : 'no-compute-kernels', file: profile.input };
  // A Level0 export by type: one N/A token for every kernel, which would align as a rewrite of N/A into the types.
  if (by === 'type' && seq.tokens.length > 0 && seq.tokens.every((t) => t === 'N/A')) return { ok: false, why: 'no-types', file: profile.input };
  return { ok: true, seq };
}
