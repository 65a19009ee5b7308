// Generated profiles of known truth for kprof audit and its fused: rule: seeded, a decoder of `depth` layers (and an
// MTP layer after them), a prefill step then decode steps, the MLA prolog unfused at some (rank, step, layer) sites
// and fused at the others, its chain interleaved with kernels of another stream, communication kernels and up to
// `max_gap` kernels of its own stream, and the cache write in either variant. With `stage`, every step runs the same
// attention kernel (FusedInferAttentionScore, of either phase) and a step_trace_time.csv beside each kernel table
// says the phase in its Stage column.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHAIN as MLA_CHAIN, prng as rng } from './decodeGen.js';

/** The README example's MLA prolog chain up to its cache writes (the decoder layers' two, the MTP layer's one). */
const CHAIN = MLA_CHAIN.slice(0, 11);
/** Kernels of the same stream that no catalogue chain starts with or continues through here. */
const FILLER = ['Transpose', 'Slice', 'Fill', 'Mul', 'ConcatD', 'Sub'];
/** The MTP layer's own projection (DeepSeek's eh_proj over the two normed inputs): kernels no decoder layer runs. */
const MTP_HEAD = ['ConcatV2', 'MatMulV2'];

export interface GenCase {
  seed: number;
  depth: number;
  ranks: number;
  steps: number;
  mtp: boolean;
  /** Phases from step_trace_time.csv's Stage (the attention kernel is the same in both). */
  stage?: boolean;
  /** Sites where the prolog is not fused, besides the generated ones (rank/step/layer, layer `depth` = MTP). */
  fallback?: (rank: number, step: number, layer: number) => boolean;
  /** No generated fallbacks in the decoder layers (only `fallback`; the MTP layer still falls back unless mtpFused). */
  clean?: boolean;
  mtpFused?: boolean;
  /** Sites where neither the fused kernel nor the chain runs (a path the catalogue does not know): a Mul instead. */
  drop?: (rank: number, step: number, layer: number) => boolean;
}

export interface Truth {
  /** `rank/step/phase/layer` of every unfused MLA prolog (the MTP layer is `mtp/0`). */
  unfused: Set<string>;
  fused: number;
  /** Per phase (prefill, decode, mtp): fused kernels and unfused chains. */
  phases: Record<string, { fused: number; unfused: number }>;
  /** Summed duration of the unfused chains' kernels, in 0.02 µs units (exact integers). */
  unfusedUnits: number;
}

/** Write one generated profile into `dir`; returns its truth. */
export function generate(dir: string, c: GenCase): Truth {
  const { depth, ranks, steps, mtp } = c;
  const r = rng(c.seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const truth: Truth = { unfused: new Set(), fused: 0, unfusedUnits: 0, phases: {} };
  const count = (phase: string, fused: boolean): void => {
    const p = (truth.phases[phase] ??= { fused: 0, unfused: 0 });
    if (fused) p.fused++;
    else p.unfused++;
  };
  // Fallbacks: one rank, one step and a few layers where the prolog is not fused; the MTP layer never is.
  const badRank = Math.floor(r() * ranks);
  const badStep = 1 + Math.floor(r() * steps);
  const badLayers = new Set(Array.from({ length: 1 + Math.floor(r() * 3) }, () => Math.floor(r() * depth)));
  for (let rank = 0; rank < ranks; rank++) {
    const lines = ['Step Id,Device_id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)'];
    let t = 1_000_000;
    const add = (step: number, stream: number, type: string, core = 'AI_VECTOR_CORE'): number => {
      const units = 50 + Math.floor(r() * 400);
      lines.push(`${step},${rank},${stream},k_${type},${type},${core},${t.toFixed(3)},${(units * 0.02).toFixed(3)}`);
      t += units * 0.02 + 0.5;
      return units;
    };
    for (let step = 1; step <= steps; step++) {
      const prefill = step === 1;
      const layers = depth + (mtp ? 1 : 0);
      for (let layer = 0; layer < layers; layer++) {
        const isMtp = mtp && layer === depth;
        if (isMtp) for (const k of MTP_HEAD) add(step, 2, k);
        add(step, 2, layer === 0 ? 'RmsNorm' : 'AddRmsNorm');
        const generated =
          (isMtp && !c.mtpFused) ||
          (!c.clean && ((rank === badRank && step === badStep && badLayers.has(layer)) || (prefill && layer === 0 && rank === 0)));
        const fallback = generated || (c.fallback?.(rank, step, layer) ?? false);
        const phase = isMtp ? 'mtp' : prefill ? 'prefill' : 'decode';
        if (c.drop?.(rank, step, layer)) {
          add(step, 2, 'Mul');
          add(step, 2, c.stage ? 'FusedInferAttentionScore' : prefill ? 'PromptFlashAttention' : 'IncreFlashAttention', 'MIX_AIC');
          add(step, 2, 'MatMulV3', 'AI_CORE');
          continue;
        }
        count(phase, !fallback);
        if (!fallback) {
          add(step, 2, 'MlaPrologV3', 'MIX_AIC');
          truth.fused++;
        } else {
          truth.unfused.add(`${rank}/${step}/${phase}/${isMtp ? 0 : layer}`);
          const chain = [...CHAIN, ...(isMtp ? ['ScatterPaKvCache'] : ['ScatterNdUpdate', 'ScatterNdUpdate'])];
          chain.forEach((type, i) => {
            truth.unfusedUnits += add(step, 2, type);
            if (i === chain.length - 1) return;
            // Interleaved: kernels of another stream, communication, and up to 2 of its own stream (the entry's gap).
            if (r() < 0.4) add(step, 7, pick(['Cast', 'RmsNorm', 'Fill']));
            if (r() < 0.2) add(step, 2, 'hcom_allReduce_', 'COMMUNICATION');
            const own = r() < 0.3 ? 1 + Math.floor(r() * 2) : 0;
            for (let k = 0; k < own; k++) add(step, 2, pick(FILLER));
          });
        }
        add(step, 2, c.stage ? 'FusedInferAttentionScore' : prefill ? 'PromptFlashAttention' : 'IncreFlashAttention', 'MIX_AIC');
        add(step, 2, 'MatMulV3', 'AI_CORE');
        for (let k = Math.floor(r() * 3); k > 0; k--) add(step, 2, pick(FILLER));
      }
    }
    const folder = join(dir, `node_${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'kernel_details.csv'), `${lines.join('\n')}\n`);
    if (c.stage) {
      const st = ['Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble'];
      for (let step = 1; step <= steps; step++) st.push(`${rank},${step},100.0,0,0,0,1.0,${step === 1 ? 'prefill' : 'decode'},0`);
      writeFileSync(join(folder, 'step_trace_time.csv'), `${st.join('\n')}\n`);
    }
  }
  return truth;
}

/** A site's rank as the truth names it: a profile of one rank folder names its rank `-`; of several, by folder. */
export function rankOf(name: string): string {
  return name === '-' ? '0' : name.replace(/^node_(\d+)_ascend_pt$/, '$1');
}
