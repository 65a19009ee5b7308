// "Per step" has one definition (model.ts): each rank's kernels with a Step Id over its own number of steps,
// ranks added up; rows with an empty Step Id are in no step. summary, diff --per-step, check `per: step` and
// `count-vs-base per: step` must give the same figures on the same input, and the totals must agree with the
// rows and with the cross-rank check.

import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accumulator, groupCursor } from '../src/input/accumulator.js';
import { diffSummaries, type Diff, type DiffRow } from '../src/analysis/diff.js';
import { summarize } from '../src/aggregate/group.js';
import { TICKS_PER_US, type Profile, type RankData, type Selection, type Summary } from '../src/model/model.js';
import { diffJsonObject } from '../src/report/diff/json.js';
import { diffMarkdown } from '../src/report/diff/markdown.js';
import { diffWarnings } from '../src/report/diff/shared.js';
import { diffTable } from '../src/report/diff/table.js';
import { summaryJsonObject } from '../src/report/summary/json.js';
import { summaryTable } from '../src/report/summary/table.js';
import { evaluate } from '../src/rules/evaluate.js';
import type { RuleResult } from '../src/rules/model.js';
import { parseRules } from '../src/rules/parse.js';
import { kprof, REAL, ROOT, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const NONE: Selection = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };
const VIEW = { sort: 'name' as const, only: null, top: null };
const PER_STEP = { normalization: 'per-step' as const, timeTolerancePct: 2 };
const RAW = { normalization: 'none' as const, timeTolerancePct: 2 };

/** One rank: kernel type → Step Id (null: an empty Step Id cell) → how many kernels (each 10 µs). */
type RankSpec = Record<string, Record<string, number>>;
const NO_STEP = 'none';

function rankData(rank: string, spec: RankSpec): RankData {
  const acc = new Accumulator({ name: true, type: true, core: true, shapes: false, steps: true });
  for (const [type, bySteps] of Object.entries(spec)) {
    const cursor = groupCursor(acc.groupIndex(type, type, 'AI_CORE', null));
    for (const [step, n] of Object.entries(bySteps)) {
      for (let i = 0; i < n; i++) {
        acc.rowsRead++;
        acc.addVia(cursor, step === NO_STEP ? null : Number(step), 10 * TICKS_PER_US);
      }
    }
  }
  const file = {
    path: `rank${rank}.csv`,
    format: 'kernel_details' as const,
    traits: [],
    columns: [],
    missing: [],
    bytes: 0,
    rowsRead: acc.rowsRead,
    rowsSkipped: 0,
  };
  return acc.toRankData(rank, [file]);
}

function profile(input: string, ranks: Record<string, RankSpec>): Profile {
  return { input, ranks: Object.entries(ranks).map(([r, spec]) => rankData(r, spec)), notes: [] };
}

const sum = (p: Profile): Summary => summarize(p, { by: 'type', selection: NONE });

function row(d: Diff, key: string): DiffRow {
  const r = d.rows.find((x) => x.key === key);
  if (!r) throw new Error(`no row ${key}`);
  return r;
}

/** `n` kernels in each of the steps. */
function each(steps: number[], n: number): Record<string, number> {
  return Object.fromEntries(steps.map((s) => [String(s), n]));
}

const S1_4 = [1, 2, 3, 4];

describe('--per-step normalises per rank', () => {
  it('a rank that lost a step: no change is invented, and the row agrees with its ranks', () => {
    // 2 Cast per step on every rank, on both sides; rank 1 of the PR profiled one step less.
    const base = profile('base', { '0': { Cast: each(S1_4, 2) }, '1': { Cast: each(S1_4, 2) } });
    const pr = profile('pr', { '0': { Cast: each(S1_4, 2) }, '1': { Cast: each([1, 2, 3], 2) } });
    const d = diffSummaries(sum(base), sum(pr), PER_STEP);
    const cast = row(d, 'Cast');
    expect(cast.base.count).toBe(4); // 2 per step on each of 2 ranks
    expect(cast.pr.count).toBe(4);
    expect(cast.status).toBe('same');
    expect(cast.rankStatus).toBe('same');
    expect(cast.disagreeingRanks).toEqual([]);
    expect(d.totals.pr.count).toBe(4);
  });

  it('ranks with offset Step Ids are each divided by their own steps', () => {
    const base = profile('base', { '0': { Cast: each(S1_4, 3) }, '1': { Cast: each(S1_4, 3) } });
    const pr = profile('pr', { '0': { Cast: each(S1_4, 3) }, '1': { Cast: each([5, 6, 7, 8], 3) } });
    const d = diffSummaries(sum(base), sum(pr), PER_STEP);
    expect(row(d, 'Cast')).toMatchObject({ status: 'same', rankStatus: 'same', base: { count: 6 }, pr: { count: 6 } });
    expect(d.totals.pr.us).toBeCloseTo(60, 9);
    // summary agrees: 3 per step on each rank, 6 for both.
    const j = summaryJsonObject(sum(pr), { sort: 'name', top: null });
    expect(j.groups[0]!.countPerStep).toBe(6);
    expect(j.perRank.map((r) => r.groups[0]!.countPerStep)).toEqual([3, 3]);
    expect(summaryTable(sum(pr), { sort: 'name', top: null }, { color: false })).toMatch(/^Cast .* 6$/m);
  });

  it('a rank without any step cannot be normalised: an input error that names it', () => {
    const base = profile('base', { '0': { Cast: each(S1_4, 1) }, '1': { Cast: each(S1_4, 1) } });
    const pr = profile('pr', { '0': { Cast: each(S1_4, 1) }, '1': { Cast: { [NO_STEP]: 4 } } });
    expect(() => diffSummaries(sum(base), sum(pr), PER_STEP)).toThrow(/rank 1 of the PR has no Step Id in any row/);
  });
});

describe('"per step" means one thing everywhere (rows with an empty Step Id are in no step)', () => {
  // Rank 0: 3 steps, 2 Cast in each, and 3 more Cast with an empty Step Id; rank 1: 2 steps, 1 Cast in each.
  const base = profile('base', { '0': { Cast: { ...each([1, 2, 3], 2), [NO_STEP]: 3 } }, '1': { Cast: each([1, 2], 1) } });
  const pr = profile('pr', { '0': { Cast: { ...each([1, 2, 3], 1), [NO_STEP]: 3 } }, '1': { Cast: each([1, 2], 1) } });

  it('summary, diff --per-step, check per: step and count-vs-base per: step agree', () => {
    const sb = summaryJsonObject(sum(base), { sort: 'name', top: null });
    expect(sb.perRank.map((r) => r.groups[0]!.countPerStep)).toEqual([2, 1]);
    expect(sb.groups[0]!.countPerStep).toBe(3);

    const d = diffSummaries(sum(base), sum(pr), PER_STEP);
    expect(row(d, 'Cast')).toMatchObject({ base: { count: 3 }, pr: { count: 2 } });
    expect(diffWarnings(d)).toMatch(/empty Step Id are in no step.*3 kernels of the base, 3 kernels of the PR/);

    const rules = parseRules(
      'r.yaml',
      'rules:\n' +
        '  - type: Cast\n    ranks: [0]\n    count: { per: step, min: 2, max: 2 }\n' +
        '  - type: Cast\n    ranks: [0]\n    count-vs-base: { per: step, fell-by-at-least: 50 }\n' +
        '  - type: Cast\n    ranks: [1]\n    count-vs-base: { per: step, rose-by-at-most: 0 }\n',
    );
    const v = evaluate(base, pr, rules);
    // On the base itself (profile = base), each step of rank 0 has exactly 2: the 3 unstepped ones are in none.
    expect(evaluate(base, base, rules).results[0]!.passed).toBe(true);
    const [, fell, rose] = v.results as [RuleResult, RuleResult, RuleResult];
    // count-vs-base compares the PR (base) with the base (pr) here: 2 → 1 per step on rank 0, 1 → 1 on rank 1.
    expect(fell.compared).toEqual({ base: 1, profile: 2 });
    expect(evaluate(pr, base, rules).results[1]!.compared).toEqual({ base: 2, profile: 1 });
    expect(evaluate(pr, base, rules).results[1]!.passed).toBe(true);
    expect(rose.compared).toEqual({ base: 1, profile: 1 });
  });
});

describe('check and diff agree on steps', () => {
  it('a rule against the base that compares totals warns when the step counts differ, as diff does', () => {
    const base = profile('base', { '0': { Cast: each(S1_4, 1) } });
    const pr = profile('pr', { '0': { Cast: each([1, 2, 3], 1) } });
    const total = parseRules('r.yaml', 'rules:\n  - type: Cast\n    count-vs-base: { rose-by-at-most: 0 }\n');
    const v = evaluate(pr, base, total);
    expect(v.warnings).toEqual([
      'r.yaml:2: step counts differ on rank 0: the base has 4 steps, the profile has 3 steps. The rule compares totals, so different amounts of work; use per: step.',
    ]);
    const perStep = parseRules('r.yaml', 'rules:\n  - type: Cast\n    count-vs-base: { per: step, rose-by-at-most: 0 }\n');
    expect(evaluate(pr, base, perStep).warnings).toEqual([]);
    expect(evaluate(base, base, total).warnings).toEqual([]);
    expect(diffSummaries(sum(base), sum(pr), RAW).stepMismatch).toBe(true);
  });

  it('diff compares step counts rank by rank (equal numbers of distinct Step Ids overall are not enough)', () => {
    const base = profile('base', { '0': { Cast: each(S1_4, 1) }, '1': { Cast: each(S1_4, 1) } });
    const pr = profile('pr', { '0': { Cast: each(S1_4, 1) }, '1': { Cast: each([1, 2], 1) } });
    const d = diffSummaries(sum(base), sum(pr), RAW);
    expect(d.stepMismatch).toBe(true);
    expect(d.stepMismatchRanks).toEqual([{ rank: '1', base: 4, pr: 2 }]);
    expect(diffWarnings(d)).toMatch(/the base has 4 steps on each rank, the PR has 4 steps on rank 0, 2 steps on rank 1 \(rank 1: 4 → 2\)/);
    const rules = parseRules('r.yaml', 'rules:\n  - type: Cast\n    count-vs-base: { rose-by-at-most: 0 }\n');
    expect(evaluate(pr, base, rules).warnings).toEqual([expect.stringMatching(/on rank 1: the base has 4 steps, the profile has 2 steps/)]);
    // One warning per rule, naming every rank.
    const both = profile('pr', { '0': { Cast: each([1, 2, 3], 1) }, '1': { Cast: each([1, 2], 1) } });
    expect(evaluate(both, base, rules).warnings).toEqual([
      'r.yaml:2: step counts differ on ranks 0, 1: rank 0: 4 steps in the base, 3 steps in the profile; rank 1: 4 steps in the base, 2 steps in the profile. ' +
        'The rule compares totals, so different amounts of work; use per: step.',
    ]);
  });
});

describe('a per-step rule says the kernels it selects that are in no step', () => {
  it('warns with their count and ranks; per: total, steps: and a rule selecting none of them do not warn', () => {
    // Add runs twice on rank 0 with an empty Step Id: `max: 0` per step holds (no step has one) but must say so.
    const p = profile('p', {
      '0': { Add: { [NO_STEP]: 2 }, Cast: each(S1_4, 1) },
      '1': { Add: { ...each(S1_4, 0), [NO_STEP]: 1 }, Cast: each(S1_4, 1) },
    });
    const v = evaluate(p, null, parseRules('r.yaml', 'rules:\n  - type: Add\n    count: { per: step, max: 0 }\n'));
    expect(v.passed).toBe(true);
    expect(v.warnings).toEqual([
      'r.yaml:2: 3 kernels the rule selects have an empty Step Id (on ranks 0, 1): in no step, so the rule, per step, did not count them. per: total counts every kernel.',
    ]);
    const quiet = [
      'rules:\n  - type: Add\n    count: { per: total, max: 3 }\n',
      'rules:\n  - type: Cast\n    count: { per: step, max: 1 }\n',
      'rules:\n  - type: Add\n    count: { per: step, max: 0 }\n    steps: 1-4\n',
    ];
    for (const text of quiet) expect(evaluate(p, null, parseRules('r.yaml', text)).warnings, text).toEqual([]);
    const time = evaluate(p, null, parseRules('r.yaml', 'rules:\n  - type: Add\n    time: { per: step, max: 1us }\n    ranks: [0]\n'));
    expect(time.warnings).toEqual([
      'r.yaml:2: 2 kernels the rule selects have an empty Step Id (on rank 0): in no step, so the rule, per step, did not count them. per: total counts every kernel.',
    ]);
  });
});

describe('a fusion that took effect unevenly is seen', () => {
  // 224 InterleaveRope per step on both ranks; the PR fuses all layers on rank 0 (112 left), half on rank 1.
  const base = profile('base', { '0': { InterleaveRope: each(S1_4, 224) }, '1': { InterleaveRope: each(S1_4, 224) } });
  const pr = profile('pr', { '0': { InterleaveRope: each(S1_4, 112) }, '1': { InterleaveRope: each(S1_4, 168) } });

  it('across ranks: the same status by a different amount', () => {
    const d = diffSummaries(sum(base), sum(pr), PER_STEP);
    const r = row(d, 'InterleaveRope');
    expect(r.rankStatus).toBe('fewer');
    expect(r.disagreeingRanks).toEqual([
      { rank: '0', status: 'fewer', base: 224, pr: 112, deltaCount: -112, deltaCountPct: -50 },
      { rank: '1', status: 'fewer', base: 224, pr: 168, deltaCount: -56, deltaCountPct: -25 },
    ]);
    const table = diffTable(d, VIEW, { color: false });
    expect(table).toMatch(/^InterleaveRope .* fewer\*$/m);
    expect(table).toContain('  InterleaveRope: ranks differ; rank 0 -112 per step (-50.0%): 224 → 112, rank 1 -56 per step (-25.0%): 224 → 168');
    expect(diffMarkdown(d, VIEW)).toMatch(/; ranks differ \(`0`, `1`\) \|/);
    const j = diffJsonObject(d, VIEW).rows[0]!;
    expect(j.disagreeingRanks.map((x) => [x.rank, x.deltaCount])).toEqual([
      ['0', -112],
      ['1', -56],
    ]);
    expect(diffWarnings(d)).toMatch(/1 group changed differently across ranks \(InterleaveRope\)/);
  });

  it('across ranks: the majority is named with its factor, pipeline stages of different sizes agree', () => {
    // Ranks 0-2 halve InterleaveRope (rank 2 runs fewer layers: 112 → 56 is the same factor); rank 3 does not.
    const b = profile('b', { '0': { R: each(S1_4, 224) }, '1': { R: each(S1_4, 224) }, '2': { R: each(S1_4, 112) }, '3': { R: each(S1_4, 224) } });
    const p = profile('p', { '0': { R: each(S1_4, 112) }, '1': { R: each(S1_4, 112) }, '2': { R: each(S1_4, 56) }, '3': { R: each(S1_4, 168) } });
    const d = diffSummaries(sum(b), sum(p), PER_STEP);
    expect(row(d, 'R').disagreeingRanks.map((x) => x.rank)).toEqual(['3']);
    expect(diffTable(d, VIEW, { color: false })).toContain('  R: -50.0% on 3 of 4 ranks; rank 3 -56 per step (-25.0%): 224 → 168');
  });

  it('across steps: fused in 2 of 4 steps', () => {
    const p = profile('pr', { '0': { InterleaveRope: each(S1_4, 112) }, '1': { InterleaveRope: { ...each([1, 2], 112), ...each([3, 4], 224) } } });
    const d = diffSummaries(sum(base), sum(p), RAW);
    const r = row(d, 'InterleaveRope');
    expect(r.unevenSteps).toEqual([
      {
        rank: '1',
        stepsCompared: 4,
        // No change has a majority (2 steps each): the unchanged steps are the reference, the fused ones listed.
        reference: { deltaCount: 0, steps: 2 },
        steps: [1, 2].map((s) => ({ step: s, baseStep: s, base: 224, pr: 112, deltaCount: -112 })),
      },
    ]);
    const table = diffTable(d, VIEW, { color: false });
    expect(table).toContain('  InterleaveRope: rank 1 steps differ: 0 in 2 of 4 steps; -112 in 2 of 4 steps (1, 2: 224 → 112)');
    expect(diffMarkdown(d, VIEW)).toContain('steps differ (rank `1`: 1, 2)');
    expect(diffWarnings(d)).toMatch(/1 group changed differently across steps \(InterleaveRope\)/);
  });

  it('across steps: with a majority, only the steps that differ are listed', () => {
    const p = profile('pr', { '0': { R: { ...each([1, 2, 3], 112), 4: 224 } } });
    const d = diffSummaries(sum(profile('b', { '0': { R: each(S1_4, 224) } })), sum(p), PER_STEP);
    expect(row(d, 'R').unevenSteps).toEqual([
      {
        rank: '0',
        stepsCompared: 4,
        reference: { deltaCount: -112, steps: 3 },
        steps: [{ step: 4, baseStep: 4, base: 224, pr: 224, deltaCount: 0 }],
      },
    ]);
    expect(diffTable(d, VIEW, { color: false })).toContain('  R: rank 0 steps differ: -112 in 3 of 4 steps; 0 in step 4: 224 → 224');
    expect(diffJsonObject(d, VIEW).rows[0]!.unevenSteps[0]!.steps).toEqual([{ step: 4, baseStep: 4, base: 224, pr: 224, deltaCount: 0 }]);
  });

  it('an even change is not flagged, also with offset Step Ids or unequal step counts', () => {
    const p = profile('pr', { '0': { InterleaveRope: each([5, 6, 7, 8], 112) }, '1': { InterleaveRope: each([1, 2, 3], 112) } });
    const d = diffSummaries(sum(base), sum(p), PER_STEP);
    const r = row(d, 'InterleaveRope');
    expect(r.disagreeingRanks).toEqual([]);
    expect(r.unevenSteps).toEqual([]);
    expect(diffTable(d, VIEW, { color: false })).not.toMatch(/differ/);
  });
});

describe('check failures name the rank and the steps', () => {
  it('lists the broken steps of the decisive rank, in the message and the JSON', async () => {
    const { checkJsonObject } = await import('../src/report/check/json.js');
    const p = profile('p', { '0': { Cast: each(S1_4, 1) }, '1': { Cast: { ...each([1, 3], 1), ...each([2, 4], 2) } } });
    const v = evaluate(p, null, parseRules('r.yaml', 'rules:\n  - type: Cast\n    count: { per: step, max: 1 }\n'));
    const r = v.results[0]!;
    expect(r).toMatchObject({ passed: false, rank: '1', step: 2, ranksBroken: ['1'], brokenSteps: [2, 4] });
    const j = checkJsonObject(v, { profile: 'p', base: null, rules: 'r.yaml', read: { kernels: 10, skippedRows: 0 }, baseRead: null }).results[0]!;
    expect(j).toMatchObject({ rank: '1', step: 2, ranksBroken: ['1'], stepsBroken: [2, 4] });
    expect(j.message).toContain('broken in 2 of 4 steps of rank 1 (steps 2, 4)');
  });
});

// ---------------------------------------------------------------------------------------------------------
// Properties over generated multi-rank profiles: ranks with different (and offset) steps, empty Step Ids.

const TYPES = ['A', 'B', 'C'];

/** A rank: its steps, and per type the kernels in each step and with an empty Step Id. */
const rankArb = fc
  .record({
    offset: fc.integer({ min: 0, max: 3 }),
    steps: fc.integer({ min: 1, max: 4 }),
    counts: fc.array(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 4, maxLength: 4 }), { minLength: 3, maxLength: 3 }),
    unstepped: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 3, maxLength: 3 }),
  })
  .map(({ offset, steps, counts, unstepped }) => {
    const ids = Array.from({ length: steps }, (_, i) => offset + i + 1);
    const spec: RankSpec = {};
    TYPES.forEach((t, ti) => {
      const by: Record<string, number> = {};
      // A runs in every step (so every step exists) and every type in the first one (no rule selects nothing).
      ids.forEach((s, si) => (by[String(s)] = counts[ti]![si]! + (si === 0 || ti === 0 ? 1 : 0)));
      if (unstepped[ti]! > 0) by[NO_STEP] = unstepped[ti]!;
      spec[t] = by;
    });
    return { ids, spec };
  });

const profileArb = fc.integer({ min: 1, max: 3 }).chain((n) => fc.array(rankArb, { minLength: n, maxLength: n }));

type Gen = { ids: number[]; spec: RankSpec }[];

const toProfile = (input: string, g: Gen): Profile => profile(input, Object.fromEntries(g.map((r, i) => [String(i), r.spec])));

/** The definition, computed from the generated data directly: kernels with a Step Id ÷ the rank's steps. */
function expected(r: { ids: number[]; spec: RankSpec }, type: string): number {
  const by = r.spec[type]!;
  return r.ids.reduce((n, s) => n + (by[String(s)] ?? 0), 0) / r.ids.length;
}

// JSON figures are rounded to 4 decimals.
const close = (a: number, b: number): boolean => Math.abs(a - b) <= 5e-5 + 1e-9;

describe('properties: per-step figures agree everywhere', () => {
  it('summary, diff --per-step, check per: step and count-vs-base per: step give the same figures', () => {
    fc.assert(
      fc.property(profileArb, profileArb, (gb, gp) => {
        const n = Math.min(gb.length, gp.length);
        const bgen = gb.slice(0, n);
        const pgen = gp.slice(0, n);
        const base = toProfile('base', bgen);
        const pr = toProfile('pr', pgen);
        const sj = summaryJsonObject(sum(pr), { sort: 'name', top: null });
        const d = diffSummaries(sum(base), sum(pr), PER_STEP);
        for (const t of TYPES) {
          const perRank = pgen.map((r) => expected(r, t));
          const all = perRank.reduce((a, b) => a + b, 0);
          // summary: per rank and all ranks together.
          sj.perRank.forEach((r, i) => expect(close(r.groups.find((g) => g.key === t)!.countPerStep!, perRank[i]!)).toBe(true));
          expect(close(sj.groups.find((g) => g.key === t)!.countPerStep!, all)).toBe(true);
          // diff --per-step: the row is the sum of the ranks' own figures; each rank's figure as the definition.
          const r = row(d, t);
          expect(close(r.pr.count, all)).toBe(true);
          expect(close(r.pr.us, 10 * all)).toBe(true); // every kernel takes 10 µs
          expect(
            close(
              r.base.count,
              bgen.map((x) => expected(x, t)).reduce((a, b) => a + b, 0),
            ),
          ).toBe(true);
          for (const x of [...r.disagreeingRanks, ...(r.rankMajority ? [r.rankMajority.change] : [])]) {
            expect(close(x.pr, perRank[Number(x.rank)]!)).toBe(true);
            expect(close(x.base, expected(bgen[Number(x.rank)]!, t))).toBe(true);
          }
          // A row whose ranks all changed the same way has that status: it never contradicts its ranks.
          if (n >= 2 && r.rankMajority && r.rankMajority.ranks === r.ranksCompared) expect(r.status).toBe(r.rankStatus);
          for (let i = 0; i < n; i++) {
            const rules = parseRules(
              'r.yaml',
              `rules:\n  - type: ${t}\n    ranks: [${i}]\n    count-vs-base: { per: step, rose-by-at-most: 0 }\n` +
                `  - type: ${t}\n    ranks: [${i}]\n    count: { per: step, max: 0 }\n` +
                `  - type: ${t}\n    ranks: [${i}]\n    count: { per: step, min: 1000 }\n` +
                `  - type: ${t}\n    ranks: [${i}]\n    time-vs-base: { per: step, rose-by-at-most: 0 }\n`,
            );
            const [vsBase, max, min, time] = evaluate(pr, base, rules).results as [RuleResult, RuleResult, RuleResult, RuleResult];
            expect(close(time.compared!.profile, 10 * perRank[i]!)).toBe(true);
            // count-vs-base per: step: the rank's figure per step on each side.
            expect(close(vsBase.compared!.profile, perRank[i]!)).toBe(true);
            expect(close(vsBase.compared!.base, expected(bgen[i]!, t))).toBe(true);
            // check per: step sees each step of the rank, with the unstepped kernels in none of them.
            const steps = pgen[i]!.ids.map((s) => pgen[i]!.spec[t]![String(s)] ?? 0);
            expect(max.observed).toBe(Math.max(...steps));
            expect(min.observed).toBe(Math.min(...steps));
            expect(max.stepsChecked).toBe(steps.length);
            expect(close(steps.reduce((a, b) => a + b, 0) / steps.length, perRank[i]!)).toBe(true);
          }
        }
        // Totals are the sum of the rows, and the sum of the ranks' own totals per step.
        const rowsSum = d.rows.reduce((a, r) => a + r.pr.count, 0);
        expect(close(d.totals.pr.count, rowsSum)).toBe(true);
        const byRank = pgen.reduce((a, r) => a + TYPES.reduce((m, t) => m + expected(r, t), 0), 0);
        expect(close(d.totals.pr.count, byRank)).toBe(true);
        // (each group's figure rounded to 4 decimals)
        expect(Math.abs(sj.groups.reduce((a, g) => a + g.countPerStep!, 0) - byRank)).toBeLessThanOrEqual(TYPES.length * 5e-5 + 1e-9);
      }),
      { numRuns: 40 },
    );
  });

  it('a diff of a profile with itself has no change, whatever the steps of its ranks', () => {
    fc.assert(
      fc.property(profileArb, (g) => {
        const p = toProfile('p', g);
        for (const norm of [RAW, PER_STEP]) {
          const d = diffSummaries(sum(p), sum(p), norm);
          for (const r of d.rows) {
            expect(r.status).toBe('same');
            expect(r.disagreeingRanks).toEqual([]);
            expect(r.unevenSteps).toEqual([]);
          }
          expect(d.stepMismatch).toBe(false);
        }
      }),
      { numRuns: 40 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// A partial fusion built at test time from a real two-rank export (msinsight-torchnpu level1, one step of 191
// kernels per rank): the step is repeated as Step Id 50-53, and in the PR 10 of the 20 Mul kernels of a step
// are fused into 5 MulFused kernels, on rank 0 in every step, on rank 1 in steps 52 and 53 only.

describe.skipIf(!HAS_REAL)('a partial fusion on a real export: diff names the uneven rank and steps', () => {
  const SRC = join(REAL, 'msinsight-torchnpu/level1');
  let dir = '';
  const STEPS = [50, 51, 52, 53];

  /** The rank's kernel_details rows (one line each, CRLF), with the header. */
  function rows(rank: number): { head: string; body: string[] } {
    const lines = readFileSync(join(SRC, `rank${rank}_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv`), 'utf8').split('\r\n');
    const body = lines.slice(1).filter((l) => l !== '');
    expect(body.every((l) => l.startsWith('50,'))).toBe(true);
    return { head: lines[0]!, body };
  }

  function write(side: string, rank: number, lines: string[]): void {
    const folder = join(dir, side, `rank${rank}_ascend_pt`);
    mkdirSync(join(folder, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    copyFileSync(join(SRC, `rank${rank}_ascend_pt/profiler_info_${rank}.json`), join(folder, `profiler_info_${rank}.json`));
    writeFileSync(join(folder, 'ASCEND_PROFILER_OUTPUT/kernel_details.csv'), `${lines.join('\r\n')}\r\n`);
  }

  /** One step of a rank, as Step Id `step`; fused: 10 Mul → 5 MulFused (renamed), 5 dropped. */
  function step(body: string[], stepId: number, fused: boolean): string[] {
    let mul = 0;
    const out: string[] = [];
    for (const l of body) {
      const f = l.split(',');
      let line = `${stepId},${l.slice(3)}`;
      if (fused && f[5] === 'Mul' && mul < 10) {
        mul++;
        if (mul > 5) continue;
        expect(f.slice(0, 6).join(',')).not.toContain('"');
        line = [String(stepId), ...f.slice(1, 4), `MulFused_${f[4]}`, 'MulFused', ...f.slice(6)].join(',');
      }
      out.push(line);
    }
    return out;
  }

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kprof-perstep-'));
    for (const rank of [0, 1]) {
      const { head, body } = rows(rank);
      expect(body.filter((l) => l.split(',')[5] === 'Mul')).toHaveLength(20);
      write('base', rank, [head, ...STEPS.flatMap((s) => step(body, s, false))]);
      write('pr', rank, [head, ...STEPS.flatMap((s) => step(body, s, rank === 0 || s >= 52))]);
    }
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const args = (...more: string[]): string[] => ['diff', join(dir, 'base'), join(dir, 'pr'), ...more];

  it('table: the ranks with their figures, and the steps of rank 1', async () => {
    const r = await kprof(args('--per-step'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Mul .* fewer\*$/m);
    expect(r.stdout).toContain('  Mul: ranks differ; rank 0 -10 per step (-50.0%): 20 → 10, rank 1 -5 per step (-25.0%): 20 → 15');
    expect(r.stdout).toContain('  Mul: rank 1 steps differ: 0 in 2 of 4 steps; -10 in 2 of 4 steps (52, 53: 20 → 10)');
    // MulFused is in no step of the base: the steps without it on both sides are not compared (as a kernel of
    // even steps only), so it is +5 in every step compared; Mul shows where the fusion did not take effect.
    expect(r.stdout).not.toMatch(/MulFused: rank 1 steps differ/);
    // Rank 0 fused evenly: no line for its steps; the rest of the profile did not change.
    expect(r.stdout).not.toMatch(/rank 0 steps differ/);
    expect(r.stdout.match(/steps differ/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/1 group changed differently across ranks \(Mul\)/);
    expect(r.stderr).toMatch(/1 group changed differently across steps \(Mul\)/);
  });

  it('Markdown: the note names the ranks and steps, the lines give the figures', async () => {
    const md = (await kprof(args('--per-step', '--format', 'markdown'))).stdout;
    expect(md).toMatch(/^\| `Mul` \| .* ranks differ \(`0`, `1`\); steps differ \(rank `1`: 52, 53\) \|$/m);
    expect(md).toContain('- `Mul`: ranks differ; rank `0` -10 per step (-50.0%): 20 → 10, rank `1` -5 per step (-25.0%): 20 → 15');
    expect(md).toContain('- `Mul`: rank `1` steps differ: 0 in 2 of 4 steps; -10 in 2 of 4 steps (52, 53: 20 → 10)');
  });

  it('JSON: disagreeingRanks with the figures, and unevenSteps', async () => {
    const j = JSON.parse((await kprof(args('--format', 'json'))).stdout) as { rows: Record<string, unknown>[] };
    const mul = j.rows.find((r) => r.key === 'Mul')!;
    expect(mul).toMatchObject({ status: 'fewer', base: { count: 160 }, pr: { count: 100 } });
    expect(mul.disagreeingRanks).toEqual([
      { rank: '0', status: 'fewer', base: 80, pr: 40, deltaCount: -40, deltaCountPct: -50 },
      { rank: '1', status: 'fewer', base: 80, pr: 60, deltaCount: -20, deltaCountPct: -25 },
    ]);
    expect(mul.unevenSteps).toEqual([
      {
        rank: '1',
        stepsCompared: 4,
        reference: { deltaCount: 0, steps: 2 },
        steps: [52, 53].map((s) => ({ step: s, baseStep: s, base: 20, pr: 10, deltaCount: -10 })),
      },
    ]);
    // Every other group is unchanged, on every rank and in every step.
    for (const r of j.rows.filter((x) => x.key !== 'Mul' && x.key !== 'MulFused')) {
      expect(r).toMatchObject({ status: 'same', disagreeingRanks: [], unevenSteps: [] });
    }
  });
});

describe('kprof rules on a rank without steps', () => {
  it('compares totals instead of stopping on a per-step diff it did not ask for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-perstep-rules-'));
    try {
      const base = join(ROOT, 'fixtures/fusion-example/base');
      cpSync(base, join(dir, 'base'), { recursive: true });
      // Rank 1 of the base: every Step Id cell emptied.
      const rank1 = readdirSync(join(dir, 'base')).sort()[1]!;
      const f = join(dir, 'base', rank1, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv');
      const lines = readFileSync(f, 'utf8').split('\r\n');
      writeFileSync(f, [lines[0], ...lines.slice(1).map((l) => (l === '' ? l : l.slice(l.indexOf(','))))].join('\r\n'));
      const r = await kprof(['rules', join(dir, 'base'), join(ROOT, 'fixtures/fusion-example/pr')]);
      expect(r.stderr).not.toMatch(/--per-step/);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/in total/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('uneven steps in the text formats', () => {
  it('lists the first 20 groups and says how many more there are', () => {
    const types = Array.from({ length: 25 }, (_, i) => `K${String(i).padStart(2, '0')}`);
    const b = profile('b', { '0': Object.fromEntries(types.map((t) => [t, each(S1_4, 2)])) });
    const p = profile('p', { '0': Object.fromEntries(types.map((t) => [t, { ...each([1, 2, 3], 2), 4: 1 }])) });
    const d = diffSummaries(sum(b), sum(p), RAW);
    expect(d.rows.filter((r) => r.unevenSteps.length > 0)).toHaveLength(25);
    const table = diffTable(d, VIEW, { color: false });
    expect(table.match(/^ {2}K\d\d: steps differ|^ {2}K\d\d: rank 0 steps differ/gm)).toHaveLength(20);
    expect(table).toContain('  and 5 more groups (all of them in --format json)');
    expect(diffJsonObject(d, VIEW).rows.filter((r) => r.unevenSteps.length > 0)).toHaveLength(25);
  });
});

describe('step counts compared rank by rank', () => {
  it('offset Step Ids on one rank are as many steps as before: no warning', () => {
    const b = profile('b', { '0': { Cast: each(S1_4, 1) }, '1': { Cast: each(S1_4, 1) } });
    const p = profile('p', { '0': { Cast: each(S1_4, 1) }, '1': { Cast: each([5, 6, 7, 8], 1) } });
    const d = diffSummaries(sum(b), sum(p), RAW);
    expect(d.stepMismatch).toBe(false);
    expect(row(d, 'Cast')).toMatchObject({ status: 'same', disagreeingRanks: [], unevenSteps: [] });
  });

  it('a group that is in no step on a rank is not compared on that rank per step', () => {
    const b = profile('b', { '0': { Add: { [NO_STEP]: 2 }, Cast: each(S1_4, 1) }, '1': { Add: each(S1_4, 2) } });
    const p = profile('p', { '0': { Add: { [NO_STEP]: 2 }, Cast: each(S1_4, 1) }, '1': { Add: each(S1_4, 1) } });
    const add = row(diffSummaries(sum(b), sum(p), PER_STEP), 'Add');
    expect(add).toMatchObject({ status: 'fewer', rankStatus: 'fewer', ranksCompared: 1, disagreeingRanks: [] });
  });
});

describe('the Markdown note with uneven steps on several ranks', () => {
  it('keeps each rank with its steps', () => {
    const b = profile('b', { '0': { R: each(S1_4, 4) }, '1': { R: each(S1_4, 4) }, '2': { R: each(S1_4, 4) } });
    const p = profile('p', { '0': { R: { ...each([1, 2, 3], 2), 4: 4 } }, '1': { R: { 1: 4, ...each([2, 3, 4], 2) } }, '2': { R: each(S1_4, 2) } });
    const md = diffMarkdown(diffSummaries(sum(b), sum(p), RAW), VIEW);
    expect(md).toMatch(/; steps differ \(rank `0`: 4; rank `1`: 1\) \|$/m);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Workloads whose steps differ from one another (a kernel of even steps only, a warm-up step) with offset or
// lost steps: steps are paired by Step Id, never by position, so nothing that did not change is flagged.

/** Kernel C runs twice in even steps only; B once in every step. */
const alternating = (ids: number[]): RankSpec => ({ B: each(ids, 1), C: Object.fromEntries(ids.map((s) => [String(s), s % 2 === 0 ? 2 : 0])) });

describe('steps are paired by Step Id, not by position', () => {
  const base = profile('base', { '0': alternating(S1_4), '1': alternating(S1_4) });

  it('offset Step Ids on a rank: no uneven steps are invented, and a warning says why C was not compared', () => {
    const pr = profile('pr', { '0': alternating(S1_4), '1': alternating([12, 13, 14, 15]) });
    for (const norm of [RAW, PER_STEP]) {
      const d = diffSummaries(sum(base), sum(pr), norm);
      for (const k of ['B', 'C']) expect(row(d, k)).toMatchObject({ status: 'same', disagreeingRanks: [], unevenSteps: [] });
      expect(d.unpairedSteps).toEqual([{ rank: '1', base: S1_4, pr: [12, 13, 14, 15], varying: ['C'], notCompared: ['C'] }]);
      expect(diffWarnings(d)).toContain(
        'Step Ids differ where groups run a different number of times from step to step: rank 1 (base steps 1-4, PR steps 12-15: C). ' +
          'Their figures depend on which steps each side profiled, and their steps are compared one by one under the same Step Id only ' +
          '(PR steps without one are not compared: 1 group on 1 rank).',
      );
      expect(diffTable(d, VIEW, { color: false })).not.toMatch(/same\*|steps differ/);
    }
  });

  it('a rank that lost a step: its other steps are compared with the base steps of the same Step Id', () => {
    const pr = profile('pr', { '0': alternating(S1_4), '1': alternating([2, 3, 4]) });
    const d = diffSummaries(sum(base), sum(pr), PER_STEP);
    expect(row(d, 'C').unevenSteps).toEqual([]);
    expect(row(d, 'B')).toMatchObject({ status: 'same', disagreeingRanks: [], unevenSteps: [] });
    // C's true figure per step on rank 1 is 4/3 (steps 2-4) against 1 (steps 1-4): real, and explained.
    expect(row(d, 'C').pr.count).toBeCloseTo(1 + 4 / 3, 9);
    expect(diffWarnings(d)).toMatch(/rank 1 \(base steps 1-4, PR steps 2-4: C\)\. Their figures depend on which steps each side profiled/);
    expect(d.unpairedSteps[0]!.notCompared).toEqual([]);
  });

  it('a fusion in 2 of 4 steps is still seen with offset Step Ids when the base ran the kernel alike in every step', () => {
    const b = profile('b', { '0': { R: each(S1_4, 4) } });
    const p = profile('p', { '0': { R: { ...each([11, 12], 2), ...each([13, 14], 4) } } });
    const r = row(diffSummaries(sum(b), sum(p), RAW), 'R');
    expect(r.unevenSteps).toEqual([
      {
        rank: '0',
        stepsCompared: 4,
        reference: { deltaCount: 0, steps: 2 },
        steps: [11, 12].map((s) => ({ step: s, baseStep: null, base: 4, pr: 2, deltaCount: -2 })),
      },
    ]);
  });

  it('a kernel of even steps only, fused alike in every step it runs in, is not uneven (steps without it on both sides are not compared)', () => {
    const fused = (ids: number[]): RankSpec => ({ B: each(ids, 1), C: Object.fromEntries(ids.map((s) => [String(s), s % 2 === 0 ? 1 : 0])) });
    const d = diffSummaries(sum(base), sum(profile('pr', { '0': fused(S1_4), '1': fused(S1_4) })), RAW);
    expect(row(d, 'C')).toMatchObject({ status: 'fewer', disagreeingRanks: [], unevenSteps: [] });
  });

  it('raw counts: a rank that lost a step is compared with the other ranks per step, not flagged for the lost step', () => {
    const b = profile('b', { '0': { A: each(S1_4, 2) }, '1': { A: each(S1_4, 2) } });
    const p = profile('p', { '0': { A: each(S1_4, 2) }, '1': { A: each([1, 2, 3], 2) } });
    const d = diffSummaries(sum(b), sum(p), RAW);
    expect(d.ranksPerStep).toBe(true);
    expect(row(d, 'A')).toMatchObject({ status: 'fewer', rankStatus: 'same', disagreeingRanks: [], unevenSteps: [] });
    // A real difference between ranks is still seen, with figures per step of each rank.
    const q = profile('q', { '0': { A: each(S1_4, 1) }, '1': { A: each([1, 2, 3], 2) } });
    const dq = diffSummaries(sum(b), sum(q), RAW);
    expect(row(dq, 'A').disagreeingRanks.map((x) => [x.rank, x.base, x.pr])).toEqual([
      ['0', 2, 1],
      ['1', 2, 2],
    ]);
    expect(diffTable(dq, VIEW, { color: false })).toContain('each rank per step, as step counts differ:');
    expect(diffJsonObject(dq, VIEW).ranksComparedPerStep).toBe(true);
    expect(diffJsonObject(diffSummaries(sum(b), sum(b), RAW), VIEW).ranksComparedPerStep).toBe(false);
  });
});

/** A rank's workload as a function of the Step Id: warm-up kernels in step 1, kernels of even steps, others every step. */
const workloadArb = fc.record({
  every: fc.integer({ min: 0, max: 3 }),
  even: fc.integer({ min: 0, max: 3 }),
  warmup: fc.integer({ min: 0, max: 3 }),
});
type Workload = { every: number; even: number; warmup: number };
const WTYPES = ['Every', 'Even', 'Warm', 'Mixed'] as const;

function workload(w: Workload, ids: number[]): RankSpec {
  const at = (f: (s: number) => number): Record<string, number> => Object.fromEntries(ids.map((s) => [String(s), f(s)]));
  return {
    Every: at(() => w.every + 1),
    Even: at((s) => (s % 2 === 0 ? w.even + 1 : 0)),
    Warm: at((s) => (s === 1 ? w.warmup + 1 : 0) + 1),
    Mixed: at((s) => w.every + (s % 2 === 0 ? w.even : 0) + (s === 1 ? w.warmup : 0)),
  };
}

/** The PR's steps of a rank: the base's (1..n), offset and/or with a lost first or last step. */
const prStepsArb = fc.record({ offset: fc.constantFrom(0, 1, 2, 11), lose: fc.constantFrom('none', 'first', 'last') });

describe('property: nothing changed ⇒ no uneven steps, no uneven ranks, status same', () => {
  it('holds for workloads whose steps differ, with offset or lost steps', () => {
    const rankArb2 = fc.record({ w: workloadArb, n: fc.integer({ min: 2, max: 5 }), pr: prStepsArb });
    fc.assert(
      fc.property(fc.array(rankArb2, { minLength: 1, maxLength: 3 }), (ranks) => {
        const baseSpec: Record<string, RankSpec> = {};
        const prSpec: Record<string, RankSpec> = {};
        const lost: boolean[] = [];
        ranks.forEach(({ w, n, pr }, i) => {
          const ids = Array.from({ length: n }, (_, k) => k + 1);
          let prIds = ids.map((s) => s + pr.offset);
          if (pr.lose === 'first') prIds = prIds.slice(1);
          if (pr.lose === 'last') prIds = prIds.slice(0, -1);
          baseSpec[String(i)] = workload(w, ids);
          prSpec[String(i)] = workload(w, prIds);
          lost.push(pr.lose !== 'none');
        });
        // What the rule cannot know: a base whose steps look alike for a kernel whose PR steps of other Step Ids
        // differ (steps 1-2 of Mixed at 2 and 2, step 3 at 0) would be compared with that count.
        const looksAlike = (by: Record<string, number>): boolean => new Set(Object.values(by)).size <= 1;
        fc.pre(
          Object.keys(baseSpec).every((r) =>
            WTYPES.every((t) => !looksAlike(baseSpec[r]![t]!) || looksAlike({ ...baseSpec[r]![t]!, ...prSpec[r]![t]! })),
          ),
        );
        const b = sum(profile('b', baseSpec));
        const p = sum(profile('p', prSpec));
        for (const norm of [RAW, PER_STEP]) {
          const d = diffSummaries(b, p, norm);
          for (const r of d.rows) {
            expect(r.unevenSteps).toEqual([]);
            // A kernel that runs alike in every step did not change, per step and across ranks.
            if (r.key === 'Every') {
              expect(r.disagreeingRanks).toEqual([]);
              if (norm === PER_STEP || !lost.some(Boolean)) expect(r.status).toBe('same');
            }
          }
          // The same steps on both sides: nothing at all changed.
          if (ranks.every((x) => x.pr.offset === 0 && x.pr.lose === 'none')) {
            for (const r of d.rows) expect(r).toMatchObject({ status: 'same', disagreeingRanks: [] });
            expect(d.unpairedSteps).toEqual([]);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('--only and --top never hide a change that differs across ranks or steps', () => {
  // A fused on rank 0 in every step and on rank 1 in steps 3-4 only, into the new kernel F.
  const unf = { A: 2, B: 1 };
  const stepSpec = (ids: number[], f: (s: number) => Record<string, number>): RankSpec => {
    const spec: RankSpec = {};
    for (const s of ids) for (const [t, n] of Object.entries(f(s))) (spec[t] ??= {})[String(s)] = n;
    return spec;
  };
  const base = profile('base', { '0': stepSpec(S1_4, () => unf), '1': stepSpec(S1_4, () => unf) });
  const pr = profile('pr', { '0': stepSpec(S1_4, () => ({ F: 1, B: 1 })), '1': stepSpec(S1_4, (s) => (s < 3 ? unf : { F: 1, B: 1 })) });
  const d = diffSummaries(sum(base), sum(pr), RAW);
  const view = { sort: 'delta-count' as const, only: 'added' as const, top: null };

  it('JSON: the folded rows with that detail are kept whole under others.changedDifferently', () => {
    const j = diffJsonObject(d, view);
    expect(j.rows.map((r) => r.key)).toEqual(['F']);
    expect(j.others!.changedDifferently.map((r) => r.key)).toEqual(['A']);
    const a = j.others!.changedDifferently[0]!;
    expect(a.disagreeingRanks.map((x) => [x.rank, x.status])).toEqual([
      ['0', 'removed'],
      ['1', 'fewer'],
    ]);
    expect(a.unevenSteps).toEqual([
      {
        rank: '1',
        stepsCompared: 4,
        reference: { deltaCount: 0, steps: 2 },
        steps: [3, 4].map((s) => ({ step: s, baseStep: s, base: 2, pr: 0, deltaCount: -2 })),
      },
    ]);
    // Nothing folded: nothing to keep.
    expect(diffJsonObject(d, VIEW).others).toBeNull();
    // B changed alike everywhere: folded without detail.
    expect(diffJsonObject(d, { ...view, only: 'removed' }).others!.changedDifferently.map((r) => r.key)).toEqual(['A']);
  });

  it('CSV: the others line carries the folded rows’ ranks and steps, by key', async () => {
    const { diffCsv } = await import('../src/report/diff/csv.js');
    const lines = diffCsv(d, view).trim().split(/\r?\n/);
    const others = lines.find((l) => l.includes(',others,'))!;
    expect(others).toContain(',A=0:removed 1:fewer,"A=1:3,4",');
    // The table and Markdown already list it.
    expect(diffTable(d, view, { color: false })).toContain('  A: rank 1 steps differ');
  });
});

describe('step counts in messages are each rank’s own', () => {
  it('offset Step Ids: 4 steps on each rank, not 8 distinct Step Ids', async () => {
    const base = profile('base', { '0': alternating(S1_4), '1': alternating(S1_4) });
    const off = profile('pr', { '0': alternating(S1_4), '1': alternating([12, 13, 14, 15]) });
    const table = diffTable(diffSummaries(sum(base), sum(off), PER_STEP), VIEW, { color: false });
    expect(table).toContain('with PR pr (2 files; ranks 0, 1; 4 steps on each rank)');
    const lost = profile('pr', { '0': { A: each(S1_4, 1) }, '1': { A: each([11, 12, 13], 1) } });
    const d = diffSummaries(sum(profile('base', { '0': { A: each(S1_4, 1) }, '1': { A: each(S1_4, 1) } })), sum(lost), RAW);
    expect(diffWarnings(d)).toContain(
      'Step counts differ: the base has 4 steps on each rank, the PR has 4 steps on rank 0, 3 steps on rank 1 (rank 1: 4 → 3).',
    );
    const { stepCountsText } = await import('../src/util/format.js');
    expect(stepCountsText([{ rank: '0', steps: 4 }])).toBe('4 steps');
    expect(
      stepCountsText([
        { rank: '0', steps: 4 },
        { rank: '1', steps: 0 },
        { rank: '2', steps: 4 },
      ]),
    ).toBe('4 steps on ranks 0, 2, no Step Id on rank 1');
  });
});

/**
 * A rank folder `rank<N>_ascend_pt` in `dir` whose kernel table runs B once in each of steps `ids`, and C twice more in
 * the even ones; its path.
 */
function writeStepsRank(dir: string, rank: number, ids: number[]): string {
  const folder = join(dir, `rank${rank}_ascend_pt`);
  mkdirSync(join(folder, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
  let t = 1000;
  const rows = ids.flatMap((s) =>
    (s % 2 === 0 ? ['aclB,B', 'aclC,C', 'aclC,C'] : ['aclB,B']).map((k) => `${s},${k},AI_CORE,${((t += 100)).toFixed(3)},2.0`),
  );
  writeFileSync(
    join(folder, 'ASCEND_PROFILER_OUTPUT/kernel_details.csv'),
    ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)', ...rows, ''].join('\n'),
  );
  return folder;
}

describe('kprof rules: the header counts each rank’s own steps', () => {
  it('offset Step Ids on one rank are 4 steps on each rank, not 8', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-perstep-header-'));
    try {
      const write = (side: string, rank: number, ids: number[]): void => {
        const folder = writeStepsRank(join(dir, side), rank, ids);
        writeFileSync(join(folder, `profiler_info_${rank}.json`), `{"rank_id": ${rank}}`);
      };
      for (const r of [0, 1]) write('base', r, S1_4);
      write('pr', 0, S1_4);
      write('pr', 1, [12, 13, 14, 15]);
      const r = await kprof(['rules', join(dir, 'base'), join(dir, 'pr')]);
      expect(r.stdout).toContain('# Base: 2 ranks, 4 steps on each rank; PR: 2 ranks, 4 steps on each rank.');
      const d = await kprof(['diff', join(dir, 'base'), join(dir, 'pr'), '--per-step']);
      expect(d.stdout).not.toMatch(/same\*|steps differ|8 steps/);
      expect(d.stderr).toContain('rank 1 (base steps 1-4, PR steps 12-15: C)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the Step Id warning quotes names from input safely', () => {
  it('a group name with a line break and a workflow command stays on one line', () => {
    const evil = 'C\n::error::x';
    const spec = (ids: number[]): RankSpec => ({ B: each(ids, 1), [evil]: Object.fromEntries(ids.map((s) => [String(s), s % 2 === 0 ? 2 : 0])) });
    const d = diffSummaries(sum(profile('b', { '0': spec(S1_4) })), sum(profile('p', { '0': spec([11, 12, 13, 14]) })), RAW);
    const w = diffWarnings(d);
    expect(d.unpairedSteps).toHaveLength(1);
    expect(w).toMatch(/Step Ids differ where groups run a different number of times/);
    expect(
      w
        .split('\n')
        .filter((l) => l !== '')
        .every((l) => l.startsWith('kprof: warning: ')),
    ).toBe(true);
    expect(diffMarkdown(d, VIEW)).not.toMatch(/^::error::/m);
  });
});

describe('summary: the last line counts each rank’s own steps', () => {
  it('offset Step Ids are 4 steps on each rank, not 8', () => {
    const s = sum(profile('p', { '0': { A: each(S1_4, 1) }, '1': { A: each([12, 13, 14, 15], 1) } }));
    expect(summaryTable(s, { sort: 'name', top: null }, { color: false })).toMatch(/, 4 steps on each rank, 2 ranks \(0, 1\),/);
    const lost = sum(profile('p', { '0': { A: each(S1_4, 1) }, '1': { A: each([2, 3, 4], 1) } }));
    expect(summaryTable(lost, { sort: 'name', top: null }, { color: false })).toMatch(/, 4 steps on rank 0, 3 steps on rank 1, 2 ranks \(0, 1\),/);
  });
});

describe('steps that differ because rows could not be read', () => {
  it('a PR whose first step has a negative Step Id (its rows skipped): the step warnings say so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-perstep-negative-'));
    try {
      const write = (side: string, ids: number[]): void => {
        writeStepsRank(join(dir, side), 0, ids);
      };
      write('base', S1_4);
      // The same four steps numbered from -1: the rows of step -1 are skipped (no step is negative).
      write('pr', [-1, 0, 1, 2]);
      for (const format of ['table', 'markdown']) {
        const d = await kprof(['diff', join(dir, 'base'), join(dir, 'pr'), '--format', format]);
        expect(d.code, d.stderr).toBe(0);
        const why =
          '1 row of the PR could not be read (a row of a negative Step Id is one): it is in no step, ' +
          'so a step none of whose rows was read is not counted.';
        expect(d.stderr).toContain('Step Id is -1, expected a step number (0 or more); row skipped');
        for (const out of [d.stdout, d.stderr]) {
          expect(out).toContain(`Step counts differ: the base has 4 steps, the PR has 3 steps. ${why} Raw counts compare`);
          // Said once, not again after Step Ids differ.
          expect(out).toMatch(/rank `?0`? \(base steps 1-4, PR steps 0-2: `?C`?\)/);
          expect(out.split('could not be read (a row').length).toBe(2);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
