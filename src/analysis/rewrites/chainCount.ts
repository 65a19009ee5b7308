// The chains each rewrite replaced, counted step by step from the exact occurrences of its chains, so that its
// figures are one count seen three ways: `chains` is the sum over the steps both sides profiled, `perStep` the least
// and the most of one step (of the ranks where it happened, and of those whose steps undid some: `undone`), and `kept`
// the kernels of its chain the PR still runs right beside its added chain. Pure: the step shapes' tokens and the occurrences in, the counts out.
//
// In each step shape of each side, the rewrites claim the kernels of the exact occurrences of their chains, longer
// chains first, as many as they account for (of the removed chain, the PR's and as many more of the base's as the
// step replaced; of the added chain, the base's and as many more of the PR's; a shape of several steps of a rank, as many as
// the step of it that replaced the most), and a rewrite counts only the occurrences none of whose kernels a longer
// one claimed: a `Relu` removed beside a fused `Conv2D · TransData · Relu` is not counted for each fused chain,
// nor is a chain that straddles the end of a longer one (`ScatterNdUpdate · MatMulV3 · Slice`, the last kernel of a
// fused chain and the kernels after it). In one step the rewrite replaced the fewer of (base − PR occurrences of its
// removed chain) and (PR − base of its added chain); `chains` is their sum over the steps, none when that is below
// zero, and a step below zero (the PR ran the chain there more often) counts as none in `perStep`. Where a step runs
// more of a chain than the rewrite claims, it claims those of the layers where the other side changed it (prefer).
// The kernels its saving is measured on (rewrites.ts), rank by rank (Claimed), are only those it replaced: of the
// occurrences it claimed on the side that ran more, those past as many as the other side ran, the ones the step's
// alignment with the other side changed first (timedOf), and the kernels kept; a chain both sides ran is outside it.

import { firstAtLeast } from './layers.js';
import { entry } from '../../util/maps.js';
import { context, keptBeside, keptCap, outsideCounts, type Place, type Replaced, type Scoped } from './keptKernels.js';
import { timeClaims } from './timedKernels.js';

/** A step both sides profiled (or a step of a rank compared as it is), as the shapes of its streams on each side. */
export interface StepUnit {
  rank: string;
  shapes: [number[], number[]];
  /** The steps of those shapes (indices in each side's steps), in the same order; none: not known. */
  steps?: [number[], number[]];
  /** Their streams, in the same order; none: not known. */
  streams?: [string[], string[]];
}

export interface CountInput {
  /** Per side, per shape: its tokens. */
  tokens: [Int32Array[], Int32Array[]];
  units: StepUnit[];
  /** The exact, non-overlapping occurrences of a chain in a shape of a side (cached by the caller). */
  exact: (side: 0 | 1, shape: number, chain: Int32Array) => number[];
  /**
   * The positions of the layer marker in a shape of a side ([] without one): where a step replaced fewer chains than
   * it has, the chains claimed are those of the layers where the other side changed them (see prefer).
   */
  markers?: (side: 0 | 1, shape: number) => number[];
  /**
   * Per kernel of a shape of a side, 1 where an alignment with a shape of the other side changed it (null: not
   * aligned): of the occurrences a rewrite claims, those the other side did not run too are its own (see timedOf).
   */
  changed?: (side: 0 | 1, shape: number, other: number) => Uint8Array | null;
  /** Per kernel of a shape of a side, its mean duration over the shape's steps (see timedKernels.ts). */
  meanTicks?: (side: 0 | 1, shape: number) => Float64Array | null;
}

/**
 * A shape of a side on one rank, in the units' steps, and the rewrite each of its kernels is timed for (its index in
 * the rewrites given; -1: none): the kernels whose time is that rewrite's saving. Those are the kernels of the
 * occurrences it replaced (not those the other side ran as well, which it claims for its count only) and the kernels
 * kept beside its added chain.
 */
export interface Claimed {
  rank: string;
  side: 0 | 1;
  shape: number;
  owner: Int32Array;
  /** Kernels timed for a rewrite in some of the place's steps only (where its steps replaced different numbers). */
  scoped: Scoped[];
  /** The occurrences each rewrite replaced there (its per-chain figures are theirs). */
  replaced: Replaced[];
}

export interface Counted {
  chains: number;
  /**
   * The least and the most chains of one step, over the steps of `ranks` and of `undone.ranks` (a step below zero
   * counts as none); zeros when there is no chain. So min × those steps ≤ chains ≤ max × those steps.
   */
  perStep: { min: number; max: number };
  /** Ranks with a chain in some step (their steps' sum above zero). */
  ranks: string[];
  /** The steps (a rank's step both sides profiled) where it replaced a chain, and all such steps of every rank. */
  steps: { with: number; of: number };
  /**
   * Ranks whose steps' sum is below zero (the PR ran the chain more often there than the base), and the chains
   * they take off the others' (`chains` is the sum over every rank): their steps are in `perStep` too.
   */
  undone: { ranks: string[]; chains: number };
  /** Kernels of the removed chain still run right beside an occurrence of the added chain, in the units' steps. */
  kept: { kernels: number; steps: number; tokens: Map<number, number> };
  /** Per PR shape: the positions of those kernels. */
  keptAt: Map<number, number[]>;
}

/**
 * The counts of each rewrite (the longer chains first: the order given is kept in the result's keys). `tier`: rewrites
 * of a lower tier claim their kernels first, whatever their length (those found in the most frequent steps, before
 * those found only in another class of steps: what the former count does not depend on the latter).
 */
export function countSteps<F extends { removed: Int32Array; added: Int32Array }>(
  input: CountInput,
  rewrites: F[],
  tier: (f: F) => number = () => 0,
): { counted: Map<F, Counted>; claimed: Claimed[] } {
  const { tokens, units, exact } = input;
  // Claims are made per rank: ranks that run the same shape may have replaced a different number of its chains.
  const places: Place[] = [];
  const index = new Map<string, number>();
  const at = units.map((u) =>
    u.shapes.map((shapes, side) =>
      shapes.map((shape) => {
        const key = JSON.stringify([u.rank, side, shape]);
        let i = index.get(key);
        if (i === undefined) {
          const length = tokens[side]![shape]!.length;
          i =
            places.push({
              rank: u.rank,
              side: side as 0 | 1,
              shape,
              steps: 0,
              given: new Uint8Array(length),
              owner: new Int32Array(length).fill(-1),
              scoped: [],
              replaced: [],
            }) - 1;
          index.set(key, i);
        }
        places[i]!.steps++;
        return i;
      }),
    ),
  );
  // Per place: the places of the other side in its steps (the rank's), made when asked for. Not all at once: a Step
  // Id cut into thousands of runs (rows sorted by another column) makes a unit of thousands of places a side, and
  // every pair of them would be held (quadratic memory: 20,000 rows took 4 GB).
  const unitsOf = places.map((): number[] => []);
  at.forEach((u, k) => {
    for (const side of u) for (const p of side) if (unitsOf[p]!.at(-1) !== k) unitsOf[p]!.push(k);
  });
  const partners = lazyPartners(places, at, unitsOf);
  // The units alike (the same rank, and the same places on each side: most steps of a run), each kind counted once
  // per rewrite with how many units it stands for, in order of its first unit (so the ranks in order of their first).
  const kinds = unitKinds(units, at);
  const byLength = [...rewrites].sort((x, y) => tier(x) - tier(y) || y.removed.length - x.removed.length || y.added.length - x.added.length);
  const out = new Map<F, Counted>();
  for (const f of byLength) {
    const id = rewrites.indexOf(f);
    // Per place: the free occurrences of each chain.
    const free = (chain: Int32Array): number[][] =>
      places.map((p) => (chain.length === 0 ? [] : freeOf(p.given, exact(p.side, p.shape, chain), chain.length)));
    const removed = free(f.removed);
    const added = free(f.added);
    const n = (occ: number[][], k: UnitKind, side: 0 | 1): number => {
      let a = 0;
      for (const p of k.at[side]) a += occ[p]!.length;
      return a;
    };
    const perKind = new Int32Array(kinds.length);
    const byRank = new Map<string, number>();
    let sum = 0;
    for (let i = 0; i < kinds.length; i++) {
      const k = kinds[i]!;
      const fromRemoved = n(removed, k, 0) - n(removed, k, 1);
      const fromAdded = n(added, k, 1) - n(added, k, 0);
      const v = f.removed.length === 0 ? fromAdded : f.added.length === 0 ? fromRemoved : Math.min(fromRemoved, fromAdded);
      perKind[i] = v;
      sum += v * k.units;
      byRank.set(k.rank, (byRank.get(k.rank) ?? 0) + v * k.units);
    }
    // A step where the PR ran the chain more often than the base undoes as many of the other steps' (the change of the
    // most frequent steps moved between steps is no rewrite): its count is below zero, and shown as none.
    const chains = Math.max(0, sum);
    let min = Number.POSITIVE_INFINITY;
    let max = 0;
    // Over the steps of the ranks whose sum is not zero: those listed, and those that undid some (said: `undone`).
    for (let i = 0; i < kinds.length; i++) {
      if (byRank.get(kinds[i]!.rank)! === 0) continue;
      min = Math.min(min, perKind[i]!);
      max = Math.max(max, perKind[i]!);
    }
    const ranks = [...byRank].filter(([, v]) => v > 0).map(([r]) => r);
    const steps = { with: 0, of: 0 };
    for (let i = 0; i < kinds.length; i++) {
      steps.of += kinds[i]!.units;
      if (perKind[i]! > 0 && byRank.get(kinds[i]!.rank)! > 0) steps.with += kinds[i]!.units;
    }
    const below = [...byRank].filter(([, v]) => v < 0);
    const undone = { ranks: below.map(([r]) => r), chains: below.reduce((a, [, v]) => a - v, 0) };
    const kept = { kernels: 0, steps: 0, tokens: new Map<number, number>() };
    const keptAt = new Map<number, number[]>();
    const keptIn = new Map<number, number[]>();
    if (chains > 0) {
      if (f.removed.length >= 2 && f.added.length > 0) {
        const around = context(
          places.flatMap((p, i) => (p.side === 0 ? [{ t: tokens[0][p.shape]!, occ: removed[i]!, steps: p.steps }] : [])),
          f.removed.length,
        );
        const union = new Map<number, Set<number>>();
        const outside = outsideCounts(places, tokens, removed, f.removed);
        places.forEach((p, i) => {
          if (p.side !== 1 || added[i]!.length === 0) return;
          const t = tokens[1][p.shape]!;
          const ks = keptBeside(t, p.given, added[i]!, f.added.length, f.removed, around, () => keptCap(outside, partners(i), i, f.removed));
          if (ks.length === 0) return;
          keptIn.set(i, ks);
          for (const k of ks) entry(union, p.shape, () => new Set<number>()).add(k);
          kept.kernels += ks.length * p.steps;
          for (const k of ks) kept.tokens.set(t[k]!, (kept.tokens.get(t[k]!) ?? 0) + p.steps);
        });
        // The steps where some stream kept one: a step whose two streams each kept one is one step.
        for (const k of kinds) if (k.at[1].some((p) => keptIn.has(p))) kept.steps += k.units;
        for (const [j, ks] of union)
          keptAt.set(
            j,
            [...ks].sort((x, y) => x - y),
          );
      }
      // The rewrite claims the occurrences it accounts for: of its removed chain, the PR's and as many more of the
      // base's as it replaced in the step; of its added chain, the base's and as many more of the PR's. The others stay
      // free for a shorter rewrite inside them (`B · C → F1 · F2` where one layer fused `A · B · C · D` otherwise).
      const claims = [
        [removed, f.removed.length, 0],
        [added, f.added.length, 1],
      ] as const;
      for (const [occ, m, grows] of claims) {
        if (m === 0) continue;
        const take = new Int32Array(places.length);
        // Of those, on the side that ran more: past as many as the other side ran, the ones the step replaced (the
        // most of the place's kinds of units, and per kind).
        const extra = new Int32Array(places.length);
        const byKind = places.map((): { kind: number; extra: number }[] => []);
        kinds.forEach((u, i) => {
          const other = n(occ, u, (1 - grows) as 0 | 1);
          for (const side of [0, 1] as const) {
            let left = side === grows ? other + Math.max(0, perKind[i]!) : other;
            let same = other;
            for (const p of u.at[side]) {
              const k = Math.min(left, occ[p]!.length);
              take[p] = Math.max(take[p]!, k);
              left -= k;
              if (side !== grows) continue;
              // As many as the other side ran on its stream are the same chains (a stream that runs the chain
              // beside the one fused: its chains are not the rewrite's), else in order.
              const sameStream = sameStreamCount(u, p, occ, (1 - grows) as 0 | 1);
              const s = Math.min(same, k, sameStream ?? k);
              same -= s;
              extra[p] = Math.max(extra[p]!, k - s);
              const last = byKind[p]!.at(-1);
              if (last?.kind === i) last.extra = Math.max(last.extra, k - s);
              else byKind[p]!.push({ kind: i, extra: k - s });
            }
          }
        });
        const other = occ === removed ? added : removed;
        const mine = places.map((p, i) => {
          const all = occ[i]!;
          const claimed = (take[i]! < all.length && p.side === grows ? prefer(input, places, partners(i), i, occ, other) : all).slice(0, take[i]!);
          for (const o of claimed) p.given.fill(1, o, o + m);
          return claimed;
        });
        timeClaims(
          { places, partners, kinds, changed: input.changed, meanTicks: input.meanTicks },
          { id, m, grows: grows as 0 | 1, mine, extra, byKind },
        );
      }
      for (const [i, ks] of keptIn)
        for (const k of ks) {
          places[i]!.given[k] = 1;
          places[i]!.owner[k] = id;
        }
    }
    out.set(f, { chains, perStep: { min: min === Number.POSITIVE_INFINITY ? 0 : Math.max(0, min), max }, ranks, steps, undone, kept, keptAt });
  }
  return { counted: out, claimed: places.map(({ rank, side, shape, owner, scoped, replaced }) => ({ rank, side, shape, owner, scoped, replaced })) };
}

/** Units of one rank with the same places on each side, in order: their counts are the same for every rewrite. */
interface UnitKind {
  rank: string;
  at: [number[], number[]];
  /** How many units are of this kind. */
  units: number;
  /** Per place of the kind: its steps in the kind's units (when the units give their steps). */
  steps: Map<number, number[]>;
  /** Per place of the kind: its stream (when the units give their streams). */
  streams: Map<number, string>;
}

/**
 * The occurrences the other side's places of a kind run on place p's stream (null when the streams are not known, or
 * none of the other side's places is on it).
 */
function sameStreamCount(u: UnitKind, p: number, occ: number[][], other: 0 | 1): number | null {
  const stream = u.streams.get(p);
  if (stream === undefined) return null;
  let n = 0;
  let found = false;
  for (const q of u.at[other])
    if (u.streams.get(q) === stream) {
      found = true;
      n += occ[q]!.length;
    }
  return found ? n : null;
}

/** The kinds of the units (`at`: each unit's places per side), in order of each kind's first unit. */
function unitKinds(units: StepUnit[], at: number[][][]): UnitKind[] {
  const kinds = new Map<string, UnitKind>();
  units.forEach((u, i) => {
    const [a, b] = at[i]! as [number[], number[]];
    const k = entry(
      kinds,
      JSON.stringify([u.rank, a, b]),
      (): UnitKind => ({ rank: u.rank, at: [a, b], units: 0, steps: new Map(), streams: new Map() }),
    );
    k.units++;
    for (const side of [0, 1] as const)
      at[i]![side]!.forEach((p, j) => {
        if (u.steps !== undefined) entry(k.steps, p, () => []).push(u.steps[side][j]!);
        if (u.streams !== undefined && !k.streams.has(p)) k.streams.set(p, u.streams[side][j]!);
      });
  });
  return [...kinds.values()];
}

/**
 * The occurrences of a chain in place `i` on the side that ran more of them, in the order the rewrite claims them: of
 * the layers (counted by the marker), those where the other side's places of its steps ran the chain as often, or
 * ran the rewrite's other chain, first; in order of position otherwise. A step that fused whole chains in some layers
 * and only part of them in others (a shorter rewrite inside) gives the whole chains to the longer rewrite, so each
 * saving is the time of the chains it replaced. Without a marker: in order of position.
 */
function prefer(input: CountInput, places: Place[], partners: Set<number>, i: number, occ: number[][], other: number[][]): number[] {
  const p = places[i]!;
  const marks = input.markers?.(p.side, p.shape) ?? [];
  if (marks.length === 0 || partners.size === 0) return occ[i]!;
  const layers = (q: number, list: number[]): Map<number, number> => {
    const m = input.markers!(places[q]!.side, places[q]!.shape);
    const out = new Map<number, number>();
    for (const o of list) {
      const l = firstAtLeast(m, o);
      out.set(l, (out.get(l) ?? 0) + 1);
    }
    return out;
  };
  const own = layers(i, occ[i]!);
  const fewer = new Set<number>();
  const changed = new Set<number>();
  for (const q of partners) {
    const theirs = layers(q, occ[q]!);
    for (const [l, n] of own) if ((theirs.get(l) ?? 0) < n) fewer.add(l);
    for (const l of layers(q, other[q]!).keys()) changed.add(l);
  }
  // Those the other side ran too (as many of its own the rewrite claims) and those it changed, before the others.
  const score = (o: number): number => {
    const l = firstAtLeast(marks, o);
    return !fewer.has(l) || changed.has(l) ? 1 : 0;
  };
  return occ[i]!.map((o) => ({ o, s: score(o) }))
    .sort((x, y) => y.s - x.s || x.o - y.o)
    .map((x) => x.o);
}

/** The occurrences none of whose kernels is given. */
function freeOf(given: Uint8Array, occ: number[], m: number): number[] {
  return occ.filter((o) => {
    for (let k = o; k < o + m; k++) if (given[k] !== 0) return false;
    return true;
  });
}

/** Partners of a place (its other side's places in its units), memoised while small: see countSteps. */
function lazyPartners(places: Place[], at: number[][][], unitsOf: number[][]): (i: number) => Set<number> {
  const made = new Map<number, Set<number>>();
  return (i) => {
    const had = made.get(i);
    if (had !== undefined) return had;
    const other = 1 - places[i]!.side;
    const out = new Set<number>();
    for (const k of unitsOf[i]!) for (const q of at[k]![other]!) out.add(q);
    if (out.size <= MEMO_PARTNERS) made.set(i, out);
    return out;
  };
}

/** Partner sets of at most this many places are kept once made (a normal profile's: a place or a few). */
const MEMO_PARTNERS = 64;
