// A rank's fine groups as columns (src/model/fineGroups.ts): a Map<string, FineGroup> to every stage that reads
// one, whose groups are views of their rows.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Accumulator, groupCursor } from '../src/input/accumulator.js';
import { FineGroupTable, fineKey } from '../src/model/fineGroups.js';
import { addToCell, emptyCell, forEachStepFigure, mergeGroups, type Cell } from '../src/model/model.js';

const cell = (count: number, ticks: number, minTicks = ticks, maxTicks = ticks): Cell => ({ count, ticks, minTicks, maxTicks });
const plainCell = (c: Cell): Cell => ({ count: c.count, ticks: c.ticks, minTicks: c.minTicks, maxTicks: c.maxTicks });

/** A rank of one table's groups, as a reader makes it (one step, Step Id 1). */
const rankOf = (t: FineGroupTable, fields: { shapes: boolean } = { shapes: true }) => ({
  rank: '-',
  files: [],
  fields: { name: true, type: true, core: true, shapes: fields.shapes, steps: true },
  groups: t,
  rowsRead: t.size,
  rowsSkipped: 0,
  kernels: t.size,
  rowsWithoutStep: 0,
  stepIds: [1],
  spanTicks: null,
  warnings: [],
  warningCount: 0,
  snapshot: null,
});

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

  it('finds each group by its fields, whatever their texts hold (lengths, digits, colons): fields that differ never share a group', () => {
    // Texts of the characters the lookup key is made of, so that a field running into the next would show.
    const text = fc.option(fc.stringMatching(/^[0-9:a]{0,4}$/), { nil: null });
    const fields = fc.tuple(text, text, text, text, fc.constantFrom('', '1', ':'));
    fc.assert(
      fc.property(fc.array(fields, { maxLength: 30 }), (all) => {
        const t = new FineGroupTable();
        const seen = new Map<string, number>();
        for (const [name, type, core, shapes, cls] of all) {
          const i = t.index(name, type, core, shapes, cls);
          const key = fineKey(name, type, core, shapes, cls);
          if (seen.has(key)) expect(i).toBe(seen.get(key));
          else seen.set(key, i);
        }
        expect(t.size).toBe(seen.size);
        expect(new Set(seen.values()).size).toBe(seen.size);
      }),
    );
  });

  it('names too long for V8 to hash (past 16,383 code units) are found as any other, also alike in all but one unit', () => {
    const t = new FineGroupTable();
    // One length, alike at both ends: they differ in one code unit in the middle.
    const names = Array.from({ length: 40 }, (_, i) => `${'a'.repeat(20_000)}${String.fromCharCode(0x4e00 + i)}${'z'.repeat(20_000)}`);
    const at = names.map((n) => t.index(n, 'T', 'AI_CORE', null, ''));
    expect(new Set(at).size).toBe(40);
    // Found again by an equal name made anew (not the same string), and by its other type in its own group.
    names.forEach((n, i) => expect(t.index(n.slice(0, 20_000) + n.slice(20_000), 'T', 'AI_CORE', null, '')).toBe(at[i]));
    const other = t.index(names[7]!, 'U', 'AI_CORE', null, '');
    expect(at).not.toContain(other);
    expect(t.aloneInName(t.at(at[7]!))).toBe(false);
    expect(t.aloneInName(t.at(at[8]!))).toBe(true);
    expect(t.size).toBe(41);
    // After the index is let go (a large table once read) and made again from the chains, the same.
    const big = new FineGroupTable();
    for (let i = 0; i < 1 << 16; i++) big.index(`k${i}`, 'T', null, null, '');
    const long = names.map((n) => big.index(n, 'T', null, null, ''));
    big.trim();
    names.forEach((n, i) => expect(big.index(n, 'T', null, null, '')).toBe(long[i]));
  });

  it('a view reads and writes its row; step cells other than its total go to a Map', () => {
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
    const packed = t.growingSteps(0);
    packed.slot(2 ** 40);
    const c = packed.get(2 ** 40)!;
    c.count = 1;
    expect(t.at(0).steps.get(2 ** 40)!.count).toBe(1);
    expect(JSON.parse(JSON.stringify(t.at(0).total))).toEqual({ count: 3, ticks: 2 ** 52 + 2, minTicks: null, maxTicks: null });
  });

  it("a group's one step holds no cell of its own (its total is that cell) until the two part, and each keeps its figures then", () => {
    const t = new FineGroupTable();
    const g = t.at(t.index('k', 'T', null, null, ''));
    g.total.count = 2;
    g.total.ticks = 10;
    g.total.minTicks = 4;
    g.total.maxTicks = 6;
    // A cell equal to the total is its step's, inline; any other goes in the group's Map.
    g.steps.set(3, cell(2, 10, 4, 6));
    expect(t.manySteps(0)).toBeUndefined();
    expect(plainCell(g.steps.get(3)!)).toEqual(cell(2, 10, 4, 6));
    const three = g.steps.get(3)!;
    // The total takes a kernel of no step: step 3 keeps its figures, now a cell of its own.
    g.total.count += 1;
    expect(t.manySteps(0)).toBeDefined();
    expect(plainCell(three)).toEqual(cell(2, 10, 4, 6));
    expect(t.at(0).total.count).toBe(3);
    // The step's cell is written, the total not.
    const h = t.at(t.index('h', 'T', null, null, ''));
    h.total.count = 1;
    h.total.ticks = 5;
    h.steps.set(1, cell(1, 5, 0, 0));
    expect(t.manySteps(1)).toBeDefined();
    const u = t.at(t.index('u', 'T', null, null, ''));
    u.total.count = 1;
    u.total.ticks = 5;
    u.total.minTicks = 5;
    u.total.maxTicks = 5;
    u.steps.set(1, cell(1, 5));
    const one = u.steps.get(1)!;
    one.ticks = 7;
    expect(plainCell(t.at(2).total)).toEqual(cell(1, 5));
    expect(plainCell(t.at(2).steps.get(1)!)).toEqual(cell(1, 7, 5, 5));
    expect(plainCell(one)).toEqual(cell(1, 7, 5, 5));
  });

  it('the accumulator counts every kernel in its total and its step, whatever the order of steps and of kernels of no step', () => {
    const row = fc.record({
      group: fc.integer({ min: 0, max: 3 }),
      step: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
      ticks: fc.integer({ min: 1, max: 1000 }),
    });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 40 }), (rows) => {
        const acc = new Accumulator({ name: true, type: true, core: true, shapes: false, steps: true });
        const cursors = [0, 1, 2, 3].map((g) => groupCursor(acc.groupIndex(`k${g}`, 'T', 'AI_CORE', null)));
        const want = [0, 1, 2, 3].map(() => ({ total: emptyCell(), steps: new Map<number, Cell>() }));
        for (const r of rows) {
          acc.addVia(cursors[r.group]!, r.step, r.ticks);
          const w = want[r.group]!;
          addToCell(w.total, r.ticks);
          if (r.step !== null) {
            if (!w.steps.has(r.step)) w.steps.set(r.step, emptyCell());
            addToCell(w.steps.get(r.step)!, r.ticks);
          }
        }
        const t = acc.groups;
        const seen = (g: { total: Cell; steps: Map<number, Cell> }) => ({
          total: plainCell(g.total),
          steps: [...g.steps].map(([s, c]) => [s, plainCell(c)]).sort((a, b) => (a[0] as number) - (b[0] as number)),
        });
        const got = [0, 1, 2, 3].map((g) => seen(t.at(cursors[g]!.index)));
        expect(got).toEqual(want.map(seen));
        // A view's step cells walked by their figures (its one step read from its total, or its Map): as forEach.
        for (const g of [0, 1, 2, 3]) {
          const steps = t.at(cursors[g]!.index).steps;
          const walked: number[][] = [];
          forEachStepFigure(steps, (st, n, ticks, min, max) => walked.push([st, n, ticks, min, max]));
          expect(walked).toEqual([...steps].map(([st, c]) => [st, c.count, c.ticks, c.minTicks, c.maxTicks]));
        }
        // And across threads.
        const back = FineGroupTable.fromColumns(structuredClone(t.columns()!), (i) => new Map(t.manySteps(i)!));
        expect([0, 1, 2, 3].map((g) => seen(back.at(cursors[g]!.index)))).toEqual(want.map(seen));
        expect(acc.rowsWithoutStep).toBe(rows.filter((r) => r.step === null).length);
      }),
      { numRuns: 300 },
    );
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
    // The columns sent are the table's own (views cut to its groups, moved when sent): no copy of them is made.
    const own = t.columns()!;
    expect(own.totals.buffer).toBe(t.totals.buffer);
    expect(own.inline.buffer).toBe(t.inlineSteps.buffer);
    expect(own.totals).toHaveLength(t.size * 4);
    const cols = structuredClone(own);
    const back = FineGroupTable.fromColumns(cols, (i) => new Map(t.manySteps(i)!));
    expect(back).toEqual(t);
    expect([...back.keys()]).toEqual([...t.keys()]);
    for (const k of t.keys()) expect(back.get(k)).toEqual(t.get(k));
    // Equality reads the figures: a table with one figure changed is not equal.
    back.at(3).total.ticks += 1;
    expect(back).not.toEqual(t);
  });

  it('a large table lets its index go once trimmed, and finds and adds groups as before after it', () => {
    const t = new FineGroupTable();
    const n = 70_000;
    for (let i = 0; i < n; i++) t.index(`k${i % 60_000}`, `T${Math.floor(i / 60_000)}`, 'AI_CORE', i % 1000 === 0 ? '2,2' : null, '');
    const keys = [...t.keys()];
    t.trim();
    // Found by their fields again (the index made anew from the chains), each at its own index.
    for (const i of [0, 1, 999, 1000, 59_999, 60_000, 60_001, n - 1]) {
      const g = t.at(i);
      expect(t.index(g.name, g.type, g.core, g.shapes, '')).toBe(i);
      expect(t.get(keys[i]!)).toEqual(g);
    }
    expect(t.size).toBe(n);
    const added = t.index('k5', 'T9', 'AI_CORE', null, '');
    expect(added).toBe(n);
    expect(t.index('k5', 'T9', 'AI_CORE', null, '')).toBe(added);
    expect(t.aloneInName(t.at(5))).toBe(false);
  });

  it('crossed, knows the groups alone in their name before it is looked up, and finds and adds groups in the chains it came with', () => {
    const t = new FineGroupTable();
    for (let i = 0; i < 30; i++) t.index(`k${i % 12}`, `T${i % 2}`, 'AI_CORE', null, i === 29 ? 'c' : '');
    const alone = [...t.values()].map((g) => t.aloneInName(g));
    expect(t.size).toBe(13);
    expect(alone.filter(Boolean)).toHaveLength(11);
    const back = FineGroupTable.fromColumns(structuredClone(t.columns()!), () => new Map());
    expect([...back.values()].map((g) => back.aloneInName(g))).toEqual(alone);
    expect(back.index('k5', 'T1', 'AI_CORE', null, 'c')).toBe(t.index('k5', 'T1', 'AI_CORE', null, 'c'));
    const added = back.index('k3', 'T9', 'AI_CORE', null, '');
    expect(added).toBe(13);
    expect(back.index('k3', 'T9', 'AI_CORE', null, '')).toBe(added);
    expect(back.index('k3', 'T1', 'AI_CORE', null, '')).toBe(t.index('k3', 'T1', 'AI_CORE', null, ''));
    // k3 has three groups now: none of them is alone; k0 is as it was.
    expect(back.aloneInName(back.at(3))).toBe(false);
    expect(back.aloneInName(back.at(added))).toBe(false);
    expect(back.aloneInName(back.at(0))).toBe(alone[0]);
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
    const rank = rankOf(t, { shapes: false });
    const sel = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };
    const s = summarize({ input: 'x', ranks: [rank], notes: [] }, { by: 'name', selection: sel });
    const [solo, pair] = s.groups;
    expect(Object.prototype.toString.call(solo)).toBe('[object RowGroup]');
    expect(solo).toEqual({ key: 'solo', name: 'solo', total: cell(2, 20), steps: new Map([[1, cell(2, 20)]]) });
    expect(solo!.type).toBeUndefined();
    // Alone in its name, it holds its row's index and nothing else (its key and name are its row's name).
    expect(Object.keys(solo!)).toEqual(['i']);
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

describe('a fine group alone in its name (a group of its own by name, in no index by key)', () => {
  const sel = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };
  const add = (t: FineGroupTable, name: string | null, type: string, core: string, shapes: string | null, cls = ''): void => {
    const g = t.at(t.index(name, type, core, shapes, cls));
    Object.assign(g.total, cell(1, 10));
    g.steps.set(1, cell(1, 10));
  };

  it('is the only group of its name: not a chain of types, cores or raw-name classes, not beside a group of that name with shapes or set as an object', () => {
    const t = new FineGroupTable();
    add(t, 'solo', 'T', 'AI_CORE', null);
    add(t, 'cores', 'T', 'AI_CORE', null);
    add(t, 'cores', 'T', 'AI_VECTOR_CORE', null);
    add(t, 'calls', 'T', 'AI_CORE', null, '1');
    add(t, 'calls', 'T', 'AI_CORE', null, '2');
    add(t, null, 'T', 'AI_CORE', null);
    const alone = [...t.values()].map((g) => t.aloneInName(g));
    expect(alone).toEqual([true, false, false, false, false, false]);
    // A group of another table, or a plain object, is not one of this table's.
    expect(new FineGroupTable().aloneInName(t.at(0))).toBe(false);
    const withShapes = new FineGroupTable();
    add(withShapes, 'solo', 'T', 'AI_CORE', null);
    add(withShapes, 'other', 'T', 'AI_CORE', '4,4');
    expect(withShapes.aloneInName(withShapes.at(0))).toBe(false);
    const withObject = new FineGroupTable();
    add(withObject, 'solo', 'T', 'AI_CORE', null);
    withObject.set('saved', { name: 'solo', type: 'T', core: null, shapes: null, total: cell(1, 1), steps: new Map() });
    expect(withObject.aloneInName(withObject.at(0))).toBe(false);
  });

  it('by name, the groups of a name are one group wherever its fine groups are (chains, shapes, unnamed), and every other name is its own', async () => {
    const { summarize } = await import('../src/aggregate/group.js');
    const t = new FineGroupTable();
    for (let i = 0; i < 50; i++) add(t, `k${i}`, 'T', 'AI_CORE', null);
    add(t, 'k7', 'U', 'AI_CORE', null);
    add(t, 'k9', 'T', 'AI_CORE', '8,8');
    add(t, 'k11', 'T', 'AI_CORE', null, '3');
    add(t, null, 'T', 'AI_CORE', null);
    add(t, null, 'U', 'AI_CORE', null);
    const s = summarize({ input: 'x', ranks: [rankOf(t)], notes: [] }, { by: 'name', selection: sel });
    const counts = new Map(s.groups.map((g) => [g.key, g.total.count]));
    expect(s.groups).toHaveLength(51);
    expect(counts.get('k7')).toBe(2);
    expect(counts.get('k9')).toBe(2);
    expect(counts.get('k11')).toBe(2);
    expect(counts.get('')).toBe(2);
    expect(counts.get('k0')).toBe(1);
    expect(s.totals.count).toBe(55);
    // Sorted by time, ties by key.
    expect(s.groups.map((g) => g.key)).toEqual(
      [...s.groups.map((g) => g.key)].sort((a, b) => counts.get(b)! - counts.get(a)! || (a < b ? -1 : a > b ? 1 : 0)),
    );
  });

  it('a diff gives the PR the strings of the base for the names both have (shareKeys), and every group reads as before', async () => {
    const { summarize, shareKeys } = await import('../src/aggregate/group.js');
    const { shareName } = await import('../src/model/fineGroups.js');
    const base = new FineGroupTable();
    const pr = new FineGroupTable();
    for (let i = 0; i < 40; i++) add(base, `k${i}`, 'T', 'AI_CORE', null);
    for (let i = 20; i < 60; i++) add(pr, `k${i}`, 'T', 'AI_CORE', null);
    add(pr, 'k25', 'U', 'AI_CORE', null);
    const sb = summarize({ input: 'b', ranks: [rankOf(base)], notes: [] }, { by: 'name', selection: sel });
    const sp = summarize({ input: 'p', ranks: [rankOf(pr)], notes: [] }, { by: 'name', selection: sel });
    const read = (s: typeof sp) => s.groups.map((g) => [g.key, g.name, g.type, g.total.count, g.total.ticks]);
    const before = read(sp);
    shareKeys(sb, sp);
    expect(read(sp)).toEqual(before);
    // A string that differs is never taken for the group's own.
    const g = sp.groups.find((x) => x.key === 'k30')!;
    shareName(g, 'k31');
    expect(g.key).toBe('k30');
    expect(g.name).toBe('k30');
  });
});
