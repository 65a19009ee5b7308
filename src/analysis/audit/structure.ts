// Where a site of the audit is in the model: its step's phase (prefill or decode) and its layer, the decoder
// layers numbered as the rewrites engine numbers them (analysis/rewrites/layers.ts) and an MTP layer apart.
//
// Phase of a step: the Stage cell of the rank's step_trace_time.csv when it holds a phase word (prefill, decode;
// every real export seen so far writes a time there, in µs, and then says nothing of the phase), else the step's
// attention kernels: a prefill attention kernel type (PromptFlashAttention, FlashAttentionScore, RingMla …) and no
// decode one is prefill, a decode one (IncreFlashAttention, PagedAttention …) is decode, neither (or a training step,
// with a backward kernel such as FlashAttentionScoreGrad) is `step` (no phase can be told).
//
// Layers: the layer marker is chosen among the kernels that put the sites of the most entries one to a layer, and run
// the fewest times (laneMarker), by the rewrites engine's rule (chooseMarker: a kernel that no catalogue site
// takes, that puts each site of an entry in a layer of its own, then splits the step into the most
// equal layers) in the lane's most frequent step shape; a site's layer is told as the rewrites engine tells it
// (layerPhase, layerIn): where an entry's sites (fused and unfused) at the ends of the steps say that the marker
// starts each layer (a site past the last marker) or ends it (a site before the first), a site is in the layer of
// the marker before it or after it; else of the marker occurrence nearest to it (layerOf). The MTP layer: the last occurrence of the marker, when the stretch before it (from the marker before)
// holds a kernel type that no other stretch between two markers of the step holds (the main model's head and
// sampling, then the MTP layer's own projection, which no decoder layer runs), the same type in every step of the
// lane (a stray kernel of one step is not an MTP layer); kernels of catalogue sites (fused or
// unfused) are left out of the stretches, so a fallback in the last decoder layer does not make it look like MTP.
// Its sites are in phase `mtp`, layer 0. With fewer than three occurrences there is nothing to compare: no MTP
// layer is told. Limit: in a model of few layers whose last layer is the first of its kind (two dense layers then
// one MoE layer, no MTP), the last layer is taken for an MTP layer.

import { chooseMarker, layerIn, layerPhase, markerPositions, type LayerPhase, type MarkerSite } from '../rewrites/layers.js';
import { isKprofError } from '../../util/errors.js';
import { stepTimeColumn } from '../../input/formats/readers.js';

export const PHASES = ['prefill', 'decode', 'step', 'mtp'] as const;
export type Phase = (typeof PHASES)[number];

/** Attention kernel types of the prefill (full prompt) and of the decode (one token per sequence). */
const PREFILL_ATTENTION = new Set([
  'PromptFlashAttention',
  'FlashAttentionScore',
  'RingMla',
  'RingMLA',
  'RingAttentionUpdate',
  'FlashAttentionScoreGrad',
]);
const DECODE_ATTENTION = new Set(['IncreFlashAttention', 'PagedAttention', 'PagedAttentionMaskNd', 'MlaV2', 'Mla', 'FusedInferAttentionScoreDecode']);

/** The phase of a step shape from its attention kernels (see the top of this file). */
export function phaseOfShape(tokens: Int32Array, texts: string[]): Phase {
  let prefill = false;
  let decode = false;
  const seen = new Set<number>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (seen.has(t)) continue;
    seen.add(t);
    const text = texts[t]!;
    // A training step (a backward kernel: FlashAttentionScoreGrad …) is neither prefill nor decode.
    if (text.endsWith('Grad')) return 'step';
    if (PREFILL_ATTENTION.has(text)) prefill = true;
    else if (DECODE_ATTENTION.has(text)) decode = true;
  }
  return decode ? 'decode' : prefill ? 'prefill' : 'step';
}

/** A phase word of a Stage cell, or null (a time, as real exports write it). */
export function stageWord(cell: string): 'prefill' | 'decode' | null {
  const w = cell.trim().toLowerCase();
  if (w === 'prefill' || w === 'prompt' || w === 'context') return 'prefill';
  if (w === 'decode' || w === 'decoding' || w === 'generate') return 'decode';
  return null;
}

/**
 * Per Step Id, the phase word of the Stage column of the step-time file beside each kernel table of a rank (only
 * rows whose Stage cell is a phase word); empty without one. The file is read by its format's reader (readers.ts
 * stepTimeColumn: the CSV scanner, so quoted cells, CRLF and a BOM read as in every CSV). A file that cannot be
 * read gives no phases (they are then told by the attention kernels).
 */
export function stagePhases(kernelTables: { path: string; format: string }[]): Map<number, 'prefill' | 'decode'> {
  const out = new Map<number, 'prefill' | 'decode'>();
  for (const table of kernelTables) {
    let stages: Map<number, string> | null;
    try {
      stages = stepTimeColumn(table.format, table.path, 'Stage');
    } catch (e) {
      if (isKprofError(e)) continue;
      throw e;
    }
    for (const [step, cell] of stages ?? []) {
      const w = stageWord(cell);
      if (w !== null) out.set(step, w);
    }
  }
  return out;
}

/** The layers of one step shape: the marker's positions and whether the last occurrence is the MTP layer. */
export interface ShapeLayers {
  positions: number[];
  mtp: boolean;
  /** The kernel types of the last stretch that no other stretch holds (null: fewer than three occurrences). */
  unique: Set<number> | null;
}

/**
 * The marker of one lane (a recorded part), from its most frequent shape and the catalogue sites in it, per entry
 * (`entrySites`: each per-layer entry's sites). A kernel that runs once per layer puts the sites of each entry that
 * runs at most once per layer in layers of their own, whatever layers the entry runs in: of the kernels no site takes,
 * those that do so for the most sites (summed over such entries), and of them those that run the fewest times, are
 * left to the rewrites engine's rule, with the largest such entry as the one it puts a site to a layer. Counting one
 * entry only, as that rule does, an entry of two sites per layer (GroupedMatmul in each MoE layer) or of the MoE
 * layers only favoured a kernel of those layers (the MoE gate's MatMulV3), numbering the layers from the first MoE
 * layer; and a kernel of more than once in some layers (BatchMatMulV3 of the attention and of a chain) did as well as
 * one of once in each. Without a kernel that does so for any entry, the rule alone, on the entry with most sites.
 */
export function laneMarker(rep: Int32Array, entrySites: MarkerSite[][], touched: Set<number>, texts: string[]): number | null {
  const sites = entrySites.flat();
  if (sites.length === 0) return null;
  const entries = entrySites.filter((e) => e.length > 0).sort((a, b) => b.length - a.length);
  const positions = new Map<number, number[]>();
  for (let i = 0; i < rep.length; i++) {
    const t = rep[i]!;
    if (touched.has(t)) continue;
    const p = positions.get(t);
    if (p === undefined) positions.set(t, [i]);
    else p.push(i);
  }
  // Each site in the layer the marker tells, as the audit places it (layerPhase: a marker that starts or ends its layer).
  const alone = (p: number[], e: MarkerSite[]): boolean => {
    const phase = layerPhase(e.map((s) => ({ markers: p, start: s.start, end: s.end })));
    const seen = new Set<number>();
    for (const s of e) seen.add(layerIn(p, s.start, s.end, phase)!);
    return seen.size === e.length;
  };
  const scores = new Map<number, number>();
  let split: MarkerSite[] | null = null;
  let best = 0;
  for (const [t, p] of positions) {
    if (p.length < 2) continue;
    let score = 0;
    for (const e of entries) {
      if (e.length < 2 || p.length < e.length || !alone(p, e)) continue;
      score += e.length;
      if (split === null || e.length > split.length) split = e;
    }
    if (score === 0) continue;
    scores.set(t, score);
    best = Math.max(best, score);
  }
  if (split === null) return chooseMarker([rep, rep], touched, sites, entries[0]!.length, texts, entries[0]!);
  let fewest = Number.POSITIVE_INFINITY;
  for (const [t, score] of scores) if (score === best) fewest = Math.min(fewest, positions.get(t)!.length);
  const left = new Set(touched);
  for (const t of positions.keys()) if (scores.get(t) !== best || positions.get(t)!.length !== fewest) left.add(t);
  return chooseMarker([rep, rep], left, sites, Math.max(entries[0]!.length, fewest), texts, split);
}

/** The layers of a shape under a marker (see the top of this file). */
export function shapeLayers(tokens: Int32Array, marker: number | null, taken: Uint8Array): ShapeLayers {
  if (marker === null) return { positions: [], mtp: false, unique: null };
  const p = markerPositions(tokens, marker);
  if (p.length < 3) return { positions: p, mtp: false, unique: null };
  const stretch = (i: number): Set<number> => {
    const s = new Set<number>();
    for (let j = p[i - 1]! + 1; j < p[i]!; j++) if (taken[j] !== 1) s.add(tokens[j]!);
    return s;
  };
  const last = stretch(p.length - 1);
  const others = new Set<number>();
  for (let i = 1; i < p.length - 1; i++) for (const t of stretch(i)) others.add(t);
  const unique = new Set<number>();
  for (const t of last) if (!others.has(t)) unique.add(t);
  return { positions: p, mtp: false, unique };
}

/**
 * The MTP layer of a lane's shapes: a kernel type that the last stretch of every shape with catalogue sites holds
 * and no other stretch of it does (the same type in every step: one step's stray kernel is not an MTP layer).
 */
export function mtpLayers(layers: ShapeLayers[], withSites: boolean[]): ShapeLayers[] {
  let common: number[] | null = null;
  for (let i = 0; i < layers.length; i++) {
    if (!withSites[i]) continue;
    const u = layers[i]!.unique;
    if (u === null) continue;
    common = common === null ? [...u] : common.filter((t) => u.has(t));
  }
  if (common === null || common.length === 0) return layers;
  const mark: number[] = common;
  return layers.map((l) => (l.unique !== null && mark.every((t) => l.unique!.has(t)) ? { ...l, mtp: true } : l));
}

/**
 * Where a site [start, end) of a shape is, its entry's sites telling `phase` (layerPhase): decoder layer n, or the
 * MTP layer (layer 0 of phase mtp); null: no marker.
 */
export function siteLayer(l: ShapeLayers, start: number, end: number, phase: LayerPhase): { layer: number | null; mtp: boolean } {
  const i = layerIn(l.positions, start, end, phase);
  if (i === null) return { layer: null, mtp: false };
  if (l.mtp && i === l.positions.length - 1) return { layer: 0, mtp: true };
  return { layer: i, mtp: false };
}
