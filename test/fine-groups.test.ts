// A rank's fine groups as columns (src/model/fineGroups.ts): a Map<string, FineGroup> to every stage that reads
// one, whose groups are views of their rows.

import { describe, expect, it } from 'vitest';
import { FineGroupTable, fineKey } from '../src/model/fineGroups.js';
import { mergeGroups, type Cell } from '../src/model/model.js';

const cell = (count: number, ticks: number, minTicks = ticks, maxTicks = ticks): Cell => ({ count, ticks, minTicks, maxTicks });
const plainCell = (c: Cell): Cell => ({ count: c.count, ticks: c.ticks, minTicks: c.minTicks, maxTicks: c.maxTicks });

describe('FineGroupTable', () => {
  it('finds a group by its fields: a name with other types or cores is another group; null and empty are one', () => {
    const t = new FineGroupTable();
    const a = t.index('k', 'T', 'AI_CORE', null, '');
    expect(t.index('k', 'T', 'AI_CORE', null, '')).toBe(a);
    expect(t.index('k', 'T', 'AI_CORE', '', '')).toBe(a);
    const b = t.index('k', 'U', 'AI_CORE', null, '');
    const c = t.index('k', 'T', 'AI_VECTOR_CORE', null, '');
    const d = t.index('k', 'T', 'AI_CORE', null, '1');
    const e = t.index('k', 'T', 'AI_CORE', '4,4', '');
    const f = t.index(null, 'T', 'AI_CORE', null, '');
    expect(t.index('', 'T', 'AI_CORE', null, '')).toBe(f);
    expect(new Set([a, b, c, d, e, f]).size).toBe(6);
    expect(t.size).toBe(6);
    expect([...t.keys()]).toEqual([
      fineKey('k', 'T', 'AI_CORE', null),
      fineKey('k', 'U', 'AI_CORE', null),
      fineKey('k', 'T', 'AI_VECTOR_CORE', null),
      fineKey('k', 'T', 'AI_CORE', null, '1'),
      fineKey('k', 'T', 'AI_CORE', '4,4'),
      fineKey(null, 'T', 'AI_CORE', null),
    ]);
    for (const [key, g] of t) expect(t.get(key)).toEqual(g);
    expect(t.get(fineKey('k', 'V', 'AI_CORE', null))).toBeUndefined();
    expect(t.get('not a key')).toBeUndefined();
  });

  it('a view reads and writes its row; step cells stay inline for one step and move to a Map from the second', () => {
    const t = new FineGroupTable();
    const g = t.at(t.index('k', 'T', null, null, '', 'k_raw'));
    expect(g.rawName).toBe('k_raw');
    expect(plainCell(g.total)).toEqual(cell(0, 0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY));
    g.total.count = 3;
    g.total.ticks = 2 ** 52 + 2;
    expect(t.at(0).total.count).toBe(3);
    expect(t.at(0).total.ticks).toBe(2 ** 52 + 2);
    g.steps.set(7, cell(1, 5));
    expect(g.steps.size).toBe(1);
    const seven = g.steps.get(7)!;
    seven.count += 1;
    expect(t.at(0).steps.get(7)!.count).toBe(2);
    g.steps.set(-2, cell(4, 9));
    expect(t.manySteps(0)).toBeDefined();
    expect([...t.at(0).steps].map(([s, c]) => [s, plainCell(c)])).toEqual([
      [7, cell(2, 5)],
      [-2, cell(4, 9)],
    ]);
    const c = t.stepCell(0, 2 ** 40);
    c.count = 1;
    expect(t.at(0).steps.get(2 ** 40)!.count).toBe(1);
    expect(JSON.parse(JSON.stringify(t.at(0).total))).toEqual({ count: 3, ticks: 2 ** 52 + 2, minTicks: null, maxTicks: null });
  });

  it('merges another table group by group (ranks read apart), and keeps groups set as objects as they are', () => {
    const a = new FineGroupTable();
    const b = new FineGroupTable();
    a.at(a.index('x', 'T', null, null, '')).steps.set(1, cell(1, 10));
    const y = b.at(b.index('y', 'T', null, null, ''));
    y.total.count = 2;
    y.steps.set(1, cell(1, 3));
    y.steps.set(2, cell(1, 4));
    const x = b.at(b.index('x', 'T', null, null, ''));
    x.steps.set(2, cell(5, 50));
    x.total.count = 5;
    mergeGroups(a, b);
    expect(a.size).toBe(2);
    const ay = a.get(fineKey('y', 'T', null, null))!;
    expect(ay.total.count).toBe(2);
    expect([...ay.steps].map(([s, c]) => [s, c.count])).toEqual([
      [1, 1],
      [2, 1],
    ]);
    const ax = a.get(fineKey('x', 'T', null, null))!;
    expect([...ax.steps].map(([s, c]) => [s, c.count])).toEqual([
      [1, 1],
      [2, 5],
    ]);
    const saved = { name: 'z', type: null, core: null, shapes: null, total: cell(1, 1), steps: new Map(), savedKey: 'z' };
    a.set('\u001ez', saved);
    expect(a.get('\u001ez')).toBe(saved);
    expect(a.size).toBe(3);
    expect(a.columns()).toBeNull();
  });

  it('crosses threads as its columns and comes back the same', () => {
    const t = new FineGroupTable();
    for (let i = 0; i < 50; i++) {
      const g = t.at(t.index(`k${i % 20}`, `T${i % 3}`, 'AI_CORE', i % 7 === 0 ? '1,2' : null, '', i % 11 === 0 ? `raw${i}` : undefined));
      g.steps.set(i % 4, cell(1, i));
      if (i % 5 === 0) g.steps.set(9, cell(2, i));
      g.total.count += 1;
    }
    t.trim();
    const cols = structuredClone(t.columns()!);
    const back = FineGroupTable.fromColumns(cols, (i) => new Map(t.manySteps(i)!));
    expect(back).toEqual(t);
    expect([...back.keys()]).toEqual([...t.keys()]);
    for (const k of t.keys()) expect(back.get(k)).toEqual(t.get(k));
    // Equality reads the figures: a table with one figure changed is not equal.
    back.at(3).total.ticks += 1;
    expect(back).not.toEqual(t);
  });
});

describe('a summary group of one fine group of a table', () => {
  it('reads the row (no Group object of its own), and becomes an object once a second fine group joins it', async () => {
    const { summarize } = await import('../src/aggregate/group.js');
    const t = new FineGroupTable();
    const one = t.at(t.index('solo', 'T', 'AI_CORE', null, ''));
    Object.assign(one.total, cell(2, 20));
    one.steps.set(1, cell(2, 20));
    for (const core of ['AI_CORE', 'AI_VECTOR_CORE']) {
      const g = t.at(t.index('pair', 'T', core, null, ''));
      Object.assign(g.total, cell(1, 5));
      g.steps.set(1, cell(1, 5));
    }
    const rank = {
      rank: '-',
      files: [],
      fields: { name: true, type: true, core: true, shapes: false, steps: true },
      groups: t,
      rowsRead: 4,
      rowsSkipped: 0,
      kernels: 4,
      rowsWithoutStep: 0,
      stepIds: [1],
      spanTicks: null,
      warnings: [],
      warningCount: 0,
      snapshot: null,
    };
    const sel = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };
    const s = summarize({ input: 'x', ranks: [rank], notes: [] }, { by: 'name', selection: sel });
    const [solo, pair] = s.groups;
    expect(Object.prototype.toString.call(solo)).toBe('[object RowGroup]');
    expect(solo).toEqual({ key: 'solo', name: 'solo', total: cell(2, 20), steps: new Map([[1, cell(2, 20)]]) });
    expect(solo!.type).toBeUndefined();
    expect(Object.prototype.toString.call(pair)).toBe('[object Object]');
    expect(pair!.key).toBe('pair');
    expect(pair!.name).toBe('pair');
    expect(plainCell(pair!.total)).toEqual(cell(2, 10, 5, 5));
    expect([...pair!.steps].map(([st, c]) => [st, plainCell(c)])).toEqual([[1, cell(2, 10, 5, 5)]]);
    // The first fine group's cell is not written by the merge.
    expect(t.at(1).total.count).toBe(1);
    const byType = summarize({ input: 'x', ranks: [rank], notes: [] }, { by: 'type', selection: sel });
    expect(byType.groups).toHaveLength(1);
    expect(byType.groups[0]!.type).toBe('T');
    expect(byType.groups[0]!.total.count).toBe(4);
  });
});
