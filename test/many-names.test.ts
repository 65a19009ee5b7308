// A profile of many distinct kernel names grouped by name (issue 24): every name is a group the report needs, so
// what a group costs is what the run costs (1 M names: docs/performance.md). These hold the structure that keeps
// it small: a group of one fine group shares its cells, a worker's groups cross as columns, judgements alike are
// held once, and the long reports are written in chunks, each row made as it is written.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarize } from '../src/aggregate/group.js';
import { diffSummaries } from '../src/analysis/diff.js';
import { readProfile, type ReadOptions } from '../src/input/read.js';
import { packRanks, unpackRanks } from '../src/input/workers/pack.js';
import type { Profile, Selection } from '../src/model/model.js';
import { DIFF_REPORTERS, SUMMARY_REPORTERS } from '../src/report/registry.js';
import { summaryTable } from '../src/report/summary/table.js';
import { summaryCsv } from '../src/report/summary/csv.js';
import { diffTable } from '../src/report/diff/table.js';

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

describe(`${N.toLocaleString('en-US')} distinct names, --by name`, () => {
  it('a group of one fine group shares its cell and step cells; a summary of one rank holds its sorted groups once', async () => {
    const p = await read(base);
    const s = summarize(p, { by: 'name', selection: NONE });
    expect(s.groups).toHaveLength(N);
    expect(s.groups).toBe(s.perRank[0]!.groups);
    const fine = new Map([...p.ranks[0]!.groups.values()].map((g) => [g.name, g]));
    for (const g of s.groups.slice(0, 100)) {
      expect(g.total).toBe(fine.get(g.key)!.total);
      expect(g.steps).toBe(fine.get(g.key)!.steps);
    }
  });

  it('a worker hands its fine groups over as columns, and they come back the same', async () => {
    const p = await read(base);
    const want = [...p.ranks[0]!.groups].map(([k, g]) => [k, { ...g, total: { ...g.total }, steps: [...g.steps] }]);
    const packed = structuredClone(packRanks(p.ranks));
    expect(packed.ranks[0]!.groups.size).toBe(0);
    expect(packed.groups[0]!.totals).toBeInstanceOf(Float64Array);
    expect(packed.groups[0]!.totals).toHaveLength(4 * N);
    expect(packed.groups[0]!.texts.length).toBeLessThanOrEqual(42);
    const back = unpackRanks(packed)[0]!;
    expect([...back.groups].map(([k, g]) => [k, { ...g, total: { ...g.total }, steps: [...g.steps] }])).toEqual(want);
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
    // Every row is there.
    const lines = summaryTable(sb, view, ctx).split('\n');
    expect(lines.filter((l) => l.startsWith('aclnnKernel'))).toHaveLength(N);
  });
});
