// diff warns when its two inputs cannot be compared alike: op_statistic against a kernel table, a Level0 export
// against one with types grouped by type.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const MULTI = 'fixtures/formats/multi-rank';
/** An op_statistic as torch_npu writes it (early 2025): without the communication rows. */
const DIR = mkdtempSync(join(tmpdir(), 'kprof-'));
const STAT = join(DIR, 'op_statistic.csv');
writeFileSync(
  STAT,
  readFileSync('fixtures/formats/op-statistic-no-device/op_statistic.csv', 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('hcom_'))
    .join('\n'),
);
afterAll(() => rmSync(DIR, { recursive: true, force: true }));
const LEVEL0 = 'fixtures/formats/torch-level0';

describe('inputs that cannot be compared alike', () => {
  it('op_statistic against kernel_details: the communication kernels it does not count', async () => {
    const r = await kprof(['diff', STAT, MULTI, '--by', 'type+core']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^kprof: warning: the base is op_statistic, which counts no communication kernels, and the PR is a kernel table with 4 of them \(hcom_allReduce_\): they show as added, though the change did not make them\. Compare kernel_details\.csv with kernel_details\.csv, or leave them out on both sides with --exclude '\^hcom_'\.$/m,
    );
    const reversed = await kprof(['diff', MULTI, STAT, '--by', 'type+core']);
    expect(reversed.stderr).toMatch(/the PR is op_statistic, .* and the base is a kernel table with 4 of them .*: they show as removed/);
    const excluded = await kprof(['diff', STAT, MULTI, '--by', 'type+core', '--exclude', '^hcom_']);
    expect(excluded.stderr).not.toMatch(/op_statistic/);
    expect((await kprof(['diff', STAT, STAT, '--by', 'type+core'])).stderr).toBe('');
  });

  it('a Level0 export against a Level1 one grouped by type: suggest --by name', async () => {
    const r = await kprof(['diff', LEVEL0, MULTI]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^kprof: warning: the base is a Level0 export \(Type is N\/A for 10 of 12 kernels\) and the PR has types: grouped by type, those kernels form one N\/A row against the PR's types\. Compare them with --by name\.$/m,
    );
    expect((await kprof(['diff', MULTI, LEVEL0, '--by', 'type+core'])).stderr).toMatch(/the PR is a Level0 export .* grouped by type\+core/);
    expect((await kprof(['diff', LEVEL0, MULTI, '--by', 'name'])).stderr).not.toMatch(/Level0/);
    expect((await kprof(['diff', LEVEL0, LEVEL0])).stderr).not.toMatch(/Level0/);
  });
});

describe('op_statistic that counts communication kernels', () => {
  it('gives no warning against a kernel table (msprof writes COMMUNICATION rows)', async () => {
    const stat =
      'fixtures/formats/msprof-current/PROF_000001_20260605155111872_JDEKRCNERPBNJEGA/mindstudio_profiler_output/op_statistic_20260605155140.csv';
    const r = await kprof(['diff', stat, MULTI, '--by', 'type+core']);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/counts no communication/);
  });
});
