// The diff as a pure function of two summaries, and its reporters as pure functions of the diff.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summaryShell } from './helpers.js';
import {
  DIFF_SORTS,
  diffSummaries,
  headline,
  sortDiffRows,
  statusOf,
  viewDiff,
  type Diff,
  type DiffOptions,
  type DiffRow,
} from '../src/analysis/diff.js';
import { KprofError } from '../src/util/errors.js';
import { TICKS_PER_US, type Cell, type Group, type Summary } from '../src/model/model.js';
import { diffCsv } from '../src/report/diff/csv.js';
import { diffJsonObject } from '../src/report/diff/json.js';
import { diffMarkdown } from '../src/report/diff/markdown.js';
import { diffWarnings } from '../src/report/diff/shared.js';
import { diffTable } from '../src/report/diff/table.js';

/** Per rank: group key → [count, total µs]. */
type RankSpec = Record<string, [number, number]>;

function cell(count: number, us: number): Cell {
  const ticks = Math.round(us * TICKS_PER_US);
  return { count, ticks, minTicks: count > 0 ? 0 : Infinity, maxTicks: count > 0 ? ticks : -Infinity };
}

/** A group whose kernels are spread over steps 1..steps (as evenly as counts allow), all in a step. */
function group(key: string, count: number, us: number, steps = 0): Group {
  const total = cell(count, us);
  const byStep = new Map<number, Cell>();
  let ticksLeft = total.ticks;
  for (let i = 1; i <= steps; i++) {
    const c = Math.floor(count / steps) + (i <= count % steps ? 1 : 0);
    const t = i === steps ? ticksLeft : Math.round((total.ticks * c) / count);
    ticksLeft -= t;
    if (c > 0) byStep.set(i, { count: c, ticks: t, minTicks: 0, maxTicks: t });
  }
  return { key, type: key, total, steps: byStep };
}

/** A summary of one input: ranks → groups, with `steps` Step Ids (null: no Step Id column). */
function summary(ranks: Record<string, RankSpec>, steps: number | null = 4, input = 'in'): Summary {
  const all = new Map<string, Group>();
  const perRank = Object.entries(ranks).map(([rank, spec]) => {
    const groups = Object.entries(spec)
      .filter(([, [c]]) => c > 0)
      .map(([k, [c, us]]) => group(k, c, us, steps ?? 0));
    const totals = cell(0, 0);
    for (const g of groups) {
      totals.count += g.total.count;
      totals.ticks += g.total.ticks;
      const a = all.get(g.key) ?? group(g.key, 0, 0);
      a.total.count += g.total.count;
      a.total.ticks += g.total.ticks;
      all.set(g.key, a);
    }
    const stepList = steps === null ? [] : Array.from({ length: steps }, (_, i) => i + 1);
    return { rank, totals, groups, steps: stepList, rowsRead: totals.count, skippedRows: 0, filteredKernels: 0 };
  });
  const totals = cell(0, 0);
  for (const g of all.values()) {
    totals.count += g.total.count;
    totals.ticks += g.total.ticks;
  }
  return summaryShell({
    input,
    ranks: Object.keys(ranks),
    stepIds: steps === null ? [] : Array.from({ length: steps }, (_, i) => i + 1),
    hasSteps: steps !== null,
    totals,
    groups: [...all.values()],
    perRank,
  });
}

const RAW: DiffOptions = { normalization: 'none', timeTolerancePct: 2 };
const PER_STEP: DiffOptions = { normalization: 'per-step', timeTolerancePct: 2 };
const VIEW = { sort: 'delta-count' as const, only: null, top: null };

function row(d: Diff, key: string): DiffRow {
  const r = d.rows.find((x) => x.key === key);
  if (!r) throw new Error(`no row ${key}`);
  return r;
}

// The README example, in miniature: a chain fused into one kernel.
const BASE = summary({ '0': { RmsNorm: [40, 200], InterleaveRope: [48, 144], ScatterNdUpdate: [32, 106], MatMulV3: [40, 10_000], Cast: [64, 299] } });
const PR = summary({ '0': { RmsNorm: [40, 201], InterleaveRope: [16, 48], MlaPrologV3: [16, 544], MatMulV3: [40, 10_300], Cast: [64, 299] } });

describe('statuses', () => {
  it('statusOf covers every case', () => {
    expect(statusOf(0, 5)).toBe('added');
    expect(statusOf(5, 0)).toBe('removed');
    expect(statusOf(5, 3)).toBe('fewer');
    expect(statusOf(3, 5)).toBe('more');
    expect(statusOf(5, 5)).toBe('same');
    expect(statusOf(0, 0)).toBe('same');
  });

  it('every group on either side gets a row with its status; nothing is dropped', () => {
    const d = diffSummaries(BASE, PR, RAW);
    expect(d.rows.map((r) => r.key).sort()).toEqual(['Cast', 'InterleaveRope', 'MatMulV3', 'MlaPrologV3', 'RmsNorm', 'ScatterNdUpdate']);
    expect(row(d, 'MlaPrologV3').status).toBe('added');
    expect(row(d, 'ScatterNdUpdate').status).toBe('removed');
    expect(row(d, 'InterleaveRope').status).toBe('fewer');
    expect(row(d, 'Cast').status).toBe('same');
    expect(diffSummaries(PR, BASE, RAW).rows.find((r) => r.key === 'InterleaveRope')!.status).toBe('more');
  });

  it('counts and deltas are exact', () => {
    const r = row(diffSummaries(BASE, PR, RAW), 'InterleaveRope');
    expect(r.base).toEqual({ count: 48, us: 144 });
    expect(r.pr).toEqual({ count: 16, us: 48 });
    expect(r.deltaCount).toBe(-32);
    expect(r.deltaCountPct).toBeCloseTo(-66.6667, 4);
    expect(r.deltaUs).toBe(-96);
    expect(r.deltaUsPct).toBeCloseTo(-66.6667, 4);
  });
});

describe('a zero base', () => {
  it('gives null percentages, never Infinity or NaN', () => {
    const d = diffSummaries(BASE, PR, RAW);
    const added = row(d, 'MlaPrologV3');
    expect(added.deltaCountPct).toBeNull();
    expect(added.deltaUsPct).toBeNull();
    expect(added.timeNoise).toBe(false);
    const removed = row(d, 'ScatterNdUpdate');
    expect(removed.deltaCountPct).toBe(-100);
    expect(removed.deltaUsPct).toBe(-100);
    const json = diffJsonObject(d, VIEW);
    const j = json.rows.find((x) => x.key === 'MlaPrologV3')!;
    expect(j.deltaCountPct).toBeNull();
    expect(j.deltaUsPct).toBeNull();
    expect(JSON.stringify(json)).not.toMatch(/Infinity|NaN/);
  });

  it('is shown as `new` in every text format, never as a number', () => {
    const d = diffSummaries(BASE, PR, RAW);
    const table = diffTable(d, VIEW, { color: false });
    const line = table.split('\n').find((l) => /^MlaPrologV3\s{2,}/.test(l))!;
    expect(line).toMatch(/\+16\s+new\s/);
    expect(line).toMatch(/new\s+added$/);
    expect(table).not.toMatch(/Infinity|NaN|inf/);
    expect(diffMarkdown(d, VIEW)).toMatch(/\| `MlaPrologV3` \| 0 \| 16 \(544 µs\) \| \+16 \(\+544 µs\) \| added \|/);
    const csv = diffCsv(d, VIEW)
      .split('\n')
      .find((l) => l.startsWith('MlaPrologV3'))!;
    // An added group's time is never `~` (verdict `zero`), whatever the test says.
    expect(csv).toBe('MlaPrologV3,MlaPrologV3,,,,,added,0,16,16,,0,544,544,,false,,,,false,zero,0.013123806784370862,0,4,4');
  });

  it('a base with no kernels at all: totals percentages are null too', () => {
    const d = diffSummaries(summary({ '0': {} }), summary({ '0': { A: [3, 9] } }), RAW);
    expect(d.totals.deltaCountPct).toBeNull();
    expect(d.totals.deltaUsPct).toBeNull();
    expect(diffTable(d, VIEW, { color: false })).toMatch(/^total\s+0\s+3\s+\+3\s+new\s/m);
  });
});

describe('time tolerance', () => {
  // 12 kernels in 4 steps: every step alike, so the per-step samples support every change (p = 0.013) and the
  // tolerance alone decides.
  const b = summary({ '0': { A: [12, 1000], B: [12, 1000], C: [12, 1000] } });
  const p = summary({ '0': { A: [12, 1019], B: [12, 1021], C: [12, 980] } });

  it('a change within ±tolerance is noise (`~`), outside it is not', () => {
    const d = diffSummaries(b, p, RAW);
    expect(row(d, 'A').timeNoise).toBe(true); // +1.9%
    expect(row(d, 'B').timeNoise).toBe(false); // +2.1%
    expect(row(d, 'C').timeNoise).toBe(true); // -2.0%, the bound is inclusive
    const table = diffTable(d, VIEW, { color: false });
    expect(table).toMatch(/^A .*\+19\.00 µs\s+~\s+same$/m);
    expect(table).toMatch(/^B .*\+21\.00 µs\s+\+2\.1%\s+same$/m);
    expect(diffMarkdown(d, VIEW)).toMatch(/\| `A` \| 12 \(1\.00 ms\) \| 12 \(1\.02 ms\) \| 0 \(~\) \| same \|/);
    expect(row(d, 'A').timeTest.verdict).toBe('small');
    expect(row(d, 'B').timeTest.verdict).toBe('changed');
  });

  it('the tolerance is an option, and 0 marks only unchanged times', () => {
    const d = diffSummaries(b, p, { normalization: 'none', timeTolerancePct: 0 });
    expect(d.rows.every((r) => !r.timeNoise)).toBe(true);
    const wide = diffSummaries(b, p, { normalization: 'none', timeTolerancePct: 5 });
    expect(wide.rows.every((r) => r.timeNoise)).toBe(true);
    expect(wide.totals.timeNoise).toBe(true);
  });

  it('counts are never subject to tolerance', () => {
    const d = diffSummaries(summary({ '0': { A: [1000, 1000] } }), summary({ '0': { A: [1001, 1000] } }), RAW);
    expect(row(d, 'A').status).toBe('more');
    expect(row(d, 'A').deltaCount).toBe(1);
  });
});

describe('--per-step', () => {
  const b = summary({ '0': { A: [40, 400], B: [8, 80] } }, 4);
  const p = summary({ '0': { A: [30, 330], B: [4, 30] } }, 3);

  it('divides each side by its own number of steps, and compares per step', () => {
    const d = diffSummaries(b, p, PER_STEP);
    expect(d.normalization).toBe('per-step');
    expect(row(d, 'A').base).toEqual({ count: 10, us: 100 });
    expect(row(d, 'A').pr).toEqual({ count: 10, us: 110 });
    expect(row(d, 'A').status).toBe('same'); // 40 in 4 steps = 30 in 3 steps
    expect(row(d, 'B').status).toBe('fewer'); // 2 → 1.33 per step
    expect(row(d, 'B').pr.count).toBeCloseTo(4 / 3, 10);
    expect(d.totals.base.count).toBe(12);
    expect(d.totals.pr.count).toBeCloseTo(34 / 3, 10);
    expect(d.stepMismatch).toBe(false);
  });

  it('without it, unequal step counts are flagged in the diff, the report and the warnings', () => {
    const d = diffSummaries(b, p, RAW);
    expect(d.stepMismatch).toBe(true);
    expect(row(d, 'A').status).toBe('fewer'); // raw counts: 40 → 30
    expect(diffWarnings(d)).toMatch(/^kprof: warning: Step counts differ: the base has 4 steps, the PR has 3 steps\. .*--per-step/m);
    expect(diffTable(d, VIEW, { color: false })).toMatch(/^Warning: Step counts differ/m);
    expect(diffMarkdown(d, VIEW)).toMatch(/^> \*\*Warning:\*\* Step counts differ/m);
    expect(diffJsonObject(d, VIEW).stepMismatch).toBe(true);
  });

  it('equal step counts are not flagged', () => {
    expect(diffSummaries(BASE, PR, RAW).stepMismatch).toBe(false);
    expect(diffWarnings(diffSummaries(BASE, PR, RAW))).toBe('');
  });

  it('needs Step Id on both sides: otherwise an input error that says what to do', () => {
    const noSteps = summary({ '0': { A: [1, 1] } }, null, 'old/kernel_details.csv');
    expect(() => diffSummaries(b, noSteps, PER_STEP)).toThrow(KprofError);
    expect(() => diffSummaries(b, noSteps, PER_STEP)).toThrow(
      /--per-step needs the number of steps of both sides, but the PR .*no Step Id column.*Drop --per-step/,
    );
    expect(() => diffSummaries(noSteps, b, PER_STEP)).toThrow(/but the base/);
    // A side with no steps and one with steps differ in steps too.
    expect(diffSummaries(b, noSteps, RAW).stepMismatch).toBe(true);
  });
});

describe('totals', () => {
  it('equal the sum of the rows (raw and per step)', () => {
    for (const opts of [RAW, PER_STEP]) {
      const d = diffSummaries(BASE, PR, opts);
      const sum = (f: (r: DiffRow) => number): number => d.rows.reduce((n, r) => n + f(r), 0);
      expect(sum((r) => r.base.count)).toBeCloseTo(d.totals.base.count, 9);
      expect(sum((r) => r.pr.count)).toBeCloseTo(d.totals.pr.count, 9);
      expect(sum((r) => r.base.us)).toBeCloseTo(d.totals.base.us, 6);
      expect(sum((r) => r.pr.us)).toBeCloseTo(d.totals.pr.us, 6);
      expect(sum((r) => r.deltaCount)).toBeCloseTo(d.totals.deltaCount, 9);
    }
    const d = diffSummaries(BASE, PR, RAW);
    expect(d.totals.base.count).toBe(224);
    expect(d.totals.pr.count).toBe(176);
    expect(d.totals.deltaCountPct).toBeCloseTo((100 * -48) / 224, 9);
  });

  it('shown rows plus the folded row equal the totals, whatever the view (property)', () => {
    const spec = fc.dictionary(fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F'), fc.tuple(fc.nat(50), fc.nat(10_000)));
    fc.assert(
      fc.property(
        spec,
        spec,
        fc.constantFrom(...DIFF_SORTS),
        fc.constantFrom(null, 'changed', 'removed', 'added'),
        fc.option(fc.integer({ min: 1, max: 6 })),
        (bs, ps, sort, only, top) => {
          const d = diffSummaries(summary({ '0': bs }), summary({ '0': ps }), RAW);
          const v = viewDiff(d, { sort, only: only as never, top });
          const rows = [...v.rows.map((r) => [r.base.count, r.pr.count, r.base.us, r.pr.us])];
          if (v.others) rows.push([v.others.base.count, v.others.pr.count, v.others.base.us, v.others.pr.us]);
          const sums = [0, 1, 2, 3].map((i) => rows.reduce((n, r) => n + r[i]!, 0));
          expect(sums[0]).toBe(d.totals.base.count);
          expect(sums[1]).toBe(d.totals.pr.count);
          expect(sums[2]).toBeCloseTo(d.totals.base.us, 6);
          expect(sums[3]).toBeCloseTo(d.totals.pr.us, 6);
          expect(v.rows.length + (v.others?.groups ?? 0)).toBe(d.rows.length);
        },
      ),
    );
  });

  it('a summary whose totals do not match its groups is refused (a bug, not a silent loss)', () => {
    const bad = summary({ '0': { A: [1, 1] } });
    bad.totals = cell(2, 1);
    expect(() => diffSummaries(bad, bad, RAW)).toThrow(/do not add up/);
  });

  it('refuses two summaries grouped differently', () => {
    expect(() => diffSummaries(BASE, { ...PR, groupBy: 'name' }, RAW)).toThrow(/grouped and filtered alike/);
    expect(() => diffSummaries(BASE, { ...PR, selection: 'steps=1-2' }, RAW)).toThrow(/grouped and filtered alike/);
  });
});

describe('sorting and views', () => {
  const d = diffSummaries(BASE, PR, RAW);

  it('by default: changed rows first, by |Δ count| then |Δ time|, ties by name', () => {
    expect(d.rows.map((r) => r.key)).toEqual(['ScatterNdUpdate', 'InterleaveRope', 'MlaPrologV3', 'MatMulV3', 'RmsNorm', 'Cast']);
  });

  it('every --sort key has a documented order', () => {
    const keys = (s: (typeof DIFF_SORTS)[number]): string[] => sortDiffRows(d.rows, s).map((r) => r.key);
    expect(keys('delta-time')).toEqual(['MlaPrologV3', 'MatMulV3', 'ScatterNdUpdate', 'InterleaveRope', 'RmsNorm', 'Cast']);
    expect(keys('name')).toEqual(['Cast', 'InterleaveRope', 'MatMulV3', 'MlaPrologV3', 'RmsNorm', 'ScatterNdUpdate']);
    expect(keys('base-time')).toEqual(['MatMulV3', 'Cast', 'RmsNorm', 'InterleaveRope', 'ScatterNdUpdate', 'MlaPrologV3']);
    expect(keys('pr-time')).toEqual(['MatMulV3', 'MlaPrologV3', 'Cast', 'RmsNorm', 'InterleaveRope', 'ScatterNdUpdate']);
  });

  it('ties are broken by name, so the order does not depend on input order', () => {
    const b = summary({ '0': { Z: [2, 10], A: [2, 10], M: [2, 10] } });
    const p = summary({ '0': { M: [1, 5], Z: [1, 5], A: [1, 5] } });
    expect(diffSummaries(b, p, RAW).rows.map((r) => r.key)).toEqual(['A', 'M', 'Z']);
  });

  it('--only and --top keep the rest in one row', () => {
    const removed = viewDiff(d, { sort: 'delta-count', only: 'removed', top: null });
    expect(removed.rows.map((r) => r.key)).toEqual(['ScatterNdUpdate']);
    expect(removed.others?.groups).toBe(5);
    const changed = viewDiff(d, { sort: 'name', only: 'changed', top: 2 });
    expect(changed.rows.map((r) => r.key)).toEqual(['InterleaveRope', 'MlaPrologV3']);
    expect(changed.others?.groups).toBe(4);
    expect(viewDiff(d, VIEW).others).toBeNull();
    expect(diffTable(d, { sort: 'delta-count', only: 'added', top: null }, { color: false })).toMatch(/^\(5 more groups\)\s+224\s+160\s/m);
  });
});

describe('the headline', () => {
  it('names what appeared, what went away and what was cut, deepest cut first', () => {
    const h = headline(diffSummaries(BASE, PR, RAW));
    expect(h.added.map((r) => r.key)).toEqual(['MlaPrologV3']);
    expect(h.removed.map((r) => r.key)).toEqual(['ScatterNdUpdate']);
    expect(h.fewer.map((r) => r.key)).toEqual(['InterleaveRope']);
    expect(h.more.map((r) => r.key)).toEqual([]);
    expect(h.unnamed).toBe(0);
  });

  it('reads as the fusion story, with the net change in kernels and time', () => {
    const table = diffTable(diffSummaries(BASE, PR, RAW), VIEW, { color: false });
    const [first, second] = table.split('\n');
    expect(first).toBe('MlaPrologV3 appears (+16), ScatterNdUpdate removed (-32), InterleaveRope -66.7% (48 → 16).');
    expect(second).toBe('Total kernels 224 → 176 (-21.4%); kernel time 10.75 ms → 11.39 ms (+6.0%).');
  });

  it('caps each kind and counts the rest', () => {
    const b = summary({ '0': Object.fromEntries('ABCDEFG'.split('').map((k, i) => [k, [10 + i, 100]])) });
    const p = summary({ '0': Object.fromEntries('ABCDEFG'.split('').map((k) => [k, [1, 10]])) });
    const h = headline(diffSummaries(b, p, RAW));
    expect(h.fewer).toHaveLength(4);
    expect(h.unnamed).toBe(3);
    expect(diffTable(diffSummaries(b, p, RAW), VIEW, { color: false })).toMatch(/, 3 more changed groups\.\n/);
  });

  it('says so when no count changed', () => {
    const d = diffSummaries(BASE, BASE, RAW);
    expect(diffTable(d, VIEW, { color: false }).split('\n')[0]).toBe('No group changed its kernel count.');
    expect(d.rows.every((r) => r.status === 'same' && r.timeNoise)).toBe(true);
  });
});

describe('ranks', () => {
  it('lists the ranks on which a change did not take effect', () => {
    const chain = { InterleaveRope: [12, 36], MlaPrologV3: [0, 0] } as RankSpec;
    const fused = { InterleaveRope: [4, 12], MlaPrologV3: [4, 136] } as RankSpec;
    const b = summary({ '0': chain, '1': chain, '2': chain, '3': chain });
    const p = summary({ '0': fused, '1': fused, '2': chain, '3': fused });
    const d = diffSummaries(b, p, RAW);
    const rope = row(d, 'InterleaveRope');
    expect(rope.rankStatus).toBe('fewer');
    expect(rope.ranksCompared).toBe(4);
    expect(rope.disagreeingRanks).toEqual([{ rank: '2', status: 'same', base: 12, pr: 12, deltaCount: 0, deltaCountPct: 0 }]);
    expect(rope.rankMajority).toEqual({
      change: { rank: '0', status: 'fewer', base: 12, pr: 4, deltaCount: -8, deltaCountPct: (-8 * 100) / 12 },
      ranks: 3,
    });
    // Rank 2 has no MlaPrologV3 on either side: not compared (pipeline stages run different kernels).
    expect(row(d, 'MlaPrologV3').disagreeingRanks).toEqual([]);
    expect(row(d, 'MlaPrologV3').ranksCompared).toBe(3);
    expect(d.pairedRanks).toEqual(['0', '1', '2', '3']);

    const table = diffTable(d, VIEW, { color: false });
    expect(table).toMatch(/^InterleaveRope .*fewer\*$/m);
    expect(table).toMatch(/^ {2}InterleaveRope: -66\.7% on 3 of 4 ranks; rank 2 same: 12 → 12$/m);
    expect(diffMarkdown(d, VIEW)).toMatch(/^- `InterleaveRope`: -66\.7% on 3 of 4 ranks; rank `2` same: 12 → 12$/m);
    expect(diffMarkdown(d, VIEW)).toMatch(/\| -50\.0% count, -50\.0% time; ranks differ \(`2`\) \|/);
    expect(diffWarnings(d)).toMatch(/1 group changed differently across ranks \(InterleaveRope\)/);
    const j = diffJsonObject(d, VIEW).rows.find((r) => r.key === 'InterleaveRope')!;
    expect(j.rankStatus).toBe('fewer');
    expect(j.disagreeingRanks).toEqual([{ rank: '2', status: 'same', base: 12, pr: 12, deltaCount: 0, deltaCountPct: 0 }]);
    expect(diffCsv(d, VIEW)).toMatch(/^InterleaveRope,.*,fewer,2:same,,false,changed,/m);
  });

  it('without a majority, every compared rank is listed', () => {
    const d = diffSummaries(summary({ '0': { A: [4, 4] }, '1': { A: [4, 4] } }), summary({ '0': { A: [0, 0] }, '1': { A: [4, 4] } }), RAW);
    const a = row(d, 'A');
    expect(a.status).toBe('fewer');
    expect(a.rankStatus).toBeNull();
    expect(a.disagreeingRanks.map((x) => `${x.rank}:${x.status}`)).toEqual(['0:removed', '1:same']);
    expect(diffTable(d, VIEW, { color: false })).toMatch(/A: ranks differ; rank 0 removed \(-4\): 4 → 0, rank 1 same: 4 → 4/);
  });

  it('a change the same way on every rank is not flagged, also per step with unequal steps per rank', () => {
    const b = summary({ '0': { A: [8, 8] }, '1': { A: [8, 8] } }, 4);
    const p = summary({ '0': { A: [4, 4] }, '1': { A: [4, 4] } }, 2);
    expect(diffSummaries(b, p, PER_STEP).rows[0]!.disagreeingRanks).toEqual([]);
    expect(diffSummaries(b, p, PER_STEP).rows[0]!.status).toBe('same');
    expect(diffSummaries(BASE, PR, RAW).rows.every((r) => r.disagreeingRanks.length === 0)).toBe(true);
  });

  it('ranks on one side only are reported, not dropped', () => {
    const b = summary({ '0': { A: [2, 2] }, '1': { A: [2, 2] }, '2': { A: [2, 2] } });
    const p = summary({ '0': { A: [2, 2] }, '1': { A: [2, 2] }, '5': { A: [2, 2] } });
    const d = diffSummaries(b, p, RAW);
    expect(d.unpairedRanks).toEqual({ base: ['2'], pr: ['5'] });
    expect(d.pairedRanks).toEqual(['0', '1']);
    expect(d.totals.base.count).toBe(6);
    expect(diffWarnings(d)).toMatch(/Ranks on one side only: rank 2 in the base only; rank 5 in the PR only\./);
    expect(diffMarkdown(d, VIEW)).toMatch(/> \*\*Warning:\*\* Ranks on one side only: rank `2` in the base only; rank `5` in the PR only\./);
    expect(diffJsonObject(d, VIEW).unpairedRanks).toEqual({ base: ['2'], pr: ['5'] });
  });

  it('one rank against one rank is a pair whatever the ids (rank 0 of one run vs rank 1 of another)', () => {
    const d = diffSummaries(summary({ '0': { A: [2, 2] } }), summary({ '1': { A: [2, 2] } }), RAW);
    expect(d.unpairedRanks).toEqual({ base: [], pr: [] });
    expect(diffWarnings(d)).toBe('');
  });
});

describe('reporters', () => {
  const d = diffSummaries(BASE, PR, RAW);

  it('JSON follows the declared schema', () => {
    const j = diffJsonObject(d, VIEW);
    expect(Object.keys(j)).toEqual([
      'schemaVersion',
      'kind',
      'groupBy',
      'selection',
      'normalization',
      'timeTolerancePct',
      'timeTest',
      'base',
      'pr',
      'stepMismatch',
      'ranksComparedPerStep',
      'pairedRanks',
      'unpairedRanks',
      'totals',
      'rows',
      'others',
      'rewrites',
    ]);
    expect(j).toMatchObject({ schemaVersion: 1, kind: 'diff', groupBy: 'type', normalization: 'none', others: null, rewrites: null });
    expect(j.totals).toEqual({
      base: { count: 224, totalUs: 10749 },
      pr: { count: 176, totalUs: 11392 },
      deltaCount: -48,
      deltaCountPct: -21.4286,
      deltaUs: 643,
      deltaUsPct: 5.982,
      timeWithinTolerance: false,
      timeNoise: false,
      // 4 steps alike on each side: all of the PR's per-step totals are above the base's.
      timeTest: { verdict: 'changed', test: 'mann-whitney-u', method: 'asymptotic', strata: 1, n: { base: 4, pr: 4 }, u: 0, p: 0.013123806784370862 },
    });
    expect(j.rows[0]).toEqual({
      key: 'ScatterNdUpdate',
      type: 'ScatterNdUpdate',
      status: 'removed',
      base: { count: 32, totalUs: 106 },
      pr: { count: 0, totalUs: 0 },
      deltaCount: -32,
      deltaCountPct: -100,
      deltaUs: -106,
      deltaUsPct: -100,
      timeWithinTolerance: false,
      timeNoise: false,
      timeTest: { verdict: 'zero', test: 'mann-whitney-u', method: 'asymptotic', strata: 1, n: { base: 4, pr: 4 }, u: 16, p: 0.013123806784370862 },
      rankStatus: null,
      disagreeingRanks: [],
      unevenSteps: [],
    });
  });

  it('CSV ends with the totals line; cells are neutralised', () => {
    const csv = diffCsv(d, VIEW).trimEnd().split('\n');
    expect(csv[0]).toBe(
      'key,type,name,core,shapes,userGroup,status,baseCount,prCount,deltaCount,deltaCountPct,baseUs,prUs,deltaUs,deltaUsPct,timeWithinTolerance,rankStatus,disagreeingRanks,unevenSteps,timeNoise,timeTestVerdict,timeTestP,timeTestU,timeTestBaseN,timeTestPrN',
    );
    expect(csv.at(-1)).toBe('(total),,,,,,total,224,176,-48,-21.4286,10749,11392,643,5.982,false,,,,false,changed,0.013123806784370862,0,4,4');
    const evil = diffSummaries(summary({ '0': { '=HYPERLINK("x")': [1, 1] } }), summary({ '0': {} }), RAW);
    expect(diffCsv(evil, VIEW)).toMatch(/^"'=HYPERLINK\(""x""\)"/m);
    expect(diffMarkdown(summaryPipe(), VIEW)).toMatch(/`a\\\|b`/);
  });

  it('colour only when asked, and never in the plain text', () => {
    expect(diffTable(d, VIEW, { color: false })).not.toMatch(/\u001b\[/);
    expect(diffTable(d, VIEW, { color: true })).toMatch(/\u001b\[32mremoved\u001b\[39m/);
  });
});

function summaryPipe(): Diff {
  return diffSummaries(summary({ '0': { 'a|b': [1, 1] } }), summary({ '0': { 'a|b': [2, 2] } }), RAW);
}
