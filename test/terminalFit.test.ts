// Tables and check lines on a terminal are fitted to its width (report/render.ts fitTable, check/text.ts); pipes
// and files get the whole output as before.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../src/cli/run.js';
import { fitTable, middleCut, wrapWords } from '../src/report/render.js';
import { kprof, REAL, ROOT, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

async function tty(args: string[], columns: number): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    stdout: (s) => {
      stdout += s;
    },
    stderr: (s) => {
      stderr += s;
    },
    env: { NO_COLOR: '1' },
    stdoutIsTTY: true,
    stderrIsTTY: false,
    stdoutColumns: columns,
    cwd: ROOT,
  });
  return { code, stdout, stderr };
}

const DIFF = ['diff', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr', '--rewrites', 'off'];
const SUMMARY = ['summary', 'fixtures/fusion-example/base'];

/** The table's lines: from its header to its footer. */
function tableLines(out: string): string[] {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => /^(type|name)\s/.test(l));
  const end = lines.findIndex((l, i) => i > start && l.startsWith('total'));
  return lines.slice(start, end + 1);
}

describe('terminal width', () => {
  for (const columns of [60, 80]) {
    it(`fits the diff and summary tables to ${columns} columns and says what it left out`, async () => {
      for (const args of [DIFF, SUMMARY]) {
        const r = await tty(args, columns);
        expect(r.code).toBe(0);
        const t = tableLines(r.stdout);
        expect(t.length).toBeGreaterThan(5);
        for (const l of t) expect(l.length).toBeLessThan(columns);
        expect(r.stderr).toMatch(new RegExp(`kprof: note: fitted to ${columns} columns .*--wide shows everything`));
      }
    });
  }

  it('leaves a table that fits as it is, with no note, and pipes byte for byte as before', async () => {
    for (const args of [DIFF, SUMMARY]) {
      // Wide enough for its longest line, the "Compared …" sentence (prose longer than the terminal is wrapped).
      const wide = await tty(args, 1000);
      const piped = await kprof(args);
      expect(wide.stdout).toBe(piped.stdout);
      expect(wide.stderr).not.toMatch(/fitted to/);
      expect((await tty([...args, '--wide'], 60)).stdout).toBe(piped.stdout);
    }
  });

  it('wraps the prose of a diff and a summary (headline, rewrites, "Compared") to the terminal, every word kept', async () => {
    const withRewrites = ['diff', 'fixtures/fusion-example/base', 'fixtures/fusion-example/pr'];
    for (const columns of [60, 80])
      for (const args of [withRewrites, SUMMARY]) {
        const r = await tty(args, columns);
        const piped = await kprof(args);
        expect(r.code).toBe(0);
        for (const l of r.stdout.split('\n')) expect(l.length, l).toBeLessThan(columns);
        // A rewrite's chain wraps at its own separators, within the width: no line starts with one.
        expect(r.stdout.split('\n').filter((l) => /^\s*·/.test(l))).toEqual([]);
        const words = (s: string): string[] => s.split(/\s+/).filter((w) => w !== '');
        // The table lost columns and cut names to fit; below and above it, nothing was lost.
        const prose = (out: string): string[] =>
          words(
            out
              .split('\n')
              .filter((l) => !/\S {2,}\S.* {2,}\S/.test(l) && !/^─/.test(l))
              .join(' '),
          );
        expect(prose(r.stdout)).toEqual(prose(piped.stdout));
      }
  });

  it('wraps check lines under their status at 60 columns, every word kept', async () => {
    const args = [
      'check',
      'fixtures/fusion-example/pr',
      '--base',
      'fixtures/fusion-example/base',
      '--rules',
      'fixtures/fusion-example/kprof.rules.yaml',
    ];
    const r = await tty(args, 60);
    const piped = await kprof(args);
    expect(r.code).toBe(piped.code);
    for (const l of r.stdout.split('\n').filter((l) => /^(pass|FAIL|fail|warn) /.test(l) || l.startsWith('      ')))
      expect(l.length).toBeLessThan(60);
    const words = (s: string): string[] => s.split(/\s+/).filter((w) => w !== '');
    expect(words(r.stdout).join(' ')).toBe(words(piped.stdout).join(' '));
  });
});

describe('terminal width, names of wide characters', () => {
  /** The columns a terminal shows a line in (a CJK character takes two), as cli-table3 pads cells. */
  const columnsOf = (createRequire(import.meta.url)('cli-table3/src/utils.js') as { strlen(s: string): number }).strlen;

  it('fits a table whose names hold wide characters to the columns they take, not to their length', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-wide-'));
    try {
      let t = 1_764_246_877_000_000;
      const names = [...Array.from({ length: 4 }, (_, i) => `融合注意力算子_${'前向计算'.repeat(6)}${i}`), `aclnnMatmul_${'x'.repeat(40)}`];
      const rows = [1, 2].flatMap((s) => names.map((n) => `${s},${n},MatMul,AI_CORE,${((t += 11)).toFixed(3)},10.000`));
      writeFileSync(join(dir, 'kernel_details.csv'), `Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n${rows.join('\n')}\n`);
      for (const columns of [60, 80, 100]) {
        const r = await tty(['summary', dir, '--by', 'name'], columns);
        expect(r.code).toBe(0);
        const lines = tableLines(r.stdout);
        expect(lines.length).toBe(9);
        for (const l of lines) expect(columnsOf(l)).toBeLessThan(columns);
        // Each name still shows its start and its own end (the names differ at their last character).
        for (let i = 0; i < 4; i++) expect(lines.some((l) => l.startsWith('融合') && l.includes(`…`) && l.includes(`算${i} `))).toBe(true);
        expect(r.stderr).toMatch(/names shortened/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tells apart names of wide characters that the cut made alike, in the columns they have', () => {
    // Alike but for their middle: cut in the middle, they come out alike, and are shown where they differ instead.
    const names = [0, 1, 2, 3].map((i) => `融合${'前向计算'.repeat(5)}${i}${'反向传播'.repeat(5)}`);
    for (const width of [40, 60, 80]) {
      const fit = { width, cut: [] as string[] };
      const t = fitTable(
        fit,
        ['name', 'count'],
        names.map((n) => [n, '1']),
        ['left', 'right'],
        undefined,
        [],
      );
      const shown = t.rows.map((r) => r[0]!);
      expect(new Set(shown).size).toBe(4);
      for (const [i, s] of shown.entries()) {
        expect(columnsOf(s)).toBeLessThanOrEqual(width - 1 - 2 - 5);
        expect(s).toContain(`${i}`);
      }
    }
  });

  it('middleCut cuts a name of wide characters to the columns it is given', () => {
    const name = `融合${'前向计算'.repeat(10)}_end`;
    for (let w = 5; w < 40; w++) {
      const c = middleCut(name, w);
      expect(columnsOf(c)).toBeLessThanOrEqual(w);
      expect(c.endsWith('d')).toBe(true);
    }
  });
});

describe('middleCut and wrapWords', () => {
  it('keeps the start and the end of a long name and never cuts an escape', () => {
    const a = `void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<AddFunctor<float>>>(int)`;
    const b = a.replace('AddFunctor', 'MulFunctor').replace('(int)', '(long)');
    expect(middleCut(a, 30)).toHaveLength(30);
    expect(middleCut(a, 30)).not.toBe(middleCut(b, 30));
    const hostile = `${'\\x1b'.repeat(20)}[31mred${'\\u202e'.repeat(10)}`;
    for (let w = 5; w < 40; w++) {
      const c = middleCut(hostile, w);
      expect(c.length).toBeLessThanOrEqual(w);
      // Every backslash still starts a whole escape.
      expect(c.replace(/\\x[0-9a-f]{2}|\\u[0-9a-f]{4}/g, '')).not.toContain('\\');
    }
  });

  it('fitTable shortens the names and reports it', () => {
    const fit = { width: 50, cut: [] as string[] };
    const long = 'k'.repeat(30) + 'END';
    const t = fitTable(fit, ['name', 'count'], [[long, '1']], ['left', 'right'], undefined, []);
    expect(t.rows[0]![0]).toBe(long);
    expect(fit.cut).toEqual([]);
    const narrow = { width: 20, cut: [] as string[] };
    const n = fitTable(narrow, ['name', 'count'], [[long, '1']], ['left', 'right'], undefined, []);
    expect(n.rows[0]![0]).toMatch(/^k+…k*END$/);
    expect(narrow.cut).toContain('names shortened');
  });

  it('wrapWords breaks long words between escapes only', () => {
    const lines = wrapWords(`rule: ${'ab\\x1b'.repeat(10)} done`, 12);
    for (const l of lines) {
      expect(l.length).toBeLessThanOrEqual(12);
      expect(l).not.toMatch(/\\(?!x1b)/);
    }
    expect(lines.join('').replace(/ /g, '')).toBe(`rule:${'ab\\x1b'.repeat(10)}done`);
  });
});

describe.skipIf(!HAS_REAL)('terminal width on a real kineto trace', () => {
  it('shortens the CUDA kernel names to 80 columns and suggests --short-names', async () => {
    const r = await tty(['summary', `${REAL}/hta-kineto/alexnet`, '--top', '8'], 80);
    expect(r.code).toBe(0);
    for (const l of tableLines(r.stdout)) expect(l.length).toBeLessThan(80);
    expect(r.stderr).toMatch(/names shortened/);
    expect(r.stderr).toMatch(/--short-names drops (the|their) template arguments/);
    const short = await tty(['summary', `${REAL}/hta-kineto/alexnet`, '--top', '8', '--short-names'], 80);
    expect(short.stderr).not.toMatch(/--short-names drops/);
  });
});
