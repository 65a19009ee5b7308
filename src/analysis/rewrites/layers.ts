// Which layer of the model a stretch of a step belongs to, by a marker kernel that runs once per layer
// (LightningIndexer, FlashAttentionScore …). Layer i is the stretch nearest to the i-th occurrence of the marker
// in the step, so a marker may come before or after the chain within its layer; where a rewrite's sites at the
// ends of the step tell which (LayerPhase), the layer follows it: the marker that starts the layer, or the one
// after the chain.
//
// Found automatically among the tokens that no rewrite touches and that run as often in the base's representative
// step as in the PR's (at least twice, and no more often than the largest rewrite has sites in a step, fused or
// not). First those that put each chain of the largest rewrite in a layer of its own; of them, those that split the step into the most equal layers (stretches between consecutive occurrences that
// repeat the one before kernel for kernel: a token twice per layer, AddRmsNorm, alternates two stretches, and one
// of some layers only, MoeGatingTopK, makes fewer); among them the one nearest, on average, to the sites of the
// rewrites (their chains in the base, what replaced them and where they still run in the PR). When no token
// repeats a stretch (a model of one or two layers, or of unlike ones), the one that runs most often, then the
// nearest. Ties: the one that runs more often, then by text. Then, as the cap on runs leaves out a kernel of every
// layer when the largest rewrite is of some layers only (the MoE gating of a model of dense layers then MoE layers),
// a token that runs more often than that cap is taken instead where it marks the layers of the one found and more
// (nests, alike): one of the found token's occurrences in each of a run of its layers, its other layers between two
// occurrences as long as those within a factor of two (not a prologue or the model's head), at least as many equal
// stretches, equal over the found token's equal ones, and each chain of the largest rewrite in a layer of its own;
// of several, the most equal, then the nearest, then by text. When no token within the cap puts each chain of the
// largest rewrite (two or more a step) in a layer of its own (a fusion of the dense layers only, which run as often as
// the embedding or the sampler), a token that runs more often and evenly (its stretches as long as each other within
// a factor of two) and does is taken: the most equal, then the nearest, then by text. `--layer-marker` names it.

/** The positions of `marker` in `tokens`, in order. */
export function markerPositions(tokens: Int32Array, marker: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < tokens.length; i++) if (tokens[i] === marker) out.push(i);
  return out;
}

/** The distance from the stretch [start, end) to position p (0 inside it). */
function distance(start: number, end: number, p: number): number {
  if (p < start) return start - p;
  if (p >= end) return p - (end - 1);
  return 0;
}

/** The first index of a sorted array whose value is at least v (the length when none is). */
export function firstAtLeast(a: ArrayLike<number>, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The index of the marker occurrence nearest to [start, end) (on a tie, the later one); null without markers. */
export function layerOf(positions: number[], start: number, end: number): number | null {
  if (positions.length === 0) return null;
  const lo = firstAtLeast(positions, start);
  let best = -1;
  let bestD = Number.POSITIVE_INFINITY;
  for (let i = Math.max(0, lo - 1); i <= lo + 1 && i < positions.length; i++) {
    const d = distance(start, end, positions[i]!);
    if (d < bestD || (d === bestD && i > best)) {
      best = i;
      bestD = d;
    }
  }
  return best;
}

/**
 * Where a rewrite's sites sit in their layers, as the sites at the ends of the step tell it: `after` the marker (it
 * starts each layer: a site is the layer of the last marker before it), `before` it (a site is the layer of the
 * first marker after it, as the MLA prolog before LightningIndexer), or `nearest` (layerOf) when no site tells or
 * they disagree. A site before the first marker can only be of the marker after it, one past the last marker only
 * of the marker before it: without them the nearest marker would take a chain at the end of a layer whose marker
 * starts it for the next layer's (and a fusion of every layer for one of layers 1 to n-1, the last twice).
 */
export type LayerPhase = 'after' | 'before' | 'nearest';

/** The phase that `sites` ([start, end) with the marker positions of their step) tell; see LayerPhase. */
export function layerPhase(sites: Iterable<{ markers: number[]; start: number; end: number }>): LayerPhase {
  let before = false;
  let after = false;
  for (const { markers, start, end } of sites) {
    if (markers.length === 0) continue;
    if (end <= markers[0]!) before = true;
    else if (start > markers[markers.length - 1]!) after = true;
  }
  return before === after ? 'nearest' : before ? 'before' : 'after';
}

/**
 * The layer of the stretch [start, end) under `phase`: the last marker before it (`after`), the first after it
 * (`before`), or the nearest (layerOf) for `nearest`, for a stretch that holds a marker, and where the phase
 * names no marker (before the first, past the last). null without markers.
 */
export function layerIn(positions: number[], start: number, end: number, phase: LayerPhase): number | null {
  if (positions.length === 0) return null;
  // The markers before `start`, and those before `end`: equal when no marker is inside the stretch.
  const b = firstAtLeast(positions, start);
  if (phase !== 'nearest' && b === firstAtLeast(positions, end)) {
    if (phase === 'after' && b > 0) return b - 1;
    if (phase === 'before' && b < positions.length) return b;
  }
  return layerOf(positions, start, end);
}

/** Σ over the sites of the distance to the nearest marker of its side (`pos`: the marker's positions per side). */
function distanceSum(pos: [number[], number[]], sites: MarkerSite[]): number {
  let sum = 0;
  for (const s of sites) {
    const p = pos[s.side];
    const i = layerOf(p, s.start, s.end)!;
    sum += distance(s.start, s.end, p[i]!);
  }
  return sum;
}

/** A stretch of a representative step that the marker should be near. */
export interface MarkerSite {
  side: 0 | 1;
  start: number;
  end: number;
}

/**
 * The automatic marker: see the top of this file. `reps`: the two representative steps (base, PR); `touched`:
 * tokens in any rewrite; `maxPerStep`: the most sites one rewrite has in a representative step.
 */
export function chooseMarker(
  reps: [Int32Array, Int32Array],
  touched: Set<number>,
  sites: MarkerSite[],
  maxPerStep: number,
  texts: string[],
  chainSites: MarkerSite[] = [],
  /** Filled with why the marker was chosen: `equal`, it splits the step into the most equal layers (else none does). */
  why: { equal: boolean } = { equal: false },
): number | null {
  if (sites.length === 0) return null;
  // Each token's positions in each step (a token's count is its number of positions), of the tokens that run
  // twice or more in the step: no rule below reads the others (a token once per step splits it into no layers),
  // and a step of a million distinct names would make a list and a Map entry each. Counted first, in an array
  // by token id (small integers: ids into a token table); positions kept in order of first position, as before.
  const positions: [Map<number, number[]>, Map<number, number[]>] = [new Map(), new Map()];
  let top = -1;
  for (const rep of reps) for (let i = 0; i < rep.length; i++) if (rep[i]! > top) top = rep[i]!;
  // (A Map of counts where the ids are many against the steps' length.)
  const dense = top < 4 * (reps[0].length + reps[1].length) + 1024;
  const counts = dense ? new Int32Array(top + 1) : new Map<number, number>();
  for (const side of [0, 1] as const) {
    const at = positions[side];
    const rep = reps[side];
    if (counts instanceof Int32Array) {
      counts.fill(0);
      for (let i = 0; i < rep.length; i++) counts[rep[i]!]!++;
    } else {
      counts.clear();
      for (let i = 0; i < rep.length; i++) counts.set(rep[i]!, (counts.get(rep[i]!) ?? 0) + 1);
    }
    for (let i = 0; i < rep.length; i++) {
      const t = rep[i]!;
      if ((counts instanceof Int32Array ? counts[t]! : counts.get(t)!) < 2) continue;
      const p = at.get(t);
      if (p === undefined) at.set(t, [i]);
      else p.push(i);
    }
  }
  // First the tokens that split the base's step into the most equal layers: stretches between consecutive
  // occurrences that repeat the stretch before them kernel for kernel (a token twice per layer, AddRmsNorm,
  // alternates two stretches; one of some layers only, MoeGatingTopK, has fewer). Among them, and when no token
  // repeats a stretch, the rule below.
  const rep = reps[0];
  const periods = new Periods(rep);
  // Before all: the tokens that put each chain of the largest rewrite in a layer of its own (a token at the end of
  // each layer is nearer the next layer's chain than its own, and puts two chains in one layer).
  // Each token looked at costs a pass over the chain's sites here and one over every site below (distanceSum): at
  // most 64 steps' worth in all, in order of first occurrence, so a step of many candidates and a rewrite of many
  // sites (made so: 100,000 kernels four times each and 50,000 sites took three minutes) cannot make this quadratic.
  // The candidates of a real step cost a small part of it; those past it are not candidates.
  const perToken = chainSites.length + sites.length;
  let looked = 0;
  const layersOf = new Map<number, number>();
  let mostLayers = 0;
  for (const [t, p0] of positions[0]) {
    const c = p0.length;
    if (c < 2 || c > maxPerStep || positions[1].get(t)?.length !== c || touched.has(t)) continue;
    looked += perToken;
    if (looked > 64 * (reps[0].length + reps[1].length)) break;
    const seen = new Set<number>();
    for (const site of chainSites) seen.add(layerOf(p0, site.start, site.end)!);
    layersOf.set(t, seen.size);
    mostLayers = Math.max(mostLayers, seen.size);
  }
  const equalOf = new Map<number, number>();
  let mostEqual = 0;
  for (const [t, p0] of positions[0]) {
    if (p0.length < 3 || layersOf.get(t) !== mostLayers) continue;
    const equal = equalStretches(periods, p0);
    equalOf.set(t, equal);
    mostEqual = Math.max(mostEqual, equal);
  }
  let best: number | null = null;
  let bestScore = Number.POSITIVE_INFINITY;
  let bestCount = 0;
  for (const [t, p0] of positions[0]) {
    const c = p0.length;
    if (c < 2 || c > maxPerStep || positions[1].get(t)?.length !== c || touched.has(t)) continue;
    if (layersOf.get(t) !== mostLayers || (mostEqual > 0 && equalOf.get(t) !== mostEqual)) continue;
    const score = distanceSum([p0, positions[1].get(t)!], sites) / sites.length;
    // Without equal layers, once per site of the largest rewrite (fused or not) first: a token of some layers only
    // runs less often. With them, the nearest to the sites.
    const better =
      mostEqual === 0
        ? c > bestCount || (c === bestCount && (score < bestScore || (score === bestScore && best !== null && texts[t]! < texts[best]!)))
        : score < bestScore || (score === bestScore && (c > bestCount || (c === bestCount && best !== null && texts[t]! < texts[best]!)));
    if (better) {
      best = t;
      bestScore = score;
      bestCount = c;
    }
  }
  why.equal = best !== null && mostEqual > 0;
  // No token within the cap puts each chain in a layer of its own (a fusion of the dense layers only: what runs as
  // often as they do is the embedding or the sampler, once per model): one of every layer does.
  if (chainSites.length >= 2 && (best === null || mostLayers < chainSites.length)) {
    const every = everyLayer(positions, periods, touched, maxPerStep, chainSites, sites, texts, 64 * rep.length);
    if (every !== null) {
      why.equal = every.equal > 0;
      return every.token;
    }
  }
  if (best === null) return best;
  // A kernel of every layer where the one found runs in some layers only (the MoE layers of a dense-then-MoE model,
  // when the largest rewrite is of those layers and so has fewer sites than the model has layers): see nests, alike.
  const narrow = positions[0].get(best)!;
  const narrowSame = narrow.map((_, j) => same(periods, narrow, j));
  let wide: number | null = null;
  let wideEqual = equalOf.get(best) ?? 0;
  let wideScore = Number.POSITIVE_INFINITY;
  // Each token that nests the one found compares up to twice its span kernel for kernel (alike, equalStretches): at
  // most 64 steps' worth in all, in order of first occurrence, so a step of many tokens that each run once in every
  // layer of the one found (made so) cannot make this quadratic.
  let work = 0;
  for (const [t, p0] of positions[0]) {
    const c = p0.length;
    if (c <= maxPerStep || positions[1].get(t)?.length !== c || touched.has(t)) continue;
    const first = nests(p0, narrow);
    if (first < 0) continue;
    work += 2 * (p0[c - 1]! - p0[0]!);
    if (work > 64 * rep.length) break;
    if (!alike(periods, p0, narrowSame, first)) continue;
    const seen = new Set<number>();
    for (const site of chainSites) seen.add(layerOf(p0, site.start, site.end)!);
    if (seen.size !== mostLayers) continue;
    const equal = equalStretches(periods, p0);
    if (equal < wideEqual) continue;
    const score = distanceSum([p0, positions[1].get(t)!], sites) / sites.length;
    if (wide === null || equal > wideEqual || score < wideScore || (score === wideScore && texts[t]! < texts[wide]!)) {
      wide = t;
      wideEqual = equal;
      wideScore = score;
    }
  }
  if (wide === null) return best;
  why.equal = wideEqual > 0;
  return wide;
}

/**
 * Of the tokens that run more often than `maxPerStep`, as often on both sides and in no rewrite, the one that puts
 * each of `chainSites` in a layer of its own and runs evenly (a kernel of every layer, not twice in the first as an
 * input norm): the most equal, then the nearest, then by text; null when none does. `budget`: work in all.
 */
function everyLayer(
  positions: [Map<number, number[]>, Map<number, number[]>],
  periods: Periods,
  touched: Set<number>,
  maxPerStep: number,
  chainSites: MarkerSite[],
  sites: MarkerSite[],
  texts: string[],
  budget: number,
): { token: number; equal: number } | null {
  let best: { token: number; equal: number; score: number } | null = null;
  let work = 0;
  for (const [t, p0] of positions[0]) {
    const c = p0.length;
    if (c <= maxPerStep || positions[1].get(t)?.length !== c || touched.has(t)) continue;
    work += p0[c - 1]! - p0[0]! + chainSites.length + sites.length;
    if (work > budget) break;
    const seen = new Set<number>();
    for (const site of chainSites) seen.add(layerOf(p0, site.start, site.end)!);
    if (seen.size !== chainSites.length || !evenly(p0)) continue;
    const equal = equalStretches(periods, p0);
    const score = distanceSum([p0, positions[1].get(t)!], sites) / sites.length;
    const tie = best !== null && equal === best.equal && (score < best.score || (score === best.score && texts[t]! < texts[best.token]!));
    if (best === null || equal > best.equal || tie) best = { token: t, equal, score };
  }
  return best === null ? null : { token: best.token, equal: best.equal };
}

/** Whether the stretches between consecutive positions are all as long as their median within a factor of two. */
function evenly(p: number[]): boolean {
  const gaps = p.slice(1).map((x, i) => x - p[i]!);
  const median = [...gaps].sort((a, b) => a - b)[gaps.length >> 1]!;
  return gaps.every((g) => 2 * g >= median && g <= 2 * median);
}

/**
 * The stretches between consecutive positions `p` of a marker in `rep` that repeat the stretch before them kernel for
 * kernel (see the top of this file).
 */
function equalStretches(rep: Periods, p: number[]): number {
  let equal = 0;
  for (let i = 2; i < p.length; i++) if (same(rep, p, i)) equal++;
  return equal;
}

/** Whether the stretch from p[i-1] to p[i] repeats the one before it kernel for kernel (false for i < 2 or past p). */
function same(rep: Periods, p: number[], i: number): boolean {
  if (i < 2 || i >= p.length) return false;
  const g = p[i]! - p[i - 1]!;
  return g === p[i - 1]! - p[i - 2]! && rep.repeats(p[i - 1]!, g);
}

/** The periods whose repeats are told by their marks (Periods) at most: 4 bytes a kernel of the step each. */
const MARKED_PERIODS = 16;

/**
 * A step, and whether a stretch of it repeats the one right before it. Kernel by kernel at first; a period whose
 * comparisons have cost as much as the step is long gets marks instead (how many kernels before each position
 * differ from the one a period earlier), and its stretches are then told at once. A step of one block of distinct
 * kernels repeated (made so) has every kernel a candidate whose stretches repeat for the whole block: compared
 * kernel by kernel, a block of 100,000 kernels four times was 2 × 10^10 comparisons, half a minute.
 */
class Periods {
  private readonly cost = new Map<number, number>();
  private readonly marks = new Map<number, Int32Array>();

  constructor(readonly rep: Int32Array) {}

  /** Whether rep[a, a + g) repeats rep[a - g, a) (a ≥ g, a + g ≤ its length). */
  repeats(a: number, g: number): boolean {
    const rep = this.rep;
    const m = this.marks.get(g) ?? this.marked(g);
    if (m !== null) return m[a + g]! === m[a]!;
    for (let j = 0; j < g; j++) if (rep[a + j] !== rep[a - g + j]) return false;
    return true;
  }

  /** The marks of period g, made once its comparisons have cost the step's length (up to MARKED_PERIODS); else null. */
  private marked(g: number): Int32Array | null {
    const spent = (this.cost.get(g) ?? 0) + g;
    this.cost.set(g, spent);
    if (spent < this.rep.length || this.marks.size >= MARKED_PERIODS) return null;
    const rep = this.rep;
    const m = new Int32Array(rep.length + 1);
    for (let x = 0; x < rep.length; x++) m[x + 1] = m[x]! + (x >= g && rep[x] !== rep[x - g] ? 1 : 0);
    this.marks.set(g, m);
    return m;
  }
}

/**
 * Whether the kernel at `wide` (more positions) marks the layers of the step where the one at `narrow` marks some of
 * them only, by where they run: each of its layers (the stretches from one occurrence to the next, and before the
 * first and after the last) holds at most one of `narrow`, those that hold one are consecutive (the layers of
 * `narrow` are a run of the model's, as the MoE layers after the dense ones), and each of its layers between two
 * occurrences that holds none is as long as the others within a factor of two (a layer of another kind, not a
 * prologue or the model's head). The index of its stretch that holds narrow's first occurrence, or -1.
 */
function nests(wide: number[], narrow: number[]): number {
  if (wide.length <= narrow.length) return -1;
  const first = firstAtLeast(wide, narrow[0]!);
  for (let j = 1; j < narrow.length; j++) if (firstAtLeast(wide, narrow[j]!) !== first + j) return -1;
  // Stretch k (1 ≤ k < wide.length) runs from wide[k-1] to wide[k]; it holds narrow's occurrence k - first.
  const holds = (k: number) => k >= first && k < first + narrow.length;
  const lengths: number[] = [];
  for (let k = 1; k < wide.length; k++) if (holds(k)) lengths.push(wide[k]! - wide[k - 1]!);
  if (lengths.length === 0) return -1;
  lengths.sort((a, b) => a - b);
  const median = lengths[lengths.length >> 1]!;
  for (let k = 1; k < wide.length; k++) {
    if (holds(k)) continue;
    const g = wide[k]! - wide[k - 1]!;
    if (2 * g < median || g > 2 * median) return -1;
  }
  return first;
}

/**
 * Whether, where a stretch of the narrow marker repeats the one before it (`narrowSame`, by its index), so does one of
 * `wide` over the same layers (its stretch that ends in the layer of narrow's stretch's end, or the one before:
 * the narrow one may run before or after `wide` in a layer); `first`: as nests returned.
 */
function alike(rep: Periods, wide: number[], narrowSame: boolean[], first: number): boolean {
  for (let j = 2; j < narrowSame.length; j++) {
    if (narrowSame[j]! && !same(rep, wide, first + j - 1) && !same(rep, wide, first + j)) return false;
  }
  return true;
}
