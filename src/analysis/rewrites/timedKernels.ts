// Which of the kernels a rewrite claimed are timed for it (chainCount.ts counts, rewrites.ts times): on the side that
// ran more of a chain, the occurrences past as many as the other side ran, those the step's alignment changed first
// (timedOf); a chain both sides ran is outside the saving. Where the steps of one place replaced different numbers
// (a layer fused in some steps only), each kind of step's are timed in its steps (`scoped`). Each place also keeps
// the occurrences replaced (`replaced`), whose per-chain figures the rewrite shows.

import type { Place } from './keptKernels.js';

/** A kind of unit: its places on each side, and each place's steps in the kind's units (when known). */
export interface KindPlaces {
  at: [number[], number[]];
  steps: Map<number, number[]>;
}

export interface TimingInput {
  places: Place[];
  /** Per place: the places of the other side in its steps. */
  partners: (i: number) => Set<number>;
  kinds: KindPlaces[];
  /** Per kernel of a shape of a side, 1 where the alignment with a shape of the other side changed it (null: none). */
  changed?: (side: 0 | 1, shape: number, other: number) => Uint8Array | null;
  /** Per kernel of a shape of a side, its mean duration over the shape's steps (null: not known). */
  meanTicks?: (side: 0 | 1, shape: number) => Float64Array | null;
}

/** One chain of rewrite `id` (m kernels), the side that ran more of it (`grows`), and what was claimed per place. */
export interface ChainClaims {
  id: number;
  m: number;
  grows: 0 | 1;
  /** Per place: the occurrences claimed (given). */
  mine: number[][];
  /** Per place of the growing side: of those, how many the step replaced (the most of its kinds), and per kind. */
  extra: Int32Array;
  byKind: { kind: number; extra: number }[][];
}

type Plan = { at: number[] } | { scoped: { at: number[]; steps: number[] }[] } | null;

/** Marks the kernels timed for the rewrite in each place's owner (and its steps' own, `scoped`). */
export function timeClaims(t: TimingInput, c: ChainClaims): void {
  const { places, kinds } = t;
  const { id, m, grows, mine, extra, byKind } = c;
  const plans: Plan[] = places.map((p, i) => {
    if (p.side !== grows || extra[i]! === 0) return null;
    const ks = byKind[i]!;
    if (ks.every((k) => k.extra === ks[0]!.extra) || ks.some((k) => kinds[k.kind]!.steps.get(i) === undefined))
      return { at: timedOf(t, t.partners(i), i, mine, m, extra[i]!) };
    // Its steps replaced different numbers (a layer fused in some steps only): each kind's, in its steps.
    return {
      scoped: ks
        .filter((k) => k.extra > 0)
        .map((k) => ({
          at: timedOf(t, new Set(kinds[k.kind]!.at[1 - grows]), i, mine, m, k.extra),
          steps: kinds[k.kind]!.steps.get(i)!,
        })),
    };
  });
  const fill = (p: Place, at: number[]): void => {
    for (const o of at) p.owner.fill(id, o, o + m);
  };
  places.forEach((p, i) => {
    const plan = plans[i]!;
    // The per-chain figures are the replaced chains' from the samples, whatever the total is timed on.
    if (plan !== null && 'at' in plan) p.replaced.push({ id, at: plan.at, steps: null });
    else if (plan !== null) for (const s of plan.scoped) p.replaced.push({ id, at: s.at, steps: s.steps });
    if (plan === null) return;
    else if ('at' in plan) fill(p, plan.at);
    else for (const s of plan.scoped) p.scoped.push({ id, kernels: s.at.flatMap((o) => Array.from({ length: m }, (_, j) => o + j)), steps: s.steps });
  });
}

/**
 * Of the occurrences `mine[i]` a rewrite claimed in place `i` (on the side that ran more of them), the `extra` it
 * replaced: those the alignment with the other side's place of the most steps changed first (the most kernels changed
 * first), then in the order claimed. A kernel of a common kind added once a step is timed alone, not with the kernels
 * of its kind that both sides ran. Which of a run of the same chain side by side (`M M` where the other side ran
 * `M`) the alignment marks is arbitrary: there the ones whose time is least like the other side's chains are taken.
 */
function timedOf(t: TimingInput, partners: Set<number>, i: number, mine: number[][], m: number, extra: number): number[] {
  const own = mine[i]!;
  if (extra >= own.length) return own;
  const { places } = t;
  let q = -1;
  for (const r of partners) if (q < 0 || places[r]!.steps > places[q]!.steps) q = r;
  const p = places[i]!;
  const flags = q < 0 ? null : (t.changed?.(p.side, p.shape, places[q]!.shape) ?? null);
  if (flags === null) return own.slice(0, extra);
  const changedIn = (o: number): number => {
    let c = 0;
    for (let k = o; k < o + m; k++) c += flags[k]!;
    return c;
  };
  const ranked = own.map((o, j) => ({ o, j, c: changedIn(o) }));
  alikeInRuns(t, ranked, p, q < 0 ? null : places[q]!, q < 0 ? [] : mine[q]!, m);
  return ranked
    .sort((x, y) => y.c - x.c || x.j - y.j)
    .slice(0, extra)
    .map((x) => x.o);
}

/**
 * In each run of occurrences side by side (`o`, `o + m`, …) of which the alignment changed some and not all, the
 * changes moved to the members whose mean time is furthest from the mean of the other side's occurrences (`theirs`
 * in place `other`), ties to the alignment's own choice.
 */
function alikeInRuns(
  t: TimingInput,
  ranked: { o: number; j: number; c: number }[],
  p: Place,
  other: Place | null,
  theirs: number[],
  m: number,
): void {
  if (other === null || theirs.length === 0) return;
  const mine = t.meanTicks?.(p.side, p.shape) ?? null;
  const their = t.meanTicks?.(other.side, other.shape) ?? null;
  if (mine === null || their === null) return;
  const time = (ticks: Float64Array, o: number): number => {
    let sum = 0;
    for (let k = o; k < o + m; k++) sum += ticks[k]!;
    return sum;
  };
  const ref = theirs.reduce((a, o) => a + time(their, o), 0) / theirs.length;
  const byPos = [...ranked].sort((x, y) => x.o - y.o);
  for (let a = 0; a < byPos.length; ) {
    let b = a + 1;
    while (b < byPos.length && byPos[b]!.o === byPos[b - 1]!.o + m) b++;
    const run = byPos.slice(a, b);
    const changed = run.filter((x) => x.c > 0);
    if (changed.length > 0 && changed.length < run.length) {
      const cs = changed.map((x) => x.c).sort((x, y) => y - x);
      const order = [...run].sort((x, y) => Math.abs(time(mine, y.o) - ref) - Math.abs(time(mine, x.o) - ref) || y.c - x.c || x.j - y.j);
      for (const x of run) x.c = 0;
      order.slice(0, cs.length).forEach((x, k) => {
        x.c = cs[k]!;
      });
    }
    a = b;
  }
}
