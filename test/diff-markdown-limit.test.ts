// The Markdown diff goes into a pull request comment: it stays under GitHub's 65,536-character limit whatever
// the number of groups, folds the rows after the first 50 into a <details> table, and says how many it left out,
// with figures that still add up to the totals.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DIFF_MARKDOWN_MARKER, MARKDOWN_LIMIT, MARKDOWN_TABLE_ROWS } from '../src/report/diff/markdown.js';
import { MAX_DISAGREE_GROUPS } from '../src/report/diff/shared.js';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-mdlimit-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HEADER = 'Step Id,Name,Type,Accelerator Core,Duration(us)\n';

/** A long name that tries everything a comment could be broken by (quoted for CSV). */
function hostile(i: number): string {
  const name = `k${String(i).padStart(5, '0')}</details><!-- x --> | \`tick\` @team [a](http://x) <script>alert(1)</script> ${'w'.repeat(150)}`;
  return `"${name.replace(/"/g, '""')}"`;
}

function write(file: string, rows: string[]): string {
  const p = join(tmp, file);
  writeFileSync(p, HEADER + rows.join(''));
  return p;
}

/** Figures of a table row: base count, PR count, Δ count (counts are the text before the bracket). */
function counts(line: string): [number, number, number] {
  const cells = line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((c) => c.trim().replace(/\*\*/g, ''));
  const n = (c: string): number => Number(c.split(' ')[0]!.replace(/,/g, ''));
  return [n(cells[1]!), n(cells[2]!), n(cells[3]!)];
}

describe('Markdown diff of thousands of groups with long hostile names', () => {
  const N = 3_000;
  const base = write(
    'base.csv',
    Array.from({ length: N }, (_, i) => `1,${hostile(i)},T,AI_CORE,${(i % 9) + 1}\n`.repeat(1 + (i % 3))),
  );
  const pr = write(
    'pr.csv',
    Array.from({ length: N + 500 }, (_, i) => `1,${hostile(i)},T,AI_CORE,${(i % 9) + 1}\n`.repeat(1 + ((i + 1) % 3))),
  );

  it('stays under the comment limit, folds the rest into <details>, and adds up', async () => {
    const r = await kprof(['diff', base, pr, '--by', 'name', '--format', 'markdown']);
    expect(r.code).toBe(0);
    const md = r.stdout;
    expect(md.length).toBeLessThan(MARKDOWN_LIMIT);
    expect(md.startsWith(`${DIFF_MARKDOWN_MARKER}\n`)).toBe(true);
    // Our own <details> open and close once each: every name's `</details>` is inside a code span.
    const lines = md.split('\n');
    expect(lines.filter((l) => l.startsWith('<details>'))).toHaveLength(1);
    expect(lines.filter((l) => l === '</details>')).toHaveLength(1);
    expect(lines.filter((l) => /^\| `/.test(l) || /^\| ``/.test(l)).length).toBeGreaterThan(MARKDOWN_TABLE_ROWS);
    // The main table: 50 rows, a row for the folded ones, then the totals, which they add up to.
    const main = lines.slice(lines.findIndex((l) => l.startsWith('|:---')) + 1, lines.findIndex((l) => l.startsWith('| **total**')) + 1);
    expect(main).toHaveLength(MARKDOWN_TABLE_ROWS + 2);
    expect(main[MARKDOWN_TABLE_ROWS]).toMatch(/^\| \(3,450 more groups, in the table below\) \|/);
    const total = counts(main[main.length - 1]!);
    const sum = main
      .slice(0, -1)
      .map(counts)
      .reduce((a, c) => [a[0] + c[0], a[1] + c[1], a[2] + c[2]], [0, 0, 0]);
    expect(sum).toEqual(total);
    // The folded table ends with the groups that did not fit, summed; with it, it adds up to the folded row.
    const start = lines.indexOf('<details><summary>3,450 more groups</summary>');
    expect(start).toBeGreaterThan(0);
    const end = lines.indexOf('</details>');
    const folded = lines.slice(start + 4, end - 1);
    const last = folded[folded.length - 1]!;
    expect(last).toMatch(/^\| \(and [\d,]+ more groups: all of them in --format json or html\) \|/);
    const foldedSum = folded.map(counts).reduce((a, c) => [a[0] + c[0], a[1] + c[1], a[2] + c[2]], [0, 0, 0]);
    expect(foldedSum).toEqual(counts(main[MARKDOWN_TABLE_ROWS]!));
    // Nothing from a name starts a line or escapes its code span.
    for (const l of lines.slice(1)) expect(l).not.toMatch(/^(<script|<!--|@team)/);
    expect(md.endsWith('shown as ~.\n')).toBe(true);
  });

  it('a diff of 50 groups or fewer has no <details>', async () => {
    const small = write(
      'small.csv',
      Array.from({ length: 40 }, (_, i) => `1,${hostile(i)},T,AI_CORE,1\n`),
    );
    const r = await kprof(['diff', small, pr, '--by', 'name', '--format', 'markdown', '--top', '40']);
    expect(r.stdout).not.toContain('<details>');
    expect(r.stdout.length).toBeLessThan(MARKDOWN_LIMIT);
  });
});

describe('Markdown diff of groups that all changed differently across ranks', () => {
  /** Two ranks: every group halved on rank 0 only, so each is listed as changed differently across ranks. */
  function side(name: string, pr: boolean): string {
    for (const rank of [0, 1]) {
      const dir = join(tmp, name, `rank_${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
      mkdirSync(dir, { recursive: true });
      const rows = Array.from({ length: 600 }, (_, i) => `1,${hostile(i)},T,AI_CORE,1\n`.repeat(pr && rank === 0 ? 1 : 2));
      writeFileSync(join(dir, 'kernel_details.csv'), HEADER + rows.join(''));
    }
    return join(tmp, name);
  }

  it('lists the first 20 groups that changed differently across ranks, then how many more, in every text format', async () => {
    // Every one of the 600 groups differs across ranks: the table printed 600 lines of them below a --top 5 table.
    const args = ['diff', side('lists-base', false), side('lists-pr', true), '--by', 'name'];
    const table = (await kprof([...args, '--top', '5'])).stdout.split('\n');
    const title = table.findIndex((l) => l.startsWith('* Changed differently across ranks'));
    const list = table.slice(title + 1, table.indexOf('', title + 1));
    expect(list).toHaveLength(MAX_DISAGREE_GROUPS + 1);
    expect(list.at(-1)).toBe('  and 580 more groups (all of them in --format json)');
    const md = (await kprof([...args, '--format', 'markdown'])).stdout;
    expect(md).toContain('\n- and 580 more groups (all of them in --format json)\n');
    const json = JSON.parse((await kprof([...args, '--format', 'json'])).stdout);
    expect(json.rows.filter((r: { disagreeingRanks: unknown[] }) => r.disagreeingRanks.length > 0)).toHaveLength(600);
  });
});

describe('Markdown diff whose list of uneven steps fills the comment', () => {
  /**
   * Nine ranks of 12 steps, 60 groups of long names: the base runs each 6 times a step, the PR s times in step s,
   * so every group's steps differ on every rank, each step its own change (lines of a few hundred characters).
   */
  function side(name: string, pr: boolean): string {
    for (let rank = 0; rank < 9; rank++) {
      const dir = join(tmp, name, `rank_${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
      mkdirSync(dir, { recursive: true });
      const rows: string[] = [];
      for (let step = 1; step <= 12; step++)
        for (let i = 0; i < 60; i++) rows.push(`${step},g${String(i).padStart(3, '0')}_${'v'.repeat(100)},T,AI_CORE,1\n`.repeat(pr ? step : 6));
      writeFileSync(join(dir, 'kernel_details.csv'), HEADER + rows.join(''));
    }
    return join(tmp, name);
  }
  const diff = async () => {
    const r = await kprof(['diff', side('steps-base', false), side('steps-pr', true), '--by', 'name', '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeLessThan(MARKDOWN_LIMIT);
    return r.stdout.split('\n');
  };

  it('counts the lines it cut apart from the groups the list had already left out', async () => {
    const lines = await diff();
    const title = lines.findIndex((l) => l.startsWith('**Changed differently across steps'));
    expect(title).toBeGreaterThan(0);
    const list = lines.slice(title + 2, lines.indexOf('', title + 2));
    const shown = list.filter((l) => l.startsWith('- `')).length;
    // The first 20 groups have 9 lines each (8 ranks, then `and 1 more rank`); the other 40 groups were one line
    // saying so, which is no line of the list.
    expect(shown).toBeLessThan(180);
    expect(list.at(-1)).toBe(`- and ${180 - shown} more lines; and 40 more groups (all of them in --format json)`);
  });

  it('writes no <details> that holds no group, and says where the folded rows are', async () => {
    const lines = await diff();
    // The folded rows do not fit after that list: the table's row of them points to JSON and HTML, with no fold
    // that opened on their sum alone (`<details><summary>10 more groups</summary>` over one `(and 10 more …)` row).
    // Where the rows left fit one group or more, a fold holds them; the rest point to JSON and HTML.
    expect(lines.filter((l) => l.startsWith('| (') && l.includes('more groups: all of them in --format json or html) |'))).toHaveLength(1);
    lines.forEach((l, i) => {
      if (!l.startsWith('<details><summary>') || !l.includes('more group')) return;
      const fold = lines.slice(i + 1, lines.indexOf('</details>', i));
      expect(fold.some((r) => r.startsWith('| `'))).toBe(true);
    });
  });
});
