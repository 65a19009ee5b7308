// The rewrites engine on real exports (../shared/data/real, read at run time): two ranks of one training job
// (msinsight-st-level2 ranks 0 and 2, 28 transformer layers each, one step of ~2,500 compute kernels), repeated
// as 3 steps, with fusions made up in the PR by editing the rows: the chains, counts, layers, ranks and the sites
// where a chain still runs must come out exactly.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { findRewrites } from '../src/analysis/rewrites/rewrites.js';
import { tokenKey } from '../src/analysis/rewrites/sequence.js';
import { CHAIN } from './decodeGen.js';
import { REAL, realData } from './helpers.js';
import { countsOf, kernelLike, readRows, record, repeatSteps, type Row } from './rewrites-rows.js';

const file = (rank: string) => join(REAL, `msinsight-st-level2/rank_${rank}_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv`);
const HAS_REAL = realData(import.meta.url);
/** Without the real exports the rows are empty and every test that reads them skips. */
const rows = (path: string): Row[] => (HAS_REAL ? readRows(path) : []);
const ROWS = { '0': rows(file('0')), '2': rows(file('2')) };
const STEPS = [13, 14, 15];

/** The forward rotary embedding of q and of k: two chains per layer. */
const ROPE = ['Cos', 'Mul', 'Cast', 'Sin', 'Mul', 'Cast', 'RotaryPositionEmbedding'];
/** Its backward tail, also twice per layer. */
const ROPE_GRAD = ['RotaryPositionEmbeddingGrad', 'ZerosLike', 'Add'];
/** Index selection of the data loader: removed with nothing in its place. */
const SELECT = ['Greater', 'MemSet', 'NonZero'];

const isCompute = (r: Row) => tokenKey('type', r) !== null;

/**
 * The rows with each occurrence of `chain` among the compute kernels (communication rows in between are kept)
 * replaced by one kernel `by` of `durTicks` (or by nothing), where `keep(occurrence)` says so.
 */
function fuse(rows: Row[], chain: string[], by: string | null, keep: (occurrence: number) => boolean = () => true, durTicks = 50_000): Row[] {
  const compute = rows.map((r, i) => (isCompute(r) ? i : -1)).filter((i) => i >= 0);
  const drop = new Set<number>();
  const insertAt = new Map<number, Row>();
  let occurrence = 0;
  for (let c = 0; c + chain.length <= compute.length; ) {
    if (chain.every((t, j) => rows[compute[c + j]!]!.type === t)) {
      if (keep(occurrence++)) {
        for (let j = 0; j < chain.length; j++) drop.add(compute[c + j]!);
        if (by !== null) insertAt.set(compute[c]!, kernelLike(rows[compute[c]!]!, by, durTicks));
      }
      c += chain.length;
    } else c++;
  }
  const out: Row[] = [];
  rows.forEach((r, i) => {
    const ins = insertAt.get(i);
    if (ins !== undefined) out.push(ins);
    if (!drop.has(i)) out.push(r);
  });
  return out;
}

/** Non-overlapping occurrences of a chain among a step's compute kernels. */
function count(rows: Row[], chain: string[]): number {
  const types = rows.filter(isCompute).map((r) => r.type);
  let n = 0;
  for (let i = 0; i + chain.length <= types.length; ) {
    if (chain.every((t, j) => types[i + j] === t)) {
      n++;
      i += chain.length;
    } else i++;
  }
  return n;
}

/** The sum of durations of each occurrence of a chain in one step, in order. */
function chainSums(rows: Row[], chain: string[]): number[] {
  const c = rows.filter(isCompute);
  const out: number[] = [];
  for (let i = 0; i + chain.length <= c.length; ) {
    if (chain.every((t, j) => c[i + j]!.type === t)) {
      out.push(c.slice(i, i + chain.length).reduce((s, r) => s + r.dur, 0));
      i += chain.length;
    } else i++;
  }
  return out;
}

function medianOf(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

type Edit = (rank: '0' | '2', rows: Row[]) => Row[];

function run(edit: Edit, by: 'type' | 'name' = 'type') {
  const side = (e: Edit | null) =>
    record(
      by,
      (['0', '2'] as const).map((rank) => ({
        rank,
        rows: repeatSteps(ROWS[rank], STEPS.length, STEPS[0]!, (_, rows) => (e === null ? rows : e(rank, rows))),
      })),
    );
  return findRewrites(side(null), side(edit));
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

test.skipIf(!HAS_REAL)('the real steps have what the scenarios need', () => {
  for (const rank of ['0', '2'] as const) {
    expect(count(ROWS[rank], ROPE)).toBe(56);
    expect(count(ROWS[rank], ROPE_GRAD)).toBe(56);
    expect(ROWS[rank].filter((r) => r.type === 'FlashAttentionScore')).toHaveLength(28);
    expect(new Set(ROWS[rank].map((r) => r.step))).toEqual(new Set([13]));
  }
});

describe.skipIf(!HAS_REAL)('a chain replaced by one new kernel in every step', () => {
  const result = run((_, rows) => fuse(rows, ROPE, 'RopeFused'));
  test('one rewrite: the chain, what replaced it, how often, where', () => {
    expect(result.rewrites).toHaveLength(1);
    const r = result.rewrites[0]!;
    expect(r.removed).toEqual(ROPE);
    expect(r.added).toEqual(['RopeFused']);
    expect(r.perStep).toEqual({ min: 56, max: 56 });
    expect(r.ranks).toEqual(['0', '2']);
    // 2 per layer × 28 layers × 3 steps × 2 ranks.
    expect(r.chains).toBe(336);
    expect(r.removedChains).toEqual({ base: 336, pr: 0 });
    expect(r.addedChains).toEqual({ base: 0, pr: 336 });
    expect(result.marker).toEqual({ token: 'FlashAttentionScore', auto: true, equal: true });
    expect(r.layers).toEqual(range(0, 27));
    expect(r.layerCount).toBe(28);
    expect(r.notFused).toEqual([]);
  });
  test('the lanes: one compute stream per rank, every step of one shape, aligned at the lower bound', () => {
    expect(result.lanes.map((l) => [l.rank, l.stream, l.status, l.base?.repSteps, l.base?.steps, l.pr?.kernels, l.edits === l.lowerBound])).toEqual([
      ['0', '2', 'aligned', 3, 3, 2448 - 56 * 6, true],
      ['2', '2', 'aligned', 3, 3, 2564 - 56 * 6, true],
    ]);
  });
  test('the time of one chain: the median over its occurrences, and the saving', () => {
    const r = result.rewrites[0]!;
    const sums = [...chainSums(ROWS['0'], ROPE), ...chainSums(ROWS['2'], ROPE)];
    expect(r.base!.medianTicks).toBe(medianOf(sums));
    expect(r.base!.occurrences).toBe(336);
    expect(r.pr!.medianTicks).toBe(50_000);
    expect(r.saving.delta).toBe(50_000 - medianOf(sums));
    // The measured change: every fused kernel's time less every chain's (3 steps of each rank's chains).
    expect(r.totalSavingTicks).toBe(50_000 * 336 - 3 * sums.reduce((a, b) => a + b, 0));
    expect(r.base!.medianSpanTicks).toBeGreaterThanOrEqual(r.base!.medianTicks);
    // The steps are copies, so each rank's per-step samples are equal: 6 samples a side, all PR ones 50,000.
    expect(r.base!.perStepTicks).toHaveLength(6);
    expect(r.saving.test!.p).toBeLessThan(0.05);
    expect(r.saving.significant).toBe(true);
  });
  test('the conservation line: every removed and added kernel is in the rewrite', () => {
    expect(countsOf(result.conservation)).toEqual({
      removed: 336 * 7,
      added: 336,
      removedAccounted: 336 * 7,
      addedAccounted: 336,
      removedUnpaired: 0,
      addedUnpaired: 0,
      rest: [],
    });
  });
});

describe.skipIf(!HAS_REAL)('a chain replaced in some layers only', () => {
  // Occurrences 0-27 of each step are layers 0-13 (two per layer).
  const result = run((_, rows) => fuse(rows, ROPE, 'RopeFused', (i) => i < 28));
  const r = result.rewrites[0]!;
  test('the layers it took place in, and the layers where the chain still runs', () => {
    expect(result.rewrites).toHaveLength(1);
    expect(r.chains).toBe(28 * 3 * 2);
    expect(r.perStep).toEqual({ min: 28, max: 28 });
    expect(r.layers).toEqual(range(0, 13));
    expect(r.removedChains).toEqual({ base: 336, pr: 168 });
    expect(r.notFused).toHaveLength(2 * 28);
    for (const rank of ['0', '2']) {
      const sites = r.notFused.filter((s) => s.rank === rank);
      expect(sites.map((s) => s.layer)).toEqual(range(14, 27).flatMap((l) => [l, l]));
      for (const s of sites) {
        expect(s.steps).toEqual(STEPS);
        expect(s.edits).toBe(0);
        expect(s.tokens).toEqual(ROPE);
        expect(s.layers).toBe(28);
      }
    }
    expect(result.conservation.removedAccounted).toBe(168 * 7);
    expect(result.conservation.rest).toEqual([]);
  });
});

describe.skipIf(!HAS_REAL)('a chain replaced on one rank only', () => {
  const result = run((rank, rows) => (rank === '2' ? fuse(rows, ROPE, 'RopeFused') : rows));
  const r = result.rewrites[0]!;
  test('the rank it happened on, and every site of the other rank as not fused', () => {
    expect(result.rewrites).toHaveLength(1);
    expect(r.ranks).toEqual(['2']);
    expect(r.chains).toBe(56 * 3);
    expect(r.removedChains).toEqual({ base: 336, pr: 168 });
    expect(r.notFused.every((s) => s.rank === '0' && s.edits === 0 && s.steps.join() === STEPS.join())).toBe(true);
    expect(r.notFused.map((s) => s.layer)).toEqual(range(0, 27).flatMap((l) => [l, l]));
    expect(result.lanes.map((l) => [l.rank, l.edits])).toEqual([
      ['0', 0],
      ['2', 56 * 8],
    ]);
  });
});

describe.skipIf(!HAS_REAL)('a chain removed with nothing in its place', () => {
  const result = run((_, rows) => fuse(rows, SELECT, null));
  const r = result.rewrites[0]!;
  const perStep = { '0': count(ROWS['0'], SELECT), '2': count(ROWS['2'], SELECT) };
  test('removed, how often, and its time saved entirely', () => {
    expect(perStep['0']).toBeGreaterThan(1);
    expect(result.rewrites).toHaveLength(1);
    expect(r.removed).toEqual(SELECT);
    expect(r.added).toEqual([]);
    expect(r.chains).toBe(3 * (perStep['0'] + perStep['2']));
    expect(r.perStep).toEqual({ min: Math.min(perStep['0'], perStep['2']), max: Math.max(perStep['0'], perStep['2']) });
    expect(r.pr).toBeNull();
    const sums = [...chainSums(ROWS['0'], SELECT), ...chainSums(ROWS['2'], SELECT)];
    expect(r.saving.delta).toBe(-medianOf(sums));
    expect(r.notFused).toEqual([]);
    expect(countsOf(result.conservation)).toEqual({
      removed: r.chains * 3,
      added: 0,
      removedAccounted: r.chains * 3,
      addedAccounted: 0,
      removedUnpaired: 0,
      addedUnpaired: 0,
      rest: [],
    });
  });
});

describe.skipIf(!HAS_REAL)('two different fusions at once', () => {
  const result = run((_, rows) => fuse(fuse(rows, ROPE, 'RopeFused'), ROPE_GRAD, 'RopeGradFused'));
  test('two rewrites, the larger first, each exact, and all kernels accounted for', () => {
    expect(result.rewrites.map((r) => [r.removed, r.added, r.chains, r.perStep.min, r.ranks])).toEqual([
      [ROPE, ['RopeFused'], 336, 56, ['0', '2']],
      [ROPE_GRAD, ['RopeGradFused'], 336, 56, ['0', '2']],
    ]);
    expect(countsOf(result.conservation)).toEqual({
      removed: 336 * 10,
      added: 336 * 2,
      removedAccounted: 336 * 10,
      addedAccounted: 336 * 2,
      removedUnpaired: 0,
      addedUnpaired: 0,
      rest: [],
    });
  });
});

describe.skipIf(!HAS_REAL)('a fusion among kernels that run everywhere, beside another change', () => {
  // The level1 ResNet step: Conv2D · TransData · Relu runs 5 times among TransData kernels that run all over the
  // step. Fused, and DropOutDoMask removed elsewhere, a shortest edit script may keep a TransData of the chain and
  // split the fusion into fragments (Conv2D → ConvRelu, Relu · TransData → nothing …), each counted over the whole
  // profile as if it had happened 40 times.
  const step = rows(join(REAL, 'msinsight-torchnpu/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv'));
  const CONV = ['Conv2D', 'TransData', 'Relu'];
  const edit = (rows: Row[]) => fuse(fuse(rows, CONV, 'ConvRelu'), ['DropOutDoMask'], null);
  const side = (e: (rows: Row[]) => Row[]) =>
    record(
      'type',
      ['0', '1'].map((rank) => ({ rank, rows: repeatSteps(step, 4, 50, (_, rows) => e(rows)) })),
    );
  test('two rewrites, each exact; no fragment of the fusion counted again', () => {
    expect(count(step, CONV)).toBe(5);
    const result = findRewrites(
      side((rows) => rows),
      side(edit),
    );
    expect(result.rewrites.map((r) => [r.removed, r.added, r.chains, r.perStep.min, r.perStep.max])).toEqual([
      [CONV, ['ConvRelu'], 40, 5, 5],
      [['DropOutDoMask'], [], 32, 4, 4],
    ]);
    expect(countsOf(result.conservation)).toEqual({
      removed: 40 * 3 + 32,
      added: 40,
      removedAccounted: 40 * 3 + 32,
      addedAccounted: 40,
      removedUnpaired: 0,
      addedUnpaired: 0,
      rest: [],
    });
  });
  test("a kernel of the fused chain removed elsewhere too: its chains are not the fusion's", () => {
    // The Relu after each of the 2 MatMulV2 removed: 16 chains, not the 56 Relus the PR lost (40 went with the fusion).
    const result = findRewrites(
      side((rows) => rows),
      side((rows) => fuse(fuse(rows, CONV, 'ConvRelu'), ['Relu'], null)),
    );
    expect(result.rewrites.map((r) => [r.removed, r.added, r.chains, r.removedChains])).toEqual([
      [CONV, ['ConvRelu'], 40, { base: 40, pr: 0 }],
      [['Relu'], [], 16, { base: 56, pr: 0 }],
    ]);
    expect(countsOf(result.conservation)).toEqual({
      removed: 40 * 3 + 16,
      added: 40,
      removedAccounted: 40 * 3 + 16,
      addedAccounted: 40,
      removedUnpaired: 0,
      addedUnpaired: 0,
      rest: [],
    });
  });
});

describe.skipIf(!HAS_REAL)('uneven sides: the same fusion, counted only where it ran', () => {
  // The level1 ResNet step (two compute streams, communication among them) on ranks 0 and 1, 4 steps each, with
  // Conv2D · TransData · Relu (5 per step) fused in the PR; then one side made uneven.
  const step = rows(join(REAL, 'msinsight-torchnpu/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv'));
  const CONV = ['Conv2D', 'TransData', 'Relu'];
  const sideOf = (edit: (rank: string, rows: Row[]) => Row[], steps: Record<string, number> = {}) =>
    record(
      'type',
      ['0', '1'].map((rank) => ({
        rank,
        rows: edit(
          rank,
          repeatSteps(step, steps[rank] ?? 4, 50, (_, rows) => rows),
        ),
      })),
    );
  const base = sideOf((_, rows) => rows);
  const fused = (rows: Row[]) => {
    const out: Row[] = [];
    for (const s of new Set(rows.map((r) => r.step)))
      out.push(
        ...fuse(
          rows.filter((r) => r.step === s),
          CONV,
          'ConvRelu',
        ),
      );
    return out;
  };
  const summary = (r: ReturnType<typeof findRewrites>) => r.rewrites.map((w) => [w.removed, w.added, w.chains, w.ranks]);

  test('uneven step counts: 4 and 3 steps; every fused chain of each step counts, the lost step is accounted for apart', () => {
    const r = findRewrites(
      base,
      sideOf((_, rows) => fused(rows), { '1': 3 }),
    );
    expect(summary(r)).toEqual([[CONV, ['ConvRelu'], 35, ['0', '1']]]);
    expect(r.conservation.removedAccounted).toBe(35 * 3);
    expect(r.conservation.removed).toBe(35 * 3 + step.filter(isCompute).length);
    // The step the PR's rank 1 did not profile: all its kernels, and nothing left unexplained.
    expect(r.conservation.removedUnpaired).toBe(step.filter(isCompute).length);
    expect(r.conservation.rest).toEqual([]);
    const lost = r.notes.find((n) => n.kind === 'unpaired-steps');
    expect(lost).toEqual({
      kind: 'unpaired-steps',
      side: 'base',
      steps: 1,
      kernels: step.filter(isCompute).length,
      ranks: ['1'],
      stepIds: [expect.any(Number)],
    });
  });

  test('a rank with no step in the PR (its Step Id cells empty): on the base only, its kernels said to be in no step', () => {
    const r = findRewrites(
      base,
      sideOf((rank, rows) => (rank === '1' ? rows.map((x) => ({ ...x, step: null })) : fused(rows))),
    );
    expect(summary(r)).toEqual([[CONV, ['ConvRelu'], 20, ['0']]]);
    expect(r.lanes.filter((l) => l.rank === '1').map((l) => l.status)).toEqual(['one-side', 'one-side']);
    expect(r.notes).toContainEqual({ kind: 'without-step', side: 'pr', kernels: 4 * step.filter(isCompute).length });
  });

  test('no Stream ID on the PR side: its one sequence is compared with the largest stream, and said', () => {
    const r = findRewrites(
      base,
      sideOf((_, rows) => fused(rows).map((x) => ({ ...x, stream: '-' }))),
    );
    expect(r.rewrites[0]!.removed).toEqual(CONV);
    expect(r.rewrites[0]!.chains).toBe(40);
    expect(r.notes).toContainEqual({ kind: 'streams-paired', rank: '0', base: '2', pr: '-' });
    expect(r.conservation.removedAccounted).toBe(r.conservation.removed);
  });

  test('communication interleaved differently on each side (inside the chains too): no change made up', () => {
    const hcom = (at: Row, i: number): Row => ({ ...at, name: `hcom_allReduce__${i}_0_1`, type: 'hcom_allReduce_', core: 'HCCL', dur: 10_000 });
    const interleave = (rows: Row[], every: number) => rows.flatMap((x, i) => (i % every === 0 ? [x, hcom(x, i)] : [x]));
    const r = findRewrites(
      sideOf((_, rows) => interleave(rows, 3)),
      sideOf((_, rows) => interleave(fused(rows), 2)),
    );
    expect(summary(r)).toEqual([[CONV, ['ConvRelu'], 40, ['0', '1']]]);
    expect(countsOf(r.conservation)).toEqual({
      removed: 120,
      added: 40,
      removedAccounted: 120,
      addedAccounted: 40,
      removedUnpaired: 0,
      addedUnpaired: 0,
      rest: [],
    });
  });
});

describe.skipIf(!HAS_REAL)('tokens follow --by', () => {
  test('by name: the chain is named by kernel names', () => {
    const result = run((_, rows) => fuse(rows, ROPE, 'RopeFused'), 'name');
    expect(result.by).toBe('name');
    expect(result.rewrites).toHaveLength(1);
    const chain = ROWS['0'].filter(isCompute);
    const at = chain.findIndex((_, i) => ROPE.every((t, j) => chain[i + j]!.type === t));
    expect(result.rewrites[0]!.removed).toEqual(chain.slice(at, at + ROPE.length).map((r) => r.name));
    expect(result.rewrites[0]!.chains).toBe(336);
  });
});

describe.skipIf(!HAS_REAL)('the conservation line on random edits of a real step', () => {
  const step = rows(join(REAL, 'msinsight-torchnpu/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv'));
  const compute = step.filter(isCompute);
  const edit = fc.record({
    at: fc.integer({ min: 0, max: Math.max(0, compute.length - 1) }),
    len: fc.integer({ min: 0, max: 6 }),
    by: fc.integer({ min: -1, max: 3 }),
  });
  test('what the rewrites do not explain is listed, token by token, and the figures add up', () => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 5 }), (edits) => {
        // Apply the edits from the last position down, so that positions stay valid.
        const apply = (rows: Row[]): Row[] => {
          const out = [...rows];
          for (const e of [...edits].sort((a, b) => b.at - a.at)) {
            // An edit at the end of the step may find it cut short by the one before (at the same position).
            const at = Math.min(e.at, out.length);
            const like = out[Math.min(at, out.length - 1)];
            const add = e.by < 0 || like === undefined ? [] : [kernelLike(like, `New${e.by}`, 1000 + e.by)];
            out.splice(at, Math.min(e.len, out.length - at), ...add);
          }
          return out;
        };
        const base = record('type', [{ rank: '0', rows: repeatSteps(compute, 3, 50) }]);
        const prRows = repeatSteps(compute, 3, 50, (_, rows) => apply(rows));
        const pr = record('type', [{ rank: '0', rows: prRows }]);
        const c = findRewrites(base, pr).conservation;
        const tally = (rows: Row[]) => {
          const m = new Map<string, number>();
          for (const r of rows) m.set(r.type, (m.get(r.type) ?? 0) + 1);
          return m;
        };
        const b = tally(repeatSteps(compute, 3, 50));
        const p = tally(prRows);
        let removed = 0;
        let added = 0;
        const unexplainedRemoved = new Map<string, number>();
        for (const t of new Set([...b.keys(), ...p.keys()])) {
          const d = (p.get(t) ?? 0) - (b.get(t) ?? 0);
          if (d < 0) removed -= d;
          else added += d;
        }
        expect(c.removed).toBe(removed);
        expect(c.added).toBe(added);
        expect(c.removedAccounted).toBeLessThanOrEqual(removed);
        expect(c.addedAccounted).toBeLessThanOrEqual(added);
        // Every token whose change the rewrites do not explain exactly is listed, with its true counts.
        let restRemoved = 0;
        let restAdded = 0;
        for (const r of c.rest) {
          expect(r.base).toBe(b.get(r.token) ?? 0);
          expect(r.pr).toBe(p.get(r.token) ?? 0);
          expect(r.observed).not.toBe(r.explained);
          unexplainedRemoved.set(r.token, 1);
          restRemoved += Math.max(0, -r.observed) - Math.min(Math.max(0, -r.observed), Math.max(0, -r.explained));
          restAdded += Math.max(0, r.observed) - Math.min(Math.max(0, r.observed), Math.max(0, r.explained));
        }
        expect(removed - c.removedAccounted).toBe(restRemoved);
        expect(added - c.addedAccounted).toBe(restAdded);
      }),
      { numRuns: 60 },
    );
  });
});

describe("the README's fusion example (fixtures/fusion-example)", () => {
  const side = (dir: string) => {
    const root = join('fixtures/fusion-example', dir);
    const ranks = readdirSync(root)
      .filter((d) => d.endsWith('_ascend_pt'))
      .sort();
    return record(
      'type',
      ranks.map((d, i) => ({ rank: String(i), rows: readRows(join(root, d, 'ASCEND_PROFILER_OUTPUT/kernel_details.csv')) })),
    );
  };
  const result = findRewrites(side('base'), side('pr'));
  test('16 chains = 2 layers × 4 steps × 2 ranks; the MTP layer is not fused, 2 edits from the chain', () => {
    expect(result.lanes.map((l) => [l.rank, l.base?.kernels, l.pr?.kernels, l.base?.repSteps, l.pr?.repSteps])).toEqual([
      ['0', 96, 72, 4, 4],
      ['1', 96, 72, 4, 4],
    ]);
    expect(result.rewrites).toHaveLength(1);
    const r = result.rewrites[0]!;
    expect(r.removed).toEqual(CHAIN);
    expect(r.added).toEqual(['MlaPrologV3']);
    expect([r.chains, r.perStep.min, r.perStep.max]).toEqual([16, 2, 2]);
    expect(result.marker).toEqual({ token: 'LightningIndexer', auto: true, equal: false });
    expect([r.layers, r.layerCount]).toEqual([[0, 1], 3]);
    expect(r.notFused.map((s) => [s.rank, s.layer, s.layers, s.edits, s.steps])).toEqual([
      ['0', 2, 3, 2, [21, 22, 23, 24]],
      ['1', 2, 3, 2, [21, 22, 23, 24]],
    ]);
    expect(countsOf(result.conservation)).toEqual({
      removed: 208,
      added: 16,
      removedAccounted: 208,
      addedAccounted: 16,
      removedUnpaired: 0,
      addedUnpaired: 0,
      rest: [],
    });
    // One chain: 72.81 µs of kernels over a 91.53 µs span in the base; one MlaPrologV3 of 33.80 µs in the PR.
    expect([r.base!.medianTicks, r.base!.medianSpanTicks, r.pr!.medianTicks]).toEqual([728_100, 915_300, 338_000]);
    expect(r.saving.significant).toBe(true);
  });
});
