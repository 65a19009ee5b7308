// The layer marker of the rewrites section when the PR fuses a chain of some layers only (the MoE gating of a
// dense-then-MoE decoder, test/decodeGen.ts `moe`): the marker is a kernel of every layer, so the layers fused and
// the layers not fused are numbered from the model's first layer, not from its first MoE layer, with 0, 1, 2 or 3
// leading dense layers and with an MTP layer or without; also with two MoE layers (no kernel splits the step into
// equal layers then).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { findRewrites } from '../src/analysis/rewrites/rewrites.js';
import { decodePair, MOE_CHAIN, MOE_FUSED, writeDecodeCsv } from './decodeGen.js';
import { kprof, REAL, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const range = (from: number, to: number) => [...Array(to - from).keys()].map((i) => from + i);

describe.each([
  [3, 1, true],
  [4, 2, false],
  [8, 0, false],
  [8, 1, false],
  [8, 3, false],
  [8, 1, true],
  [8, 3, true],
  [64, 3, false],
  [64, 3, true],
])('%i layers of which %i dense (MTP layer: %s), the MoE gating fused', (layers, dense, mtp) => {
  // The PR fuses every MoE layer but one (the fifth MoE layer, or the last of fewer) in the odd steps of rank 1.
  const left = Math.min(dense + 4, layers - 1);
  const fused = (rank: number, step: number, layer: number) => !(rank === 1 && step % 2 === 1 && layer === left);
  const { base, pr, truth } = decodePair({ layers, dense, mtp, dup: false, ranks: 2, steps: 4, moe: true, fused });
  const r = findRewrites(base, pr);
  const w = r.rewrites.find((x) => x.added.includes(MOE_FUSED));
  test('the rewrite is in the MoE layers, of all the model’s layers', () => {
    expect(w?.removed).toEqual(MOE_CHAIN);
    expect(w?.chains).toBe(truth.chains);
    expect(truth.layers).toEqual(range(dense, layers));
    expect(w?.layers).toEqual(truth.layers);
    expect(w?.layerCount).toBe(layers + (mtp ? 1 : 0));
  });
  test('the layer left unfused and the MTP layer are not fused, each in its own layer', () => {
    // Rank 1's MTP site is two sites (by its position, one kernel earlier in the steps that fused the fifth MoE layer).
    const mtpSites = mtp
      ? [
          ['0', layers, [1, 2, 3, 4]],
          ['1', layers, [1, 3]],
          ['1', layers, [2, 4]],
        ]
      : [];
    expect(w!.notFused.map((s) => [s.rank, s.layer, s.steps])).toEqual([...mtpSites.slice(0, 1), ['1', left, [2, 4]], ...mtpSites.slice(1)]);
  });
});

describe.skipIf(!HAS_REAL)('kprof diff on generated torch_npu exports (the real kernel_details header)', () => {
  test('64 layers, 3 dense, MTP: the MoE gating in layers 3-63 of 0-64, layer 10 and the MTP layer not fused', async () => {
    const header = readFileSync(join(REAL, 'msinsight-st-level2/rank_0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv'), 'utf8').split(
      /\r?\n/,
    )[0]!;
    const dir = mkdtempSync(join(tmpdir(), 'kprof-marker-'));
    try {
      const fused = (rank: number, step: number, layer: number) => !(rank === 1 && step % 2 === 1 && layer === 10);
      writeDecodeCsv(dir, header, decodePair({ layers: 64, dense: 3, mtp: true, dup: false, ranks: 2, steps: 4, moe: true, fused }).steps);
      const r = await kprof(['diff', join(dir, 'base'), join(dir, 'pr'), '--format', 'json']);
      expect(r.code).toBe(0);
      const w = JSON.parse(r.stdout).rewrites.rewrites[0];
      expect([w.removed, w.added, w.layers, w.layerCount]).toEqual([MOE_CHAIN, [MOE_FUSED], range(3, 64), 65]);
      expect(w.notFused.map((s: { rank: string; layer: number; steps: number[] }) => [s.rank, s.layer, s.steps])).toEqual([
        ['node_0_ascend_pt', 64, [1, 2, 3, 4]],
        ['node_1_ascend_pt', 10, [2, 4]],
        ['node_1_ascend_pt', 64, [1, 3]],
        ['node_1_ascend_pt', 64, [2, 4]],
      ]);
      const text = await kprof(['diff', join(dir, 'base'), join(dir, 'pr')]);
      expect(text.stdout).toContain('layers 3-63 of 0-64');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
