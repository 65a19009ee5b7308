// A group's mean (total ÷ count) lies between its minimum and maximum: figures that say otherwise no kernels have.
// An op_statistic row whose Min is above Total ÷ Count (or whose Max is below it: a 0 written for a time not
// measured) is read with its Min and Max unknown, and warned of; a summary JSON group so edited is refused (exit 2).
// Both within 0.001 µs, the rounding of a statistic row's times. Both were read as they were: the table showed a
// minimum above the average, and a summary JSON of such a row would now not read back.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-mean-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HEAD = 'OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)';

describe('an op_statistic row', () => {
  it('whose Min is above Total ÷ Count, or Max below it, is read with its Min and Max unknown; one rounded within 0.001 µs is read whole', async () => {
    const file = join(tmp, 'op_statistic.csv');
    writeFileSync(
      file,
      [
        HEAD,
        'A,AI_CORE,2,10.000,6.000,5.000,7.000,40',
        'B,AI_CORE,2,10.000,0,0,0,40',
        // 3 × 3.334 is 10.002: the rounding of three kernels of 3.3333 µs each.
        'C,AI_CORE,3,10.000,3.334,3.333,3.334,20',
        '',
      ].join('\n'),
    );
    const r = await kprof(['summary', file, '--format', 'json', '-q']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'op_statistic.csv:2: Min Time(us) (6.000) is more than the mean, Total Time(us) ÷ Count (10.000 ÷ 2); its Min and Max are taken as unknown (its count and time are read)',
    );
    expect(r.stderr).toContain('op_statistic.csv:3: Max Time(us) (0) is less than the mean, Total Time(us) ÷ Count (10.000 ÷ 2)');
    const s = JSON.parse(r.stdout);
    expect(s.skippedRows).toBe(0);
    const by = Object.fromEntries(
      s.groups.map((g: { key: string; count: number; minUs: number | null; maxUs: number | null }) => [g.key, [g.count, g.minUs, g.maxUs]]),
    );
    expect(by).toEqual({ A: [2, null, null], B: [2, null, null], C: [3, 3.334, 3.334] });
    // Its summary JSON reads back.
    const saved = join(tmp, 'stat.json');
    writeFileSync(saved, r.stdout);
    expect((await kprof(['summary', saved, '-q'])).code).toBe(0);
  });
});

describe('an Nsight cuda_gpu_kern_sum row', () => {
  it('whose Min is above Total ÷ Instances is read with its Min and Max unknown, so that its summary JSON reads back', async () => {
    const file = join(tmp, 'cuda_gpu_kern_sum.csv');
    writeFileSync(
      file,
      'Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n50.0,1000,2,500,500,900,950,0,bad\n50.0,1000,2,500,500,400,600,0,good\n',
    );
    const r = await kprof(['summary', file, '--format', 'json', '-q']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('the kernel "bad": its Min or Max is past its mean (Total ÷ Instances); both taken as unknown');
    const s = JSON.parse(r.stdout);
    expect(s.groups.map((g: { key: string; minUs: number | null }) => [g.key, g.minUs])).toEqual([
      ['bad', null],
      ['good', 0.4],
    ]);
    const saved = join(tmp, 'kern.json');
    writeFileSync(saved, r.stdout);
    expect((await kprof(['summary', saved, '-q'])).code).toBe(0);
  });
});

describe('a summary JSON edited by hand', () => {
  it('a group whose minUs is above its mean, or maxUs below it, is refused (exit 2)', async () => {
    const made = await kprof(['summary', 'fixtures/fusion-example/pr', '--format', 'json', '-q']);
    const doc = JSON.parse(made.stdout);
    const rank0 = doc.perRank[0].groups.find((g: { key: string }) => g.key === 'MatMulV3');
    // 20 kernels, 5213.16 µs: a mean of 260.658 µs, its min 7.36 µs and max 599.44 µs.
    expect([rank0.count, rank0.totalUs]).toEqual([20, 5213.16]);
    for (const [field, value, says] of [
      ['minUs', 300, '"minUs" 300 above its mean (totalUs 5213.16 ÷ count 20)'],
      ['maxUs', 100, '"maxUs" 100 below its mean (totalUs 5213.16 ÷ count 20)'],
    ] as const) {
      const edited = JSON.parse(made.stdout);
      edited.perRank[0].groups.find((g: { key: string }) => g.key === 'MatMulV3')[field] = value;
      const file = join(tmp, `${field}.json`);
      writeFileSync(file, JSON.stringify(edited));
      const r = await kprof(['summary', file, '-q']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`group "MatMulV3" in rank "0" has ${says}`);
    }
    // Unedited, it reads.
    const file = join(tmp, 'as-made.json');
    writeFileSync(file, made.stdout);
    expect((await kprof(['summary', file, '-q'])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(made.stdout);
  });
});
