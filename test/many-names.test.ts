// A profile of many distinct kernel names grouped by name (issue 24): every name is a group the report needs, so
// what a group costs is what the run costs (1 M names: docs/performance.md). These hold the structure that keeps
// it small: fine groups are columns and a group of one reads its row, what a group costs once read and summarized
// (bytes held after a collection), what a row of their diff costs, a worker's groups cross as the table's columns,
// judgements alike are held once, and the long reports are written in chunks, each row made as it is written.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetGroupsByKey, summarize } from '../src/aggregate/group.js';
import { diffSummaries } from '../src/analysis/diff.js';
import type { DiffRowView } from '../src/analysis/diffRows.js';
import { readProfile, type ReadOptions } from '../src/input/read.js';
import { packRanks, unpackRanks } from '../src/input/workers/pack.js';
import { FineGroupTable } from '../src/model/fineGroups.js';
import { collectGarbage } from '../src/util/heap.js';
import type { Cell, FineGroup, Profile, Selection } from '../src/model/model.js';
import { DIFF_REPORTERS, SUMMARY_REPORTERS } from '../src/report/registry.js';
import { summaryTable } from '../src/report/summary/table.js';
import { summaryCsv } from '../src/report/summary/csv.js';
import { diffTable } from '../src/report/diff/table.js';
import { diffCsv } from '../src/report/diff/csv.js';
import { kprof } from './helpers.js';

const N = 20_000;
const NONE: Selection = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };
const READ: ReadOptions = { withShapes: false, ranks: null, threads: 'off' };

let dir = '';
let base = '';
let pr = '';

/** A kernel table of `n` distinct names, one row each, in one step. */
function table(path: string, n: number): void {
  const rows = ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)'];
  for (let i = 0; i < n; i++)
    rows.push(`1,aclnnKernel${i}_Op${i % 40},Op${i % 40},${i % 2 ? 'AI_CORE' : 'AI_VECTOR_CORE'},${1_000_000 + i * 3}.000,${1 + (i % 97) / 4}`);
  writeFileSync(path, `${rows.join('\n')}\n`);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kprof-names-'));
  base = join(dir, 'base.csv');
  pr = join(dir, 'pr.csv');
  table(base, N);
  table(pr, N + 10);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const read = (path: string): Promise<Profile> => readProfile(path, READ);

/** What this thread holds after a full collection: heap and typed arrays. */
function held(): number {
  collectGarbage(0);
  collectGarbage(0);
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const cellOf = (c: Cell): Cell => ({ count: c.count, ticks: c.ticks, minTicks: c.minTicks, maxTicks: c.maxTicks });

describe(`${N.toLocaleString('en-US')} distinct names, --by name`, () => {
  it('a group of one fine group reads the row of its fine group (no copy); a summary of one rank holds its sorted groups once', async () => {
    const p = await read(base);
    const s = summarize(p, { by: 'name', selection: NONE });
    expect(s.groups).toHaveLength(N);
    expect(s.groups).toBe(s.perRank[0]!.groups);
    expect(p.ranks[0]!.groups).toBeInstanceOf(FineGroupTable);
    const fine = new Map([...p.ranks[0]!.groups.values()].map((g) => [g.name, g]));
    for (const g of s.groups.slice(0, 100)) {
      // A view of the table's columns, not a cell of its own.
      expect(Object.prototype.toString.call(g.total)).toBe('[object CellView]');
      expect(g.total).toEqual(fine.get(g.key)!.total);
      expect([...g.steps]).toEqual([...fine.get(g.key)!.steps]);
    }
  });

  it('a fine group costs under 250 bytes once read (its name included), and its group by name under 120 more (heap and typed arrays, after a collection)', async () => {
    // What the process holds, measured in this thread after a full collection: the reads of the other tests
    // are garbage by then. A fine group as an object (the FineGroup, two Cells, a StepCells, a Map entry and its
    // key) cost ~510 bytes, its summary Group ~85 more (~150 with views of a row's cells); as a row of columns
    // (model/fineGroups.ts) ~180-205, and a group reading that row ~65.
    const big = join(dir, 'big.csv');
    table(big, 5 * N);
    const before = held();
    const p = await read(big);
    const afterRead = held();
    const s = summarize(p, { by: 'name', selection: NONE });
    const afterSummary = held();
    expect(s.groups).toHaveLength(5 * N);
    expect(p.ranks[0]!.groups.size).toBe(5 * N);
    const perGroup = (bytes: number) => Math.round(bytes / (5 * N));
    expect(perGroup(afterRead - before)).toBeLessThan(250);
    expect(perGroup(afterSummary - afterRead)).toBeLessThan(120);
  });

  it('kprof summary of names each alone in its name holds no object a group (its list makes each group as it is read), and reports the same', async () => {
    // A list of a million NamedRow objects held 40 bytes a group (the object and its slot); made on read, the list
    // holds the rows' indices (4 bytes a group: FineGroupTable.namedGroups).
    const big = join(dir, 'on-read.csv');
    table(big, 5 * N);
    const p = await read(big);
    const before = held();
    const s = summarize(p, { by: 'name', selection: NONE, groupsOnRead: true });
    const after = held();
    expect(s.groups).toHaveLength(5 * N);
    expect(s.groups).toBe(s.perRank[0]!.groups);
    expect(Array.isArray(s.groups)).toBe(true);
    expect(Math.round((after - before) / (5 * N))).toBeLessThan(16);
    // Made on each read: a group read twice is two objects of the same group.
    expect(s.groups[7]).not.toBe(s.groups[7]);
    // Indices as an array has them: `01`, `1e1` and `0x7` are not elements, nor is one past the end.
    const list = s.groups as unknown as Record<string, unknown>;
    expect([list['01'], list['1e1'], list['0x7'], list[String(5 * N)]]).toEqual([undefined, undefined, undefined, undefined]);
    expect(['7' in list, '07' in list, Object.keys(list).length]).toEqual([true, false, 5 * N]);
    expect(s.groups[7]!.key).toBe(s.groups[7]!.key);
    // In the same order (sorted by time) as the groups held as objects, and every report the same.
    const held0 = summarize(p, { by: 'name', selection: NONE });
    expect(s.groups.map((g) => g.key).join('\n')).toBe(held0.groups.map((g) => g.key).join('\n'));
    const q = await read(base);
    const [a, b] = [summarize(q, { by: 'name', selection: NONE, groupsOnRead: true }), summarize(q, { by: 'name', selection: NONE })];
    const text = (r: string | Iterable<string>): string => (typeof r === 'string' ? r : [...r].join(''));
    for (const format of ['table', 'csv', 'json', 'markdown', 'html'] as const) {
      const reporter = await SUMMARY_REPORTERS[format]();
      const views = [{ sort: 'time' as const, top: null }, ...(format === 'json' || format === 'html' ? [] : [{ sort: 'count' as const, top: 20 }])];
      for (const view of views)
        expect(text(reporter(a, view, { color: false })) === text(reporter(b, view, { color: false })), `${format} ${view.sort}`).toBe(true);
    }
  });

  it('a row of their diff costs under 160 bytes once judged (heap and typed arrays, after a collection)', async () => {
    // A DiffRow object of ~20 fields with two Side objects and boxed doubles cost ~310 bytes a row; as a row of
    // columns (analysis/diffRows.ts) and one view object, ~110. Measured after the diff's indexes by key are let
    // go, as kprof diff lets them go.
    const b5 = join(dir, 'rows-base.csv');
    const p5 = join(dir, 'rows-pr.csv');
    table(b5, 5 * N);
    table(p5, 5 * N + 10);
    const [b, q] = await Promise.all([read(b5), read(p5)]);
    const sb = summarize(b, { by: 'name', selection: NONE });
    const sp = summarize(q, { by: 'name', selection: NONE });
    const before = held();
    const d = diffSummaries(sb, sp, { normalization: 'none', timeTolerancePct: 2 });
    forgetGroupsByKey(sb);
    forgetGroupsByKey(sp);
    const after = held();
    expect(d.rows).toHaveLength(5 * N + 10);
    expect(Math.round((after - before) / d.rows.length)).toBeLessThan(160);
    // Every row is there, with its figures.
    expect(d.rows.reduce((n, r) => n + r.base.count, 0)).toBe(5 * N);
    expect(d.rows.reduce((n, r) => n + r.pr.count, 0)).toBe(5 * N + 10);
  });

  it('kprof diff of names each alone in its name holds no object a group: its rows read their groups from the lists by position', async () => {
    // Summaries whose groups are made on read (namedGroups), and a diff whose rows hold their groups' positions in
    // those lists: a row held a reference to each side's group (and so the group: 32 bytes a side).
    const b5 = join(dir, 'on-read-base.csv');
    const p5 = join(dir, 'on-read-pr.csv');
    table(b5, 5 * N);
    table(p5, 5 * N + 10);
    const [b, q] = await Promise.all([read(b5), read(p5)]);
    const onRead = { by: 'name' as const, selection: NONE, groupsOnRead: true };
    const before = held();
    const sb = summarize(b, onRead);
    const sp = summarize(q, onRead);
    const d = diffSummaries(sb, sp, { normalization: 'none', timeTolerancePct: 2 });
    forgetGroupsByKey(sb);
    forgetGroupsByKey(sp);
    const after = held();
    expect(d.rows).toHaveLength(5 * N + 10);
    // The summaries' lists (4 bytes a group) and the rows (~110 bytes, 8 of them the two positions).
    expect(Math.round((after - before) / d.rows.length)).toBeLessThan(140);
    const row = d.rows.find((r) => r.base.count > 0 && r.pr.count > 0) as DiffRowView;
    expect(row.group('base')).not.toBe(row.group('base'));
    expect(row.group('base')!.key).toBe(row.key);
    expect(row.group('pr')!.key).toBe(row.key);
    // The same rows and figures as of groups held as objects.
    const held0 = diffSummaries(summarize(b, { by: 'name', selection: NONE }), summarize(q, { by: 'name', selection: NONE }), {
      normalization: 'none',
      timeTolerancePct: 2,
    });
    const text = (r: string | Iterable<string>): string => (typeof r === 'string' ? r : [...r].join(''));
    const view = { sort: 'delta-count' as const, only: null, top: null };
    for (const format of ['csv', 'json'] as const) {
      const reporter = await DIFF_REPORTERS[format]();
      expect(text(reporter(d, view, { color: false })) === text(reporter(held0, view, { color: false })), format).toBe(true);
    }
  });

  it('a worker hands its fine groups over as columns, and they come back the same', async () => {
    const p = await read(base);
    const plain = (g: FineGroup) => ({
      name: g.name,
      type: g.type,
      core: g.core,
      shapes: g.shapes,
      total: cellOf(g.total),
      steps: [...g.steps].map(([st, c]) => [st, cellOf(c)]),
    });
    const want = [...p.ranks[0]!.groups].map(([k, g]) => [k, plain(g)]);
    const packed = structuredClone(packRanks(p.ranks));
    expect(packed.ranks[0]!.groups.size).toBe(0);
    // The accumulator's own columns, trimmed: no key string crosses (the main thread makes its index again).
    const cols = packed.groups[0]!;
    if (!('table' in cols)) throw new Error('expected the columns of a table');
    expect(cols.table.totals).toBeInstanceOf(Float64Array);
    expect(cols.table.totals).toHaveLength(4 * N);
    expect(cols.table.inline).toHaveLength(N); // one step a group: its cell is its total
    expect(cols.table.texts.length).toBeLessThanOrEqual(42);
    expect(cols.table.many).toEqual([]);
    const back = unpackRanks(packed)[0]!;
    expect([...back.groups].map(([k, g]) => [k, plain(g)])).toEqual(want);
  });

  it('the rows of a diff hold their judgements alike once', async () => {
    const [b, q] = await Promise.all([read(base), read(pr)]);
    const d = diffSummaries(summarize(b, { by: 'name', selection: NONE }), summarize(q, { by: 'name', selection: NONE }), {
      normalization: 'none',
      timeTolerancePct: 2,
    });
    expect(d.rows).toHaveLength(N + 10);
    expect(new Set(d.rows.map((r) => r.timeTest)).size).toBeLessThan(50);
    expect(new Set(d.rows.map((r) => r.unevenSteps)).size).toBe(1);
  });

  it('the table and CSV reports of summary and diff are written in chunks, each row made as it is written', async () => {
    const [b, q] = await Promise.all([read(base), read(pr)]);
    const sb = summarize(b, { by: 'name', selection: NONE });
    const sp = summarize(q, { by: 'name', selection: NONE });
    const view = { sort: 'time' as const, top: null };
    const ctx = { color: false };
    const chunked = (report: string | Iterable<string>): string[] => {
      expect(typeof report).not.toBe('string');
      const chunks = [...report];
      expect(chunks.length).toBeGreaterThan(10);
      for (const c of chunks) expect(c.length).toBeLessThan(1 << 18);
      return chunks;
    };
    expect(chunked((await SUMMARY_REPORTERS.table())(sb, view, ctx)).join('')).toBe(summaryTable(sb, view, ctx));
    expect(chunked((await SUMMARY_REPORTERS.csv())(sb, view, ctx)).join('')).toBe(summaryCsv(sb, view));
    const d = diffSummaries(sb, sp, { normalization: 'none', timeTolerancePct: 2 });
    const dview = { sort: 'delta-count' as const, only: null, top: null };
    expect(chunked((await DIFF_REPORTERS.table())(d, dview, ctx)).join('')).toBe(diffTable(d, dview, ctx));
    expect(chunked((await DIFF_REPORTERS.csv())(d, dview, ctx)).join('')).toBe(diffCsv(d, dview));
    // Every row is there.
    const lines = summaryTable(sb, view, ctx).split('\n');
    expect(lines.filter((l) => l.startsWith('aclnnKernel'))).toHaveLength(N);
  });
});

describe('the Fusion rewrites of a diff by name past 65,536 distinct names (made in the main thread, after the diff)', () => {
  it('name the chain fused among 70 k other names, as of a few names', async () => {
    // Two steps of 70 k distinct names each; in the base the three kernels X, Y, Z run between them, in the PR the
    // one kernel F: the rewrite X·Y·Z → F, whatever the number of names around it.
    const sides = (fused: boolean, names: number): string => {
      const rows = ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)'];
      let t = 1_000_000;
      for (const step of [1, 2]) {
        for (let i = 0; i < names; i++) {
          rows.push(`${step},aclnnKernel${i}_Op${i % 40},Op${i % 40},AI_CORE,${t}.000,1`);
          t += 2;
          if (i === Math.min(1000, names >> 1)) {
            for (const k of fused ? ['F'] : ['X', 'Y', 'Z']) {
              rows.push(`${step},${k},${k},AI_CORE,${t}.000,2`);
              t += 3;
            }
          }
        }
      }
      return `${rows.join('\n')}\n`;
    };
    for (const names of [70_000, 50]) {
      const b = join(dir, `fuse-base-${names}.csv`);
      const p = join(dir, `fuse-pr-${names}.csv`);
      writeFileSync(b, sides(false, names));
      writeFileSync(p, sides(true, names));
      const r = await kprof(['diff', b, p, '--by', 'name', '--format', 'json']);
      expect(r.code, r.stderr).toBe(0);
      const rw = JSON.parse(r.stdout).rewrites;
      expect(rw.status).toBe('ok');
      const found = rw.rewrites.map((x: { removed: string[]; added: string[] }) => [x.removed.join('·'), x.added.join('·')]);
      expect(found, String(names)).toEqual([['X·Y·Z', 'F']]);
    }
  });
});
