// A fused chain whose first (or last) kernel is of the kind that runs right before (after) it: `RmsNorm RmsNorm
// DynamicQuant … → RmsNorm MlaPrologV3`. The hunk is one chain, not a duplicate RmsNorm dropped beside a shorter
// chain (a copy cut off a hunk is two kernels or more: splitDuplicates). Generated at 61 layers, with durations
// whose truth is known: the chain, its count per step and its time saved are exact.

import { describe, expect, test } from 'vitest';
import { findRewrites, singleCopies, splitDuplicates } from '../src/analysis/rewrites/rewrites.js';
import type { Sequences } from '../src/analysis/rewrites/sequence.js';
import { recordSteps } from './recordSteps.js';

/** Each kernel's duration in ticks (1e-4 µs): distinct per kind, the same every time. */
const DUR: Record<string, number> = {
  AddRmsNorm: 30_000,
  RmsNorm: 21_000,
  DynamicQuant: 13_000,
  QuantBatchMatmulV3: 90_000,
  InterleaveRope: 17_000,
  ScatterNdUpdate: 11_000,
  MlaPrologV3: 70_000,
  LightningIndexer: 40_000,
  SparseFlashAttention: 80_000,
  MatMulV3: 60_000,
  Cast: 5_000,
  TransData: 7_000,
  Gelu: 9_000,
};

/** Steps of `layers` layers on one rank, each layer `layer(l)`, recorded with their durations. */
function record(layers: number, steps: number, layer: (l: number) => string[]): Sequences {
  return recordSteps({ layers, steps, layer: (_r, _s, l) => layer(l), dur: (k) => DUR[k]! });
}

const CHAIN = ['RmsNorm', 'DynamicQuant', 'QuantBatchMatmulV3', 'InterleaveRope', 'ScatterNdUpdate'];
const sum = (ks: string[]): number => ks.reduce((n, k) => n + DUR[k]!, 0);

describe('a chain that starts with the kernel before it, 61 layers', () => {
  const layers = 61;
  const steps = 4;
  const base = record(layers, steps, () => ['AddRmsNorm', 'RmsNorm', ...CHAIN, 'LightningIndexer', 'SparseFlashAttention', 'MatMulV3']);
  const pr = record(layers, steps, () => ['AddRmsNorm', 'RmsNorm', 'MlaPrologV3', 'LightningIndexer', 'SparseFlashAttention', 'MatMulV3']);
  const r = findRewrites(base, pr);
  test('one rewrite: the whole chain → MlaPrologV3, once per layer, its saving exact; nothing else', () => {
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains, w.perStep])).toEqual([
      [CHAIN, ['MlaPrologV3'], layers * steps, { min: layers, max: layers }],
    ]);
    const w = r.rewrites[0]!;
    expect(w.totalSavingTicks).toBe(layers * steps * (DUR.MlaPrologV3! - sum(CHAIN)));
    expect(w.notFused).toEqual([]);
    expect(r.conservation.rest).toEqual([]);
    expect(r.conservation.removedAccounted).toBe(r.conservation.removed);
  });
});

describe('a chain that ends with the kernel after it', () => {
  const base = record(8, 3, () => ['Gelu', 'TransData', 'Cast', 'Cast', 'MatMulV3']);
  const pr = record(8, 3, () => ['Gelu', 'MlaPrologV3', 'Cast', 'MatMulV3']);
  test('one rewrite: TransData · Cast → MlaPrologV3, not TransData → MlaPrologV3 beside Cast → nothing', () => {
    expect(r(base, pr)).toEqual([[['TransData', 'Cast'], ['MlaPrologV3'], 24]]);
  });
  function r(b: Sequences, p: Sequences) {
    return findRewrites(b, p).rewrites.map((w) => [w.removed, w.added, w.chains]);
  }
});

describe('a chain in a run of its own kernels: R R R → R F', () => {
  const base = record(61, 4, () => ['AddRmsNorm', 'Cast', 'Cast', 'Cast', 'MatMulV3', 'LightningIndexer']);
  const pr = record(61, 4, () => ['AddRmsNorm', 'Cast', 'MlaPrologV3', 'MatMulV3', 'LightningIndexer']);
  const r = findRewrites(base, pr);
  test('Cast ×2 → MlaPrologV3, with no Cast "kept" beside it (the Cast before it is the run\'s first), every kernel accounted for', () => {
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains])).toEqual([[['Cast', 'Cast'], ['MlaPrologV3'], 61 * 4]]);
    const w = r.rewrites[0]!;
    expect(w.kept).toEqual({ kernels: 0, steps: 0, tokens: [] });
    expect(w.totalSavingTicks).toBe(61 * 4 * (DUR.MlaPrologV3! - 2 * DUR.Cast!));
    expect(r.conservation.removedAccounted).toBe(r.conservation.removed);
    expect(r.conservation.time.outside).toBe(0);
  });
});

/** The rewrites of a pair of one-rank profiles whose every step runs `base` (`pr`), a layer a string, as [removed, added, chains]. */
function rewritesOf(base: string[], pr: string[], steps = 3): [string[], string[], number][] {
  const seq = (layers: string[]) => record(layers.length, steps, (l) => layers[l]!.split(' '));
  return findRewrites(seq(base), seq(pr)).rewrites.map((w) => [w.removed, w.added, w.chains]);
}

describe('a copy of one kernel dropped or added beside a fusion, and on its own elsewhere in the step', () => {
  test('dropped in both layers, a chain fused in one: the copy dropped twice a step, the chain apart', () => {
    expect(
      rewritesOf(
        ['Gelu TransData Cast Cast MatMulV3 Gelu', 'Gelu TransData Cast Cast LightningIndexer'],
        ['Gelu TransData Cast MlaPrologV3', 'Gelu TransData Cast LightningIndexer'],
      ),
    ).toEqual([
      [['Cast'], [], 6],
      [['MatMulV3', 'Gelu'], ['MlaPrologV3'], 3],
    ]);
  });
  test('added in both layers, a chain fused in one: the chain apart, not fused into the copy', () => {
    expect(
      rewritesOf(['Gelu Cast MatMulV3 Gelu', 'Gelu Cast LightningIndexer'], ['Gelu Cast Cast MlaPrologV3', 'Gelu Cast Cast LightningIndexer']),
    ).toEqual([
      [['MatMulV3', 'Gelu'], ['MlaPrologV3'], 3],
      [[], ['Cast'], 6],
    ]);
  });
});

describe('kept kernels: no more than the PR runs past what the base runs outside its chains', () => {
  test('R R R → R F in one layer and R R → R F in the other: one kept a step, every µs in the rewrite', () => {
    const seq = (layers: string[]) => record(2, 3, (l) => layers[l]!.split(' '));
    const r = findRewrites(
      seq(['Gelu Cast Cast Cast TransData', 'Gelu Cast Cast TransData']),
      seq(['Gelu Cast MlaPrologV3 TransData', 'Gelu Cast MlaPrologV3 TransData']),
    );
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains, w.kept.kernels])).toEqual([[['Cast', 'Cast'], ['MlaPrologV3'], 6, 3]]);
    // Five Casts a step become two beside the fused kernels: the rewrite's saving is the groups' whole change.
    expect(r.rewrites[0]!.totalSavingTicks).toBe(3 * (2 * DUR.MlaPrologV3! - 3 * DUR.Cast!));
    expect(r.conservation.time.outside).toBe(0);
    expect(r.conservation.removedAccounted).toBe(r.conservation.removed);
  });
});

test("R R R → R F and R R → R F in alternate layers: every layer is the rewrite's, by the layer marker", () => {
  const seq = (layers: string[]) => record(layers.length, 3, (l) => layers[l]!.split(' '));
  const r = findRewrites(
    seq(['Gelu Cast Cast Cast TransData', 'Gelu Cast Cast TransData', 'Gelu Cast Cast Cast TransData', 'Gelu Cast Cast TransData']),
    seq(Array(4).fill('Gelu Cast MlaPrologV3 TransData')),
    { layerMarker: 'Gelu' },
  );
  expect(r.rewrites.map((w) => [w.removed, w.added, w.chains, w.kept.kernels, w.layers, w.layerCount])).toEqual([
    [['Cast', 'Cast'], ['MlaPrologV3'], 12, 6, [0, 1, 2, 3], 4],
  ]);
});

test('splitDuplicates: a copy of two kernels or more beside the hunk is cut off, a single kernel is not', () => {
  const ids = new Map<string, number>();
  const enc = (s: string): Int32Array => Int32Array.from(s.split(' ').map((t) => ids.get(t) ?? ids.set(t, ids.size).get(t)!));
  // `C M S M S` → `F M S`: C → F, and the duplicate `M S` dropped.
  const a = enc('X C M S M S Y');
  const b = enc('X F M S Y');
  expect(splitDuplicates(a, b, { aStart: 1, aLen: 3, bStart: 1, bLen: 1 })).toEqual([
    { aStart: 1, aLen: 1, bStart: 1, bLen: 1 },
    { aStart: 2, aLen: 2, bStart: 2, bLen: 0, copy: true },
  ]);
  // `B B C D` → `B F`: one hunk B C D → F, unless the steps drop a copy of B on its own elsewhere.
  const a1 = enc('A B B C D E A B B E');
  const b1 = enc('A B F E A B E');
  const h = { aStart: 2, aLen: 3, bStart: 2, bLen: 1 };
  expect(splitDuplicates(a1, b1, h)).toEqual([h]);
  const singles = singleCopies(a1, b1, [h, { aStart: 8, aLen: 1, bStart: 6, bLen: 0 }]);
  expect([...singles]).toEqual([`a:${ids.get('B')}`]);
  expect(splitDuplicates(a1, b1, h, singles)).toEqual([
    { aStart: 2, aLen: 1, bStart: 2, bLen: 0, copy: true },
    { aStart: 3, aLen: 2, bStart: 2, bLen: 1 },
  ]);
});
