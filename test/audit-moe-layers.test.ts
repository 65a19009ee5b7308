// kprof audit on a decoder whose first layers are dense and the others MoE (DeepSeek-style): each MoE layer runs
// its gate's MatMulV3, the gating top-k, the routing and two GroupedMatmul, the dense layers none of them. The layer
// marker is a kernel of every layer, once in each, and every site is told in its own layer:
// - GroupedMatmul (a per-layer entry of two sites a layer) has the most sites, and the MoE layers' MatMulV3 keeps
//   each pair in one layer: as the marker it numbered the layers from the first MoE layer (layer 3 said as 0) and
//   put the dense layers' MLA prologs in layer 0;
// - with the MLA prolog fused in some layers and only in part in the others (neither a fused kernel nor the chain
//   there), BatchMatMulV3 (of the attention, and of the part left) was as good a marker as one of once a layer;
// - a lane whose steps have two shapes, each with a marker of its own (one step left one gating chain unfused), placed
//   its sites by where another marker's sites sat (after LightningIndexer), one layer off beside SwiGlu.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { CHAIN, FUSED } from './decodeGen.js';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-audit-moe-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const DENSE = 3;
const GATING = ['Sigmoid', 'Add', 'TopKV2', 'GatherElements', 'ReduceSum', 'RealDiv'];

interface Spec {
  layers: number;
  steps: number;
  /** Whether layer l of step s runs the MLA prolog fused (else the chain, or a part of it with `partial`). */
  fused: (step: number, layer: number) => boolean;
  /** Layers not fused run the chain with its middle fused into one kernel (neither site of the entry). */
  partial?: boolean;
  /** Whether a MoE layer runs its gating unfused (else MoeGatingTopK). */
  gatingUnfused?: (step: number, layer: number) => boolean;
}

function write(dir: string, spec: Spec): void {
  const header = 'Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)';
  const lines = [header];
  let t = 1_000_000;
  for (let step = 1; step <= spec.steps; step++) {
    const types: string[] = ['GatherV2'];
    for (let l = 0; l < spec.layers; l++) {
      types.push(l === 0 ? 'RmsNorm' : 'AddRmsNorm', 'DynamicQuant');
      if (spec.fused(step, l)) types.push(FUSED);
      else if (spec.partial) types.push(...CHAIN.slice(0, 6), 'InterleaveRopeCast', ...CHAIN.slice(10));
      else types.push(...CHAIN);
      types.push('LightningIndexer', 'SparseFlashAttention', 'BatchMatMulV3', 'QuantBatchMatmulV3', 'AddRmsNorm');
      if (l < DENSE) types.push('DynamicQuant', 'QuantBatchMatmulV3', 'SwiGlu', 'QuantBatchMatmulV3');
      else
        types.push(
          'MatMulV3',
          ...(spec.gatingUnfused?.(step, l) ? GATING : ['MoeGatingTopK']),
          'MoeInitRoutingV3',
          'GroupedMatmul',
          'SwiGlu',
          'GroupedMatmul',
          'MoeFinalizeRoutingV2',
        );
    }
    types.push('AddRmsNorm', 'MatMulV3', 'ArgMaxV2');
    for (const type of types) {
      lines.push([step, 2, `aclnn${type}_${type}`, type, 'AI_CORE', t.toFixed(3), '2.000'].join(','));
      t += 3;
    }
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kernel_details.csv'), `${lines.join('\n')}\n`);
}

interface Site {
  layer: number;
  steps: number[];
}

async function audit(name: string, spec: Spec): Promise<{ markers: string[]; sites: (id: string, kind: 'fused' | 'unfused') => Site[] }> {
  const dir = join(tmp, name);
  write(dir, spec);
  const r = await kprof(['audit', dir, '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  const p = JSON.parse(r.stdout).profiles[0];
  return {
    markers: p.layer_markers.map((m: { marker: string }) => m.marker),
    sites: (id, kind) => p.entries.find((e: { id: string }) => e.id === id)[kind].sites,
  };
}

/** Each site's layer, once per step it ran in: `layer@step`, sorted. */
function at(sites: Site[]): string[] {
  return sites.flatMap((s) => s.steps.map((st) => `${s.layer}@${st}`)).sort();
}

function every(layers: number[], steps: number[], skip: (step: number, layer: number) => boolean = () => false): string[] {
  return steps.flatMap((st) => layers.filter((l) => !skip(st, l)).map((l) => `${l}@${st}`)).sort();
}

const range = (from: number, to: number): number[] => [...Array(to - from).keys()].map((i) => i + from);

describe('kprof audit numbers the layers of a dense-then-MoE decoder by a kernel of every layer', () => {
  test('the MLA prolog unfused in some layers: each site in its own layer', async () => {
    const unfused = [1, 4, 9];
    const a = await audit('moe', { layers: 12, steps: 2, fused: (_s, l) => !unfused.includes(l) });
    expect(a.markers).toEqual(['LightningIndexer']);
    expect(at(a.sites('mla-prolog', 'unfused'))).toEqual(every(unfused, [1, 2]));
    expect(at(a.sites('mla-prolog', 'fused'))).toEqual(every(range(0, 12), [1, 2], (_s, l) => unfused.includes(l)));
    expect(at(a.sites('moe-gating-top-k', 'fused'))).toEqual(every(range(DENSE, 12), [1, 2]));
  });

  test('fused in some layers, in part in the others, one gating chain unfused in one step: every site in its layer', async () => {
    const spec: Spec = {
      layers: 16,
      steps: 3,
      fused: (_s, l) => l % 4 !== 3,
      partial: true,
      gatingUnfused: (s, l) => s === 2 && l === 10,
    };
    const a = await audit('partial', spec);
    expect(at(a.sites('mla-prolog', 'fused'))).toEqual(every(range(0, 16), [1, 2, 3], (_s, l) => l % 4 === 3));
    expect(a.sites('mla-prolog', 'unfused')).toEqual([]);
    expect(at(a.sites('moe-gating-top-k', 'fused'))).toEqual(every(range(DENSE, 16), [1, 2, 3], spec.gatingUnfused));
    expect(at(a.sites('moe-init-routing', 'fused'))).toEqual(every(range(DENSE, 16), [1, 2, 3]));
  });
});
