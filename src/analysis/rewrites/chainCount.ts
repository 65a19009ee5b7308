// The chains each rewrite replaced, counted step by step from the exact occurrences of its chains, so that its
// figures are one count seen three ways: `chains` is the sum over the steps both sides profiled, `perStep` the least
// and the most of one step (of the ranks where it happened), and `kept` the kernels of its chain the PR still runs
// right beside its added chain. Pure: the step shapes' tokens and the occurrences in, the counts out.
//
// In each step shape of each side, the rewrites claim the kernels of the exact occurrences of their chains, longer
// chains first, as many as they account for (of the removed chain, the PR's and as many more of the base's as the
// step replaced; of the added chain, the base's and as many more of the PR's; a shape of several steps, as many as
// the step of it that replaced the most), and a rewrite counts only the occurrences none of whose kernels a longer
// one claimed: a `Relu` removed beside a fused `Conv2D · TransData · Relu` is not counted for each fused chain,
// nor is a chain that straddles the end of a longer one (`ScatterNdUpdate · MatMulV3 · Slice`, the last kernel of a
// fused chain and the kernels after it). In one step the rewrite replaced the fewer of (base − PR occurrences of its
// removed chain) and (PR − base of its added chain); `chains` is their sum over the steps, none when that is below
// zero, and a step below zero (the PR ran the chain there more often) counts as none in `perStep`.

/** A step both sides profiled (or a step of a rank compared as it is), as the shapes of its streams on each side. */
export interface StepUnit {
  rank: string;
  shapes: [number[], number[]];
}

export interface CountInput {
  /** Per side, per shape: its tokens. */
  tokens: [Int32Array[], Int32Array[]];
  /** Per side, per shape: its steps in the units (the steps the other side has too). */
  paired: [number[], number[]];
  units: StepUnit[];
  /** The exact, non-overlapping occurrences of a chain in a shape of a side (cached by the caller). */
  exact: (side: 0 | 1, shape: number, chain: Int32Array) => number[];
}

export interface Counted {
  chains: number;
  /** The least and the most chains of one step, over the steps of `ranks`; zeros when there is no chain. */
  perStep: { min: number; max: number };
  /** Ranks with a chain in some step. */
  ranks: string[];
  /** Kernels of the removed chain still run right beside an occurrence of the added chain, in the units' steps. */
  kept: { kernels: number; steps: number; tokens: Map<number, number> };
  /** Per PR shape: the positions of those kernels. */
  keptAt: Map<number, number[]>;
}

/** The counts of each rewrite (the longer chains first: the order given is kept in the result's keys). */
export function countSteps<F extends { removed: Int32Array; added: Int32Array }>(input: CountInput, rewrites: F[]): Map<F, Counted> {
  const { tokens, paired, units, exact } = input;
  const given = tokens.map((side) => side.map((t) => new Uint8Array(t.length))) as [Uint8Array[], Uint8Array[]];
  const byLength = [...rewrites].sort((x, y) => y.removed.length - x.removed.length || y.added.length - x.added.length);
  const out = new Map<F, Counted>();
  for (const f of byLength) {
    // Per side, per shape: the free occurrences of each chain.
    const free = (side: 0 | 1, chain: Int32Array): number[][] =>
      tokens[side].map((_, j) => (chain.length === 0 || paired[side][j]! === 0 ? [] : freeOf(given[side][j]!, exact(side, j, chain), chain.length)));
    const removed = [free(0, f.removed), free(1, f.removed)];
    const added = [free(0, f.added), free(1, f.added)];
    const perUnit = new Int32Array(units.length);
    const byRank = new Map<string, number>();
    let sum = 0;
    units.forEach((u, i) => {
      const n = (occ: number[][], side: 0 | 1): number => u.shapes[side].reduce((a, j) => a + occ[j]!.length, 0);
      const fromRemoved = n(removed[0]!, 0) - n(removed[1]!, 1);
      const fromAdded = n(added[1]!, 1) - n(added[0]!, 0);
      const v = f.removed.length === 0 ? fromAdded : f.added.length === 0 ? fromRemoved : Math.min(fromRemoved, fromAdded);
      perUnit[i] = v;
      sum += v;
      byRank.set(u.rank, (byRank.get(u.rank) ?? 0) + v);
    });
    // A step where the PR ran the chain more often than the base undoes as many of the other steps' (the change of the
    // most frequent steps moved between steps is no rewrite): its count is below zero, and shown as none.
    const chains = Math.max(0, sum);
    let min = Number.POSITIVE_INFINITY;
    let max = 0;
    units.forEach((u, i) => {
      if (byRank.get(u.rank)! === 0) return;
      min = Math.min(min, perUnit[i]!);
      max = Math.max(max, perUnit[i]!);
    });
    const ranks = [...byRank].filter(([, v]) => v > 0).map(([r]) => r);
    const kept = { kernels: 0, steps: 0, tokens: new Map<number, number>() };
    const keptAt = new Map<number, number[]>();
    if (chains > 0) {
      if (f.removed.length >= 2 && f.added.length > 0) {
        const around = context(tokens[0], removed[0]!, paired[0], f.removed.length);
        tokens[1].forEach((t, j) => {
          const at = keptBeside(t, given[1][j]!, added[1]![j]!, f.added.length, f.removed, around);
          if (at.length === 0) return;
          keptAt.set(j, at);
          kept.kernels += at.length * paired[1][j]!;
          kept.steps += paired[1][j]!;
          for (const k of at) kept.tokens.set(t[k]!, (kept.tokens.get(t[k]!) ?? 0) + paired[1][j]!);
        });
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
        const take = [new Int32Array(tokens[0].length), new Int32Array(tokens[1].length)];
        units.forEach((u, i) => {
          const other = u.shapes[1 - grows]!.reduce((a, j) => a + occ[1 - grows]![j]!.length, 0);
          for (const side of [0, 1] as const) {
            let left = side === grows ? other + Math.max(0, perUnit[i]!) : other;
            for (const j of u.shapes[side]) {
              const n = Math.min(left, occ[side]![j]!.length);
              take[side]![j] = Math.max(take[side]![j]!, n);
              left -= n;
            }
          }
        });
        for (const side of [0, 1] as const)
          occ[side]!.forEach((os, j) => {
            for (const o of os.slice(0, take[side]![j]!)) given[side][j]!.fill(1, o, o + m);
          });
      }
      for (const [j, at] of keptAt) for (const k of at) given[1][j]![k] = 1;
    }
    out.set(f, { chains, perStep: { min: min === Number.POSITIVE_INFINITY ? 0 : Math.max(0, min), max }, ranks, kept, keptAt });
  }
  return out;
}

/** The occurrences none of whose kernels is given. */
function freeOf(given: Uint8Array, occ: number[], m: number): number[] {
  return occ.filter((o) => {
    for (let k = o; k < o + m; k++) if (given[k] !== 0) return false;
    return true;
  });
}

/** Kernels of the base's context of a chain, each side (see keptBeside). */
const CONTEXT = 2;
/** The most contexts of each side kept (the most frequent): a chain runs in few places of a step. */
const CONTEXTS = 8;

/**
 * The kernels the base runs right before and right after its chains (CONTEXT of each, nearest first; -1 past the
 * step's end), each side's distinct ones, the most frequent first (ties: text order of their ids), at most CONTEXTS:
 * the first layer's chain may follow other kernels than the others' (RmsNorm, not AddRmsNorm).
 */
function context(tokens: Int32Array[], occ: number[][], paired: number[], m: number): { before: number[][]; after: number[][] } {
  const tally = [new Map<string, number>(), new Map<string, number>()];
  occ.forEach((os, j) => {
    const t = tokens[j]!;
    for (const o of os) {
      for (const [i, at] of [
        [0, (k: number) => o - 1 - k],
        [1, (k: number) => o + m + k],
      ] as const) {
        const key = Array.from({ length: CONTEXT }, (_, k) => t[at(k)] ?? -1).join(',');
        tally[i]!.set(key, (tally[i]!.get(key) ?? 0) + paired[j]!);
      }
    }
  });
  const top = (m: Map<string, number>): number[][] =>
    [...m]
      .filter(([, c]) => c > 0)
      .sort(([x, a], [y, b]) => b - a || (x < y ? -1 : x > y ? 1 : 0))
      .slice(0, CONTEXTS)
      .map(([key]) => key.split(',').map(Number));
  return { before: top(tally[0]!), after: top(tally[1]!) };
}

/**
 * The kernels of the removed chain the PR runs right beside each occurrence of the added chain (`MlaPrologV3
 * ScatterNdUpdate` where the base ran the chain then `MatMulV3 Slice`): on each side of the occurrence, the fewest
 * kernels (none given, each of the chain, no more often than the chain has it) past which the PR runs the kernels the
 * base runs next to its chains there; none on a side where no such run leads to them.
 */
function keptBeside(
  t: Int32Array,
  given: Uint8Array,
  occ: number[],
  m: number,
  removed: Int32Array,
  around: { before: number[][]; after: number[][] },
): number[] {
  const out: number[] = [];
  if (occ.length === 0) return out;
  // How often the chain has each kernel, made once: an occurrence counts what its runs took (most take nothing).
  const times = new Map<number, number>();
  for (const x of removed) times.set(x, (times.get(x) ?? 0) + 1);
  const ctxAt = (ctxs: number[][], k: number, dir: 1 | -1): boolean => ctxs.some((ctx) => ctx.every((x, i) => (t[k + dir * i] ?? -1) === x));
  const taken = new Set<number>();
  for (const o of occ) {
    const used = new Map<number, number>();
    for (const [ctx, dir, from] of [
      [around.after, 1, o + m],
      [around.before, -1, o - 1],
    ] as const) {
      if (ctx.length === 0 || ctxAt(ctx, from, dir)) continue;
      const run: number[] = [];
      const take = new Map<number, number>();
      for (let k = from; ; k += dir) {
        const x = t[k];
        if (x === undefined || given[k] !== 0 || taken.has(k)) break;
        const n = take.get(x) ?? 0;
        if (n + (used.get(x) ?? 0) >= (times.get(x) ?? 0)) break;
        take.set(x, n + 1);
        run.push(k);
        if (!ctxAt(ctx, k + dir, dir)) continue;
        for (const y of run) {
          taken.add(y);
          out.push(y);
        }
        for (const [y, c] of take) used.set(y, (used.get(y) ?? 0) + c);
        break;
      }
    }
  }
  return out.sort((x, y) => x - y);
}
