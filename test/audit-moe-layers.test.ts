// kprof audit on a decoder whose first layers are dense and the others MoE (DeepSeek-style): each MoE layer runs
// its router's MatMulV3 and two GroupedMatmul, the dense layers neither. GroupedMatmul (a per-layer entry of two sites
// a layer) has the most sites, and MatMulV3 keeps each pair of them in one layer, yet runs in the MoE layers only: as
// the layer marker it numbered the layers from the first MoE layer, and put the dense layers' sites in layer 0. The
// marker is LightningIndexer, of every layer, and each unfused MLA prolog is in its own layer.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { CHAIN, FUSED } from './decodeGen.js';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-audit-moe-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const LAYERS = 12;
const DENSE = 3;
/** The layers that run the MLA prolog unfused. */
const UNFUSED = [1, 4, 9];

function write(dir: string): void {
  const header = 'Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)';
  const lines = [header];
  let t = 1_000_000;
  for (const step of [1, 2]) {
    const types: string[] = ['GatherV2'];
    for (let l = 0; l < LAYERS; l++) {
      types.push(l === 0 ? 'RmsNorm' : 'AddRmsNorm', 'DynamicQuant');
      types.push(...(UNFUSED.includes(l) ? CHAIN : [FUSED]));
      types.push('LightningIndexer', 'SparseFlashAttention', 'BatchMatMulV3', 'QuantBatchMatmulV3', 'AddRmsNorm');
      if (l < DENSE) types.push('DynamicQuant', 'QuantBatchMatmulV3', 'SwiGlu', 'QuantBatchMatmulV3');
      else types.push('MatMulV3', 'MoeGatingTopK', 'MoeInitRoutingV3', 'GroupedMatmul', 'SwiGlu', 'GroupedMatmul', 'MoeFinalizeRoutingV2');
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

test('the layers of a decoder of dense then MoE layers are numbered by a kernel of every layer', async () => {
  const dir = join(tmp, 'moe');
  write(dir);
  const r = await kprof(['audit', dir, '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  const p = JSON.parse(r.stdout).profiles[0];
  expect(p.layer_markers.map((m: { marker: string }) => m.marker)).toEqual(['LightningIndexer']);
  const mla = p.entries.find((e: { id: string }) => e.id === 'mla-prolog');
  const layers = (kind: 'fused' | 'unfused'): number[] =>
    mla[kind].sites.map((s: { layer: number; count: number }) => {
      expect(s.count).toBe(2);
      return s.layer;
    });
  expect(layers('unfused')).toEqual(UNFUSED);
  expect(layers('fused')).toEqual([...Array(LAYERS).keys()].filter((l) => !UNFUSED.includes(l)));
});
