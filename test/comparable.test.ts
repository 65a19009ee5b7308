// diff warns when its two inputs cannot be compared alike: op_statistic against a kernel table, a Level0 export
// against one with types grouped by type.

import { describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const MULTI = 'fixtures/formats/multi-rank';
const STAT = 'fixtures/formats/op-statistic-no-device/op_statistic.csv';
const LEVEL0 = 'fixtures/formats/torch-level0';

describe('inputs that cannot be compared alike', () => {
  it('op_statistic against kernel_details: the communication kernels it does not count', async () => {
    const r = await kprof(['diff', STAT, MULTI, '--by', 'type+core']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^kprof: warning: the base is op_statistic, which counts no communication kernels, and the PR is a kernel table with 4 of them \(hcom_allReduce_\): they show as added, though the change did not make them\. Compare kernel_details with kernel_details, or leave them out on both sides with --exclude '\^hcom_'\.$/m,
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
