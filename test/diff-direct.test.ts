// A diff of one rank against one reads each row's groups as the row holds them (rankGroups, pairSamples), not
// looked up by key in each rank's list, when each summary's list of groups is its rank's (as summarize makes a
// summary of one rank). It must answer exactly as the lookups do: the same diff, every row's figures, time test,
// uneven steps and order, on random profiles of uneven steps, offset Step Ids and kernels outside any step. And
// the rows' default order, sorted over the table's columns, is sortDiffRows' 'delta-count'.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summaryShell } from './helpers.js';
import { diffSummaries, sortDiffRows, type DiffOptions } from '../src/analysis/diff.js';
import { TICKS_PER_US, type Cell, type Group, type Summary } from '../src/model/model.js';
import { diffJsonObject } from '../src/report/diff/json.js';
import { sampleSource, samplesOf, type RowSamples } from '../src/analysis/timeTest.js';

const VIEW = { sort: 'delta-count' as const, only: null, top: null };

/** A group of one side: its count and ticks in each step it runs in, and kernels in no step. */
interface GroupSpec {
  key: string;
  perStep: [number, number, number][];
  outside: number;
}

function groupOf(g: GroupSpec, steps: readonly number[]): Group {
  const cells = new Map<number, Cell>();
  let count = g.outside;
  let ticks = g.outside * TICKS_PER_US;
  for (const [s, c, t] of g.perStep) {
    const step = steps[s % steps.length]!;
    if (c === 0 || cells.has(step)) continue;
    cells.set(step, { count: c, ticks: t, minTicks: 0, maxTicks: t });
    count += c;
    ticks += t;
  }
  return { key: g.key, type: g.key, total: { count, ticks, minTicks: 0, maxTicks: ticks }, steps: cells };
}

/** A summary of one rank: `oneList` holds one list for the profile and the rank (as summarize makes it), else two. */
function summaryOf(specs: GroupSpec[], steps: number[], oneList: boolean): Summary {
  const seen = new Set<string>();
  const groups = specs.filter((g) => !seen.has(g.key) && seen.add(g.key)).map((g) => groupOf(g, steps));
  const totals: Cell = { count: 0, ticks: 0, minTicks: 0, maxTicks: 0 };
  for (const g of groups) {
    totals.count += g.total.count;
    totals.ticks += g.total.ticks;
  }
  const rank = { rank: '0', totals, groups, steps, rowsRead: totals.count, skippedRows: 0, filteredKernels: 0 };
  return summaryShell({ input: 'in', ranks: ['0'], stepIds: steps, hasSteps: true, totals, groups: oneList ? groups : [...groups], perRank: [rank] });
}

const spec = fc.record({
  key: fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F', 'G'),
  perStep: fc.array(fc.tuple(fc.nat(5), fc.nat(3), fc.constantFrom(0, 500, 1000, 1500, 77_000)), { maxLength: 6 }),
  outside: fc.constantFrom(0, 0, 0, 1),
});
const stepIds = fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 5 }).map((s) => s.sort((a, b) => a - b));

describe('diff of one rank against one: rows read their groups directly', () => {
  it('answers as the lookups by key do, raw and per step', () => {
    fc.assert(
      fc.property(
        fc.array(spec, { maxLength: 7 }),
        fc.array(spec, { maxLength: 7 }),
        stepIds,
        stepIds,
        fc.boolean(),
        (bs, ps, bSteps, pSteps, perStep) => {
          const opts: DiffOptions = { normalization: perStep ? 'per-step' : 'none', timeTolerancePct: 2 };
          const sides = (oneList: boolean) => ({ base: summaryOf(bs, bSteps, oneList), pr: summaryOf(ps, pSteps, oneList) });
          const both = [sides(true), sides(false)] as const;
          const direct = diffSummaries(both[0].base, both[0].pr, opts);
          const looked = diffSummaries(both[1].base, both[1].pr, opts);
          expect(JSON.stringify(diffJsonObject(direct, VIEW))).toBe(JSON.stringify(diffJsonObject(looked, VIEW)));
          // The rows a view leaves out, folded into one with their time test, alike too.
          for (const view of [
            { ...VIEW, top: 1 },
            { ...VIEW, only: 'changed' as const },
          ]) {
            const json = (d: typeof direct, s: (typeof both)[number]) => JSON.stringify(diffJsonObject(d, { ...view, sides: s }));
            expect(json(direct, both[0])).toBe(json(looked, both[1]));
          }
          // The default order sorted over the columns is the views' sort.
          expect(direct.rows.map((r) => r.key)).toEqual(sortDiffRows(direct.rows, 'delta-count').map((r) => r.key));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('finds uneven steps and varying groups directly as by lookup (a case of each)', () => {
    // A fused in steps 2 and 3 of 4 only; then on offset Step Ids (the PR lost step 1, gained step 5) A and B vary.
    const b = [
      { key: 'A', perStep: [0, 1, 2, 3].map((s): [number, number, number] => [s, 4, 1000]), outside: 0 },
      { key: 'B', perStep: [[0, 1, 500] as [number, number, number], [1, 2, 500] as [number, number, number]], outside: 0 },
    ];
    const p = [
      { key: 'A', perStep: [0, 1, 2, 3].map((s): [number, number, number] => [s, s === 1 || s === 2 ? 1 : 4, 1000]), outside: 0 },
      { key: 'B', perStep: [[3, 1, 500] as [number, number, number]], outside: 0 },
    ];
    const opts: DiffOptions = { normalization: 'none', timeTolerancePct: 2 };
    const direct = diffSummaries(summaryOf(b, [1, 2, 3, 4], true), summaryOf(p, [1, 2, 3, 4], true), opts);
    const looked = diffSummaries(summaryOf(b, [1, 2, 3, 4], false), summaryOf(p, [1, 2, 3, 4], false), opts);
    const a = direct.rows.find((r) => r.key === 'A')!;
    expect(a.unevenSteps).toEqual([
      {
        rank: '0',
        stepsCompared: 4,
        reference: { deltaCount: 0, steps: 2 },
        steps: [expect.objectContaining({ step: 2, deltaCount: -3 }), expect.objectContaining({ step: 3, deltaCount: -3 })],
      },
    ]);
    expect(JSON.stringify(diffJsonObject(direct, VIEW))).toBe(JSON.stringify(diffJsonObject(looked, VIEW)));
    const offset = diffSummaries(summaryOf(b, [1, 2, 3, 4], true), summaryOf(p, [2, 3, 4, 5], true), opts);
    expect(offset.unpairedSteps.map((u) => u.varying)).toEqual([['A', 'B']]);
    expect(JSON.stringify(diffJsonObject(offset, VIEW))).toBe(
      JSON.stringify(diffJsonObject(diffSummaries(summaryOf(b, [1, 2, 3, 4], false), summaryOf(p, [2, 3, 4, 5], false), opts), VIEW)),
    );
  });
});

describe("the samples of every group of a side (the totals' time test)", () => {
  /** Each stratum's samples in order of size (the order of the steps a sum first met is no figure of the test). */
  const sorted = (r: RowSamples) => ({
    complete: r.complete,
    strata: r.strata.map((x) => ({ a: [...x.a].sort((p, q) => p - q), zerosA: x.zerosA, b: [...x.b].sort((p, q) => p - q), zerosB: x.zerosB })),
  });

  it('are the samples of the list of every key: the groups of each rank summed as they come, never listed', () => {
    fc.assert(
      fc.property(fc.array(spec, { maxLength: 7 }), fc.array(spec, { maxLength: 7 }), stepIds, stepIds, (bs, ps, bSteps, pSteps) => {
        const base = summaryOf(bs, bSteps, true);
        const pr = summaryOf(ps, pSteps, true);
        // A key of no kernel runs on no rank when listed, where every group is the totals': not compared here.
        fc.pre([...base.groups, ...pr.groups].every((g) => g.total.count > 0));
        const src = sampleSource(base, pr)!;
        const keys = [...new Set([...base.groups, ...pr.groups].map((g) => g.key))];
        expect(sorted(samplesOf(src, null))).toEqual(sorted(samplesOf(src, keys)));
      }),
      { numRuns: 300 },
    );
  });
});
