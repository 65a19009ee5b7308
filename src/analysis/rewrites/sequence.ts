// The kernel sequence of a profile, as the rewrites analysis needs it: per rank and compute stream, per step, the
// ordered tokens (a token is the grouping key of `--by`: the type by default) with each kernel's duration and
// start time, all in integer ticks of 0.1 ns (model.ts TICKS_PER_US).
//
// Built while the rows are read, in file order, by a SequenceRecorder. Steps repeat, so the recorder does not keep
// rows; it keeps:
//   - one open step per (rank, stream) lane: its tokens, durations and starts in reused typed arrays (the longest
//     step of the lane, not the file);
//   - each distinct step shape (token sequence) once, interned by a hash of its tokens (compared in full on a hit),
//     with the sum of durations per position over every step of that shape (exact means for any chain; a step of
//     the shape of its lane's last step, most steps, is added to it as its kernels come: stepArrays.ts);
//   - for at most SAMPLE_CAP steps of each shape, the per-kernel durations and starts (relative to the step's first
//     start), for medians and per-step samples of a chain's time and wall span. The steps kept are spread evenly
//     over the run (every stride-th step of the shape; the stride doubles when the sample is full), so that
//     warm-up steps do not stand for the whole run, and the choice is deterministic;
//   - one small record per step (rank, stream, Step Id, shape, first start, last end).
// So memory grows with distinct step shapes (and steps), not with rows: a 700k-row export of 300 steps of one
// shape keeps one shape of ~2,400 tokens, 64 sampled steps and 300 step records.
//
// Communication kernels (core COMMUNICATION or HCCL, type or name `hcom_*`, `lccl*`) are kept out: their
// interleaving with compute kernels varies from run to run. Rows without a Step Id are kept out too (counted).

import type { GroupBy } from '../../model/model.js';
import { addInto, sameTokens, startsAfter, thin } from './stepArrays.js';
import { TokenTable } from './tokens.js';

/** Sampled steps kept per shape (see the top of this file). */
export const SAMPLE_CAP = 64;

export { isCommunicationKernel, tokenKey, TokenTable, type KernelFields } from './tokens.js';

/** One distinct token sequence of a step, and what is kept of the steps that had it. */
export interface StepShape {
  id: number;
  tokens: Int32Array;
  /** Steps recorded with this shape (every rank and stream). */
  instances: number;
  /** Sum of durations per position over all those steps, in ticks. */
  sumTicks: Float64Array;
  /** The sampled steps: indexes into Sequences.steps, in recording order. */
  sampled: number[];
  /** Per sampled step (same order): each kernel's duration, in ticks. */
  sampleDurTicks: Float64Array[];
  /** Per sampled step: each kernel's start, in ticks after the step's first start. */
  sampleStartTicks: Float64Array[];
  /** Internal: every `stride`-th step of this shape is sampled. */
  stride: number;
  /**
   * Per rank (its index in Sequences.ranks) whose steps a part of its own recorded: its sum of durations per
   * position over its steps of this shape (mergeRecorded), so that a rank's time of a shape is exact, whatever the
   * samples hold. None for a recorder's own sequences.
   */
  rankTicks?: Map<number, Float64Array>;
}

/** One step of one rank and stream. */
export interface StepRecord {
  /** Index into Sequences.ranks. */
  rank: number;
  /** Index into Sequences.streams. */
  stream: number;
  step: number;
  shape: number;
  /** First kernel start and last kernel end, in ticks after the recorder's origin of its rank. */
  startTicks: number;
  endTicks: number;
  /** The step's kernels came in more than one run of rows (another step of the lane came in between). */
  split: boolean;
}

/** What a recorder saw and kept out, so that totals can be checked. */
export interface SequenceStats {
  /** Compute kernels recorded (in a step). */
  kernels: number;
  /** Communication kernels kept out. */
  communication: number;
  /** Compute kernels without a Step Id, kept out. */
  withoutStep: number;
  /** Rows whose start time could not be read (recorded with the previous kernel's end as start). */
  badStart: number;
  /** Kernels that started before the previous kernel of their lane (file order is kept). */
  outOfOrder: number;
  /** Steps whose rows were not contiguous in their lane. */
  splitSteps: number;
  /** Compute kernels kept out because their rank and stream would have been lane MAX_LANES + 1 or later. */
  pastLaneLimit: number;
}

/** The ordered kernels of one profile (one side of a diff). */
export interface Sequences {
  by: GroupBy;
  tokens: string[];
  ranks: string[];
  streams: string[];
  shapes: StepShape[];
  steps: StepRecord[];
  stats: SequenceStats;
}

/** A lane's open step. */
interface Lane {
  rank: number;
  stream: number;
  step: number;
  n: number;
  hash: number;
  tokens: Int32Array;
  durs: Float64Array;
  starts: Float64Array;
  first: number;
  last: number;
  prevStart: number;
  /** Step Ids this lane has closed already (to tell a split step). */
  closed: Set<number>;
  /** The shape of the lane's last step, which its next one most often has too. */
  pred: StepShape | null;
  /**
   * The open step has had pred's tokens so far, and its durations are added to pred's sums as they come (add);
   * `saved`: pred's sums before them, put back if the step turns out to be of another shape.
   */
  onPred: boolean;
  saved: Float64Array;
}

const EMPTY_LANE_CAPACITY = 16;

/**
 * The most (rank, stream) lanes one recorder keeps. Stream ids come from the file: a damaged or hostile one with
 * a new id on every row must not make a lane (and its buffers) per row. Kernels past it are counted, not kept.
 */
export const MAX_LANES = 4096;

/**
 * Records kernels in file order. `add` once per compute kernel (see `tokenKey`; `skipCommunication` and
 * `skipWithoutStep` for the rows kept out, so that they are counted); `finish` once at the end.
 */
export class SequenceRecorder {
  readonly table = new TokenTable();
  private readonly ranks = new TokenTable();
  private readonly streams = new TokenTable();
  private readonly lanes = new Map<number, Lane>();
  private lastLane: Lane | null = null;
  private readonly shapes: StepShape[] = [];
  private readonly byHash = new Map<number, number[]>();
  private readonly steps: StepRecord[] = [];
  /** The shapes some lane is adding its open step to (onPred), and that lane. */
  private readonly predicted = new Map<StepShape, Lane>();
  /**
   * Arrays of sampled steps that thinning dropped, by length, for the next samples (a new one costs its first
   * writes to fresh pages, tens of µs, more than the copy, and a share of the collector's work).
   */
  private readonly spare = new Map<number, Float64Array[]>();
  private readonly stats: SequenceStats = {
    kernels: 0,
    communication: 0,
    withoutStep: 0,
    badStart: 0,
    outOfOrder: 0,
    splitSteps: 0,
    pastLaneLimit: 0,
  };
  private done = false;

  constructor(readonly by: GroupBy) {}

  /** The id of a rank text (for `add`). */
  rank(text: string): number {
    return this.ranks.intern(text);
  }

  /** The id of a stream text (for `add`); `-` when the export has no Stream ID. */
  stream(text: string): number {
    return this.streams.intern(text);
  }

  skipCommunication(): void {
    this.stats.communication++;
  }

  skipWithoutStep(): void {
    this.stats.withoutStep++;
  }

  /**
   * One compute kernel with a Step Id. `token` from `table.intern(tokenKey(...))`; `durTicks` its duration;
   * `startTicks` its start after any origin that is the same for all rows of the rank (NaN when unreadable).
   */
  add(rank: number, stream: number, step: number, token: number, durTicks: number, startTicks: number): void {
    let lane = this.lastLane;
    if (lane === null || lane.rank !== rank || lane.stream !== stream) {
      const found = this.lane(rank, stream);
      if (found === null) {
        this.stats.pastLaneLimit++;
        return;
      }
      lane = found;
    }
    if (lane.step !== step) this.open(lane, step);
    if (!Number.isFinite(startTicks)) {
      this.stats.badStart++;
      startTicks = lane.n > 0 ? lane.last : 0;
    }
    if (lane.n === lane.tokens.length) grow(lane);
    const i = lane.n++;
    lane.tokens[i] = token;
    lane.durs[i] = durTicks;
    lane.starts[i] = startTicks;
    lane.hash = Math.imul(lane.hash ^ token, 0x01000193);
    if (lane.onPred) {
      const p = lane.pred!;
      if (i < p.tokens.length && p.tokens[i] === token) p.sumTicks[i]! += durTicks;
      else this.offPred(lane, i);
    }
    if (i === 0) {
      lane.first = startTicks;
      lane.last = startTicks + durTicks;
    } else {
      // Counted on every kernel (0 or 1), not in a branch first taken late (which would deoptimise this).
      this.stats.outOfOrder += startTicks < lane.prevStart ? 1 : 0;
      if (startTicks < lane.first) lane.first = startTicks;
      if (startTicks + durTicks > lane.last) lane.last = startTicks + durTicks;
    }
    lane.prevStart = startTicks;
    this.stats.kernels++;
  }

  finish(): Sequences {
    if (!this.done) {
      for (const lane of [...this.lanes.values()].sort((a, b) => a.rank - b.rank || a.stream - b.stream)) this.close(lane, true);
      // No lane is written again: the last steps' shapes and samples may hold their lanes' arrays (close).
      this.lanes.clear();
      this.lastLane = null;
      this.done = true;
    }
    return {
      by: this.by,
      tokens: this.table.texts,
      ranks: this.ranks.texts,
      streams: this.streams.texts,
      shapes: this.shapes,
      steps: this.steps,
      stats: this.stats,
    };
  }

  /** The lane of (rank, stream), made when first seen; null past MAX_LANES. */
  private lane(rank: number, stream: number): Lane | null {
    // Ids are small integers from rank() and stream(): an exact key below 2^53.
    const key = rank * 2 ** 26 + stream;
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      if (this.lanes.size >= MAX_LANES) return null;
      lane = {
        rank,
        stream,
        step: Number.NaN,
        n: 0,
        hash: 0x811c9dc5,
        tokens: new Int32Array(EMPTY_LANE_CAPACITY),
        durs: new Float64Array(EMPTY_LANE_CAPACITY),
        starts: new Float64Array(EMPTY_LANE_CAPACITY),
        first: 0,
        last: 0,
        prevStart: Number.NEGATIVE_INFINITY,
        closed: new Set(),
        pred: null,
        onPred: false,
        saved: new Float64Array(0),
      };
      this.lanes.set(key, lane);
    }
    this.lastLane = lane;
    return lane;
  }

  private open(lane: Lane, step: number): void {
    this.close(lane);
    lane.step = step;
    // Its sums are made as its kernels come when it has the shape of the lane's last step (most steps): a loop at
    // its end (addInto) mostly runs before V8 has optimised it. One lane at a time adds to a shape so.
    const p = lane.pred;
    if (p === null || this.predicted.has(p)) return;
    if (lane.saved.length < p.sumTicks.length) lane.saved = new Float64Array(p.sumTicks.length);
    lane.saved.set(p.sumTicks);
    lane.onPred = true;
    this.predicted.set(p, lane);
  }

  /** The open step is not of pred's shape after all: pred's first `added` sums back as they were. */
  private offPred(lane: Lane, added: number): void {
    const p = lane.pred!;
    p.sumTicks.set(lane.saved.subarray(0, added));
    lane.onPred = false;
    this.predicted.delete(p);
  }

  // A step's loops over its kernels are small functions of their own (sameTokens, addInto, startsAfter): this
  // method runs once a step, and so stays small to compile, and its branches taken late (thin) cost no
  // deoptimisation of a large compiled loop.
  /**
   * `last`: the lane's last step, which finish closes: its shape (a new one) and its samples are the lane's own
   * arrays, not copies, as nothing writes the lane again (a step of a million kernels: 20 MB copied at the end of
   * a read, beside the lane's arrays).
   */
  private close(lane: Lane, last = false): void {
    if (lane.n === 0) return;
    const n = lane.n;
    let shape: StepShape;
    if (lane.onPred && n === lane.pred!.tokens.length) {
      // Of pred's shape, token for token: its sums are made.
      shape = lane.pred!;
      lane.onPred = false;
      this.predicted.delete(shape);
    } else {
      if (lane.onPred) this.offPred(lane, n);
      shape = this.intern(lane.tokens.subarray(0, n), Math.imul(lane.hash ^ n, 0x01000193), last);
      addInto(shape.sumTicks, lane.durs, n);
      // Another lane adds its open step to this shape: what it puts back if that step is of another shape has these.
      const other = this.predicted.get(shape);
      if (other !== undefined) addInto(other.saved, lane.durs, n);
    }
    lane.pred = shape;
    const split = lane.closed.has(lane.step);
    this.stats.splitSteps += split ? 1 : 0;
    lane.closed.add(lane.step);
    const index = this.steps.length;
    this.steps.push({ rank: lane.rank, stream: lane.stream, step: lane.step, shape: shape.id, startTicks: lane.first, endTicks: lane.last, split });
    const seen = shape.instances++;
    if (seen % shape.stride === 0) {
      if (shape.sampled.length === SAMPLE_CAP) thin(shape, this.spare);
      if (seen % shape.stride === 0) {
        shape.sampled.push(index);
        const durs = last ? lane.durs.subarray(0, n) : this.sampleArray(n);
        if (!last) durs.set(lane.durs.subarray(0, n));
        shape.sampleDurTicks.push(durs);
        shape.sampleStartTicks.push(startsAfter(lane.starts, n, lane.first, last ? lane.starts.subarray(0, n) : this.sampleArray(n)));
      }
    }
    lane.n = 0;
    lane.hash = 0x811c9dc5;
    lane.prevStart = Number.NEGATIVE_INFINITY;
  }

  /** An array of n for a sampled step: a spare one (every entry is written over), else a new one. */
  private sampleArray(n: number): Float64Array {
    return this.spare.get(n)?.pop() ?? new Float64Array(n);
  }

  /** The shape of these tokens, made when new (holding `tokens` themselves when `keep`, else a copy). */
  private intern(tokens: Int32Array, hash: number, keep = false): StepShape {
    const ids = this.byHash.get(hash);
    if (ids !== undefined) {
      for (const id of ids) {
        const s = this.shapes[id]!;
        if (sameTokens(s.tokens, tokens)) return s;
      }
    }
    const shape: StepShape = {
      id: this.shapes.length,
      tokens: keep ? tokens : tokens.slice(),
      instances: 0,
      sumTicks: new Float64Array(tokens.length),
      sampled: [],
      sampleDurTicks: [],
      sampleStartTicks: [],
      stride: 1,
    };
    this.shapes.push(shape);
    if (ids === undefined) this.byHash.set(hash, [shape.id]);
    else ids.push(shape.id);
    return shape;
  }
}

function grow(lane: Lane): void {
  const size = lane.tokens.length * 2;
  const tokens = new Int32Array(size);
  tokens.set(lane.tokens);
  const durs = new Float64Array(size);
  durs.set(lane.durs);
  const starts = new Float64Array(size);
  starts.set(lane.starts);
  lane.tokens = tokens;
  lane.durs = durs;
  lane.starts = starts;
}

// The exact start-cell parsers live in input/ (the readers parse starts with them); the tests import them here too.
export { startOriginUs, startTicksAfter, startTicksAfterBytes } from '../../input/kernelCells.js';
