// A rewrite's time is the time of the kernels it changed, not of every kernel of its chain's kinds. Generated at 61
// layers, where the kernels the rewrite left alone run slower or faster in the PR (another change's drift): a
// single kernel of a common kind added or dropped, a chain fused in all layers but one. The truth is known: the
// rewrite's count, its total and its per-chain time are the planted kernels', and the drift is outside it.

import { describe, expect, test } from 'vitest';
import { findRewrites } from '../src/analysis/rewrites/rewrites.js';
import type { Sequences } from '../src/analysis/rewrites/sequence.js';
import { recordSteps } from './recordSteps.js';

/** Each kernel's duration in ticks (1e-4 µs) in the base. */
const DUR: Record<string, number> = {
  AddRmsNorm: 30_000,
  MatMulV3: 60_000,
  Gelu: 9_000,
  Cast: 5_000,
  TransData: 7_000,
  MlaPrologV3: 8_000,
};

/** A kernel of a layer: its kind, and its duration when it is not its kind's (a planted kernel). */
type Kernel = string | [string, number];

/** Steps of `layers` layers on one rank, each layer `layer(l)`; every kernel of a kind in `drift` runs that many ticks longer. */
function record(layers: number, steps: number, layer: (l: number) => Kernel[], drift: Record<string, number> = {}): Sequences {
  return recordSteps({ layers, steps, layer: (_r, _s, l) => layer(l), dur: (k) => DUR[k]! + (drift[k] ?? 0) });
}

const LAYERS = 61;
const STEPS = 4;
const LAYER: Kernel[] = ['AddRmsNorm', 'MatMulV3', 'Gelu', 'Cast', 'TransData'];

describe("one kernel of a common kind added a step; the kind's other kernels slower in the PR", () => {
  const base = record(LAYERS, STEPS, () => LAYER);
  // Layer 0 of the PR runs a short MatMulV3 after its Gelu; every other MatMulV3 runs 2,000 ticks longer.
  const pr = record(LAYERS, STEPS, (l) => (l === 0 ? ['AddRmsNorm', 'MatMulV3', 'Gelu', ['MatMulV3', 20_000], 'Cast', 'TransData'] : LAYER), {
    MatMulV3: 2_000,
  });
  const r = findRewrites(base, pr);
  test("[] → MatMulV3, once a step: its time is the added kernels' alone, the others' drift outside it", () => {
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains])).toEqual([[[], ['MatMulV3'], STEPS]]);
    const w = r.rewrites[0]!;
    expect(w.totalSavingTicks).toBe(STEPS * 20_000);
    expect(w.pr!.medianTicks).toBe(20_000);
    expect(w.pr!.meanTicks).toBe(20_000);
    expect(w.saving.delta).toBe(20_000);
    // The groups' whole change: the added kernels, and the drift of the 61 kept a step.
    expect(r.conservation.time.named).toBe(STEPS * (20_000 + LAYERS * 2_000));
    expect(r.conservation.time.outside).toBe(STEPS * LAYERS * 2_000);
  });
});

describe("one kernel of a common kind dropped a step; the kind's other kernels faster in the PR", () => {
  // Layer 0 of the base runs a short Cast after its TransData; the PR does not, and its other Casts run faster.
  const base = record(LAYERS, STEPS, (l) => (l === 0 ? [...LAYER, ['Cast', 3_000]] : LAYER));
  const pr = record(LAYERS, STEPS, () => LAYER, { Cast: -1_000 });
  const r = findRewrites(base, pr);
  test("Cast → [], once a step: its time is the dropped kernels' alone", () => {
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains])).toEqual([[['Cast'], [], STEPS]]);
    const w = r.rewrites[0]!;
    expect(w.totalSavingTicks).toBe(-STEPS * 3_000);
    expect(w.base!.medianTicks).toBe(3_000);
    expect(w.base!.meanTicks).toBe(3_000);
    expect(r.conservation.time.outside).toBe(-STEPS * LAYERS * 1_000);
  });
});

describe('a chain fused in every layer but the first; the PR runs the chain it kept there slower', () => {
  const fused: Kernel[] = ['AddRmsNorm', 'MatMulV3', 'Gelu', 'MlaPrologV3'];
  const base = record(LAYERS, STEPS, () => LAYER);
  const slow = { Cast: 1_500, TransData: 2_500 };
  const pr = record(LAYERS, STEPS, (l) => (l === 0 ? LAYER : fused), slow);
  const r = findRewrites(base, pr);
  test('Cast · TransData → MlaPrologV3 in 60 layers: the chain left in layer 0 is outside the saving', () => {
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains])).toEqual([[['Cast', 'TransData'], ['MlaPrologV3'], (LAYERS - 1) * STEPS]]);
    const w = r.rewrites[0]!;
    expect(w.totalSavingTicks).toBe((LAYERS - 1) * STEPS * (DUR.MlaPrologV3! - DUR.Cast! - DUR.TransData!));
    expect(w.base!.medianTicks).toBe(DUR.Cast! + DUR.TransData!);
    expect(w.pr!.medianTicks).toBe(DUR.MlaPrologV3!);
    expect(r.conservation.time.outside).toBe(STEPS * (slow.Cast + slow.TransData));
  });
});

/** Steps of 30 layers on `ranks` ranks, each layer `layer(rank, step, l)`, each kernel `slow(rank, step)` times its kind's. */
function recordRanks(
  ranks: number,
  steps: number,
  layer: (rank: number, step: number, l: number) => Kernel[],
  slow: (rank: number, step: number) => number = () => 1,
): Sequences {
  return recordSteps({ ranks, layers: 30, steps, layer, dur: (k, rank, step) => DUR[k]! * slow(rank, step) });
}

// Past 64 steps of a step shape, not each step's durations are kept (samples): the steps of one rank, or of one kind of
// step, are not timed apart by the shape's mean (which took in the other rank's slower steps, 4× the saving).
describe('more steps of a shape than its samples hold, timed apart only where the samples allow', () => {
  const fused: Kernel[] = ['AddRmsNorm', 'MatMulV3', 'Gelu', 'MlaPrologV3'];
  const chain = DUR.Cast! + DUR.TransData!;
  test('two ranks of one shape, 33 steps each, only rank 0 fused; rank 1 runs 3× slower', () => {
    const base = recordRanks(
      2,
      33,
      () => LAYER,
      (rank) => (rank === 1 ? 3 : 1),
    );
    const pr = recordRanks(
      2,
      33,
      (rank) => (rank === 0 ? fused : LAYER),
      (rank) => (rank === 1 ? 3 : 1),
    );
    const r = findRewrites(base, pr);
    const w = r.rewrites[0]!;
    expect([w.removed, w.added, w.chains, w.ranks]).toEqual([['Cast', 'TransData'], ['MlaPrologV3'], 30 * 33, ['0']]);
    // Each rank's sums are kept apart (the recordings of a read are a rank a part): timed exactly.
    expect(r.conservation.time).toMatchObject({ exact: true, ranksSplit: false });
    expect(w.totalSavingTicks).toBe(30 * 33 * (DUR.MlaPrologV3! - chain));
    // The per-chain figures are rank 0's chains', not rank 1's slower ones.
    expect([w.base!.medianTicks, w.base!.meanTicks, w.pr!.medianTicks]).toEqual([chain, chain, DUR.MlaPrologV3!]);
  });
  test('one rank of 100 steps fused in two of three; the steps it did not fuse run 3× slower', () => {
    const off = (step: number): boolean => step % 3 === 0;
    const base = recordRanks(
      1,
      100,
      () => LAYER,
      (_, step) => (off(step) ? 3 : 1),
    );
    const pr = recordRanks(
      1,
      100,
      (_, step) => (off(step) ? LAYER : fused),
      (_, step) => (off(step) ? 3 : 1),
    );
    const w = findRewrites(base, pr).rewrites[0]!;
    expect(w.chains).toBe(30 * 67);
    expect(w.totalSavingTicks).toBe(30 * 67 * (DUR.MlaPrologV3! - chain));
    expect([w.base!.medianTicks, w.base!.meanTicks]).toEqual([chain, chain]);
  });
});

describe("a second stream runs the chain's kernels as often, never fused, slower in the PR", () => {
  const fused: Kernel[] = ['AddRmsNorm', 'MatMulV3', 'Gelu', 'MlaPrologV3'];
  test.each([
    ['3', false],
    ['3', true],
    ['1', false],
    ['1', true],
  ])(
    "Cast · TransData → MlaPrologV3 on stream 2: the saving is its 30 chains a step, not stream %s's pair (after the layers: %s)",
    (besideStream, besideAfter) => {
      // A pair a layer on the second stream, as many as the chains fused on the first.
      // Its own durations, unlike the first stream's: timed in place of the fused chains, they would show.
      const pair: Kernel[] = [
        ['Cast', 1_000],
        ['TransData', 2_000],
      ];
      const spec = { layers: 30, steps: 8, beside: () => Array.from({ length: 30 }, () => pair).flat(), besideStream, besideAfter };
      const base = recordSteps({ ...spec, layer: () => LAYER, dur: (k) => DUR[k]! });
      const pr = recordSteps({ ...spec, layer: () => fused, dur: (k, _r, step) => DUR[k]! + (step > 0 ? 10_000 : 0) });
      const w = findRewrites(base, pr).rewrites.find((x) => x.added[0] === 'MlaPrologV3')!;
      expect([w.removed, w.chains]).toEqual([['Cast', 'TransData'], 30 * 8]);
      expect(w.totalSavingTicks).toBe(30 * 8 * (DUR.MlaPrologV3! + 10_000 - DUR.Cast! - DUR.TransData!));
      expect(w.base!.medianTicks).toBe(DUR.Cast! + DUR.TransData!);
    },
  );
});

describe('a kernel added (or dropped) right beside one of its kind: the one whose time is unlike the others is timed', () => {
  const short: Kernel = ['MatMulV3', 20_000];
  const around = (l: number, extra: Kernel[]): Kernel[] => (l === 0 ? ['AddRmsNorm', ...extra, 'Gelu', 'Cast', 'TransData'] : LAYER);
  test.each([
    ['before', [short, 'MatMulV3']],
    ['after', ['MatMulV3', short]],
  ] as const)('added %s it', (_, pair) => {
    const base = record(LAYERS, STEPS, () => LAYER);
    const pr = record(LAYERS, STEPS, (l) => around(l, [...pair]), { MatMulV3: 2_000 });
    const w = findRewrites(base, pr).rewrites[0]!;
    expect([w.removed, w.added, w.chains]).toEqual([[], ['MatMulV3'], STEPS]);
    expect([w.totalSavingTicks, w.pr!.medianTicks]).toEqual([STEPS * 20_000, 20_000]);
  });
  test.each([
    ['before', [short, 'MatMulV3']],
    ['after', ['MatMulV3', short]],
  ] as const)('dropped %s it', (_, pair) => {
    const base = record(LAYERS, STEPS, (l) => around(l, [...pair]));
    const pr = record(LAYERS, STEPS, () => LAYER, { MatMulV3: -2_000 });
    const w = findRewrites(base, pr).rewrites[0]!;
    expect([w.removed, w.added, w.chains]).toEqual([['MatMulV3'], [], STEPS]);
    expect([w.totalSavingTicks, w.base!.medianTicks]).toEqual([-STEPS * 20_000, 20_000]);
  });
});
