// kprof audit on profiles generated with known truth: seeded, depths 1 to 128, an MTP layer, prefill and decode
// steps, the MLA prolog unfused in some (rank, step, layer) sites and fused in the others, its chain interleaved with
// kernels of another stream, communication kernels and up to `max_gap` kernels of its own stream, and the cache
// write in either variant. The audit must find >= 95% of the unfused chains with <= 1 false site per profile, and
// count the fused kernels and the measured time exactly.

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { CHAIN as MLA_CHAIN, prng as rng } from './decodeGen.js';
import { kprof } from './helpers.js';

/** The README example's MLA prolog chain up to its cache writes (the decoder layers' two, the MTP layer's one). */
const CHAIN = MLA_CHAIN.slice(0, 11);
/** Kernels of the same stream that no catalogue chain starts with or continues through here. */
const FILLER = ['Transpose', 'Slice', 'Fill', 'Mul', 'ConcatD', 'Sub'];

interface Truth {
  /** `rank/step/layer` of every unfused MLA prolog. */
  unfused: Set<string>;
  fused: number;
  /** Summed duration of the unfused chains' kernels, in 0.02 µs units (exact integers). */
  unfusedUnits: number;
}

/** Write one generated profile into `dir`; returns its truth. */
function generate(dir: string, seed: number, depth: number, ranks: number, steps: number, mtp: boolean): Truth {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const truth: Truth = { unfused: new Set(), fused: 0, unfusedUnits: 0 };
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
        add(step, 2, layer === 0 ? 'RmsNorm' : 'AddRmsNorm');
        const isMtp = mtp && layer === depth;
        const fallback = isMtp || (rank === badRank && step === badStep && badLayers.has(layer)) || (prefill && layer === 0 && rank === 0);
        if (!fallback) {
          add(step, 2, 'MlaPrologV3', 'MIX_AIC');
          truth.fused++;
        } else {
          truth.unfused.add(`${rank}/${step}/${layer}`);
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
        add(step, 2, prefill ? 'PromptFlashAttention' : 'IncreFlashAttention', 'MIX_AIC');
        add(step, 2, 'MatMulV3', 'AI_CORE');
        for (let k = Math.floor(r() * 3); k > 0; k--) add(step, 2, pick(FILLER));
      }
    }
    const folder = join(dir, `node_${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'kernel_details.csv'), `${lines.join('\n')}\n`);
  }
  return truth;
}

interface Site {
  rank: string;
  layer: number;
  steps: number[];
  count: number;
  time_us: number;
}

const tmp = mkdtempSync(join(tmpdir(), 'kprof-audit-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const CASES = [
  { seed: 1, depth: 1, ranks: 1, steps: 2, mtp: false },
  { seed: 2, depth: 2, ranks: 2, steps: 3, mtp: true },
  { seed: 3, depth: 7, ranks: 2, steps: 4, mtp: true },
  { seed: 4, depth: 16, ranks: 3, steps: 3, mtp: false },
  { seed: 5, depth: 61, ranks: 2, steps: 3, mtp: true },
  { seed: 6, depth: 128, ranks: 2, steps: 2, mtp: true },
];

describe('kprof audit finds the unfused chains of generated profiles with known truth', () => {
  for (const c of CASES) {
    test(`depth ${c.depth}, ${c.ranks} ranks, ${c.steps} steps${c.mtp ? ', MTP' : ''}`, async () => {
      const dir = join(tmp, `p${c.seed}`);
      const truth = generate(dir, c.seed, c.depth, c.ranks, c.steps, c.mtp);
      const res = await kprof(['audit', dir, '--only', 'mla-prolog', '--format', 'json', '-q']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      // A profile of one rank folder names its rank `-`; of several, each by its folder.
      const rankOf = (name: string): string => (name === '-' ? '0' : name.replace(/^node_(\d+)_ascend_pt$/, '$1'));
      const entry = JSON.parse(res.stdout).profiles[0].entries[0];
      const found = new Set<string>();
      for (const s of entry.unfused.sites as Site[]) for (const step of s.steps) found.add(`${rankOf(s.rank)}/${step}/${s.layer}`);
      const hits = [...truth.unfused].filter((k) => found.has(k)).length;
      const falsePositives = [...found].filter((k) => !truth.unfused.has(k)).length;
      expect(hits / truth.unfused.size).toBeGreaterThanOrEqual(0.95);
      expect(falsePositives).toBeLessThanOrEqual(1);
      // Counts and times are the rows': every chain once, every fused kernel once.
      expect(entry.unfused.count).toBe(truth.unfused.size);
      expect(entry.fused.count).toBe(truth.fused);
      expect(Math.round(entry.unfused.time_us * 50)).toBe(truth.unfusedUnits);
      expect(entry.status).toBe(truth.fused > 0 ? 'fallback' : 'unfused');
    });
  }
});
