// Every header variant and quirk of FORMATS.md, from the fixtures in fixtures/formats/ (written by
// fixtures/formats/generate.mjs from one kernel list, so every reader must give the same numbers).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain .mjs generator without types
import { KERNELS } from '../fixtures/formats/generate.mjs';
import { summarize } from '../src/aggregate/group.js';
import { skippedRowsOf, type Profile, type Selection } from '../src/model/model.js';
import { readProfile } from '../src/input/read.js';
import { ROOT } from './helpers.js';

type Kernel = [number, string, string, string, string, string];
const kernels = KERNELS as Kernel[];
const F = (p: string): string => resolve(ROOT, 'fixtures/formats', p);
const ticks = (s: string): number => Math.round(Number(s) * 10_000);
const TOTAL = kernels.reduce((n, k) => n + ticks(k[5]), 0);
const NONE: Selection = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };

async function read(p: string, withShapes = false): Promise<Profile> {
  return readProfile(F(p), { withShapes, withSpan: true, ranks: null });
}

function byType(p: Profile): Record<string, number> {
  const s = summarize(p, { by: 'type', selection: NONE });
  return Object.fromEntries(s.groups.map((g) => [g.key, g.total.count]));
}

/** An msprof op_summary of several devices (Device_id first) whose rows are `lines`, in a temporary folder. */
const OP_SUMMARY_HEADER =
  'Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),Task Duration(us),Task Wait Time(us),Block Num';
/** A well-formed row of it: `device` its Device_id cell, `name` its Op Name cell. */
const opRow = (device: string, name: string): string => `${device},1,1,2,${name},A,dynamic,AI_CORE,1.0,2.0,0,1`;

async function withOpSummary(lines: string[], fn: (file: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kprof-device-'));
  try {
    const file = join(dir, 'op_summary_20260101000000.csv');
    writeFileSync(file, [OP_SUMMARY_HEADER, ...lines].join('\n'));
    await fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const EXPECTED_TYPES = { MatMulV3: 2, Cast: 4, RmsNorm: 2, FlashAttentionScore: 2, hcom_allReduce_: 2 };

const VARIANTS: { dir: string; format: string; traits: string[]; steps: boolean; rank?: string }[] = [
  {
    dir: 'torch-2023-memoryl0',
    format: 'kernel_details',
    traits: ['torch_npu kernel_details', 'Block Dim', 'with steps', 'aic_metrics MemoryL0'],
    steps: true,
  },
  { dir: 'torch-2023-arithmetic', format: 'kernel_details', traits: ['aic_metrics ArithmeticUtilization'], steps: true },
  { dir: 'torch-no-step-reduced', format: 'kernel_details', traits: ['reduced (Level0) header'], steps: false },
  { dir: 'torch-level0', format: 'kernel_details', traits: ['reduced (Level0) header', 'with steps'], steps: true, rank: '0' },
  { dir: 'torch-2025-pipe', format: 'kernel_details', traits: ['aic_metrics PipeUtilization'], steps: true },
  { dir: 'torch-271-device', format: 'kernel_details', traits: ['with Device_id', 'Block Dim'], steps: true, rank: '0' },
  { dir: 'torch-block-num', format: 'kernel_details', traits: ['Block Num'], steps: true },
  { dir: 'torch-level0-shapes', format: 'kernel_details', traits: ['reduced (Level0) header', 'Block Num', 'with Device_id'], steps: true },
  { dir: 'torch-task-start', format: 'kernel_details', traits: ['"Task Start Time(us)" start column'], steps: true },
  { dir: 'mindspore', format: 'kernel_details', traits: ['MindSpore kernel_details (Step ID)'], steps: true, rank: '3' },
  {
    dir: 'msprof-current',
    format: 'op_summary',
    traits: ['msprof op_summary', 'Block Num', 'with Device_id', 'aic_metrics PipeUtilization'],
    steps: false,
  },
  { dir: 'msprof-sliced', format: 'op_summary', traits: ['msprof op_summary'], steps: false },
  { dir: 'empty-steps', format: 'kernel_details', traits: ['with steps'], steps: true },
  { dir: 'gzip', format: 'kernel_details', traits: ['with Device_id'], steps: true },
];

describe('header variants', () => {
  for (const v of VARIANTS) {
    it(`${v.dir}: every kernel, exact total, ${v.steps ? 'steps' : 'no steps'}`, async () => {
      const p = await read(v.dir);
      expect(p.ranks).toHaveLength(1);
      const r = p.ranks[0]!;
      expect(r.files[0]!.format).toBe(v.format);
      for (const t of v.traits) expect(r.files[0]!.traits).toContain(t);
      expect(r.rowsRead).toBe(12);
      expect(r.rowsSkipped).toBe(0);
      expect(r.kernels).toBe(12);
      expect([...r.groups.values()].reduce((n, g) => n + g.total.ticks, 0)).toBe(TOTAL);
      expect(r.fields.steps).toBe(v.steps);
      if (v.steps) expect(r.stepIds).toEqual([7, 8]);
      if (v.rank) expect(r.rank).toBe(v.rank);
      if (v.dir !== 'torch-level0') expect(byType(p)).toEqual(EXPECTED_TYPES);
    });
  }

  it('torch-level0: Type and core are N/A for non-communication rows, kept as the literal N/A', async () => {
    expect(byType(await read('torch-level0'))).toEqual({ 'N/A': 10, hcom_allReduce_: 2 });
  });

  it('empty Step Id cells: counted in the total, in no step', async () => {
    const r = (await read('empty-steps')).ranks[0]!;
    expect(r.rowsWithoutStep).toBe(2);
    const s = summarize(await read('empty-steps'), { by: 'type', selection: NONE });
    const cast = s.groups.find((g) => g.key === 'Cast')!;
    expect(cast.total.count).toBe(4);
    expect([...cast.steps.values()].reduce((n, c) => n + c.count, 0)).toBe(2);
    const stepped = summarize(await read('empty-steps'), { by: 'type', selection: { ...NONE, steps: [{ from: 7, to: 8 }] } });
    expect(stepped.totals.count).toBe(10);
    expect(stepped.filteredKernels).toBe(2);
  });

  it('MindSpore names keep their framework prefix', async () => {
    const s = summarize(await read('mindspore'), { by: 'name', selection: NONE });
    expect(s.groups.map((g) => g.key)).toContain('Default/network/aclnnCast_Cast_Cast');
  });

  it('sliced msprof files are read as one, slices in order', async () => {
    const r = (await read('msprof-sliced')).ranks[0]!;
    expect(r.files.map((f) => f.path.split('/').pop())).toEqual(['op_summary_slice_0_20260605155140.csv', 'op_summary_slice_1_20260605155140.csv']);
  });

  it('one slice given as a file pulls in its sibling slices', async () => {
    const p = await read(
      'msprof-sliced/PROF_000002_20260605155111872_ABCDEFGHIJKLMNOP/mindstudio_profiler_output/op_summary_slice_1_20260605155140.csv',
    );
    expect(p.ranks[0]!.files).toHaveLength(2);
    expect(p.ranks[0]!.kernels).toBe(12);
  });

  it('msprof rows of several devices in one op_summary: one rank per Device_id', async () => {
    const p = await read('msprof-multi-device');
    expect(p.ranks.map((r) => [r.rank, r.kernels, r.rowsRead])).toEqual([
      ['0', 12, 12],
      ['1', 10, 10],
    ]);
    expect(p.ranks[0]!.files[0]!.traits).toContain('rows of 2 devices (0, 1): one rank per Device_id');
    expect(byType({ ...p, ranks: [p.ranks[1]!] })).toEqual({ ...EXPECTED_TYPES, Cast: 2 });
    const one = await readProfile(F('msprof-multi-device'), { withShapes: false, ranks: null, threads: 'on' });
    expect(one.ranks.map((r) => [r.rank, r.kernels])).toEqual([
      ['0', 12],
      ['1', 10],
    ]);
  });

  it('msprof rows whose Device_id is no device number are skipped and counted, not put on the device before them', async () => {
    const rows = ['0', '1', 'N/A', '1.5', '-1', '99999999999999999999', ''].map((d, k) => opRow(d, 'abcdefg'[k]!));
    await withOpSummary([...rows, ''], async (file) => {
      const p = await readProfile(file, { withShapes: false, ranks: null });
      // A row with no Device_id stays on the device before it (g on 1); the others are no device at all.
      expect(p.ranks.map((r) => [r.rank, r.kernels])).toEqual([
        ['0', 1],
        ['1', 2],
      ]);
      // Skipped on no rank (the file's rowsOnNoRank), not on the device of the row before them (1).
      expect(p.ranks.map((r) => [r.rowsRead, r.rowsSkipped])).toEqual([
        [1, 0],
        [2, 0],
      ]);
      expect(p.ranks[0]!.files[0]!).toMatchObject({ rowsRead: 7, rowsSkipped: 4, rowsOnNoRank: 4 });
      expect(skippedRowsOf(p.ranks)).toBe(4);
      expect(summarize(p, { by: 'type', selection: NONE })).toMatchObject({ rowsRead: 7, skippedRows: 4, rowsOnNoRank: 4 });
      expect(p.ranks.flatMap((r) => r.warnings.map((w) => w.message))).toEqual([
        'Device_id is "N/A", expected a device number (0, 1, …); row skipped',
        'Device_id is "1.5", expected a device number (0, 1, …); row skipped',
        'Device_id is "-1", expected a device number (0, 1, …); row skipped',
        'Device_id is "99999999999999999999", expected a device number (0, 1, …); row skipped',
      ]);
    });
  });

  it('msprof damaged rows of several devices are counted on their own Device_id, else on no rank', async () => {
    const lines = [
      opRow('0', 'a'),
      opRow('1', 'b'),
      `${opRow('0', 'x')},extra`, // too many cells: device 0's, read after device 1's row
      opRow('1', 'c'),
      '0,1,1', // too few cells: device 0's
      opRow('0', 'f'),
      opRow('1', '"e"x'), // text after a closing quote: device 1's, read after device 0's row
      'N/A,1,1', // too few cells, no device: no rank's
      opRow('1', 'd'),
      opRow('0', '"unclosed'), // a quote never closed: its cells cannot be told, no rank's
      opRow('0', 'g'),
      opRow('1', 'h'),
      '0,1,1,2,cut', // the file ends in this row: device 0's
    ];
    await withOpSummary(lines, async (file) => {
      for (const engine of ['js', 'simd'] as const) {
        const p = await readProfile(file, { withShapes: false, ranks: null, engine });
        expect(p.ranks.map((r) => [r.rank, r.kernels, r.rowsRead, r.rowsSkipped])).toEqual([
          ['0', 3, 6, 3],
          ['1', 4, 5, 1],
        ]);
        expect(p.ranks[0]!.files[0]!).toMatchObject({ rowsRead: 13, rowsSkipped: 6, rowsOnNoRank: 2 });
        expect(summarize(p, { by: 'type', selection: NONE })).toMatchObject({ rowsRead: 13, skippedRows: 6, rowsOnNoRank: 2 });
      }
    });
  });

  it('msprof of several devices: a header repeated in the file is said as one (not as a Device_id that is no number)', async () => {
    await withOpSummary([opRow('0', 'a'), opRow('1', 'b'), OP_SUMMARY_HEADER, opRow('0', 'c'), opRow('x', 'd')], async (file) => {
      for (const engine of ['js', 'simd'] as const) {
        const p = await readProfile(file, { withShapes: false, ranks: null, engine });
        expect(p.ranks.flatMap((r) => r.warnings).map((w) => [w.line, w.message])).toEqual([
          [4, 'the header is repeated here (files joined together?); row skipped'],
          [6, 'Device_id is "x", expected a device number (0, 1, …); row skipped'],
        ]);
      }
    });
  });

  it('text cells lose only the ASCII white space around them: a name ending in U+00A0 is another name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-trim-'));
    try {
      const file = join(dir, 'kernel_details.csv');
      const rows = ['Cast', 'Cast ', '\tCast', 'Cast\u00a0', '\u3000Cast', 'Cast\ufeff'].map((n, k) => `1,"${n}",A\t,AI_CORE ,${k},2`);
      writeFileSync(file, ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)', ...rows].join('\n'));
      for (const engine of ['js', 'simd'] as const) {
        const p = await readProfile(file, { withShapes: false, ranks: null, engine });
        const s = summarize(p, { by: 'name', selection: NONE });
        expect(Object.fromEntries(s.groups.map((g) => [g.key, g.total.count]))).toEqual({
          Cast: 3,
          'Cast\u00a0': 1,
          '\u3000Cast': 1,
          'Cast\ufeff': 1,
        });
        expect(summarize(p, { by: 'type+core', selection: NONE }).groups.map((g) => g.key)).toEqual(['A @ AI_CORE']);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('CANN 5.x: old device_*/summary layout, unit-less time columns, one rank per device', async () => {
    const p = await read('msprof-cann5');
    expect(p.ranks.map((r) => r.rank)).toEqual(['0', '1']);
    expect(p.ranks[0]!.files[0]!.traits).toContain('unit-less time columns (CANN 5.x)');
    expect(p.ranks.every((r) => r.kernels === 12)).toBe(true);
  });

  it('op_statistic with and without Device_id gives the same per-type totals as the kernel rows', async () => {
    for (const dir of [
      'op-statistic-no-device',
      'msprof-current/PROF_000001_20260605155111872_JDEKRCNERPBNJEGA/mindstudio_profiler_output/op_statistic_20260605155140.csv',
    ]) {
      const p = await read(dir);
      expect(p.ranks[0]!.files[0]!.format).toBe('op_statistic');
      expect(p.ranks[0]!.kernels).toBe(12);
      expect(byType(p)).toEqual(EXPECTED_TYPES);
      const s = summarize(p, { by: 'type+core', selection: NONE });
      expect(s.totals.ticks).toBe(TOTAL);
    }
  });

  it('op_statistic cannot answer per-name, per-shape or per-step questions', async () => {
    const p = await read('op-statistic-no-device');
    expect(() => summarize(p, { by: 'name', selection: NONE })).toThrow(/op_statistic is already aggregated per OP Type \+ Core Type/);
    expect(() => summarize(p, { by: 'type', selection: { ...NONE, steps: [{ from: 1, to: 2 }] } })).toThrow(/--steps needs Step Id/);
  });

  it('multi-rank parent folder: rank_id as int and as string', async () => {
    const p = await read('multi-rank');
    expect(p.ranks.map((r) => r.rank)).toEqual(['0', '1']);
    const one = await readProfile(F('multi-rank'), { withShapes: false, ranks: ['1'] });
    expect(one.ranks.map((r) => r.rank)).toEqual(['1']);
    await expect(readProfile(F('multi-rank'), { withShapes: false, ranks: ['5'] })).rejects.toThrow(/rank 5 not found; the input has ranks 0, 1/);
  });

  it('shapes: the tripled quotes are stripped; communication rows keep N/A', async () => {
    const s = summarize(await read('torch-271-device', true), { by: 'type+shapes', selection: NONE });
    const keys = s.groups.map((g) => g.key).sort();
    expect(keys).toContain('MatMulV3 [4096,512;512,1024]');
    expect(keys).toContain('hcom_allReduce_ [N/A]');
    expect(s.groups.find((g) => g.key === 'Cast [4096,1024]')!.shapes).toBe('4096,1024');
  });

  it('communication names lose their counters: one name per collective', async () => {
    const s = summarize(await read('torch-block-num'), { by: 'name', selection: NONE });
    const names = s.groups.map((g) => g.key);
    expect(names.filter((n) => n.startsWith('hcom_allReduce_'))).toEqual(['hcom_allReduce__*']);
    expect(names.some((n) => n.includes('586'))).toBe(false);
  });

  it('a time span is measured from start cells with a trailing TAB, quoted or not', async () => {
    for (const dir of ['torch-2025-pipe', 'torch-271-device']) {
      const r = (await read(dir)).ranks[0]!;
      expect(r.spanTicks).not.toBeNull();
      expect(r.spanTicks!).toBeGreaterThan(11 * 3000 * 10_000);
    }
  });
});
