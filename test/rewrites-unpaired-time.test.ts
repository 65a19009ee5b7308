// The saving of a rewrite when one side profiled a step the other did not: it is measured over the steps both
// sides profiled, from those steps' own durations (a step of one side only is a sampled step of its shape, so its
// durations are known), not from the shape's time split by its share of them, which a slow step makes wrong.

import { expect, test } from 'vitest';
import { findRewrites } from '../src/analysis/rewrites/rewrites.js';
import { SequenceRecorder, type Sequences } from '../src/analysis/rewrites/sequence.js';

/** One rank, one stream: per step, [type, duration in ticks] in order. */
function record(steps: Record<number, [string, number][]>): Sequences {
  const rec = new SequenceRecorder('type');
  const r = rec.rank('0');
  const s = rec.stream('2');
  let t = 0;
  for (const [step, kernels] of Object.entries(steps)) {
    for (const [type, d] of kernels) {
      rec.add(r, s, Number(step), rec.table.intern(type), d, t);
      t += d + 100;
    }
  }
  return rec.finish();
}

const baseStep = (d: number): [string, number][] => [
  ['Embed', 50],
  ['Rope', d],
  ['Cast', d],
  ['Indexer', 70],
];
const prStep = (d: number): [string, number][] => [
  ['Embed', 50],
  ['Fused', d],
  ['Indexer', 70],
];

test('a step only the base profiled: the saving is that of the steps both profiled, exactly, and the time line says so', () => {
  // Steps 1 and 2 on both sides; step 3 (slow: the chain took 10 times as long) in the base only.
  const base = record({ 1: baseStep(100), 2: baseStep(200), 3: baseStep(1000) });
  const pr = record({ 1: prStep(30), 2: prStep(60) });
  const r = findRewrites(base, pr);
  const w = r.rewrites.find((x) => x.added.join() === 'Fused')!;
  expect(w.removed).toEqual(['Rope', 'Cast']);
  expect(w.chains).toBe(2);
  // PR 30 + 60, base (100 + 100) + (200 + 200): the slow step 3 is not in it (the base's time split by its share of the steps made it -1,643.33).
  expect(w.totalSavingTicks).toBe(90 - 600);
  expect(r.conservation.time.exact).toBe(true);
  expect(r.conservation.time.rewrites).toBe(-510);
  // Step 3's chain (2,000 ticks) is the base's time in steps of one side only.
  expect(r.conservation.time.unpaired).toBe(-2000);
  expect(r.conservation.time.outside).toBe(0);
});

test('a step only the PR profiled, on a rank of several steps: the same, from the PR side', () => {
  const base = record({ 1: baseStep(100), 2: baseStep(100) });
  const pr = record({ 1: prStep(30), 2: prStep(40), 3: prStep(500) });
  const r = findRewrites(base, pr);
  const w = r.rewrites.find((x) => x.added.join() === 'Fused')!;
  expect(w.totalSavingTicks).toBe(70 - 400);
  expect(r.conservation.time.exact).toBe(true);
  expect(r.conservation.time.unpaired).toBe(500);
});
