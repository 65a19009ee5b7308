// kprof inspect: where rank ids came from, the fields the files hold, rows per device of a shared file.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAS_SQLITE, kprof } from './helpers.js';

interface InspectRank {
  rank: string;
  rankSource: string | null;
  rowsRead: number;
  fields: { shapes: boolean; steps: boolean };
}

async function inspectJson(input: string): Promise<InspectRank[]> {
  const r = await kprof(['inspect', input, '--format', 'json']);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).ranks;
}

describe('kprof inspect', () => {
  it('says where each rank id came from: profiler_info, folder name, Device_id', async () => {
    expect((await inspectJson('fixtures/formats/multi-rank')).map((r) => r.rankSource)).toEqual([
      'profiler_info_0.json rank_id',
      'profiler_info_1.json rank_id',
    ]);
    const text = (await kprof(['inspect', 'fixtures/formats/multi-rank'])).stdout;
    expect(text).toMatch(/^rank 0\n {2}rank id {2}from profiler_info_0\.json rank_id$/m);
    const devices = await inspectJson('fixtures/formats/msprof-multi-device');
    expect(devices.map((r) => r.rankSource)).toEqual([
      'Device_id 0 (the file holds the rows of 2 devices)',
      'Device_id 1 (the file holds the rows of 2 devices)',
    ]);
  });

  it('fields.shapes is true when the file has Input Shapes, though inspect does not group by them', async () => {
    expect((await inspectJson('fixtures/formats/torch-271-device'))[0]!.fields.shapes).toBe(true);
    expect((await inspectJson('fixtures/formats/torch-level0'))[0]!.fields.shapes).toBe(false);
    expect((await inspectJson('fixtures/formats/op-statistic-no-device/op_statistic.csv'))[0]!.fields.shapes).toBe(false);
  });

  it('an op_summary split by Device_id: the rows of each device, which add up to the file', async () => {
    const ranks = await inspectJson('fixtures/formats/msprof-multi-device');
    expect(ranks.map((r) => r.rowsRead)).toEqual([12, 10]);
    const text = (await kprof(['inspect', 'fixtures/formats/msprof-multi-device'])).stdout;
    expect(text).toMatch(/rows {5}22 read, 0 skipped\n {2}device {3}12 of those rows are this rank's, 0 of them skipped/);
    expect(text).toMatch(/device {3}10 of those rows are this rank's/);
    expect((await kprof(['inspect', 'fixtures/formats/multi-rank'])).stdout).not.toMatch(/device {3}/);
  });

  it('counts distinct kernels by the fields the input has, and says why a format has no steps', async () => {
    const line = async (input: string): Promise<string[]> =>
      (await kprof(['inspect', input])).stdout.split('\n').filter((l) => /^ {2}(kernels|steps) /.test(l));
    expect(await line('fixtures/formats/torch-level0')).toEqual([
      '  kernels  12 in 5 distinct (name, type, core) combinations',
      '  steps    2 (7-8)',
    ]);
    expect(await line('fixtures/formats/op-statistic-no-device/op_statistic.csv')).toEqual([
      '  kernels  12 in 5 distinct (type, core) combinations',
      '  steps    none (no Step Id column)',
    ]);
    expect(await line('fixtures/trace/kineto-no-step')).toEqual(['  kernels  4 in 3 distinct names', '  steps    none (no ProfilerStep#N)']);
    expect(await line('fixtures/nsys/gpu-trace-preamble')).toEqual([
      '  kernels  6 in 3 distinct names',
      '  steps    none (no NVTX report of ProfilerStep#N ranges beside it)',
    ]);
    expect(await line('fixtures/nsys/kern-sum')).toEqual(['  kernels  5 in 2 distinct names', '  steps    none (aggregated per name)']);
    // (An SQLite export needs better-sqlite3: test/sqlite-cli.test.ts says so once when it is not installed.)
    if (HAS_SQLITE) expect(await line('fixtures/sqlite/msprof.db')).toContain('  steps    none (no STEP_TIME)');
  });

  it('counts columns as every count: 1,206, not 1206', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-inspect-'));
    try {
      const extra = Array.from({ length: 1200 }, (_, i) => `c${i}`);
      const csv = `Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),${extra.join(',')}\n1,a,A,AI_CORE,1,2,${extra.map(() => '').join(',')}\n`;
      writeFileSync(join(dir, 'kernel_details.csv'), csv);
      const text = (await kprof(['inspect', join(dir, 'kernel_details.csv')])).stdout;
      expect(text).toMatch(/^ {2}columns {2}1,206: Step Id, Name, /m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a summary JSON holds the fields of its grouping only: by type, types (not names, cores, shapes)', async () => {
    const [rank] = await inspectJson('fixtures/cluster/small');
    expect(rank!.fields).toEqual({ name: false, type: true, core: false, shapes: false, steps: true });
    const text = (await kprof(['inspect', 'fixtures/cluster/small'])).stdout;
    // Its entries are groups; the rows are those the summary that wrote it read.
    expect(text).toContain('\n  rows     12 read, 0 skipped when it was made (5 groups here)\n  kernels  12 in 5 distinct types\n');
    expect(text).not.toContain('(name, type, core)');
  });
});
