// The rewrites engine on generated decode steps (test/decodeGen.ts) at real depth (60 and 128 layers, with and
// without an MTP layer), and property tests over random depth, dense layers, the duplicate dropped next to the
// chain, ranks and fusion by rank and step: the chain is exactly the one replaced, the counts, layers and ranks are
// the truth's, and every kernel the PR lost or gained is accounted for.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { findRewrites } from '../src/analysis/rewrites/rewrites.js';
import { CHAIN, DUP, decodePair, FUSED } from './decodeGen.js';

const range = (n: number) => [...Array(n).keys()];

/** The generated pairs' shape: depth, dense layers, MTP, the duplicate, ranks, and per rank fused in every step or in none. */
const SHAPE = {
  layers: fc.integer({ min: 1, max: 24 }),
  dense: fc.integer({ min: 0, max: 3 }),
  mtp: fc.boolean(),
  dup: fc.boolean(),
  ranks: fc.integer({ min: 1, max: 3 }),
  fusedRanks: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
};

describe.each([
  [60, true],
  [60, false],
  [128, true],
])('%i decoder layers (MTP layer: %s), 2 ranks, 6 steps', (layers, mtp) => {
  const { base, pr, truth } = decodePair({ layers, dense: 3, mtp, dup: true, ranks: 2, steps: 6 });
  const r = findRewrites(base, pr);
  test('the chain and the duplicate: two rewrites, each once per layer of every step, every layer, both ranks', () => {
    expect(r.rewrites.map((w) => [w.removed, w.added, w.perStep, w.chains, w.layers, w.ranks])).toEqual([
      [CHAIN, [FUSED], { min: layers, max: layers }, truth.chains, range(layers), ['0', '1']],
      [DUP, [], { min: layers, max: layers }, truth.chains, range(layers), ['0', '1']],
    ]);
    expect(r.marker?.token).toBe('LightningIndexer');
    expect(r.rewrites[0]!.notFused.map((s) => s.layer)).toEqual(mtp ? [layers, layers] : []);
    expect(r.conservation.rest).toEqual([]);
  });
});

test('property: any depth, dense layers, duplicate or not, fusion by rank and step: exact chains, layers, ranks; all accounted for', () => {
  fc.assert(
    fc.property(
      fc.record({
        ...SHAPE,
        steps: fc.integer({ min: 1, max: 4 }),
      }),
      (s) => {
        fc.pre(s.fusedRanks.slice(0, s.ranks).some((x) => x));
        const spec = { ...s, dense: Math.min(s.dense, s.layers), fused: (rank: number) => s.fusedRanks[rank]! };
        const { base, pr, truth } = decodePair(spec);
        const r = findRewrites(base, pr);
        const main = r.rewrites.find((w) => w.added.length === 1 && w.added[0] === FUSED);
        expect(main?.removed).toEqual(CHAIN);
        expect(main?.chains).toBe(truth.chains);
        expect(main?.ranks).toEqual(truth.ranks);
        expect(main?.perStep).toEqual({ min: s.layers, max: s.layers });
        if (s.layers >= 3 || s.mtp) expect(main?.layers).toEqual(range(s.layers));
        const dup = r.rewrites.filter((w) => w !== main);
        expect(dup.map((w) => [w.removed, w.added, w.chains])).toEqual(s.dup ? [[DUP, [], truth.chains]] : []);
        // The figures add up: every kernel lost or gained is in a rewrite, and no token's change is counted twice.
        expect(r.conservation.rest).toEqual([]);
        expect(r.conservation.removedAccounted).toBe(r.conservation.removed);
        expect(r.conservation.addedAccounted).toBe(r.conservation.added);
        const lost = truth.chains * (CHAIN.length - 1 + (s.dup ? DUP.length : 0));
        expect(r.conservation.removed - r.conservation.added).toBe(lost);
      },
    ),
    { numRuns: 60, seed: 22 },
  );
});

/** Σ durations of the exact occurrences of `chain` (left to right, none overlapping) and of `alone` kernels. */
function chainTime(kernels: string[], durations: number[], chain: readonly string[], alone: string | null = null): number {
  let t = 0;
  for (let i = 0; i < kernels.length; ) {
    if (kernels[i] === alone) {
      t += durations[i]!;
      i++;
    } else if (chain.every((k, j) => kernels[i + j] === k)) {
      for (let j = 0; j < chain.length; j++) t += durations[i + j]!;
      i += chain.length;
    } else i++;
  }
  return t;
}

test('property: the savings are the measured change of their kernels and the time line adds up, at any depth, chain length, adjacency and partial fusion', () => {
  fc.assert(
    fc.property(
      fc.record({
        ...SHAPE,
        steps: fc.integer({ min: 1, max: 5 }),
        chainLength: fc.integer({ min: 3, max: CHAIN.length }),
        // A step (fewer than half of them) in which a rank did not fuse, and layers never fused.
        stepOff: fc.integer({ min: 0, max: 4 }),
        layerOff: fc.integer({ min: 0, max: 5 }),
        seed: fc.integer({ min: 1, max: 1_000_000 }),
      }),
      (s) => {
        fc.pre(s.fusedRanks.slice(0, s.ranks).some((x) => x));
        const chain = CHAIN.slice(0, s.chainLength);
        const offStep = s.steps >= 3 ? s.stepOff % s.steps : -1;
        // layerOff 0: every layer fused; else every layerOff-th layer (from 1) keeps the chain.
        const offLayer = (l: number): boolean => s.layerOff > 0 && l % (s.layerOff + 1) === 1;
        fc.pre([...Array(s.layers).keys()].some((l) => !offLayer(l)));
        const spec = {
          ...s,
          chain,
          dense: Math.min(s.dense, s.layers),
          fused: (rank: number, step: number, layer: number) => s.fusedRanks[rank]! && step !== offStep && !offLayer(layer),
        };
        const { base, pr, truth, steps, durations } = decodePair(spec);
        const r = findRewrites(base, pr);
        const main = r.rewrites.find((w) => w.added.length === 1 && w.added[0] === FUSED)!;
        expect(main.removed).toEqual(chain);
        expect(main.chains).toBe(truth.chains);
        // The truth, from the generator's own kernels: every exact occurrence of each rewrite's chains, PR less base.
        const sideTime = (side: 0 | 1, c: readonly string[], alone: string | null): number =>
          steps[side]
            .flatMap((perStep, rank) => perStep.map((k, step) => chainTime(k, durations[side][rank]![step]!, c, alone)))
            .reduce((a, b) => a + b, 0);
        expect(main.totalSavingTicks).toBe(sideTime(1, chain, FUSED) - sideTime(0, chain, null));
        const dup = r.rewrites.find((w) => w !== main);
        if (s.dup) expect(dup!.totalSavingTicks).toBe(sideTime(1, DUP, null) - sideTime(0, DUP, null));
        else expect(dup).toBeUndefined();
        // The time line: the named groups' change (the generator's sums), split into the savings and the rest.
        const named = new Set([...chain, FUSED, ...(s.dup ? DUP : [])]);
        const change = [...named].reduce((a, t) => a + (truth.time[1].get(t) ?? 0) - (truth.time[0].get(t) ?? 0), 0);
        const t = r.conservation.time;
        expect(t.named).toBe(change);
        expect(t.rewrites).toBe(r.rewrites.reduce((a, w) => a + w.totalSavingTicks, 0));
        expect(t.rewrites + t.outside + t.unpaired).toBeCloseTo(t.named, 3);
        expect([t.unpaired, t.exact]).toEqual([0, true]);
      },
    ),
    { numRuns: 40, seed: 2212 },
  );
});
