// Every real export in ../shared/data/real (read at run time, never copied here): each parses with no skipped
// rows except the rows SOURCES.md says were hand-edited, and kernel_details grouped by type and core
// reproduces the same run's op_statistic.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { summarize } from '../src/aggregate/group.js';
import type { Selection } from '../src/model/model.js';
import { readProfile } from '../src/input/read.js';
import { REAL, walk, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const NONE: Selection = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };

const KERNEL_FILE = /(kernel_details\.csv|op_summary_.*\.csv|op_statistic.*\.csv|resource\/test\.csv)$/;

/** Rows SOURCES.md says were edited by hand (msinsight-server: "line 17: 31 fields vs 32"). */
const HAND_EDITED: Record<string, number[]> = {
  'msinsight-server/test_rank_0/ASCEND_PROFILER_OUTPUT/kernel_details.csv': [17],
  'msinsight-server/test_kernel_parse/op_summary_1.csv': [17],
};

describe.skipIf(!HAS_REAL)('real exports', () => {
  const files = HAS_REAL ? walk(REAL).filter((f) => KERNEL_FILE.test(f)) : [];

  it('finds the real kernel exports', () => {
    expect(files.length).toBeGreaterThanOrEqual(20);
  });

  for (const file of files) {
    const rel = relative(REAL, file);
    it(`reads ${rel} with no skipped rows${HAND_EDITED[rel] ? ' but the hand-edited ones' : ''}`, async () => {
      const p = await readProfile(file, { withShapes: true, ranks: null });
      const r = p.ranks[0]!;
      const reference = (parse(readFileSync(file), { bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][]).length - 1;
      expect(r.rowsRead).toBe(reference);
      const edited = HAND_EDITED[rel] ?? [];
      expect(r.rowsSkipped).toBe(edited.length);
      expect(r.warnings.map((w) => w.line)).toEqual(edited);
      for (const w of r.warnings) expect(w.message).toBe('row has 31 cells, the header has 32; row skipped');
      if (r.files[0]!.format !== 'op_statistic') expect(r.kernels + r.rowsSkipped).toBe(r.rowsRead);
      // Grouping by every key keeps every kernel.
      for (const by of ['type', 'core', 'type+core'] as const) {
        expect(summarize(p, { by, selection: NONE }).totals.count).toBe(r.kernels);
      }
    });
  }

  // kernel_details (or op_summary) grouped by type + core against the same run's op_statistic.
  const pairs = files
    .filter((f) => /op_statistic.*\.csv$/.test(f))
    .map((stat) => {
      const dir = dirname(stat);
      const table = readdirSync(dir).find((f) => f === 'kernel_details.csv' || /^op_summary_.*\.csv$/.test(f));
      return table ? { stat, table: join(dir, table) } : null;
    })
    .filter((p): p is { stat: string; table: string } => p !== null);

  it('finds kernel tables with an op_statistic beside them', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(5);
  });

  for (const { stat, table } of pairs) {
    it(`cross-check: ${relative(REAL, table)} by type+core reproduces ${relative(REAL, stat).split('/').pop()}`, async () => {
      const rows = parse(readFileSync(stat), { columns: true, bom: true }) as Record<string, string>[];
      const s = summarize(await readProfile(table, { withShapes: false, ranks: null }), { by: 'type+core', selection: NONE });
      const groups = new Map(s.groups.map((g) => [g.key, g]));
      // op_statistic writes its total rounded to its own precision (3 decimals for torch_npu, 2 for msprof of
      // 2026): kprof's exact sum, rounded the same way, must give the same digits. torch_npu of Jan 2025 also
      // rounds each kernel_details duration to the ns while op_statistic sums the unrounded values, so those
      // totals may differ by up to half a ns per kernel. The torch_npu 2.7.1 files agree to the digit.
      const rounding = /msinsight-torchnpu/.test(table);
      for (const row of rows) {
        const key = `${row['OP Type']} @ ${row['Core Type']}`;
        const g = groups.get(key);
        expect(g, key).toBeDefined();
        expect(g!.total.count, key).toBe(Number(row.Count));
        const cell = row['Total Time(us)']!;
        const statTicks = Math.round(Number(cell) * 10_000);
        const unit = 10 ** (4 - (cell.split('.')[1]?.length ?? 0));
        const ours = Math.round(g!.total.ticks / unit) * unit;
        if (rounding) expect(Math.abs(ours - statTicks), key).toBeLessThanOrEqual(5 * g!.total.count);
        else expect(ours, key).toBe(statTicks);
      }
    });
  }

  it('rank 0 vs rank 1 of one run hold the same kernels (level1)', async () => {
    const a = summarize(await readProfile(join(REAL, 'msinsight-torchnpu/level1/rank0_ascend_pt'), { withShapes: false, ranks: null }), {
      by: 'name',
      selection: NONE,
    });
    const b = summarize(await readProfile(join(REAL, 'msinsight-torchnpu/level1/rank1_ascend_pt'), { withShapes: false, ranks: null }), {
      by: 'name',
      selection: NONE,
    });
    const counts = (s: typeof a) => Object.fromEntries(s.groups.map((g) => [g.key, g.total.count]));
    expect(counts(a)).toEqual(counts(b));
  });

  it('level1 vs level2 hold the same kernel names once communication counters are normalised', async () => {
    const a = summarize(await readProfile(join(REAL, 'msinsight-torchnpu/level1/rank0_ascend_pt'), { withShapes: false, ranks: null }), {
      by: 'name',
      selection: NONE,
    });
    const b = summarize(await readProfile(join(REAL, 'msinsight-torchnpu/level2/rank0_ascend_pt'), { withShapes: false, ranks: null }), {
      by: 'name',
      selection: NONE,
    });
    const counts = (s: typeof a) => Object.fromEntries(s.groups.map((g) => [g.key, g.total.count]));
    expect(counts(a)).toEqual(counts(b));
    expect(Object.keys(counts(a))).toContain('hcom_allReduce__*');
  });

  it('a folder of ranks skips rank folders with no kernel data, and says so', async () => {
    const p = await readProfile(join(REAL, 'msinsight-st-level2'), { withShapes: false, ranks: null });
    expect(p.ranks.map((r) => r.rank)).toEqual(['0', '2']);
    expect(p.notes.join('\n')).toMatch(/rank_1_ascend_pt: no kernel data .* rank 1 left out/);
  });
});
