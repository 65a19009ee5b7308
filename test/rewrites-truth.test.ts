// The Fusion rewrites section of `kprof diff --format json`, and the gate `kprof rules` → `kprof check` built on
// it, against decode profiles of known truth (test/fusionTruth.ts: a generator written apart from the engine and
// from test/decodeGen.ts). For each case the truth says which chain became which kernel, how many sites per step,
// in which layers and ranks, and the time saved to the nanosecond; the section must say the same, with the chain
// whole, every kernel accounted for and the Time line adding up. Deeper models: rewrites-truth-scale.test.ts.

import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  countChange,
  FUSIONS,
  type FusionId,
  generate,
  type Generated,
  type RankSpec,
  type Site,
  type SideSpec,
  stepIds,
  tp,
  truthOf,
  writeSide,
} from './fusionTruth.js';
import { expectAllAccounted, expectFusion, expectTimeAddsUp, gate, type Pair, type SectionJson, section, writePair } from './fusionTruthRun.js';
import { kprof } from './helpers.js';

let root = '';
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'kprof-truth-')));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const prologOf =
  (where: (s: Site) => boolean) =>
  (f: FusionId, s: Site): boolean =>
    f === 'prolog' && where(s);
const decoder = (s: Site): boolean => s.kind !== 'mtp';

describe.each<[string, RankSpec[], (f: FusionId, s: Site) => boolean, FusionId[]]>([
  ['2 layers (1 dense, 1 MoE), the prolog fused in both', tp(2, 2, 1, false), prologOf(decoder), ['prolog']],
  ['9 layers and an MTP layer, the prolog fused in the decoder layers only', tp(2, 9, 1, true), prologOf(decoder), ['prolog']],
  ['9 layers (3 dense) and MTP, the prolog fused in the MoE layers only', tp(2, 9, 3, true), prologOf((s) => s.kind === 'moe'), ['prolog']],
  ['9 layers (3 dense) and MTP, the prolog fused in the dense layers only', tp(2, 9, 3, true), prologOf((s) => s.kind === 'dense'), ['prolog']],
  ['9 layers (2 dense) and MTP, the routed experts fused in the MoE layers and the MTP layer', tp(2, 9, 2, true), (f) => f === 'gmm', ['gmm']],
  ['6 layers (2 dense), the prolog fused in even steps only', tp(2, 6, 2, false), prologOf((s) => s.step % 2 === 0), ['prolog']],
  ['6 layers (2 dense) and MTP, two fusions at once', tp(2, 6, 2, true), (f, s) => (f === 'prolog' && decoder(s)) || f === 'gmm', ['prolog', 'gmm']],
  ['27 layers (1 dense) and MTP, the prolog fused in the decoder layers', tp(2, 27, 1, true), prologOf(decoder), ['prolog']],
])('%s', (name, ranks, fused, fusions) => {
  let pair: Pair;
  let s: SectionJson;
  beforeAll(async () => {
    const base: SideSpec = { ranks, steps: stepIds(4), seed: 11 };
    pair = writePair(root, name.replace(/\W+/g, '-'), base, { ...base, seed: 12, fused });
    s = await section(pair);
  });
  test('each fusion is one rewrite, its chain whole, with the truth’s chains, layers, ranks, sites not fused and saving', () => {
    expect(s.status).toBe('ok');
    expect(s.lanes.every((l) => l.status === 'aligned')).toBe(true);
    expect(s.rewrites.length).toBe(fusions.length);
    for (const f of fusions) {
      const t = truthOf(f, pair.b, pair.p);
      const w = expectFusion(s, f, t);
      const layers = ranks[0]!.layers + (ranks[0]!.mtp ? 1 : 0);
      expect(w.layerCount).toBe(layers);
    }
    // The marker runs once in every layer: the indexer or the attention after it.
    expect(['LightningIndexer', 'SparseFlashAttention']).toContain(s.marker?.token);
  });
  test('every kernel the PR lost or gained is in a rewrite; the Time line adds up', () => {
    expectAllAccounted(s, countChange(pair.b, pair.p));
  });
});

test('the control: nothing fused, nothing listed, nothing to account for', async () => {
  const base: SideSpec = { ranks: tp(2, 6, 2, true), steps: stepIds(4), seed: 21 };
  const pair = writePair(root, 'control', base, { ...base, seed: 22 });
  const s = await section(pair);
  expect({ status: s.status, rewrites: s.rewrites, marker: s.marker }).toEqual({ status: 'ok', rewrites: [], marker: null });
  expectAllAccounted(s, { removed: 0, added: 0 });
  expect(s.conservation.time.rewritesUs).toBe(0);
});

test('a fusion beside unrelated changes: the sampler Cast dropped is a rewrite of its own, a kernel added in one step is left in the rest', async () => {
  const base: SideSpec = { ranks: tp(2, 6, 1, true), steps: stepIds(4), seed: 31 };
  const pair = writePair(root, 'unrelated', base, { ...base, seed: 32, fused: prologOf(decoder), dropSamplerCast: true, extraTransData: ['1:32'] });
  const s = await section(pair);
  expectFusion(s, 'prolog', truthOf('prolog', pair.b, pair.p));
  const others = s.rewrites.filter((w) => !w.added.includes('MlaPrologV3'));
  expect(others.map((w) => [w.removed, w.added, w.chains, w.perStep, w.ranks])).toEqual([[['Cast'], [], 8, { min: 1, max: 1 }, ['0', '1']]]);
  const c = s.conservation;
  expect(c.rest).toEqual([{ token: 'TransData', base: 0, pr: 1, observed: 1, explained: 0, unpaired: 0 }]);
  expect({ removed: c.removed, added: c.added }).toEqual(countChange(pair.b, pair.p));
  expect([c.removedAccounted, c.addedAccounted]).toEqual([c.removed, c.added - 1]);
  expectTimeAddsUp(s);
});

describe('uneven profiles', () => {
  test('ranks of different depth (pipeline stages: 8 layers, 3 dense; 7 MoE layers and MTP): 7-8 per step', async () => {
    const ranks: RankSpec[] = [
      { rank: 0, layers: 8, dense: 3, mtp: false },
      { rank: 1, layers: 7, dense: 0, mtp: true },
    ];
    const base: SideSpec = { ranks, steps: stepIds(4), seed: 41 };
    const pair = writePair(root, 'pipeline', base, { ...base, seed: 42, fused: prologOf(decoder) });
    const s = await section(pair);
    const t = truthOf('prolog', pair.b, pair.p);
    expect(t.perStep).toEqual({ min: 7, max: 8 });
    expectFusion(s, 'prolog', t);
    expectAllAccounted(s, countChange(pair.b, pair.p));
  });

  test('four ranks in one folder, rank 2 not fused: the rewrite names ranks 0, 1, 3, and rank 2’s layers are not fused', async () => {
    const base: SideSpec = { ranks: tp(4, 5, 1, true), steps: stepIds(4), seed: 51 };
    const pair = writePair(root, 'one-rank', base, { ...base, seed: 52, fused: prologOf((x) => decoder(x) && x.rank !== 2) });
    const s = await section(pair);
    const t = truthOf('prolog', pair.b, pair.p);
    expect(t.ranks).toEqual(['0', '1', '3']);
    const w = expectFusion(s, 'prolog', t);
    expect(w.notFused.filter((n) => n.rank === '2').map((n) => n.layer)).toEqual([0, 1, 2, 3, 4, 5]);
    expectAllAccounted(s, countChange(pair.b, pair.p));
  });

  test('the PR profiled one step more, cut short: compared with nothing, its kernels counted apart', async () => {
    const base: SideSpec = { ranks: tp(2, 6, 1, true), steps: stepIds(4), seed: 61 };
    const pair = writePair(root, 'extra-step', base, {
      ...base,
      steps: stepIds(5),
      seed: 62,
      fused: prologOf(decoder),
      cut: { rank: 0, step: 34, layers: 2 },
    });
    const s = await section(pair);
    expectFusion(s, 'prolog', truthOf('prolog', pair.b, pair.p));
    // The line counts each type's change over every step (docs/diff.md): the PR's own step nets against the chains'.
    const c = s.conservation;
    expect({ removed: c.removed, added: c.added, rest: c.rest }).toEqual({ ...countChange(pair.b, pair.p), rest: [] });
    expect(c.removedAccounted).toBe(c.removed);
    expect(c.addedAccounted + c.addedUnpaired).toBe(c.added);
    expect(s.notes.map((n) => n.kind)).toContain('unpaired-steps');
    expectTimeAddsUp(s);
  });

  test('Step Ids offset on the PR (no Step Id in common): steps compared in order, first with first', async () => {
    const base: SideSpec = { ranks: tp(2, 5, 1, true), steps: stepIds(4), seed: 71 };
    const prSpec: SideSpec = { ...base, steps: stepIds(4, 50), seed: 72, fused: prologOf(decoder) };
    const pair = writePair(root, 'offset', base, prSpec);
    const s = await section(pair);
    // The truth pairs steps by position: the PR's generated again under the base's Step Ids, same seed.
    const t = truthOf('prolog', pair.b, generate({ ...prSpec, steps: stepIds(4) }));
    const w = expectFusion(s, 'prolog', t, { steps: false });
    expect(w.notFused.map((n) => [n.rank, n.layer, n.steps])).toEqual([
      ['0', 5, stepIds(4, 50)],
      ['1', 5, stepIds(4, 50)],
    ]);
    expectAllAccounted(s, countChange(pair.b, pair.p));
  });
});

describe('the gate: rules from the base and the PR, then check', () => {
  const cases: [string, RankSpec[], (s: Site) => boolean, Site][] = [
    ['the prolog in every decoder layer, the MTP layer unfused', tp(2, 9, 1, true), decoder, { rank: 1, step: 31, layer: 4, kind: 'moe' }],
    ['the prolog in the MoE layers only', tp(2, 9, 3, true), (x) => x.kind === 'moe', { rank: 0, step: 32, layer: 8, kind: 'moe' }],
    ['the prolog on ranks 0, 1 and 3 of 4', tp(4, 4, 1, true), (x) => decoder(x) && x.rank !== 2, { rank: 3, step: 30, layer: 0, kind: 'dense' }],
  ];
  describe.each(cases)('%s', (name, ranks, where, undone) => {
    const dir = (): string => join(root, `gate-${name.replace(/\W+/g, '-')}`);
    let pair: Pair;
    let g: Awaited<ReturnType<typeof gate>>;
    const base = (): SideSpec => ({ ranks, steps: stepIds(4), seed: 81 });
    const write = (sub: string, spec: SideSpec): string => writeSide(join(dir(), sub), generate(spec), 4000000);
    beforeAll(async () => {
      pair = writePair(dir(), '', base(), { ...base(), seed: 82, fused: prologOf(where) });
      g = await gate(pair, dir());
    });
    test('the rules hold a sequence rule: the chain at most the PR’s level per step, the fused kernel at least', () => {
      expect(g.rules).toContain(`type: [${FUSIONS.prolog.chain.join(', ')}]`);
      expect(g.rules).toContain('type: [MlaPrologV3]');
    });
    test('a green PR after the fusion landed (another run, other steps, 6 of them) passes: exit 0', async () => {
      const r = await g.check(write('green', { ...base(), steps: stepIds(6, 120), seed: 83, fused: prologOf(where) }));
      expect([r.code, r.broken.map((b) => b.rule)]).toEqual([0, []]);
    });
    test('the fusion reverted (the old chain back everywhere) fails: exit 1', async () => {
      const r = await g.check(write('reverted', { ...base(), seed: 84 }));
      expect(r.code).toBe(1);
      expect(r.broken.map((b) => b.rule)).toContain(g.rules.match(/rule: "?(the chain of 8 kernels fused into MlaPrologV3[^"\n]*)/)![1]);
    });
    test('the fusion undone at one site (one layer of one step of one rank) fails at that site: exit 1', async () => {
      const at = (x: Site): boolean => x.rank === undone.rank && x.step === undone.step && x.layer === undone.layer;
      const r = await g.check(write('undone', { ...base(), seed: 85, fused: prologOf((x) => where(x) && !at(x)) }));
      expect(r.code).toBe(1);
      const seq = r.broken.find((b) => b.unit === 'chains' && b.rule.startsWith('the chain of 8 kernels'));
      expect(seq).toBeDefined();
      expect([seq!.rank, seq!.step]).toEqual([String(undone.rank), undone.step]);
      const fusedRule = r.broken.find((b) => b.rule.startsWith('MlaPrologV3 runs in place of the chain'));
      expect([fusedRule?.rank, fusedRule?.step]).toEqual([String(undone.rank), undone.step]);
    });
    test('bad input, and only bad input, is exit 2: a profile without Step Id cannot answer a sequence rule', async () => {
      const bad = join(dir(), 'no-steps');
      const csv = write('no-steps-src', { ...base(), seed: 86, fused: prologOf(where) });
      const { readdirSync, readFileSync, mkdirSync } = await import('node:fs');
      const run = readdirSync(csv)[0]!;
      const text = readFileSync(join(csv, run, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), 'utf8');
      mkdirSync(bad, { recursive: true });
      writeFileSync(join(bad, 'kernel_details.csv'), text.replace(/^[^,\r\n]*,/gm, ''));
      const r = await kprof(['check', bad, '--rules', join(dir(), 'kprof.rules.yaml'), '--base', pair.base]);
      expect(r.code, r.stderr).toBe(2);
    });
  });
});

describe.each([true, false])('a fusion of the dense layers’ MLP only (3 dense of 9 layers; MTP layer: %s)', (mtp) => {
  test('its chains are in layers 0, 1 and 2, by a marker of every layer: not all in one layer, nor in none', async () => {
    const base: SideSpec = { ranks: tp(2, 9, 3, mtp), steps: stepIds(4), seed: 91 };
    const pair = writePair(root, `dense-mlp-${mtp}`, base, { ...base, seed: 92, fused: (f) => f === 'swiglu' });
    const s = await section(pair);
    const w = expectFusion(s, 'swiglu', truthOf('swiglu', pair.b, pair.p));
    expect(w.layers).toEqual([0, 1, 2]);
    expect(w.layerCount).toBe(mtp ? 10 : 9);
    expect(['LightningIndexer', 'SparseFlashAttention']).toContain(s.marker?.token);
    expectAllAccounted(s, countChange(pair.b, pair.p));
  });
});

describe('a step cut short at the end of the profile (the profiler stopped mid-step)', () => {
  // The cut step is the start of the rank's other steps, kernel for kernel: it is compared with nothing, nor is the
  // other side's step of the same id, and said (cut-steps). Compared with the other side's whole step, the chains of
  // the layers it never ran counted as replaced and their time as saved (-1767 µs for -1469 µs on the PR; on the base,
  // the PR's MTP chain counted against the layers the base never ran).
  const without = (g: Generated, rank: number, step: number): Generated => ({
    ...g,
    ledger: g.ledger.filter((e) => !(e.rank === rank && e.step === step)),
  });
  test('on the PR (rank 1’s last step after 3 of 6 layers): that step and the base’s step 33 of rank 1 are left out, said, and the rest is the truth', async () => {
    const base: SideSpec = { ranks: tp(2, 6, 1, true), steps: stepIds(4), seed: 121 };
    const pair = writePair(root, 'cut-pr', base, { ...base, seed: 122, fused: prologOf(decoder), cut: { rank: 1, step: 33, layers: 3 } });
    const s = await section(pair);
    const t = truthOf('prolog', without(pair.b, 1, 33), without(pair.p, 1, 33));
    expect([t.chains, t.perStep]).toEqual([42, { min: 6, max: 6 }]);
    expectFusion(s, 'prolog', t);
    expectTimeAddsUp(s);
    expect(s.notes.filter((n) => n.kind === 'cut-steps')).toEqual([expect.objectContaining({ side: 'pr', steps: 1, ranks: ['1'], stepIds: [33] })]);
    expect(s.conservation.removedUnpaired).toBeGreaterThan(0);
  });
  test('on the base (rank 0’s last step after 2 of 6 layers): that step and the PR’s step 33 of rank 0 are left out, said, and the rest is the truth', async () => {
    const base: SideSpec = { ranks: tp(2, 6, 1, true), steps: stepIds(4), seed: 131 };
    const pair = writePair(root, 'cut-base', { ...base, cut: { rank: 0, step: 33, layers: 2 } }, { ...base, seed: 132, fused: prologOf(decoder) });
    const s = await section(pair);
    const t = truthOf('prolog', without(pair.b, 0, 33), without(pair.p, 0, 33));
    expect([t.chains, t.perStep]).toEqual([42, { min: 6, max: 6 }]);
    expectFusion(s, 'prolog', t);
    expectTimeAddsUp(s);
    expect(s.notes.filter((n) => n.kind === 'cut-steps')).toEqual([expect.objectContaining({ side: 'base', steps: 1, ranks: ['0'], stepIds: [33] })]);
  });
});
