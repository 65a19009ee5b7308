// Fusion rewrites: which chain of kernels each new kernel replaced, where, how often, what it saved, and where the
// chain still runs. Pure: two Sequences (sequence.ts) in, a Rewrites result out.
//
//  1. Per rank and compute stream ("lane"), each side's steps are grouped by shape (their token sequence); the most
//     frequent shape of each side stands for the lane (ties: the one seen first), with its coverage. Steps are
//     never paired by index.
//  2. The two representative steps of a lane are aligned (myers.ts): a shortest edit script, refused as "steps too
//     different to align" past `maxEdits` (the lower bound is checked first), with the hunks slid and merged as
//     git's xdl_change_compact does. Lanes with the same pair of shapes share one alignment. The most frequent
//     shapes of a lane's other classes of steps (prefill beside decode: stepClasses.ts) are aligned too, with the
//     other side's class they pair with; the lane's status stays its representatives'.
//  3. Hunks are grouped into rewrites by (removed tokens, added tokens).
//  4. Each rewrite is verified on every step of every rank, one pass per distinct shape (a shape's steps all
//     count): the exact occurrences of the removed chain (base and PR) and of the added chain, counted step by step
//     into its chains, its least and most in a step and the kernels of its chain kept beside the added one
//     (chainCount.ts), the near occurrences
//     of the removed chain in the PR (within ⌊|chain|/4⌋ edits; these are where the fusion did not happen), their
//     layers (layers.ts), and the time of one chain on each side (sum of its kernels' durations and its wall span,
//     the median over the occurrences in the sampled steps), judged by the noise test over per-step samples.
//  5. The conservation line: of the kernels the PR lost and gained per token (all compute kernels with a step),
//     how many the rewrites account for; the rest is listed.
//
// Over 400 lines: the engine's steps below share one state (the sides, the rewrites forming); alignment (myers.ts),
// sequences (sequence.ts), layers (layers.ts) and chain counting (chainCount.ts) are apart already, and time
// attribution is the part to move out next.

import { compareRanks } from '../../model/model.js';
import { TextIndex } from '../../model/textIndex.js';
import type { RewriteNoteJson } from '../../model/schema.js';
import { DEFAULT_NOISE, judge, median, type Judged, type NoiseOptions } from '../noise.js';
import { chooseMarker, firstAtLeast, layerIn, layerPhase, markerPositions, type MarkerSite } from './layers.js';
import { exactOccurrences, nearOccurrences, type Site } from './match.js';
import { type Claimed, type Counted, countSteps, type StepUnit } from './chainCount.js';
import { cutStepIds } from './cutSteps.js';
import { closest } from '../../util/nearName.js';
import { editLowerBound } from './editBound.js';
import { entry } from '../../util/maps.js';
import { alignSequences, compactHunks, type Hunk } from './myers.js';
import { fewestHunks } from './regroup.js';
import { MAX_LANES, type Sequences, type StepShape } from './sequence.js';
import { isFusion, mergeMoves, sameRun } from './moves.js';
import { byFrequency, CLASSED_WORK, type Classes, classPairs, fusedClasses, shapeBound, stepClasses } from './stepClasses.js';

export interface RewriteOptions {
  /** The most insertions + deletions one pair of representative steps may need. */
  maxEdits: number;
  /**
   * The most work one alignment may take, as (N + M) · D: long steps get a lower edit cap (a pair of 100,000-kernel
   * steps at most 2,000 edits with the default), so that no pair of steps takes more than about a second.
   */
  maxWork: number;
  /** Token text of the layer marker; null: found automatically. */
  layerMarker: string | null;
  noise: NoiseOptions;
  /** Align the lanes' other classes of steps too (stepClasses.ts); off, the representatives alone (tests compare). */
  otherClasses: boolean;
}

/**
 * The most PR step shapes of a lane's most frequent kind aligned with the base's most frequent step for the kernels
 * they run that no base step runs (a fusion in some steps too small to make a kind of step): one per set of such
 * kernels, the most frequent first.
 */
const MAX_NEW_KINDS = 4;

/**
 * The most rewrites verified on every step. Each costs a scan of every distinct step shape of both sides; two
 * profiles too unlike to compare (a different model, --by type+shapes with shapes that change every step) could
 * otherwise make thousands.
 */
export const MAX_VERIFIED = 64;

export const DEFAULT_REWRITE_OPTIONS: RewriteOptions = { maxEdits: 4000, maxWork: 2e8, layerMarker: null, noise: DEFAULT_NOISE, otherClasses: true };

/** One side of a lane: its steps and representative shape. */
export interface LaneSide {
  steps: number;
  /** Steps that have the representative shape. */
  repSteps: number;
  /** Distinct shapes among the lane's steps. */
  shapes: number;
  /** Kernels of the representative step. */
  kernels: number;
}

/** One rank and stream, and how its representative steps aligned. */
export interface Lane {
  rank: string;
  stream: string;
  base: LaneSide | null;
  pr: LaneSide | null;
  /**
   * `aligned`: `edits` insertions + deletions; `too-different`: more than maxEdits needed (`lowerBound` is the
   * exact lower bound, `edits` null), or the steps share under a tenth of the longer one's kernels (`edits` set:
   * see FEW_SHARED_FROM); `one-side`: the lane has steps on one side only.
   */
  status: 'aligned' | 'too-different' | 'one-side';
  edits: number | null;
  lowerBound: number;
  /** The edit cap used for this lane (maxEdits, lower for long steps: see maxWork). */
  maxEdits: number;
}

/** The time of one chain on one side. */
export interface ChainTime {
  /** Occurrences measured (in the sampled steps). */
  occurrences: number;
  /** Median over those occurrences of the sum of the chain's kernel durations, ticks. */
  medianTicks: number;
  /** Median of the chain's wall span (first start to last end), ticks. */
  medianSpanTicks: number;
  /** Mean of the sum over every occurrence of every step (exact: from the per-shape sums), ticks. */
  meanTicks: number;
  /** Per sampled step with the chain: the mean chain time in that step (the noise test's samples), ticks. */
  perStepTicks: number[];
}

/** Where a removed chain still runs in the PR. */
export interface NotFused {
  rank: string;
  stream: string;
  /** Step Ids (sorted) whose steps have this site. */
  steps: number[];
  /** Layer by the marker (0-based); null without a marker. */
  layer: number | null;
  /** Layers (marker occurrences) in those steps. */
  layers: number;
  /** Position of the site in the step (0-based kernel index among the lane's compute kernels). */
  position: number;
  /** Kernels of the site. */
  tokens: string[];
  /** Edits between the site and the chain (0: the chain itself). */
  edits: number;
}

export interface Rewrite {
  removed: string[];
  added: string[];
  /**
   * Chains replaced in one step (a rank's step both sides profiled): the least and the most, over the steps of
   * `ranks` and of `undone.ranks` (chainCount.ts); `chains` is their sum over the steps.
   */
  perStep: { min: number; max: number };
  /** Ranks with a chain replaced in some step. */
  ranks: string[];
  /** Ranks where the PR ran the chain more often than the base, and the chains that takes off the other ranks'. */
  undone: { ranks: string[]; chains: number };
  /** Chains replaced in all steps of all ranks (see `removedChains` and `addedChains`, and chainCount.ts). */
  chains: number;
  /**
   * Kernels of the removed chain the PR still runs right beside an occurrence of the added chain (a kernel the
   * fusion left out): how many, in how many steps, and of which kernels (in the chain's order). Their time is in
   * the saving, and their count in the conservation line.
   */
  kept: { kernels: number; steps: number; tokens: { token: string; kernels: number }[] };
  /** Exact, non-overlapping occurrences of the removed chain over all steps (0 when it is empty). */
  removedChains: { base: number; pr: number };
  /** The same for the added chain. */
  addedChains: { base: number; pr: number };
  /** Layers where the representative base steps had the change; null without a marker. */
  layers: number[] | null;
  /** Layers of the representative base step (marker occurrences); null without a marker. */
  layerCount: number | null;
  base: ChainTime | null;
  pr: ChainTime | null;
  /**
   * The change of one chain's time (PR − base medians, ticks) judged by the noise test; never significant when
   * `unplaced` is not empty (reason `unplaced`: what ran in the chain's place on those streams is not known).
   */
  saving: Omit<Judged, 'reason'> & { reason: Judged['reason'] | 'unplaced' };
  /**
   * The measured change (PR − base, ticks) of the time of this rewrite's kernels: the kernels of the exact occurrences
   * of its removed and added chains that it counts (chainCount.ts: rank by rank, in the steps both sides profiled, of
   * the layers it changed), each kernel given to one rewrite only (the longer chains first). The rewrites' figures and the time of their kernel groups outside them
   * add up to those groups' change (Conservation.time).
   */
  totalSavingTicks: number;
  /** Sites of the PR within ⌊|removed|/4⌋ edits of the removed chain (for chains of 2 or more kernels). */
  notFused: NotFused[];
  /** Edits allowed for a site of notFused. */
  notFusedEdits: number;
  /**
   * It removed a copy of the kernels next to it (a duplicate dropped): its sites not fused are where two copies still
   * run next to each other, not the copy kept.
   */
  copy: boolean;
  /**
   * The side whose part of the chain ran on streams of that side only, placed by start time in the place of the
   * change on the lane (a fused kernel moved to a stream of its own); null when both parts are on the lane.
   */
  moved: { side: 'base' | 'pr'; streams: string[] } | null;
  /**
   * Streams of one side only, on the ranks of a change that removed (or added) nothing, whose kernels could not be
   * placed: what ran in the chain's place there cannot be told from the profile.
   */
  unplaced: string[];
}

/** Of the per-token count changes, what the rewrites account for. */
export interface Conservation {
  /** Σ over tokens of what the PR has fewer of / more of than the base. */
  removed: number;
  added: number;
  /** The part of those the rewrites' chains explain. */
  removedAccounted: number;
  addedAccounted: number;
  /**
   * Of the rest, the part that ran in steps only one side profiled (a Step Id of a rank that the other side's rank
   * does not have): those steps are compared with nothing, so all their kernels are a count change.
   */
  removedUnpaired: number;
  addedUnpaired: number;
  /**
   * Tokens whose count change the rewrites and the steps of one side only do not explain exactly: observed change,
   * the rewrites' part and the part of the steps of one side only (PR minus base).
   */
  rest: { token: string; base: number; pr: number; observed: number; explained: number; unpaired: number }[];
  /**
   * The time change (PR − base, ticks) of the kernel groups the verified rewrites name, over their compute kernels
   * in a step: `named` = `rewrites` (the sum of the rewrites' totalSavingTicks) + `outside` (the same groups outside
   * the rewrites' chains, in the steps both sides profiled) + `unpaired` (in steps of one side only). `exact`: no
   * step shape mixes steps both sides profiled with steps of one side only (else those shapes' time is split
   * between them by their mean). `ranksSplit`: a step shape that ranks ran with different chains replaced had more
   * steps of a rank than its samples hold, so its time is split between the ranks by their share of its steps (the
   * rewrites' savings there are that share, not measured).
   */
  time: { named: number; rewrites: number; outside: number; unpaired: number; exact: boolean; ranksSplit: boolean };
}

export interface Rewrites {
  by: string;
  lanes: Lane[];
  /** `equal` (found automatically): it splits the step into equal layers (else no kernel does; see chooseMarker). */
  marker: { token: string; auto: boolean; equal?: boolean } | null;
  rewrites: Rewrite[];
  conservation: Conservation;
  /**
   * Rewrites past MAX_VERIFIED (the smallest, by kernels changed in the representative steps) are not verified:
   * how many, and the kernels their hunks removed and added per representative step (summed over lanes). Their
   * kernels are in the conservation line's rest.
   */
  unverified: { rewrites: number; removed: number; added: number };
  /** Things the reader should know (unpaired streams, split steps, steps kept out). */
  notes: RewriteNote[];
}

/** Something the reader of the rewrites should know; the reporters word it (texts from input escaped there). */
export type RewriteNote = RewriteNoteJson;

/** The steps of one (rank, stream, shape): their Step Ids, sorted, each once. */
interface StepGroup {
  rank: string;
  stream: string;
  shape: number;
  steps: number[];
}

/** A side, with its tokens mapped into the joint table. */
interface Side {
  index: 0 | 1;
  seq: Sequences;
  /** Its steps grouped by (rank, stream, shape), in order of first step (stepGroups: made when first asked for). */
  groups: StepGroup[] | null;
  tokens: Int32Array[];
  /** Lane key → step indexes. */
  lanes: Map<string, number[]>;
  /** Per shape: its steps whose (rank, Step Id) the other side has too (see pairSteps); chains are counted in them. */
  paired: number[];
  /** Per token: its kernels in the steps the other side does not have. */
  unpaired: Map<number, number>;
  /** The steps (indexes into seq.steps) the other side does not have. */
  unpairedSteps: number[];
}

/** A lane's key: unambiguous whatever the rank and stream texts hold. */
function laneKey(rank: string, stream: string): string {
  return JSON.stringify([rank, stream]);
}

function side(index: 0 | 1, seq: Sequences, joint: TextIndex, texts: string[]): Side {
  const map = new Int32Array(seq.tokens.length);
  seq.tokens.forEach((t, i) => {
    let id = joint.get(t);
    if (id === undefined) {
      id = texts.length;
      texts.push(t);
      joint.set(t, id);
    }
    map[i] = id;
  });
  // A loop, not Int32Array.from(…, fn): that reads its source through an iterator, an object a kernel.
  const tokens = seq.shapes.map((s) => {
    const out = new Int32Array(s.tokens.length);
    for (let i = 0; i < out.length; i++) out[i] = map[s.tokens[i]!]!;
    return out;
  });
  const lanes = new Map<string, number[]>();
  seq.steps.forEach((st, i) => {
    const key = laneKey(seq.ranks[st.rank]!, seq.streams[st.stream]!);
    entry(lanes, key, () => []).push(i);
  });
  return { index, seq, tokens, lanes, groups: null, paired: seq.shapes.map((sh) => sh.instances), unpaired: new Map(), unpairedSteps: [] };
}

/**
 * Steps are paired by rank and Step Id (never by index): a step of a rank whose Step Id the other side's rank
 * lacks (a longer run, a rank of one side only) is compared with nothing. Its kernels are counted apart (Side.unpaired)
 * and kept out of the chain counts (Side.paired). A rank of both sides that shares no Step Id is compared as it is
 * (the ids of two runs may simply differ): its steps in order of Step Id, the first with the first; when one side has
 * more, those past the other side's last are compared with nothing as well, and the rank is said (its note names them).
 */
function pairSteps(sides: [Side, Side], notes: RewriteNote[]): Set<string> {
  const idsOf = sides.map((s) => {
    const byRank = new Map<string, Set<number>>();
    for (const st of s.seq.steps) entry(byRank, s.seq.ranks[st.rank]!, () => new Set<number>()).add(st.step);
    return byRank;
  });
  const disjoint = new Set<string>();
  // Per side, per rank compared as it is: the Step Ids past the other side's count (its last ones).
  const extra = [new Map<string, Set<number>>(), new Map<string, Set<number>>()] as const;
  for (const [rank, b] of idsOf[0]!) {
    const p = idsOf[1]!.get(rank);
    if (p === undefined || [...b].some((x) => p.has(x))) continue;
    disjoint.add(rank);
    if (b.size === p.size) continue;
    const ids = [[...b].sort((x, y) => x - y), [...p].sort((x, y) => x - y)] as const;
    const longer = b.size > p.size ? 0 : 1;
    extra[longer].set(rank, new Set(ids[longer].slice(ids[1 - longer]!.length)));
    notes.push({ kind: 'no-common-steps', rank, base: ids[0], pr: ids[1] });
  }
  const cut = cutPairs(sides, idsOf, disjoint);
  for (const i of [0, 1] as const) {
    const s = sides[i];
    const other = idsOf[1 - i]!;
    // The steps of one side only (unpaired-steps), and those cut short on this side (cut-steps).
    const said = [newSaid(), newSaid()] as const;
    const perShape = new Map<number, number>();
    s.seq.steps.forEach((st, index) => {
      const rank = s.seq.ranks[st.rank]!;
      const past = extra[i].get(rank)?.has(st.step) === true;
      const left = !past && cut.leftOut[i].get(rank)?.has(st.step) === true;
      if (!past && !left && (disjoint.has(rank) || other.get(rank)?.has(st.step) === true)) return;
      s.paired[st.shape]!--;
      s.unpairedSteps.push(index);
      perShape.set(st.shape, (perShape.get(st.shape) ?? 0) + 1);
      // The steps past the other side's last of a rank compared as it is: its no-common-steps note says them. Those
      // left out for the other side's step cut short: its note says them.
      if (past || (left && cut.own[i].get(rank)?.has(st.step) !== true)) return;
      const to = said[left ? 1 : 0];
      to.kernels += s.tokens[st.shape]!.length;
      to.seen.add(JSON.stringify([rank, st.step]));
      to.ranks.add(rank);
      to.stepIds.add(st.step);
    });
    for (const [shape, n] of perShape) for (const t of s.tokens[shape]!) s.unpaired.set(t, (s.unpaired.get(t) ?? 0) + n);
    for (const [k, kind] of [
      [0, 'unpaired-steps'],
      [1, 'cut-steps'],
    ] as const) {
      const x = said[k];
      if (x.seen.size === 0) continue;
      notes.push({
        kind,
        side: i === 0 ? 'base' : 'pr',
        steps: x.seen.size,
        kernels: x.kernels,
        ranks: [...x.ranks].sort(compareRanks),
        stepIds: [...x.stepIds].sort((a, b) => a - b),
      });
    }
  }
  return disjoint;
}

/** What a note of steps compared with nothing says: how many (rank, Step Id), their kernels, ranks and Step Ids. */
function newSaid(): { seen: Set<string>; kernels: number; ranks: Set<string>; stepIds: Set<number> } {
  return { seen: new Set(), kernels: 0, ranks: new Set(), stepIds: new Set() };
}

/**
 * The steps cut short (cutSteps.ts) whose step the other side has (of the same Step Id, or of the same place on a rank
 * compared as it is), per side: `own`, cut on that side; `leftOut`, those and the other side's steps they pair with.
 */
function cutPairs(
  sides: [Side, Side],
  idsOf: Map<string, Set<number>>[],
  disjoint: Set<string>,
): { own: [Map<string, Set<number>>, Map<string, Set<number>>]; leftOut: [Map<string, Set<number>>, Map<string, Set<number>>] } {
  const own: [Map<string, Set<number>>, Map<string, Set<number>>] = [new Map(), new Map()];
  const leftOut: [Map<string, Set<number>>, Map<string, Set<number>>] = [new Map(), new Map()];
  const add = (m: Map<string, Set<number>>, rank: string, id: number) => entry(m, rank, () => new Set<number>()).add(id);
  for (const i of [0, 1] as const) {
    for (const [rank, ids] of cutStepIds(sides[i].seq, sides[i].lanes.values())) {
      const mine = idsOf[i]!.get(rank)!;
      const theirs = idsOf[1 - i]!.get(rank);
      if (theirs === undefined) continue;
      const sorted = disjoint.has(rank) ? [[...mine].sort((x, y) => x - y), [...theirs].sort((x, y) => x - y)] : null;
      for (const id of ids) {
        const other = sorted === null ? (theirs.has(id) ? id : undefined) : sorted[1]![sorted[0]!.indexOf(id)];
        if (other === undefined) continue;
        add(own[i], rank, id);
        add(leftOut[i], rank, id);
        add(leftOut[i === 0 ? 1 : 0], rank, other);
      }
    }
  }
  return { own, leftOut };
}

/**
 * The steps the chains are counted in, each as the shapes of its streams on both sides: a rank's steps of the same
 * place (stepPlaces) on both sides: of the same Step Id; on a rank compared as it is (no Step Id in common), in order
 * of Step Id, the first with the first (a step past the other side's last is compared with nothing: pairSteps left
 * it out).
 */
function stepUnits(sides: [Side, Side], places: readonly [number[], number[]]): StepUnit[] {
  const units = new Map<string, StepUnit>();
  for (const s of sides) {
    const skip = new Set(s.unpairedSteps);
    s.seq.steps.forEach((st, i) => {
      if (skip.has(i)) return;
      const rank = s.seq.ranks[st.rank]!;
      const u = entry(
        units,
        JSON.stringify([rank, places[s.index]![i]!]),
        (): StepUnit => ({ rank, shapes: [[], []], steps: [[], []], streams: [[], []] }),
      );
      u.shapes[s.index].push(st.shape);
      u.steps![s.index].push(i);
      u.streams![s.index].push(s.seq.streams[st.stream]!);
    });
  }
  return [...units.values()];
}

/**
 * Each step's place among its rank's, by which it is compared with the other side's step of the same place: its Step
 * Id; on a rank compared as it is (no Step Id in common), its Step Id's place among the rank's in order.
 */
function stepPlaces(s: Side, disjoint: Set<string>): number[] {
  // One pass over the steps, whatever the ranks.
  const idsOf = new Map<string, Set<number>>();
  for (const st of s.seq.steps) {
    const rank = s.seq.ranks[st.rank]!;
    if (disjoint.has(rank)) entry(idsOf, rank, () => new Set<number>()).add(st.step);
  }
  const ordinal = new Map<string, Map<number, number>>();
  for (const [rank, ids] of idsOf) ordinal.set(rank, new Map([...ids].sort((x, y) => x - y).map((id, i) => [id, i])));
  return s.seq.steps.map((st) => {
    const rank = s.seq.ranks[st.rank]!;
    return disjoint.has(rank) ? ordinal.get(rank)!.get(st.step)! : st.step;
  });
}

/** The side's steps grouped by (rank, stream, shape), in order of each group's first step; made once. */
function stepGroups(s: Side): StepGroup[] {
  if (s.groups !== null) return s.groups;
  const groups = new Map<string, { rank: string; stream: string; shape: number; steps: number[] }>();
  for (const st of s.seq.steps) {
    const key = `${st.rank}:${st.stream}:${st.shape}`;
    entry(groups, key, () => ({ rank: s.seq.ranks[st.rank]!, stream: s.seq.streams[st.stream]!, shape: st.shape, steps: [] as number[] })).steps.push(
      st.step,
    );
  }
  s.groups = [...groups.values()].map((g) => ({ ...g, steps: [...new Set(g.steps)].sort((x, y) => x - y) }));
  return s.groups;
}

/**
 * The occurrences of the rewrites' chains in the step shapes of each side, each scan made once: the counts, the
 * chain times, the marker and the sites not fused ask for the same ones. Results are shared: read, never changed.
 */
class Scans {
  private readonly exactOf = new Map<Int32Array, Map<number, number[]>>();
  private readonly nearOf = new Map<Int32Array, Map<string, Site[]>>();

  constructor(private readonly sides: [Side, Side]) {}

  /** exactOccurrences of the chain in a shape of a side. */
  exact(side: 0 | 1, shape: number, chain: Int32Array): number[] {
    const byShape = entry(this.exactOf, chain, () => new Map<number, number[]>());
    return entry(byShape, side * SHAPE_KEY + shape, () => exactOccurrences(this.sides[side].tokens[shape]!, chain));
  }

  /** nearOccurrences of the chain (within k edits) in a shape of a side. */
  near(side: 0 | 1, shape: number, chain: Int32Array, k: number): Site[] {
    const byShape = entry(this.nearOf, chain, () => new Map<string, Site[]>());
    return entry(byShape, `${side}:${shape}:${k}`, () => nearOccurrences(this.sides[side].tokens[shape]!, chain, k));
  }
}

/** Shapes of a side are fewer than this (a key of side and shape). */
const SHAPE_KEY = 2 ** 32;

type LowCoverage = Extract<RewriteNote, { kind: 'low-coverage' }>;

/**
 * A lane whose representative step stands for fewer than half of its steps: counted into the side's note, which
 * keeps the lane of the lowest share.
 */
function lowCoverage(low: [LowCoverage | null, LowCoverage | null], i: 0 | 1, rank: string, stream: string, s: LaneSide): void {
  if (s.repSteps * 2 >= s.steps) return;
  const n = low[i];
  const worse = n === null || s.repSteps * n.steps < n.repSteps * s.steps;
  const lanes = (n?.lanes ?? 0) + 1;
  if (worse)
    low[i] = { kind: 'low-coverage', side: i === 0 ? 'base' : 'pr', lanes, rank, stream, repSteps: s.repSteps, steps: s.steps, shapes: s.shapes };
  else n.lanes = lanes;
}

/**
 * An aligned pair of steps: a lane's representatives (`primary`), or the most frequent shapes of another class of its
 * steps (stepClasses.ts).
 */
interface Rep {
  base: number;
  pr: number;
  lane: number;
  primary: boolean;
  /** Another class's: the lane's steps of these shapes, base and PR. */
  steps?: [number, number];
  /**
   * PR steps aligned with the base's representative (fusedClasses, or steps of kernels no base step runs): only fusions
   * the base could not have made count (fusedOnly).
   */
  fusedOnly?: true;
}

/**
 * Steps of this many kernels or more that share under a tenth of the longer one's kernels are not aligned: they are
 * two different programs (another model, another device; the real pairs of different runs share 0-3%), whose edit
 * script would list hundreds of kernels as "replaced" by a few. A PR that fuses nine kernels of ten is still compared.
 * Shorter steps are compared as they are (a toy step of one chain fused whole shares nothing).
 */
const FEW_SHARED_FROM = 32;

/** A pair of shapes not aligned: past maxEdits (`lowerBound`), or aligned in `edits` but sharing too few kernels. */
export interface Refused {
  lowerBound: number;
  /** Set when the steps aligned but share under a tenth of the longer step's kernels (FEW_SHARED_FROM). */
  edits?: number;
}

/** The alignment of two shapes (one per pair of shapes: lanes with the same pair share it); refused past maxEdits. */
function aligned(
  cache: Map<string, Hunk[] | Refused>,
  baseShape: number,
  prShape: number,
  ta: Int32Array,
  tb: Int32Array,
  maxEdits: number,
  lowerBound: number,
): Hunk[] | Refused {
  const key = `${baseShape}:${prShape}`;
  let result = cache.get(key);
  if (result === undefined) {
    const al = alignSequences(ta, tb, maxEdits);
    const longer = Math.max(ta.length, tb.length);
    if (al === null) result = { lowerBound };
    else if (longer >= FEW_SHARED_FROM && 5 * (ta.length + tb.length - al.edits) < longer) result = { lowerBound, edits: al.edits };
    else result = compactHunks(ta, tb, fewestHunks(ta, tb, al));
    cache.set(key, result);
  }
  return result;
}

/**
 * Per kernel of a shape of a side, 1 where the alignment with a shape of the other side changed it (the alignments
 * made to find the rewrites, else made here, maxWork in all); null where they do not align within it.
 */
function changedFlags(
  sides: [Side, Side],
  alignments: Map<string, Hunk[] | Refused>,
  opts: RewriteOptions,
): (side: 0 | 1, shape: number, other: number) => Uint8Array | null {
  const flags = new Map<string, Uint8Array | null>();
  let budget = opts.maxWork;
  return (side, shape, other) => {
    const [b, p] = side === 0 ? [shape, other] : [other, shape];
    return entry(flags, `${side}:${b}:${p}`, () => {
      const ta = sides[0].tokens[b]!;
      const tb = sides[1].tokens[p]!;
      const n = Math.max(1, ta.length + tb.length);
      const cached = alignments.has(`${b}:${p}`);
      const maxEdits = cached ? 0 : Math.min(opts.maxEdits, Math.floor(budget / n));
      const result = aligned(alignments, b, p, ta, tb, maxEdits, 0);
      if (!Array.isArray(result)) {
        if (!cached) budget -= n * maxEdits;
        return null;
      }
      const out = new Uint8Array(side === 0 ? ta.length : tb.length);
      for (const h of result) {
        if (!cached) budget -= n * (h.aLen + h.bLen);
        if (side === 0) out.fill(1, h.aStart, h.aStart + h.aLen);
        else out.fill(1, h.bStart, h.bStart + h.bLen);
      }
      return out;
    });
  };
}

/** Per kernel of a shape of a side, its mean duration over the shape's steps (made once a shape). */
function meanTicksOf(sides: [Side, Side]): (side: 0 | 1, shape: number) => Float64Array | null {
  const made = [new Map<number, Float64Array>(), new Map<number, Float64Array>()] as const;
  return (side, shape) => {
    const s = sides[side].seq.shapes[shape];
    if (s === undefined || s.instances === 0) return null;
    return entry(made[side], shape, () => s.sumTicks.map((t) => t / s.instances));
  };
}

/** The representative shape of a lane's steps: the most frequent, ties to the one seen first. */
function representative(s: Side, steps: number[]): { shape: number; side: LaneSide } {
  const counts = new Map<number, number>();
  for (const i of steps) {
    const sh = s.seq.steps[i]!.shape;
    counts.set(sh, (counts.get(sh) ?? 0) + 1);
  }
  let best = -1;
  let bestCount = 0;
  for (const [sh, c] of counts) {
    if (c > bestCount) {
      best = sh;
      bestCount = c;
    }
  }
  return { shape: best, side: { steps: steps.length, repSteps: bestCount, shapes: counts.size, kernels: s.tokens[best]!.length } };
}

interface Forming {
  removed: Int32Array;
  added: Int32Array;
  /** Per lane index: its copies in the lane's representative steps. */
  perLane: Map<number, number>;
  /** Its copies in the steps of the lanes' other classes (stepClasses.ts). */
  other: number;
  /** Per aligned pair of steps (an index into the reps): the base positions of the hunks. */
  positions: Map<number, number[]>;
  /** The side whose kernels in the chain's place ran on a stream of that side only (see placeAcross), and those streams. */
  moved: { side: 'base' | 'pr'; streams: Set<string> } | null;
  /** Streams of one side only, on the ranks of a change that removed (or added) nothing, whose kernels could not be placed. */
  unplaced: Set<string>;
  /**
   * Every hunk of it removed a copy of the kernels next to it (splitDuplicates): the copy kept in the PR is not a
   * site where it did not happen; a site is where two copies still run next to each other.
   */
  copy: boolean;
}

/**
 * The steps do not align (unrelated runs) when of 8 or more differences of the most frequent steps most are undone
 * over the steps, or when of 16 or more over three in four happen once in a step and one in eight or more is undone:
 * a change of one run repeats (over layers) and stands over the steps; different runs differ everywhere, once, and
 * many of their differences are alignment's accidents that other places undo.
 */
const UNALIGNED_MIN_CHANGES = 8;

/**
 * The notes of the rewrites listed that were found only in another class of steps than the lanes' most frequent (the
 * heading speaks of that one), with the steps of those classes' shapes they were found in: those found in PR steps of
 * a class the base did not run (fusedClasses: a fusion made in some steps) apart, with the steps of their lanes.
 */
function otherClassesNote(kept: Forming[], reps: Rep[], counted: (f: Forming) => Counted, notes: RewriteNote[]): void {
  const only = kept.filter((f) => f.perLane.size === 0);
  const inFused = (f: Forming): boolean => [...f.positions.keys()].every((i) => reps[i]!.fusedOnly === true);
  const other = only.filter((f) => !inFused(f));
  const fused = only.filter(inFused);
  if (other.length > 0) {
    // The steps of the other classes' pairs they were found in (not the base's representatives of the PR's steps
    // aligned with them for a fusion in some steps).
    const steps = { base: 0, pr: 0 };
    for (const i of new Set(other.flatMap((f) => [...f.positions.keys()]))) {
      if (reps[i]!.fusedOnly === true) continue;
      steps.base += reps[i]!.steps![0];
      steps.pr += reps[i]!.steps![1];
    }
    notes.push({ kind: 'other-classes', rewrites: other.length, steps });
  }
  if (fused.length > 0) {
    // The steps where they replaced a chain (of the one that replaced chains in the most, for several), of the steps
    // both sides profiled.
    const steps = Math.max(...fused.map((f) => counted(f).steps.with));
    notes.push({ kind: 'some-steps', rewrites: fused.length, steps, of: counted(fused[0]!).steps.of });
  }
}

/** An other class's pair of steps whose own differences are this many or more may be judged one-off (oneOffClasses). */
const ONE_OFF_MIN_CHANGES = 4;

/**
 * Drop from `forming` the differences found only in pairs of other classes of steps that differ in one-off places:
 * of the pair's own differences (not of the representatives), 4 or more, over half happen once in the step, and
 * those hold more kernels than the differences that repeat (a prefill fusion over 8 layers beside a changed first
 * and last kernel of the step is a fusion, listed); of such a pair, a difference of a fusion's shape that repeats in
 * the step (2 kernels or more replaced by 1 or more, twice or more) is kept. A
 * fusion repeats over the layers of the steps it is in (its prefill steps, say); steps that differ once here and
 * there (warm-up steps with setup kernels of their own on each side) are not a change of one path, and aligning
 * them lists alignment's accidents. Returns how many pairs of shapes were so judged (lanes of the same pair counted
 * once) and how many differences were left out.
 */
function oneOffClasses(forming: Map<string, Forming>, reps: Rep[]): { pairs: number; differences: number } {
  const own = new Map<number, Forming[]>();
  for (const f of forming.values()) {
    if (f.perLane.size > 0) continue;
    for (const i of f.positions.keys()) entry(own, i, () => []).push(f);
  }
  const oneOff = new Set<number>();
  for (const [i, fs] of own) {
    if (reps[i]!.primary || fs.length < ONE_OFF_MIN_CHANGES) continue;
    // Its differences that happen once, and the kernels of those and of those that repeat (a fusion over layers).
    let once = 0;
    let onceKernels = 0;
    let repeatKernels = 0;
    for (const f of fs) {
      const n = f.positions.get(i)!.length;
      const kernels = n * (f.removed.length + f.added.length);
      if (n <= 1) {
        once++;
        onceKernels += kernels;
      } else repeatKernels += kernels;
    }
    if (once * 2 > fs.length && onceKernels > repeatKernels) oneOff.add(i);
  }
  // A fusion's shape that repeats in such a step (2 kernels or more replaced by 1 or more, twice or more) stays: a
  // prefill fusion of a 2-layer model beside one-off changes of the step's ends.
  const fusion = (f: Forming): boolean => f.removed.length >= 2 && f.added.length >= 1 && [...f.positions.values()].some((p) => p.length >= 2);
  let differences = 0;
  for (const [key, f] of forming) {
    if (f.perLane.size > 0 || ![...f.positions.keys()].every((i) => oneOff.has(i)) || fusion(f)) continue;
    forming.delete(key);
    differences++;
  }
  // Kinds, not lanes: the same pair of kernel sequences on 8 ranks is one kind of step (a note of '8 other kinds').
  return { pairs: new Set([...oneOff].map((i) => `${reps[i]!.base}:${reps[i]!.pr}`)).size, differences };
}

/** The kernels (tokens) a side runs in any step. */
interface Ran {
  has(token: number): boolean;
}

/**
 * Drop from `forming` the differences found only in pairs of PR steps with the base's representative (fusedClasses,
 * and the steps of a kernel no base step runs) that are not a fusion the base could not have made: a chain of two
 * kernels or more replaced by fewer, each of a kind no base step runs. A fusion made in some steps is one. A PR's
 * prefill step read against the base's decode step differs otherwise too, over its layers (an attention kernel for
 * another, a kernel dropped or added in each layer): a pair with a difference of its own that is no such fusion and
 * repeats in the step (at two places or more: copies side by side are one) is another kind of step, and nothing
 * found only in such pairs is kept. A prefill step that differs from the decode step only by kernels of its own in
 * place of chains of the decode step's reads as a fusion in that step (docs/diff.md).
 */
function fusedOnly(forming: Map<string, Forming>, reps: Rep[], baseRan: Ran): void {
  const novel = (t: number): boolean => !baseRan.has(t);
  const fusion = (f: Forming): boolean => isFusion(f.removed.length, f.added, novel);
  // Per such pair, the net change of each kernel over its differences that are no such fusion: a kernel moved (X →
  // nothing, nothing → X elsewhere in the layer) changes nothing, and is no sign of another kind of step.
  const own = (f: Forming): boolean => f.perLane.size === 0 && !fusion(f);
  const net = new Map<number, Map<number, number>>();
  for (const f of forming.values()) {
    if (!own(f)) continue;
    for (const [i, at] of f.positions) {
      if (reps[i]!.fusedOnly !== true) continue;
      const m = entry(net, i, () => new Map<number, number>());
      for (const t of f.added) m.set(t, (m.get(t) ?? 0) + at.length);
      for (const t of f.removed) m.set(t, (m.get(t) ?? 0) - at.length);
    }
  }
  const otherKind = new Set<number>();
  for (const f of forming.values()) {
    if (!own(f)) continue;
    for (const [i, at] of f.positions) {
      if (reps[i]!.fusedOnly !== true || sites(at, f.removed.length) < 2) continue;
      const m = net.get(i)!;
      if ([...f.removed, ...f.added].some((t) => m.get(t) !== 0)) otherKind.add(i);
    }
  }
  for (const [key, f] of forming) {
    const pairs = [...f.positions.keys()];
    if (f.perLane.size > 0 || !pairs.every((i) => reps[i]!.fusedOnly === true)) continue;
    if (!fusion(f) || pairs.every((i) => otherKind.has(i))) forming.delete(key);
  }
}

/** The places of a step a difference is at: its copies' base positions, those side by side (`C C` → `F F`) one place. */
function sites(positions: readonly number[], len: number): number {
  const at = [...positions].sort((x, y) => x - y);
  let n = 0;
  for (let i = 0; i < at.length; i++) if (i === 0 || (at[i] !== at[i - 1] && at[i] !== at[i - 1]! + len)) n++;
  return n;
}

/** A rewrite's copies in the lanes' representative steps. */
function copiesOf(f: Forming): number {
  let n = 0;
  for (const c of f.perLane.values()) n += c;
  return n;
}

function sameChain(a: Int32Array, b: Int32Array): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/**
 * A hunk that replaced a chain and, next to it, removed a copy of the unchanged kernels beside it (`C M S M S` →
 * `F M S`: C → F, and a duplicate `M S` dropped) is two edits, not one chain `C M S` → F: the copy is cut off as a
 * hunk of its own (the longest such copy, at either end, that shares no kernel with the rest of the hunk; the same
 * for a copy added next to a fused kernel). Two independent edits next to each other are two rewrites. A copy of one
 * kernel is cut off only where the same steps drop (or add) such a copy of it on its own elsewhere (`singles`, of
 * singleCopies): a chain that starts (or ends) with the kernel that runs before (after) it, as `RmsNorm DynamicQuant
 * … → MlaPrologV3` after another RmsNorm, is one chain, not a duplicate RmsNorm dropped beside a shorter one.
 */
export function splitDuplicates(a: Int32Array, b: Int32Array, h: Hunk, singles: ReadonlySet<string> = new Set()): (Hunk & { copy?: true })[] {
  if (h.aLen === 0 || h.bLen === 0) return [h];
  for (const [side, s, len, other] of [
    [a, h.aStart, h.aLen, h.bLen],
    [b, h.bStart, h.bLen, h.aLen],
  ] as const) {
    if (other === 0) continue;
    const isA = side === a;
    // The copy is a unit of its own: none of its kernels is in the rest of the hunk (a run `Mul ×6` is not cut).
    const apart = (from: number, k: number): boolean => {
      const copy = new Set(side.subarray(from, from + k));
      for (let i = h.aStart; i < h.aStart + h.aLen; i++) if ((!isA || i < from || i >= from + k) && copy.has(a[i]!)) return false;
      for (let j = h.bStart; j < h.bStart + h.bLen; j++) if ((isA || j < from || j >= from + k) && copy.has(b[j]!)) return false;
      return true;
    };
    // A copy of one kernel, at the end or the start: one the steps also drop (or add) on its own.
    const single = (at: number): boolean => singles.has(copyKey(isA, side[at]!));
    for (let k = len - 1; k >= 1; k--) {
      // A copy at the end, of the k kernels after the hunk.
      if (sameRun(side, s + len - k, s + len, k) && apart(s + len - k, k) && (k > 1 || single(s + len - 1))) {
        const rest = isA ? { ...h, aLen: h.aLen - k } : { ...h, bLen: h.bLen - k };
        const cut = isA
          ? { aStart: h.aStart + h.aLen - k, aLen: k, bStart: h.bStart + h.bLen, bLen: 0, copy: true as const }
          : { aStart: h.aStart + h.aLen, aLen: 0, bStart: h.bStart + h.bLen - k, bLen: k, copy: true as const };
        return [...splitDuplicates(a, b, rest, singles), cut];
      }
      // A copy at the start, of the k kernels before the hunk.
      if (sameRun(side, s - k, s, k) && apart(s, k) && (k > 1 || single(s))) {
        const rest = isA ? { ...h, aStart: h.aStart + k, aLen: h.aLen - k } : { ...h, bStart: h.bStart + k, bLen: h.bLen - k };
        const cut = isA
          ? { aStart: h.aStart, aLen: k, bStart: h.bStart, bLen: 0, copy: true as const }
          : { aStart: h.aStart, aLen: 0, bStart: h.bStart, bLen: k, copy: true as const };
        return [cut, ...splitDuplicates(a, b, rest, singles)];
      }
    }
  }
  return [h];
}

/** A copy of one kernel dropped (`a`: of the base) or added (`b`), as singleCopies lists them. */
function copyKey(ofBase: boolean, token: number): string {
  return `${ofBase ? 'a' : 'b'}:${token}`;
}

/**
 * The copies of one kernel that hunks of an alignment drop or add on their own (`B B G` → `B G`: a B dropped), as
 * copyKey names them: what lets splitDuplicates cut such a copy off a hunk that also replaced a chain beside it.
 */
export function singleCopies(a: Int32Array, b: Int32Array, hunks: readonly Hunk[]): Set<string> {
  const out = new Set<string>();
  for (const h of hunks) {
    if (h.aLen + h.bLen !== 1) continue;
    const [side, at] = h.aLen === 1 ? [a, h.aStart] : [b, h.bStart];
    if (side[at - 1] === side[at] || (at + 1 < side.length && side[at + 1] === side[at])) out.add(copyKey(h.aLen === 1, side[at]!));
  }
  return out;
}

const join = (a: Int32Array): string => Array.from(a).join(',');

/**
 * The most distinct tokens a misspelt `--layer-marker` is looked up among for the kernel it meant: its index of a
 * million names by name costs seconds and hundreds of MB, for a hint.
 */
const NEAR_MAX_TOKENS = 1 << 16;

/** Find the rewrites from base to PR. */
export function findRewrites(base: Sequences, pr: Sequences, options: Partial<RewriteOptions> = {}): Rewrites {
  const opts: RewriteOptions = { ...DEFAULT_REWRITE_OPTIONS, ...options };
  if (base.by !== pr.by) throw new Error(`rewrites: the sides were recorded by ${base.by} and by ${pr.by}`);
  const texts: string[] = [];
  // Both sides' token texts by their joint id: a Map of a million names (by name) held ~56 MB while the section
  // was made, an index over `texts` 16 MB (model/textIndex.ts).
  const joint = new TextIndex((id) => texts[id]!);
  const sides: [Side, Side] = [side(0, base, joint, texts), side(1, pr, joint, texts)];
  const scans = new Scans(sides);
  const notes: RewriteNote[] = [];
  const disjoint = pairSteps(sides, notes);
  const places = [stepPlaces(sides[0], disjoint), stepPlaces(sides[1], disjoint)] as const;
  const units = stepUnits(sides, places);
  for (const [side, s] of [
    ['base', base],
    ['pr', pr],
  ] as const) {
    if (s.stats.splitSteps > 0) notes.push({ kind: 'split-steps', side, steps: s.stats.splitSteps });
    if (s.stats.pastLaneLimit > 0) notes.push({ kind: 'past-lane-limit', side, kernels: s.stats.pastLaneLimit, lanes: MAX_LANES });
    if (s.stats.withoutStep > 0) notes.push({ kind: 'without-step', side, kernels: s.stats.withoutStep });
    if (s.stats.badStart > 0) notes.push({ kind: 'bad-starts', side, kernels: s.stats.badStart });
  }

  // 1. Lanes, paired by rank and stream (one stream each side with different ids: paired, and said).
  const pairs = pairLanes(sides, notes);
  const oneSide = oneSideLanes(pairs);
  const placed = new Map<string, Placed | null>();
  const lanes: Lane[] = [];
  const reps: Rep[] = [];
  const alignments = new Map<string, Hunk[] | Refused>();
  const forming = new Map<string, Forming>();
  const low: [LowCoverage | null, LowCoverage | null] = [null, null];
  // The aligned pairs of the lanes' other classes of steps (stepClasses.ts), aligned after the representatives.
  const others: { p: LanePair; lane: number; base: number; pr: number; fusedOnly: boolean }[] = [];
  const bounds = [shapeBound(sides[0].tokens, sides[0].tokens), shapeBound(sides[1].tokens, sides[1].tokens)];
  const across = shapeBound(sides[0].tokens, sides[1].tokens);
  // A lane's classes of steps, its representative first: of the steps the other side has too (a step cut short, or of
  // one side only, is not a kind of step of the run).
  const unpaired = [new Set(sides[0].unpairedSteps), new Set(sides[1].unpairedSteps)] as const;
  const pairedOf = (i: 0 | 1, key: string): number[] => sides[i].lanes.get(key)!.filter((st) => !unpaired[i].has(st));
  // The work that shapes past each lane's most frequent may take to be classed, shared by all lanes and both sides.
  const classedWork = { work: CLASSED_WORK };
  const classesOf = (i: 0 | 1, key: string, rep: number): Classes => {
    const s = sides[i];
    const shapes = byFrequency((st) => s.seq.steps[st]!.shape, pairedOf(i, key));
    return stepClasses([rep, ...shapes.filter((x) => x !== rep)], s.tokens, bounds[i]!, classedWork);
  };
  // The kernels any base step runs (made when first asked for): a byte per token of both sides, not a Set (a million
  // names by name).
  let ranByBase: Ran | null = null;
  const baseRan = (): Ran => {
    if (ranByBase === null) {
      const mask = new Uint8Array(texts.length);
      for (const t of sides[0].tokens) for (const x of t) mask[x] = 1;
      ranByBase = { has: (t) => mask[t] === 1 };
    }
    return ranByBase;
  };
  const novelToBase = (t: number): boolean => !baseRan().has(t);
  /** The pairs of a lane's other classes to align (classPairs), its steps of one Step Id counted together. */
  const lanePairs = (p: LanePair, b: number, r: number): [number, number, boolean][] => {
    const [cb, cp] = [classesOf(0, p.base!, b), classesOf(1, p.pr!, r)];
    // By the steps' places (Step Ids; in order on a rank that shares none), as the chains are counted.
    const prStep = new Map<number, number>();
    for (const st of pairedOf(1, p.pr!)) prStep.set(places[1][st]!, sides[1].seq.steps[st]!.shape);
    const together = cb.reps.map(() => cp.reps.map(() => 0));
    // Per PR shape of the representative's class: its steps where the base ran its representative's class, and others.
    const byShape = new Map<number, [number, number]>();
    for (const st of pairedOf(0, p.base!)) {
      const rec = sides[0].seq.steps[st]!;
      const shape = prStep.get(places[0][st]!);
      const [x, y] = [cb.of.get(rec.shape), shape === undefined ? undefined : cp.of.get(shape)];
      if (x !== undefined && y !== undefined) together[x]![y]!++;
      if (y === 0 && shape !== r && x !== undefined) {
        const c = entry(byShape, shape!, (): [number, number] => [0, 0]);
        c[x === 0 ? 0 : 1]++;
      }
    }
    const pairs = classPairs(cb.reps, cp.reps, across, together);
    const out: [number, number, boolean][] = [
      ...pairs.map(([x, y]): [number, number, boolean] => [x, y, false]),
      ...fusedClasses(cb.reps, cp.reps, pairs, together).map((y): [number, number, boolean] => [b, y, true]),
    ];
    // A fusion in some steps that does not set them apart as a class (a chain of the step's end, once a step): of the
    // PR shapes of the representative's class that run a kernel no base step runs and the PR's representative does
    // not, with their steps mostly where the base ran its representative's class, the most frequent of each set of
    // such kernels (two small fusions in steps apart, or one beside a warm-up step's own kernel), up to MAX_NEW_KINDS
    // (shapes in the order classesOf looked at them, the most frequent first).
    const repKinds = new Set(sides[1].tokens[r]!);
    const ran = baseRan();
    const order = new Map([...cp.of.keys()].map((x, i) => [x, i]));
    const sets = new Set<string>();
    for (const [x, [atRep, elsewhere]] of [...byShape].sort((u, v) => order.get(u[0])! - order.get(v[0])!)) {
      if (sets.size >= MAX_NEW_KINDS) break;
      if (atRep <= elsewhere) continue;
      const novel = [...new Set(sides[1].tokens[x]!.filter((t) => !ran.has(t) && !repKinds.has(t)))].sort((u, v) => u - v).join(',');
      if (novel === '' || sets.has(novel)) continue;
      sets.add(novel);
      out.push([b, x, true]);
    }
    return out;
  };
  /** The hunks of an aligned pair of steps (rep: its index in reps), grouped into the rewrites forming. */
  const formFrom = (p: LanePair, laneIndex: number, repIndex: number, result: Hunk[]): void => {
    const rep = reps[repIndex]!;
    const ta = sides[0].tokens[rep.base]!;
    const tb = sides[1].tokens[rep.pr]!;
    const singles = singleCopies(ta, tb, result);
    for (const h of mergeMoves(
      ta,
      tb,
      result.flatMap((x) => splitDuplicates(ta, tb, x, singles)),
      novelToBase,
    )) {
      // Adjacent copies of one rewrite make one hunk (C C → A A): split it into its copies.
      const copies = repeats(ta.subarray(h.aStart, h.aStart + h.aLen), tb.subarray(h.bStart, h.bStart + h.bLen));
      const aLen = h.aLen / copies;
      const bLen = h.bLen / copies;
      const removed = ta.subarray(h.aStart, h.aStart + aLen);
      const added = tb.subarray(h.bStart, h.bStart + bLen);
      // A change that removed (or added) nothing, on a rank that runs a stream on the other side only: what ran in
      // its place there, by start time (a fused kernel moved to a stream of its own).
      const across = aLen === 0 || bLen === 0 ? placeAcross(sides, oneSide, placed, p, h, rep.base, rep.pr, copies) : null;
      const moved = across !== null && across.tokens !== null ? across : null;
      const removedT = moved !== null && aLen === 0 ? moved.tokens! : removed;
      const addedT = moved !== null && bLen === 0 ? moved.tokens! : added;
      const key = `${join(removedT)}>${join(addedT)}${moved === null ? '' : `@${moved.side}`}`;
      const f = entry(forming, key, () => ({
        removed: removedT.slice(),
        added: addedT.slice(),
        perLane: new Map(),
        other: 0,
        positions: new Map(),
        moved: moved === null ? null : { side: moved.side, streams: new Set<string>() },
        unplaced: new Set<string>(),
        copy: true,
      }));
      // A deletion (or insertion) of a copy of the kernels right before or after it is a copy dropped (or added).
      const unit = aLen === 0 ? bLen : aLen;
      const seqOf = aLen === 0 ? tb : ta;
      const at = aLen === 0 ? h.bStart : h.aStart;
      const whole = aLen === 0 ? h.bLen : h.aLen;
      const copyNear = (aLen === 0) !== (bLen === 0) && (sameRun(seqOf, at - unit, at, unit) || sameRun(seqOf, at + whole, at + whole - unit, unit));
      if (h.copy !== true && !copyNear) f.copy = false;
      if (moved !== null) for (const st of moved.streams) f.moved!.streams.add(st);
      else if (across !== null) for (const st of across.streams) f.unplaced.add(st);
      if (rep.primary) f.perLane.set(laneIndex, (f.perLane.get(laneIndex) ?? 0) + copies);
      else f.other += copies;
      const pos = entry(f.positions, repIndex, () => []);
      for (let c = 0; c < copies; c++) pos.push(h.aStart + c * aLen);
    }
  };
  for (const p of pairs) {
    const b = p.base === null ? null : representative(sides[0], sides[0].lanes.get(p.base)!);
    const r = p.pr === null ? null : representative(sides[1], sides[1].lanes.get(p.pr)!);
    const lane: Lane = {
      rank: p.rank,
      stream: p.stream,
      base: b?.side ?? null,
      pr: r?.side ?? null,
      status: 'one-side',
      edits: null,
      lowerBound: 0,
      maxEdits: 0,
    };
    lanes.push(lane);
    if (b === null || r === null) continue;
    lowCoverage(low, 0, p.rank, p.stream, b.side);
    lowCoverage(low, 1, p.rank, p.stream, r.side);
    const laneIndex = lanes.length - 1;
    reps.push({ base: b.shape, pr: r.shape, lane: laneIndex, primary: true });
    const ta = sides[0].tokens[b.shape]!;
    const tb = sides[1].tokens[r.shape]!;
    lane.lowerBound = editLowerBound(ta, tb);
    lane.maxEdits = Math.min(opts.maxEdits, Math.floor(opts.maxWork / Math.max(1, ta.length + tb.length)));
    const result = aligned(alignments, b.shape, r.shape, ta, tb, lane.maxEdits, lane.lowerBound);
    if (!Array.isArray(result)) {
      lane.status = 'too-different';
      lane.edits = result.edits ?? null;
      continue;
    }
    lane.status = 'aligned';
    lane.edits = result.reduce((n, h) => n + h.aLen + h.bLen, 0);
    // 3. Group the hunks by what they removed and added.
    formFrom(p, laneIndex, reps.length - 1, result);
    // The lane's other classes of steps (prefill beside decode), when its representatives aligned.
    if (opts.otherClasses && (b.side.shapes > 1 || r.side.shapes > 1))
      for (const [bs, ps, fusedOnly] of lanePairs(p, b.shape, r.shape)) others.push({ p, lane: laneIndex, base: bs, pr: ps, fusedOnly });
  }
  // The other classes' alignments share one budget of work, maxWork in all (each (N + M) · D, the edit cap of a pair
  // refused): classes of steps alike in their counts but not in their order (a hostile profile) cost at most one
  // long alignment more, not one per class and lane. Past it, the rest are not aligned.
  let budget = opts.maxWork;
  /** The lane's steps of a shape, on one side. */
  const count = (i: 0 | 1, key: string, shape: number): number =>
    sides[i].lanes.get(key)!.filter((st) => sides[i].seq.steps[st]!.shape === shape).length;
  // The pairs of shapes not aligned (lanes of the same pair counted once, as the note speaks of kinds of step).
  const unaligned = new Set<string>();
  for (const o of others) {
    const ta = sides[0].tokens[o.base]!;
    const tb = sides[1].tokens[o.pr]!;
    const cached = alignments.has(`${o.base}:${o.pr}`);
    const n = Math.max(1, ta.length + tb.length);
    const maxEdits = Math.min(opts.maxEdits, Math.floor(budget / n));
    const bound = across(o.base, o.pr);
    if (!cached && bound > maxEdits) {
      unaligned.add(`${o.base}:${o.pr}`);
      continue;
    }
    const result = aligned(alignments, o.base, o.pr, ta, tb, maxEdits, bound);
    if (!cached) budget -= n * (Array.isArray(result) ? result.reduce((e, h) => e + h.aLen + h.bLen, 0) : maxEdits);
    // Steps of a class too different to align are said in a note (the lane's status is its representatives').
    if (!Array.isArray(result)) unaligned.add(`${o.base}:${o.pr}`);
    if (!Array.isArray(result) || result.length === 0) continue;
    reps.push({
      base: o.base,
      pr: o.pr,
      lane: o.lane,
      primary: false,
      steps: [count(0, o.p.base!, o.base), count(1, o.p.pr!, o.pr)],
      ...(o.fusedOnly ? { fusedOnly: true as const } : {}),
    });
    formFrom(o.p, o.lane, reps.length - 1, result);
  }

  fusedOnly(forming, reps, baseRan());
  const oneOff = oneOffClasses(forming, reps);
  if (oneOff.pairs > 0 || unaligned.size > 0)
    notes.push({ kind: 'other-classes-apart', oneOff: oneOff.pairs, differences: oneOff.differences, unaligned: unaligned.size });

  // One note for both sides when they are alike (the same lane, steps and shapes).
  const [lb, lp] = low;
  if (lb !== null && lp !== null && JSON.stringify({ ...lb, side: '' }) === JSON.stringify({ ...lp, side: '' })) notes.push({ ...lb, side: 'both' });
  else for (const n of low) if (n !== null) notes.push(n);

  // The rewrites verified: the largest first (kernels changed over the lanes' representative steps; then over the
  // steps of their other classes, where those found only there come last), then by text, up to MAX_VERIFIED. The
  // layer marker is found from their sites in the first aligned lane's steps.
  // The keys are made once per rewrite, not per comparison.
  const keyed = [...forming.values()].map((f) => ({
    f,
    size: copiesOf(f) * (f.removed.length + f.added.length),
    other: f.other * (f.removed.length + f.added.length),
    removed: Array.from(f.removed, (t) => texts[t]).join('\u0000'),
    added: join(f.added),
  }));
  // Those found in representative steps in the order they had before other classes were aligned (what is verified
  // of them, and whether the steps align, does not depend on the other classes); then those found only elsewhere.
  const only = (k: { size: number }): number => (k.size === 0 ? 1 : 0);
  keyed.sort(
    (x, y) => only(x) - only(y) || y.size - x.size || (only(x) === 1 ? y.other - x.other : 0) || cmp(x.removed, y.removed) || cmp(x.added, y.added),
  );
  const ordered = keyed.map((k) => k.f);
  // The marker places the listed rewrites' chains in layers: found when first asked for (an automatic one is a
  // search over the first lane's steps, wasted on differences none of which is listed: steps that do not align).
  let found: Marker | null | undefined;
  const markerOf = (): Marker | null => {
    if (found === undefined) found = findMarker(sides, scans, reps, ordered.slice(0, MAX_VERIFIED), opts, texts);
    return found;
  };
  if (opts.layerMarker !== null && markerOf() === null)
    notes.push({ kind: 'marker-absent', marker: opts.layerMarker, near: texts.length <= NEAR_MAX_TOKENS ? closest(opts.layerMarker, texts) : null });
  const markerCache: [Map<number, number[]>, Map<number, number[]>] = [new Map(), new Map()];
  const markersOf = (sideIndex: 0 | 1, shape: number): number[] => {
    const marker = markerOf();
    if (marker === null) return [];
    return entry(markerCache[sideIndex], shape, () => markerPositions(sides[sideIndex].tokens[shape]!, marker.id));
  };

  // 4. Verify each rewrite on every step.
  const rewrites: Rewrite[] = [];
  const applied: { removed: Int32Array; added: Int32Array; chains: number; kept: Map<number, number> }[] = [];
  const unverified = { rewrites: 0, removed: 0, added: 0 };
  for (const f of ordered.slice(MAX_VERIFIED)) {
    const copies = copiesOf(f) + f.other;
    unverified.rewrites++;
    unverified.removed += copies * f.removed.length;
    unverified.added += copies * f.added.length;
  }
  if (unverified.rewrites > 0) notes.push({ kind: 'unverified', rewrites: unverified.rewrites, verified: MAX_VERIFIED });
  const { of: chainsOf, claimed } = countChains(
    sides,
    scans,
    units,
    ordered.slice(0, MAX_VERIFIED),
    markersOf,
    changedFlags(sides, alignments, opts),
  );
  // A difference of the most frequent steps is a rewrite only when the profile bears it out: the PR runs its chain
  // fewer times (or its added chain more) over every step both sides profiled, and it is not a kernel become itself.
  // When most differences of many are undone over the steps, the steps do not align (unrelated runs): none is listed.
  // Whether the steps align is judged by the differences of the representatives (`primary`); a difference found only
  // in another class of steps (stepClasses.ts) that the profile does not bear out is dropped without a note.
  const considered = ordered.slice(0, MAX_VERIFIED);
  const bornOut = (f: Forming): boolean => chainsOf.get(f)!.chains > 0 && !sameChain(f.removed, f.added);
  let kept = considered.filter(bornOut);
  const primary = considered.filter((f) => f.perLane.size > 0);
  const undone = primary.filter((f) => !bornOut(f)).length;
  const once = primary.filter((f) => Math.max(...f.perLane.values()) <= 1).length;
  if (
    (primary.length >= UNALIGNED_MIN_CHANGES && undone * 2 > primary.length) ||
    (primary.length >= 2 * UNALIGNED_MIN_CHANGES && once * 4 > primary.length * 3 && undone * 8 >= primary.length)
  ) {
    // The differences of the most frequent steps (they sort first): not those found only in another class of steps.
    notes.push({ kind: 'unaligned', changes: ordered.filter((f) => f.perLane.size > 0).length, of: primary.length, undone, once });
    // Smaller differences of steps that do not align are not rewrites either.
    const i = notes.findIndex((n) => n.kind === 'unverified');
    if (i >= 0) notes.splice(i, 1);
    kept = [];
  } else if (undone > 0) notes.push({ kind: 'no-chains', changes: undone });
  otherClassesNote(kept, reps, (f) => chainsOf.get(f)!, notes);
  const timed = attributeTime(sides, claimed, considered, kept);
  for (const f of kept) {
    const { removedChains, addedChains, chains, perStep, ranks, undone: undoneBy, kept: keptKernels } = chainsOf.get(f)!;
    const id = considered.indexOf(f);
    const baseTime = chainTime(sides[0], scans, f.removed, timedAt(sides[0], claimed, f.removed, id));
    const prTimed = timedAt(sides[1], claimed, f.added, id);
    const prTime = chainTime(sides[1], scans, f.added, prTimed);
    const baseSamples = baseTime?.perStepTicks ?? [];
    // Nothing in the chain's place: each PR step spends no time on it.
    const prSamples = f.added.length === 0 ? baseSamples.map(() => 0) : (prTime?.perStepTicks ?? []);
    const saving = judge(f.removed.length === 0 ? prSamples.map(() => 0) : baseSamples, prSamples, opts.noise, {
      base: baseTime?.medianTicks ?? 0,
      pr: prTime?.medianTicks ?? 0,
    });
    // The aligned pairs of steps it was found in (reps: the representatives in lane order, then the other classes').
    const pairIds = [...f.positions.keys()].sort((x, y) => x - y);
    // The base's sites (in each lane's representative step), then where the chain still runs in the PR: together
    // they tell where the chain sits in its layer (layerPhase), for the layers of both.
    const baseSites = pairIds.flatMap((i) => {
      const m = markersOf(0, reps[i]!.base);
      return f.positions.get(i)!.map((p) => ({ markers: m, start: p, end: p + Math.max(1, f.removed.length) }));
    });
    applied.push({ removed: f.removed, added: f.added, chains, kept: keptKernels.tokens });
    const k = Math.floor(f.removed.length / 4);
    const unfused =
      f.removed.length >= 2 || (f.copy && f.added.length === 0)
        ? notFusedSites(sides[1], scans, f.removed, f.copy ? 0 : k, markersOf, texts, f.copy)
        : f.removed.length === 1
          ? unchangedSites(sides, reps, f, markersOf, texts)
          : [];
    const phase = layerPhase([...baseSites, ...unfused.map((u) => u.at)]);
    const notFused = unfused.map(({ at, site }) => ({ ...site, layer: layerIn(at.markers, at.start, at.end, phase) })).sort(byPlace);
    let layers: number[] | null = null;
    let layerCount: number | null = null;
    if (markerOf() !== null) {
      const set = new Set<number>();
      for (const { markers, start, end } of baseSites) {
        layerCount = Math.max(layerCount ?? 0, markers.length);
        const layer = layerIn(markers, start, end, phase);
        if (layer !== null) set.add(layer);
      }
      // A layer whose representative step kept a kernel of the chain beside the added one aligned otherwise (no site
      // of this rewrite in the base), yet its chain was replaced: the kept kernels' place in the PR tells its layer.
      // So does a layer where the PR runs an added chain the rewrite replaced, whose representative hunk was another
      // (`R R → R F` beside `R R R → R F`: the hunk is `R → F` there).
      const keptAt = chainsOf.get(f)!.keptAt;
      for (const i of pairIds) {
        const pr = reps[i]!.pr;
        const m = markersOf(1, pr);
        for (const k of keptAt.get(pr) ?? []) {
          const layer = layerIn(m, k, k + 1, phase);
          if (layer !== null) set.add(layer);
        }
        const t = prTimed?.get(pr);
        const at = t === undefined ? [] : 'all' in t ? t.all : [...new Set(sides[1].seq.shapes[pr]!.sampled.flatMap((step) => t.of(step)))];
        for (const o of at) {
          const layer = layerIn(m, o, o + f.added.length, phase);
          if (layer !== null) set.add(layer);
        }
      }
      // A lane without sites still counts its markers.
      for (const i of pairIds) layerCount = Math.max(layerCount ?? 0, markersOf(0, reps[i]!.base).length);
      layers = [...set].sort((x, y) => x - y);
    }
    rewrites.push({
      removed: Array.from(f.removed, (t) => texts[t]!),
      added: Array.from(f.added, (t) => texts[t]!),
      perStep,
      ranks: [...ranks].sort(compareRanks),
      undone: { ranks: [...undoneBy.ranks].sort(compareRanks), chains: undoneBy.chains },
      chains,
      kept: {
        kernels: keptKernels.kernels,
        steps: keptKernels.steps,
        tokens: [...keptKernels.tokens]
          .sort(([x], [y]) => f.removed.indexOf(x) - f.removed.indexOf(y))
          .map(([t, n]) => ({ token: texts[t]!, kernels: n })),
      },
      removedChains,
      addedChains,
      layers,
      layerCount,
      base: baseTime,
      pr: prTime,
      saving: f.unplaced.size > 0 ? { ...saving, significant: false, reason: 'unplaced' } : saving,
      totalSavingTicks: timed.of.get(f)!,
      notFused,
      notFusedEdits: f.copy ? 0 : k,
      copy: f.copy,
      moved: f.moved === null ? null : { side: f.moved.side, streams: [...f.moved.streams].sort(compareRanks) },
      unplaced: [...f.unplaced].sort(compareRanks),
    });
  }
  // Documented order: most kernels removed (chains × chain length) first, then most chains, then by text.
  rewrites.sort(
    (x, y) =>
      y.chains * y.removed.length - x.chains * x.removed.length ||
      y.chains - x.chains ||
      cmp(x.removed.join('\u0000'), y.removed.join('\u0000')) ||
      cmp(x.added.join('\u0000'), y.added.join('\u0000')),
  );

  // The marker of the listed rewrites, or the one given (--layer-marker); none found for none listed.
  const marker = rewrites.length > 0 || opts.layerMarker !== null ? markerOf() : null;
  return {
    by: base.by,
    lanes,
    marker: marker === null ? null : { token: texts[marker.id]!, auto: marker.auto, ...(marker.auto ? { equal: marker.equal === true } : {}) },
    rewrites,
    conservation: { ...conservation(sides, applied, texts), time: timed.time },
    unverified,
    notes,
  };
}

/**
 * The exact occurrences of each rewrite's chains over every step (removedChains, addedChains), and the chains it
 * replaced, step by step (chainCount.ts): its count, its least and most in a step, its ranks, and the kernels of its
 * chain kept beside its added chain.
 */
function countChains(
  sides: [Side, Side],
  scans: Scans,
  units: StepUnit[],
  verified: Forming[],
  markers: (side: 0 | 1, shape: number) => number[],
  changed: (side: 0 | 1, shape: number, other: number) => Uint8Array | null,
): {
  of: Map<Forming, Counted & { removedChains: { base: number; pr: number }; addedChains: { base: number; pr: number } }>;
  claimed: Claimed[];
} {
  const { counted, claimed } = countSteps(
    {
      tokens: [sides[0].tokens, sides[1].tokens],
      units,
      exact: (i, j, c) => scans.exact(i, j, c),
      markers,
      changed,
      meanTicks: meanTicksOf(sides),
    },
    verified,
    // Those found in the lanes' representative steps claim their kernels first (see findRewrites).
    (f) => (f.perLane.size > 0 ? 0 : 1),
  );
  const of = new Map(
    verified.map((f) => [
      f,
      {
        ...counted.get(f)!,
        removedChains: { base: occurrencesOver(sides[0], scans, f.removed), pr: occurrencesOver(sides[1], scans, f.removed) },
        addedChains: { base: occurrencesOver(sides[0], scans, f.added), pr: occurrencesOver(sides[1], scans, f.added) },
      },
    ]),
  );
  return { of, claimed };
}

/** How many times a sequence is one unit repeated (the shortest unit); 1 for an empty one. */
function periods(x: Int32Array): number {
  const n = x.length;
  for (let p = 1; p <= n >> 1; p++) {
    if (n % p !== 0) continue;
    let ok = true;
    for (let i = p; i < n && ok; i++) ok = x[i] === x[i - p];
    if (ok) return n / p;
  }
  return 1;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Into how many equal copies of one (removed → added) a hunk splits: the largest common repeat count. */
function repeats(removed: Int32Array, added: Int32Array): number {
  if (removed.length === 0) return periods(added);
  if (added.length === 0) return periods(removed);
  const r = periods(removed);
  const a = periods(added);
  // A repeat count of each that divides both (a unit repeated 4 times is also a double unit repeated twice).
  return gcd(r, a);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Per side, per rank: the lane keys of that side only (a stream the other side does not run). */
type OneSide = [Map<string, string[]>, Map<string, string[]>];

function oneSideLanes(pairs: LanePair[]): OneSide {
  const out: OneSide = [new Map(), new Map()];
  for (const p of pairs) {
    if (p.base !== null && p.pr === null) entry(out[0], p.rank, () => []).push(p.base);
    if (p.pr !== null && p.base === null) entry(out[1], p.rank, () => []).push(p.pr);
  }
  return out;
}

/** The sampled steps checked for kernels placed across streams. */
const PLACE_STEPS = 16;

/**
 * A hunk of a lane that removed nothing (or added nothing), where the side without kernels in that place runs
 * streams the other side does not (`oneSide`): the kernels of those streams that started in the hunk's place, in
 * the same step (after the start of the kernel before it and before the start of the kernel after it, both on the
 * lane). When every sampled step of the lane's representative shape that those streams were sampled in too has
 * the same kernels there (one copy per copy of the hunk), they are what ran in the chain's place: `tokens`. Else
 * `tokens` is null: what ran in its place cannot be told (the streams are given, to say so). Null when the side
 * has no such stream on the rank.
 */
function placeAcross(
  sides: [Side, Side],
  oneSide: OneSide,
  placed: Map<string, Placed | null>,
  p: LanePair,
  h: Hunk,
  baseShape: number,
  prShape: number,
  copies: number,
): { side: 'base' | 'pr'; tokens: Int32Array | null; streams: string[] } | null {
  // The side where nothing is in the chain's place.
  const i: 0 | 1 = h.bLen === 0 ? 1 : 0;
  const others = oneSide[i].get(p.rank);
  if (others === undefined || others.length === 0) return null;
  const s = sides[i];
  const lane = new Set(s.lanes.get(i === 1 ? p.pr! : p.base!)!);
  const shape = s.seq.shapes[i === 1 ? prShape : baseShape]!;
  const at = i === 1 ? h.bStart : h.aStart;
  const streams = others.map((k) => (JSON.parse(k) as [string, string])[1]);
  const result = { side: i === 1 ? ('pr' as const) : ('base' as const), tokens: null as Int32Array | null, streams };
  let found: Int32Array | null = null;
  let checked = 0;
  for (let k = 0; k < shape.sampled.length && checked < PLACE_STEPS; k++) {
    if (!lane.has(shape.sampled[k]!)) continue;
    const rec = s.seq.steps[shape.sampled[k]!]!;
    const key = `${i}:${JSON.stringify(p.rank)}:${rec.step}`;
    let o = placed.get(key);
    if (o === undefined) {
      o = placedKernels(s, others, rec.step);
      placed.set(key, o);
    }
    if (o === null) continue;
    checked++;
    const starts = shape.sampleStartTicks[k]!;
    const lo = at === 0 ? Number.NEGATIVE_INFINITY : rec.startTicks + starts[at - 1]!;
    const hi = at >= starts.length ? Number.POSITIVE_INFINITY : rec.startTicks + starts[at]!;
    const from = firstAtLeast(o.starts, lo);
    const to = firstAtLeast(o.starts, hi);
    const tokens = o.tokens.subarray(from, to);
    if (tokens.length === 0 || tokens.length % copies !== 0) return result;
    const unit = tokens.subarray(0, tokens.length / copies);
    for (let c = 1; c < copies; c++) for (let x = 0; x < unit.length; x++) if (tokens[c * unit.length + x] !== unit[x]) return result;
    if (found === null) found = unit.slice();
    else if (join(found) !== join(unit)) return result;
  }
  result.tokens = found;
  return result;
}

/** The kernels of a rank's one-side streams in one step, by start: absolute starts (sorted) and their tokens. */
interface Placed {
  starts: Float64Array;
  tokens: Int32Array;
}

/** Placed kernels of the lanes `keys` in step `step`; null when one of their steps there was not sampled (no starts kept). */
function placedKernels(s: Side, keys: string[], step: number): Placed | null {
  const all: { start: number; token: number }[] = [];
  for (const key of keys) {
    for (const st of s.lanes.get(key)!) {
      const o = s.seq.steps[st]!;
      if (o.step !== step) continue;
      const oShape = s.seq.shapes[o.shape]!;
      const j = oShape.sampled.indexOf(st);
      if (j < 0) return null;
      const oStarts = oShape.sampleStartTicks[j]!;
      const tokens = s.tokens[o.shape]!;
      for (let x = 0; x < oStarts.length; x++) all.push({ start: o.startTicks + oStarts[x]!, token: tokens[x]! });
    }
  }
  all.sort((x, y) => x.start - y.start);
  return { starts: Float64Array.from(all, (x) => x.start), tokens: Int32Array.from(all, (x) => x.token) };
}

interface LanePair {
  rank: string;
  stream: string;
  base: string | null;
  pr: string | null;
}

/**
 * Lanes paired by rank and stream id. Streams of a rank that have no partner of the same id (a side without a
 * Stream ID column, stream ids that changed between runs) are paired largest with largest (by kernels), and said.
 */
function pairLanes(sides: [Side, Side], notes: RewriteNote[]): LanePair[] {
  const split = (key: string): [string, string] => JSON.parse(key) as [string, string];
  const byRank: Map<string, [string[], string[]]> = new Map();
  for (const i of [0, 1] as const) {
    for (const key of sides[i].lanes.keys()) {
      const [rank] = split(key);
      entry(byRank, rank, (): [string[], string[]] => [[], []])[i].push(key);
    }
  }
  const kernels = (i: 0 | 1, key: string): number => {
    let n = 0;
    for (const st of sides[i].lanes.get(key)!) n += sides[i].tokens[sides[i].seq.steps[st]!.shape]!.length;
    return n;
  };
  const out: LanePair[] = [];
  for (const rank of [...byRank.keys()].sort(compareRanks)) {
    const [b, p] = byRank.get(rank)!;
    const pairs: LanePair[] = [];
    for (const key of b) if (p.includes(key)) pairs.push({ rank, stream: split(key)[1], base: key, pr: key });
    const bySize = (i: 0 | 1, keys: string[]) =>
      keys.map((key) => ({ key, n: kernels(i, key) })).sort((x, y) => y.n - x.n || compareRanks(split(x.key)[1], split(y.key)[1]));
    const lb = bySize(
      0,
      b.filter((k) => !p.includes(k)),
    );
    const lp = bySize(
      1,
      p.filter((k) => !b.includes(k)),
    );
    for (let i = 0; i < Math.max(lb.length, lp.length); i++) {
      const x = lb[i];
      const y = lp[i];
      if (x !== undefined && y !== undefined) {
        const sb = split(x.key)[1];
        const sp = split(y.key)[1];
        notes.push({ kind: 'streams-paired', rank, base: sb, pr: sp });
        pairs.push({ rank, stream: `${sb}/${sp}`, base: x.key, pr: y.key });
      } else if (x !== undefined) pairs.push({ rank, stream: split(x.key)[1], base: x.key, pr: null });
      else if (y !== undefined) pairs.push({ rank, stream: split(y.key)[1], base: null, pr: y.key });
    }
    // The lanes compared first, then those on one side only; each by stream.
    const oneSide = (l: LanePair) => (l.base === null || l.pr === null ? 1 : 0);
    pairs.sort((x, y) => oneSide(x) - oneSide(y) || compareRanks(x.stream, y.stream));
    out.push(...pairs);
  }
  return out;
}

/** Exact occurrences of a chain over the steps of a side that the other side has too (see pairSteps). */
function occurrencesOver(s: Side, scans: Scans, chain: Int32Array): number {
  if (chain.length === 0) return 0;
  let n = 0;
  s.paired.forEach((instances, i) => {
    if (instances > 0) n += scans.exact(s.index, i, chain).length * instances;
  });
  return n;
}

/**
 * Per shape of a side, the exact occurrences of a rewrite's chain whose kernels are timed for it (rewrite `id`: those
 * it replaced): the same in every step of the shape (`all`), or per step (a step's index in the side's steps → its
 * rank's and its kind's, where ranks or kinds of step replaced different ones); null when there are none (then the
 * chain is timed over all its occurrences).
 */
type TimedAt = Map<number, { all: number[] } | { of: (step: number) => number[] }>;

function timedAt(s: Side, claimed: Claimed[], chain: Int32Array, id: number): TimedAt | null {
  if (chain.length === 0) return null;
  const byShape = new Map<number, { rank: string; replaced: { at: number[]; steps: Set<number> | null }[] }[]>();
  let any = false;
  for (const c of claimed) {
    if (c.side !== s.index) continue;
    const replaced = c.replaced.filter((r) => r.id === id).map((r) => ({ at: r.at, steps: r.steps === null ? null : new Set(r.steps) }));
    if (replaced.length > 0) any = true;
    entry(byShape, c.shape, () => []).push({ rank: c.rank, replaced });
  }
  if (!any) return null;
  const out: TimedAt = new Map();
  for (const [shape, list] of byShape) {
    const one = (x: (typeof list)[number]): string | null =>
      x.replaced.length === 1 && x.replaced[0]!.steps === null ? x.replaced[0]!.at.join(',') : null;
    const first = one(list[0]!);
    if (first !== null && list.every((x) => one(x) === first)) {
      out.set(shape, { all: list[0]!.replaced[0]!.at });
      continue;
    }
    if (list.every((x) => x.replaced.length === 0)) continue;
    const ofRank = new Map(list.map((x) => [x.rank, x]));
    out.set(shape, {
      of: (step) => {
        const x = ofRank.get(s.seq.ranks[s.seq.steps[step]!.rank]!);
        if (x === undefined) return [];
        const at = new Set<number>();
        for (const r of x.replaced) if (r.steps === null || r.steps.has(step)) for (const o of r.at) at.add(o);
        return [...at].sort((p, q) => p - q);
      },
    });
  }
  return out;
}

/**
 * The time of a chain on one side, from its exact occurrences (only those of `timed` when given: a rewrite's own);
 * null when it does not occur (or is empty). Where they differ between the steps of a shape, its mean is that of
 * the shape's sampled steps.
 */
function chainTime(s: Side, scans: Scans, chain: Int32Array, timed: TimedAt | null = null): ChainTime | null {
  if (chain.length === 0) return null;
  const m = chain.length;
  const sums: number[] = [];
  const spans: number[] = [];
  const perStep: number[] = [];
  let exactSum = 0;
  let exactCount = 0;
  // The loops over kernels are small functions of their own (chainSums, sampleChains): this runs once per rewrite
  // and side, and so stays cheap to compile.
  const shapes = s.seq.shapes;
  for (let i = 0; i < shapes.length; i++) {
    const shape: StepShape = shapes[i]!;
    const t = timed === null ? { all: scans.exact(s.index, i, chain) } : (timed.get(i) ?? { all: [] });
    if ('all' in t) {
      const occ = t.all;
      if (occ.length === 0) continue;
      exactSum = chainSums(exactSum, shape.sumTicks, occ, m);
      exactCount += occ.length * shape.instances;
      for (let k = 0; k < shape.sampled.length; k++) {
        const stepSum = sampleChains(shape.sampleDurTicks[k]!, shape.sampleStartTicks[k]!, occ, m, sums, spans);
        perStep.push(stepSum / occ.length);
      }
      continue;
    }
    for (let k = 0; k < shape.sampled.length; k++) {
      const occ = t.of(shape.sampled[k]!);
      if (occ.length === 0) continue;
      const stepSum = sampleChains(shape.sampleDurTicks[k]!, shape.sampleStartTicks[k]!, occ, m, sums, spans);
      perStep.push(stepSum / occ.length);
      exactSum += stepSum;
      exactCount += occ.length;
    }
  }
  if (exactCount === 0) return null;
  return {
    occurrences: sums.length,
    medianTicks: median(sums),
    medianSpanTicks: median(spans),
    meanTicks: exactSum / exactCount,
    perStepTicks: perStep,
  };
}

/** `total` plus the per-position sums of every occurrence of an m-kernel chain, added in order. */
function chainSums(total: number, sumTicks: Float64Array, occ: number[], m: number): number {
  for (const o of occ) for (let j = o; j < o + m; j++) total += sumTicks[j]!;
  return total;
}

/**
 * Of one sampled step (its kernels' durations and starts), each occurrence's chain time (pushed to `sums`) and
 * wall span (to `spans`); returns the sum of the chain times.
 */
function sampleChains(durs: Float64Array, starts: Float64Array, occ: number[], m: number, sums: number[], spans: number[]): number {
  let stepSum = 0;
  for (const o of occ) {
    let sum = 0;
    let end = Number.NEGATIVE_INFINITY;
    for (let j = o; j < o + m; j++) {
      sum += durs[j]!;
      end = Math.max(end, starts[j]! + durs[j]!);
    }
    sums.push(sum);
    spans.push(end - starts[o]!);
    stepSum += sum;
  }
  return stepSum;
}

/** A site where the chain still runs in the PR, with where it is (its layer is set once the phase is known). */
interface UnfusedSite {
  at: { markers: number[]; start: number; end: number };
  site: NotFused;
}

function notFusedSites(
  s: Side,
  scans: Scans,
  chain: Int32Array,
  k: number,
  markersOf: (side: 0 | 1, shape: number) => number[],
  texts: string[],
  copy = false,
): UnfusedSite[] {
  // Sites per shape, then the lanes and steps that have the shape. A removed copy: the second of two exact copies
  // next to each other (the one kept is not a site).
  const sitesByShape = new Map<number, Site[]>();
  s.seq.shapes.forEach((shape, i) => {
    if (shape.instances === 0) return;
    const sites = copy ? copySites(scans.exact(s.index, i, chain), chain.length) : scans.near(s.index, i, chain, k);
    if (sites.length > 0) sitesByShape.set(i, sites);
  });
  if (sitesByShape.size === 0) return [];
  // One entry per site of a shape, for each (rank, stream, shape) with its steps.
  const out: UnfusedSite[] = [];
  for (const g of stepGroups(s)) {
    const sites = sitesByShape.get(g.shape);
    if (sites === undefined) continue;
    const m = markersOf(1, g.shape);
    const steps = g.steps.slice();
    for (const site of sites) {
      out.push({
        at: { markers: m, start: site.start, end: site.end },
        site: {
          rank: g.rank,
          stream: g.stream,
          steps,
          layer: null,
          layers: m.length,
          position: site.start,
          tokens: Array.from(s.tokens[g.shape]!.subarray(site.start, site.end), (t) => texts[t]!),
          edits: site.edits,
        },
      });
    }
  }
  return out;
}

/**
 * The sites of a single kernel's removal where it did not happen: PR steps whose kernels are those of a base step
 * the removal was found in, kernel for kernel (a rank that kept the old build), at the places it was removed from.
 * (A single kernel runs in many places; only these are known to be the removal's.)
 */
function unchangedSites(
  sides: [Side, Side],
  reps: Rep[],
  f: Forming,
  markersOf: (side: 0 | 1, shape: number) => number[],
  texts: string[],
): UnfusedSite[] {
  const places = new Map<number, number[]>();
  for (const [i, ps] of f.positions) places.set(reps[i]!.base, ps);
  const out: UnfusedSite[] = [];
  for (const g of stepGroups(sides[1])) {
    const tokens = sides[1].tokens[g.shape]!;
    for (const [shape, ps] of places) {
      const base = sides[0].tokens[shape]!;
      if (base.length !== tokens.length || !base.every((t, i) => t === tokens[i])) continue;
      const m = markersOf(1, g.shape);
      for (const p of ps)
        out.push({
          at: { markers: m, start: p, end: p + 1 },
          site: {
            rank: g.rank,
            stream: g.stream,
            steps: g.steps.slice(),
            layer: null,
            layers: m.length,
            position: p,
            tokens: [texts[tokens[p]!]!],
            edits: 0,
          },
        });
      break;
    }
  }
  return out;
}

function byPlace(x: NotFused, y: NotFused): number {
  return (
    compareRanks(x.rank, y.rank) ||
    cmp(x.stream, y.stream) ||
    (x.layer ?? -1) - (y.layer ?? -1) ||
    x.position - y.position ||
    (x.steps[0] ?? 0) - (y.steps[0] ?? 0)
  );
}

/** Of a chain's exact occurrences, each that follows another right before it, as a site of 0 edits. */
function copySites(occ: number[], m: number): Site[] {
  const out: Site[] = [];
  for (let x = 1; x < occ.length; x++) if (occ[x - 1]! + m === occ[x]) out.push({ start: occ[x]!, end: occ[x]! + m, edits: 0 });
  return out;
}

/** A layer marker: its token, and whether it was found automatically (and splits the step into equal layers). */
interface Marker {
  id: number;
  auto: boolean;
  equal?: boolean;
}

function findMarker(sides: [Side, Side], scans: Scans, reps: Rep[], forming: Forming[], opts: RewriteOptions, texts: string[]): Marker | null {
  if (opts.layerMarker !== null) {
    const id = texts.indexOf(opts.layerMarker);
    // A marker that is in neither profile leaves the rewrites without layers; the caller says so.
    return id < 0 ? null : { id, auto: false };
  }
  if (reps.length === 0 || forming.length === 0) return null;
  // The first lane's representatives; those of another class of steps where the largest rewrite was found only there.
  const at = [...forming[0]!.positions.keys()];
  const first = at.some((i) => reps[i]!.primary) ? reps[0]! : reps[Math.min(...at)]!;
  // Beside the representatives, the rewrites found in them only (they sort first): the chain of one found in another
  // class of steps alone (prefill) is not in them, and its near sites and kernels there would sway the choice.
  if (first.primary) forming = forming.filter((f) => f.perLane.size > 0);
  const a = sides[0].tokens[first.base]!;
  const b = sides[1].tokens[first.pr]!;
  const touched = new Set<number>();
  const sites: MarkerSite[] = [];
  const chainSites: MarkerSite[] = [];
  let maxPerStep = 0;
  for (const f of forming) {
    for (const t of f.removed) touched.add(t);
    for (const t of f.added) touched.add(t);
    let perStep = 0;
    if (f.removed.length > 0) {
      const exact = scans.exact(0, first.base, f.removed);
      for (const o of exact) sites.push({ side: 0, start: o, end: o + f.removed.length });
      if (f === forming[0]) for (const o of exact) chainSites.push({ side: 0, start: o, end: o + f.removed.length });
      perStep = exact.length;
      if (f.removed.length >= 2) {
        const k = Math.floor(f.removed.length / 4);
        const near = scans.near(0, first.base, f.removed, k);
        perStep = Math.max(perStep, near.length);
        for (const s of near) if (s.edits > 0) sites.push({ side: 0, start: s.start, end: s.end });
        for (const s of scans.near(1, first.pr, f.removed, k)) sites.push({ side: 1, start: s.start, end: s.end });
      }
    }
    if (f.added.length > 0) {
      const exact = scans.exact(1, first.pr, f.added);
      for (const o of exact) sites.push({ side: 1, start: o, end: o + f.added.length });
      perStep = Math.max(perStep, exact.length);
    }
    // The largest rewrite (first) runs once per layer: the others (a duplicate dropped) may run more often.
    if (f === forming[0]) maxPerStep = perStep;
  }
  const why = { equal: false };
  const id = chooseMarker([a, b], touched, sites, maxPerStep, texts, chainSites, why);
  return id === null ? null : { id, auto: true, equal: why.equal };
}

/**
 * The measured time of each rewrite's kernels (see Rewrite.totalSavingTicks) and the time line of the conservation
 * (Conservation.time). A rewrite's kernels are those chainCount.ts claimed for it, rank by rank (`claimed`: per rank,
 * side and shape, each kernel's rewrite, an index into `considered`): the exact occurrences of its chains that it
 * accounts for, longer chains first, so that a shorter rewrite inside a longer one keeps the chains it replaced. A
 * rewrite's figure is the PR's time of its kernels less the base's. Each kernel's time is the sum over the shape's
 * steps that the other side has too (pairedTicks): exact when the shape's steps of one side only are among its
 * sampled steps, else the shape's time split by its share of them (`exact` false). A shape whose ranks claimed
 * alike is timed whole; one whose ranks claimed differently is timed per rank from its sampled steps, exact when they
 * hold each of the rank's steps of it, else the shape's time split by the rank's share of its steps (`ranksSplit`).
 */
function attributeTime(
  sides: [Side, Side],
  claimed: Claimed[],
  considered: Forming[],
  verified: Forming[],
): { of: Map<Forming, number>; time: Conservation['time'] } {
  const of = new Map<Forming, number>(verified.map((f) => [f, 0]));
  const listed = considered.map((f) => (of.has(f) ? f : null));
  const named = new Set<number>();
  for (const f of verified) for (const chain of [f.removed, f.added]) for (const t of chain) named.add(t);
  const time = { named: 0, rewrites: 0, outside: 0, unpaired: 0, exact: true, ranksSplit: false };
  const byShape = [new Map<number, Claimed[]>(), new Map<number, Claimed[]>()] as const;
  for (const c of claimed) entry(byShape[c.side], c.shape, () => []).push(c);
  for (const i of [0, 1] as const) {
    const s = sides[i];
    const sign = i === 0 ? -1 : 1;
    const unpairedOf = unpairedByShape(s);
    let perRank: Map<number, Map<string, { steps: number; sampled: number[] }>> | null = null;
    s.seq.shapes.forEach((shape, j) => {
      if (shape.instances === 0) return;
      const tokens = s.tokens[j]!;
      const paired = pairedTicks(shape, s.paired[j]!, unpairedOf.get(j) ?? []);
      if (!paired.exact) time.exact = false;
      // The kernels' time by owner (-1: none), over each place of the shape.
      const add = (owner: Int32Array | null, ticks: Float64Array): void => {
        for (let k = 0; k < tokens.length; k++) {
          const f = owner === null || owner[k]! < 0 ? null : listed[owner[k]!]!;
          if (f !== null) of.set(f, of.get(f)! + sign * ticks[k]!);
          else if (named.has(tokens[k]!)) time.outside += sign * ticks[k]!;
        }
      };
      const places = byShape[i].get(j) ?? [];
      if (places.every((c) => sameOwners(c.owner, places[0]!.owner))) add(places[0]?.owner ?? null, paired.ticks);
      else {
        perRank ??= stepsByRank(s);
        const ranks = perRank.get(j)!;
        const timed = rankTicks(s, j, places, ranks, paired.ticks, unpairedOf.get(j) ?? []);
        for (const [c, ticks] of timed.ticks) add(c.owner, ticks);
        if (!timed.exact) time.ranksSplit = true;
      }
      // Kernels timed for a rewrite in some of a place's steps: their time there is the rewrite's, not outside.
      for (const c of places)
        for (const sc of c.scoped) {
          const f = listed[sc.id];
          if (f === null || f === undefined) continue;
          const ticks = stepsTicks(shape, sc.steps, tokens.length);
          if (!ticks.exact) time.ranksSplit = true;
          for (const k of sc.kernels) {
            of.set(f, of.get(f)! + sign * ticks.ticks[k]!);
            time.outside -= sign * ticks.ticks[k]!;
          }
        }
      for (let k = 0; k < tokens.length; k++) {
        if (!named.has(tokens[k]!)) continue;
        time.named += sign * shape.sumTicks[k]!;
        time.unpaired += sign * (shape.sumTicks[k]! - paired.ticks[k]!);
      }
    });
  }
  // A rewrite whose other part is not known (unplaced) claims no saving: its kernels' change is outside the rewrites.
  for (const f of verified) {
    if (f.unplaced.size === 0) continue;
    time.outside += of.get(f)!;
    of.set(f, 0);
  }
  for (const v of of.values()) time.rewrites += v;
  return { of, time };
}

/**
 * Each rank's time of each kernel of shape `j` of a side, in the steps the other side has too: exact from the rank's
 * own sums (StepShape.rankTicks) less its steps of one side only where those are sampled, or from its sampled steps
 * where they are all of its steps; else estimated, the rest of the shape's time (`paired`) split between those ranks
 * by the mean of their own sampled steps (a rank of none by its share of the steps), so that the ranks' times add up
 * to the shape's. (Samples are every k-th step of a shape: steps of a period that k divides may be missed.)
 */
function rankTicks(
  s: Side,
  j: number,
  places: Claimed[],
  ranks: Map<string, { steps: number; sampled: number[] }>,
  paired: Float64Array,
  unpaired: number[],
): { ticks: [Claimed, Float64Array][]; exact: boolean } {
  const shape = s.seq.shapes[j]!;
  const n = paired.length;
  const out: [Claimed, Float64Array][] = [];
  const rest = paired.slice();
  const guessed: [Claimed, Float64Array][] = [];
  const total = [...ranks.values()].reduce((a, r) => a + r.steps, 0);
  const sampleAt = sampleIndex(shape);
  for (const c of places) {
    const r = ranks.get(c.rank)!;
    const own = exactRankTicks(s, shape, c.rank, unpaired, sampleAt) ?? (r.sampled.length === r.steps ? sampledTicks(shape, r.sampled, n) : null);
    if (own !== null) {
      out.push([c, own]);
      for (let k = 0; k < n; k++) rest[k]! -= own[k]!;
    } else
      guessed.push([
        c,
        r.sampled.length > 0
          ? sampledTicks(shape, r.sampled, n).map((t) => (t * r.steps) / r.sampled.length)
          : paired.map((t) => (t * r.steps) / Math.max(1, total)),
      ]);
  }
  for (let k = 0; k < n; k++) {
    let sum = 0;
    for (const [, g] of guessed) sum += g[k]!;
    for (const [, g] of guessed) g[k] = sum > 0 ? (g[k]! * rest[k]!) / sum : rest[k]! / guessed.length;
  }
  return { ticks: [...out, ...guessed], exact: guessed.length === 0 };
}

/**
 * A rank's time of each kernel of a shape over its steps the other side has too, from its own sums: null where the
 * shape has none for it, or a step of it of one side only is not sampled.
 */
function exactRankTicks(s: Side, shape: StepShape, rank: string, unpaired: number[], sampleAt: Map<number, number>): Float64Array | null {
  const id = s.seq.ranks.indexOf(rank);
  const sums = id < 0 ? undefined : shape.rankTicks?.get(id);
  if (sums === undefined) return null;
  return lessSteps(
    shape,
    sums,
    unpaired.filter((index) => s.seq.steps[index]!.rank === id),
    sampleAt,
  );
}

function sameOwners(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/**
 * Per shape, per rank: its steps the other side has too, and which of them are sampled (indexes into the shape's
 * samples).
 */
function stepsByRank(s: Side): Map<number, Map<string, { steps: number; sampled: number[] }>> {
  const out = new Map<number, Map<string, { steps: number; sampled: number[] }>>();
  const unpaired = new Set(s.unpairedSteps);
  const sampleAt = new Map<number, number>();
  for (const shape of s.seq.shapes) for (const [k, index] of shape.sampled.entries()) sampleAt.set(index, k);
  s.seq.steps.forEach((st, index) => {
    if (unpaired.has(index)) return;
    const r = entry(
      entry(out, st.shape, () => new Map()),
      s.seq.ranks[st.rank]!,
      () => ({ steps: 0, sampled: [] as number[] }),
    );
    r.steps++;
    const k = sampleAt.get(index);
    if (k !== undefined) r.sampled.push(k);
  });
  return out;
}

/** Per position, the summed durations of the given samples of a shape. */
function sampledTicks(shape: StepShape, samples: number[], n: number): Float64Array {
  const out = new Float64Array(n);
  for (const k of samples) {
    const durs = shape.sampleDurTicks[k]!;
    for (let p = 0; p < n; p++) out[p]! += durs[p]!;
  }
  return out;
}

/**
 * The time of each kernel of a shape over some of its steps (indices in the side's steps): exact when they are all
 * among its sampled steps, else estimated from those of them that are (the shape's time split by their share of its
 * steps when none is).
 */
function stepsTicks(shape: StepShape, steps: number[], n: number): { ticks: Float64Array; exact: boolean } {
  const at = sampleIndex(shape);
  const sampled = steps.filter((index) => at.has(index)).map((index) => at.get(index)!);
  if (sampled.length === steps.length) return { ticks: sampledTicks(shape, sampled, n), exact: true };
  // Their own sampled steps, scaled to their number (the shape's mean would take in other ranks' and steps' time).
  if (sampled.length > 0) {
    const scale = steps.length / sampled.length;
    return { ticks: sampledTicks(shape, sampled, n).map((t) => t * scale), exact: false };
  }
  const share = steps.length / shape.instances;
  return { ticks: shape.sumTicks.map((t) => t * share), exact: false };
}

/** The side's steps of one side only (Side.unpairedSteps), by shape. */
function unpairedByShape(s: Side): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const index of s.unpairedSteps) entry(out, s.seq.steps[index]!.shape, () => []).push(index);
  return out;
}

/**
 * Per position of a shape, the summed time of its steps that the other side has too. All of them: its sum; none:
 * zeros; some: its sum less the durations of the others, which is exact when each of those is a sampled step
 * (a shape keeps up to SAMPLE_CAP), else the sum times their share (`exact` false).
 */
function pairedTicks(shape: StepShape, paired: number, unpaired: number[]): { ticks: Float64Array; exact: boolean } {
  if (paired === shape.instances) return { ticks: shape.sumTicks, exact: true };
  if (paired === 0) return { ticks: new Float64Array(shape.sumTicks.length), exact: true };
  const ticks = lessSteps(shape, shape.sumTicks, unpaired, sampleIndex(shape));
  if (ticks !== null) return { ticks, exact: true };
  const share = paired / shape.instances;
  return { ticks: shape.sumTicks.map((t) => t * share), exact: false };
}

/** Per sampled step of a shape (its index in the side's steps): its index in the shape's samples. */
function sampleIndex(shape: StepShape): Map<number, number> {
  return new Map<number, number>(shape.sampled.map((index, k) => [index, k]));
}

/** `sums` (a shape's, or a rank's of it) less the durations of some of its steps; null when one is not sampled. */
function lessSteps(shape: StepShape, sums: Float64Array, steps: readonly number[], at: Map<number, number>): Float64Array | null {
  if (!steps.every((index) => at.has(index))) return null;
  const out = sums.slice();
  for (const index of steps) {
    const durs = shape.sampleDurTicks[at.get(index)!]!;
    for (let k = 0; k < out.length; k++) out[k]! -= durs[k]!;
  }
  return out;
}

function conservation(
  sides: [Side, Side],
  applied: { removed: Int32Array; added: Int32Array; chains: number; kept: Map<number, number> }[],
  texts: string[],
): Omit<Conservation, 'time'> {
  // Per token id (ids index the joint table `texts`): arrays, not Maps (a million distinct names would make three
  // Maps of a million entries). `seen`: the tokens of either side's steps or of a rewrite, in the order of ids (the
  // order does not matter: the sums are exact, and `rest` is sorted by a total order).
  const n = texts.length;
  const counts = [new Float64Array(n), new Float64Array(n)] as const;
  const seen = new Uint8Array(n);
  for (const i of [0, 1] as const) {
    const c = counts[i];
    sides[i].seq.shapes.forEach((shape, j) => {
      if (shape.instances === 0) return;
      const tokens = sides[i].tokens[j]!;
      for (let k = 0; k < tokens.length; k++) {
        c[tokens[k]!]! += shape.instances;
        seen[tokens[k]!] = 1;
      }
    });
  }
  const explained = new Float64Array(n);
  for (const f of applied) {
    for (const t of f.removed) {
      explained[t]! -= f.chains;
      seen[t] = 1;
    }
    for (const t of f.added) {
      explained[t]! += f.chains;
      seen[t] = 1;
    }
    for (const [t, n] of f.kept) explained[t]! += n;
  }
  const out: Omit<Conservation, 'time'> = {
    removed: 0,
    added: 0,
    removedAccounted: 0,
    addedAccounted: 0,
    removedUnpaired: 0,
    addedUnpaired: 0,
    rest: [],
  };
  for (let t = 0; t < n; t++) {
    if (seen[t] === 0) continue;
    const b = counts[0][t]!;
    const p = counts[1][t]!;
    const observed = p - b;
    const e = explained[t]!;
    // The steps of one side only: what they ran is a change of its own (PR-only steps add, base-only ones remove).
    const u = (sides[1].unpaired.get(t) ?? 0) - (sides[0].unpaired.get(t) ?? 0);
    if (observed < 0) {
      out.removed += -observed;
      const byRewrites = e < 0 ? Math.min(-observed, -e) : 0;
      out.removedAccounted += byRewrites;
      if (u < 0) out.removedUnpaired += Math.min(-observed - byRewrites, -u);
    } else if (observed > 0) {
      out.added += observed;
      const byRewrites = e > 0 ? Math.min(observed, e) : 0;
      out.addedAccounted += byRewrites;
      if (u > 0) out.addedUnpaired += Math.min(observed - byRewrites, u);
    }
    if (observed !== e + u) out.rest.push({ token: texts[t]!, base: b, pr: p, observed, explained: e, unpaired: u });
  }
  out.rest.sort((x, y) => Math.abs(y.observed - y.explained - y.unpaired) - Math.abs(x.observed - x.explained - x.unpaired) || cmp(x.token, y.token));
  return out;
}
