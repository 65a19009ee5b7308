// The profiler's own op_statistic as a witness of the kernel table beside it: inspect always, summary --witness.

import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyCell, type FineGroup, type RankData } from '../src/model/model.js';
import { readProfile } from '../src/input/read.js';
import { compareWithStatistic, timeTolerance, witnessProfile } from '../src/analysis/witness.js';
import { REAL, kprof, walk, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const BASE = 'fixtures/fusion-example/base';
const RANK0 = 'node-07_2841907_20260311093512417_ascend_pt';
const tmp: string[] = [];
afterAll(() => {
  for (const d of tmp) rmSync(d, { recursive: true, force: true });
});

/** A copy of the fusion example's base, with `edit` applied to rank 0's kernel_details.csv lines. */
function copyWith(edit: (lines: string[]) => string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
  tmp.push(dir);
  cpSync(BASE, dir, { recursive: true });
  const kd = join(dir, RANK0, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv');
  const text = readFileSync(kd, 'utf8');
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  writeFileSync(kd, edit(text.split(eol)).join(eol));
  return dir;
}

function fine(type: string, core: string, count: number, ticks: number): FineGroup {
  return { name: type, type, core, shapes: null, total: { ...emptyCell(), count, ticks }, steps: new Map() };
}

function rank(groups: FineGroup[]): RankData {
  return {
    rank: '0',
    files: [],
    fields: { name: true, type: true, core: true, shapes: false, steps: false },
    groups: new Map(groups.map((g, i) => [String(i), g])),
    rowsRead: 0,
    rowsSkipped: 0,
    kernels: 0,
    rowsWithoutStep: 0,
    stepIds: [],
    spanTicks: null,
    warnings: [],
    warningCount: 0,
    snapshot: null,
  };
}

describe('compareWithStatistic', () => {
  it('counts exact, times within half a unit of 0.01 µs plus half a ns per kernel', () => {
    const tol = timeTolerance(4);
    expect(tol).toBe(50 + 20);
    const stat = rank([fine('Cast', 'AI_VECTOR_CORE', 4, 1_000_000)]);
    expect(compareWithStatistic([rank([fine('Cast', 'AI_VECTOR_CORE', 4, 1_000_000 + tol)])], [stat]).agrees).toBe(true);
    const late = compareWithStatistic([rank([fine('Cast', 'AI_VECTOR_CORE', 4, 1_000_000 - tol - 1)])], [stat]);
    expect(late.agrees).toBe(false);
    expect(late.disagreements.map((d) => d.problem)).toEqual(['time']);
    expect(compareWithStatistic([rank([fine('Cast', 'AI_VECTOR_CORE', 5, 1_000_000)])], [stat]).disagreements.map((d) => d.problem)).toEqual([
      'count',
    ]);
  });

  it('communication kernels op_statistic does not count are not witnessed, anything else missing disagrees', () => {
    const table = rank([fine('MatMulV3', 'AI_CORE', 2, 100), fine('hcom_allReduce_', 'HCCL', 4, 900), fine('Extra', 'AI_CORE', 1, 5)]);
    const stat = rank([fine('MatMulV3', 'AI_CORE', 2, 100), fine('Gone', 'AI_CPU', 3, 30)]);
    const w = compareWithStatistic([table], [stat]);
    expect(w.notCounted).toEqual({ kernels: 4, groups: 1 });
    expect(w.groups).toBe(3);
    expect(w.disagreements.map((d) => [d.key, d.problem])).toEqual([
      ['Extra @ AI_CORE', 'only in the kernel table'],
      ['Gone @ AI_CPU', 'only in the totals'],
    ]);
  });
});

describe('kprof inspect: the witness', () => {
  it('says the fusion example agrees with its op_statistic, per rank, in text and JSON', async () => {
    const text = await kprof(['inspect', BASE]);
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n').filter((l) => l.includes('witness'));
    expect(lines).toEqual([
      '  witness  op_statistic.csv agrees with the kernel table: 22 (type, core) groups, 384 kernels, counts exact, times within rounding; 32 communication kernels in 2 groups not witnessed (op_statistic does not count them)',
      '  witness  op_statistic.csv agrees with the kernel table: 22 (type, core) groups, 384 kernels, counts exact, times within rounding; 32 communication kernels in 2 groups not witnessed (op_statistic does not count them)',
    ]);
    const json = JSON.parse((await kprof(['inspect', BASE, '--format', 'json'])).stdout);
    expect(json.witness.map((w: { ranks: string[]; agrees: boolean }) => [w.ranks, w.agrees])).toEqual([
      [['0'], true],
      [['1'], true],
    ]);
  });

  it('a kernel table with rows missing or a time changed disagrees, and names the groups', async () => {
    // Line 1 is the header; drop the first two kernels of rank 0.
    const dropped = copyWith((l) => [l[0]!, ...l.slice(3)]);
    const r = await kprof(['inspect', dropped]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      / {2}witness {2}op_statistic\.csv disagrees with the kernel table on \d+ of 22 \(type, core\) groups; .*:\n {13}\S+ @ \S+: kernel table \d+ \(.*\), op_statistic \d+ \(.*\): counts differ/,
    );
    const json = JSON.parse((await kprof(['inspect', dropped, '--format', 'json'])).stdout);
    expect(json.witness[0].agrees).toBe(false);
    expect(json.witness[0].disagreements.every((d: { problem: string }) => d.problem === 'count')).toBe(true);
    expect(json.witness[1].agrees).toBe(true);

    // Add 1 µs to one duration: same counts, the time is off by more than rounding.
    const slower = copyWith((l) => {
      const head = l[0]!.split(',');
      const dur = head.indexOf('Duration(us)');
      const cells = l[1]!.split(',');
      cells[dur] = String(Number(cells[dur]) + 1);
      return [l[0]!, cells.join(','), ...l.slice(2)];
    });
    const t = JSON.parse((await kprof(['inspect', slower, '--format', 'json'])).stdout).witness[0];
    expect(t.agrees).toBe(false);
    expect(t.disagreements).toHaveLength(1);
    expect(t.disagreements[0].problem).toBe('time');
    expect(t.disagreements[0].table.totalUs - t.disagreements[0].statistic.totalUs).toBeCloseTo(1, 2);
    expect((await kprof(['inspect', slower])).stdout).toMatch(/: times differ by 1\.00 µs, more than rounding/);
  });

  it('an op_statistic that cannot be read is said, and inspect still reports (exit 0)', async () => {
    const dir = copyWith((l) => l);
    writeFileSync(join(dir, RANK0, 'ASCEND_PROFILER_OUTPUT', 'op_statistic.csv'), 'not,a,statistic\n1,2,3\n');
    const r = await kprof(['inspect', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ {2}witness {2}op_statistic\.csv could not be read to witness the kernel table: .*op_statistic\.csv/);
  });

  it('names from the files reach the verdict with no control characters', async () => {
    const dir = copyWith((l) => l);
    const stat = join(dir, RANK0, 'ASCEND_PROFILER_OUTPUT', 'op_statistic.csv');
    writeFileSync(stat, `${readFileSync(stat, 'utf8').trimEnd()}\n0,"Evil\u001b[2J\nType",AI_CORE,1,1.000,1.000,1.000,1.000,0.0\n`);
    const r = await kprof(['inspect', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {13}Evil\\x1b\[2J\\x0aType @ AI_CORE: kernel table none, op_statistic 1 \(1\.00 µs\): not in the kernel table$/m);
    expect(r.stdout).not.toMatch(/\u001b/);
  });

  it('a group only in the totals is `only in <its format id>` in JSON, as before the registry named it', async () => {
    const dir = copyWith((l) => l);
    const stat = join(dir, RANK0, 'ASCEND_PROFILER_OUTPUT', 'op_statistic.csv');
    writeFileSync(stat, `${readFileSync(stat, 'utf8').trimEnd()}\n0,Gone,AI_CPU,1,1.000,1.000,1.000,1.000,0.0\n`);
    const r = await kprof(['inspect', dir, '--format', 'json']);
    expect(r.code).toBe(0);
    const problems = (JSON.parse(r.stdout) as { witness: { disagreements: { key: string; problem: string }[] }[] }).witness.flatMap(
      (w) => w.disagreements,
    );
    expect(problems).toContainEqual(expect.objectContaining({ key: 'Gone @ AI_CPU', problem: 'only in op_statistic' }));
  });

  it('rows of op_statistic that cannot be read: it witnesses only the rest, and says so', async () => {
    const dir = copyWith((l) => l);
    const stat = join(dir, RANK0, 'ASCEND_PROFILER_OUTPUT', 'op_statistic.csv');
    const lines = readFileSync(stat, 'utf8').trimEnd().split('\n');
    writeFileSync(stat, `${[...lines, '0,Cast,AI_VECTOR_CORE,lots,1,1,1,1,1'].join('\n')}\n`);
    const r = await kprof(['inspect', dir]);
    expect(r.stdout).toMatch(
      new RegExp(
        `witness {2}op_statistic\\.csv agrees with the kernel table on the rows it could read: .*\\n {13}1 row of op_statistic\\.csv could not be read \\(first: line ${lines.length + 1}: Count is "lots", expected a whole number; row skipped\\): it witnesses only the rest`,
      ),
    );
    const json = JSON.parse((await kprof(['inspect', dir, '--format', 'json'])).stdout);
    expect(json.witness[0]).toMatchObject({ agrees: false, statisticRowsSkipped: 1, disagreements: [] });
  });

  it('an op_summary holding several devices is witnessed as a whole, as op_statistic sums them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    tmp.push(dir);
    cpSync('fixtures/formats/msprof-multi-device', dir, { recursive: true });
    const out = readdirSync(join(dir)).map((p) => join(dir, p, 'mindstudio_profiler_output'))[0]!;
    const s = JSON.parse((await kprof(['summary', dir, '--by', 'type+core', '--format', 'json'])).stdout);
    const rows = ['Device_id,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)'];
    for (const r of s.perRank) for (const g of r.groups) rows.push(`${r.rank},${g.type},${g.core},${g.count},${g.totalUs.toFixed(3)},0,0,0,0`);
    writeFileSync(join(out, 'op_statistic_20260605155140.csv'), `${rows.join('\n')}\n`);
    const json = JSON.parse((await kprof(['inspect', dir, '--format', 'json'])).stdout);
    expect(json.witness.map((w: { ranks: string[]; agrees: boolean; kernels: number }) => [w.ranks, w.agrees, w.kernels])).toEqual([
      [['0', '1'], true, 22],
    ]);
    expect((await kprof(['inspect', dir])).stdout).toMatch(
      /\n\nwitness: op_statistic_20260605155140\.csv \(ranks 0, 1 together\) agrees with the kernel table: 5 \(type, core\) groups, 22 kernels/,
    );
    // --rank 1 reads one device of the file; the witness still compares the whole file.
    const one = JSON.parse((await kprof(['inspect', dir, '--rank', '1', '--format', 'json'])).stdout);
    expect(one.ranks.map((r: { rank: string }) => r.rank)).toEqual(['1']);
    expect(one.witness.map((w: { ranks: string[]; agrees: boolean; kernels: number }) => [w.ranks, w.agrees, w.kernels])).toEqual([
      [['0', '1'], true, 22],
    ]);
  });
});

describe('kprof summary --witness', () => {
  it('writes the verdict on stderr and leaves stdout as it was', async () => {
    const plain = await kprof(['summary', BASE, '--format', 'json']);
    const r = await kprof(['summary', BASE, '--format', 'json', '--witness']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(plain.stdout);
    expect(r.stderr).toBe(
      [
        'kprof: witness: rank 0: op_statistic.csv agrees with the kernel table: 22 (type, core) groups, 384 kernels, counts exact, times within rounding; 32 communication kernels in 2 groups not witnessed (op_statistic does not count them)',
        'kprof: witness: rank 1: op_statistic.csv agrees with the kernel table: 22 (type, core) groups, 384 kernels, counts exact, times within rounding; 32 communication kernels in 2 groups not witnessed (op_statistic does not count them)',
        '',
      ].join('\n'),
    );
    expect(plain.stderr).toBe('');
  });

  it('says when there is nothing to witness', async () => {
    const none = await kprof(['summary', 'fixtures/formats/torch-level0', '--witness']);
    expect(none.code).toBe(0);
    expect(none.stderr).toBe(
      'kprof: note: Type is N/A for 10 of 12 kernels (a Level0 export writes no types): grouped by type, they are one N/A row; --by name shows them apart.\n' +
        'kprof: witness: rank 0: no op_statistic beside the kernel table, nothing to cross-check against.\n',
    );
    const stat = await kprof(['summary', 'fixtures/formats/op-statistic-no-device/op_statistic.csv', '--witness']);
    expect(stat.stderr).toMatch(/^kprof: witness: nothing to cross-check: --witness compares a kernel table/);
  });

  it('disagreement is reported with the groups', async () => {
    const dropped = copyWith((l) => [l[0]!, ...l.slice(3)]);
    const r = await kprof(['summary', dropped, '--witness']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^kprof: witness: rank 0: op_statistic\.csv disagrees with the kernel table on \d+ of 22 \(type, core\) groups.*:\nkprof: witness: {3}\S+ @ \S+: kernel table/,
    );
  });
});

describe.skipIf(!HAS_REAL)('the witness on every real export with both files', () => {
  const tables = HAS_REAL
    ? walk(REAL).filter(
        (f) => /(^|\/)(kernel_details\.csv|op_summary_[^/]*\.csv)$/.test(f) && readdirSync(dirname(f)).some((x) => /^op_statistic.*\.csv$/.test(x)),
      )
    : [];
  it('finds them', () => expect(tables.length).toBeGreaterThanOrEqual(5));
  for (const table of tables) {
    it(`${relative(REAL, table)} agrees with its op_statistic`, async () => {
      const w = await witnessProfile(await readProfile(table, { withShapes: false, ranks: null }));
      expect(w.results).toHaveLength(1);
      expect(w.results[0]!.disagreements).toEqual([]);
      expect(w.results[0]!.agrees).toBe(true);
      expect(w.results[0]!.groups).toBeGreaterThan(0);
    });
  }
});
