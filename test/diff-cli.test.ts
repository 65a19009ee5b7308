// Transcripts of `kprof diff`: every format on the example pair, the awkward cases (a fusion on some ranks
// only, unequal steps, inputs without steps, summary JSON inputs), usage errors, and real same-workload pairs.

import { cpSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiffJson } from '../src/model/schema.js';
import { docSection, expectTranscript, kprof, REAL_REL, ROOT, transcript, type Result, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const EX = 'fixtures/fusion-example';
const BASE = `${EX}/base`;
const PR = `${EX}/pr`;

function json(r: Result): DiffJson {
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as DiffJson;
}

function noInternalErrors(r: Result): void {
  expect(r.stderr).not.toMatch(/internal error|at .*\.ts:\d+/);
}

describe('kprof diff on the example pair', () => {
  const cases: [string, string[]][] = [
    ['diff-example', ['diff', BASE, PR]],
    ['diff-example-markdown', ['diff', BASE, PR, '--format', 'markdown']],
    ['diff-example-json', ['diff', BASE, PR, '--format', 'json']],
    ['diff-example-csv', ['diff', BASE, PR, '--format', 'csv']],
    ['diff-example-per-step', ['diff', BASE, PR, '--per-step']],
    ['diff-example-only-changed-top', ['diff', BASE, PR, '--only', 'changed', '--top', '4', '--sort', 'delta-time']],
    ['diff-example-only-removed', ['diff', BASE, PR, '--only', 'removed', '--format', 'markdown']],
    ['diff-example-sort-pr-time', ['diff', BASE, PR, '--sort', 'pr-time', '--top', '6']],
    ['diff-example-by-name', ['diff', BASE, PR, '--by', 'name', '--top', '12']],
    ['diff-example-type-core', ['diff', BASE, PR, '--by', 'type+core', '--only', 'changed']],
    ['diff-example-rank-1', ['diff', BASE, PR, '--rank', '1', '--format', 'markdown']],
    ['diff-example-filters', ['diff', BASE, PR, '--steps', '22-23', '--exclude', '^hcom_', '--time-tolerance', '5%']],
    ['diff-error-bad-tolerance', ['diff', BASE, PR, '--time-tolerance', 'two']],
    ['diff-error-bad-sort', ['diff', BASE, PR, '--sort', 'size']],
    ['diff-error-bad-only', ['diff', BASE, PR, '--only', 'same']],
    ['diff-error-one-input', ['diff', BASE]],
    ['diff-error-unknown-rank', ['diff', BASE, PR, '--rank', '3']],
    ['diff-error-missing', ['diff', BASE, `${EX}/does-not-exist`]],
  ];
  for (const [name, args] of cases) {
    it(name, async () => {
      const r = await expectTranscript(name, args);
      noInternalErrors(r);
      expect(name.startsWith('diff-error') ? 2 : 0).toBe(r.code);
    });
  }

  it('tells the fusion story: MlaPrologV3 appears, ScatterNdUpdate goes, the chain is cut, fewer kernels', async () => {
    const d = json(await kprof(['diff', BASE, PR, '--format', 'json']));
    const st = Object.fromEntries(d.rows.map((r) => [r.key, r.status]));
    expect(st).toMatchObject({
      MlaPrologV3: 'added',
      ScatterNdUpdate: 'removed',
      InterleaveRope: 'fewer',
      DynamicBlockQuant: 'fewer',
      QuantBatchMatmulV3: 'fewer',
      Cast: 'fewer',
      MatMulV3: 'same',
      hcom_allReduce_: 'same',
    });
    expect(d.totals.deltaCount).toBeLessThan(0);
    expect(d.totals.deltaUs).toBeLessThan(0);
    expect(d.pairedRanks).toEqual(['0', '1']);
    expect(d.rows.every((r) => r.disagreeingRanks.length === 0)).toBe(true);
    expect(d.base.steps).toBe(4);
    // The totals row is the sum of the rows, and equals what summary counts on each side.
    expect(d.rows.reduce((n, r) => n + r.base.count, 0)).toBe(d.totals.base.count);
    expect(d.rows.reduce((n, r) => n + r.pr.count, 0)).toBe(d.totals.pr.count);
    const sb = JSON.parse((await kprof(['summary', BASE, '--format', 'json'])).stdout);
    expect(d.totals.base.count).toBe(sb.totals.count);
    expect(d.totals.base.totalUs).toBeCloseTo(sb.totals.totalUs, 4);
  });

  it('the example’s op_statistic.csv agrees with its kernel_details.csv (compute kernels, per type and core)', async () => {
    for (const side of [BASE, PR]) {
      for (const folder of readdirSync(join(ROOT, side)).filter((d) => d.endsWith('_ascend_pt'))) {
        const out = `${side}/${folder}/ASCEND_PROFILER_OUTPUT`;
        const d = json(
          await kprof([
            'diff',
            `${out}/kernel_details.csv`,
            `${out}/op_statistic.csv`,
            '--by',
            'type+core',
            '--exclude',
            '^hcom_',
            '--format',
            'json',
          ]),
        );
        expect(d.rows.length).toBeGreaterThan(15);
        expect(d.rows.filter((r) => r.status !== 'same' || Math.abs(r.deltaUs) > 1e-6)).toEqual([]);
      }
    }
  });

  it('--per-step divides by each side’s steps; the JSON says so', async () => {
    const raw = json(await kprof(['diff', BASE, PR, '--format', 'json']));
    const ps = json(await kprof(['diff', BASE, PR, '--format', 'json', '--per-step']));
    expect(ps.normalization).toBe('per-step');
    expect(ps.totals.base.count).toBe(raw.totals.base.count / 4);
    const rope = ps.rows.find((r) => r.key === 'InterleaveRope')!;
    expect(rope.base.count).toBe(12);
    expect(rope.pr.count).toBe(4);
  });

  it('an option whose output the report has no place for is a usage error, not ignored', async () => {
    const stepTime =
      'kprof: --step-time: the CSV report holds rows of groups only and has no field for the step time. Use --format json (or table, markdown, html), or leave --step-time out.\n';
    for (const args of [
      ['diff', BASE, PR, '--step-time', '--format', 'csv'],
      ['summary', BASE, '--step-time', '--format', 'csv'],
    ]) {
      const r = await kprof(args);
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', stepTime]);
    }
    expect((await kprof(['summary', BASE, '--step-time', '--format', 'json'])).code).toBe(0);
    const marker = await kprof(['diff', BASE, PR, '--rewrites', 'off', '--layer-marker', 'LightningIndexer']);
    expect([marker.code, marker.stdout]).toEqual([2, '']);
    expect(marker.stderr).toBe(
      'kprof: --layer-marker: it marks the layers of the Fusion rewrites section, and --rewrites off turns the section off. Leave one of them out.\n',
    );
  });

  it('--format markdown starts with a fixed marker line, for a sticky pull request comment to find', async () => {
    // The marker is an HTML comment: invisible where the Markdown is shown; it is the same for every diff.
    for (const args of [
      [BASE, PR],
      [PR, BASE],
      [BASE, BASE, '--only', 'removed'],
    ]) {
      const md = (await kprof(['diff', ...args, '--format', 'markdown'])).stdout;
      expect(md.split('\n')[0]).toBe('<!-- kprof:diff -->');
      expect(md.split('<!-- kprof:diff -->').length).toBe(2);
    }
    for (const format of ['text', 'csv', 'json']) {
      expect((await kprof(['diff', BASE, PR, '--format', format])).stdout).not.toContain('kprof:diff');
    }
  });

  it('--out writes the report atomically and leaves stdout empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-diff-'));
    try {
      const out = join(dir, 'diff.md');
      const r = await kprof(['diff', BASE, PR, '--format', 'markdown', '--out', out]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(readFileSync(out, 'utf8')).toBe((await kprof(['diff', BASE, PR, '--format', 'markdown'])).stdout);
      expect(readdirSync(dir)).toEqual(['diff.md']);
      const bad = await kprof(['diff', BASE, PR, '--out', join(dir, 'no/such/folder/diff.md')]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/cannot write the report/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('colour on a forced TTY only, never with NO_COLOR', async () => {
    expect((await kprof(['diff', BASE, PR])).stdout).not.toMatch(/\u001b\[/);
    expect((await kprof(['diff', BASE, PR], { NO_COLOR: undefined, FORCE_COLOR: '1' })).stdout).toMatch(/\u001b\[32mremoved/);
    expect((await kprof(['diff', BASE, PR], { NO_COLOR: '1', FORCE_COLOR: '1' })).stdout).not.toMatch(/\u001b\[/);
  });

  it('the README example section shows the example diff’s markdown, verbatim', async () => {
    const section = docSection('diff-example');
    const md = (await kprof(['diff', BASE, PR, '--format', 'markdown'])).stdout;
    expect(section).toContain(md);
    const reference = docSection('diff');
    const args = ['diff', BASE, PR, '--only', 'changed', '--top', '4', '--sort', 'delta-time'];
    expect(reference).toContain(`$ kprof ${args.join(' ')}\n${(await kprof(args)).stdout}\`\`\``);
  });
});

/** Scenarios built in a temporary folder from the example pair; transcripts show it as `<tmp>`. */
describe('kprof diff: awkward cases', () => {
  let dir = '';
  const rankFolder = (side: string, rank: number): string =>
    readdirSync(join(ROOT, side))
      .filter((d) => d.endsWith('_ascend_pt'))
      .sort()[rank]!;

  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'kprof-diff-')));
    // A PR in which the fusion took effect on rank 0 only: rank 1 still runs the base build.
    cpSync(join(ROOT, PR, rankFolder(PR, 0)), join(dir, 'partial', rankFolder(PR, 0)), { recursive: true });
    cpSync(join(ROOT, BASE, rankFolder(BASE, 1)), join(dir, 'partial', rankFolder(BASE, 1)), { recursive: true });
    // A PR profiled for 3 steps instead of 4 (Step Id 24 dropped), and one without a Step Id column.
    cpSync(join(ROOT, PR), join(dir, 'three-steps'), { recursive: true });
    cpSync(join(ROOT, PR), join(dir, 'no-steps'), { recursive: true });
    for (const r of [0, 1]) {
      const f3 = join(dir, 'three-steps', rankFolder(PR, r), 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv');
      writeFileSync(
        f3,
        readFileSync(f3, 'utf8')
          .split('\r\n')
          .filter((l) => !l.startsWith('24,'))
          .join('\r\n'),
      );
      const f0 = join(dir, 'no-steps', rankFolder(PR, r), 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv');
      writeFileSync(
        f0,
        readFileSync(f0, 'utf8')
          .split('\r\n')
          .map((l) => l.slice(l.indexOf(',') + 1))
          .join('\r\n'),
      );
    }
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Run and compare with a golden transcript, with the temporary folder shown as `<tmp>`. */
  async function tmpTranscript(name: string, args: string[]): Promise<Result> {
    const r = await kprof(args.map((a) => a.replace('<tmp>', dir)));
    const rel = relative(ROOT, dir).split('\\').join('/');
    const norm = (s: string): string => s.split(rel).join('<tmp>').split(dir).join('<tmp>');
    const shown = { code: r.code, stdout: norm(r.stdout), stderr: norm(r.stderr) };
    await expect(transcript(args, shown)).toMatchFileSnapshot(join(ROOT, 'test/transcripts', `${name}.md`));
    noInternalErrors(r);
    return r;
  }

  it('a fusion on one rank of two: every format names the rank that disagrees', async () => {
    const t = await tmpTranscript('diff-partial-fusion', ['diff', BASE, '<tmp>/partial']);
    expect(t.code).toBe(0);
    expect(t.stderr).toMatch(/changed differently across ranks \(/);
    expect(t.stdout).toMatch(/^ {2}InterleaveRope: ranks differ; rank 0 -16 \(-66\.7%\): 24 → 8, rank 1 same: 24 → 24$/m);
    const md = await tmpTranscript('diff-partial-fusion-markdown', ['diff', BASE, '<tmp>/partial', '--format', 'markdown']);
    expect(md.stdout).toMatch(/; ranks differ \(`0`, `1`\) \|/);
    const j = json(await kprof(['diff', BASE, join(dir, 'partial'), '--format', 'json']));
    const rope = j.rows.find((r) => r.key === 'InterleaveRope')!;
    expect(rope.disagreeingRanks.map((x) => `${x.rank}:${x.status}`)).toEqual(['0:fewer', '1:same']);
    const csv = (await kprof(['diff', BASE, join(dir, 'partial'), '--format', 'csv'])).stdout;
    expect(csv).toMatch(/^InterleaveRope,.*,0:fewer 1:same,,true,noise,/m);
    // Reading one rank only, there is nothing to disagree with.
    const one = json(await kprof(['diff', BASE, join(dir, 'partial'), '--format', 'json', '--rank', '1']));
    expect(one.rows.every((r) => r.status === 'same')).toBe(true);
  });

  it('unequal step counts: a warning on stderr and in the report; --per-step compares like with like', async () => {
    const t = await tmpTranscript('diff-step-mismatch', ['diff', BASE, '<tmp>/three-steps']);
    expect(t.stderr).toMatch(/^kprof: warning: Step counts differ: the base has 4 steps on each rank, the PR has 3 steps on each rank/m);
    expect(t.stdout).toMatch(/^Warning: Step counts differ/m);
    const j = json(await kprof(['diff', BASE, join(dir, 'three-steps'), '--format', 'json']));
    expect(j.stepMismatch).toBe(true);
    expect(j.rows.find((r) => r.key === 'MatMulV3')!.status).toBe('fewer');
    const ps = await tmpTranscript('diff-step-mismatch-per-step', ['diff', BASE, '<tmp>/three-steps', '--per-step']);
    expect(ps.stderr).toBe('');
    const pj = json(await kprof(['diff', BASE, join(dir, 'three-steps'), '--format', 'json', '--per-step']));
    expect(pj.stepMismatch).toBe(false);
    expect(pj.rows.find((r) => r.key === 'MatMulV3')!.status).toBe('same');
  });

  it('--per-step on an input without Step Id is an input error that says what to do', async () => {
    const t = await tmpTranscript('diff-error-per-step-no-steps', ['diff', BASE, '<tmp>/no-steps', '--per-step']);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/--per-step needs the number of steps of both sides, but the PR .* no Step Id column/);
    const raw = await kprof(['diff', BASE, join(dir, 'no-steps')]);
    expect(raw.code).toBe(0);
    expect(raw.stderr).toMatch(/the base has 4 steps on each rank, the PR has no Step Id/);
  });

  it('summary JSON inputs: alike to the profile when grouped alike, refused with the fix otherwise', async () => {
    const snap = join(dir, 'base.json');
    expect((await kprof(['summary', BASE, '--format', 'json', '--out', snap])).code).toBe(0);
    const fromSnap = json(await kprof(['diff', snap, PR, '--format', 'json']));
    const fromProfile = json(await kprof(['diff', BASE, PR, '--format', 'json']));
    expect(fromSnap.rows).toEqual(fromProfile.rows);
    expect(fromSnap.totals).toEqual(fromProfile.totals);
    // Both sides saved: also alike.
    const prSnap = join(dir, 'pr.json');
    expect((await kprof(['summary', PR, '--format', 'json', '--out', prSnap])).code).toBe(0);
    expect(json(await kprof(['diff', snap, prSnap, '--format', 'json'])).rows).toEqual(fromProfile.rows);
    // Saved with another grouping or filter: refused for either side, with the command that regenerates it.
    const byName = join(dir, 'pr-by-name.json');
    expect((await kprof(['summary', PR, '--by', 'name', '--format', 'json', '--out', byName])).code).toBe(0);
    const t = await tmpTranscript('diff-error-snapshot-grouping', ['diff', '<tmp>/base.json', '<tmp>/pr-by-name.json']);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(
      /base\.json was made with --by type and .*pr-by-name\.json with --by name; summary JSONs are compared only when .* Pass --by to choose one/,
    );
    // --by given: the one made otherwise is named, with the command that regenerates it.
    const given = await kprof(['diff', snap, byName, '--by', 'type']);
    expect(given.stderr).toMatch(/pr-by-name\.json: this summary JSON was made with --by name, but this run asks for --by type\. Regenerate it/);
    // Beside a profile and no --by: the profile is grouped by the default, which was not asked; said so.
    const mixed = await kprof(['diff', byName, PR]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(
      /pr-by-name\.json was made with --by name, and .* is a profile, grouped by type when no --by is given\. Pass --by name/,
    );
    expect(mixed.stderr).not.toContain('this run asks for');
    expect((await kprof(['diff', byName, PR, '--by', 'name'])).code).toBe(0);
    const filtered = await kprof(['diff', snap, PR, '--steps', '21-22']);
    expect(filtered.code).toBe(2);
    expect(filtered.stderr).toMatch(/base\.json: this summary JSON was made with --by type, but this run asks for --by type --steps 21-22\./);
  });

  it('a step of one kernel is "1 → 1 kernel" in the rewrites heading', async () => {
    const f = join(dir, 'one-kernel.csv');
    writeFileSync(f, 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n1,a,A,AI_CORE,1,2\n2,a,A,AI_CORE,5,2\n');
    const r = await kprof(['diff', f, f]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('the most frequent step: 1 → 1 kernel, in 2 of 2 steps on each side)');
  });

  it('a --rank one side lacks names that side and the ranks both have, in diff and in kprof rules', async () => {
    const one = join(dir, 'rank-0-only');
    cpSync(join(ROOT, PR, rankFolder(PR, 0)), join(one, rankFolder(PR, 0)), { recursive: true });
    for (const cmd of ['diff', 'rules']) {
      const r = await kprof([cmd, BASE, one, '--rank', '1']);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toBe(
        `kprof: ${one} (the PR): rank 1 not found; the input has rank 0. Use --rank with ranks both sides have (--rank 0), or --rank all.\n`,
      );
      const base = await kprof([cmd, one, BASE, '--rank', '0,1']);
      expect(base.stderr).toMatch(
        /^kprof: .*rank-0-only \(the base\): rank 1 not found; the input has rank 0\. Use --rank with ranks both sides have \(--rank 0\)/,
      );
    }
    expect((await kprof(['diff', BASE, one, '--rank', '0', '-q'])).code).toBe(0);
  });

  it('--strict refuses inputs with unreadable rows; without it they are counted and reported', async () => {
    const broken = join(dir, 'broken');
    cpSync(join(ROOT, PR), broken, { recursive: true });
    const f = join(broken, rankFolder(PR, 0), 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv');
    const lines = readFileSync(f, 'utf8').split('\r\n');
    lines[5] = lines[5]!.replace(/,(\d+\.\d+),/, ',not-a-number,');
    writeFileSync(f, lines.join('\r\n'));
    const loose = await kprof(['diff', BASE, broken]);
    expect(loose.code).toBe(0);
    expect(loose.stderr).toMatch(/kernel_details\.csv:6: /);
    expect(loose.stderr).toMatch(/1 row could not be read/);
    expect(loose.stdout).toMatch(/1 row skipped/);
    // The report itself says so, above the table (a PR comment shows no stderr): a group may look removed for it.
    const warning =
      '1 row of the PR could not be read and is in no figure of this report (each is warned of on stderr, with its file and line): ' +
      'a group shown as fewer, or removed, may have run in them. Repair or export the profile again, or pass --strict to stop on such rows.';
    expect(loose.stdout).toContain(`\nWarning: ${warning}\n`);
    const md = await kprof(['diff', BASE, broken, '--format', 'markdown']);
    expect(md.stdout).toContain(`\n> **Warning:** ${warning}\n`);
    const html = await kprof(['diff', BASE, broken, '--format', 'html']);
    expect(html.stdout).toContain('1 row of the PR could not be read and is in no figure of this report');
    // Stderr says it once, in its own words.
    expect(loose.stderr).not.toContain('in no figure of this report');
    const strict = await kprof(['diff', BASE, broken, '--strict']);
    expect(strict.code).toBe(2);
    expect(strict.stdout).toBe('');
    expect(strict.stderr).toMatch(/--strict: 1 row could not be read/);
  });
});

describe.skipIf(!HAS_REAL)('kprof diff on real same-workload pairs', () => {
  const T = `${REAL_REL}/msinsight-torchnpu`;

  it('level1 rank 0 vs rank 1 of one run: no count changes', async () => {
    const r = await expectTranscript('diff-real-level1-ranks', ['diff', `${T}/level1/rank0_ascend_pt`, `${T}/level1/rank1_ascend_pt`]);
    expect(r.code).toBe(0);
    const d = json(await kprof(['diff', `${T}/level1/rank0_ascend_pt`, `${T}/level1/rank1_ascend_pt`, '--format', 'json', '--by', 'name']));
    expect(d.rows.length).toBeGreaterThan(50);
    expect(d.rows.every((r) => r.status === 'same' && r.deltaCount === 0)).toBe(true);
    expect(d.totals.deltaCount).toBe(0);
    expect(d.unpairedRanks).toEqual({ base: [], pr: [] });
  });

  it('level1 vs level2 (two runs): only times differ once hcom names are normalised, by type and by name', async () => {
    const r = await expectTranscript('diff-real-level1-level2-by-name', [
      'diff',
      `${T}/level1/rank0_ascend_pt`,
      `${T}/level2/rank0_ascend_pt`,
      '--by',
      'name',
      '--format',
      'markdown',
      '--sort',
      'delta-time',
      '--top',
      '8',
    ]);
    expect(r.code).toBe(0);
    for (const by of ['type', 'name']) {
      const d = json(await kprof(['diff', `${T}/level1/rank0_ascend_pt`, `${T}/level2/rank0_ascend_pt`, '--format', 'json', '--by', by]));
      expect(d.rows.every((x) => x.status === 'same')).toBe(true);
      expect(d.rows.some((x) => !x.timeWithinTolerance)).toBe(true);
      expect(d.totals.deltaUs).not.toBe(0);
    }
    const names = json(await kprof(['diff', `${T}/level1/rank0_ascend_pt`, `${T}/level2/rank0_ascend_pt`, '--format', 'json', '--by', 'name']));
    expect(names.rows.map((x) => x.key)).toContain('hcom_allReduce__*');
  });

  it('both ranks of level1 vs both of level2: ranks pair up and agree', async () => {
    const r = await expectTranscript('diff-real-level1-level2-ranks', ['diff', `${T}/level1`, `${T}/level2`, '--per-step', '--top', '5']);
    expect(r.code).toBe(0);
    const d = json(await kprof(['diff', `${T}/level1`, `${T}/level2`, '--format', 'json']));
    expect(d.pairedRanks).toEqual(['0', '1']);
    expect(d.rows.every((x) => x.disagreeingRanks.length === 0)).toBe(true);
  });

  it('two pipeline stages of one job differ, and nothing is dropped', async () => {
    const S = `${REAL_REL}/msinsight-st-level2`;
    const r = await expectTranscript('diff-real-pipeline-stages', [
      'diff',
      `${S}/rank_0_ascend_pt`,
      `${S}/rank_2_ascend_pt`,
      '--only',
      'changed',
      '--top',
      '10',
    ]);
    expect(r.code).toBe(0);
    const d = json(await kprof(['diff', `${S}/rank_0_ascend_pt`, `${S}/rank_2_ascend_pt`, '--format', 'json']));
    const sum = (f: (x: DiffJson['rows'][number]) => number): number => d.rows.reduce((n, x) => n + f(x), 0);
    expect(sum((x) => x.base.count)).toBe(d.totals.base.count);
    expect(sum((x) => x.pr.count)).toBe(d.totals.pr.count);
    expect(d.rows.some((x) => x.status !== 'same')).toBe(true);
    // Two pipeline stages run different layers: their steps do not align, and no rewrite is made up, in any format.
    expect(d.rewrites!.rewrites).toEqual([]);
    expect(d.rewrites!.notes).toContainEqual(expect.objectContaining({ kind: 'unaligned' }));
    const md = (await kprof(['diff', `${S}/rank_0_ascend_pt`, `${S}/rank_2_ascend_pt`, '--format', 'markdown'])).stdout;
    expect(md).toMatch(/\n\nThe steps do not align: [^\n]*the count table above is exact\.\n\nTime test:/);
    const html = (await kprof(['diff', `${S}/rank_0_ascend_pt`, `${S}/rank_2_ascend_pt`, '--format', 'html'])).stdout;
    expect(html).toContain('<p class="rw-unaligned">The steps do not align: ');
    expect(html).not.toContain('class="rewrite"');
  });
});
