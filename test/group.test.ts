import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupKey, keepGroup, parseSteps, selectionText, sortGroups, summarize, userGroupOf } from '../src/aggregate/group.js';
import {
  cloneCell,
  emptyCell,
  groupLabel,
  mergeCell,
  StepCells,
  type Cell,
  type FineGroup,
  type Group,
  type Profile,
  type RankData,
  type Selection,
} from '../src/model/model.js';

const NONE: Selection = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };

function fine(name: string, type: string, core: string, steps: [number, number, number][]): FineGroup {
  const total = emptyCell();
  const map = new Map();
  for (const [step, count, ticks] of steps) {
    map.set(step, { count, ticks, minTicks: ticks / count, maxTicks: ticks / count });
    total.count += count;
    total.ticks += ticks;
    total.minTicks = Math.min(total.minTicks, ticks / count);
    total.maxTicks = Math.max(total.maxTicks, ticks / count);
  }
  return { name, type, core, shapes: null, total, steps: map };
}

function rank(id: string, groups: FineGroup[], stepIds: number[]): RankData {
  return {
    rank: id,
    files: [],
    fields: { name: true, type: true, core: true, shapes: false, steps: true },
    groups: new Map(groups.map((g, i) => [String(i), g])),
    rowsRead: groups.reduce((n, g) => n + g.total.count, 0),
    rowsSkipped: 0,
    kernels: groups.reduce((n, g) => n + g.total.count, 0),
    rowsWithoutStep: 0,
    stepIds,
    spanTicks: null,
    warnings: [],
    warningCount: 0,
    snapshot: null,
  };
}

const profile: Profile = {
  input: 'p',
  notes: [],
  ranks: [
    rank(
      '0',
      [
        fine('aclnnCast_Cast_Cast', 'Cast', 'AI_VECTOR_CORE', [
          [1, 2, 100],
          [2, 2, 120],
        ]),
        fine('mm', 'MatMulV3', 'AI_CORE', [
          [1, 1, 1000],
          [2, 1, 1000],
        ]),
      ],
      [1, 2],
    ),
    rank(
      '1',
      [
        fine('aclnnCast_Cast_Cast', 'Cast', 'AI_VECTOR_CORE', [
          [1, 2, 90],
          [2, 2, 110],
        ]),
        fine('mm2', 'MatMulV3', 'MIX_AIC', [
          [1, 1, 900],
          [2, 1, 900],
        ]),
      ],
      [1, 2],
    ),
  ],
};

describe('summarize', () => {
  it('groups across ranks, totals add up, sorted by time then key', () => {
    const s = summarize(profile, { by: 'type', selection: NONE });
    expect(s.groups.map((g) => [g.key, g.total.count, g.total.ticks])).toEqual([
      ['MatMulV3', 4, 3800],
      ['Cast', 8, 420],
    ]);
    expect(s.totals.count).toBe(12);
    expect(s.perRank.map((r) => r.totals.count)).toEqual([6, 6]);
    expect(s.stepIds).toEqual([1, 2]);
  });

  it('a group of one fine group holds its step cells as a plain property; one of several merges them when read', () => {
    // An accessor on each of the thousands of per-rank groups of a large cluster costs more memory than the cells.
    const s = summarize(profile, { by: 'type', selection: NONE });
    const own = (g: Group) => Object.getOwnPropertyDescriptor(g, 'steps')!;
    for (const r of s.perRank) {
      for (const g of r.groups) {
        expect(own(g).get).toBeUndefined();
        expect(g.steps).toBe([...profile.ranks[Number(r.rank)]!.groups.values()].find((f) => f.type === g.key)!.steps);
      }
    }
    const cast = s.groups.find((g) => g.key === 'Cast')!;
    expect(own(cast).get).toBeTypeOf('function');
    expect([...cast.steps].map(([step, c]) => [step, c.count, c.ticks])).toEqual([
      [1, 4, 190],
      [2, 4, 230],
    ]);
    expect(Object.keys(cast)).toEqual(['key', 'type', 'total', 'steps']);
  });

  it('merges the step cells of several fine groups as mergeCell would, in the order steps are first seen', () => {
    const cell = fc.record({
      count: fc.integer({ min: 1, max: 50 }),
      ticks: fc.integer({ min: 0, max: 2 ** 40 }),
      lo: fc.nat(1000),
      hi: fc.nat(1000),
    });
    const group = fc.array(fc.tuple(fc.integer({ min: -3, max: 12 }), cell), { minLength: 1, maxLength: 10 });
    fc.assert(
      fc.property(fc.array(group, { minLength: 2, maxLength: 6 }), fc.boolean(), (groups, packed) => {
        const fines: FineGroup[] = groups.map((cells, i) => {
          const steps = new Map<number, Cell>();
          const total = emptyCell();
          for (const [step, c] of cells) {
            const x = { count: c.count, ticks: c.ticks, minTicks: Math.min(c.lo, c.hi), maxTicks: Math.max(c.lo, c.hi) };
            steps.set(step, x);
          }
          for (const x of steps.values()) mergeCell(total, x);
          // A worker's fine groups hold their cells packed (StepCells.packed), this thread's in a Map.
          let held: Map<number, Cell> = steps;
          if (packed && i % 2 === 0) {
            const buf = new Float64Array(5 * steps.size);
            [...steps].forEach(([k, x], j) => buf.set([k, x.count, x.ticks, x.minTicks, x.maxTicks], 5 * j));
            held = StepCells.packed(buf, 0, steps.size);
          }
          return { name: `k${i}`, type: 'T', core: 'AI_CORE', shapes: null, total, steps: held };
        });
        const want = new Map<number, Cell>();
        for (const f of fines) for (const [k, x] of f.steps) want.has(k) ? mergeCell(want.get(k)!, x) : want.set(k, cloneCell(x));
        const p: Profile = {
          ...profile,
          ranks: [
            rank(
              '0',
              fines,
              [...want.keys()].sort((a, b) => a - b),
            ),
          ],
        };
        const t = summarize(p, { by: 'type', selection: NONE }).groups.find((g) => g.key === 'T')!;
        expect([...t.steps]).toEqual([...want]);
      }),
      { numRuns: 200 },
    );
  });

  it('drops a field that differs inside a group', () => {
    const s = summarize(profile, { by: 'type', selection: NONE });
    const mm = s.groups.find((g) => g.key === 'MatMulV3')!;
    expect(mm.type).toBe('MatMulV3');
    expect(mm.core).toBeUndefined();
  });

  it('step filter keeps only those steps and counts the rest as filtered', () => {
    const s = summarize(profile, { by: 'type', selection: { ...NONE, steps: [{ from: 2, to: 2 }] } });
    expect(s.totals.count).toBe(6);
    expect(s.filteredKernels).toBe(6);
    expect(s.stepIds).toEqual([2]);
    expect(s.groups.find((g) => g.key === 'Cast')!.total.ticks).toBe(230);
  });

  it('core, match and exclude filters', () => {
    expect(summarize(profile, { by: 'name', selection: { ...NONE, cores: ['MIX_AIC'] } }).groups.map((g) => g.key)).toEqual(['mm2']);
    expect(summarize(profile, { by: 'name', selection: { ...NONE, match: /^mm/ } }).totals.count).toBe(4);
    expect(summarize(profile, { by: 'name', selection: { ...NONE, exclude: /Cast/ } }).totals.count).toBe(4);
  });
});

describe('helpers', () => {
  it('parseSteps: a step, a range, open ranges and lists, sorted and merged', () => {
    expect(parseSteps('5-20')).toEqual([{ from: 5, to: 20 }]);
    expect(parseSteps('7')).toEqual([{ from: 7, to: 7 }]);
    expect(parseSteps('14-')).toEqual([{ from: 14, to: Infinity }]);
    expect(parseSteps('-8')).toEqual([{ from: 0, to: 8 }]);
    expect(parseSteps('20-30, 13,15')).toEqual([
      { from: 13, to: 13 },
      { from: 15, to: 15 },
      { from: 20, to: 30 },
    ]);
    expect(parseSteps('3-5,4-9,10,12-')).toEqual([
      { from: 3, to: 10 },
      { from: 12, to: Infinity },
    ]);
    expect(() => parseSteps('20-5')).toThrow(/ends before it starts \(write it as 5-20\)/);
    for (const bad of ['a-b', '', '-', '1-2-3', '1 2', '5-x']) expect(() => parseSteps(bad), bad).toThrow(/--steps: .*Expected a Step Id/);
    // An empty item is said as in every list option (errors.ts listItems).
    expect(() => parseSteps('1,,2')).toThrow(
      /^--steps: expected Step Ids or ranges \(13,15,20-30\) separated by single commas; found an empty item in "1,,2"/,
    );
  });

  it('the canonical step text: old single ranges keep their text, equal selections have equal text', () => {
    const text = (t: string) => selectionText({ ...NONE, steps: parseSteps(t) });
    expect(text('5-20')).toBe('steps=5-20');
    expect(text('7')).toBe('steps=7-7');
    expect(text('14-')).toBe('steps=14-');
    expect(text('-8')).toBe(text('0-8'));
    expect(text('13,15,20-30')).toBe('steps=13-13,15-15,20-30');
    expect(text('20-30,15,13')).toBe(text('13,15,20-30'));
    expect(text('3,4,5')).toBe('steps=3-5');
  });

  it('a step list and an open range select the rows of those steps only', () => {
    const count = (t: string) => summarize(profile, { by: 'type', selection: { ...NONE, steps: parseSteps(t) } });
    expect(count('2-').totals.count).toBe(6);
    expect(count('2-').stepIds).toEqual([2]);
    expect(count('-1').totals.count).toBe(6);
    expect(count('1,2').totals.count).toBe(12);
    expect(count('3-').totals.count).toBe(0);
  });

  it('groupKey for every grouping', () => {
    const g = { name: 'n', type: 'T', core: 'C', shapes: '1,2' };
    expect(['type', 'name', 'core', 'type+core', 'type+shapes'].map((by) => groupKey(by as never, g))).toEqual(['T', 'n', 'C', 'T @ C', 'T [1,2]']);
  });

  it('groupLabel: (empty) for an empty key or part, from the fields; the key as it is when the fields do not make it', () => {
    expect(groupLabel('type', { key: '' })).toBe('(empty)');
    expect(groupLabel('type+core', { key: ' @ AI_CORE', type: '', core: 'AI_CORE' })).toBe('(empty) @ AI_CORE');
    // A field the format does not have (null, so left out) is empty too.
    expect(groupLabel('type+core', { key: 'Mul @ ', type: 'Mul' })).toBe('Mul @ (empty)');
    expect(groupLabel('type+core', { key: 'Add @ X @ ', type: 'Add @ X', core: '' })).toBe('Add @ X @ (empty)');
    expect(groupLabel('type+shapes', { key: ' [1,2]', type: '', shapes: '1,2' })).toBe('(empty) [1,2]');
    expect(groupLabel('type+core', { key: 'A @ B @ C' })).toBe('A @ B @ C');
    expect(groupLabel('type+core', { key: 'attention', userGroup: 'attention' })).toBe('attention');
    expect(groupLabel('name', { key: ' @ ' })).toBe(' @ ');
  });

  it('groupLabel: a key that reads as (empty), bare or quoted, takes one more pair of quotes, so each label reads back to one key', () => {
    expect(groupLabel('type', { key: '(empty)' })).toBe('"(empty)"');
    expect(groupLabel('type', { key: '"(empty)"' })).toBe('""(empty)""');
    expect(groupLabel('type', { key: '(empty) ' })).toBe('(empty) ');
    expect(groupLabel('type', { key: '"x"' })).toBe('"x"');
    expect(groupLabel('type+core', { key: '(empty) @ ', type: '(empty)', core: '' })).toBe('"(empty)" @ (empty)');
    expect(groupLabel('type+shapes', { key: '(empty) [1]', type: '(empty)', shapes: '1' })).toBe('"(empty)" [1]');
    // Every label of these keys is another text.
    const keys = ['', '(empty)', '"(empty)"', '""(empty)""', '"(empty)', '(empty)"'];
    expect(new Set(keys.map((key) => groupLabel('type', { key }))).size).toBe(keys.length);
  });

  it('user groups: exact type or name, or regex; first match wins', () => {
    const sel: Selection = {
      ...NONE,
      groups: [
        { name: 'rope', exact: new Set(['InterleaveRope']), patterns: [] },
        { name: 'quant', exact: new Set(), patterns: [/Quant/] },
        { name: 'late', exact: new Set(['InterleaveRope']), patterns: [] },
      ],
    };
    const f = (name: string, type: string): FineGroup => fine(name, type, 'AI_CORE', [[1, 1, 1]]);
    expect(userGroupOf(f('x', 'InterleaveRope'), sel)).toBe('rope');
    expect(userGroupOf(f('aclnnDynamicBlockQuant', 'DynamicBlockQuant'), sel)).toBe('quant');
    expect(userGroupOf(f('x', 'Cast'), sel)).toBeNull();
    expect(keepGroup(f('x', 'Cast'), { ...NONE, cores: ['AI_CORE'] })).toBe(true);
    expect(selectionText(sel)).toBe('group rope=[InterleaveRope]; group quant=[/Quant/]; group late=[InterleaveRope]');
  });

  it('sortGroups: ties broken by key', () => {
    const g = (key: string, count: number, ticks: number): Group => ({ key, total: { count, ticks, minTicks: 0, maxTicks: 0 }, steps: new Map() });
    const gs = [g('b', 1, 5), g('a', 1, 5), g('c', 3, 1)];
    expect(sortGroups(gs, 'time').map((x) => x.key)).toEqual(['a', 'b', 'c']);
    expect(sortGroups(gs, 'count').map((x) => x.key)).toEqual(['c', 'a', 'b']);
    expect(sortGroups(gs, 'name').map((x) => x.key)).toEqual(['a', 'b', 'c']);
    // The list given is never reordered; in the order asked already, it is given back as it is.
    expect(gs.map((x) => x.key)).toEqual(['b', 'a', 'c']);
    const sorted = sortGroups(gs, 'time');
    expect(sortGroups(sorted, 'time')).toBe(sorted);
    expect(sortGroups(sorted, 'count')).not.toBe(sorted);
  });
});
