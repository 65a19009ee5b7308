// A rewrite's figures are one count seen several ways, and the generator's truth (test/decodeGen.ts) says each: at
// real depth (60 decoder layers, 32 steps), with a kernel of the fused chain kept beside the fused kernel in one
// layer, a layer not fused, and a step of one side only, the chains, their least and most in a step, the kernels
// kept, the saving and the conservation line agree with each other and with the truth. Before, the chains were
// exact while "per step" came from the representative steps' hunks (1,920 chains beside "59-60 per step"), and a
// chain straddling the fused chain's end (ScatterNdUpdate · MatMulV3 · Slice) was listed as a rewrite of its own.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { findRewrites, type Rewrite } from '../src/analysis/rewrites/rewrites.js';
import { SequenceRecorder } from '../src/analysis/rewrites/sequence.js';
import { CHAIN, DUP, type DecodeSpec, decodePair, FUSED, fusedChainTicks } from './decodeGen.js';

const LAYERS = 60;

function main(rewrites: Rewrite[]): Rewrite {
  return rewrites.find((w) => w.added.length === 1 && w.added[0] === FUSED)!;
}

/** The figures a reader checks against each other: steps × least ≤ chains ≤ steps × most. */
/** The generator's full decode model at depth: three dense layers, the MTP layer, the duplicated chain. */
const DEEP = { layers: LAYERS, dense: 3, mtp: true, dup: true } as const;

function consistent(w: Rewrite, steps: number): void {
  expect(w.perStep.min * steps).toBeLessThanOrEqual(w.chains);
  expect(w.chains).toBeLessThanOrEqual(w.perStep.max * steps);
}

describe.each([
  ['after it (ScatterNdUpdate, the last)', 12],
  ['after it (InterleaveRope, the middle)', 6],
  ['before it (QuantBatchMatmulV3, the first)', 0],
  ['before it (DynamicQuant, the kernel the base runs before the chain too)', 3],
])('60 layers, 2 ranks × 16 steps: rank 1 keeps a kernel of the chain %s in layer 30 of every step', (_, index) => {
  const spec: DecodeSpec = {
    ...DEEP,
    ranks: 2,
    steps: 16,
    kept: (rank, _step, layer) => (rank === 1 && layer === 30 ? index : null),
  };
  const pair = decodePair(spec);
  const r = findRewrites(pair.base, pair.pr);
  const w = main(r.rewrites);

  test('1,920 chains, 60 per step (not 59-60), the kept kernel named, and nothing else listed', () => {
    expect(pair.truth).toMatchObject({ chains: 1920, perStep: { min: 60, max: 60 }, kept: 16, keptSteps: 16 });
    expect([w.removed, w.chains, w.perStep, w.ranks]).toEqual([CHAIN, pair.truth.chains, pair.truth.perStep, ['0', '1']]);
    expect(w.kept).toEqual({ kernels: 16, steps: 16, tokens: [{ token: CHAIN[index]!, kernels: 16 }] });
    consistent(w, 32);
    // The duplicate dropped next to it, the same count; no chain made of the kept kernel and the kernels after it.
    expect(r.rewrites.map((x) => [x.removed, x.added, x.chains, x.perStep])).toEqual([
      [CHAIN, [FUSED], 1920, { min: 60, max: 60 }],
      [DUP, [], 1920, { min: 60, max: 60 }],
    ]);
  });

  test('the saving holds the kept kernels; the conservation and the time line add up with nothing left over', () => {
    const t = fusedChainTicks(pair, spec);
    expect(w.totalSavingTicks).toBe(t.pr + pair.truth.keptTicks - t.base);
    expect(r.conservation.rest).toEqual([]);
    expect(r.conservation.removedAccounted).toBe(r.conservation.removed);
    expect(r.conservation.removed - r.conservation.added).toBe(1920 * (CHAIN.length - 1 + DUP.length) - 16);
    const time = r.conservation.time;
    expect(time.rewrites).toBe(r.rewrites.reduce((a, x) => a + x.totalSavingTicks, 0));
    expect(time.rewrites + time.outside + time.unpaired).toBeCloseTo(time.named, 3);
  });
});

test('60 layers, 1 rank × 32 steps: the kernel kept in one step only, a layer not fused in another, a step of each side only', () => {
  const spec: DecodeSpec = {
    layers: LAYERS,
    dense: 3,
    mtp: false,
    dup: true,
    ranks: 1,
    steps: 32,
    kept: (_rank, step, layer) => (step === 5 && layer === 30 ? 12 : null),
    fused: (_rank, step, layer) => !(step === 9 && layer === 40),
    missing: (side, _rank, step) => (side === 0 && step === 20) || (side === 1 && step === 27),
  };
  const pair = decodePair(spec);
  const r = findRewrites(pair.base, pair.pr);
  const w = main(r.rewrites);
  // 30 steps on both sides: 29 × 60 + 59.
  expect(pair.truth).toMatchObject({ chains: 29 * 60 + 59, perStep: { min: 59, max: 60 }, kept: 1, keptSteps: 1 });
  expect([w.chains, w.perStep, w.kept.kernels, w.kept.steps]).toEqual([pair.truth.chains, pair.truth.perStep, 1, 1]);
  consistent(w, 30);
  expect(w.notFused.map((s) => [s.steps, s.layer, s.edits])).toEqual([[[10], 40, 0]]);
  const t = fusedChainTicks(pair, spec);
  expect(w.totalSavingTicks).toBe(t.pr + pair.truth.keptTicks - t.base);
  expect(r.conservation.rest).toEqual([]);
});

test.each([
  ['the first, before it', 0],
  ['a RmsNorm, before it', 1],
  ['the last, after it', 12],
])('a kernel of the chain kept beside the fused one in layer 0 (%s), whose chain follows RmsNorm, not AddRmsNorm', (_, index) => {
  // The base runs `AddRmsNorm DynamicQuant` before the chain in every layer but the first, where it runs `RmsNorm
  // DynamicQuant`: a kernel kept there was looked for against the other layers' context only, and not found.
  const spec: DecodeSpec = {
    ...DEEP,
    ranks: 2,
    steps: 4,
    kept: (rank, step, layer) => (layer === 0 && (rank === 0 || step === 1) ? index : null),
  };
  const pair = decodePair(spec);
  const r = findRewrites(pair.base, pair.pr);
  const w = main(r.rewrites);
  expect(pair.truth).toMatchObject({ chains: 480, kept: 5, keptSteps: 5 });
  expect([w.chains, w.perStep]).toEqual([480, { min: 60, max: 60 }]);
  expect(w.kept).toEqual({ kernels: 5, steps: 5, tokens: [{ token: CHAIN[index]!, kernels: 5 }] });
  const t = fusedChainTicks(pair, spec);
  expect(w.totalSavingTicks).toBe(t.pr + pair.truth.keptTicks - t.base);
  expect(r.conservation.rest).toEqual([]);
});

test('a rank that fused in some steps only: 0 in its other steps, and the range says so', () => {
  const spec: DecodeSpec = { layers: LAYERS, dense: 3, mtp: true, dup: false, ranks: 2, steps: 6, fused: (rank, step) => rank === 0 || step < 2 };
  const pair = decodePair(spec);
  const w = main(findRewrites(pair.base, pair.pr).rewrites);
  expect(pair.truth.perStep).toEqual({ min: 0, max: 60 });
  expect([w.chains, w.perStep, w.ranks]).toEqual([8 * 60, { min: 0, max: 60 }, ['0', '1']]);
  consistent(w, 12);
});

test('property: any depth, kept kernels, layers not fused, steps of one side only: chains, per step, kept and saving are the truth', () => {
  fc.assert(
    fc.property(
      fc.record({
        // From 4 layers: the representative step has a fused layer without the kept kernel to align the chain by.
        layers: fc.integer({ min: 4, max: 24 }),
        mtp: fc.boolean(),
        dup: fc.boolean(),
        ranks: fc.integer({ min: 1, max: 2 }),
        steps: fc.integer({ min: 2, max: 5 }),
        keptIndex: fc.integer({ min: 0, max: CHAIN.length - 1 }),
        // Layer 0 too: it starts the step with RmsNorm, not the AddRmsNorm the others run before the chain.
        keptLayer: fc.integer({ min: 0, max: 23 }),
        keptEvery: fc.integer({ min: 1, max: 3 }),
        offLayer: fc.integer({ min: 0, max: 23 }),
        offStep: fc.integer({ min: 0, max: 4 }),
        missing: fc.constantFrom('none', 'base', 'pr'),
        seed: fc.integer({ min: 1, max: 1_000_000 }),
      }),
      (s) => {
        const keptLayer = s.keptLayer % s.layers;
        const offLayer = s.offLayer % s.layers;
        fc.pre(offLayer !== keptLayer);
        const spec: DecodeSpec = {
          layers: s.layers,
          dense: 1,
          mtp: s.mtp,
          dup: s.dup,
          ranks: s.ranks,
          steps: s.steps,
          seed: s.seed,
          kept: (_rank, step, layer) => (layer === keptLayer && step % s.keptEvery === 0 ? s.keptIndex : null),
          fused: (rank, step, layer) => !(rank === 0 && step === s.offStep % s.steps && layer === offLayer),
          missing: (side, rank, step) =>
            s.missing !== 'none' && side === (s.missing === 'base' ? 0 : 1) && rank === s.ranks - 1 && step === s.steps - 1,
        };
        const pair = decodePair(spec);
        const r = findRewrites(pair.base, pair.pr);
        const w = main(r.rewrites);
        expect(w.removed).toEqual(CHAIN);
        expect([w.chains, w.perStep]).toEqual([pair.truth.chains, pair.truth.perStep]);
        expect([w.kept.kernels, w.kept.steps]).toEqual([pair.truth.kept, pair.truth.keptSteps]);
        const t = fusedChainTicks(pair, spec);
        expect(w.totalSavingTicks).toBe(t.pr + pair.truth.keptTicks - t.base);
        expect(r.conservation.rest).toEqual([]);
      },
    ),
    { numRuns: 40, seed: 2323 },
  );
});

test.each([
  ['layer 30, after it', 30, 12],
  ['layer 30, before it', 30, 5],
  ['layer 0, before it', 0, 0],
])('a kernel kept in the same layer of every step of every rank (%s): that layer is among the rewrite layers', (_, layer, index) => {
  // Every representative step aligns that layer otherwise (its chain → the fused kernel and the kept kernel), so no
  // site of the rewrite was there: the section said `60 per step · layers 0-29, 31-59`.
  const spec: DecodeSpec = {
    ...DEEP,
    ranks: 2,
    steps: 4,
    kept: (_rank, _step, l) => (l === layer ? index : null),
  };
  const pair = decodePair(spec);
  const w = main(findRewrites(pair.base, pair.pr).rewrites);
  expect([w.chains, w.perStep, w.kept.kernels]).toEqual([480, { min: 60, max: 60 }, 8]);
  expect(w.layers).toEqual(pair.truth.layers);
  expect(w.layerCount).toBe(LAYERS + 1);
});

test('a shorter rewrite inside a longer one keeps its chains: the longer claims the occurrences it replaced, not all', () => {
  // Each step of both ranks runs `A B C D` in 6 layers. The PR fuses them into `F1 F2 F3`, but on rank 0 layer 2 only
  // `B C` into `F1 F2` (`A F1 F2 D`). The longer rewrite claimed every occurrence of `A B C D` in the base (rank 0's
  // sixth too, as rank 1, which runs the same steps, replaced 6), and `B · C → F1 · F2` was dropped with its 6
  // chains (the conservation line listed B, C, F1 and F2).
  const layer = (i: number, body: string[]) => ['Mk', 'X', ...body, 'Y', `Z${i % 2}`];
  const unfused = (i: number) => layer(i, ['A', 'B', 'C', 'D']);
  const fused = (i: number) => layer(i, ['F1', 'F2', 'F3']);
  const partly = (i: number) => layer(i, i === 2 ? ['A', 'F1', 'F2', 'D'] : ['F1', 'F2', 'F3']);
  const [base, pr] = [
    [unfused, unfused],
    [partly, fused],
  ].map((ranks) => {
    const rec = new SequenceRecorder('type');
    ranks.forEach((of, rank) => {
      const r = rec.rank(String(rank));
      const s = rec.stream('2');
      let t = 0;
      for (let step = 1; step <= 6; step++)
        for (let i = 0; i < 6; i++)
          for (const k of of(i)) {
            rec.add(r, s, step, rec.table.intern(k), 10_000, t);
            t += 11_000;
          }
    });
    return rec.finish();
  });
  const r = findRewrites(base!, pr!);
  expect(r.rewrites.map((w) => [w.removed, w.added, w.chains, w.perStep, w.ranks])).toEqual([
    [['A', 'B', 'C', 'D'], ['F1', 'F2', 'F3'], 66, { min: 5, max: 6 }, ['0', '1']],
    [['B', 'C'], ['F1', 'F2'], 6, { min: 1, max: 1 }, ['0']],
  ]);
  expect(r.conservation.rest).toEqual([]);
});

// A kernel of the chain kept beside the fused one in every layer, in the middle of the chain: the alignment draws the
// change as two, a kernel apart (`QuantBatchMatmulV3` removed, a `RmsNorm` kept, the rest → MlaPrologV3). It was
// listed as two rewrites whose chains claimed one RmsNorm too many (the conservation line said so); it is one rewrite
// of the whole chain with the kernel kept, where the kept kernel is of a kind the chain runs twice. (A kept
// DynamicQuant, of a kind it runs once, reads as a neighbour between two changes: two rewrites, exact, below.)
describe.each([
  ['RmsNorm, the second', 1],
  ['InterleaveRope, the seventh', 6],
])('61 layers: every layer keeps %s kernel of the chain beside the fused one', (_, index) => {
  for (const dup of [false, true]) {
    test(`one rewrite of the whole chain, the kernel kept, its saving and the conservation exact${dup ? ' (the duplicate dropped beside it)' : ''}`, () => {
      const spec: DecodeSpec = { layers: 61, dense: 3, mtp: false, dup, ranks: 2, steps: 8, kept: () => index };
      const pair = decodePair(spec);
      const r = findRewrites(pair.base, pair.pr);
      const w = main(r.rewrites);
      expect([w.removed, w.added, w.chains, w.perStep]).toEqual([CHAIN, [FUSED], pair.truth.chains, pair.truth.perStep]);
      expect(w.kept).toEqual({ kernels: pair.truth.kept, steps: 16, tokens: [{ token: CHAIN[index]!, kernels: pair.truth.kept }] });
      const t = fusedChainTicks(pair, spec);
      expect(w.totalSavingTicks).toBe(t.pr + pair.truth.keptTicks - t.base);
      expect(r.rewrites.length).toBe(dup ? 2 : 1);
      expect(r.conservation.rest).toEqual([]);
    });
  }
});

test('61 layers: every layer keeps DynamicQuant, a kind the chain runs once: two rewrites, every kernel accounted for', () => {
  const spec: DecodeSpec = { layers: 61, dense: 3, mtp: false, dup: false, ranks: 2, steps: 8, kept: () => 3 };
  const pair = decodePair(spec);
  const r = findRewrites(pair.base, pair.pr);
  expect(r.rewrites.map((w) => [w.removed, w.added, w.chains])).toEqual([
    [CHAIN.slice(4), [FUSED], pair.truth.chains],
    [CHAIN.slice(0, 3), [], pair.truth.chains],
  ]);
  expect(r.conservation.rest).toEqual([]);
  // The kept DynamicQuant is in neither chain: its change is outside them, and the Time line adds up.
  const time = r.conservation.time;
  expect(time.rewrites).toBe(r.rewrites.reduce((n, w) => n + w.totalSavingTicks, 0));
  expect(time.named).toBe(time.rewrites + time.outside + time.unpaired);
});
