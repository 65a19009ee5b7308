// Transcripts of `kprof summary` and `kprof inspect`: args, stdout, stderr and exit code, as golden files.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../src/util/io.js';
import { expectTranscript, kprof } from './helpers.js';

const MULTI = 'fixtures/formats/multi-rank';
const STAT = 'fixtures/formats/op-statistic-no-device/op_statistic.csv';

/** The columns of the small kernel tables below. */
const KERNEL_HEADER = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n';

/** A kernel_details.csv of `csv` in a folder of its own, given to `fn`, and removed after. */
async function withKernelCsv(prefix: string, csv: string, fn: (file: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    const file = join(dir, 'kernel_details.csv');
    writeFileSync(file, csv);
    await fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('kprof summary', () => {
  const cases: [string, string[]][] = [
    ['summary-table', ['summary', MULTI]],
    ['summary-markdown', ['summary', MULTI, '--format', 'markdown']],
    ['summary-json', ['summary', 'fixtures/formats/torch-271-device', '--format', 'json']],
    ['summary-csv', ['summary', MULTI, '--by', 'name', '--format', 'csv']],
    ['summary-by-name-top', ['summary', MULTI, '--by', 'name', '--top', '3', '--sort', 'count']],
    ['summary-type-core-rank', ['summary', MULTI, '--by', 'type+core', '--rank', '1']],
    ['summary-type-shapes', ['summary', 'fixtures/formats/torch-271-device', '--by', 'type+shapes']],
    ['summary-filters', ['summary', MULTI, '--steps', '8', '--core', 'AI_CORE,AI_VECTOR_CORE', '--exclude', 'RmsNorm']],
    ['summary-match', ['summary', MULTI, '--match', '^aclnnCast', '--by', 'name']],
    ['summary-groups', ['summary', MULTI, '--groups', 'fixtures/groups/attention.yaml']],
    ['summary-sort-name', ['summary', 'fixtures/formats/msprof-current', '--sort', 'name']],
    ['summary-op-statistic', ['summary', STAT, '--by', 'type+core']],
    ['summary-empty-steps', ['summary', 'fixtures/formats/empty-steps']],
    ['summary-gzip', ['summary', 'fixtures/formats/gzip/kernel_details.csv.gz', '--by', 'core']],
    ['summary-error-statistic-by-name', ['summary', STAT, '--by', 'name']],
    ['summary-error-unknown-rank', ['summary', MULTI, '--rank', '7']],
    ['summary-error-steps-without-steps', ['summary', 'fixtures/formats/torch-no-step-reduced', '--steps', '1-3']],
    ['summary-error-bad-by', ['summary', MULTI, '--by', 'shape']],
    ['summary-error-bad-regex', ['summary', MULTI, '--match', '(']],
    ['summary-error-missing', ['summary', 'fixtures/does-not-exist']],
    ['summary-error-no-args', ['summary']],
  ];
  for (const [name, args] of cases) {
    it(name, async () => {
      const r = await expectTranscript(name, args);
      expect(r.stderr).not.toMatch(/internal error|at .*\.ts:\d+/);
      expect([0, 2]).toContain(r.code);
    });
  }

  it('kernels of Type N/A (Level0) grouped by type: a note says they are one row and what shows them apart', async () => {
    const note =
      'kprof: note: Type is N/A for 10 of 12 kernels (a Level0 export writes no types): grouped by type, they are one N/A row; --by name shows them apart.\n';
    for (const format of ['table', 'json']) {
      const r = await kprof(['summary', 'fixtures/formats/torch-level0', '--format', format, '-q']);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(note);
    }
    // Asked for by name (or by type, knowingly), nothing is said.
    for (const by of ['name', 'type']) expect((await kprof(['summary', 'fixtures/formats/torch-level0', '--by', by, '-q'])).stderr).toBe('');
    expect((await kprof(['summary', MULTI, '-q'])).stderr).toBe('');
  });

  it('markdown: when no kernel is left, the total row has no share (as in the table)', async () => {
    const r = await kprof(['summary', MULTI, '--match', '^nothing-matches$', '--format', 'markdown']);
    expect(r.stdout).toContain('| **total** | **0** | **0 µs** | - | - |');
  });

  it('rows skipped are said on stderr in every format; CSV, which has no field for them, only there', async () => {
    const RAGGED = 'fixtures/bad-ragged-rows';
    const warned =
      'kprof: warning: fixtures/bad-ragged-rows/kernel_details.csv:3: row has 6 cells, the header has 8; row skipped\n' +
      'kprof: warning: fixtures/bad-ragged-rows/kernel_details.csv:4: row has 9 cells, the header has 8; row skipped\n';
    for (const format of ['table', 'markdown', 'json', 'html']) {
      const r = await kprof(['summary', RAGGED, '--format', format, '-q']);
      expect(r.code, format).toBe(0);
      expect(r.stderr, format).toBe(`${warned}kprof: 2 rows could not be read and were skipped (counted in the report's skipped rows).\n`);
    }
    for (const args of [
      ['summary', RAGGED, '--format', 'csv'],
      ['diff', RAGGED, RAGGED, '--format', 'csv'],
    ]) {
      const r = await kprof([...args, '-q']);
      expect(r.code, args[0]).toBe(0);
      const line = (side: string) => `kprof: ${side}2 rows could not be read and were skipped (the CSV report has no field for them).\n`;
      // diff says whose each count is (its warnings name their files).
      expect(r.stderr, args[0]).toBe(args[0] === 'diff' ? `${warned}${line('base: ')}${warned}${line('PR: ')}` : `${warned}${line('')}`);
      // The CSV data is groups only: no line of it says the skipped rows.
      expect(r.stdout).not.toMatch(/skipped/);
    }
  });

  it('commands that read two inputs say whose each count of skipped rows is (rules: base and PR; check --base: profile and base)', async () => {
    const RAGGED = 'fixtures/bad-ragged-rows';
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    try {
      const rulesFile = join(dir, 'r.yaml');
      const rules = await kprof(['rules', RAGGED, RAGGED, '-o', rulesFile, '-q']);
      expect(rules.code).toBe(0);
      const counts = (stderr: string) => stderr.split('\n').filter((l) => l.includes('could not be read'));
      expect(counts(rules.stderr)).toEqual([
        "kprof: base: 2 rows could not be read and were skipped (counted in the report's skipped rows).",
        "kprof: PR: 2 rows could not be read and were skipped (counted in the report's skipped rows).",
      ]);
      const check = await kprof(['check', RAGGED, '--rules', rulesFile, '--base', RAGGED, '-q']);
      expect(counts(check.stderr)).toEqual([
        "kprof: profile: 2 rows could not be read and were skipped (counted in the report's skipped rows).",
        "kprof: base: 2 rows could not be read and were skipped (counted in the report's skipped rows).",
      ]);
      // One input: no side to name.
      expect(counts((await kprof(['check', RAGGED, '--rules', rulesFile, '-q'])).stderr)[0]).toMatch(/^kprof: 2 rows could not be read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exit codes: 0 for a report, 2 for usage and input errors', async () => {
    expect((await kprof(['summary', MULTI])).code).toBe(0);
    expect((await kprof(['summary', STAT, '--by', 'name'])).code).toBe(2);
    expect((await kprof(['summary', MULTI, '--by', 'shape'])).code).toBe(2);
    expect((await kprof(['bogus'])).code).toBe(2);
  });

  it('no colour without a TTY, and none with NO_COLOR even when forced', async () => {
    expect((await kprof(['summary', MULTI])).stdout).not.toMatch(/\u001b\[/);
    expect((await kprof(['summary', MULTI], { NO_COLOR: '1', FORCE_COLOR: '1' })).stdout).not.toMatch(/\u001b\[/);
    expect((await kprof(['summary', MULTI], { NO_COLOR: undefined, FORCE_COLOR: '1' })).stdout).toMatch(/\u001b\[1m/);
  });

  it('the totals row adds up, and --top folds the rest into one row that keeps the totals', async () => {
    const json = JSON.parse((await kprof(['summary', MULTI, '--by', 'name', '--format', 'json'])).stdout);
    const sum = json.groups.reduce((n: number, g: { count: number }) => n + g.count, 0);
    expect(sum).toBe(json.totals.count);
    expect(json.rowsRead).toBe(json.totals.count + json.skippedRows + json.filteredKernels);
    const top = (await kprof(['summary', MULTI, '--by', 'name', '--top', '2'])).stdout;
    expect(top).toMatch(/\(\d+ more groups\)/);
  });

  it('user groups read from JSON give what the same groups in YAML give', async () => {
    const yaml = await kprof(['summary', MULTI, '--groups', 'fixtures/groups/attention.yaml', '--format', 'json']);
    const json = await kprof(['summary', MULTI, '--groups', 'fixtures/groups/attention.json', '--format', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).groups).toEqual(JSON.parse(yaml.stdout).groups);
    expect(JSON.parse(json.stdout).groups.map((g: { key: string }) => g.key)).toContain('communication');
  });

  it('a summary JSON is itself a profile and gives the same summary back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    try {
      const snap = join(dir, 'snap.json');
      const first = await kprof(['summary', MULTI, '--by', 'type+core', '--steps', '7-8', '--out', snap, '--format', 'json']);
      expect(first.code).toBe(0);
      expect(first.stdout).toBe('');
      const again = await kprof(['summary', snap, '--by', 'type+core', '--steps', '7-8', '--format', 'json']);
      expect(again.code).toBe(0);
      const a = JSON.parse(readFileSync(snap, 'utf8'));
      const b = JSON.parse(again.stdout);
      expect({ ...b, inputs: [] }).toEqual({ ...a, inputs: [] });
      const other = await kprof(['summary', snap, '--by', 'type']);
      expect(other.code).toBe(2);
      expect(other.stderr).toMatch(/this summary JSON was made with --by type\+core --steps 7-8, but this run asks for --by type\./);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('-o x.json.gz writes gzip, which summary, diff, check and merge read back with the same figures as the plain JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    const base = 'fixtures/fusion-example/base';
    const pr = 'fixtures/fusion-example/pr';
    try {
      const plain = join(dir, 'base.json');
      const gz = join(dir, 'base.json.gz');
      expect((await kprof(['summary', base, '--format', 'json', '-o', plain])).code).toBe(0);
      expect((await kprof(['summary', base, '--format', 'json', '-o', gz])).code).toBe(0);
      const packed = readFileSync(gz);
      expect([packed[0], packed[1]]).toEqual([0x1f, 0x8b]);
      expect(packed.length).toBeLessThan(readFileSync(plain).length);
      expect(gunzipSync(packed).toString('utf8')).toBe(readFileSync(plain, 'utf8'));
      // Read back: the same figures, only the file's name differs.
      // The file's name, not its path: kprof shows a path relative to where it runs when that is shorter.
      const named = (text: string, file: string) => text.split(basename(file)).join('<snapshot>');
      for (const args of [
        ['summary', '<snapshot>', '--format', 'json'],
        ['diff', '<snapshot>', pr, '--format', 'json'],
        ['check', pr, '--base', '<snapshot>', '--rules', 'fixtures/fusion-example/kprof.rules.yaml', '--format', 'json'],
      ]) {
        const [a, b] = await Promise.all([plain, gz].map((f) => kprof(args.map((x) => (x === '<snapshot>' ? f : x)))));
        expect([a!.code, b!.code], args.join(' ')).toEqual([0, 0]);
        expect(named(b!.stdout, gz), args.join(' ')).toBe(named(a!.stdout, plain));
        expect(b!.stderr).toBe('');
      }
      // merge -o .gz too, and it reads back.
      const merged = join(dir, 'merged.json.gz');
      expect((await kprof(['merge', gz, '-o', merged])).code).toBe(0);
      expect(readFileSync(merged)[0]).toBe(0x1f);
      expect((await kprof(['summary', merged, '--format', 'json'])).code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("-o's extension names the format when --format is not given (-o base.json writes JSON), and --format given wins", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    const base = 'fixtures/fusion-example/base';
    const pr = 'fixtures/fusion-example/pr';
    const at = (f: string) => join(dir, f);
    try {
      expect((await kprof(['summary', base, '-o', at('b.json')])).code).toBe(0);
      expect((await kprof(['summary', pr, '-o', at('p.JSON.gz')])).code).toBe(0);
      expect(JSON.parse(readFileSync(at('b.json'), 'utf8')).kind).toBe('summary');
      expect(JSON.parse(gunzipSync(readFileSync(at('p.JSON.gz'))).toString('utf8')).kind).toBe('summary');
      // The two read back as a diff's sides, its report written as the extension says.
      const want = await kprof(['diff', at('b.json'), at('p.JSON.gz'), '--format', 'markdown']);
      expect(want.stdout).toContain('<!-- kprof:diff -->');
      expect((await kprof(['diff', at('b.json'), at('p.JSON.gz'), '-o', at('d.md')])).code).toBe(0);
      expect(readFileSync(at('d.md'), 'utf8')).toBe(want.stdout);
      for (const [file, start] of [
        ['s.csv', 'key,'],
        ['s.html', '<!DOCTYPE html>'],
        ['s.txt', 'type '],
        ['s', 'type '],
      ] as const) {
        expect((await kprof(['summary', base, '-o', at(file)])).code).toBe(0);
        expect(readFileSync(at(file), 'utf8').startsWith(start), file).toBe(true);
      }
      expect((await kprof(['summary', base, '--format', 'table', '-o', at('t.json')])).code).toBe(0);
      expect(readFileSync(at('t.json'), 'utf8').startsWith('type ')).toBe(true);
      expect((await kprof(['inspect', base, '-o', at('i.json')])).code).toBe(0);
      expect(JSON.parse(readFileSync(at('i.json'), 'utf8')).kind).toBe('inspect');
      const check = ['check', pr, '--base', base, '--rules', 'fixtures/fusion-example/kprof.rules.yaml'];
      expect((await kprof([...check, '-o', at('c.xml')])).code).toBe(0);
      expect(readFileSync(at('c.xml'), 'utf8').startsWith('<?xml')).toBe(true);
      expect((await kprof(['audit', pr, '-o', at('a.json')])).code).toBe(0);
      expect(JSON.parse(readFileSync(at('a.json'), 'utf8')).schema).toMatch(/^kprof\.audit\//);
      expect((await kprof(['audit', '--list', '-o', at('l.md')])).code).toBe(0);
      expect(readFileSync(at('l.md'), 'utf8')).toBe((await kprof(['audit', '--list', '--format', 'markdown'])).stdout);
      // An extension that names a format the command does not write is refused before anything is read (it wrote
      // the text report under report.csv); --format given writes what it names under any name.
      for (const [args, file, says] of [
        [check, 'c.csv', 'this name says CSV, which kprof check does not write'],
        [['inspect', base], 'i.md', 'this name says Markdown, which kprof inspect does not write (it writes text, JSON)'],
        [['summary', base], 's.xml', 'this name says JUnit XML, which kprof summary does not write'],
        [['diff', base, pr], 'd.xml.gz', 'this name says JUnit XML, which kprof diff does not write'],
        [['audit', pr], 'a.csv', 'this name says CSV, which kprof audit does not write'],
        // The catalogue listing has no HTML form (it wrote the text table under l.html).
        [['audit', '--list'], 'l.html', 'this name says HTML, which kprof audit --list does not write (it writes text, Markdown, JSON)'],
        [['merge', at('b.json')], 'm.csv', 'kprof merge writes a summary JSON, and this name says CSV. Name it .json or .json.gz.'],
      ] as const) {
        const r = await kprof([...args, '-o', at(file)]);
        expect(r.code, file).toBe(2);
        expect(r.stderr, file).toContain(`-o ${at(file)}: ${says}`);
        expect(existsSync(at(file)), file).toBe(false);
      }
      expect((await kprof([...check, '--format', 'text', '-o', at('c.csv')])).code).toBe(0);
      expect(readFileSync(at('c.csv'), 'utf8').startsWith('kprof check ')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts of a thousand and more have a thousands separator in every sentence (files, steps)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    try {
      // 1,001 one-rank snapshots: the Markdown and HTML source lines count the files as the table counts ranks.
      const one = JSON.parse(readFileSync('fixtures/cluster/small/rank0.summary.json', 'utf8'));
      mkdirSync(join(dir, 'ranks'));
      for (let i = 0; i < 1001; i++) {
        const x = structuredClone(one);
        x.ranks = [String(i)];
        x.perRank[0].rank = String(i);
        writeFileSync(join(dir, 'ranks', `r${i}.json`), JSON.stringify(x));
      }
      const md = await kprof(['summary', join(dir, 'ranks'), '--format', 'markdown', '-q']);
      expect(md.stdout).toContain('1,001 ranks (`0`–`1000`), 0 rows skipped. Source: 1,001 files, grouped by type.');
      const html = await kprof(['summary', join(dir, 'ranks'), '--format', 'html', '-q']);
      expect(html.stdout).toContain('(1,001 files), grouped by type');
      // 1,000 steps of one kernel: the audit's first line.
      const rows = Array.from({ length: 1000 }, (_, i) => `${i + 1},aclnnAddRmsNorm,AddRmsNorm,AI_VECTOR_CORE,${1000 + 10 * i},2,0,1`);
      writeFileSync(
        join(dir, 'kernel_details.csv'),
        `Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\n${rows.join('\n')}\n`,
      );
      const audit = await kprof(['audit', join(dir, 'kernel_details.csv'), '-q']);
      expect(audit.stdout).toMatch(/: 30 catalogue entries, 1 rank, 1,000 steps, 1,000 compute kernels;/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a report in chunks is written byte for byte: characters of 1 to 4 bytes across writes, a chunk past the buffer', () => {
    // The chunks are encoded one after another into one buffer of 1 MiB, written when the next might not fit.
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    try {
      const out = join(dir, 'report.json');
      const pieces = ['a', 'é', '中', '😀', '\u2028', '"'];
      const chunks = Array.from({ length: 90 }, (_, i) => pieces[i % pieces.length]!.repeat(1000 + 997 * i));
      chunks.splice(40, 0, '', '中'.repeat(400_000), 'x');
      writeFileAtomic(out, chunks);
      expect(readFileSync(out).equals(Buffer.from(chunks.join('')))).toBe(true);
      // A new path: the file just written could have the inode of an input of an earlier run, since deleted.
      const small = join(dir, 'small.json');
      writeFileAtomic(small, chunks.slice(0, 3));
      expect(readFileSync(small, 'utf8')).toBe(chunks.slice(0, 3).join(''));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a large report written to .gz is gzip members one after another, unpacked whole (never held whole to pack)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-'));
    try {
      const out = join(dir, 'big.json.gz');
      // 20 Mi characters in chunks of 1 Mi: more than one member.
      const chunk = `${'x'.repeat((1 << 20) - 1)}\n`;
      function* chunks(): Generator<string> {
        yield '{"pad":"';
        for (let i = 0; i < 20; i++) yield chunk.slice(0, -1);
        yield '"}';
      }
      writeFileAtomic(out, chunks());
      const packed = readFileSync(out);
      const text = gunzipSync(packed).toString('utf8');
      expect(text.length).toBe(20 * ((1 << 20) - 1) + 10);
      expect(text.startsWith('{"pad":"xxx') && text.endsWith('xxx"}')).toBe(true);
      // More than one member: a gzip header past the first.
      expect(packed.indexOf(Buffer.from([0x1f, 0x8b, 0x08]), 10)).toBeGreaterThan(0);
      // An empty report is an empty gzip file, not an empty file.
      const empty = join(dir, 'empty.txt.gz');
      writeFileAtomic(empty, '');
      expect(gunzipSync(readFileSync(empty)).length).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('kernels of no time: no share, in the total row as in each group, in every format', async () => {
    await withKernelCsv('kprof-zero-', `${KERNEL_HEADER}1,a,A,AI_CORE,1,0\n1,b,B,AI_CORE,2,0\n`, async (file) => {
      const table = (await kprof(['summary', file])).stdout.split('\n');
      for (const key of ['A', 'B', 'total']) expect(table.find((l) => l.startsWith(`${key} `))).toMatch(/\s-\s+\d+$/);
      expect((await kprof(['summary', file, '--format', 'markdown'])).stdout).toMatch(/^\| \*\*total\*\* \|.*\| - \| 2 \|$/m);
      const html = (await kprof(['summary', file, '--format', 'html'])).stdout;
      expect(html).not.toContain('100.0%');
      expect(JSON.parse((await kprof(['summary', file, '--format', 'json'])).stdout).groups.map((g: { sharePct: null }) => g.sharePct)).toEqual([
        null,
        null,
      ]);
    });
  });

  it('the group of an empty Type (or core) cell is named (empty) in the table and Markdown, as diff names it', async () => {
    await withKernelCsv('kprof-empty-key-', `${KERNEL_HEADER}1,a_Add,,AI_CORE,1,2\n1,b,Cast,,3,1\n`, async (file) => {
      const table = (await kprof(['summary', file])).stdout.split('\n');
      expect(table[2]).toMatch(/^\(empty\)\s+1\s+2\.00 µs/);
      expect((await kprof(['summary', file, '--by', 'core'])).stdout.split('\n')[3]).toMatch(/^\(empty\)\s+1\s+1\.00 µs/);
      const md = (await kprof(['summary', file, '--format', 'markdown'])).stdout;
      expect(md).toContain('\n| `(empty)` | 1 | 2.00 µs |');
      expect(md).not.toContain('``');
      // The data formats keep the key as it is.
      expect(JSON.parse((await kprof(['summary', file, '--format', 'json'])).stdout).groups.map((g: { key: string }) => g.key)).toEqual(['', 'Cast']);
    });
  });
  it('a kernel type named (empty) is shown in quotes, apart from the group of an empty Type cell (table, Markdown, HTML, diff)', async () => {
    await withKernelCsv('kprof-empty-named-', `${KERNEL_HEADER}1,a,,AI_CORE,1,2\n1,b,(empty),AI_CORE,3,3\n`, async (file) => {
      const table = (await kprof(['summary', file])).stdout.split('\n');
      expect(table[2]).toMatch(/^"\(empty\)"\s+1\s+3\.00 µs/);
      expect(table[3]).toMatch(/^\(empty\)\s+1\s+2\.00 µs/);
      const md = (await kprof(['summary', file, '--format', 'markdown'])).stdout;
      expect(md).toContain('\n| `"(empty)"` | 1 | 3.00 µs |');
      expect(md).toContain('\n| `(empty)` | 1 | 2.00 µs |');
      const html = (await kprof(['summary', file, '--format', 'html'])).stdout;
      expect(html).toContain('&quot;(empty)&quot;');
      const diff = (await kprof(['diff', file, file])).stdout;
      expect(diff).toMatch(/\n"\(empty\)" +1 +1 /);
      // The data formats keep the key as it is.
      expect(JSON.parse((await kprof(['summary', file, '--format', 'json'])).stdout).groups.map((g: { key: string }) => g.key)).toEqual([
        '(empty)',
        '',
      ]);
    });
  });
  it('by type+core, an empty type or core is labelled (empty) in every format people read; a type holding " @ " stays whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-empty-part-'));
    try {
      const base = join(dir, 'base.csv');
      const pr = join(dir, 'pr.csv');
      const rows = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n1,a,Mul,,0,1\n1,b,,AI_CORE,2,1\n1,c,Add @ X,,4,1\n1,d,<i>,,6,1\n';
      writeFileSync(base, rows);
      writeFileSync(pr, `${rows}1,e,Mul,,8,1\n`);
      const by = ['--by', 'type+core'];
      const table = (await kprof(['summary', base, ...by])).stdout;
      expect(table).toMatch(/\n\(empty\) @ AI_CORE +1 /);
      expect(table).toMatch(/\nMul @ \(empty\) +1 /);
      expect(table).toMatch(/\nAdd @ X @ \(empty\) +1 /);
      const md = (await kprof(['summary', base, ...by, '--format', 'markdown'])).stdout;
      expect(md).toContain('| `(empty) @ AI_CORE` |');
      expect(md).toContain('| `Mul @ (empty)` |');
      const html = (await kprof(['summary', base, ...by, '--format', 'html'])).stdout;
      expect(html).toContain('(empty) @ AI_CORE');
      expect(html).toContain('&lt;i&gt; @ (empty)');
      expect(html).not.toMatch(/> @ AI_CORE/);
      expect(html).toContain('<title>(empty) @ AI_CORE: 1 kernel, 1.00 µs, 25.0% of the kernel time</title>');
      const diff = (await kprof(['diff', base, pr, ...by])).stdout;
      expect(diff.split('\n')[0]).toBe('Mul @ (empty) +100.0% (1 → 2).');
      expect(diff).toMatch(/\n\(empty\) @ AI_CORE +1 +1 /);
      const diffMd = (await kprof(['diff', base, pr, ...by, '--format', 'markdown'])).stdout;
      expect(diffMd).toContain('| `Mul @ (empty)` | 1 (1.00 µs) | 2 (2.00 µs) |');
      const diffHtml = (await kprof(['diff', base, pr, ...by, '--format', 'html'])).stdout;
      expect(diffHtml).toContain('Mul @ (empty)');
      expect(diffHtml).not.toMatch(/> @ AI_CORE/);
      // The data formats keep the key as it is.
      const keys = JSON.parse((await kprof(['summary', base, ...by, '--format', 'json'])).stdout).groups.map((g: { key: string }) => g.key);
      expect(keys.sort()).toEqual([' @ AI_CORE', '<i> @ ', 'Add @ X @ ', 'Mul @ ']);
      expect((await kprof(['summary', base, ...by, '--format', 'csv'])).stdout).toContain('\nMul @ ,');
      // by type+shapes, an empty type likewise.
      const shapes = join(dir, 'shapes.csv');
      writeFileSync(shapes, 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Input Shapes\n1,a,,AI_CORE,0,1,"1,2"\n');
      expect((await kprof(['summary', shapes, '--by', 'type+shapes'])).stdout).toMatch(/\n\(empty\) \[1,2\] +1 /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('by type+core (or type+shapes), kernels whose fields join into one key are refused, not merged into one row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-key-clash-'));
    try {
      const head = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n';
      const a = join(dir, 'a.csv');
      const b = join(dir, 'b.csv');
      writeFileSync(a, `${head}1,c,Add @ X,Y,4,1\n`);
      writeFileSync(b, `${head}1,d,Add,X @ Y,6,2\n`);
      const both = join(dir, 'both.csv');
      writeFileSync(both, `${head}1,c,Add @ X,Y,4,1\n1,d,Add,X @ Y,6,2\n`);
      const clash = /kernels of different \(type, core\) have the same --by type\+core key "Add @ X @ Y" \(a type or a core holds " @ "\)/;
      const one = await kprof(['summary', both, '--by', 'type+core']);
      expect(one.code).toBe(2);
      expect(one.stderr).toMatch(clash);
      // Each on a rank of its own: the profile's row would merge them.
      const cluster = join(dir, 'cluster');
      for (const [rank, f] of [
        ['0', a],
        ['1', b],
      ] as const) {
        mkdirSync(join(cluster, `rank_${rank}`), { recursive: true });
        writeFileSync(join(cluster, `rank_${rank}`, 'kernel_details.csv'), readFileSync(f));
      }
      const ranks = await kprof(['summary', cluster, '--by', 'type+core']);
      expect(ranks.code).toBe(2);
      expect(ranks.stderr).toMatch(clash);
      // The base has one, the PR the other: not one row of the diff.
      const diff = await kprof(['diff', a, b, '--by', 'type+core']);
      expect(diff.code).toBe(2);
      expect(diff.stderr).toContain('has kernels of type "Add @ X", core "Y" and the PR');
      expect(diff.stderr).toContain('kernels of type "Add", core "X @ Y", and both have the --by type+core key "Add @ X @ Y"');
      // By type they are two groups, as they are.
      expect((await kprof(['summary', both, '--format', 'json'])).stdout).toContain('"key": "Add @ X"');
      const shapes = join(dir, 'shapes.csv');
      writeFileSync(
        shapes,
        'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Input Shapes\n1,a,A [x],AI_CORE,0,1,y\n1,b,A,AI_CORE,2,1,"x] [y"\n',
      );
      const byShapes = await kprof(['summary', shapes, '--by', 'type+shapes']);
      expect(byShapes.code).toBe(2);
      expect(byShapes.stderr).toContain('have the same --by type+shapes key "A [x] [y]"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('kprof inspect', () => {
  const cases: [string, string[]][] = [
    ['inspect-multi-rank', ['inspect', MULTI]],
    ['inspect-level0', ['inspect', 'fixtures/formats/torch-level0']],
    ['inspect-msprof-sliced', ['inspect', 'fixtures/formats/msprof-sliced']],
    ['inspect-cann5', ['inspect', 'fixtures/formats/msprof-cann5']],
    ['inspect-empty-steps-json', ['inspect', 'fixtures/formats/empty-steps', '--format', 'json']],
    ['inspect-statistic', ['inspect', STAT]],
  ];
  for (const [name, args] of cases) {
    it(name, async () => {
      const r = await expectTranscript(name, args);
      expect(r.code).toBe(0);
    });
  }
});
