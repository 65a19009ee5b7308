// Damaged and wrong input (fixtures/bad-*): kprof never crashes, says exactly what is wrong, and keeps every
// number honest. Unusable input exits 2 with one message naming the file (and line), what was expected, what was
// found and what to do; unreadable rows are `file:line` warnings, counted in the report's skippedRows, and
// `--strict` turns them into exit 2. Transcripts: test/transcripts/bad-*.md.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { strictCheck } from '../src/commands/summary.js';
import { isKprofError } from '../src/util/errors.js';
import { writeFileAtomic } from '../src/util/io.js';
import { readProfile } from '../src/input/read.js';
import { relPath } from '../src/util/paths.js';
import { expectTranscript, kprof, ROOT, type Result } from './helpers.js';

const F = (path: string): string => `fixtures/${path}`;
const HEADER = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';
const ROW = '1,aclnnAdd_AddAiCore_Add,Add,AI_VECTOR_CORE,1736408883704770.000,3.25,1.1,8';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-bad-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** No crash, no stack trace: an input problem is exit 0 (with warnings) or exit 2 (with one message). */
function expectNoCrash(r: Result): void {
  expect(r.stderr).not.toMatch(/internal error/);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect([0, 2]).toContain(r.code);
}

/** Exit 2, nothing on stdout, exactly one line on stderr: `kprof: <message>`. */
function expectOneError(r: Result, message: string): void {
  expectNoCrash(r);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(`kprof: ${message}\n`);
}

interface Counts {
  rowsRead: number;
  kernels: number;
  skipped: number;
}

/** The summary JSON's counts, and the invariant: rows read = kernels grouped + filtered + skipped. */
async function summaryCounts(path: string): Promise<Counts> {
  const r = await kprof(['summary', path, '--format', 'json']);
  expect(r.code).toBe(0);
  const j = JSON.parse(r.stdout) as { rowsRead: number; skippedRows: number; filteredKernels: number; totals: { count: number } };
  expect(j.rowsRead).toBe(j.totals.count + j.filteredKernels + j.skippedRows);
  return { rowsRead: j.rowsRead, kernels: j.totals.count, skipped: j.skippedRows };
}

/** Per rank of a kernel table: rows read = kernels + rows skipped, in the data the readers hand on. */
async function expectRankInvariant(path: string): Promise<void> {
  const p = await readProfile(resolve(ROOT, path), { withShapes: false, ranks: null });
  for (const r of p.ranks) {
    expect(r.rowsRead).toBe(r.kernels + r.rowsSkipped);
    expect(r.files.reduce((n, f) => n + f.rowsSkipped, 0)).toBe(r.rowsSkipped);
  }
}

describe('damaged rows are skipped with a file:line warning and counted', () => {
  const cases: { name: string; path: string; counts: Counts; warnings: string[]; note?: string }[] = [
    {
      name: 'bad-truncated-last-row',
      path: F('bad-truncated-last-row/kernel_details.csv'),
      counts: { rowsRead: 4, kernels: 3, skipped: 1 },
      warnings: [
        'fixtures/bad-truncated-last-row/kernel_details.csv:5: the file ends in the middle of this row (5 of 8 cells): it was cut short, e.g. by a profiler stopped while writing or a partial copy; row skipped',
      ],
    },
    {
      name: 'bad-ragged-rows',
      path: F('bad-ragged-rows/kernel_details.csv'),
      counts: { rowsRead: 4, kernels: 2, skipped: 2 },
      warnings: [
        'fixtures/bad-ragged-rows/kernel_details.csv:3: row has 6 cells, the header has 8; row skipped',
        'fixtures/bad-ragged-rows/kernel_details.csv:4: row has 9 cells, the header has 8; row skipped',
      ],
    },
    {
      name: 'bad-unbalanced-quotes',
      path: F('bad-unbalanced-quotes/kernel_details.csv'),
      counts: { rowsRead: 5, kernels: 3, skipped: 2 },
      warnings: [
        'fixtures/bad-unbalanced-quotes/kernel_details.csv:3: text after a closing quote; row skipped',
        'fixtures/bad-unbalanced-quotes/kernel_details.csv:5: a quote opened on this line is never closed; line skipped',
      ],
    },
    {
      name: 'bad-durations',
      path: F('bad-durations/kernel_details.csv'),
      counts: { rowsRead: 5, kernels: 2, skipped: 3 },
      warnings: [
        'fixtures/bad-durations/kernel_details.csv:3: Duration(us) is "fast", expected a number of µs; row skipped',
        'fixtures/bad-durations/kernel_details.csv:4: Duration(us) is negative (-119.5); row skipped',
        'fixtures/bad-durations/kernel_details.csv:5: Duration(us) is "", expected a number of µs; row skipped',
      ],
    },
    {
      name: 'bad-na-numbers',
      path: F('bad-na-numbers/kernel_details.csv'),
      counts: { rowsRead: 4, kernels: 2, skipped: 2 },
      warnings: [
        'fixtures/bad-na-numbers/kernel_details.csv:3: Duration(us) is "N/A", expected a number of µs; row skipped',
        'fixtures/bad-na-numbers/kernel_details.csv:4: Step Id is "N/A", expected an integer; row skipped',
      ],
      note: 'Type is N/A for 1 of 2 kernels (a Level0 export writes no types): grouped by type, they are one N/A row; --by name shows them apart.',
    },
    {
      name: 'bad-repeated-header',
      path: F('bad-repeated-header/kernel_details.csv'),
      counts: { rowsRead: 5, kernels: 4, skipped: 1 },
      warnings: ['fixtures/bad-repeated-header/kernel_details.csv:4: the header is repeated here (files joined together?); row skipped'],
    },
    {
      name: 'bad-other-header',
      path: F('bad-other-header/kernel_details.csv'),
      counts: { rowsRead: 5, kernels: 2, skipped: 3 },
      warnings: [
        'fixtures/bad-other-header/kernel_details.csv:4: a different header (7 columns) starts here: files of two exports joined together? Row skipped; the rows below it are read only where they match the first header (8 columns)',
        'fixtures/bad-other-header/kernel_details.csv:5: row has 7 cells, the header has 8; row skipped',
        'fixtures/bad-other-header/kernel_details.csv:6: row has 7 cells, the header has 8; row skipped',
      ],
    },
  ];

  for (const c of cases) {
    it(`${c.name}: exit 0, ${c.counts.skipped} skipped, every warning names file:line`, async () => {
      const r = await expectTranscript(c.name, ['summary', c.path]);
      expectNoCrash(r);
      expect(r.code).toBe(0);
      const n = c.counts.skipped;
      expect(r.stderr).toBe(
        c.warnings.map((w) => `kprof: warning: ${w}\n`).join('') +
          `kprof: ${n} row${n === 1 ? '' : 's'} could not be read and ${n === 1 ? 'was' : 'were'} skipped (counted in the report's skipped rows).\n` +
          (c.note !== undefined ? `kprof: note: ${c.note}\n` : ''),
      );
      expect(r.stdout).toContain(`${n} row${n === 1 ? '' : 's'} skipped`);
      expect(await summaryCounts(c.path)).toEqual(c.counts);
      await expectRankInvariant(c.path);
    });

    it(`${c.name}: --strict makes the skipped rows exit 2 and writes no report`, async () => {
      const out = join(tmp, `${c.name}.json`);
      const r = await kprof(['summary', c.path, '--strict', '--format', 'json', '--out', out]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const n = c.counts.skipped;
      expect(r.stderr.split('\n').at(-2)).toBe(
        `kprof: --strict: ${n} row${n === 1 ? '' : 's'} could not be read (see the warnings above); no report written.`,
      );
      expect(existsSync(out)).toBe(false);
    });
  }

  it('bad-statistic-rows: op_statistic rows are checked the same way; a row stands for Count kernels', async () => {
    const path = F('bad-statistic-rows/op_statistic.csv');
    const r = await expectTranscript('bad-statistic-rows', ['summary', path, '--by', 'type+core']);
    expect(r.code).toBe(0);
    const w = (line: number, message: string): string => `kprof: warning: ${path}:${line}: ${message}\n`;
    expect(r.stderr).toBe(
      w(3, 'Count is "many", expected a whole number; row skipped') +
        w(4, 'Total Time(us) is negative (-40.0); row skipped') +
        w(5, 'the header is repeated here (files joined together?); row skipped') +
        w(6, 'a quote opened on this line is never closed; line skipped') +
        w(7, 'row has 4 cells, the header has 8; row skipped') +
        "kprof: 5 rows could not be read and were skipped (counted in the report's skipped rows).\n",
    );
    const j = JSON.parse((await kprof(['summary', path, '--format', 'json'])).stdout);
    expect([j.rowsRead, j.skippedRows, j.totals.count]).toEqual([7, 5, 60]);
    expect((await kprof(['summary', path, '--strict'])).code).toBe(2);
  });

  it('inspect shows rows read and skipped per file, and the first warning', async () => {
    const r = await expectTranscript('bad-inspect-ragged-rows', ['inspect', F('bad-ragged-rows/kernel_details.csv')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  rows     4 read, 2 skipped\n');
    expect(r.stdout).toContain(
      '  warnings 2 (first: fixtures/bad-ragged-rows/kernel_details.csv:3: row has 6 cells, the header has 8; row skipped)\n',
    );
  });

  it('many bad rows: the first five warnings, then a count', async () => {
    const path = join(tmp, 'many-bad.csv');
    const bad = Array.from({ length: 12 }, (_, i) => `1,k${i},Add,AI_CORE,1736408883704770.000,oops,0,8`);
    writeFileSync(path, [HEADER, ROW, ...bad, ROW, ''].join('\n'));
    const r = await kprof(['summary', path]);
    expect(r.code).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[0]).toMatch(/many-bad\.csv:3: Duration\(us\) is "oops", expected a number of µs; row skipped$/);
    expect(lines[4]).toMatch(/many-bad\.csv:7: /);
    expect(lines[5]).toBe('kprof: warning: … and 7 more');
    expect(lines[6]).toBe("kprof: 12 rows could not be read and were skipped (counted in the report's skipped rows).");
    expect(await summaryCounts(path)).toEqual({ rowsRead: 14, kernels: 2, skipped: 12 });
  });

  it('counts thousands of bad rows with a thousands separator, as every count', async () => {
    const path = join(tmp, 'thousands-bad.csv');
    const bad = Array.from({ length: 2500 }, (_, i) => `1,k${i},Add,AI_CORE,1736408883704770.000,oops,0,8`);
    writeFileSync(path, [HEADER, ROW, ...bad, ''].join('\n'));
    const lines = (await kprof(['summary', path])).stderr.trimEnd().split('\n');
    expect(lines[5]).toBe('kprof: warning: … and 2,495 more');
    expect(lines[6]).toBe("kprof: 2,500 rows could not be read and were skipped (counted in the report's skipped rows).");
  });
});

describe('odd but valid input is read in full, with no warning', () => {
  const cases: [string, string, Counts][] = [
    ['bad-bom', F('bad-bom/kernel_details.csv'), { rowsRead: 2, kernels: 2, skipped: 0 }],
    ['bad-mixed-line-endings', F('bad-mixed-line-endings/kernel_details.csv'), { rowsRead: 4, kernels: 4, skipped: 0 }],
    ['bad-empty-step-id', F('bad-empty-step-id/kernel_details.csv'), { rowsRead: 4, kernels: 4, skipped: 0 }],
  ];
  for (const [name, path, counts] of cases) {
    it(name, async () => {
      const r = await expectTranscript(name, ['summary', path]);
      expectNoCrash(r);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(await summaryCounts(path)).toEqual(counts);
      await expectRankInvariant(path);
    });
  }

  it('a BOM does not end up in the first column name: Step Id is still found', async () => {
    const r = await kprof(['inspect', F('bad-bom/kernel_details.csv'), '--format', 'json']);
    const j = JSON.parse(r.stdout) as { ranks: { files: { columns: string[] }[]; steps: number[] }[] };
    expect(j.ranks[0]!.files[0]!.columns[0]).toBe('Step Id');
    expect(j.ranks[0]!.steps).toEqual([1]);
  });

  it('empty Step Id cells: the kernels count in the totals, not in any step, and inspect says how many', async () => {
    const r = await expectTranscript('bad-inspect-empty-step-id', ['inspect', F('bad-empty-step-id/kernel_details.csv')]);
    expect(r.stdout).toContain('  steps    2 (1-2); 2 rows with an empty Step Id\n');
    const j = JSON.parse((await kprof(['summary', F('bad-empty-step-id/kernel_details.csv'), '--format', 'json'])).stdout);
    const add = j.groups.find((g: { key: string }) => g.key === 'Add');
    expect(add.count).toBe(2);
    expect(add.byStep).toEqual([]);
    // Asking for steps leaves them out, and counts them as filtered.
    const s = JSON.parse((await kprof(['summary', F('bad-empty-step-id/kernel_details.csv'), '--steps', '1-2', '--format', 'json'])).stdout);
    expect(s.totals.count).toBe(2);
    expect(s.filteredKernels).toBe(2);
    expect(s.rowsRead).toBe(s.totals.count + s.filteredKernels + s.skippedRows);
  });

  it('a 10 MB cell (quoted, with commas and line breaks) is read; a 10 MB unclosed quote is one skipped line', async () => {
    const big = 'x,y\n'.repeat((10 << 20) / 4);
    const quoted = join(tmp, 'big-cell.csv');
    writeFileSync(quoted, [HEADER, ROW, `1,BigKernel,Big,AI_CORE,1736408883704780.000,2,"${big}",8`, ROW, ''].join('\n'));
    expect(await summaryCounts(quoted)).toEqual({ rowsRead: 3, kernels: 3, skipped: 0 });
    const json = JSON.parse((await kprof(['summary', quoted, '--format', 'json'])).stdout);
    expect(json.groups.map((g: { key: string; count: number }) => [g.key, g.count])).toEqual([
      ['Add', 2],
      ['Big', 1],
    ]);
    // As a kernel name, 10 MB is past the 64 KiB a name may have: that row is skipped (test/name-cap.test.ts).
    const named = join(tmp, 'big-name.csv');
    writeFileSync(named, [HEADER, ROW, `1,"${big}",Big,AI_CORE,1736408883704780.000,2,0,8`, ROW, ''].join('\n'));
    expect(await summaryCounts(named)).toEqual({ rowsRead: 3, kernels: 2, skipped: 1 });

    const unclosed = join(tmp, 'big-unclosed.csv');
    writeFileSync(unclosed, [HEADER, ROW, `1,"${'x'.repeat(10 << 20)}`, ROW, ''].join('\n'));
    const r = await kprof(['summary', unclosed]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/big-unclosed\.csv:3: a quote opened on this line is never closed; line skipped\n/);
    expect(r.stderr.length).toBeLessThan(1000);
    expect(await summaryCounts(unclosed)).toEqual({ rowsRead: 3, kernels: 2, skipped: 1 });

    // A 10 MB header cell: the message quotes 40 characters of it, not 10 MB.
    const header = join(tmp, 'big-header.csv');
    writeFileSync(header, `${'h'.repeat(10 << 20)},b\n1,2\n`);
    const e = await kprof(['summary', header]);
    expect(e.code).toBe(2);
    expect(e.stderr).toBe(
      `kprof: ${header}: unknown CSV format; found columns: ${'h'.repeat(40)}…, b. Expected a torch_npu kernel_details.csv ` +
        `("Name,Type,…,Duration(us)"), an msprof op_summary_*.csv ("Op Name,OP Type,…,Task Duration(us)") or an ` +
        `op_statistic*.csv ("OP Type,Core Type,Count,Total Time(us),…"); pass one of those, or the profile folder that holds them.\n`,
    );
  });
});

describe('unusable input: exit 2 and one message, no stack trace', () => {
  const cases: [string, string[], string][] = [
    [
      'bad-empty-file',
      ['summary', F('bad-empty-file/kernel_details.csv')],
      'fixtures/bad-empty-file/kernel_details.csv: the file is empty (0 bytes); expected a CSV export that starts with a header row. Was the profiler stopped before it wrote its output? Export the profile again.',
    ],
    [
      'bad-header-only',
      ['summary', F('bad-header-only/kernel_details.csv')],
      'fixtures/bad-header-only/kernel_details.csv: no kernel rows: fixtures/bad-header-only/kernel_details.csv has a header but no data. Expected at least one kernel row; was the profile collected with NPU activities on?',
    ],
    [
      'bad-binary',
      ['summary', F('bad-binary/kernel_details.csv')],
      'fixtures/bad-binary/kernel_details.csv: the file holds binary data, not CSV text (found a NUL byte at byte 7). Expected a CSV export with a header row; is the file damaged? Copy it again or export the profile again.',
    ],
    [
      'bad-trace-json',
      ['summary', F('bad-trace-json/trace_view.json')],
      'fixtures/bad-trace-json/trace_view.json: byte 200: the file ends inside trace event 1 (which starts at byte 96): the file is cut short. Expected a complete Chrome-trace JSON file (PyTorch profiler *.pt.trace.json or torch_npu trace_view.json); copy or export it again.',
    ],
    [
      'bad-json-as-csv',
      ['summary', F('bad-json-as-csv/kernel_details.csv')],
      'fixtures/bad-json-as-csv/kernel_details.csv: the file is JSON, not a CSV export (a trace is read as one when its name says JSON: trace_view.json or a PyTorch kineto trace (*.pt.trace.json[.gz])). Pass kernel_details.csv, op_summary_*.csv, op_statistic*.csv, ascend_pytorch_profiler*.db / msprof_*.db, trace_view.json, a kprof summary JSON (*.json), a PyTorch kineto trace (*.pt.trace.json[.gz]), an nsys stats cuda_gpu_trace CSV (*cuda_gpu_trace.csv), an nsys stats cuda_gpu_kern_sum CSV (*cuda_gpu_kern_sum.csv), or the profile folder.',
    ],
    [
      'bad-xlsx',
      ['summary', F('bad-xlsx/kernel_details.xlsx')],
      "fixtures/bad-xlsx/kernel_details.xlsx: the file is a ZIP archive or an XLSX workbook, not a CSV export. Save the sheet as CSV (or unzip the archive), or pass the profiler's own kernel_details.csv.",
    ],
    [
      'bad-unrelated-csv',
      ['summary', F('bad-unrelated-csv/inventory.csv')],
      'fixtures/bad-unrelated-csv/inventory.csv: unknown CSV format; found columns: Name, Count, Comment. Expected a torch_npu kernel_details.csv ("Name,Type,…,Duration(us)"), an msprof op_summary_*.csv ("Op Name,OP Type,…,Task Duration(us)") or an op_statistic*.csv ("OP Type,Core Type,Count,Total Time(us),…"); pass one of those, or the profile folder that holds them.',
    ],
    [
      'bad-corrupt-gz',
      ['summary', F('bad-corrupt-gz/kernel_details.csv.gz')],
      'fixtures/bad-corrupt-gz/kernel_details.csv.gz: the gzip data ends early (cut short, e.g. a partial copy or a full disk) after 91 unpacked bytes; expected a complete gzip file. Copy the file again or export the profile again.',
    ],
    [
      'bad-no-profile',
      ['summary', F('bad-no-profile')],
      'fixtures/bad-no-profile: no profile found in this folder (looked for ASCEND_PROFILER_OUTPUT/kernel_details.csv, PROF_*/mindstudio_profiler_output/op_summary_*.csv, PROF_*/device_*/summary/op_summary_*.csv, op_statistic*.csv, ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler*.db, PROF_*/msprof_*.db, ASCEND_PROFILER_OUTPUT/trace_view.json, *cuda_gpu_trace.csv and *cuda_gpu_kern_sum.csv, up to 3 levels down, and for summary JSONs (*.json) or PyTorch kineto traces (*.json[.gz]) in the folder itself); found: run1. Pass a *_ascend_pt folder, a PROF_* folder, a folder of ranks, a folder of summary JSONs, a folder of PyTorch kineto traces, or a file.',
    ],
    [
      'bad-folder-as-file',
      ['summary', F('bad-folder-as-file')],
      'fixtures/bad-folder-as-file/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv: is a folder, expected a file. Pass the export file itself, or the profile folder that holds it.',
    ],
    [
      'bad-schema-version',
      ['summary', F('bad-schema-version/summary.json')],
      'fixtures/bad-schema-version/summary.json: summary JSON schemaVersion 99 is not supported; this kprof reads schemaVersion 1. Regenerate it with this kprof (`kprof summary <profile> --format json`).',
    ],
    [
      'bad-summary-json-cut',
      ['summary', F('bad-summary-json-cut/summary.json')],
      'fixtures/bad-summary-json-cut/summary.json:12:7: invalid JSON (the file ends too early). Expected a kprof summary JSON; was the file cut short or edited? Regenerate it with `kprof summary <profile> --format json`.',
    ],
    [
      'bad-header-quote',
      ['summary', F('bad-header-quote/kernel_details.csv')],
      'fixtures/bad-header-quote/kernel_details.csv:1: the header row has a quote that is never closed; expected a header such as "Step Id,Name,Type,…,Duration(us),…". Is the file damaged? Export it again.',
    ],
  ];
  for (const [name, args, message] of cases) {
    it(name, async () => {
      const r = await expectTranscript(name, args);
      expectOneError(r, message);
      // inspect reads the same way and fails the same way.
      if (args[0] === 'summary') expectOneError(await kprof(['inspect', ...args.slice(1)]), message);
    });
  }

  it('--debug adds the stack trace; without it there is none', async () => {
    const args = ['summary', F('bad-empty-file/kernel_details.csv')];
    expect((await kprof(args)).stderr).not.toMatch(/^\s+at /m);
    const r = await kprof([...args, '--debug']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^kprof: fixtures\/bad-empty-file\/kernel_details\.csv: the file is empty/);
    expect(r.stderr).toMatch(/^KprofError: .*\n\s+at /m);
  });

  it('a dangling symbolic link is named as one', async () => {
    const dir = join(tmp, 'dangling');
    mkdirSync(join(dir, 'rank0_ascend_pt', 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    symlinkSync('moved-away.csv', join(dir, 'link.csv'));
    const link = join(dir, 'link.csv');
    expectOneError(
      await kprof(['summary', link]),
      `${link}: a symbolic link to moved-away.csv, which does not exist. Fix the link, or pass the file or folder it should point to.`,
    );
    // The same inside a profile folder.
    const inner = join(dir, 'rank0_ascend_pt', 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv');
    symlinkSync('../../nowhere/kernel_details.csv', inner);
    expectOneError(
      await kprof(['summary', join(dir, 'rank0_ascend_pt')]),
      `${inner}: a symbolic link to ../../nowhere/kernel_details.csv, which does not exist. Fix the link, or pass the file or folder it should point to.`,
    );
  });

  it('one unusable rank of several: the message says which rank it is and the --rank that reads the others', async () => {
    const dir = join(tmp, 'one-bad-rank');
    const csvOf = (rank: number) => join(dir, `rank${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv');
    for (const rank of [0, 1, 2]) {
      mkdirSync(join(dir, `rank${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
      writeFileSync(csvOf(rank), [HEADER, ROW, ''].join('\n'));
    }
    writeFileSync(csvOf(1), ''); // the profiler of rank 1 was stopped before it wrote
    const empty = `${csvOf(1)}: the file is empty (0 bytes); expected a CSV export that starts with a header row. Was the profiler stopped before it wrote its output? Export the profile again.`;
    expectOneError(await kprof(['summary', dir]), `${empty} It is rank 1, one of 3 ranks read: --rank 0,2 reads the other 2 without it.`);
    expectOneError(
      await kprof(['diff', dir, dir, '--rank', '0,1']),
      `${empty} It is rank 1, one of 2 ranks read: --rank 0 reads the other without it.`,
    );
    // The rank asked for alone: nothing else to suggest.
    expectOneError(await kprof(['summary', dir, '--rank', '1']), empty);
    expect((await kprof(['summary', dir, '--rank', '0,2', '-q'])).code).toBe(0);
  });

  it('the --rank a message suggests is written one way: runs of three or more as A-B, in every message alike', async () => {
    const dir = join(tmp, 'one-bad-rank-of-twelve');
    const csvOf = (rank: number) => join(dir, `rank${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv');
    for (let rank = 0; rank < 12; rank++) {
      mkdirSync(join(dir, `rank${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
      writeFileSync(csvOf(rank), [HEADER, ROW, ''].join('\n'));
    }
    writeFileSync(csvOf(5), '');
    const empty = `${csvOf(5)}: the file is empty (0 bytes); expected a CSV export that starts with a header row. Was the profiler stopped before it wrote its output? Export the profile again.`;
    // 11 other ranks, two runs: named (they were left unnamed past 8 ranks, and listed one by one below that).
    expectOneError(await kprof(['summary', dir]), `${empty} It is rank 5, one of 12 ranks read: --rank 0-4,6-11 reads the other 11 without it.`);
    const d = await kprof(['diff', dir, dir, '--rank', '0-4']);
    expect(d.code).toBe(0);
    const four = join(tmp, 'four-ranks');
    for (let rank = 0; rank < 4; rank++) {
      mkdirSync(join(four, `rank${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
      writeFileSync(join(four, `rank${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), [HEADER, ROW, ''].join('\n'));
    }
    expectOneError(
      await kprof(['diff', dir, four, '--rank', '7']),
      `${four} (the PR): rank 7 not found; the input has ranks 0–3. Use --rank with ranks both sides have (--rank 0-3), or --rank all.`,
    );
  });

  const isRoot = process.getuid?.() === 0;
  if (isRoot) console.warn('NOTICE: running as root, where chmod 000 does not stop reading: the permission test is skipped.');
  it.skipIf(isRoot)('a file that cannot be read (permissions; skipped as root, where chmod 000 does not stop reading)', async () => {
    const path = join(tmp, 'locked.csv');
    writeFileSync(path, [HEADER, ROW, ''].join('\n'));
    chmodSync(path, 0o000);
    try {
      expectOneError(await kprof(['summary', path]), `${path}: permission denied. Make it readable (chmod +r) or run as a user who can read it.`);
    } finally {
      chmodSync(path, 0o644);
    }
  });

  it('a gzip that holds no CSV: binary inside, or JSON inside', async () => {
    const bin = join(tmp, 'binary.csv.gz');
    writeFileSync(bin, gzipSync(Buffer.from([0, 1, 2, 3, 4, 5, 6, 7])));
    expectOneError(
      await kprof(['summary', bin]),
      `${bin}: the file inside this gzip holds binary data, not CSV text (found a NUL byte at byte 0). Expected a CSV export with a header row; is the file damaged? Copy it again or export the profile again.`,
    );
    const empty = join(tmp, 'empty.csv.gz');
    writeFileSync(empty, gzipSync(Buffer.alloc(0)));
    expectOneError(
      await kprof(['summary', empty]),
      `${empty}: no header row; the file holds only an empty CSV once unpacked. Expected a CSV export that starts with a header row; export the profile again.`,
    );
  });

  it('a gzip followed by bytes that are not gzip: said as such, not as data damaged before any was unpacked', async () => {
    const csv = readFileSync(F('fusion-example/pr/node-07_3019544_20260312141047205_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv'));
    const joined = join(tmp, 'joined.csv.gz');
    writeFileSync(joined, Buffer.concat([gzipSync(csv), Buffer.from('JUNKJUNK')]));
    const snap = join(tmp, 'joined.json.gz');
    const json = await kprof(['summary', 'fixtures/cluster/small', '--format', 'json']);
    writeFileSync(snap, Buffer.concat([gzipSync(Buffer.from(json.stdout)), Buffer.from('<html>')]));
    for (const [file, fix] of [
      [joined, 'Copy the file again or export the profile again.'],
      [snap, 'Copy the file again or regenerate it.'],
    ] as const) {
      expectOneError(
        await kprof(['summary', file]),
        `${file}: the gzip data is followed by bytes that are not gzip data (incorrect header check): files joined together, or a copy padded? Expected a file that ends where its gzip data ends. ${fix}`,
      );
    }
  });
});

describe('an empty JSON file', () => {
  it('names both things a JSON file can be, a summary JSON or a trace (nothing in it tells them apart); a gzip of nothing is said as such, not as 0 bytes', async () => {
    for (const name of ['base.json', 'rank0.pt.trace.json', 'rank0.pt.trace.json.gz']) {
      const file = join(tmp, name);
      writeFileSync(file, name.endsWith('.gz') ? gzipSync(Buffer.alloc(0)) : '');
      expectOneError(
        await kprof(['summary', file]),
        `${file}: ${name.endsWith('.gz') ? 'the file unpacks to nothing (gzip of 0 bytes of data)' : 'the file is empty (0 bytes)'}; expected a summary JSON (the output of \`kprof summary <profile> --format json\`) or a trace (trace_view.json or a PyTorch kineto trace (*.pt.trace.json[.gz])). Was it cut short? Copy it again or regenerate it, or pass the profile itself.`,
      );
    }
  });
});

describe('a kernel export a spreadsheet saved with another separator', () => {
  it('";" or TABs: the separator is named, not a header of one column', async () => {
    const csv = readFileSync(F('fusion-example/pr/node-07_3019544_20260312141047205_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv'), 'utf8');
    for (const [sep, name, why, shown] of [
      [';', '";"', 'A spreadsheet saves CSV so in a locale that writes decimal commas.', 'Step Id;Device_id;Model ID;Task ID;Strea…'],
      ['\t', 'TABs', 'A spreadsheet saves tab-delimited text so.', 'Step Id\\x09Device_id\\x09Model ID\\x09Task…'],
    ] as const) {
      const file = join(tmp, `separated-${name.length}.csv`);
      writeFileSync(file, csv.replaceAll(',', sep));
      expectOneError(
        await kprof(['summary', file]),
        `${file}: the columns are separated by ${name}, not by commas; found the header ${shown}. ${why} Expected a CSV export separated by commas, as the profiler writes it: pass the profiler's own file, or save the sheet again as CSV with commas.`,
      );
    }
    // A file of one column that is no kernel header split otherwise is an unknown CSV, as before.
    const other = join(tmp, 'one-column.csv');
    writeFileSync(other, 'a;b;c\n1;2;3\n');
    expect((await kprof(['summary', other])).stderr).toContain(`${other}: unknown CSV format; found columns: a;b;c.`);
  });
});

describe('bad user files: groups and rules', () => {
  it('bad-groups-not-yaml: --groups with a file that is not YAML names file:line:col', async () => {
    const r = await expectTranscript('bad-groups-not-yaml', ['summary', F('bad-durations'), '--groups', F('bad-groups-not-yaml/groups.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^kprof: fixtures\/bad-groups-not-yaml\/groups\.yaml:2:1: not valid YAML or JSON: /);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('bad-rules-not-yaml: check --rules with a file that is not YAML names file:line:col, before reading the profile', async () => {
    const r = await expectTranscript('bad-rules-not-yaml', ['check', F('bad-empty-file'), '--rules', F('bad-groups-not-yaml/groups.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^kprof: fixtures\/bad-groups-not-yaml\/groups\.yaml:2:1: not valid YAML or JSON: /);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('outputs are safe to open', () => {
  const NAMES = F('bad-formula-names/kernel_details.csv');

  it('--format csv: cells that start with = + - @ are prefixed with a quote so no formula runs', async () => {
    const r = await expectTranscript('bad-formula-csv', ['summary', NAMES, '--by', 'name', '--format', 'csv']);
    expect(r.code).toBe(0);
    const cells = r.stdout
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[0]);
    expect(cells).toContain("'=cmd|' /C calc'!A0");
    expect(cells).toContain("'+SUM(A1:A9)");
    expect(cells).toContain("'-2+3+cmd|' /C calc'!A0");
    expect(cells).toContain("'@SUM(1)");
    expect(r.stdout).toContain(`"'=HYPERLINK(""http://example.invalid"",""click"")"`);
    // No line of the output starts a formula, quoted or not.
    for (const line of r.stdout.split('\n')) expect(line).not.toMatch(/^"?[=+\-@]/);
    // The numbers are not prefixed: totals stay numbers.
    expect(r.stdout).toMatch(/\n'=cmd\|' \/C calc'!A0,,'=cmd\|' \/C calc'!A0,,,,1,10,10,10,10,/);
  });

  it('--format markdown: | and line breaks in kernel names do not break the table', async () => {
    const r = await expectTranscript('bad-formula-markdown', ['summary', NAMES, '--by', 'name', '--format', 'markdown']);
    expect(r.code).toBe(0);
    const table = r.stdout.split('\n\n')[0]!.split('\n');
    // Every row has the same number of unescaped cell separators as the header.
    const seps = (l: string): number => (l.replace(/\\\\/g, '').match(/(?<!\\)\|/g) ?? []).length;
    for (const line of table) expect(seps(line)).toBe(seps(table[0]!));
    expect(r.stdout).toContain('`a\\|b`');
    expect(r.stdout).toContain('`line one\\x0aline two\\|x`');
  });

  it('--format junit: markup in kernel types and rule titles is escaped', async () => {
    const r = await expectTranscript('bad-formula-junit', [
      'check',
      NAMES,
      '--base',
      F('bad-bom'),
      '--rules',
      F('bad-formula-names/rules.yaml'),
      '--format',
      'junit',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('<Markup');
    expect(r.stdout).toContain('&lt;Markup &amp; &quot;q&quot;&gt;');
    expect(r.stdout).toContain('(&lt;b&gt;markup&lt;/b&gt; &amp; &apos;quotes&apos; in this title too)');
    // Well-formed: every tag opened is closed, in order.
    const stack: string[] = [];
    for (const m of r.stdout.matchAll(/<(\/?)([a-z]+)[^<>]*?(\/?)>/g)) {
      if (m[3] === '/') continue;
      if (m[1] === '/') expect(stack.pop()).toBe(m[2]);
      else stack.push(m[2]!);
    }
    expect(stack).toEqual([]);
  });
});

describe('a report written with --out', () => {
  it('is written chunk by chunk, every byte: short chunks and long ones, of characters of several bytes', () => {
    const dir = join(tmp, 'chunks');
    mkdirSync(dir);
    const out = join(dir, 'report.txt');
    // Chunks that fit the buffer used again, one longer than it (2 MB), and short ones after a long one.
    const chunks = ['Δ µs ─ 中文 😀\n', 'x'.repeat(70_000), 'é'.repeat(1_100_000), 'ab', '→'.repeat(300_000), '\n'];
    writeFileAtomic(out, chunks);
    expect(readFileSync(out, 'utf8')).toBe(chunks.join(''));
  });
});

describe('a failed run never leaves a half-written --out file', () => {
  it('writeFileAtomic replaces the file whole, and leaves nothing behind when it cannot', () => {
    const dir = join(tmp, 'atomic');
    mkdirSync(dir);
    const out = join(dir, 'report.txt');
    writeFileSync(out, 'old report\n');
    writeFileAtomic(out, 'new report\n');
    expect(readFileSync(out, 'utf8')).toBe('new report\n');
    expect(readdirSync(dir)).toEqual(['report.txt']);

    // The target is a folder: the rename fails, the temporary file is removed, the folder is untouched.
    mkdirSync(join(dir, 'taken'));
    let err: unknown;
    try {
      writeFileAtomic(join(dir, 'taken'), 'text');
    } catch (e) {
      err = e;
    }
    expect(isKprofError(err)).toBe(true);
    expect((err as Error).message).toBe(
      `${join(dir, 'taken')}: cannot write the report (it is a folder); nothing was written. Pass --out a file path in a folder that exists and is writable.`,
    );
    expect(readdirSync(dir).sort()).toEqual(['report.txt', 'taken']);
    expect(readdirSync(join(dir, 'taken'))).toEqual([]);
  });

  it('--out into a folder that does not exist: exit 2, nothing written', async () => {
    const out = join(tmp, 'no-such-folder', 'report.json');
    expectOneError(
      await kprof(['summary', F('bad-bom'), '--format', 'json', '--out', out]),
      `${out}: cannot write the report (the folder ${join(tmp, 'no-such-folder')} does not exist); nothing was written. Pass --out a file path in a folder that exists and is writable.`,
    );
    expect(existsSync(join(tmp, 'no-such-folder'))).toBe(false);
  });

  it('--out into a folder that does not exist, or naming a folder: said before any input is read, by every command', async () => {
    // The input does not exist: were it read first, that would be the error.
    const none = join(tmp, 'no-such-profile');
    for (const args of [
      ['summary', none],
      ['inspect', none],
      ['audit', none],
      ['merge', none],
      ['rules', none, none],
      ['diff', none, none],
    ]) {
      for (const [out, why] of [
        [join(tmp, 'no-such-folder', 'r.out'), `the folder ${join(tmp, 'no-such-folder')} does not exist`],
        [tmp, 'it is a folder'],
      ] as const) {
        expectOneError(
          await kprof([...args, '-o', out]),
          `${out}: cannot write the report (${why}); nothing was written. Pass --out a file path in a folder that exists and is writable.`,
        );
      }
    }
  });

  it('a rank folder with nothing to read, passed alone: the error says what it lacks, and no rank "left out"', async () => {
    const dir = join(tmp, 'r3_ascend_pt');
    mkdirSync(join(dir, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    const r = await kprof(['summary', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/found: ASCEND_PROFILER_OUTPUT; .*r3_ascend_pt: no kernel data \(no kernel_details\.csv, [^)]*\)\. Pass /);
    expect(r.stderr).not.toContain('left out');
  });

  it('a run that fails on its input keeps the previous --out file as it was', async () => {
    const out = join(tmp, 'kept.json');
    writeFileSync(out, '{"previous":true}\n');
    const r = await kprof(['summary', F('bad-empty-file'), '--format', 'json', '--out', out]);
    expect(r.code).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('{"previous":true}\n');
    const strict = await kprof(['summary', F('bad-ragged-rows'), '--strict', '--format', 'json', '--out', out]);
    expect(strict.code).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('{"previous":true}\n');
    expect(readdirSync(tmp).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('strictCheck: only --strict with skipped rows is an error', () => {
    expect(() => strictCheck(undefined, 3)).not.toThrow();
    expect(() => strictCheck(false, 3)).not.toThrow();
    expect(() => strictCheck(true, 0)).not.toThrow();
    expect(() => strictCheck(true, 1)).toThrow('--strict: 1 row could not be read (see the warnings above); no report written.');
    expect(() => strictCheck(true, 2)).toThrow('--strict: 2 rows could not be read (see the warnings above); no report written.');
  });
});

describe('rows, none of which can be read', () => {
  it('every command refuses the profile (exit 2) and names the first skipped row: no figure is read from it', async () => {
    const dir = join(tmp, 'all-skipped');
    mkdirSync(dir);
    // A quote never closed, then a row narrower than the header: both skipped.
    writeFileSync(join(dir, 'kernel_details.csv'), `${HEADER}\n1,"Add,Add,AI_CORE,1,2,0,8\n`);
    const file = join(dir, 'kernel_details.csv');
    for (const args of [
      ['summary', dir],
      ['diff', F('fusion-example/base'), dir],
      ['inspect', dir],
    ]) {
      const r = await kprof(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      // The file as warnings show it (relative to the working directory, or absolute when that is far).
      expect(r.stderr).toContain(
        `kprof: ${dir}: no kernel could be read: its one row was skipped. The first: ${relPath(file)}:2: a quote opened on this line is never closed`,
      );
      expect(r.stderr).toContain('repair the file or export the profile again');
    }
    writeFileSync(join(dir, 'kernel_details.csv'), `${HEADER}\n1,Add,Add\n2,"Mul\n`);
    const two = await kprof(['summary', dir]);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('no kernel could be read: every one of its 2 rows was skipped. The first:');
    // One row that can be read: the profile is read, the others skipped and counted.
    writeFileSync(join(dir, 'kernel_details.csv'), `${HEADER}\n1,Add,Add\n${ROW}\n`);
    const one = await kprof(['summary', dir]);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('1 row skipped');
  });

  it('an op_summary of several devices whose every Device_id is no device: its rows are skipped, not "no data"', async () => {
    const src = readFileSync(
      F('formats/msprof-multi-device/PROF_000003_20260605155111872_QWERTYUIOPASDFGH/mindstudio_profiler_output/op_summary_20260605155140.csv'),
      'utf8',
    );
    const lines = src.trimEnd().split('\n');
    const file = join(tmp, 'op_summary_no_device.csv');
    // Every row's Device_id (its first cell) N/A: each is on no rank, so no rank holds a row.
    writeFileSync(file, `${[lines[0], ...lines.slice(1).map((l) => l.replace(/^[^,]*,/, 'N/A,'))].join('\n')}\n`);
    for (const args of [
      ['summary', file],
      ['inspect', file],
      ['diff', F('fusion-example/base'), file],
    ]) {
      const r = await kprof(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(
        `kprof: ${file}: no kernel could be read: every one of its ${lines.length - 1} rows was skipped. The first: ${relPath(file)}:2: Device_id is "N/A", expected a device number`,
      );
    }
  });
});
