// The rewrites engine on small hand-written sequences: the awkward cases (steps too different, lanes on one side,
// streams that differ, a marker given or missing, a representative step that is not every step, insertions,
// repeated chains, hostile texts).

import { describe, expect, test } from 'vitest';
import { findRewrites } from '../src/analysis/rewrites/rewrites.js';
import { SequenceRecorder, type Sequences } from '../src/analysis/rewrites/sequence.js';
import { laneLines, layersText, noneText, noteText } from '../src/report/diff/rewrites.js';

/** rank → stream → steps (Step Id → token texts, each kernel 10 ticks long and 100 ticks after the previous). */
type Spec = Record<string, Record<string, Record<number, string[]>>>;

function seq(spec: Spec, dur: (type: string, step: number) => number = () => 10): Sequences {
  const rec = new SequenceRecorder('type');
  for (const [rank, streams] of Object.entries(spec)) {
    const r = rec.rank(rank);
    let t = 0;
    for (const [stream, steps] of Object.entries(streams)) {
      const s = rec.stream(stream);
      for (const [step, types] of Object.entries(steps)) {
        for (const type of types) {
          rec.add(r, s, Number(step), rec.table.intern(type), dur(type, Number(step)), t);
          t += 100;
        }
      }
    }
  }
  return rec.finish();
}

const words = (text: string) => text.split(' ');
/**
 * A layered model: E, the marker M, the chain A B C D, a kernel of that layer only, H; three times. `fused` layers
 * have F instead of the chain.
 */
const model = (fused: number[]) => [0, 1, 2].flatMap((l) => ['E', 'M', ...(fused.includes(l) ? ['F'] : words('A B C D')), `L${l}`, 'H']);

describe('lanes', () => {
  test('steps too different to align: said, with the lower bound, and no rewrite made up', () => {
    const base = seq({ 0: { 2: { 1: Array.from({ length: 60 }, (_, i) => `K${i}`) } } });
    const pr = seq({ 0: { 2: { 1: Array.from({ length: 60 }, (_, i) => `P${i}`) } } });
    const r = findRewrites(base, pr, { maxEdits: 100 });
    expect(r.lanes).toEqual([expect.objectContaining({ rank: '0', stream: '2', status: 'too-different', edits: null, lowerBound: 120 })]);
    expect(r.rewrites).toEqual([]);
    // Nothing is hidden: every kernel is listed as not accounted for.
    expect(r.conservation).toMatchObject({ removed: 60, added: 60, removedAccounted: 0, addedAccounted: 0 });
    expect(r.conservation.rest).toHaveLength(120);
    // Within the cap they align, but share nothing: still too different, with the edits said.
    expect(findRewrites(base, pr, { maxEdits: 120 }).lanes[0]).toMatchObject({ status: 'too-different', edits: 120 });
  });
  test('steps that share under a tenth of the longer one (two programs: another model, another device): too different, no rewrite of hundreds of kernels', () => {
    // 40 kernels a step; the PR keeps the first `kept` of them and runs 30 of its own.
    const base = seq({ 0: { 2: { 1: Array.from({ length: 40 }, (_, i) => `K${i}`) } } });
    const pr = (kept: number) =>
      seq({ 0: { 2: { 1: [...Array.from({ length: kept }, (_, i) => `K${i}`), ...Array.from({ length: 30 }, (_, i) => `P${i}`)] } } });
    // 3 of 40 shared: refused, the edits of the alignment kept (40 + 33 − 2 · 3).
    const few = findRewrites(base, pr(3));
    expect(few.lanes).toEqual([expect.objectContaining({ status: 'too-different', edits: 67, lowerBound: 67 })]);
    expect(few.rewrites).toEqual([]);
    expect(few.conservation).toMatchObject({ removed: 37, added: 30, removedAccounted: 0, addedAccounted: 0 });
    expect(laneLines(few, '', (x) => x)).toEqual([
      'rank 0 stream 2: steps too different to compare (40 → 33 kernels; they share 3 kernels, under a tenth of the longer step: different programs, not fusions)',
    ]);
    // 4 of 40, a tenth: compared, the change listed.
    const tenth = findRewrites(base, pr(4));
    expect(tenth.lanes[0]).toMatchObject({ status: 'aligned', edits: 66 });
    expect(tenth.rewrites.map((w) => [w.removed.length, w.added.length])).toEqual([[36, 30]]);
    // 61 layers, nine kernels of each ten fused into one: compared, one rewrite in every layer.
    const layer = (fused: boolean) => Array.from({ length: 61 }, () => ['M', ...(fused ? ['F'] : words('A B C D E G I J K'))]).flat();
    const mega = findRewrites(seq({ 0: { 2: { 1: layer(false), 2: layer(false) } } }), seq({ 0: { 2: { 1: layer(true), 2: layer(true) } } }));
    expect(mega.lanes[0]).toMatchObject({ status: 'aligned', edits: 610 });
    expect(mega.rewrites.map((w) => [w.removed.join(' '), w.added, w.chains])).toEqual([['A B C D E G I J K', ['F'], 122]]);
    // A step of a few kernels fused whole shares nothing, and is compared as it is.
    const toy = findRewrites(seq({ 0: { 2: { 1: ['A', 'B', 'C'], 2: ['A', 'B', 'C'] } } }), seq({ 0: { 2: { 1: ['F'], 2: ['F'] } } }));
    expect(toy.rewrites.map((w) => [w.removed, w.added, w.chains])).toEqual([[['A', 'B', 'C'], ['F'], 2]]);
  });
  test('unrelated runs (steps that differ everywhere, once): the steps do not align, and no rewrite is listed', () => {
    // Two independent random step contents over alphabets of 10 to 100 kernel types, three equal steps a side. Over
    // few types they share much (the note says they do not align); over 1,000, under a tenth (too different).
    let state = 7;
    const rnd = (): number => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state / 2 ** 32;
    };
    for (const [alphabet, length, refused] of [
      [10, 200, false],
      [40, 300, false],
      [100, 400, false],
      [1000, 400, true],
    ] as const) {
      const make = (): string[] => Array.from({ length }, () => `K${Math.floor(rnd() * alphabet)}`);
      const a = make();
      const b = make();
      const r = findRewrites(seq({ 0: { 2: { 1: a, 2: a, 3: a } } }), seq({ 0: { 2: { 1: b, 2: b, 3: b } } }));
      expect(r.rewrites).toEqual([]);
      expect(r.notes.some((n) => n.kind === 'unverified')).toBe(false);
      if (refused) {
        const lane = r.lanes[0]!;
        expect(lane.status).toBe('too-different');
        expect(10 * ((2 * length - lane.edits!) / 2)).toBeLessThan(length);
        continue;
      }
      expect(r.notes.find((n) => n.kind === 'unaligned')).toBeDefined();
      expect(noneText(r, (x) => x)).toMatch(/^The steps do not align: the most frequent steps of the two sides differ in \d+ places/);
    }
  });
  test('kernels swapped in every layer (each change undone over the steps): no rewrite, so no layer marker looked for', () => {
    // Each layer runs the same kernels on both sides, two of them in the other order: the PR runs every chain as
    // often as the base, so the steps do not align; M and H run once a layer on both sides, markers a search finds.
    const layers = (swapped: boolean): string[] =>
      Array.from({ length: 60 }, (_, l) => ['M', ...(swapped ? [`B${l % 30}`, `A${l % 30}`] : [`A${l % 30}`, `B${l % 30}`]), 'H']).flat();
    const base = seq({ 0: { 2: { 1: layers(false), 2: layers(false) } } });
    const pr = seq({ 0: { 2: { 1: layers(true), 2: layers(true) } } });
    const r = findRewrites(base, pr);
    expect(r.rewrites).toEqual([]);
    expect(r.notes.some((n) => n.kind === 'unaligned')).toBe(true);
    expect(r.marker).toBeNull();
    expect(findRewrites(base, pr, { layerMarker: 'H' }).marker).toEqual({ token: 'H', auto: false });
  });
  test('one change in each of many layers is not taken for unrelated runs', () => {
    const layers = (n: number, fused: boolean): string[] =>
      Array.from({ length: n }, (_, l) => ['M', ...(fused ? ['F'] : ['A', 'B', 'C']), `L${l % 7}`, 'H']).flat();
    const r = findRewrites(
      seq({ 0: { 2: { 1: layers(60, false), 2: layers(60, false) } } }),
      seq({ 0: { 2: { 1: layers(60, true), 2: layers(60, true) } } }),
    );
    expect(r.notes.some((n) => n.kind === 'unaligned')).toBe(false);
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains])).toEqual([[['A', 'B', 'C'], ['F'], 120]]);
    expect(r.marker).not.toBeNull();
  });
  test('a single kernel removed on 60 ranks of 64: the 4 that kept it are its sites not fused, in every layer', () => {
    const step = (cast: boolean) => [0, 1, 2, 3].flatMap((l) => ['M', 'A', ...(cast ? ['Cast'] : []), 'B', 'Cast', `L${l}`]);
    const side = (pr: boolean) =>
      seq(Object.fromEntries(Array.from({ length: 64 }, (_, r) => [String(r), { 2: { 1: step(!pr || r >= 60), 2: step(!pr || r >= 60) } }])));
    const r = findRewrites(side(false), side(true));
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains, w.ranks.length])).toEqual([[['Cast'], [], 4 * 2 * 60, 60]]);
    const nf = r.rewrites[0]!.notFused;
    expect([...new Set(nf.map((x) => x.rank))]).toEqual(['60', '61', '62', '63']);
    expect(nf.filter((x) => x.rank === '60').map((x) => [x.layer, x.tokens, x.edits, x.steps])).toEqual(
      [0, 1, 2, 3].map((l) => [l, ['Cast'], 0, [1, 2]]),
    );
    // Only the places it was removed from: not the Cast that runs in every layer on every rank.
    expect(nf).toHaveLength(4 * 4);
  });
  test('a rank on one side only is a one-side lane', () => {
    const base = seq({ 0: { 2: { 1: model([]) } }, 1: { 2: { 1: model([]) } } });
    const pr = seq({ 0: { 2: { 1: model([0, 1, 2]) } } });
    const r = findRewrites(base, pr);
    expect(r.lanes.map((l) => [l.rank, l.status])).toEqual([
      ['0', 'aligned'],
      ['1', 'one-side'],
    ]);
    expect(r.rewrites[0]!.ranks).toEqual(['0']);
  });
  test('one compute stream a side with different ids: compared, and said', () => {
    const r = findRewrites(seq({ 0: { 2: { 1: model([]) } } }), seq({ 0: { 7: { 1: model([1]) } } }));
    expect(r.lanes.map((l) => [l.stream, l.status])).toEqual([['2/7', 'aligned']]);
    expect(r.notes).toEqual([{ kind: 'streams-paired', rank: '0', base: '2', pr: '7' }]);
    expect(r.rewrites[0]!.chains).toBe(1);
  });
  test('several compute streams: one sequence each', () => {
    const r = findRewrites(
      seq({ 0: { 2: { 1: model([]) }, 3: { 1: words('X Y Z') } } }),
      seq({ 0: { 2: { 1: model([0]) }, 3: { 1: words('X Y Z') } } }),
    );
    expect(r.lanes.map((l) => [l.stream, l.edits])).toEqual([
      ['2', 5],
      ['3', 0],
    ]);
  });
  test('the representative step is the most frequent shape; every step is verified; Step Ids need not match', () => {
    const odd = [...model([]), 'Extra'];
    const base = seq({ 0: { 2: { 1: model([]), 2: model([]), 3: odd, 4: model([]) } } });
    const pr = seq({ 0: { 2: { 10: model([0, 1, 2]), 11: model([0, 1, 2]), 12: model([0, 1, 2]) } } });
    const r = findRewrites(base, pr);
    expect(r.lanes[0]!.base).toEqual({ steps: 4, repSteps: 3, shapes: 2, kernels: 24 });
    expect(r.lanes[0]!.pr).toEqual({ steps: 3, repSteps: 3, shapes: 1, kernels: 15 });
    const w = r.rewrites[0]!;
    expect([w.removed, w.added]).toEqual([words('A B C D'), ['F']]);
    // 3 per step: the 3 base steps compared in order with the PR's 3 (the odd one too) had 9 chains, the 3 PR
    // steps have 9 F; the 4th base step, past the PR's last, is compared with nothing.
    expect(w.removedChains).toEqual({ base: 9, pr: 0 });
    expect(w.addedChains).toEqual({ base: 0, pr: 9 });
    expect(w.chains).toBe(9);
  });
  test('no steps at all: nothing to compare, nothing made up', () => {
    const empty = new SequenceRecorder('type').finish();
    const r = findRewrites(empty, empty);
    expect(r).toMatchObject({ lanes: [], rewrites: [], marker: null, conservation: { removed: 0, added: 0, rest: [] } });
  });
  test('sides recorded by different --by are refused', () => {
    expect(() => findRewrites(new SequenceRecorder('type').finish(), new SequenceRecorder('name').finish())).toThrow(/by type and by name/);
  });
});

describe('layers', () => {
  test('the marker is found next to the chains; layers and the not-fused layer follow it', () => {
    const r = findRewrites(seq({ 0: { 2: { 1: model([]), 2: model([]) } } }), seq({ 0: { 2: { 1: model([0, 1]), 2: model([0, 1]) } } }));
    expect(r.marker).toEqual({ token: 'M', auto: true, equal: false });
    const w = r.rewrites[0]!;
    expect([w.layers, w.layerCount, w.chains]).toEqual([[0, 1], 3, 4]);
    expect(w.notFused.map((s) => [s.layer, s.layers, s.steps, s.edits, s.tokens])).toEqual([[2, 3, [1, 2], 0, words('A B C D')]]);
  });
  test('--layer-marker names it; one in neither profile leaves the layers out, and says so', () => {
    const base = seq({ 0: { 2: { 1: model([]) } } });
    const pr = seq({ 0: { 2: { 1: model([1]) } } });
    const g = findRewrites(base, pr, { layerMarker: 'H' });
    expect(g.marker).toEqual({ token: 'H', auto: false });
    // H ends each layer: the chain of layer 1 is nearest the second H.
    expect(g.rewrites[0]!.layers).toEqual([1]);
    const none = findRewrites(base, pr, { layerMarker: 'Nope' });
    expect(none.marker).toBeNull();
    expect(none.rewrites[0]!.layers).toBeNull();
    expect(none.rewrites[0]!.notFused.map((s) => s.layer)).toEqual([null, null]);
    expect(none.notes).toContainEqual({ kind: 'marker-absent', marker: 'Nope', near: null });
    // A marker misspelt: the kernel it most likely meant is said.
    const misspelt = findRewrites(
      seq({ 0: { 2: { 1: [...model([]), 'LightningIndexer'] } } }),
      seq({ 0: { 2: { 1: [...model([1]), 'LightningIndexer'] } } }),
      { layerMarker: 'LightningIndexr' },
    );
    const note = misspelt.notes.find((n) => n.kind === 'marker-absent')!;
    expect(note).toEqual({ kind: 'marker-absent', marker: 'LightningIndexr', near: 'LightningIndexer' });
    expect(noteText(note, (x) => `\`${x}\``)).toBe(
      'the layer marker `LightningIndexr` runs on neither side (did you mean `LightningIndexer`?); layers are not shown',
    );
    // Past 65,536 distinct kernels (a million names by name), no index of them is made for the hint.
    const many = Array.from({ length: (1 << 16) + 1 }, (_, i) => `K${i}`);
    const big = findRewrites(seq({ 0: { 2: { 1: [...many, 'LightningIndexer'] } } }), seq({ 0: { 2: { 1: [...many, 'LightningIndexer'] } } }), {
      layerMarker: 'LightningIndexr',
    });
    expect(big.notes).toContainEqual({ kind: 'marker-absent', marker: 'LightningIndexr', near: null });
  });
  test('a marker that starts each layer, the chain at the end of the layer (nearer the next marker): each chain in its own layer', () => {
    // S starts each of 5 layers; the chain A B C ends it. Layers 0 and 3 keep the chain in the PR.
    const layered = (fused: number[]) => [0, 1, 2, 3, 4].flatMap((l) => ['S', 'E', 'G', `L${l}`, ...(fused.includes(l) ? ['F'] : words('A B C'))]);
    const r = findRewrites(
      seq({ 0: { 2: { 1: layered([]), 2: layered([]) } } }),
      seq({ 0: { 2: { 1: layered([1, 2, 4]), 2: layered([1, 2, 4]) } } }),
      { layerMarker: 'S' },
    );
    const w = r.rewrites[0]!;
    expect([w.removed, w.added, w.layers, w.layerCount]).toEqual([words('A B C'), ['F'], [1, 2, 4], 5]);
    expect(w.notFused.map((x) => x.layer)).toEqual([0, 3]);
    // Fused everywhere: every layer, not layers 1-4 and the last one twice.
    const all = findRewrites(seq({ 0: { 2: { 1: layered([]) } } }), seq({ 0: { 2: { 1: layered([0, 1, 2, 3, 4]) } } }), { layerMarker: 'S' });
    expect(all.rewrites[0]!.layers).toEqual([0, 1, 2, 3, 4]);
  });
  test('a marker after the chain in each layer (the chain runs before it): the chain is the layer of the marker after it', () => {
    // M in the middle of each layer, the chain A B C just before it, as the MLA prolog runs before LightningIndexer.
    const layered = (fused: number[]) =>
      [0, 1, 2, 3].flatMap((l) => ['N', ...(fused.includes(l) ? ['F'] : words('A B C')), 'M', 'P', 'Q', 'R', `L${l}`]);
    const r = findRewrites(seq({ 0: { 2: { 1: layered([]), 2: layered([]) } } }), seq({ 0: { 2: { 1: layered([1, 2]), 2: layered([1, 2]) } } }), {
      layerMarker: 'M',
    });
    const w = r.rewrites[0]!;
    expect([w.layers, w.notFused.map((x) => x.layer)]).toEqual([
      [1, 2],
      [0, 3],
    ]);
  });
});

describe('rewrites', () => {
  test('kernels added with nothing removed', () => {
    const r = findRewrites(
      seq({ 0: { 2: { 1: words('A B C'), 2: words('A B C') } } }),
      seq({ 0: { 2: { 1: words('A X B C'), 2: words('A X B C') } } }),
    );
    expect(r.rewrites.map((w) => [w.removed, w.added, w.chains, w.base, w.notFused])).toEqual([[[], ['X'], 2, null, []]]);
    expect(r.conservation).toMatchObject({ added: 2, addedAccounted: 2, removed: 0 });
  });
  test('adjacent copies of one rewrite are counted as copies (C C → F F is 2 × C → F)', () => {
    const r = findRewrites(seq({ 0: { 2: { 1: words('S A B A B T') } } }), seq({ 0: { 2: { 1: words('S F F T') } } }));
    expect(r.rewrites.map((w) => [w.removed, w.added, w.perStep, w.chains])).toEqual([[words('A B'), ['F'], { min: 2, max: 2 }, 2]]);
  });
  test('rewrites are sorted by kernels removed, then chains, then text', () => {
    const base = seq({ 0: { 2: { 1: words('S A B C T U V W Q R Z') } } });
    const pr = seq({ 0: { 2: { 1: words('S X T Y Q R Z') } } });
    expect(findRewrites(base, pr).rewrites.map((w) => w.removed.join(''))).toEqual(['ABC', 'UVW']);
  });
  test('a time change the steps cannot tell from noise is not significant', () => {
    // Per step, the chain takes 40 or 48 ticks in the base (steps alternate) and F 48 or 40 in the PR.
    const steps = (fused: number[]) => Object.fromEntries([1, 2, 3, 4, 5, 6].map((s) => [s, model(fused)]));
    const base = seq({ 0: { 2: steps([]) } }, (_, step) => (step % 2 ? 10 : 12));
    const pr = seq({ 0: { 2: steps([0, 1, 2]) } }, (t, step) => (t === 'F' ? (step % 2 ? 48 : 40) : 10));
    const w = findRewrites(base, pr).rewrites[0]!;
    expect(w.base!.perStepTicks.sort()).toEqual([40, 40, 40, 48, 48, 48]);
    expect(w.saving.test!.p).toBe(1);
    expect(w.saving.significant).toBe(false);
    expect(w.saving.reason).toBe('noise');
    // And a clear one is.
    const faster = findRewrites(
      base,
      seq({ 0: { 2: steps([0, 1, 2]) } }, (t) => (t === 'F' ? 20 : 10)),
    ).rewrites[0]!;
    expect(faster.saving.significant).toBe(true);
  });
  test('hostile texts are kept exactly (the reporters escape them), and do not confuse lanes', () => {
    const evil = 'A\u0000B\n::warning::x\u001b[31m';
    const r = findRewrites(seq({ 'r\u00000': { '2': { 1: ['S', evil, 'T'] } } }), seq({ 'r\u00000': { '2': { 1: ['S', 'T'] } } }));
    expect(r.lanes.map((l) => l.rank)).toEqual(['r\u00000']);
    expect(r.rewrites[0]!.removed).toEqual([evil]);
  });
});

test('long steps get a lower edit cap, so that no alignment runs away', () => {
  // Two 20,000-kernel steps 400 edits apart: within the edit cap, not within a work budget of 40,000 · 100.
  const a = Array.from({ length: 20_000 }, (_, i) => `K${i % 50}`);
  const b = a.map((t, i) => (i % 100 === 7 ? `X${i % 3}` : t));
  const base = seq({ 0: { 2: { 1: a } } });
  const pr = seq({ 0: { 2: { 1: b } } });
  const tight = findRewrites(base, pr, { maxWork: 40_000 * 100 });
  expect(tight.lanes[0]).toMatchObject({ status: 'too-different', maxEdits: 100, lowerBound: 400 });
  const loose = findRewrites(base, pr);
  expect(loose.lanes[0]).toMatchObject({ status: 'aligned', edits: 400, maxEdits: 4000 });
});

test('past the verified rewrites, the rest are counted, not verified, and their kernels stay in the rest', () => {
  // 70 different single-kernel replacements in one step.
  const a = Array.from({ length: 70 }, (_, i) => [`S${i}`, `A${i}`]).flat();
  const b = Array.from({ length: 70 }, (_, i) => [`S${i}`, `B${i}`]).flat();
  const r = findRewrites(seq({ 0: { 2: { 1: a } } }), seq({ 0: { 2: { 1: b } } }));
  expect(r.rewrites).toHaveLength(64);
  expect(r.unverified).toEqual({ rewrites: 6, removed: 6, added: 6 });
  expect(r.notes).toContainEqual({ kind: 'unverified', rewrites: 6, verified: 64 });
  expect(r.conservation).toMatchObject({ removed: 70, added: 70, removedAccounted: 64, addedAccounted: 64 });
  expect(r.conservation.rest).toHaveLength(12);
});

test('streams without a partner of the same id are paired largest with largest; the rest are one-side', () => {
  // The base has no Stream ID column ("-"); the PR has a main stream and a small side stream, and a third one.
  const base = seq({ 0: { '-': { 1: model([]) } } });
  const pr = seq({ 0: { 2: { 1: model([1]) }, 5: { 1: ['X', 'Y'] } } });
  const r = findRewrites(base, pr);
  expect(r.lanes.map((l) => [l.stream, l.status])).toEqual([
    ['-/2', 'aligned'],
    ['5', 'one-side'],
  ]);
  expect(r.notes).toEqual([{ kind: 'streams-paired', rank: '0', base: '-', pr: '2' }]);
  expect(r.rewrites[0]!.chains).toBe(1);
});

describe('the words of a rewrite the profile does not bear out', () => {
  test('a change of the representative steps that other steps undo: not a rewrite, and a note says why', () => {
    // Q goes from the most frequent step of the PR, but the PR's other step runs it twice: as often as the base.
    const base = seq({ '0': { '2': { 1: ['P', 'Q'], 2: ['P', 'Q'], 3: ['P'] } } });
    const pr = seq({ '0': { '2': { 1: ['P'], 2: ['P'], 3: ['P', 'Q', 'Q'] } } });
    const r = findRewrites(base, pr);
    expect(r.rewrites).toEqual([]);
    expect(r.notes).toContainEqual({ kind: 'no-chains', changes: 1 });
    expect(noneText(r, (x) => x)).toBe('None that the steps bear out (see the note below).');
    expect(r.conservation).toMatchObject({ removed: 0, added: 0, rest: [] });
  });

  test('a kernel that became itself (moved to another place of the step) is not a rewrite', () => {
    const base = seq({ '0': { '2': { 1: ['P', 'Q', 'R', 'S'] } } });
    const pr = seq({ '0': { '2': { 1: ['P', 'R', 'Q', 'S'] } } });
    const r = findRewrites(base, pr);
    expect(r.rewrites).toEqual([]);
    expect(r.notes.some((n) => n.kind === 'no-chains')).toBe(true);
  });

  test('a rewrite on a stream where the layer marker does not run: no layer, and why', () => {
    const base = seq({ '0': { '2': { 1: model([]) }, '3': { 1: ['S', 'T'] } } });
    const pr = seq({ '0': { '2': { 1: model([0, 1, 2]) }, '3': { 1: ['U'] } } });
    const r = findRewrites(base, pr);
    expect(r.marker).toEqual({ token: 'M', auto: true, equal: false });
    const onStream3 = r.rewrites.find((w) => w.added[0] === 'U')!;
    expect(onStream3.layers).toEqual([]);
    expect(layersText(onStream3)).toBe('no layer (the marker does not run there)');
    expect(layersText(r.rewrites.find((w) => w.added[0] === 'F')!)).toBe('layers 0-2 of 0-2');
  });
});
