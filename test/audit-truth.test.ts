// kprof audit on profiles generated with known truth (test/auditGen.ts): depths 1 to 128, an MTP layer, a prefill
// step and decode steps (told by the attention kernels, or by step_trace_time.csv's Stage), the MLA prolog unfused
// in some (rank, step, layer) sites and fused in the others, interleaved with other kernels. The audit must find
// >= 95% of the unfused chains at their rank, step, phase and decoder layer, with <= 1 false site per profile, and
// count the fused kernels, the chains per phase and the measured time exactly.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { generate, rankOf, type GenCase } from './auditGen.js';
import { CHAIN, FUSED } from './decodeGen.js';
import { kprof } from './helpers.js';

interface Site {
  rank: string;
  phase: string;
  layer: number;
  steps: number[];
  count: number;
  time_us: number;
}

const tmp = mkdtempSync(join(tmpdir(), 'kprof-audit-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const CASES: GenCase[] = [
  { seed: 1, depth: 1, ranks: 1, steps: 2, mtp: false },
  { seed: 2, depth: 2, ranks: 2, steps: 3, mtp: true },
  { seed: 3, depth: 7, ranks: 2, steps: 4, mtp: true, stage: true },
  { seed: 4, depth: 16, ranks: 3, steps: 3, mtp: false },
  { seed: 5, depth: 61, ranks: 2, steps: 3, mtp: true },
  { seed: 6, depth: 128, ranks: 2, steps: 2, mtp: true },
  { seed: 7, depth: 3, ranks: 1, steps: 3, mtp: false, stage: true },
];

describe('kprof audit finds the unfused chains of generated profiles with known truth', () => {
  for (const c of CASES) {
    test(`depth ${c.depth}, ${c.ranks} ranks, ${c.steps} steps${c.mtp ? ', MTP' : ''}${c.stage ? ', phases by Stage' : ''}`, async () => {
      const dir = join(tmp, `p${c.seed}`);
      const truth = generate(dir, c);
      const res = await kprof(['audit', dir, '--only', 'mla-prolog', '--format', 'json', '-q']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const profile = JSON.parse(res.stdout).profiles[0];
      const entry = profile.entries[0];
      expect(profile.phase_source).toBe(c.stage ? 'stage' : 'kernels');
      const found = new Set<string>();
      for (const s of entry.unfused.sites as Site[]) for (const step of s.steps) found.add(`${rankOf(s.rank)}/${step}/${s.phase}/${s.layer}`);
      const hits = [...truth.unfused].filter((k) => found.has(k)).length;
      const falsePositives = [...found].filter((k) => !truth.unfused.has(k)).length;
      expect(hits / truth.unfused.size).toBeGreaterThanOrEqual(0.95);
      expect(falsePositives).toBeLessThanOrEqual(1);
      // Counts and times are the rows': every chain once, every fused kernel once, per phase too.
      expect(entry.unfused.count).toBe(truth.unfused.size);
      expect(entry.fused.count).toBe(truth.fused);
      expect(Math.round(entry.unfused.time_us * 50)).toBe(truth.unfusedUnits);
      const phases: Record<string, { fused: number; unfused: number }> = {};
      for (const p of entry.phases) phases[p.phase] = { fused: p.fused.count, unfused: p.unfused.count };
      expect(phases).toEqual(truth.phases);
      expect(entry.status).toBe(truth.fused > 0 ? 'fallback' : 'unfused');
      // Each unfused site cites its first kernel's row, a QuantBatchMatmulV3 of its first step.
      for (const s of entry.unfused.sites as (Site & { first: { line: number | null; file: string | null } })[]) {
        expect(s.first.line).not.toBeNull();
        expect(s.first.file).toMatch(/kernel_details\.csv$/);
      }
    });
  }

  test('a decoder fallback in the last decoder layer of every step is not taken for an MTP layer', async () => {
    const dir = join(tmp, 'last');
    const truth = generate(dir, { seed: 8, depth: 5, ranks: 1, steps: 3, mtp: false, clean: true, fallback: (_r, _s, l) => l === 4 });
    const res = await kprof(['audit', dir, '--only', 'mla-prolog', '--format', 'json', '-q']);
    const sites = JSON.parse(res.stdout).profiles[0].entries[0].unfused.sites as Site[];
    expect(sites.map((s) => [s.phase, s.layer, s.steps])).toEqual([
      ['prefill', 4, [1]],
      ['decode', 4, [2, 3]],
    ]);
    expect(truth.unfused.size).toBe(3);
  });

  test('a chain at the end of its layer, nearer the marker of the next layer than its own: each site in its own layer (60 layers)', async () => {
    // Each layer: AddRmsNorm, attention, MLP …, Transpose mid-layer, then the MLA prolog (fused, or its chain ending
    // in the KV cache's two ScatterNdUpdate). The cache write's chain is nearer the next layer's Transpose than its
    // own: the nearest marker put it one layer late, and the last layer's twice.
    const layer = ['AddRmsNorm', 'FusedInferAttentionScore', 'MatMulV2', 'Add', 'Mul', 'Transpose', 'GroupedMatmul', 'SwiGlu', 'MoeGatingTopK'];
    const unfused = new Set(['1/7', '2/0', '3/59', '4/30']);
    const rows = ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)'];
    let t = 1_000_000;
    for (let s = 1; s <= 4; s++)
      for (let l = 0; l < 60; l++)
        for (const k of [...layer, ...(unfused.has(`${s}/${l}`) ? CHAIN : [FUSED])]) {
          rows.push(`${s},${k}_k,${k},AI_CORE,${t}.000,2.000`);
          t += 3;
        }
    const dir = join(tmp, 'late');
    mkdirSync(dir);
    writeFileSync(join(dir, 'kernel_details.csv'), `${rows.join('\n')}\n`);
    const res = await kprof(['audit', dir, '--only', 'mla-prolog,scatter-pa-kv-cache', '--format', 'json', '-q']);
    expect(res.code).toBe(0);
    const entries = JSON.parse(res.stdout).profiles[0].entries as { id: string; unfused: { sites: Site[] } }[];
    const layers = (id: string) => entries.find((e) => e.id === id)!.unfused.sites.map((s) => [s.layer, s.steps]);
    const want = [
      [0, [2]],
      [7, [1]],
      [30, [4]],
      [59, [3]],
    ];
    expect(layers('mla-prolog')).toEqual(want);
    expect(layers('scatter-pa-kv-cache')).toEqual(want);
  });
});
