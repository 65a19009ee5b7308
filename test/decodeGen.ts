// A generator of decode-step kernel sequences (DeepSeek/GLM-style: decoder layers, optionally an MTP layer) with a
// known truth, for the rewrites engine: the PR replaces the MLA-prolog chain of each layer by one MlaPrologV3 and,
// optionally, drops a duplicate `MatMulV3 Slice` right after it (two independent edits next to each other). The
// MTP layer keeps the unfused prolog (with ScatterPaKvCache, so it is 2 edits from the chain). Fusion may be partial
// by rank, step and layer; a fused layer may keep one kernel of the chain beside the fused one (`kept`), and a side
// may not have profiled a step (`missing`); a layer not fused whole may have only the middle of its chain fused
// (`inner`: a rewrite inside the longer one). Or the PR fuses the MoE gating of the MoE layers instead (`moe`: a chain
// of some layers only; the MTP layer keeps it unfused). Deterministic (a seeded PRNG for durations, or each type's
// mean: `fixed`).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SequenceRecorder, type Sequences } from '../src/analysis/rewrites/sequence.js';

export const CHAIN = [
  'QuantBatchMatmulV3',
  'RmsNorm',
  'RmsNorm',
  'DynamicQuant',
  'QuantBatchMatmulV3',
  'BatchMatMulV3',
  'InterleaveRope',
  'InterleaveRope',
  'Cast',
  'Cast',
  'DynamicBlockQuant',
  'ScatterNdUpdate',
  'ScatterNdUpdate',
];
export const FUSED = 'MlaPrologV3';
export const DUP = ['MatMulV3', 'Slice'];
/** The part of CHAIN a layer the PR did not fuse whole may fuse alone (DecodeSpec.inner), and what replaces it. */
export const INNER = CHAIN.slice(6, 10);
export const INNER_FUSED = 'InterleaveRopeCast';
/** The MoE gating the PR fuses in the MoE layers under DecodeSpec.moe (inside MOE), and what replaces it. */
export const MOE_CHAIN = ['MoeGatingTopK', 'DynamicQuant'];
export const MOE_FUSED = 'MoeGatingTopKQuant';
const ATTENTION = ['LightningIndexer', 'SparseFlashAttention', 'BatchMatMulV3', 'DynamicQuant', 'QuantBatchMatmulV3'];
const MOE = [
  'MatMulV3',
  'MoeGatingTopK',
  'DynamicQuant',
  'MoeInitRoutingV3',
  'GroupedMatmul',
  'DequantSwigluQuant',
  'GroupedMatmul',
  'MoeFinalizeRoutingV2',
];
const DENSE = ['DynamicQuant', 'QuantBatchMatmulV3', 'SwiGlu', 'DynamicQuant', 'QuantBatchMatmulV3'];

export interface DecodeSpec {
  layers: number;
  /** Leading dense layers (the rest MoE). */
  dense: number;
  mtp: boolean;
  /** The PR also drops the duplicate MatMulV3 Slice after each fused prolog. */
  dup: boolean;
  ranks: number;
  steps: number;
  /** The chain the PR fuses (default CHAIN; a prefix of 3 or more of it keeps the step unambiguous). */
  chain?: readonly string[];
  /** Whether the PR fused layer `layer` of `step` (0-based index) on `rank`; default: every one. */
  fused?: (rank: number, step: number, layer: number) => boolean;
  /**
   * Whether the base fused that layer already (default: none). The truth's figures (`DecodeTruth`) count the PR's
   * fused layers only: a test that sets this reckons its own.
   */
  baseFused?: (rank: number, step: number, layer: number) => boolean;
  /**
   * In a fused layer of the PR, the index (in the chain) of a kernel that still runs beside the fused one (before it
   * for the first half of the chain, after it for the rest), or null (default: none). The chain is fused all the
   * same: its kernels but that one are gone.
   */
  kept?: (rank: number, step: number, layer: number) => number | null;
  /**
   * Whether the PR, in a layer it did not fuse whole, fuses INNER alone into INNER_FUSED (a rewrite inside the longer
   * one); default: none. Default chain only.
   */
  inner?: (rank: number, step: number, layer: number) => boolean;
  /**
   * The PR fuses MOE_CHAIN into MOE_FUSED in the MoE layers (those `fused` says of them) and leaves the MLA prolog
   * unfused; the MTP layer keeps the gating unfused. The truth's fused layers are then MoE layers only.
   */
  moe?: boolean;
  /** Each kernel takes its type's mean duration exactly (no noise): a chain's time is the same in every layer. */
  fixed?: boolean;
  /** Whether `side` (0 base, 1 PR) did not profile step `step` (0-based) of `rank`; default: it did. */
  missing?: (side: 0 | 1, rank: number, step: number) => boolean;
  /** The Step Id `side` gives step `step` (0-based); default step + 1 on both sides (two runs may number them apart). */
  stepId?: (side: 0 | 1, step: number) => number;
  seed?: number;
}

/** A seeded PRNG (mulberry32), as the fixtures' generators use. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The kernels (types) of one step; `fusedLayer(l)`: whether layer l is fused (PR side); `keptIn(l)`: the index in the
 * chain of the kernel a fused layer l keeps beside the fused one (DecodeSpec.kept), or null.
 */
export function decodeStep(
  spec: DecodeSpec,
  pr: boolean,
  fusedLayer: (layer: number) => boolean,
  keptIn: (layer: number) => number | null = () => null,
  keptAt: number[] = [],
  innerLayer: (layer: number) => boolean = () => false,
): string[] {
  const out = ['GatherV2'];
  const chain = spec.chain ?? CHAIN;
  for (let l = 0; l < spec.layers; l++) {
    if (spec.moe === true) {
      const fused = pr && l >= spec.dense && fusedLayer(l);
      out.push(l === 0 ? 'RmsNorm' : 'AddRmsNorm', 'DynamicQuant', ...chain, ...DUP, ...DUP, ...ATTENTION, 'AddRmsNorm');
      // MOE_CHAIN is MOE's second and third kernels.
      out.push(...(l < spec.dense ? DENSE : fused ? [MOE[0]!, MOE_FUSED, ...MOE.slice(3)] : MOE));
      continue;
    }
    const fused = pr && fusedLayer(l);
    out.push(l === 0 ? 'RmsNorm' : 'AddRmsNorm', 'DynamicQuant');
    const kept = fused ? keptIn(l) : null;
    const before = kept !== null && kept * 2 < chain.length ? [chain[kept]!] : [];
    const after = kept !== null && kept * 2 >= chain.length ? [chain[kept]!] : [];
    if (kept !== null) keptAt.push(out.length + (before.length > 0 ? 0 : 1));
    if (fused) out.push(...before, FUSED, ...after, ...DUP, ...(spec.dup ? [] : DUP));
    else if (pr && innerLayer(l)) out.push(...CHAIN.slice(0, 6), INNER_FUSED, ...CHAIN.slice(10), ...DUP, ...DUP);
    else out.push(...(spec.chain ?? CHAIN), ...DUP, ...DUP);
    out.push(...ATTENTION, 'AddRmsNorm', ...(l < spec.dense ? DENSE : MOE));
  }
  out.push('AddRmsNorm', 'MatMulV3', 'ArgMaxV2');
  if (spec.mtp) {
    out.push(
      'RmsNorm',
      'ConcatD',
      'MatMulV3',
      'DynamicQuant',
      ...(spec.chain ?? CHAIN).slice(0, -2),
      'ScatterPaKvCache',
      ...ATTENTION,
      'AddRmsNorm',
      ...MOE,
    );
    out.push('RmsNorm', 'MatMulV3', 'ArgMaxV2');
  }
  return out;
}

/** Mean duration of a kernel type, ticks (0.1 ns). */
export const MEAN: Record<string, number> = {
  MlaPrologV3: 338_000,
  InterleaveRopeCast: 90_000,
  QuantBatchMatmulV3: 170_000,
  GroupedMatmul: 800_000,
  MatMulV3: 75_000,
};

export interface DecodeTruth {
  /** Fused layers per rank and step (of the PR; [] for a step the PR did not profile). */
  fusedLayers: number[][][];
  /** The chains fused over all steps and ranks, in the steps both sides profiled. */
  chains: number;
  /** Chains fused per step (over the steps both sides profiled, of the ranks that fused any): the least and most. */
  perStep: { min: number; max: number };
  /** Kernels of the chain kept beside a fused one, in the steps both sides profiled. */
  kept: number;
  /** Of those, the steps ((rank, step) pairs) with one. */
  keptSteps: number;
  /** Σ of those kernels' durations (ticks). */
  keptTicks: number;
  /** The layers fused in some step of some rank. */
  layers: number[];
  /** Ranks with a fused layer. */
  ranks: string[];
  /** Σ of durations of each kernel type per side (ticks). */
  time: [Map<string, number>, Map<string, number>];
}

/** The two sides' sequences (Step Ids 1..steps unless DecodeSpec.stepId says otherwise, stream 2) and the truth. */
export function decodePair(spec: DecodeSpec): {
  base: Sequences;
  pr: Sequences;
  truth: DecodeTruth;
  steps: [string[][][], string[][][]];
  /** Each kernel's duration (ticks), as steps holds its type: [side][rank][step][kernel]. */
  durations: [number[][][], number[][][]];
} {
  const fusedOf = spec.fused ?? (() => true);
  const baseFusedOf = spec.baseFused ?? (() => false);
  const keptOf = spec.kept ?? (() => null);
  const innerOf = spec.inner ?? (() => false);
  const missingOf = spec.missing ?? (() => false);
  const stepIdOf = spec.stepId ?? ((_side: 0 | 1, step: number) => step + 1);
  const rand = prng(spec.seed ?? 1);
  const recs = [new SequenceRecorder('type'), new SequenceRecorder('type')];
  const time: [Map<string, number>, Map<string, number>] = [new Map(), new Map()];
  const fusedLayers: number[][][] = [];
  const steps: [string[][][], string[][][]] = [[], []];
  const durations: [number[][][], number[][][]] = [[], []];
  let keptTicks = 0;
  for (const side of [0, 1] as const) {
    const rec = recs[side]!;
    for (let rank = 0; rank < spec.ranks; rank++) {
      const r = rec.rank(String(rank));
      const s = rec.stream('2');
      let t = 0;
      if (side === 1) fusedLayers.push([]);
      steps[side].push([]);
      durations[side].push([]);
      for (let step = 0; step < spec.steps; step++) {
        // A step the side did not profile: no kernels (its Step Id is not written).
        const absent = missingOf(side, rank, step);
        const keptAt: number[] = [];
        const kernels = absent
          ? []
          : decodeStep(
              spec,
              side === 1 || spec.baseFused !== undefined,
              (l) => (side === 1 ? fusedOf(rank, step, l) : baseFusedOf(rank, step, l)),
              (l) => (side === 1 ? keptOf(rank, step, l) : null),
              keptAt,
              (l) => side === 1 && innerOf(rank, step, l),
            );
        const paired = !missingOf(0, rank, step) && !missingOf(1, rank, step);
        if (side === 1)
          fusedLayers[rank]!.push(
            absent ? [] : [...Array(spec.layers).keys()].filter((l) => (spec.moe !== true || l >= spec.dense) && fusedOf(rank, step, l)),
          );
        steps[side][rank]!.push(kernels);
        const ds: number[] = [];
        durations[side][rank]!.push(ds);
        for (const type of kernels) {
          const d = spec.fixed === true ? (MEAN[type] ?? 40_000) : Math.round((MEAN[type] ?? 40_000) * (0.95 + 0.1 * rand()));
          rec.add(r, s, stepIdOf(side, step), rec.table.intern(type), d, t);
          if (paired && keptAt.includes(ds.length)) keptTicks += d;
          ds.push(d);
          time[side].set(type, (time[side].get(type) ?? 0) + d);
          t += d + 10_000;
        }
      }
    }
  }
  const layers = new Set<number>();
  let chains = 0;
  let kept = 0;
  let keptSteps = 0;
  const ranks: string[] = [];
  const counts: number[] = [];
  fusedLayers.forEach((perStep, rank) => {
    let any = false;
    const paired: number[] = [];
    perStep.forEach((ls, step) => {
      for (const l of ls) layers.add(l);
      if (ls.length > 0) any = true;
      if (missingOf(0, rank, step) || missingOf(1, rank, step)) return;
      chains += ls.length;
      paired.push(ls.length);
      const k = ls.filter((l) => keptOf(rank, step, l) !== null).length;
      kept += k;
      if (k > 0) keptSteps++;
    });
    if (any) {
      ranks.push(String(rank));
      counts.push(...paired);
    }
  });
  return {
    base: recs[0]!.finish(),
    pr: recs[1]!.finish(),
    truth: {
      fusedLayers,
      chains,
      perStep: { min: Math.min(...counts), max: Math.max(...counts) },
      kept,
      keptSteps,
      keptTicks,
      layers: [...layers].sort((a, b) => a - b),
      ranks,
      time,
    },
    steps,
    durations,
  };
}

/**
 * Write the pair as torch_npu profile folders (`<dir>/{base,pr}/node_<rank>_ascend_pt/ASCEND_PROFILER_OUTPUT/
 * kernel_details.csv`) under `header` (the real export's first line): Step Id, Device_id, Stream ID, Name, Type,
 * Accelerator Core, Start Time and Duration filled, the other cells N/A. `stepId`: as DecodeSpec.stepId.
 */
export function writeDecodeCsv(
  dir: string,
  header: string,
  steps: [string[][][], string[][][]],
  stepId: (side: 0 | 1, step: number) => number = (_side, step) => step + 1,
): void {
  const cols = header.split(',');
  const at = (name: string) => cols.indexOf(name);
  const [iStep, iDev, iStream, iName, iType, iCore, iStart, iDur] = [
    'Step Id',
    'Device_id',
    'Stream ID',
    'Name',
    'Type',
    'Accelerator Core',
    'Start Time(us)',
    'Duration(us)',
  ].map(at);
  const rand = prng(7);
  for (const side of [0, 1] as const) {
    steps[side].forEach((perStep, rank) => {
      const out = join(dir, side === 0 ? 'base' : 'pr', `node_${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
      mkdirSync(out, { recursive: true });
      const lines = [header];
      let t = 1_700_000_000_000_000;
      perStep.forEach((kernels, step) => {
        // A step of no kernels is one the side did not profile (DecodeSpec.missing): it has no rows.
        for (const type of kernels) {
          const cells = cols.map(() => 'N/A');
          const d = ((MEAN[type] ?? 40_000) * (0.95 + 0.1 * rand())) / 10_000;
          cells[iStep!] = String(stepId(side, step));
          cells[iDev!] = String(rank);
          cells[iStream!] = '2';
          cells[iName!] = `aclnn${type}_${type}_${type}`;
          cells[iType!] = type;
          cells[iCore!] = 'AI_CORE';
          cells[iStart!] = `${(t / 1000).toFixed(3)}\t`;
          cells[iDur!] = d.toFixed(3);
          lines.push(cells.join(','));
          t += Math.round(d * 1000) + 1000;
        }
      });
      writeFileSync(join(out, 'kernel_details.csv'), `${lines.join('\r\n')}\r\n`);
    });
  }
}

/**
 * Σ ticks of the base's chains in the layers the PR fused (the l-th chain of a base step is layer l's) and of the PR's
 * fused kernels, in the steps both sides profiled: the time of the kernels a rewrite of the chain replaced, but those
 * kept beside the fused one (truth.keptTicks). A chain both sides ran (a layer not fused) is not the rewrite's.
 */
export function fusedChainTicks(pair: ReturnType<typeof decodePair>, spec: DecodeSpec): { base: number; pr: number } {
  const chain = spec.chain ?? CHAIN;
  const out = { base: 0, pr: 0 };
  for (const side of [0, 1] as const) {
    pair.steps[side].forEach((perStep, rank) =>
      perStep.forEach((ks, step) => {
        if (spec.missing?.(0, rank, step) === true || spec.missing?.(1, rank, step) === true) return;
        const ds = pair.durations[side][rank]![step]!;
        const fused = pair.truth.fusedLayers[rank]![step]!;
        let layer = 0;
        for (let i = 0; i < ks.length; i++) {
          if (side === 1 && ks[i] === FUSED) out.pr += ds[i]!;
          else if (side === 0 && chain.every((k, j) => ks[i + j] === k)) {
            if (fused.includes(layer)) for (let j = 0; j < chain.length; j++) out.base += ds[i + j]!;
            layer++;
            i += chain.length - 1;
          }
        }
      }),
    );
  }
  return out;
}
