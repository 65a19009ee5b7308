// kprof audit on the real exports (../shared/data/real): no entry falls back (none of these runs mixes a fused
// kernel with its unfused chain), and the unfused chains it names are real: msinsight-st-level2 runs a residual Add
// then an RmsNorm of its output (shapes 4096,1,1024) 54 times on rank 0 and 56 on rank 2, what AddRmsNorm fuses.

import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { kprof, REAL, REAL_REL, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

interface Entry {
  id: string;
  status: string;
  unfused: { count: number; sites: { rank: string; steps: number[]; count: number; types: string[] }[] };
}

// What stderr says of each export (rows it could not read, rank folders without kernels), as summary says it.
const STDERR: Record<string, RegExp> = {
  'msinsight-st-level2': /^kprof: note: \S+rank_1_ascend_pt: no kernel data .*rank 1 left out \(and 1 more\)/,
  'msinsight-server': /kernel_details\.csv:17: row has 31 cells, the header has 32; row skipped[\s\S]*2 rows could not be read/,
};

async function auditProfile(folder: string, args: string[] = []): Promise<{ phase_source: string; skipped_rows: number; entries: Entry[] }> {
  const res = await kprof(['audit', join(REAL_REL, folder), '--format', 'json', '-q', ...args]);
  if (STDERR[folder] !== undefined) expect(res.stderr).toMatch(STDERR[folder]!);
  else expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout).profiles[0];
}

async function audit(folder: string, args: string[] = []): Promise<Entry[]> {
  return (await auditProfile(folder, args)).entries;
}

describe.skipIf(!HAS_REAL)('kprof audit of the real exports', () => {
  test('msinsight-st-level2: the residual Add + RmsNorm runs unfused, counted per rank; nothing falls back', async () => {
    expect(REAL).toContain('real');
    const entries = await audit('msinsight-st-level2');
    const e = entries.find((x) => x.id === 'add-rms-norm')!;
    expect(e.status).toBe('unfused');
    expect(e.unfused.sites.map((s) => [s.rank, s.steps, s.count, s.types])).toEqual([
      ['0', [13], 54, ['Add', 'RmsNorm']],
      ['2', [13], 56, ['Add', 'RmsNorm']],
    ]);
    expect(entries.filter((x) => x.status === 'fallback')).toEqual([]);
  });

  test('msinsight-st-level2: its Stage column holds times, not phases, and a training step has no phase; rows are cited', async () => {
    const p = await auditProfile('msinsight-st-level2');
    expect(p.phase_source).toBe('none');
    const e = p.entries.find((x) => x.id === 'add-rms-norm') as unknown as {
      unfused: { sites: { phase: string; first: { file: string; line: number } }[] };
    };
    expect(e.unfused.sites.map((s) => s.phase)).toEqual(['step', 'step']);
    // Line 34 of rank 0's kernel_details.csv is step 13's first Add of the chain (aclnnAdd_AddAiCore_Add).
    expect(e.unfused.sites[0]!.first.line).toBe(34);
    expect(e.unfused.sites[0]!.first.file).toMatch(/rank_0_ascend_pt\/ASCEND_PROFILER_OUTPUT\/kernel_details\.csv$/);
  });

  // msprof-analyze's third rank is a trace_view.json, of kernel names only: audited apart (exit 2), it is left out.
  test.each([
    ['msprof-analyze', ['--rank', 'compute_advice_v1,compute_advice_v2']],
    ['msinsight-server', []],
    ['msinsight-torchnpu/level1', []],
    ['msinsight-torchnpu/level2', []],
  ])('%s: no false fallback', async (folder, args) => {
    const entries = await audit(folder, args);
    expect(entries.filter((x) => x.status === 'fallback').map((x) => x.id)).toEqual([]);
  });

  test('msinsight-server: the 2 rows of 31 cells under a header of 32 are counted as skipped', async () => {
    expect((await auditProfile('msinsight-server')).skipped_rows).toBe(2);
  });

  test('a folder of ranks one of which has no kernel types (a trace) is refused, with the --rank that audits the others', async () => {
    const res = await kprof(['audit', join(REAL_REL, 'msprof-analyze'), '-q']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('timeline_advice/trace_view.json is a torch_npu trace_view.json, which names its kernels only (no op types)');
    expect(res.stderr).toContain('--rank compute_advice_v1,compute_advice_v2 audits the ranks with types');
  });

  test('a Level0 export (Type N/A for every compute kernel) is refused', async () => {
    const res = await kprof(['audit', join(REAL_REL, 'msinsight-torchnpu/level0'), '-q']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('has no kernel types (Type is N/A for every compute kernel: a Level0 export writes none)');
  });
});
