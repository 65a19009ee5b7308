// Which layer of the model a stretch of a step belongs to, by a marker kernel that runs once per layer
// (LightningIndexer, FlashAttentionScore …). Layer i is the stretch nearest to the i-th occurrence of the marker
// in the step, so a marker may come before or after the chain within its layer.
//
// Found automatically among the tokens that no rewrite touches and that run as often in the base's representative
// step as in the PR's (at least twice, and no more often than the most sites one rewrite has in a step): the one
// nearest, on average, to the sites of the rewrites (their chains in the base, what replaced them and where they
// still run in the PR). Ties: the one that runs more often, then by text. `--layer-marker` names it instead.

/** The positions of `marker` in `tokens`, in order. */
export function markerPositions(tokens: Int32Array, marker: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < tokens.length; i++) if (tokens[i] === marker) out.push(i);
  return out;
}

/**
 * The modal gap between consecutive marker positions and how many gaps have it (ties: the longer gap): a marker
 * that runs once per layer splits the repeated layers into equal stretches.
 */
export function modalGap(positions: number[]): { gap: number; count: number } {
  const counts = new Map<number, number>();
  for (let i = 1; i < positions.length; i++) {
    const g = positions[i]! - positions[i - 1]!;
    counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  let gap = 0;
  let count = 0;
  for (const [g, c] of counts) if (c > count || (c === count && g > gap)) [gap, count] = [g, c];
  return { gap, count };
}

/** The marker's positions in a step, and where each layer starts when the layers repeat (see layerStarts). */
export interface Layers {
  positions: number[];
  /** Start of each layer (one per marker), null when the marker does not split the step into equal layers. */
  starts: number[] | null;
  /** The middle of each layer (its start and half the modal gap): a stretch belongs to the nearest. */
  centres: number[] | null;
}

/**
 * Where the layers of a step start, by the marker's positions. When at least two gaps between consecutive markers
 * are equal (layers that repeat), the layer of the i-th marker starts where the step's repetition starts: the
 * tokens before the first marker that match those before the second (at most a gap's worth), the same offset
 * before every marker. A marker at a layer's start (AddRmsNorm) or in its middle (LightningIndexer) gives the
 * same layers. Otherwise null: each stretch goes to the nearest marker.
 */
export function layerStarts(tokens: Int32Array, marker: number): Layers {
  const positions = markerPositions(tokens, marker);
  if (positions.length < 3 || modalGap(positions).count < 2) return { positions, starts: null, centres: null };
  // The offset: how far back of the first marker the tokens repeat those back of the second.
  const m0 = positions[0]!;
  const m1 = positions[1]!;
  let phase = 0;
  while (phase < m1 - m0 - 1 && m0 - phase - 1 >= 0 && tokens[m0 - phase - 1] === tokens[m1 - phase - 1]) phase++;
  const half = Math.floor(modalGap(positions).gap / 2);
  return { positions, starts: positions.map((p) => p - phase), centres: positions.map((p) => p - phase + half) };
}

/** The layer (0-based) of the stretch [start, end): see layerStarts; null without markers. */
export function layerAt(layers: Layers, start: number, end: number): number | null {
  // Nearest to the middle of a layer: a last layer unlike the others (the MTP layer, its chain shorter) keeps its
  // chain, which a fixed offset from its marker would give to the layer before.
  return layerOf(layers.centres ?? layers.positions, start, end);
}

/** The distance from the stretch [start, end) to position p (0 inside it). */
function distance(start: number, end: number, p: number): number {
  if (p < start) return start - p;
  if (p >= end) return p - (end - 1);
  return 0;
}

/** The index of the marker occurrence nearest to [start, end) (on a tie, the later one); null without markers. */
export function layerOf(positions: number[], start: number, end: number): number | null {
  if (positions.length === 0) return null;
  // Binary search for the first marker at or after `start`.
  let lo = 0;
  let hi = positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (positions[mid]! < start) lo = mid + 1;
    else hi = mid;
  }
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
): number | null {
  if (sites.length === 0) return null;
  // Each token's positions in each step, in one pass (a token's count is its number of positions).
  const positions: [Map<number, number[]>, Map<number, number[]>] = [new Map(), new Map()];
  for (const side of [0, 1] as const) {
    const at = positions[side];
    const rep = reps[side];
    for (let i = 0; i < rep.length; i++) {
      const t = rep[i]!;
      const p = at.get(t);
      if (p === undefined) at.set(t, [i]);
      else p.push(i);
    }
  }
  // First choice: the token that splits the base's step into equal layers: the most stretches between consecutive
  // occurrences that repeat the stretch before them kernel for kernel (a token twice per layer, AddRmsNorm,
  // alternates two stretches; one of some layers only leaves most of the step out, so the count breaks ties).
  let best: number | null = null;
  let bestEqual = 0;
  const rep = reps[0];
  for (const [t, p0] of positions[0]) {
    const c = p0.length;
    if (c < 3 || c > maxPerStep || positions[1].get(t)?.length !== c || touched.has(t)) continue;
    let equal = 0;
    for (let i = 2; i < c; i++) {
      const g = p0[i]! - p0[i - 1]!;
      if (g === p0[i - 1]! - p0[i - 2]! && rep.subarray(p0[i - 1]!, p0[i]!).every((x, j) => x === rep[p0[i - 2]! + j])) equal++;
    }
    if (equal === 0) continue;
    if (equal > bestEqual || (equal === bestEqual && best !== null && (c > positions[0].get(best)!.length || (c === positions[0].get(best)!.length && texts[t]! < texts[best]!)))) {
      best = t;
      bestEqual = equal;
    }
  }
  if (best !== null) return best;
  let bestScore = Number.POSITIVE_INFINITY;
  let bestCount = 0;
  for (const [t, p0] of positions[0]) {
    const c = p0.length;
    if (c < 2 || c > maxPerStep || positions[1].get(t)?.length !== c || touched.has(t)) continue;
    const score = distanceSum([p0, positions[1].get(t)!], sites) / sites.length;
    // Once per site of the largest rewrite (fused or not) first: a token of some layers only runs less often.
    const better =
      c > bestCount || (c === bestCount && (score < bestScore || (score === bestScore && best !== null && texts[t]! < texts[best]!)));
    if (better) {
      best = t;
      bestScore = score;
      bestCount = c;
    }
  }
  return best;
}
