// A profile of prefill and decode steps: a fusion on the prefill path changes only the prefill steps, which the
// lane's most frequent shape (a decode step) does not show. Each class of steps (stepClasses.ts) is aligned with the
// other side's, so such a fusion is listed, exact, beside the decode one; a class of one side only, or decode steps
// that ran a kernel more, add nothing. Truth from the generators below and test/decodeGen.ts.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { findRewrites } from '../src/analysis/rewrites/rewrites.js';
import { SequenceRecorder, type Sequences } from '../src/analysis/rewrites/sequence.js';
import { byFrequency, classPairs, shapeBound, stepClasses } from '../src/analysis/rewrites/stepClasses.js';
import { CHAIN, decodeStep, FUSED, writeDecodeCsv } from './decodeGen.js';
import { kprof } from './helpers.js';
import { tokenSeq } from './tokenArbs.js';

/** The prefill path's chain the PR fuses (in prefill steps only), and what replaces it. */
const ROPE = ['RotaryMul', 'Cast', 'DynamicQuant', 'ScatterPaKvCache'];
const ROPE_FUSED = 'RopeQuantKvcache';

/** A prefill step of `layers` layers: the indexer runs in it as in decode steps, the attention is another kernel. */
function prefillStep(layers: number, fused: boolean): string[] {
  const out = ['GatherV2'];
  for (let l = 0; l < layers; l++) {
    out.push(l === 0 ? 'RmsNorm' : 'AddRmsNorm', 'DynamicQuant', 'QuantBatchMatmulV3', 'RmsNorm');
    out.push(...(fused ? [ROPE_FUSED] : ROPE));
    out.push('LightningIndexer', 'FlashAttentionScore', 'BatchMatMulV3', 'QuantBatchMatmulV3', 'AddRmsNorm');
    out.push('MatMulV3', 'GroupedMatmul', 'SwiGlu', 'GroupedMatmul');
  }
  out.push('AddRmsNorm', 'MatMulV3', 'ArgMaxV2');
  return out;
}

interface MixedSpec {
  layers: number;
  ranks: number;
  steps: number;
  /** Steps (0-based) that are prefill steps on the base; on the PR too unless `prefillOnBaseOnly`. */
  prefill: ReadonlySet<number>;
  /** The PR fuses the prefill chain (ROPE → ROPE_FUSED) in its prefill steps. */
  fusePrefill: boolean;
  /** The PR fuses the MLA prolog (CHAIN → FUSED) in its decode steps. */
  fuseDecode: boolean;
  /** The PR's steps are all decode steps (it profiled no prefill). */
  prefillOnBaseOnly?: boolean;
  /** The base's steps are all decode steps (it profiled no prefill). */
  prefillOnPrOnly?: boolean;
  /** Base decode steps (0-based) that ran one Cast more at their end. */
  extraCast?: ReadonlySet<number>;
}

/** The two sides' sequences of a mixed run, and their steps as types ([side][rank][step][kernel]). */
function mixedPair(spec: MixedSpec): { base: Sequences; pr: Sequences; steps: [string[][][], string[][][]] } {
  const decode = { layers: spec.layers, dense: 1, mtp: false, dup: false, ranks: spec.ranks, steps: spec.steps };
  const steps: [string[][][], string[][][]] = [[], []];
  const seqs = ([0, 1] as const).map((side) => {
    const rec = new SequenceRecorder('type');
    const s = rec.stream('2');
    for (let rank = 0; rank < spec.ranks; rank++) {
      const r = rec.rank(String(rank));
      steps[side].push([]);
      let t = 0;
      for (let step = 0; step < spec.steps; step++) {
        const pr = side === 1;
        const prefill = spec.prefill.has(step) && !(pr && spec.prefillOnBaseOnly === true) && !(!pr && spec.prefillOnPrOnly === true);
        const kernels = prefill ? prefillStep(spec.layers, pr && spec.fusePrefill) : decodeStep(decode, pr && spec.fuseDecode, () => true);
        if (!pr && !prefill && spec.extraCast?.has(step) === true) kernels.push('Cast');
        steps[side][rank]!.push(kernels);
        for (const k of kernels) {
          rec.add(r, s, step + 1, rec.table.intern(k), 40_000, t);
          t += 50_000;
        }
      }
    }
    return rec.finish();
  });
  return { base: seqs[0]!, pr: seqs[1]!, steps };
}

const range = (n: number) => [...Array(n).keys()];

describe('step classes', () => {
  const t = (...xs: number[]) => Int32Array.from(xs);
  // 0: a decode step; 1: the same with a kernel more; 2: a prefill step; 3: a decode step cut short by 2 kernels.
  const decode = t(...range(40).map((i) => i % 10));
  const tokens = [decode, t(...decode, 3), t(...range(40).map((i) => 10 + (i % 7))), decode.subarray(0, 38)];
  const bound = shapeBound(tokens, tokens);
  test('a shape founds a class when over a tenth of its kernels differ by count from every class so far', () => {
    expect(stepClasses([0, 1, 2, 3], tokens, bound)).toEqual({
      reps: [0, 2],
      of: new Map([
        [0, 0],
        [1, 0],
        [2, 1],
        [3, 0],
      ]),
    });
    expect(stepClasses([1, 0, 3], tokens, bound).reps).toEqual([1]);
    expect(stepClasses([], tokens, bound).reps).toEqual([]);
  });
  test('the shapes of a lane from the most frequent, ties to the first seen', () => {
    const shapeOf = [5, 7, 7, 9, 5, 9];
    expect(byFrequency((i) => shapeOf[i]!, range(6))).toEqual([5, 7, 9]);
    expect(byFrequency((i) => shapeOf[i]!, [3, 1, 2])).toEqual([7, 9]);
  });
  test('classes pair when each is the other’s nearest; a class of one side only pairs with nothing', () => {
    // PR shapes: 0 decode (fused: a kernel less), 1 prefill (fused: two kernels less).
    const pr = [decode.subarray(1), tokens[2]!.subarray(2)];
    const across = shapeBound(tokens, pr);
    expect(classPairs([0, 2], [0, 1], across)).toEqual([[2, 1]]);
    expect(classPairs([0, 2], [0], across)).toEqual([]);
    expect(classPairs([0], [0, 1], across)).toEqual([]);
  });
  test('classes pair by the steps of one Step Id on both sides, where there are such steps; by their kernels where not', () => {
    // By kernels, base class 2 is nearest the PR's representative 0 (the PR fused what set it apart); its steps are
    // of PR class 1, whose steps are of base class 2 in turn.
    const across: (b: number, p: number) => number = (b, p) => (b === 2 && p === 0 ? 1 : 10);
    expect(classPairs([0, 2], [0, 1], across)).toEqual([]);
    // Each case: the steps of each base class (rows) that are of each PR class (columns), and the pairs made.
    const cases: [string, number[][], [number, number][]][] = [
      [
        'its steps are of PR class 1, whose steps are its in turn',
        [
          [9, 0],
          [0, 2],
        ],
        [[2, 1]],
      ],
      [
        'its steps mostly of the PR’s representative: not paired again',
        [
          [9, 0],
          [2, 1],
        ],
        [],
      ],
      // Prefill steps at Step Ids 1 and 7 on the base, 1 and 8 on the PR.
      [
        'as many of its steps of the PR’s representative as of PR class 1: a tie with a representative goes to the other',
        [
          [9, 1],
          [1, 1],
        ],
        [[2, 1]],
      ],
      [
        'PR class 1’s steps are mostly of the base’s representative: not mutual',
        [
          [0, 5],
          [0, 2],
        ],
        [],
      ],
    ];
    for (const [why, together, pairs] of cases) expect(classPairs([0, 2], [0, 1], across, together), why).toEqual(pairs);
  });
});

describe('a fusion in the prefill steps only, beside one in the decode steps, at 60 layers', () => {
  const layers = 60;
  const spec: MixedSpec = { layers, ranks: 2, steps: 24, prefill: new Set([0, 12]), fusePrefill: true, fuseDecode: true };
  const { base, pr } = mixedPair(spec);
  const r = findRewrites(base, pr);
  test('both are listed, each its chain whole, with the truth’s chains, per-step count, layers and ranks', () => {
    const byAdded = new Map(r.rewrites.map((w) => [w.added.join(' '), w]));
    expect([...byAdded.keys()].sort()).toEqual([FUSED, ROPE_FUSED].sort());
    const rope = byAdded.get(ROPE_FUSED)!;
    expect(rope.removed).toEqual(ROPE);
    expect(rope.chains).toBe(2 * 2 * layers);
    // Over every step of the ranks: the decode steps replaced none.
    expect(rope.perStep).toEqual({ min: 0, max: layers });
    expect(rope.ranks).toEqual(['0', '1']);
    expect(rope.layers).toEqual(range(layers));
    const prolog = byAdded.get(FUSED)!;
    expect(prolog.removed).toEqual(CHAIN);
    expect(prolog.chains).toBe(2 * 22 * layers);
    expect(prolog.layers).toEqual(range(layers));
  });
  test('every kernel the PR lost or gained is accounted for, and the lanes are the decode steps’', () => {
    expect(r.conservation.rest).toEqual([]);
    expect(r.conservation.removed).toBe(r.conservation.removedAccounted);
    expect(r.conservation.added).toBe(r.conservation.addedAccounted);
    expect(r.lanes.map((l) => [l.status, l.base?.repSteps, l.base?.steps])).toEqual([
      ['aligned', 22, 24],
      ['aligned', 22, 24],
    ]);
  });
  test('the prefill fusion alone is found too, its layers by the marker of the prefill steps', () => {
    const only = mixedPair({ ...spec, fuseDecode: false });
    const w = findRewrites(only.base, only.pr);
    expect(w.rewrites.map((x) => [x.removed, x.added, x.chains, x.layers])).toEqual([[ROPE, [ROPE_FUSED], 2 * 2 * layers, range(layers)]]);
    expect(w.conservation.rest).toEqual([]);
  });
});

describe('a prefill step alike in its counts, its attention another kernel', () => {
  // Decode steps with SparseFlashAttention; the prefill step runs FlashAttentionScore in its place (some 3% of its
  // kernels, 6% by count: under a tenth), and the PR fuses it with the BatchMatMulV3 after it, in prefill only.
  // `prIds`: the PR's first Step Id.
  const pair = (prIds: number): Sequences[] => {
    const spec = { layers: 8, dense: 1, mtp: false, dup: false, ranks: 1, steps: 10 };
    return ([0, 1] as const).map((side) => {
      const rec = new SequenceRecorder('type');
      const r = rec.rank('0');
      const s = rec.stream('2');
      let t = 0;
      for (let step = 0; step < 10; step++) {
        let kernels = decodeStep(spec, false, () => false);
        if (step === 0) {
          kernels = kernels.join(' ').replaceAll('SparseFlashAttention', 'FlashAttentionScore').split(' ');
          if (side === 1) kernels = kernels.join(' ').replaceAll('FlashAttentionScore BatchMatMulV3', 'FlashAttnBmm').split(' ');
        }
        for (const k of kernels) {
          rec.add(r, s, step + (side === 1 ? prIds : 1), rec.table.intern(k), 40_000, t);
          t += 50_000;
        }
      }
      return rec.finish();
    });
  };
  test('is a kind of its own: a fusion there alone is listed, exact', () => {
    const seqs = pair(1);
    const r = findRewrites(seqs[0]!, seqs[1]!);
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains])).toEqual([[['FlashAttentionScore', 'BatchMatMulV3'], ['FlashAttnBmm'], 8]]);
    expect(r.conservation.rest).toEqual([]);
  });
  test('on a rank whose sides share no Step Id, its steps in order make the pair (as the chains are counted)', () => {
    // The PR's Step Ids from 101: the steps are compared in order; by kernel counts the PR's prefill step, its
    // attention fused away, is nearer the decode steps.
    const seqs = pair(101);
    const r = findRewrites(seqs[0]!, seqs[1]!);
    expect(r.notes.filter((n) => n.kind === 'no-common-steps')).toEqual([]);
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains])).toEqual([[['FlashAttentionScore', 'BatchMatMulV3'], ['FlashAttnBmm'], 8]]);
    expect(r.conservation.rest).toEqual([]);
  });
});

describe('classes that must add nothing', () => {
  test('prefill steps profiled on the base only: the decode fusion alone, no rewrite made of prefill against decode', () => {
    const { base, pr } = mixedPair({
      layers: 8,
      ranks: 2,
      steps: 12,
      prefill: new Set([0]),
      fusePrefill: false,
      fuseDecode: true,
      prefillOnBaseOnly: true,
    });
    const r = findRewrites(base, pr);
    expect(r.rewrites.map((w) => [w.removed, w.added])).toEqual([[CHAIN, [FUSED]]]);
  });
  test('prefill steps profiled on the PR only: the decode fusion alone, no rewrite made of decode against prefill', () => {
    for (const layers of [8, 61]) {
      const { base, pr } = mixedPair({
        layers,
        ranks: 2,
        steps: 12,
        prefill: new Set([0, 5]),
        fusePrefill: false,
        fuseDecode: true,
        prefillOnPrOnly: true,
      });
      const r = findRewrites(base, pr);
      expect(
        r.rewrites.map((w) => [w.removed, w.added]),
        `${layers} layers`,
      ).toEqual([[CHAIN, [FUSED]]]);
      expect(r.notes.map((n) => n.kind)).not.toContain('some-steps');
    }
  });
  test('decode steps that ran a kernel more stay in their class: no rewrite of it', () => {
    const { base, pr } = mixedPair({
      layers: 8,
      ranks: 2,
      steps: 12,
      prefill: new Set([0]),
      fusePrefill: true,
      fuseDecode: true,
      extraCast: new Set([3, 7]),
    });
    const r = findRewrites(base, pr);
    expect(r.rewrites.map((w) => w.added.join(' ')).sort()).toEqual([FUSED, ROPE_FUSED].sort());
  });
  test('a profile of decode steps only gives what it gave before: one rewrite, no other class aligned', () => {
    const { base, pr } = mixedPair({
      layers: 8,
      ranks: 1,
      steps: 6,
      prefill: new Set(),
      fusePrefill: false,
      fuseDecode: true,
      extraCast: new Set([2]),
    });
    const r = findRewrites(base, pr);
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains])).toEqual([[CHAIN, [FUSED], 6 * 8]]);
  });
});

describe('a last step cut short on both sides, a class of its own', () => {
  test('the layer marker is chosen by the rewrites of the most frequent steps: the fusion is in every layer', () => {
    // 60 layers (3 dense, SwiGlu in those only) and an MTP layer; the last step of each rank stops half-way on both
    // sides, so its shape is a class of its own and is aligned: what its tail differs in (the PR's reaches further)
    // is no rewrite, and must not keep the marker (LightningIndexer, once per layer) from being chosen.
    const spec = { layers: 60, dense: 3, mtp: true, dup: false, ranks: 2, steps: 6 };
    const half = Math.floor(decodeStep(spec, false, () => true).length / 2);
    const seqs = ([false, true] as const).map((pr) => {
      const rec = new SequenceRecorder('type');
      const s = rec.stream('2');
      for (let rank = 0; rank < spec.ranks; rank++) {
        const r = rec.rank(String(rank));
        let t = 0;
        for (let step = 0; step < spec.steps; step++) {
          const kernels = decodeStep(spec, pr, () => true);
          for (const k of step === spec.steps - 1 ? kernels.slice(0, half) : kernels) {
            rec.add(r, s, step + 1, rec.table.intern(k), 40_000, t);
            t += 50_000;
          }
        }
      }
      return rec.finish();
    });
    const r = findRewrites(seqs[0]!, seqs[1]!);
    expect(r.marker?.token).toBe('LightningIndexer');
    expect(r.rewrites.map((w) => [w.added, w.chains, w.layers, w.layerCount])).toEqual([[[FUSED], 2 * 5 * 60, range(60), 61]]);
  });
});

describe('kprof diff of exports with prefill and decode steps', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-classes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const header =
    'Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';
  const { steps } = mixedPair({ layers: 4, ranks: 1, steps: 10, prefill: new Set([0]), fusePrefill: true, fuseDecode: false });
  writeDecodeCsv(dir, header, steps);
  test('the JSON and the table list the prefill fusion, every kernel accounted for', async () => {
    const json = await kprof(['diff', join(dir, 'base'), join(dir, 'pr'), '--format', 'json']);
    expect(json.code).toBe(0);
    const rw = JSON.parse(json.stdout).rewrites;
    expect(rw.rewrites.map((w: { removed: string[]; added: string[]; chains: number }) => [w.removed, w.added, w.chains])).toEqual([
      [ROPE, [ROPE_FUSED], 4],
    ]);
    expect(rw.conservation.rest).toEqual([]);
    const table = await kprof(['diff', join(dir, 'base'), join(dir, 'pr')]);
    expect(table.stdout).toContain(`base   ${ROPE.join(' · ')}`);
    expect(table.stdout).toContain(`PR     ${ROPE_FUSED}`);
    expect(table.stdout).toContain('Note: one rewrite below was found only in another kind of step than the most frequent');
    expect(JSON.parse(json.stdout).rewrites.notes).toContainEqual({ kind: 'other-classes', rewrites: 1, steps: { base: 1, pr: 1 } });
  });
});

/** Sequences of one rank and stream from each step's kernels (Step Ids 1, 2, …). */
function sequencesOf(steps: string[][]): Sequences {
  const rec = new SequenceRecorder('type');
  const r = rec.rank('0');
  const s = rec.stream('2');
  let t = 0;
  steps.forEach((kernels, i) => {
    for (const k of kernels) {
      rec.add(r, s, i + 1, rec.table.intern(k), 40_000, t);
      t += 50_000;
    }
  });
  return rec.finish();
}

describe('steps that do not align, beside another class with many differences', () => {
  test('the note counts the differences of the most frequent steps only, not those of the other class past the verified', () => {
    // Decode steps: D1 and D2 differ in 12 single kernels; the base runs D1 then D2 three times each, the PR the
    // reverse, so every difference of the most frequent steps (D1 against D2) is undone over the steps. The prefill
    // step differs in 70 kernels, each apart: more than the verified leave room for.
    const at = (i: number) => `D${(i * 7 + (i >> 3)) % 30}`;
    const d1 = range(400).map(at);
    const d2 = d1.map((k, i) => (i % 33 === 5 ? `S${i}` : k));
    const p = range(1000).map((i) => `P${(i * 11 + (i >> 4)) % 40}`);
    const p2 = p.map((k, i) => (i % 14 === 3 && i < 980 ? `Q${i}` : k));
    const base = sequencesOf([p, d1, d1, d1, d2, d2, d2]);
    const pr = sequencesOf([p2, d2, d2, d2, d1, d1, d1]);
    const r = findRewrites(base, pr);
    expect(r.rewrites).toEqual([]);
    expect(r.notes.filter((n) => n.kind === 'unaligned')).toEqual([{ kind: 'unaligned', changes: 12, of: 12, undone: 12, once: 12 }]);
  });
});

describe('what the most frequent steps give does not depend on the other classes', () => {
  /** A side: per rank, steps (Step Ids 1…) each of one of `shapes` (tokens as texts `t<N>`). */
  function sequences(shapes: Int32Array[], steps: number[][]): Sequences {
    const rec = new SequenceRecorder('type');
    const s = rec.stream('2');
    steps.forEach((ranks, rank) => {
      const r = rec.rank(String(rank));
      let t = 0;
      ranks.forEach((shape, step) => {
        for (const k of shapes[shape % shapes.length]!) {
          rec.add(r, s, step + 1, rec.table.intern(`t${k}`), 1000 + k, t);
          t += 2000;
        }
      });
    });
    return rec.finish();
  }
  const side = fc.record({
    shapes: fc.array(tokenSeq(40, 12), { minLength: 1, maxLength: 4 }),
    steps: fc.array(fc.array(fc.nat(3), { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 2 }),
  });
  test('property: the lanes, the notes on alignment and the layer marker are those of the representatives alone', () => {
    fc.assert(
      fc.property(side, side, fc.boolean(), (b, p, shared) => {
        // Shared: the PR's shapes are the base's with its own first (a change of the most frequent steps, say).
        const base = sequences(b.shapes, b.steps);
        const pr = sequences(shared ? [p.shapes[0]!, ...b.shapes.slice(1)] : p.shapes, p.steps);
        const on = findRewrites(base, pr);
        const off = findRewrites(base, pr, { otherClasses: false });
        expect(on.lanes).toEqual(off.lanes);
        const said = (r: typeof on) => r.notes.filter((n) => n.kind === 'unaligned' || n.kind === 'no-chains' || n.kind === 'low-coverage');
        expect(said(on)).toEqual(said(off));
        // Each rewrite of the representatives is listed with other classes aligned too, with the same figures (they
        // claim their kernels first).
        const key = (w: (typeof on.rewrites)[number]) => `${w.removed.join(' ')} > ${w.added.join(' ')}`;
        const figures = (w: (typeof on.rewrites)[number]) => [
          w.chains,
          w.perStep,
          w.ranks,
          w.undone,
          w.kept,
          w.removedChains,
          w.addedChains,
          w.layers,
          w.totalSavingTicks,
        ];
        const listed = new Map(on.rewrites.map((w) => [key(w), figures(w)]));
        for (const w of off.rewrites) expect(listed.get(key(w))).toEqual(figures(w));
        if (off.rewrites.length > 0) expect(on.marker).toEqual(off.marker);
        expect(on.notes.some((n) => n.kind === 'other-classes' || n.kind === 'some-steps')).toBe(on.rewrites.length > off.rewrites.length);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the other classes share one budget of alignment work', () => {
  /**
   * Rank 0 runs a 4-layer prefill step whose PR fuses ROPE, rank 1 a 3-layer one whose PR fuses its first two kernels
   * alone (two shapes: no alignment shared, and two rewrites), then decode steps alike on both sides.
   */
  function pair(): { base: Sequences; pr: Sequences; sizes: number[] } {
    const decode = { layers: 2, dense: 1, mtp: false, dup: false, ranks: 2, steps: 4 };
    const sizes: number[] = [];
    const seqs = ([0, 1] as const).map((side) => {
      const rec = new SequenceRecorder('type');
      const s = rec.stream('2');
      for (const [rank, layers] of [4, 3].entries()) {
        const r = rec.rank(String(rank));
        let t = 0;
        for (let step = 0; step < 4; step++) {
          let kernels = step === 0 ? prefillStep(layers, side === 1 && rank === 0) : decodeStep(decode, false, () => false);
          if (step === 0 && side === 1 && rank === 1) kernels = kernels.join(' ').replaceAll('RotaryMul Cast', 'RopeCast').split(' ');
          if (step === 0) sizes[rank] = (sizes[rank] ?? 0) + kernels.length;
          for (const k of kernels) {
            rec.add(r, s, step + 1, rec.table.intern(k), 40_000, t);
            t += 50_000;
          }
        }
      }
      return rec.finish();
    });
    return { base: seqs[0]!, pr: seqs[1]!, sizes };
  }
  test('past it, the other classes are not aligned; within it, both prefill fusions are found', () => {
    const { base, pr, sizes } = pair();
    // (N + M) · D of each rank's prefill pair: 5 edits a layer on rank 0 (4 kernels → 1), 3 on rank 1 (2 → 1).
    const work = [sizes[0]! * 4 * 5, sizes[1]! * 3 * 3];
    const added = (maxWork: number) => findRewrites(base, pr, { maxWork }).rewrites.map((w) => [w.added, w.ranks, w.chains]);
    expect(added(work[0]! + work[1]!)).toEqual([
      [[ROPE_FUSED], ['0'], 4],
      [['RopeCast'], ['1'], 3],
    ]);
    // Enough for rank 0's alone: rank 1's prefill steps are not aligned, and a note says so.
    expect(added(work[0]! + work[1]! - 1)).toEqual([[[ROPE_FUSED], ['0'], 4]]);
    expect(findRewrites(base, pr, { maxWork: work[0]! + work[1]! - 1 }).notes).toContainEqual({
      kind: 'other-classes-apart',
      oneOff: 0,
      differences: 0,
      unaligned: 1,
    });
    expect(findRewrites(base, pr, { maxWork: work[0]! + work[1]! }).notes.filter((n) => n.kind === 'other-classes-apart')).toEqual([]);
  });
});

describe('a prefill step seen once among decode steps of many shapes', () => {
  // 22 decode steps, each of a shape of its own (a kernel of its own at its end: the same kind of step), then the
  // prefill step (whose chain the PR fuses), then a decode step: the prefill shape is the 23rd by frequency.
  const layers = 8;
  const pair = (): Sequences[] =>
    ([0, 1] as const).map((side) => {
      const rec = new SequenceRecorder('type');
      const r = rec.rank('0');
      const s = rec.stream('2');
      const decode = { layers, dense: 1, mtp: false, dup: false, ranks: 1, steps: 24 };
      let t = 0;
      for (let step = 0; step < 24; step++) {
        const kernels = step === 22 ? prefillStep(layers, side === 1) : [...decodeStep(decode, false, () => true), `Sampler${step}`];
        for (const k of kernels) {
          rec.add(r, s, step + 1, rec.table.intern(k), 40_000, t);
          t += 50_000;
        }
      }
      return rec.finish();
    });
  test('is a kind of its own past the 16 most frequent shapes, and its fusion is listed, exact', () => {
    const [base, pr] = pair();
    const r = findRewrites(base!, pr!);
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains])).toEqual([[ROPE, [ROPE_FUSED], layers]]);
    expect(r.conservation.rest).toEqual([]);
  });
  test('past the 16 most frequent, shapes are looked at only while the shared budget of work lasts', () => {
    const t = (...xs: number[]) => Int32Array.from(xs);
    // 17 shapes of one kind (a kernel of its own at the end of each), then one of another kind.
    const tokens = [...range(17).map((i) => t(...range(100).map((k) => k % 10), 100 + i)), t(...range(100).map((k) => 20 + (k % 7)))];
    const bound = shapeBound(tokens, tokens);
    const shapes = range(18);
    expect(stepClasses(shapes, tokens, bound, { work: 1 << 20 }).reps).toEqual([0, 17]);
    expect(stepClasses(shapes, tokens, bound, { work: 0 }).reps).toEqual([0]);
    // The 17th shape (past the 16) costs its kernels and the class's: 101 + 101.
    const budget = { work: 202 };
    expect(stepClasses(shapes, tokens, bound, budget)).toMatchObject({ reps: [0] });
    expect(budget.work).toBe(0);
  });
});

/**
 * Ten decode steps with a prefill step at Step Id 5 whose chain the PR fuses over its `layers`; the PR's prefill step
 * also starts with `head` in place of its gather, ends with `tail` in place of its argmax, and runs a Cast more after
 * its first layer: one-off changes of the step beside the fusion.
 */
function changedPrefill(layers: number, head: string[], tail: string[]): Sequences[] {
  return ([0, 1] as const).map((side) => {
    const rec = new SequenceRecorder('type');
    const r = rec.rank('0');
    const s = rec.stream('2');
    const decode = { layers, dense: 1, mtp: false, dup: false, ranks: 1, steps: 10 };
    let t = 0;
    for (let step = 0; step < 10; step++) {
      let kernels = step === 4 ? prefillStep(layers, side === 1) : decodeStep(decode, false, () => true);
      if (step === 4 && side === 1) {
        kernels = [...head, ...kernels.slice(1, -1), ...tail];
        kernels.splice(kernels.indexOf('GroupedMatmul') + 3, 0, 'Cast');
      }
      for (const k of kernels) {
        rec.add(r, s, step + 1, rec.table.intern(k), 40_000, t);
        t += 50_000;
      }
    }
    return rec.finish();
  });
}

describe('warm-up steps with setup kernels of their own on each side', () => {
  const JUNK = ['MemSet', 'TransData', 'Cast', 'ZerosLike', 'Fill', 'Identity', 'TensorMove'];
  /** Occurrences of `chain` in `seq`, none overlapping. */
  const occurrences = (seq: string[], chain: string[]): number => {
    let n = 0;
    for (let i = 0; i + chain.length <= seq.length; i++) {
      if (chain.every((k, j) => seq[i + j] === k)) {
        n++;
        i += chain.length - 1;
      }
    }
    return n;
  };
  /**
   * Steps 1 and 2 of each rank are decode steps with 30 setup kernels put in at places drawn from `seed` (other
   * kernels at other places on each side); step 6 is a prefill step; the PR fuses both paths.
   */
  function pair(seed: number, layers: number): { base: Sequences; pr: Sequences; steps: [string[][], string[][]] } {
    let x = seed;
    const rnd = (n: number): number => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return Math.floor((x / 2147483648) * n);
    };
    const decode = { layers, dense: 1, mtp: false, dup: false, ranks: 1, steps: 12 };
    const steps: [string[][], string[][]] = [[], []];
    const seqs = ([0, 1] as const).map((side) => {
      const rec = new SequenceRecorder('type');
      const r = rec.rank('0');
      const s = rec.stream('2');
      let t = 0;
      for (let step = 0; step < 12; step++) {
        const kernels = step === 5 ? prefillStep(layers, side === 1) : decodeStep(decode, side === 1, () => true);
        if (step < 2) for (let j = 0; j < 30; j++) kernels.splice(rnd(kernels.length), 0, JUNK[rnd(JUNK.length)]!);
        steps[side].push(kernels);
        for (const k of kernels) {
          rec.add(r, s, step + 1, rec.table.intern(k), 40_000, t);
          t += 50_000;
        }
      }
      return rec.finish();
    });
    return { base: seqs[0]!, pr: seqs[1]!, steps };
  }
  test.each([1, 2, 3, 4, 5, 6])('list the two fusions alone, exact, not the warm-up steps’ one-off differences (seed %i)', (seed) => {
    const layers = 8;
    const { base, pr, steps } = pair(seed, layers);
    const r = findRewrites(base, pr);
    // The truth: per step, the chains the base ran that the PR did not (the PR runs none), as each fused kernel
    // replaced one (a chain a setup kernel fell into is not the chain).
    const truth = (chain: string[], fused: string) =>
      steps[0].reduce((n, st, i) => n + Math.min(occurrences(st, chain) - occurrences(steps[1][i]!, chain), occurrences(steps[1][i]!, [fused])), 0);
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains])).toEqual([
      [CHAIN, [FUSED], truth(CHAIN, FUSED)],
      [ROPE, [ROPE_FUSED], layers],
    ]);
    expect(r.notes.find((n) => n.kind === 'other-classes-apart')).toMatchObject({ unaligned: 0 });
    // Every setup kernel is counted apart, not as a rewrite's.
    const rest = new Set(r.conservation.rest.map((x) => x.token));
    for (const k of rest) expect([...JUNK, ...CHAIN, FUSED]).toContain(k);
  });
  test('a prefill fusion over its layers beside three one-off changes of the prefill step is listed', () => {
    // The PR's prefill step also starts with another gather, ends with another argmax and runs a Cast more after its
    // first layer: three differences once in the step, against the fusion's eight.
    const layers = 8;
    const seqs = changedPrefill(layers, ['GatherV3'], ['ArgMaxV3']);
    const r = findRewrites(seqs[0]!, seqs[1]!);
    expect(r.rewrites.find((w) => w.added.join(' ') === ROPE_FUSED)).toMatchObject({ removed: ROPE, chains: layers });
    expect(r.notes.filter((n) => n.kind === 'other-classes-apart')).toEqual([]);
  });
  test('the same warm-up steps on several ranks are one kind of step in the note, not one per rank', () => {
    // Each rank runs the same steps (seed 1), so their warm-up steps are one pair of kernel sequences, on 3 ranks.
    const one = pair(1, 8);
    const seqs = ([0, 1] as const).map((side) => {
      const rec = new SequenceRecorder('type');
      const s = rec.stream('2');
      for (let rank = 0; rank < 3; rank++) {
        const r = rec.rank(String(rank));
        let t = 0;
        one.steps[side].forEach((kernels, step) => {
          for (const k of kernels) {
            rec.add(r, s, step + 1, rec.table.intern(k), 40_000, t);
            t += 50_000;
          }
        });
      }
      return rec.finish();
    });
    const single = findRewrites(one.base, one.pr).notes.find((n) => n.kind === 'other-classes-apart');
    const three = findRewrites(seqs[0]!, seqs[1]!).notes.find((n) => n.kind === 'other-classes-apart');
    expect(single).toMatchObject({ oneOff: 1, unaligned: 0 });
    expect(three).toEqual(single);
  });
  test('a prefill fusion of a 2-layer model beside one-off changes of more kernels is listed', () => {
    // The PR's prefill step also starts with another gather and three Casts, ends with another argmax and three more
    // kernels, and runs a Cast more after its first layer: 11 kernels of one-off changes against the fusion's 10.
    const layers = 2;
    const seqs = changedPrefill(layers, ['GatherV3', 'Cast', 'Cast', 'Cast'], ['ArgMaxV3', 'TopK', 'Cast', 'Sort']);
    const r = findRewrites(seqs[0]!, seqs[1]!);
    expect(r.rewrites.find((w) => w.added.join(' ') === ROPE_FUSED)).toMatchObject({ removed: ROPE, chains: layers });
    // The one-off changes are left out, and said so.
    expect(r.notes.find((n) => n.kind === 'other-classes-apart')).toMatchObject({ oneOff: 1, unaligned: 0 });
  });
  test('kprof diff says the warm-up steps are left out, in the table, Markdown and JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-warmup-'));
    try {
      const header = 'Step Id,Device_id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)';
      const { steps } = pair(1, 8);
      writeDecodeCsv(dir, header, [[steps[0]], [steps[1]]]);
      const args = ['diff', join(dir, 'base'), join(dir, 'pr')];
      const json = await kprof([...args, '--format', 'json']);
      expect(json.code).toBe(0);
      const rw = JSON.parse(json.stdout).rewrites;
      expect(rw.rewrites.map((w: { added: string[] }) => w.added)).toEqual([[FUSED], [ROPE_FUSED]]);
      expect(rw.notes).toContainEqual(expect.objectContaining({ kind: 'other-classes-apart', oneOff: 1, unaligned: 0 }));
      const said = /1 other kind of step differs from its like on the other side in one-off places \(\d+ differences of its own, most once in a step/;
      const table = await kprof(args);
      expect(table.stdout).toMatch(new RegExp(`Note: ${said.source}`));
      expect(table.stdout).toContain('What it changed is among the kernels not accounted for, but where a rewrite listed explains it.');
      const md = await kprof([...args, '--format', 'markdown']);
      expect(md.stdout).toMatch(said);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test('one-off differences of the most frequent steps are still judged as before (the warm-up kinds alone are left out)', () => {
    const { base, pr } = pair(1, 8);
    const off = findRewrites(base, pr, { otherClasses: false });
    expect(off.rewrites.map((w) => w.added)).toEqual([[FUSED]]);
    expect(off.notes.filter((n) => n.kind === 'other-classes-apart')).toEqual([]);
  });
});
