// The rewrites engine on generated decode steps (test/decodeGen.ts) of known truth, at small depths: the fused
// chain is the 13 kernels the PR replaced (not one more), the duplicate dropped next to it is a rewrite of its own,
// and counts, layers, ranks and the marker are exact. Deeper models and property tests: rewrites-decode-scale.test.ts.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { findRewrites } from '../src/analysis/rewrites/rewrites.js';
import { headingText, laneLines, notFusedLines } from '../src/report/diff/rewrites.js';
import { CHAIN, DUP, decodePair, FUSED, writeDecodeCsv } from './decodeGen.js';
import { kprof, REAL, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const range = (n: number) => [...Array(n).keys()];

describe.each([1, 2, 3, 8])('%i decoder layers and an MTP layer, a duplicate dropped next to the fused chain', (layers) => {
  const { base, pr, truth } = decodePair({ layers, dense: 1, mtp: true, dup: true, ranks: 2, steps: 4 });
  const r = findRewrites(base, pr);
  test('two rewrites: the chain → MlaPrologV3, and MatMulV3 Slice → nothing, each once per layer', () => {
    expect(r.rewrites.map((w) => [w.removed, w.added])).toEqual([
      [CHAIN, [FUSED]],
      [DUP, []],
    ]);
    for (const w of r.rewrites) {
      expect(w.perStep).toEqual({ min: layers, max: layers });
      expect(w.chains).toBe(truth.chains);
      expect(w.ranks).toEqual(['0', '1']);
      expect(w.layers).toEqual(range(layers));
    }
    // Equal layers from 4 decoder layers on (the first layer is dense, the MTP layer differs).
    expect(r.marker).toEqual({ token: 'LightningIndexer', auto: true, equal: layers > 3 });
    expect(r.rewrites[0]!.layerCount).toBe(layers + 1);
  });
  test('the MTP layer is where the chain still runs, 2 edits from it; every kernel accounted for', () => {
    const nf = r.rewrites[0]!.notFused;
    expect(nf.map((s) => [s.rank, s.layer, s.edits])).toEqual([
      ['0', layers, 2],
      ['1', layers, 2],
    ]);
    expect(r.conservation.rest).toEqual([]);
    expect(r.conservation.removedAccounted).toBe(r.conservation.removed);
    expect(r.conservation.addedAccounted).toBe(r.conservation.added);
  });
});

test('without the duplicate: one rewrite of the 13 kernels, layers right with no MTP layer either', () => {
  const { base, pr, truth } = decodePair({ layers: 3, dense: 0, mtp: false, dup: false, ranks: 2, steps: 3 });
  const r = findRewrites(base, pr);
  expect(r.rewrites.map((w) => [w.removed, w.added, w.chains, w.layers])).toEqual([[CHAIN, [FUSED], truth.chains, [0, 1, 2]]]);
});

test('fused on one rank in some steps and layers: the chains fused, and every site left is not fused', () => {
  const fused = (rank: number, step: number, layer: number) => rank === 1 && step % 2 === 0 && layer % 2 === 0;
  const { base, pr, truth } = decodePair({ layers: 4, dense: 1, mtp: false, dup: false, ranks: 2, steps: 4, fused });
  const r = findRewrites(base, pr);
  const w = r.rewrites.find((x) => x.added.includes(FUSED));
  // Rank 1's most frequent step shape: steps 0 and 2 (fused) and 1 and 3 (not) tie; the first seen stands for it.
  expect(w?.removed).toEqual(CHAIN);
  expect(w?.chains).toBe(truth.chains);
  expect(w?.ranks).toEqual(['1']);
  expect(w?.layers).toEqual([0, 2]);
  expect(r.conservation.rest).toEqual([]);
});

describe.skipIf(!HAS_REAL)('kprof diff on generated torch_npu exports (the real kernel_details header)', () => {
  test('3 layers, MTP, the duplicate: the 13-kernel chain 3 per step in layers 0-2, and the duplicate apart', async () => {
    const header = readFileSync(join(REAL, 'msinsight-st-level2/rank_0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv'), 'utf8').split(
      /\r?\n/,
    )[0]!;
    const dir = mkdtempSync(join(tmpdir(), 'kprof-decode-'));
    try {
      writeDecodeCsv(dir, header, decodePair({ layers: 3, dense: 1, mtp: true, dup: true, ranks: 2, steps: 4 }).steps);
      const r = await kprof(['diff', join(dir, 'base'), join(dir, 'pr'), '--format', 'json']);
      expect(r.code).toBe(0);
      const rw = JSON.parse(r.stdout).rewrites;
      expect(rw.marker).toMatchObject({ token: 'LightningIndexer' });
      expect(
        rw.rewrites.map((w: { removed: string[]; added: string[]; perStep: unknown; layers: number[]; chains: number }) => [
          w.removed,
          w.added,
          w.perStep,
          w.layers,
          w.chains,
        ]),
      ).toEqual([
        [CHAIN, [FUSED], { min: 3, max: 3 }, [0, 1, 2], 24],
        [DUP, [], { min: 3, max: 3 }, [0, 1, 2], 24],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('ranks of two step shapes: one line per shape with its ranks, not one line per rank', () => {
  const { base, pr } = decodePair({ layers: 2, dense: 1, mtp: false, dup: false, ranks: 8, steps: 2, fused: (rank) => rank < 5 });
  const r = findRewrites(base, pr);
  const heading = headingText(r, 'type', (x) => x);
  expect(heading).toMatch(/the step shape of each below\)$/);
  // Ranks as every text format writes them: a run of three or more with an en dash.
  expect(heading).toContain('; ranks 0–7; ');
  expect(laneLines(r, heading, (x) => x)).toEqual([
    'ranks 0–4 stream 2: step shape 67 → 43 kernels, the most frequent in 2 of 2 base and 2 of 2 PR steps; 28 edits',
    'ranks 5–7 stream 2: step shape 67 → 67 kernels, the most frequent in 2 of 2 base and 2 of 2 PR steps; 0 edits',
  ]);
});

test('a layer not fused in one step of the run: "in step N", one step named as one', () => {
  const fused = (_rank: number, step: number, layer: number) => !(step === 2 && layer === 1);
  const { base, pr } = decodePair({ layers: 4, dense: 1, mtp: false, dup: false, ranks: 2, steps: 4, fused });
  const r = findRewrites(base, pr);
  const w = r.rewrites.find((x) => x.added.includes(FUSED))!;
  const lines = notFusedLines(w, r.lanes, (x) => x);
  expect(lines.join('\n')).toMatch(/\bin step \d+ of ranks 0, 1\b/);
  expect(lines.join('\n')).not.toMatch(/\bsteps \d+ of\b/);
});
