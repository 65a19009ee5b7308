// Steps cut short (the profile starts or ends in the middle of a step): told from a lane's first and last steps
// (cutSteps.ts), compared with nothing on either side (rewrites.ts pairSteps), and said (the cut-steps note).

import { describe, expect, test } from 'vitest';
import { cutStepIds, MIN_WHOLE } from '../src/analysis/rewrites/cutSteps.js';
import { findRewrites } from '../src/analysis/rewrites/rewrites.js';
import { SequenceRecorder, type Sequences } from '../src/analysis/rewrites/sequence.js';
import { noteText } from '../src/report/diff/rewrites.js';

/** rank → steps (Step Id → token texts) on stream 2; each kernel 10 ticks long, or `dur` of its type. */
function seq(spec: Record<string, Record<number, string[]>>, dur: (type: string) => number = () => 10): Sequences {
  const rec = new SequenceRecorder('type');
  for (const [rank, steps] of Object.entries(spec)) {
    const r = rec.rank(rank);
    const s = rec.stream('2');
    let t = 0;
    for (const [step, types] of Object.entries(steps)) {
      for (const type of types) {
        rec.add(r, s, Number(step), rec.table.intern(type), dur(type), t);
        t += 100;
      }
    }
  }
  return rec.finish();
}

/** The lanes of a sequence: its steps' indexes per (rank, stream), in order. */
function lanesOf(s: Sequences): number[][] {
  const lanes = new Map<string, number[]>();
  s.steps.forEach((st, i) => {
    const k = `${st.rank}/${st.stream}`;
    lanes.set(k, [...(lanes.get(k) ?? []), i]);
  });
  return [...lanes.values()];
}

/** A step of `layers` layers: the marker M, the chain A B C (or F, fused) and a kernel of the layer's own. */
const step = (layers: number, fused = false) => Array.from({ length: layers }, (_, l) => ['M', ...(fused ? ['F'] : ['A', 'B', 'C']), `L${l}`]).flat();
const whole = step(4);

describe('steps cut short', () => {
  test('a lane’s last step that is the start of another, or its first that is the end of one, is cut short; no other step is', () => {
    expect(whole.length).toBeGreaterThanOrEqual(MIN_WHOLE);
    const ends = seq({ 0: { 1: whole.slice(7), 2: whole, 3: whole, 4: whole.slice(0, 9) }, 1: { 1: whole, 2: whole, 3: whole } });
    expect(cutStepIds(ends, lanesOf(ends))).toEqual(new Map([['0', new Set([1, 4])]]));
    // The middle step, a step of other kernels, or a lane of one shape: none.
    const middle = seq({ 0: { 1: whole, 2: whole.slice(0, 9), 3: whole, 4: [...whole, 'X'].slice(1) } });
    expect(cutStepIds(middle, lanesOf(middle))).toEqual(new Map());
  });

  test('a last step whose shape the lane runs whole elsewhere (a step that stops early every other step) is not cut short', () => {
    // Steps 2, 4 and 6 run the first 9 kernels of the others: a step of its own, seen three times.
    const short = whole.slice(0, 9);
    const s = seq({ 0: { 1: whole, 2: short, 3: whole, 4: short, 5: whole, 6: short } });
    expect(cutStepIds(s, lanesOf(s))).toEqual(new Map());
    // Its first step alike: the end of another, run again.
    const tail = whole.slice(7);
    const f = seq({ 0: { 1: tail, 2: whole, 3: tail, 4: whole } });
    expect(cutStepIds(f, lanesOf(f))).toEqual(new Map());
  });

  test(`a step of fewer than ${MIN_WHOLE} kernels is never the whole one (a last step that is the start of a short one may be a step of its own)`, () => {
    const short = step(3);
    expect(short.length).toBeLessThan(MIN_WHOLE);
    const s = seq({ 0: { 1: short, 2: short, 3: short.slice(0, 5) } });
    expect(cutStepIds(s, lanesOf(s))).toEqual(new Map());
  });

  test('the PR’s last step cut short: it and the base’s step of that id are compared with nothing, said, and no chain or saving of the layers it never ran counts', () => {
    // Three whole steps of six layers fused in every layer, and a fourth the PR holds only the first two layers of.
    const dur = (t: string) => (t === 'F' ? 5 : 10);
    const six = step(6);
    const fused = step(6, true);
    expect(fused.length).toBeGreaterThanOrEqual(MIN_WHOLE);
    const base = seq({ 0: { 1: six, 2: six, 3: six, 4: six } }, dur);
    const pr = seq({ 0: { 1: fused, 2: fused, 3: fused, 4: fused.slice(0, 7) } }, dur);
    const r = findRewrites(base, pr);
    const w = r.rewrites.find((x) => x.added.join(' ') === 'F')!;
    expect(w.removed).toEqual(['A', 'B', 'C']);
    // 6 chains a step in steps 1-3 only (not 2 more for the two layers step 4 ran); each saves 30 - 5 ticks.
    expect({ chains: w.chains, perStep: w.perStep }).toEqual({ chains: 18, perStep: { min: 6, max: 6 } });
    expect(w.totalSavingTicks).toBe(-18 * 25);
    const note = r.notes.find((n) => n.kind === 'cut-steps');
    expect(note).toEqual({ kind: 'cut-steps', side: 'pr', steps: 1, kernels: 7, ranks: ['0'], stepIds: [4] });
    expect(noteText(note!, (x) => x)).toBe(
      "the PR profiled 1 step in part (step 4 of rank 0; 7 compute kernels: the profile starts or ends in the middle of it, whose kernels are the first or the last of another step's): it is compared with nothing, nor is the base's step of the same rank and place, so no chain in them counts as replaced, and their kernels are counted apart in the line above",
    );
    // Both sides' step 4 is counted apart in the conservation line: of the base's 30 kernels, the PR's 7 lack the 18
    // of the six chains, and 3 markers and the kernels of layers 2-5 it never ran.
    expect(r.conservation.removedUnpaired).toBe(18 + 3 + 4);
    expect(r.conservation.addedUnpaired).toBe(2);
    expect(r.conservation.rest).toEqual([]);
  });

  test('on a rank compared as it is (no Step Id in common), the base’s first step cut short leaves out the PR’s first', () => {
    const base = seq({ 0: { 11: whole.slice(10), 12: whole, 13: whole } });
    const pr = seq({ 0: { 1: step(4, true), 2: step(4, true), 3: step(4, true) } });
    const r = findRewrites(base, pr);
    expect(r.notes.find((n) => n.kind === 'cut-steps')).toEqual({
      kind: 'cut-steps',
      side: 'base',
      steps: 1,
      kernels: whole.length - 10,
      ranks: ['0'],
      stepIds: [11],
    });
    const w = r.rewrites.find((x) => x.added.join(' ') === 'F')!;
    expect({ chains: w.chains, perStep: w.perStep }).toEqual({ chains: 8, perStep: { min: 4, max: 4 } });
  });
});

describe('kernels of no start time', () => {
  test('are counted and said (bad-starts): their place in time is the end of the kernel before them', () => {
    const rec = new SequenceRecorder('type');
    const r = rec.rank('0');
    const s = rec.stream('2');
    const six = step(6);
    for (const st of [1, 2])
      six.forEach((t, i) => rec.add(r, s, st, rec.table.intern(t), 10, st === 2 && i % 10 === 3 ? Number.NaN : st * 1000 + i * 10));
    const pr = rec.finish();
    expect(pr.stats.badStart).toBe(3);
    const notes = findRewrites(seq({ 0: { 1: six, 2: six } }), pr).notes.filter((n) => n.kind === 'bad-starts');
    expect(notes).toEqual([{ kind: 'bad-starts', side: 'pr', kernels: 3 }]);
    expect(noteText(notes[0]!, (x) => x)).toBe(
      "the PR: 3 compute kernels in a step had no start time kprof could read (an empty cell, or one not read exactly); each is placed where the kernel before it in its stream ended, for the chains' wall spans and the kernels matched by start time",
    );
  });
});
