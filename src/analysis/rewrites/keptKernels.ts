// The kernels of a rewrite's removed chain that the PR still runs right beside its added chain (`MlaPrologV3
// ScatterNdUpdate` where the base ran the chain, then `MatMulV3 Slice`): found by the kernels the base runs next to its
// chains (context), and no more of a kernel than the PR runs past what the base runs outside its chains (keptCap).
// chainCount.ts counts them with the rewrite's chains.

import { entry } from '../../util/maps.js';
import { KEPT_GAP, MOVE_GAP } from './moves.js';

/** A shape of a side on one rank, in the units' steps: what its rewrites claimed there, and in how many steps it runs. */
export interface Place {
  rank: string;
  side: 0 | 1;
  shape: number;
  steps: number;
  given: Uint8Array;
  owner: Int32Array;
  scoped: Scoped[];
  /** The occurrences each rewrite replaced, in all the place's steps (`steps` null) or in some: its per-chain figures. */
  replaced: Replaced[];
}

/** Occurrences (their first kernels) of rewrite `id`'s chain replaced in a place, in its steps or in some (indices). */
export interface Replaced {
  id: number;
  at: number[];
  steps: number[] | null;
}

/** Kernels of a place timed for rewrite `id` in some of its steps only (indices in the side's steps). */
export interface Scoped {
  id: number;
  kernels: number[];
  steps: number[];
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
export function context(places: { t: Int32Array; occ: number[]; steps: number }[], m: number): { before: number[][]; after: number[][] } {
  const tally = [new Map<string, number>(), new Map<string, number>()];
  for (const { t, occ, steps } of places) {
    for (const o of occ) {
      for (const [i, at] of [
        [0, (k: number) => o - 1 - k],
        [1, (k: number) => o + m + k],
      ] as const) {
        const key = Array.from({ length: CONTEXT }, (_, k) => t[at(k)] ?? -1).join(',');
        tally[i]!.set(key, (tally[i]!.get(key) ?? 0) + steps);
      }
    }
  }
  const top = (m: Map<string, number>): number[][] =>
    [...m]
      .filter(([, c]) => c > 0)
      .sort(([x, a], [y, b]) => b - a || (x < y ? -1 : x > y ? 1 : 0))
      .slice(0, CONTEXTS)
      .map(([key]) => key.split(',').map(Number));
  return { before: top(tally[0]!), after: top(tally[1]!) };
}

/**
 * Per place (made once each, for one rewrite), how many of each kernel of the removed `chain` it runs outside the
 * chain's free occurrences there (`removedOcc`), of the kernels no rewrite was given yet.
 */
export function outsideCounts(
  places: Place[],
  tokens: [Int32Array[], Int32Array[]],
  removedOcc: number[][],
  chain: Int32Array,
): (q: number) => Map<number, number> {
  const times = new Map<number, number>();
  for (const x of chain) times.set(x, (times.get(x) ?? 0) + 1);
  const made = new Map<number, Map<number, number>>();
  return (q) =>
    entry(made, q, () => {
      const p = places[q]!;
      const t = tokens[p.side][p.shape]!;
      const n = new Map<number, number>();
      for (let k = 0; k < t.length; k++) if (p.given[k] === 0 && times.has(t[k]!)) n.set(t[k]!, (n.get(t[k]!) ?? 0) + 1);
      for (const [x, c] of times) n.set(x, (n.get(x) ?? 0) - c * removedOcc[q]!.length);
      return n;
    });
}

/**
 * How many of each kernel of the removed chain PR place `i` may keep beside the added chain: those it runs outside the
 * chain (`outside`), less the most that a base place of its steps (`partners`) runs outside its own. A kernel the base
 * also ran outside its chains is no kept one, whatever runs beside the fused kernel.
 */
export function keptCap(outside: (q: number) => Map<number, number>, partners: Set<number>, i: number, chain: Int32Array): Map<number, number> {
  const own = outside(i);
  const cap = new Map<number, number>();
  for (const x of new Set(chain)) {
    let base = 0;
    for (const q of partners) base = Math.max(base, outside(q).get(x) ?? 0);
    cap.set(x, Math.max(0, (own.get(x) ?? 0) - base));
  }
  return cap;
}

/**
 * The kernels of the removed chain the PR runs right beside each occurrence of the added chain (`MlaPrologV3
 * ScatterNdUpdate` where the base ran the chain then `MatMulV3 Slice`): on each side of the occurrence, the fewest
 * kernels (none given, each of the chain, no more often than the chain has it) past which the PR runs the kernels the
 * base runs next to its chains there; none on a side where no such run leads to them. Where the chain's neighbours
 * moved beside the fused kernel, or the fused kernel moved (moves.ts), up to MOVE_GAP kernels between are passed over
 * and the run of the chain's kernels found is the kept one. The cap (keptCap) holds in every case.
 */
export function keptBeside(
  t: Int32Array,
  given: Uint8Array,
  occ: number[],
  m: number,
  removed: Int32Array,
  around: { before: number[][]; after: number[][] },
  /** The cap of keptCap, asked for only when a run is found (most chains have their context beside them). */
  capOf: () => Map<number, number>,
): number[] {
  const out: number[] = [];
  if (occ.length === 0) return out;
  // Of each kernel, those kept so far (at most its cap).
  const spent = new Map<number, number>();
  let cap: Map<number, number> | null = null;
  // How often the chain has each kernel, made once: an occurrence counts what its runs took (most take nothing).
  const times = new Map<number, number>();
  for (const x of removed) times.set(x, (times.get(x) ?? 0) + 1);
  const ctxAt = (ctxs: number[][], k: number, dir: 1 | -1): boolean => ctxs.some((ctx) => ctx.every((x, i) => (t[k + dir * i] ?? -1) === x));
  // The kernels of the base's contexts: a fused kernel that runs a kernel or more from where the chain ran (moves.ts)
  // has such neighbours between it and the chain's kernels it kept (`A B C D E` → `B D F E`: B kept, D moved).
  const near = new Set<number>();
  for (const ctx of [...around.before, ...around.after]) for (const x of ctx) if (x >= 0 && !times.has(x)) near.add(x);
  const tokensOf = (ctxs: number[][]): Set<number> => new Set(ctxs.flat().filter((x) => x >= 0 && !times.has(x)));
  const [beforeTokens, afterTokens] = [tokensOf(around.before), tokensOf(around.after)];
  const taken = new Set<number>();
  for (const o of occ) {
    const used = new Map<number, number>();
    // The fused kernel moved (a kernel the base ran after its chain runs a few before it, or one it ran before the chain
    // a few after it: `A B C D E G` → `D E F B G`): what runs between it and its kept kernels need not be a neighbour.
    const moved = nearBy(t, o - 1, -1, afterTokens) || nearBy(t, o + m, 1, beforeTokens);
    for (const [ctx, dir, from] of [
      [around.after, 1, o + m],
      [around.before, -1, o - 1],
    ] as const) {
      if (ctx.length === 0 || ctxAt(ctx, from, dir)) continue;
      const run: number[] = [];
      const take = new Map<number, number>();
      let skipped = 0;
      let found = false;
      for (let k = from; ; k += dir) {
        const x = t[k];
        if (x === undefined || given[k] !== 0 || taken.has(k)) break;
        if (near.has(x) || (moved && !times.has(x))) {
          // A neighbour of the chain moved to the fused kernel's side (any kernel, where the fused kernel moved): passed
          // over, MOVE_GAP at most.
          if (++skipped > MOVE_GAP) break;
        } else {
          const n = take.get(x) ?? 0;
          if (n + (used.get(x) ?? 0) >= (times.get(x) ?? 0)) break;
          take.set(x, n + 1);
          run.push(k);
        }
        if (run.length > 0 && ctxAt(ctx, k + dir, dir)) {
          found = true;
          break;
        }
      }
      // Past moved neighbours the context itself may have moved (`A B C D E` → `D F B E`): the run that ends where
      // neither a kernel of the chain nor a neighbour runs is the kept one.
      if (!found && !((skipped > 0 || moved) && run.length > 0)) continue;
      // More of a kernel than the PR runs past the base's own outside its chains is none kept: the run's kernels
      // are the base's (`R R R` → `R F` of a chain `R R`: the R before F ran in the base too).
      cap ??= capOf();
      const room = cap;
      if ([...take].some(([y, c]) => (spent.get(y) ?? 0) + c > (room.get(y) ?? 0))) continue;
      for (const y of run) {
        taken.add(y);
        out.push(y);
      }
      for (const [y, c] of take) {
        used.set(y, (used.get(y) ?? 0) + c);
        spent.set(y, (spent.get(y) ?? 0) + c);
      }
    }
  }
  return out.sort((x, y) => x - y);
}

/** Whether one of `tokens` runs within MOVE_GAP + KEPT_GAP kernels of t[from] (it included), going `dir`. */
function nearBy(t: Int32Array, from: number, dir: 1 | -1, tokens: Set<number>): boolean {
  for (let k = from, n = 0; n < MOVE_GAP + KEPT_GAP && k >= 0 && k < t.length; k += dir, n++) if (tokens.has(t[k]!)) return true;
  return false;
}
