// Summary reports: the CSV with --top (folded row and total row), the key column heading for user groups.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { MARKDOWN_LIMIT } from '../src/report/render.js';
import { kprof } from './helpers.js';

const MULTI = 'fixtures/formats/multi-rank';

function csv(stdout: string): Record<string, string>[] {
  return parse(stdout, { columns: true }) as Record<string, string>[];
}

describe('summary CSV', () => {
  it('--top folds the rest into one (K more groups) row and ends with a total row, so the rows add up', async () => {
    const all = JSON.parse((await kprof(['summary', MULTI, '--by', 'name', '--format', 'json'])).stdout);
    const r = await kprof(['summary', MULTI, '--by', 'name', '--format', 'csv', '--top', '2']);
    expect(r.code).toBe(0);
    const rows = csv(r.stdout);
    expect(rows.map((x) => x.row)).toEqual(['group', 'group', 'others', 'total']);
    expect(rows[2]!.key).toBe(`(${all.groups.length - 2} more groups)`);
    const rest = all.groups.slice(2);
    expect(Number(rows[2]!.count)).toBe(rest.reduce((n: number, g: { count: number }) => n + g.count, 0));
    expect(Number(rows[2]!.minUs)).toBe(Math.min(...rest.map((g: { minUs: number }) => g.minUs)));
    expect(rows[3]).toMatchObject({ key: '(total)', count: String(all.totals.count), totalUs: String(all.totals.totalUs), sharePct: '100' });
    const sum = rows.slice(0, 3).reduce((n, x) => n + Number(x.count), 0);
    expect(sum).toBe(all.totals.count);
    expect(Number(rows[3]!.countPerStep)).toBe(all.totals.count / all.steps);
  });

  it('without --top every group is written, then the total row', async () => {
    const rows = csv((await kprof(['summary', MULTI, '--format', 'csv'])).stdout);
    expect(rows.filter((x) => x.row === 'others')).toEqual([]);
    expect(rows.at(-1)).toMatchObject({ key: '(total)', row: 'total', count: '24' });
    expect(rows.slice(0, -1).every((x) => x.row === 'group')).toBe(true);
  });
});

describe('the key column heading with user groups', () => {
  it('says group when every row is a user group, group / type when some kernels matched none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    try {
      const some = join(dir, 'some.yaml');
      const every = join(dir, 'every.yaml');
      writeFileSync(some, 'attention: [FlashAttentionScore]\n');
      writeFileSync(every, 'attention: [FlashAttentionScore]\nrest: ["/./"]\n');
      const table = (await kprof(['summary', MULTI, '--groups', some])).stdout;
      expect(table.split('\n')[0]).toMatch(/^group \/ type +count/);
      expect((await kprof(['summary', MULTI, '--groups', every])).stdout.split('\n')[0]).toMatch(/^group +count/);
      expect((await kprof(['summary', MULTI, '--groups', every, '--format', 'markdown'])).stdout.split('\n')[0]).toMatch(/^\| group \| count/);
      expect((await kprof(['summary', MULTI])).stdout.split('\n')[0]).toMatch(/^type +count/);
      expect((await kprof(['diff', MULTI, MULTI, '--groups', every])).stdout).toMatch(/^group +base/m);
      expect((await kprof(['diff', MULTI, MULTI, '--groups', some, '--format', 'markdown'])).stdout).toMatch(/^\| group \/ type \| base/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('user group errors', () => {
  async function withGroups(yaml: string, args: string[] = []): Promise<{ code: number; stderr: string; file: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    try {
      const file = join(dir, 'groups.yaml');
      writeFileSync(file, yaml);
      const r = await kprof(['summary', MULTI, '--groups', file, ...args]);
      return { code: r.code, stderr: r.stderr, file };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('an empty group is an error at its line (exit 2)', async () => {
    for (const yaml of [
      'attention: [FlashAttentionScore]\nnothing: []\n',
      'attention: [FlashAttentionScore]\nnothing:\n',
      'attention: [FlashAttentionScore]\nnothing: ""\n',
    ]) {
      const r = await withGroups(yaml);
      expect(r.code, yaml).toBe(2);
      expect(r.stderr, yaml).toMatch(
        new RegExp(`^kprof: ${r.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+: group "nothing" is empty; list at least one`),
      );
    }
  });

  it('a group named like a kernel type or name of the profile is an error at its line (exit 2)', async () => {
    const byType = await withGroups('attention: [FlashAttentionScore]\nCast: [RmsNorm]\n');
    expect(byType.code).toBe(2);
    expect(byType.stderr).toMatch(
      /groups\.yaml:2:1: group "Cast" is named like a kernel type of .*kernel_details\.csv \(rank 0\), so its row could not be told from that kernel's\. Rename the group/,
    );
    const byName = await withGroups('aclnnCast_Cast_Cast: [RmsNorm]\n', ['--by', 'name']);
    expect(byName.code).toBe(2);
    expect(byName.stderr).toMatch(/groups\.yaml:1:1: group "aclnnCast_Cast_Cast" is named like a kernel name/);
    const byCore = await withGroups('AI_CORE: [RmsNorm]\n', ['--by', 'core']);
    expect(byCore.stderr).toMatch(/group "AI_CORE" is named like a --by core key/);
    expect((await withGroups('casts: [Cast]\n')).code).toBe(0);
  });
});

describe('summary Markdown of many groups', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'kprof-summd-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('stays under the comment limit: the groups that do not fit are summed in one row, and the rows add up', async () => {
    // 3,000 names of 200 characters: 700 kB of Markdown, ten times what a pull request comment takes.
    const file = join(tmp, 'k.csv');
    const rows = Array.from({ length: 3000 }, (_, i) => `1,k${String(i).padStart(4, '0')}_${'w'.repeat(200)},T,AI_CORE,${1 + (i % 7)}\n`);
    writeFileSync(file, `Step Id,Name,Type,Accelerator Core,Duration(us)\n${rows.join('')}`);
    const r = await kprof(['summary', file, '--by', 'name', '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeLessThan(MARKDOWN_LIMIT);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('| '));
    const groups = lines.filter((l) => l.startsWith('| `k'));
    const more = lines.find((l) => l.startsWith('| ('))!;
    expect(more).toMatch(
      new RegExp(`^\\| \\(${(3000 - groups.length).toLocaleString('en-US')} more groups: all of them in --format json, csv or html\\) \\|`),
    );
    const count = (l: string): number => Number(l.split('|')[2]!.replace(/[*,\s]/g, ''));
    expect([...groups, more].reduce((n, l) => n + count(l), 0)).toBe(3000);
    expect(count(lines.at(-1)!)).toBe(3000);
    // A few groups are whole, as before.
    const few = await kprof(['summary', file, '--by', 'name', '--format', 'markdown', '--top', '5']);
    expect(few.stdout).toContain('| (2,995 more groups) |');
  });
});
