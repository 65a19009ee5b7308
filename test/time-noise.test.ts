// Time changes judged by the steps: the Mann–Whitney U test over per-step samples in `kprof diff` (a change within
// the step noise is `~`, a real one is shown), its fallback to --time-tolerance alone, snapshots read back to the
// same verdicts, base and PR swapped give the same p, and real exports.

import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import type { DiffJson, DiffRowJson } from '../src/model/schema.js';
import { expectTranscript, kprof, REAL, REAL_REL, ROOT, type Result, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const NOISE = 'fixtures/time-noise';
const EX = 'fixtures/fusion-example';

function json(r: Result): DiffJson {
  expect(r.stderr).not.toMatch(/internal error/);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as DiffJson;
}

const byKey = (j: DiffJson): Map<string, DiffRowJson> => new Map(j.rows.map((r) => [r.key, r]));

const tmp = mkdtempSync(join(tmpdir(), 'kprof-noise-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('kprof diff: time changes judged by the steps', () => {
  // One rank, 6 steps. MatMulV2 +4.7% but its steps overlap (95-140 µs on both sides); Softmax -10% in every
  // step; Add +1% in every step (real, but under the tolerance).
  const cases: [string, string[]][] = [
    ['diff-time-noise', ['diff', `${NOISE}/base`, `${NOISE}/pr`]],
    ['diff-time-noise-markdown', ['diff', `${NOISE}/base`, `${NOISE}/pr`, '--format', 'markdown']],
    ['diff-time-noise-alpha', ['diff', `${NOISE}/base`, `${NOISE}/pr`, '--alpha', '0.6']],
    ['diff-time-noise-too-few', ['diff', `${NOISE}/base`, `${NOISE}/pr`, '--steps', '1-3']],
    ['diff-error-bad-alpha', ['diff', `${NOISE}/base`, `${NOISE}/pr`, '--alpha', '5']],
  ];
  for (const [name, args] of cases) {
    it(name, async () => {
      const r = await expectTranscript(name, args);
      expect(r.code).toBe(name.includes('error') ? 2 : 0);
    });
  }

  it('--time-tolerance is a percentage from 0 to 100: a time falls by 100% at most', async () => {
    const args = ['diff', `${NOISE}/base`, `${NOISE}/pr`, '--time-tolerance'];
    expect((await kprof([...args, '100'])).code).toBe(0);
    expect(await kprof([...args, '101'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'kprof: --time-tolerance: expected a percentage from 0 to 100, such as 2 or 0.5%; found "101". A time falls by 100% at most, ' +
        'so a tolerance above 100 is not ±: it hides more slow-downs only. Give 100 or less (the default is 2).\n',
    });
  });

  it('a change within the step noise is ~ in every format; a real one is shown; JSON carries the test', async () => {
    const args = ['diff', `${NOISE}/base`, `${NOISE}/pr`];
    const j = json(await kprof([...args, '--format', 'json']));
    const rows = byKey(j);
    const mm = rows.get('MatMulV2')!;
    expect(mm.deltaUsPct).toBeCloseTo(4.7482, 3);
    expect(mm.timeWithinTolerance).toBe(false);
    expect(mm.timeNoise).toBe(true);
    expect(mm.timeTest).toMatchObject({ verdict: 'noise', test: 'mann-whitney-u', strata: 1, n: { base: 6, pr: 6 }, u: 14 });
    expect(mm.timeTest.p).toBeGreaterThan(0.5);
    const sm = rows.get('Softmax')!;
    // Every PR step below every base step: U = 36 of 36, exact p = 2 / C(12, 6).
    expect(sm.timeTest).toMatchObject({ verdict: 'changed', method: 'exact', u: 36 });
    expect(sm.timeTest.p).toBeCloseTo(2 / 924, 12);
    expect(sm.timeNoise).toBe(false);
    expect(rows.get('Add')!.timeTest.verdict).toBe('small');
    expect(j.totals.timeNoise).toBe(true);
    expect(j.timeTest).toMatchObject({ alpha: 0.05, tested: 4, noise: 2, tooFew: 0, noSteps: 0, fallback: null });

    const table = (await kprof(args)).stdout;
    expect(table).toMatch(/^MatMulV2 .*\+33\.00 µs\s+~\s+same$/m);
    expect(table).toMatch(/^Softmax .*-12\.10 µs\s+-10\.0%\s+same$/m);
    const md = (await kprof([...args, '--format', 'markdown'])).stdout;
    expect(md).toContain('| `MatMulV2` | 6 (695 µs) | 6 (728 µs) | 0 (~) | same |');
    expect(md).toContain('| `Softmax` | 6 (121 µs) | 6 (108 µs) | 0 (-12.1 µs) | same count, -10.0% time |');
    const csv = (await kprof([...args, '--format', 'csv'])).stdout;
    expect(csv).toMatch(/^MatMulV2,.*,4\.7482,false,,,,true,noise,0\.5\d+,14,6,6$/m);
    expect(csv).toMatch(/^Softmax,.*,false,changed,0\.0021645\d*,36,6,6$/m);
    const html = (await kprof([...args, '--format', 'html'])).stdout;
    expect(html).toContain('MatMulV2: 695.00 µs → 728.00 µs (+33.00 µs, within the step noise, p = 0.57: noise)');
    expect(html).toMatch(/<td data-v="4\.7482">~<\/td>/);
  });

  it('--alpha: a looser level shows the overlapping change; a bad level is a usage error', async () => {
    const j = json(await kprof(['diff', `${NOISE}/base`, `${NOISE}/pr`, '--alpha', '0.6', '--format', 'json']));
    expect(byKey(j).get('MatMulV2')!.timeTest.verdict).toBe('changed');
    expect(j.timeTest.alpha).toBe(0.6);
    for (const bad of ['0', '1', '-0.1', 'x', '5%']) {
      const r = await kprof(['diff', `${NOISE}/base`, `${NOISE}/pr`, '--alpha', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--alpha: expected a significance level between 0 and 1');
    }
  });

  it('too few steps: the tolerance alone, said once (a note and a JSON field), never silently', async () => {
    // 3 against 3 steps: the smallest p is 2 / C(6, 3) = 0.1.
    const r = await kprof(['diff', `${NOISE}/base`, `${NOISE}/pr`, '--steps', '1-3', '--format', 'json']);
    const j = json(r);
    expect(j.timeTest.tooFew).toBe(4);
    expect(j.timeTest.fallback).toBe(
      'Time test: all time changes are judged by --time-tolerance alone: 3 against 3 samples (one per rank and step) cannot give a p below 0.05.',
    );
    for (const row of [...j.rows, j.totals]) expect(row.timeNoise).toBe(row.timeWithinTolerance);
    const table = (await kprof(['diff', `${NOISE}/base`, `${NOISE}/pr`, '--steps', '1-3'])).stdout;
    expect(table.split(j.timeTest.fallback!).length).toBe(2);
    expect(table).toMatch(/^MatMulV2 .*\+\d+\.\d+%\s+same$/m);
  });

  it('op_statistic has no steps: the tolerance alone, and the report says why', async () => {
    const stat = (side: string) =>
      `${EX}/${side}/node-07_${side === 'base' ? '2841907_20260311093512417' : '3019544_20260312141047205'}_ascend_pt/ASCEND_PROFILER_OUTPUT/op_statistic.csv`;
    const r = await kprof(['diff', stat('base'), stat('pr'), '--format', 'json']);
    const j = json(r);
    expect(j.timeTest.fallback).toMatch(
      /^Time test: the base and the PR have no Step Id, so no per-step samples: .* judged by --time-tolerance alone\.$/,
    );
    expect(j.rows.every((x) => x.timeTest.test === null && ['no-steps', 'zero'].includes(x.timeTest.verdict))).toBe(true);
  });

  it('snapshots carry the per-step cells: a diff of summary JSONs gives the same verdicts and p-values', async () => {
    for (const [name, base, pr] of [
      ['noise', `${NOISE}/base`, `${NOISE}/pr`],
      ['example', `${EX}/base`, `${EX}/pr`],
    ] as const) {
      const raw = json(await kprof(['diff', base, pr, '--format', 'json']));
      const b = join(tmp, `${name}-base.json`);
      const p = join(tmp, `${name}-pr.json`);
      expect((await kprof(['summary', base, '--format', 'json', '-o', b])).code).toBe(0);
      expect((await kprof(['summary', pr, '--format', 'json', '-o', p])).code).toBe(0);
      const saved = json(await kprof(['diff', b, p, '--format', 'json']));
      const verdicts = (j: DiffJson) => [...j.rows, j.totals].map((x) => ({ noise: x.timeNoise, test: x.timeTest }));
      expect(verdicts(saved)).toEqual(verdicts(raw));
      expect(saved.timeTest).toEqual(raw.timeTest);
      // Mixed: a snapshot against a profile.
      expect(verdicts(json(await kprof(['diff', b, pr, '--format', 'json'])))).toEqual(verdicts(raw));
    }
  });

  it('swapping base and PR gives the same p for every row and the totals (and U of the other side)', async () => {
    for (const [base, pr, extra] of [
      [`${EX}/base`, `${EX}/pr`, []],
      [`${EX}/base`, `${EX}/pr`, ['--by', 'name']],
      [`${NOISE}/base`, `${NOISE}/pr`, []],
    ] as const) {
      const ab = json(await kprof(['diff', base, pr, ...extra, '--format', 'json']));
      const ba = byKey(json(await kprof(['diff', pr, base, ...extra, '--format', 'json'])));
      for (const r of ab.rows) {
        const s = ba.get(r.key)!;
        expect(s.timeTest.verdict === 'zero').toBe(r.timeTest.verdict === 'zero');
        if (r.timeTest.p === null) continue;
        expect(Math.abs(s.timeTest.p! - r.timeTest.p)).toBeLessThan(1e-12);
        expect(s.timeTest.n).toEqual({ base: r.timeTest.n.pr, pr: r.timeTest.n.base });
        if (r.timeTest.strata === 1) expect(s.timeTest.u! + r.timeTest.u!).toBe(r.timeTest.n.base * r.timeTest.n.pr);
      }
      const t = json(await kprof(['diff', pr, base, ...extra, '--format', 'json'])).totals.timeTest;
      expect(Math.abs(t.p! - ab.totals.timeTest.p!)).toBeLessThan(1e-12);
    }
  });
});

describe('kprof diff: ranks that do not pair are not tested', () => {
  /** fixtures/cluster/pr's rank 0 snapshot with its rank id renamed (the summary's `ranks` and `perRank[].rank`). */
  function renamed(id: string): string {
    const s = JSON.parse(readFileSync(join(ROOT, 'fixtures/cluster/pr/rank0.summary.json'), 'utf8')) as {
      ranks: string[];
      perRank: { rank: string }[];
    };
    s.ranks = [id];
    for (const r of s.perRank) r.rank = id;
    const f = join(tmp, `pr${id}.summary.json`);
    writeFileSync(f, JSON.stringify(s));
    return f;
  }

  it('two base ranks against one PR rank of another id: the halved times are shown, not called noise', async () => {
    const pr10 = renamed('10');
    const r = await kprof(['diff', 'fixtures/cluster/base', pr10, '--format', 'json']);
    expect(r.stderr).toContain('Ranks on one side only: ranks 0, 1 in the base only; rank 10 in the PR only.');
    const j = json(r);
    expect(j.pairedRanks).toEqual([]);
    const mm = byKey(j).get('MatMulV3')!;
    expect(mm.deltaUsPct!).toBeLessThan(-50);
    expect(mm.timeTest).toMatchObject({ verdict: 'no-steps', p: null, strata: 0 });
    expect(mm.timeNoise).toBe(false);
    for (const x of [...j.rows, j.totals]) {
      expect(['no-steps', 'zero']).toContain(x.timeTest.verdict);
      expect(x.timeNoise).toBe(false);
    }
    expect(j.timeTest).toMatchObject({ tested: 0, noise: 0 });
    expect(j.timeTest.fallback).toBe(
      'Time test: the time changes of 23 groups and of the totals are judged by --time-tolerance alone: no rank id is on both sides, so no rank can be compared with its own steps (see the warning on ranks).',
    );
    const table = (await kprof(['diff', 'fixtures/cluster/base', pr10])).stdout;
    expect(table).toMatch(/\nMatMulV3 .* -50\.6% {2}fewer\n/);
    expect(table).not.toMatch(/ ~ /);
    expect(table).not.toContain('rank by rank');
  });

  it('one rank against one is a pair whatever the ids, and is tested', async () => {
    const j = json(await kprof(['diff', 'fixtures/cluster/pr/rank0.summary.json', renamed('10'), '--format', 'json']));
    expect(j.timeTest).toMatchObject({ noSteps: 0, fallback: null });
    expect(byKey(j).get('MatMulV3')!.timeTest).toMatchObject({ verdict: 'noise', p: 1, strata: 1 });
  });
});

/** A kernel_details.csv of real exports, each file one step (Step Id 1, 2, …), durations possibly scaled by type. */
function realSteps(files: string[], scale: (type: string) => number = () => 1): string {
  const lines = ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)'];
  let t = 1_000_000;
  files.forEach((f, i) => {
    const rows: Record<string, string>[] = parse(readFileSync(join(REAL, f), 'utf8'), { bom: true, columns: true, relax_column_count: true });
    for (const r of rows) {
      const dur = Number(String(r['Duration(us)']).trim()) * scale(r.Type ?? '');
      const q = (s: string | undefined) => `"${(s ?? '').replaceAll('"', '""')}"`;
      lines.push(`${i + 1},${q(r.Name)},${q(r.Type)},${q(r['Accelerator Core'])},${t.toFixed(3)},${dur.toFixed(3)}`);
      t += 1000;
    }
  });
  return `${lines.join('\n')}\n`;
}

describe.skipIf(!HAS_REAL)('real exports', () => {
  const T = 'msinsight-torchnpu';
  const instances = [`${T}/level1/rank0_ascend_pt`, `${T}/level1/rank1_ascend_pt`, `${T}/level2/rank0_ascend_pt`, `${T}/level2/rank1_ascend_pt`].map(
    (d) => `${d}/ASCEND_PROFILER_OUTPUT/kernel_details.csv`,
  );

  it('level0 vs level1 (one step per rank): every change judged by the tolerance alone, and said so', async () => {
    const j = json(await kprof(['diff', `${REAL_REL}/${T}/level0`, `${REAL_REL}/${T}/level1`, '--by', 'name', '--format', 'json']));
    expect(j.timeTest.tested).toBe(0);
    expect(j.timeTest.fallback).toContain('2 against 2 samples (one per rank and step, compared within each of 2 ranks) cannot give a p below 0.05');
    for (const r of [...j.rows, j.totals]) {
      expect(['too-few', 'zero']).toContain(r.timeTest.verdict);
      expect(r.timeNoise).toBe(r.timeWithinTolerance);
    }
  });

  it('a self-diff of four real steps (level1 and level2, ranks 0 and 1): tested, and no time change anywhere', async () => {
    const dir = join(tmp, 'real-steps');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'kernel_details.csv'), realSteps(instances));
    const j = json(await kprof(['diff', dir, dir, '--format', 'json']));
    expect(j.timeTest).toMatchObject({ tooFew: 0, noSteps: 0, fallback: null });
    expect(j.timeTest.tested).toBe(j.rows.length + 1);
    for (const r of [...j.rows, j.totals]) {
      expect(r.timeTest.verdict === 'changed' || r.timeTest.verdict === 'small').toBe(false);
      expect(r.timeTest.p).toBe(1);
    }
  });

  it('four real steps against the same steps in another order, one type 20% faster: only that type is shown', async () => {
    const dir = join(tmp, 'real-scaled');
    mkdirSync(join(dir, 'base'), { recursive: true });
    mkdirSync(join(dir, 'pr'), { recursive: true });
    writeFileSync(join(dir, 'base', 'kernel_details.csv'), realSteps(instances));
    // The type whose four real step times vary least (under 20% between the steps), of the largest time: with
    // every PR step 20% faster, each is below every base step (exact p = 2 / C(8, 4)).
    const perStep = new Map<string, number[]>();
    instances.forEach((f, i) => {
      const rs: Record<string, string>[] = parse(readFileSync(join(REAL, f), 'utf8'), { bom: true, columns: true, relax_column_count: true });
      for (const r of rs) {
        const v = perStep.get(r.Type!) ?? [0, 0, 0, 0];
        v[i]! += Number(String(r['Duration(us)']).trim());
        perStep.set(r.Type!, v);
      }
    });
    const stable = [...perStep]
      .filter(([, v]) => Math.max(...v) / Math.min(...v) < 1.2)
      .sort((a, b) => b[1].reduce((x, y) => x + y) - a[1].reduce((x, y) => x + y))[0]![0];
    writeFileSync(
      join(dir, 'pr', 'kernel_details.csv'),
      realSteps([...instances].reverse(), (t) => (t === stable ? 0.8 : 1)),
    );
    const j = json(await kprof(['diff', join(dir, 'base'), join(dir, 'pr'), '--format', 'json']));
    const changed = j.rows.filter((r) => r.timeTest.verdict === 'changed').map((r) => r.key);
    expect(changed).toEqual([stable]);
    expect(byKey(j).get(stable)!.timeTest.p).toBeCloseTo(2 / 70, 12);
    // Every other row: the same real steps in another order, so the same samples (p = 1).
    for (const r of j.rows) if (r.key !== stable) expect(r.timeTest.p).toBe(1);
  });
});
