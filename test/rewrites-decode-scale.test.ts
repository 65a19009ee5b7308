// The rewrites engine on generated decode steps (test/decodeGen.ts) at real depth (60 and 128 layers, with and
// without an MTP layer), and property tests over random depth, dense layers, the duplicate dropped next to the
// chain, ranks and fusion by rank and step: the chain is exactly the one replaced, the counts, layers and ranks are
// the truth's, and every kernel the PR lost or gained is accounted for.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { findRewrites } from '../src/analysis/rewrites/rewrites.js';
import { CHAIN, DUP, decodePair, FUSED, fusedChainTicks, writeDecodeCsv } from './decodeGen.js';
import { kprof } from './helpers.js';

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

/**
 * Σ ticks of the copy of DUP the PR dropped after the base's chain of each layer it fused ([rank][step] layers): the
 * least and the most it can be (two copies side by side: which one was dropped the profile cannot tell; the rewrite
 * takes the one whose time is least like the PR's copies').
 */
function dupTicks(steps: string[][][], durations: number[][][], fusedLayers: number[][][], chain: readonly string[]): [number, number] {
  let lo = 0;
  let hi = 0;
  steps.forEach((perStep, rank) =>
    perStep.forEach((ks, step) => {
      let layer = 0;
      for (let i = 0; i < ks.length; i++) {
        if (!chain.every((k, j) => ks[i + j] === k)) continue;
        const at = i + chain.length;
        if (fusedLayers[rank]![step]!.includes(layer) && [0, DUP.length].every((d) => DUP.every((k, j) => ks[at + d + j] === k))) {
          const copy = (d: number): number => DUP.reduce((a, _, j) => a + durations[rank]![step]![at + d + j]!, 0);
          lo += Math.min(copy(0), copy(DUP.length));
          hi += Math.max(copy(0), copy(DUP.length));
        }
        layer++;
        i += chain.length - 1;
      }
    }),
  );
  return [lo, hi];
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
        // The truth, from the generator's own kernels: the PR's fused kernels less the base's chains of the layers
        // it fused; of the duplicate, one of the base's two copies in those layers.
        const fused = fusedChainTicks({ base, pr, truth, steps, durations }, spec);
        expect(main.totalSavingTicks).toBe(fused.pr - fused.base);
        const dup = r.rewrites.find((w) => w !== main);
        if (s.dup) {
          const [lo, hi] = dupTicks(steps[0], durations[0], truth.fusedLayers, chain);
          expect(-dup!.totalSavingTicks).toBeGreaterThanOrEqual(lo);
          expect(-dup!.totalSavingTicks).toBeLessThanOrEqual(hi);
        } else expect(dup).toBeUndefined();
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

describe('kprof diff, check and rules on a 60-layer decode export (4 ranks, 6 steps), end to end', () => {
  // The generator's kernels written as torch_npu kernel_details.csv (writeDecodeCsv, durations of its own), read
  // back by the CLI: the rewrites must be the truth's at real depth (no chain split, no saving overstated), and the
  // gate must pass on the PR that fused every layer and fail on one where a rank kept the chain in 5 layers.
  const HEADER =
    'Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';
  const LAYERS = 60;
  const dir = mkdtempSync(join(tmpdir(), 'kprof-decode60-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const unfused = (rank: number, layer: number): boolean => rank === 1 && layer >= 30 && layer < 35;
  const spec = { layers: LAYERS, dense: 3, mtp: true, dup: true, ranks: 4, steps: 6 };
  const full = decodePair(spec);
  const partial = decodePair({ ...spec, fused: (rank, _step, layer) => !unfused(rank, layer) });
  writeDecodeCsv(join(dir, 'full'), HEADER, full.steps);
  writeDecodeCsv(join(dir, 'partial'), HEADER, partial.steps);
  const side = (run: string, s: 'base' | 'pr') => join(dir, run, s);

  /** Each rank's steps as written: [rank][step] → the (type, duration in ticks) of each kernel, in order. */
  function written(folder: string): { type: string; ticks: number }[][][] {
    return readdirSync(folder)
      .sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]))
      .map((rank) => {
        const lines = readFileSync(join(folder, rank, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), 'utf8')
          .split('\r\n')
          .slice(1, -1);
        const steps: { type: string; ticks: number }[][] = [];
        for (const line of lines) {
          const c = line.split(',');
          (steps[Number(c[0]) - 1] ??= []).push({ type: c[6]!, ticks: Math.round(Number(c[10]) * 10_000) });
        }
        return steps;
      });
  }

  /**
   * Σ ticks, as written, of the fused kernels of a side and, of the base (`fusedLayers`: [rank][step] the layers the
   * PR fused; the l-th chain of a step is layer l's), of its chains in those layers: a chain both sides ran is not
   * the rewrite's.
   */
  function chainTicks(folder: string, fusedLayers: number[][][] | null): number {
    let t = 0;
    written(folder).forEach((perStep, rank) =>
      perStep.forEach((ks, step) => {
        let layer = 0;
        for (let i = 0; i < ks.length; i++) {
          if (ks[i]!.type === FUSED) t += ks[i]!.ticks;
          else if (fusedLayers !== null && CHAIN.every((k, j) => ks[i + j]?.type === k)) {
            if (fusedLayers[rank]![step]!.includes(layer)) for (let j = 0; j < CHAIN.length; j++) t += ks[i + j]!.ticks;
            layer++;
            i += CHAIN.length - 1;
          }
        }
      }),
    );
    return t;
  }

  test.each([
    ['full', full],
    ['partial', partial],
  ] as const)('%s: the 13-kernel chain → MlaPrologV3 and the duplicate, exact counts, layers and saving', async (run, pair) => {
    const r = await kprof(['diff', side(run, 'base'), side(run, 'pr'), '--format', 'json']);
    expect(r.code).toBe(0);
    const rw = JSON.parse(r.stdout).rewrites;
    expect(rw.marker).toMatchObject({ token: 'LightningIndexer' });
    const [main, dup, ...more] = rw.rewrites;
    expect(more).toEqual([]);
    expect([main.removed, main.added, main.chains, main.layers, main.ranks.length]).toEqual([CHAIN, [FUSED], pair.truth.chains, range(LAYERS), 4]);
    expect([dup.removed, dup.added, dup.chains]).toEqual([DUP, [], pair.truth.chains]);
    expect(main.perStep).toEqual(run === 'full' ? { min: LAYERS, max: LAYERS } : { min: LAYERS - 5, max: LAYERS });
    // The saving is the measured change of the rewrite's kernels, as the engine's property test defines it: the
    // PR's fused kernels less the base's chains of the layers it fused (the chains both ran, and the MTP layer's, 2
    // edits away, are outside it).
    const layers = pair.truth.fusedLayers;
    expect(Math.round(main.saving.totalUs * 10_000)).toBe(chainTicks(side(run, 'pr'), null) - chainTicks(side(run, 'base'), layers));
    expect(rw.conservation).toMatchObject({ rest: [], removedUnpaired: 0, addedUnpaired: 0 });
    expect(rw.conservation.removedAccounted).toBe(rw.conservation.removed);
    expect(rw.conservation.addedAccounted).toBe(rw.conservation.added);
  });

  test('check: rules the fused PR meets exit 0; the PR with 5 unfused layers on rank 1 breaks each, there only', async () => {
    const rules = join(dir, 'kprof.rules.yaml');
    writeFileSync(
      rules,
      [
        'version: 1',
        'rules:',
        '  - rule: the MLA prolog is fused in every decoder layer',
        '    fused: mla-prolog',
        '  - rule: MlaPrologV3 once per decoder layer',
        '    type: MlaPrologV3',
        `    count: { per: step, exactly: ${LAYERS} }`,
        '  - rule: the chain stays gone',
        `    type: [${CHAIN.join(', ')}]`,
        '    sequence: { per: step, max: 0 }',
        '    evidence: { note: "fused into MlaPrologV3" }',
        '  - rule: ScatterNdUpdate stays removed',
        '    type: ScatterNdUpdate',
        '    absent: true',
        '    evidence: { note: "fused into MlaPrologV3" }',
        '',
      ].join('\n'),
    );
    const pass = await kprof(['check', side('full', 'pr'), '--rules', rules, '--format', 'json']);
    expect([pass.code, pass.stderr]).toEqual([0, '']);
    expect(JSON.parse(pass.stdout).results.map((x: { passed: boolean }) => x.passed)).toEqual([true, true, true, true]);
    const fail = await kprof(['check', side('partial', 'pr'), '--rules', rules, '--format', 'json']);
    expect(fail.code).toBe(1);
    const results = JSON.parse(fail.stdout).results as { passed: boolean; ranksBroken: string[]; observed: number }[];
    expect(results.map((x) => [x.passed, x.ranksBroken.length])).toEqual([
      [false, 1],
      [false, 1],
      [false, 1],
      [false, 1],
    ]);
    expect(new Set(results.map((x) => x.ranksBroken[0]))).toEqual(new Set([results[0]!.ranksBroken[0]]));
    expect(results[0]!.ranksBroken[0]).toMatch(/1/);
    expect(results.slice(0, 3).map((x) => x.observed)).toEqual([5, LAYERS - 5, 5]);
  });

  test('rules: the rules written from the diff hold on the PR and break on the base and on the partly fused PR', async () => {
    const file = join(dir, 'written.rules.yaml');
    const w = await kprof(['rules', side('full', 'base'), side('full', 'pr'), '-o', file]);
    expect(w.code).toBe(0);
    expect((await kprof(['check', side('full', 'pr'), '--rules', file])).code).toBe(0);
    expect((await kprof(['check', side('full', 'base'), '--rules', file])).code).toBe(1);
    expect((await kprof(['check', side('partial', 'pr'), '--rules', file])).code).toBe(1);
  });
});

describe('kprof diff on a 60-layer decode pair (2 ranks × 16 steps) where rank 1 keeps ScatterNdUpdate beside the fused kernel in layer 30', () => {
  // The figures of the section agree with each other and with the generator in every format: 1,920 chains = 60 per
  // step × 32 steps (not "59-60 per step": the layer that kept a kernel fused its chain too), the 16 kernels kept
  // named, their time in the saving, and no rewrite made of the kept kernel and the kernels after it.
  const HEADER =
    'Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';
  const dir = mkdtempSync(join(tmpdir(), 'kprof-kept60-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const KEPT = CHAIN.length - 1;
  const pair = decodePair({
    layers: 60,
    dense: 3,
    mtp: true,
    dup: true,
    ranks: 2,
    steps: 16,
    kept: (rank, _step, layer) => (rank === 1 && layer === 30 ? KEPT : null),
  });
  writeDecodeCsv(dir, HEADER, pair.steps);
  const args = [join(dir, 'base'), join(dir, 'pr')];

  /** Σ ticks of a side's exact chains, fused kernels and (PR) ScatterNdUpdate outside a chain, as written. */
  function ticks(side: 'base' | 'pr'): number {
    let t = 0;
    for (const rank of readdirSync(join(dir, side))) {
      const rows = readFileSync(join(dir, side, rank, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), 'utf8')
        .split('\r\n')
        .slice(1, -1);
      const ks = rows.map((line) => {
        const c = line.split(',');
        return { step: c[0]!, type: c[6]!, ticks: Math.round(Number(c[10]) * 10_000) };
      });
      for (let i = 0; i < ks.length; i++) {
        if (ks[i]!.type === FUSED || (side === 'pr' && ks[i]!.type === CHAIN[KEPT])) t += ks[i]!.ticks;
        else if (CHAIN.every((k, j) => ks[i + j]?.type === k && ks[i + j]!.step === ks[i]!.step)) {
          for (let j = 0; j < CHAIN.length; j++) t += ks[i + j]!.ticks;
          i += CHAIN.length - 1;
        }
      }
    }
    return t;
  }

  test('json: chains, per step, ranks and kept are the truth, and the saving is the kernels as written', async () => {
    const r = await kprof(['diff', ...args, '--format', 'json']);
    expect(r.code).toBe(0);
    const rw = JSON.parse(r.stdout).rewrites;
    expect(
      rw.rewrites.map((w: { removed: string[]; added: string[]; chains: number; perStep: unknown }) => [w.removed, w.added, w.chains, w.perStep]),
    ).toEqual([
      [CHAIN, [FUSED], pair.truth.chains, pair.truth.perStep],
      [DUP, [], pair.truth.chains, pair.truth.perStep],
    ]);
    expect([pair.truth.chains, pair.truth.perStep, pair.truth.kept]).toEqual([1920, { min: 60, max: 60 }, 16]);
    expect(rw.rewrites[0].kept).toEqual({ kernels: 16, steps: 16, tokens: [{ token: CHAIN[KEPT], kernels: 16 }] });
    expect(rw.rewrites[0].ranks).toHaveLength(2);
    expect(Math.round(rw.rewrites[0].saving.totalUs * 10_000)).toBe(ticks('pr') - ticks('base'));
    expect(rw.conservation).toMatchObject({ rest: [], removedUnpaired: 0, addedUnpaired: 0 });
    expect(rw.conservation.removedAccounted).toBe(rw.conservation.removed);
  });

  test('table, Markdown and HTML say the same figures', async () => {
    const table = (await kprof(['diff', ...args])).stdout;
    expect(table).toMatch(/#1 {2}13 → 1 · 60 per step · layers 0-59 of 0-60 · ranks /);
    expect(table).toContain('measured over 1,920 chains');
    expect(table).toContain(
      '    kept   16 kernels of the chain still run beside MlaPrologV3 in 16 steps (ScatterNdUpdate ×16; their time is in the saving).',
    );
    expect(table).not.toContain('59-60');
    expect(table).not.toContain('Not accounted for');
    const md = (await kprof(['diff', ...args, '--format', 'markdown'])).stdout;
    expect(md).toMatch(/\| 1 \| 13 kernels → `MlaPrologV3` \| 60 per step \| layers 0-59 of 0-60 \|[^\n]*\| 1,920 \|/);
    expect(md).toContain(
      '- #1 16 kernels of the chain still run beside `MlaPrologV3` in 16 steps (`ScatterNdUpdate` ×16; their time is in the saving)',
    );
    const html = join(dir, 'report.html');
    expect((await kprof(['diff', ...args, '--format', 'html', '-o', html])).code).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('data-min="60" data-max="60" class="rw-per-step"');
    expect(page).toContain('data-chains="1920"');
    expect(page).toContain('class="rw-kept" data-kernels="16" data-steps="16"');
  });
});
