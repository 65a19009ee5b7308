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

async function audit(folder: string): Promise<Entry[]> {
  const res = await kprof(['audit', join(REAL_REL, folder), '--format', 'json', '-q']);
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout).profiles[0].entries as Entry[];
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

  test.each(['msprof-analyze', 'msinsight-server', 'msinsight-torchnpu/level1', 'msinsight-torchnpu/level2'])(
    '%s: no false fallback',
    async (folder) => {
      const entries = await audit(folder);
      expect(entries.filter((x) => x.status === 'fallback').map((x) => x.id)).toEqual([]);
    },
  );
});
