// The rewrites engine on generated decode steps (test/decodeGen.ts) at real depth (60 and 128 layers, with and
// without an MTP layer), and property tests over random depth, dense layers, the duplicate dropped next to the
// chain, ranks and fusion by rank and step: the chain is exactly the one replaced, the counts, layers and ranks are
// the truth's, and every kernel the PR lost or gained is accounted for.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { findRewrites } from '../src/analysis/rewrites/rewrites.js';
import { CHAIN, DUP, decodePair, FUSED } from './decodeGen.js';

const range = (n: number) => [...Array(n).keys()];

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
        layers: fc.integer({ min: 1, max: 24 }),
        dense: fc.integer({ min: 0, max: 3 }),
        mtp: fc.boolean(),
        dup: fc.boolean(),
        ranks: fc.integer({ min: 1, max: 3 }),
        steps: fc.integer({ min: 1, max: 4 }),
        // Per rank: fused in every step, or in none.
        fusedRanks: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
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
