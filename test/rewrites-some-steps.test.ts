// Fusions made in some steps only, and kernels moved beside a fusion, at 61 layers. The truth is the generator's:
// which steps and layers it fused, and each kernel's duration. A fusion in some steps only read "None: the most
// frequent step of each side is the same kernel sequence"; a fused kernel that runs a kernel later than the chain it
// replaced read as the chain removed and the fused kernel added, two rewrites and no fusion.

import { describe, expect, test } from 'vitest';
import { mergeMoves } from '../src/analysis/rewrites/moves.js';
import { findRewrites } from '../src/analysis/rewrites/rewrites.js';
import { recordSteps } from './recordSteps.js';

const LAYERS = 61;
const STEPS = 8;
/** Kernels of a layer that no change touches. */
const FILL = Array.from({ length: 30 }, (_, i) => `K${i % 10}`);
const LAYER = ['LightningIndexer', 'SparseFlashAttention', 'A', 'B', 'C', 'D', 'E', 'ZerosLike', ...FILL];
/** Ticks of a kernel: its own, so that each rewrite's saving is known. */
const DUR: Record<string, number> = { A: 11_000, B: 12_000, C: 13_000, D: 14_000, E: 15_000, F: 20_000, G: 7_000, Tail: 9_000 };
const dur = (k: string): number => DUR[k] ?? 5_000;

/** Steps of LAYERS layers on `ranks` ranks; layer l of a step is `layer(rank, step, l)`. */
function record(layer: (rank: number, step: number, l: number) => string[], ranks = 1) {
  return recordSteps({ ranks, layers: LAYERS, steps: STEPS, layer, dur });
}

const base = record(() => LAYER);
const swap = (l: string[], from: string[], to: string[]): string[] => {
  const i = l.indexOf(from[0]!);
  return [...l.slice(0, i), ...to, ...l.slice(i + from.length)];
};

describe('a fusion in some steps only', () => {
  test('two fusions too small to make a kind of step, each in steps of its own, beside a warm-up step: each found, exact', () => {
    // Steps 3 and 4 fuse A B C into F in layers 0-1; steps 6 and 7 fuse D E into G in layer 5; step 1 runs a warm-up
    // kernel the base never runs.
    const pr = record((_r, s, l) => {
      if ((s === 3 || s === 4) && l <= 1) return swap(LAYER, ['A', 'B', 'C'], ['F']);
      if ((s === 6 || s === 7) && l === 5) return swap(LAYER, ['D', 'E'], ['G']);
      if (s === 1 && l === 0) return ['Warmup', ...LAYER];
      return LAYER;
    });
    const r = findRewrites(base, pr);
    const got = r.rewrites.map((w) => [w.removed.join(' '), w.added.join(' '), w.chains, w.totalSavingTicks]);
    expect(got).toContainEqual(['A B C', 'F', 4, 4 * (20_000 - 36_000)]);
    expect(got).toContainEqual(['D E', 'G', 2, 2 * (7_000 - 29_000)]);
    expect(r.notes).toContainEqual({ kind: 'some-steps', rewrites: r.rewrites.length, steps: 2, of: STEPS });
  });
  test('fused in two steps that also swapped two kernels of each layer: the fusion, exact (the swap changes no count)', () => {
    const pr = record((_r, s) => {
      if (s !== 3 && s !== 4) return LAYER;
      const l = swap(LAYER, ['A', 'B', 'C'], ['F']);
      return swap(l, ['K1', 'K2'], ['K2', 'K1']);
    });
    const r = findRewrites(base, pr);
    expect(r.rewrites.map((w) => [w.removed.join(' '), w.added.join(' '), w.chains, w.totalSavingTicks])).toEqual([
      ['A B C', 'F', 2 * LAYERS, 2 * LAYERS * (20_000 - 36_000)],
    ]);
  });
  test('a prefill step of the PR alone, whose attention is a kernel of its own and which drops a kernel in each layer: nothing listed', () => {
    // At Step Id 1 the PR profiled a prefill step where the base profiled a decode step.
    const prefill = (l: string[]) => swap(swap(l, ['LightningIndexer', 'SparseFlashAttention'], ['FlashAttentionScore']), ['ZerosLike'], []);
    const pr = record((_r, s) => (s === 1 ? prefill(LAYER) : LAYER));
    const r = findRewrites(base, pr);
    expect(r.rewrites).toEqual([]);
    expect(r.notes.map((n) => n.kind)).not.toContain('some-steps');
  });
  test('with a fusion of its own in every step beside it: that fusion alone', () => {
    const fused = swap(LAYER, ['A', 'B', 'C'], ['F']);
    const prefill = (l: string[]) => swap(swap(l, ['LightningIndexer', 'SparseFlashAttention'], ['FlashAttentionScore']), ['ZerosLike'], []);
    const pr = record((_r, s) => (s === 1 ? prefill(fused) : fused));
    const r = findRewrites(base, pr);
    expect(r.rewrites.map((w) => [w.removed.join(' '), w.added.join(' '), w.chains])).toEqual([['A B C', 'F', LAYERS * STEPS]]);
  });
});

describe('kernels moved beside a fusion', () => {
  test.each<[string, string[]]>([
    ['the fused kernel a kernel later: A B C D E → D F E', ['D', 'F', 'E']],
    ['the kernels after it swapped: A B C D E → F E D', ['F', 'E', 'D']],
    ['the fused kernel two kernels later: A B C D E → D E F', ['D', 'E', 'F']],
    ['the fused kernel three kernels later: A B C D E ZerosLike → D E ZerosLike F', ['D', 'E', 'ZerosLike', 'F']],
  ])('%s: one rewrite A B C → F, its saving the chain’s', (_name, after) => {
    const from = after.includes('ZerosLike') ? ['A', 'B', 'C', 'D', 'E', 'ZerosLike'] : ['A', 'B', 'C', 'D', 'E'];
    const pr = record(() => swap(LAYER, from, after));
    const r = findRewrites(base, pr);
    expect(r.rewrites.map((w) => [w.removed.join(' '), w.added.join(' '), w.chains])).toEqual([['A B C', 'F', LAYERS * STEPS]]);
    const w = r.rewrites[0]!;
    expect(w.totalSavingTicks).toBe(LAYERS * STEPS * (20_000 - 36_000));
    expect([w.base!.medianTicks, w.pr!.medianTicks]).toEqual([36_000, 20_000]);
    expect(r.conservation.rest).toEqual([]);
  });
  // In the odd steps the chain is fused whole, a kernel later; in the even ones a kernel of it is kept beside the
  // fused kernel, with the chain's neighbours moved between them. The kept kernel's time is no saving: an even step
  // saves F − (the chain less the kept kernel). It was counted as removed (saving overstated, the conservation line
  // explaining twice the B that went).
  test.each<[string, string[], string]>([
    ['B kept before the moved neighbour: B D F E', ['B', 'D', 'F', 'E'], 'B'],
    ['B kept past the moved neighbour: D B F E', ['D', 'B', 'F', 'E'], 'B'],
    ['B kept after the fused kernel, the neighbour moved before it: D F B E', ['D', 'F', 'B', 'E'], 'B'],
    ['B kept before both neighbours: B D E F', ['B', 'D', 'E', 'F'], 'B'],
    ['B kept after the fused kernel, both neighbours moved before it: D E F B', ['D', 'E', 'F', 'B'], 'B'],
    ['A kept: A D F E', ['A', 'D', 'F', 'E'], 'A'],
  ])('a kernel of the chain kept in half the steps, %s: one rewrite, the kept kernel counted, its time no saving', (_name, even, keep) => {
    const pr = record((_r, s) => swap(LAYER, ['A', 'B', 'C', 'D', 'E'], s % 2 === 1 ? ['D', 'F', 'E'] : even));
    const r = findRewrites(base, pr);
    const half = (LAYERS * STEPS) / 2;
    expect(r.rewrites.map((w) => [w.removed.join(' '), w.added.join(' '), w.chains])).toEqual([['A B C', 'F', LAYERS * STEPS]]);
    const w = r.rewrites[0]!;
    expect(w.kept.kernels).toBe(half);
    expect(w.kept.tokens).toEqual([{ token: keep, kernels: half }]);
    expect(w.totalSavingTicks).toBe(half * (20_000 - 36_000) + half * (20_000 - 36_000 + DUR[keep]!));
    expect(r.conservation.rest).toEqual([]);
  });
  test.each<[string, string[]]>([
    ['in place: A B C → B F', ['B', 'F', 'D', 'E']],
    ['before the moved neighbour: B D F E', ['B', 'D', 'F', 'E']],
    ['moved with the fused kernel: D B F E', ['D', 'B', 'F', 'E']],
  ])('B kept in every step, %s: one fusion A B C → F with B kept, not A → nothing and C → F', (_name, after) => {
    const pr = record(() => swap(LAYER, ['A', 'B', 'C', 'D', 'E'], after));
    const r = findRewrites(base, pr);
    expect(r.rewrites.map((w) => [w.removed.join(' '), w.added.join(' '), w.chains])).toEqual([['A B C', 'F', LAYERS * STEPS]]);
    const w = r.rewrites[0]!;
    expect(w.kept.tokens).toEqual([{ token: 'B', kernels: LAYERS * STEPS }]);
    expect(w.totalSavingTicks).toBe(LAYERS * STEPS * (20_000 - 36_000 + 12_000));
    expect(r.conservation.rest).toEqual([]);
  });
  test('mergeMoves: what is one change with kernels moved, and what is not', () => {
    const t = (s: string) => Int32Array.from(s.split(' ').map((c) => c.charCodeAt(0)));
    const h = (aStart: number, aLen: number, bStart: number, bLen: number) => ({ aStart, aLen, bStart, bLen });
    // F, G and D are kernels no base step runs; the others the base runs.
    const merge = (a: string, b: string, hunks: ReturnType<typeof h>[], novel = 'FGD') =>
      mergeMoves(t(a), t(b), hunks, (x) => novel.includes(String.fromCharCode(x)));
    type H = ReturnType<typeof h>;
    // Each case: why, the base's and the PR's kernels, the hunks, what mergeMoves makes of them ('kept': the hunks as
    // they are), and the kernels no base step runs (F, G and D unless said).
    const cases: [string, string, string, H[], H[] | 'kept', string?][] = [
      ['A B C removed, D kept, F added', 'A B C D E', 'D F E', [h(0, 3, 0, 0), h(4, 0, 1, 1)], [h(0, 3, 1, 1)]],
      ['A B C D → F, then D added after E', 'A B C D E', 'F E D', [h(0, 4, 0, 1), h(5, 0, 2, 1)], [h(0, 3, 0, 1)]],
      ['X moved across Y: nothing changed (the profile’s counts judge the hunks)', 'X Y', 'Y X', [h(0, 1, 0, 0), h(2, 0, 1, 1)], 'kept'],
      ['three unchanged kernels apart: two changes', 'A P Q R E', 'P Q R F E', [h(0, 1, 0, 0), h(4, 0, 3, 1)], 'kept'],
      ['side by side (no kernel between): splitDuplicates made them apart', 'A B', 'F', [h(0, 1, 0, 1), h(1, 1, 1, 0)], 'kept'],
      ['two substitutions a kernel apart that share no kernel', 'A K B', 'F K G', [h(0, 1, 0, 1), h(2, 1, 2, 1)], 'kept'],
      // The kernel between of a kind the chain runs besides: one chain A K K C replaced by D, a K of it kept beside D.
      ['a removal a kernel before a replacement', 'A K K C', 'K D', [h(0, 2, 0, 0), h(3, 1, 1, 1)], [h(0, 4, 1, 1)]],
      ['a replacement a kernel before a removal', 'A K K C', 'D K', [h(0, 2, 0, 1), h(3, 1, 2, 0)], [h(0, 4, 0, 1)]],
      // A kernel between of a kind the chain runs once: kept when the replacement alone is no fusion (C → D, one for
      // one: the merge makes the fusion), a neighbour dropped beside a fusion when it is one (B C → D).
      ['a kernel of the chain kept, the replacement alone one for one', 'A B K C', 'K D', [h(0, 2, 0, 0), h(3, 1, 1, 1)], [h(0, 4, 1, 1)]],
      ['a neighbour dropped a kernel before a fusion', 'A K B C', 'K D', [h(0, 1, 0, 0), h(2, 2, 1, 1)], 'kept'],
      // Three hunks: A and C removed, B kept between them, F added past the moved D; or B kept after F.
      [
        'a kernel of the chain kept, the fused kernel a kernel later',
        'A B C D E',
        'B D F E',
        [h(0, 1, 0, 0), h(2, 1, 1, 0), h(4, 0, 2, 1)],
        [h(0, 3, 2, 1)],
      ],
      ['a kernel of the chain kept, moved with the fused kernel', 'A B C D E', 'D B F E', [h(0, 3, 0, 0), h(4, 0, 1, 2)], [h(0, 3, 2, 1)]],
      // M moved two kernels earlier: D M → F is no fusion alone (it removed M only to add it back), so S and I are kept.
      ['two kernels of the chain kept, a neighbour moved before them', 'G S I D M X', 'M S I F X', [h(0, 1, 0, 1), h(3, 2, 3, 1)], [h(0, 4, 3, 1)]],
      [
        'three kernels between the removals: more than a chain keeps (KEPT_GAP), apart',
        'A X Y Z C D E',
        'X Y Z D F E',
        [h(0, 1, 0, 0), h(4, 1, 3, 0), h(6, 0, 4, 1)],
        'kept',
      ],
      ['the chain would end with a copy of the kernels after it dropped', 'A S S S M N M N', 'F S M N', [h(0, 2, 0, 1), h(3, 3, 2, 0)], 'kept'],
      ['a kernel dropped and one the base runs (T) added a kernel later', 'A B K', 'K T', [h(0, 2, 0, 0), h(3, 0, 1, 1)], 'kept'],
      ['one dropped and a new one added a kernel later (1 → 1, no fusion)', 'A K', 'K F', [h(0, 1, 0, 0), h(2, 0, 1, 1)], 'kept'],
      // The fused kernel N (D M S) runs two kernels earlier, the second M still right after it: M paired with its last.
      ['a kind twice in the stretch', 'G I D M S M X', 'N M G I X', [h(0, 0, 0, 2), h(2, 4, 4, 0)], [h(2, 3, 0, 1)], 'N'],
      ['X moved, but what is left is not a run (A and B lost, X between them moved)', 'A X B K', 'K X', [h(0, 3, 0, 0), h(4, 0, 1, 1)], 'kept'],
    ];
    for (const [why, a, b, hunks, want, novel] of cases) expect(merge(a, b, hunks, novel), why).toEqual(want === 'kept' ? hunks : want);
  });
});
