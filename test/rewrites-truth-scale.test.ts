// The Fusion rewrites section and the rules → check gate against profiles of known truth (test/fusionTruth.ts) at
// real depth: 61 decoder layers (3 dense, 58 MoE) and an MTP layer, 8 ranks, 8 steps. The quick cases are in
// rewrites-truth.test.ts.

import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { countChange, FUSIONS, type FusionId, generate, type Site, type SideSpec, stepIds, tp, truthOf, writeSide } from './fusionTruth.js';
import { expectAllAccounted, expectFusion, gate, section, writePair } from './fusionTruthRun.js';

let root = '';
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'kprof-truth-scale-')));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.each<[string, (f: FusionId, s: Site) => boolean, FusionId[]]>([
  ['the prolog in every decoder layer', (f, s) => f === 'prolog' && s.kind !== 'mtp', ['prolog']],
  ['the prolog in the 58 MoE layers only', (f, s) => f === 'prolog' && s.kind === 'moe', ['prolog']],
  ['the routed experts in the MoE layers and the MTP layer', (f) => f === 'gmm', ['gmm']],
  ['both, the prolog on ranks 0-6 only', (f, s) => (f === 'prolog' && s.kind !== 'mtp' && s.rank !== 7) || f === 'gmm', ['prolog', 'gmm']],
])('61 layers and MTP on 8 ranks, 8 steps: %s', (name, fused, fusions) => {
  test('each fusion as the truth has it; every kernel accounted for', async () => {
    const base: SideSpec = { ranks: tp(8, 61, 3, true), steps: stepIds(8), seed: 101 };
    const pair = writePair(root, name.replace(/\W+/g, '-'), base, { ...base, seed: 102, fused });
    const s = await section(pair);
    expect(s.rewrites.length).toBe(fusions.length);
    for (const f of fusions) expect(expectFusion(s, f, truthOf(f, pair.b, pair.p)).layerCount).toBe(62);
    expectAllAccounted(s, countChange(pair.b, pair.p));
  });
});

test('61 layers and MTP, 2 ranks: rules from the fusion; a new green run passes, one layer undone in one step fails there', async () => {
  const dir = join(root, 'gate');
  const where = (f: FusionId, s: Site): boolean => f === 'prolog' && s.kind !== 'mtp';
  const base: SideSpec = { ranks: tp(2, 61, 3, true), steps: stepIds(6), seed: 111 };
  const pair = writePair(dir, '', base, { ...base, seed: 112, fused: where });
  const g = await gate(pair, dir);
  const green = await g.check(writeSide(join(dir, 'green'), generate({ ...base, steps: stepIds(8, 200), seed: 113, fused: where }), 5000000));
  expect([green.code, green.broken]).toEqual([0, []]);
  const at = (s: Site): boolean => s.rank === 1 && s.step === 33 && s.layer === 47;
  const undone = await g.check(writeSide(join(dir, 'undone'), generate({ ...base, seed: 114, fused: (f, s) => where(f, s) && !at(s) }), 6000000));
  expect(undone.code).toBe(1);
  const seq = undone.broken.find((b) => b.unit === 'chains' && b.rule.startsWith('the chain of 8 kernels'));
  expect([seq?.rank, seq?.step, seq?.site?.layer]).toEqual(['1', 33, 47]);
});

// A fusion made in some steps only (a PR whose fused path runs in some steps, its other steps as the base's): the
// fused steps of the prolog are a kind of step of their own (a fused kernel a layer); those of the dense layers' MLP
// (three fused kernels a step) are not. Fewer fused steps than unfused ones, or as many, so the lanes' most frequent
// steps of both sides are alike: the section said "None: the most frequent step of each side is the same kernel
// sequence" and accounted for none of the PR's change.
describe.each<[string, FusionId, (s: Site) => boolean]>([
  ['the prolog in the last 3 of 8 steps', 'prolog', (s) => s.step >= 35],
  ['the prolog in the last 4 of 8 steps (a tie: the unfused steps are seen first)', 'prolog', (s) => s.step >= 34],
  ['the prolog in one step of 8', 'prolog', (s) => s.step === 33],
  ['the prolog in steps 35-37 on rank 0, 30-31 on rank 1', 'prolog', (s) => (s.rank === 0 ? s.step >= 35 : s.step <= 31)],
  ['the MLP of the dense layers in the last 3 of 8 steps', 'swiglu', (s) => s.step >= 35],
  ['the MLP of the dense layers in one step of 8', 'swiglu', (s) => s.step === 30],
])('61 layers and MTP on 2 ranks, 8 steps: %s', (name, fusion, when) => {
  test('the fusion as the truth has it, its steps said; every kernel accounted for', async () => {
    const base: SideSpec = { ranks: tp(2, 61, 3, true), steps: stepIds(8), seed: 121 };
    const fused = (f: FusionId, s: Site): boolean => f === fusion && s.kind !== 'mtp' && when(s);
    const pair = writePair(root, `some-${name.replace(/\W+/g, '-')}`, base, { ...base, seed: 122, fused });
    const s = await section(pair);
    const t = truthOf(fusion, pair.b, pair.p);
    const fusedSteps = new Set(pair.p.ledger.filter((e) => e.fused).map((e) => `${e.rank}:${e.step}`)).size;
    expect(s.rewrites.length).toBe(1);
    // Fewer than 4 fused steps are too few for the noise test: the figures are held all the same.
    if (fusedSteps >= 4) expectFusion(s, fusion, t);
    else {
      const [x] = s.rewrites;
      expect({ removed: x!.removed, added: x!.added, chains: x!.chains, perStep: x!.perStep, ranks: x!.ranks }).toEqual({
        removed: [...FUSIONS[fusion].chain],
        added: [FUSIONS[fusion].fused],
        chains: t.chains,
        perStep: t.perStep,
        ranks: t.ranks,
      });
      expect(x!.saving.totalUs).toBeCloseTo(Math.round(t.fusedSavingNs) / 1000, 3);
    }
    expect(s.notes).toContainEqual({ kind: 'some-steps', rewrites: 1, steps: fusedSteps, of: 16 });
    expectAllAccounted(s, countChange(pair.b, pair.p));
  });
});
