// Step time (--step-time): each step's wall span on the device, step_trace_time.csv beside the kernel table, the
// Step time section of summary and diff, and its round trip through a summary JSON.

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { Accumulator } from '../src/input/accumulator.js';
import { StepSpanTable } from '../src/input/stepSpans.js';
import { NO_STEP } from '../src/input/sink.js';
import { MARKDOWN_LIMIT } from '../src/report/diff/markdown.js';
import { readProfile } from '../src/input/read.js';
import type { StepTimeRankJson, SummaryJson, DiffJson } from '../src/model/schema.js';
import { expectTranscript, kprof, REAL, REAL_REL, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

const BASE = 'fixtures/steptime/base';
const PR = 'fixtures/steptime/pr';
const tmp = mkdtempSync(join(tmpdir(), 'kprof-steptime-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function json<T>(args: string[]): Promise<T> {
  const r = await kprof([...args, '--format', 'json']);
  expect(r.stderr).not.toMatch(/internal error/);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as T;
}

/** A decimal µs text as an exact count of 0.1 ns ticks (BigInt), independent of kprof's parsers. */
function ticksOf(text: string): bigint {
  const m = /^\s*(\d+)(?:\.(\d*))?\s*$/.exec(text);
  if (!m) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
  const frac = (m[2] ?? '').padEnd(4, '0');
  if (/[1-9]/.test(frac.slice(4))) throw new Error(`more than 4 decimals: ${text}`);
  return BigInt(m[1]!) * 10_000n + BigInt(frac.slice(0, 4));
}

/** Per Step Id: the wall span of a kernel_details.csv in ticks, computed from its text alone. */
function independentSpans(file: string): Map<number, bigint> {
  const rows = parse(readFileSync(file), { columns: true, bom: true }) as Record<string, string>[];
  const by = new Map<number, { start: bigint; end: bigint }>();
  for (const r of rows) {
    const step = r['Step Id']!.trim();
    const start = r['Start Time(us)']!.trim();
    if (step === '' || !/^\d/.test(start)) continue;
    const s = ticksOf(start);
    const e = s + ticksOf(r['Duration(us)']!);
    const cur = by.get(Number(step));
    if (cur === undefined) by.set(Number(step), { start: s, end: e });
    else {
      if (s < cur.start) cur.start = s;
      if (e > cur.end) cur.end = e;
    }
  }
  return new Map([...by].map(([k, v]) => [k, v.end - v.start]));
}

describe('StepSpanTable: first start and last end per step, in ticks', () => {
  it('spans every kernel of a step, the one that ends last not being the last one, and a step that comes back', () => {
    const t = new StepSpanTable();
    t.origin(1_000);
    t.add(1, 0, 500); // ends at 500
    t.add(1, 100, 1_000); // ends last: 1,100
    t.add(1, 200, 10);
    t.add(2, 2_000, 100);
    t.add(1, 50, 5); // step 1 again, later in the file: changes nothing
    t.add(null, 9_999, 1); // no Step Id: in no span
    t.add(2, Number.NaN, 7); // no start: counted, in no span
    const r = t.result();
    expect(r.steps).toEqual([
      { step: 1, startTicks: 0, endTicks: 1_100, kernels: 4 },
      { step: 2, startTicks: 2_000, endTicks: 2_100, kernels: 1 },
    ]);
    expect(r.withoutStart).toBe(1);
    expect(r.originUs).toBe(1_000);
  });

  it('rebases the starts of a second file to the first origin, exactly', () => {
    const t = new StepSpanTable();
    t.origin(1_736_408_883_700_000);
    t.add(7, 3, 10);
    t.origin(1_736_408_883_700_005); // the next file starts 5 µs later
    t.add(7, 1, 20); // 5 µs + 1 tick: ends at 50,021
    t.add(8, 0, 4);
    expect(t.result().steps).toEqual([
      { step: 7, startTicks: 3, endTicks: 50_021, kernels: 2 },
      { step: 8, startTicks: 50_000, endTicks: 50_004, kernels: 1 },
    ]);
  });

  it('the accumulator feeds it from the sink: batches and single kernels, exact start ticks after each file origin', () => {
    const acc = new Accumulator({ name: true, type: true, core: true, shapes: false, steps: true }, { stepTime: true });
    expect(acc.wantsStarts).toBe(true);
    const facts = { file: 'a.csv', name: true, core: true, shapes: false, steps: true, ordered: true, starts: true, streams: false };
    acc.begin(facts);
    acc.bind(0, { name: 'k', rawName: 'k', type: 'K', core: 'AI_CORE', shapes: null });
    acc.origin(1_736_408_883_700_000);
    acc.addBatch({
      ids: Int32Array.from([0, 0, 0]),
      steps: Int32Array.from([4, 4, NO_STEP]),
      ticks: Int32Array.from([10, 30, 5]),
      starts: Float64Array.from([2, 7, 50]),
      streams: null,
      n: 3,
    });
    acc.begin({ ...facts, file: 'b.csv' });
    acc.origin(1_736_408_883_700_001);
    acc.addKernel(0, 5, 20, 0);
    acc.addKernel(0, 5, 20, Number.NaN);
    const r = acc.toRankData('0', []);
    expect(r.stepSpans!.steps).toEqual([
      { step: 4, startTicks: 2, endTicks: 37, kernels: 2 },
      { step: 5, startTicks: 10_000, endTicks: 10_020, kernels: 1 },
    ]);
    expect(r.stepSpans!.withoutStartBySteps).toEqual([[5, 1]]);
    // A file without start times: no spans for the rank.
    acc.begin({ ...facts, file: 'c.csv', starts: false });
    expect(acc.toRankData('0', []).stepSpans!.available).toBe(false);
  });
});

describe.skipIf(!HAS_REAL)('real exports: msinsight-torchnpu level0 and level1 (with step_trace_time.csv)', () => {
  for (const level of ['level0', 'level1']) {
    it(`${level}: spans are those of an independent computation, step_trace values those of csv-parse`, async () => {
      const s = await json<SummaryJson>(['summary', `${REAL_REL}/msinsight-torchnpu/${level}`, '--step-time']);
      expect(s.perRank.map((r) => r.rank)).toEqual(['0', '1']);
      for (const r of s.perRank) {
        const dir = join(REAL, 'msinsight-torchnpu', level, `rank${r.rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
        const st = r.stepTime!;
        expect(st.gap).toBeNull();
        const want = independentSpans(join(dir, 'kernel_details.csv'));
        expect(st.steps.map((x) => x.step)).toEqual([...want.keys()]);
        for (const x of st.steps) {
          expect(x.spanUs).toBe(Number(want.get(x.step)!) / 10_000);
          expect(x.kernels).toBe(191);
        }
        const trace = parse(readFileSync(join(dir, 'step_trace_time.csv')), { bom: true }) as string[][];
        const [head, ...rows] = trace;
        expect(st.trace!.columns).toEqual(head!.filter((h) => h !== 'Step'));
        expect(st.trace!.rows).toEqual(rows.map((row) => ({ step: Number(row[0]), values: row.slice(1).map(Number) })));
        expect(st.trace!.rowsSkipped).toBe(0);
        // The profiler's Stage is the same step seen by the host: within a µs of the wall span.
        const stage = st.trace!.rows[0]!.values[st.trace!.columns.indexOf('Stage')]!;
        expect(Math.abs(stage - st.steps[0]!.spanUs)).toBeLessThan(1);
      }
    });
  }

  it('a Nov 2025 step_trace_time.csv (Device_id first) is read beside its kernel table', async () => {
    const s = await json<SummaryJson>(['summary', `${REAL_REL}/msinsight-st-level2`, '--step-time', '--rank', '0']);
    const t = s.perRank[0]!.stepTime!.trace!;
    expect(t.columns[0]).toBe('Computing');
    expect(t.columns).not.toContain('Device_id');
    expect(t.rows).toEqual([
      {
        step: 13,
        values: [231290.09999999995, 420174.2600000001, 0, 420174.2600000001, 158558.00000000032, 810022.25, 0, 420174.2600000001, 206.25],
      },
    ]);
  });

  it('a profile with steps but no step_trace_time.csv has spans and no trace', async () => {
    const dir = join(tmp, 'no-trace', 'rank0_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(REAL, 'msinsight-torchnpu/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv'), join(dir, 'kernel_details.csv'));
    const s = await json<SummaryJson>(['summary', join(tmp, 'no-trace'), '--step-time']);
    const with_ = await json<SummaryJson>(['summary', `${REAL_REL}/msinsight-torchnpu/level1`, '--step-time', '--rank', '0']);
    expect(s.perRank[0]!.stepTime!.trace).toBeNull();
    expect(s.perRank[0]!.stepTime!.steps).toEqual(with_.perRank[0]!.stepTime!.steps);
    const text = await kprof(['summary', join(tmp, 'no-trace'), '--step-time']);
    expect(text.stdout).toMatch(/step {2}rank {2}wall span {2}kernels\n/);
  });

  it('transcripts: summary and diff of the real pair', async () => {
    const R = `${REAL_REL}/msinsight-torchnpu`;
    await expectTranscript('steptime-real-summary', ['summary', `${R}/level1`, '--step-time', '--top', '3']);
    await expectTranscript('steptime-real-diff', ['diff', `${R}/level1`, `${R}/level2`, '--step-time', '--top', '3']);
  });
});

describe('summary --step-time', () => {
  it('uneven steps: 6 steps on rank 0, 5 on rank 1; a kernel without a start and one without a Step Id are in no span', async () => {
    const s = await json<SummaryJson>(['summary', BASE, '--step-time']);
    const [r0, r1] = s.perRank.map((r) => r.stepTime!) as [StepTimeRankJson, StepTimeRankJson];
    expect(r0.steps.map((x) => x.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(r1.steps.map((x) => x.step)).toEqual([1, 2, 3, 4, 5]);
    for (const [rank, st] of [
      ['0', r0],
      ['1', r1],
    ] as const) {
      const want = independentSpans(join(BASE, `rank${rank}_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv`));
      expect(st.steps.map((x) => [x.step, x.spanUs])).toEqual([...want].map(([k, v]) => [k, Number(v) / 10_000]));
    }
    expect(r0.withoutStart).toBe(1);
    expect(r0.steps.find((x) => x.step === 3)!.kernels).toBe(4);
    expect(r0.medianUs).toBe(652.25);
    expect(s.stepTime).toEqual({ steps: 11, medianUs: 654, minUs: 651, maxUs: 1628.5 });
  });

  it('--steps keeps the spans and step_trace rows of those steps; --match and --core do not change a step', async () => {
    const s = await json<SummaryJson>(['summary', BASE, '--step-time', '--steps', '2-4', '--match', 'Cast']);
    const st = s.perRank[0]!.stepTime!;
    expect(st.steps.map((x) => [x.step, x.spanUs])).toEqual([
      [2, 651],
      [3, 651.5],
      [4, 652],
    ]);
    expect(st.trace!.rows.map((r) => r.step)).toEqual([2, 3, 4]);
    // The kernel without a start is in step 3: counted within 2-4, not within 4-5.
    expect(st.withoutStart).toBe(1);
    const later = await json<SummaryJson>(['summary', BASE, '--step-time', '--steps', '4-5']);
    expect(later.perRank[0]!.stepTime!.withoutStart).toBe(0);
  });

  it('without --step-time nothing changes: no section, no JSON field', async () => {
    const r = await kprof(['summary', BASE]);
    expect(r.stdout).not.toContain('Step time');
    const s = await json<SummaryJson>(['summary', BASE]);
    expect('stepTime' in s).toBe(false);
    expect('stepTime' in s.perRank[0]!).toBe(false);
  });

  it('formats without start times say step time is unavailable', async () => {
    const r = await kprof(['summary', 'fixtures/formats/op-statistic-no-device/op_statistic.csv', '--step-time']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No step time: no rank has step spans.');
    expect(r.stdout).toMatch(/rank \(no id\): no step spans: its files have no start time per kernel/);
    const s = await json<SummaryJson>(['summary', 'fixtures/formats/op-statistic-no-device/op_statistic.csv', '--step-time']);
    expect(s.perRank[0]!.stepTime!.gap).toBe('no-starts');
  });

  it('read in worker threads: the same step spans', async () => {
    const a = await readProfile(BASE, { withShapes: false, ranks: null, threads: 'on', stepTime: true });
    const b = await readProfile(BASE, { withShapes: false, ranks: null, threads: 'off', stepTime: true });
    expect(a.ranks.map((r) => r.stepSpans)).toEqual(b.ranks.map((r) => r.stepSpans));
    expect(a.ranks.map((r) => r.stepTrace?.rows)).toEqual(b.ranks.map((r) => r.stepTrace?.rows));
    expect(a.ranks[0]!.stepSpans!.steps).toHaveLength(6);
  });

  it('transcripts: table, markdown, html section', async () => {
    await expectTranscript('steptime-summary', ['summary', BASE, '--step-time']);
    await expectTranscript('steptime-summary-markdown', ['summary', BASE, '--step-time', '--format', 'markdown', '--top', '2']);
    const html = await kprof(['summary', BASE, '--step-time', '--format', 'html']);
    expect(html.stdout).toContain('<h2 id="steptime-h">Step time');
    expect(html.stdout).toContain('<td class="num">651.00 µs</td>');
  });
});

describe('diff --step-time', () => {
  it('the wall span over all ranks is judged by the Mann–Whitney test: 11 vs 12 steps, 20% faster', async () => {
    const d = await json<DiffJson>(['diff', BASE, PR, '--step-time']);
    const st = d.stepTime!;
    const span = st.rows.find((r) => r.metric === 'span' && r.rank === null)!;
    expect(span).toMatchObject({ baseSteps: 11, prSteps: 12, baseMedianUs: 654, prMedianUs: 524.25, significant: true, reason: 'significant' });
    expect(span.p).toBeLessThan(0.05);
    // Each rank alone: the identical warm-up step 1 on both sides leaves p just above 0.05: `~`.
    const r0 = st.rows.find((r) => r.metric === 'span' && r.rank === '0')!;
    expect(r0).toMatchObject({ significant: false, reason: 'noise' });
    // Free did not change: `~`.
    expect(st.rows.find((r) => r.metric === 'Free')!.significant).toBe(false);
    // rank 1 of the PR has no step_trace_time.csv: the columns come from the ranks that have one.
    expect(st.rows.find((r) => r.metric === 'Computing')).toMatchObject({ baseSteps: 11, prSteps: 6 });
    expect(st.withoutStart).toEqual({ base: 1, pr: 0 });
  });

  it('--steps 2- leaves the warm-up out: each rank shows the change too', async () => {
    const d = await json<DiffJson>(['diff', BASE, PR, '--step-time', '--steps', '2-']);
    const rows = d.stepTime!.rows.filter((r) => r.metric === 'span');
    expect(rows.map((r) => [r.rank, r.significant])).toEqual([
      [null, true],
      ['0', true],
      ['1', true],
    ]);
  });

  it('the same profile on both sides: every row is `~`', async () => {
    const d = await json<DiffJson>(['diff', BASE, BASE, '--step-time']);
    expect(d.stepTime!.rows.every((r) => !r.significant && r.deltaUs === 0)).toBe(true);
    const t = await kprof(['diff', BASE, BASE, '--step-time']);
    expect(t.stdout).toMatch(/wall span, all ranks +654\.00 µs +654\.00 µs +~ +~ +11 \/ 11 +1\.000/);
  });

  it('neither side has spans: no table, only why (as in the summary)', async () => {
    const OPSTAT = 'fixtures/formats/op-statistic-no-device/op_statistic.csv';
    for (const format of ['table', 'markdown']) {
      const t = await kprof(['diff', OPSTAT, OPSTAT, '--step-time', '--format', format]);
      expect(t.code, format).toBe(0);
      expect(t.stdout, format).toContain('No step time: no rank has step spans.');
      expect(t.stdout, format).not.toContain('wall span, all ranks');
      expect(t.stdout, format).not.toContain('~: not shown as a change');
    }
  });

  it('transcripts: table and markdown', async () => {
    await expectTranscript('steptime-diff', ['diff', BASE, PR, '--step-time', '--top', '2']);
    await expectTranscript('steptime-diff-markdown', ['diff', BASE, PR, '--step-time', '--top', '2', '--format', 'markdown']);
    const html = await kprof(['diff', BASE, PR, '--step-time', '--format', 'html']);
    expect(html.stdout).toContain('wall span, all ranks');
  });
});

describe('Markdown diff with step time of many ranks with long names', () => {
  it('stays under the comment limit', async () => {
    const long = 'w'.repeat(150);
    const head = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n';
    for (const side of ['b', 'p']) {
      for (let i = 0; i < 40; i++) {
        const dir = join(tmp, `md-${side}`, `x${i}_${long}`, 'ASCEND_PROFILER_OUTPUT');
        mkdirSync(dir, { recursive: true });
        const n = i === 0 ? 3_000 : 2;
        const rows = Array.from(
          { length: n },
          (_, k) => `1,"k${k}</details> | \`x\` ${long}",T${k},AI_CORE,${1000 + k}.5,${side === 'b' ? 1 + (k % 3) : 2 + (k % 5)}\n`,
        );
        writeFileSync(join(dir, 'kernel_details.csv'), head + rows.join(''));
      }
    }
    const r = await kprof(['diff', join(tmp, 'md-b'), join(tmp, 'md-p'), '--by', 'name', '--step-time', '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('### Step time: base vs PR');
    expect(r.stdout).toContain('whose median wall span moved most have a row');
    expect(r.stdout.length).toBeLessThan(MARKDOWN_LIMIT);
  });
});

describe('summary step time of many ranks', () => {
  it('gives a row to the ranks farthest from the median, so a slow rank past the first 32 is seen', async () => {
    // 48 ranks of 2 steps; rank 40's steps take 5 ms, every other rank's 1 ms.
    const head = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n';
    for (let rank = 0; rank < 48; rank++) {
      const dir = join(tmp, 'straggler', `rank_${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
      mkdirSync(dir, { recursive: true });
      const span = rank === 40 ? 5000 : 1000;
      writeFileSync(join(dir, 'kernel_details.csv'), `${head}1,a,A,AI_CORE,0,${span}\n2,a,A,AI_CORE,10000,${span}\n`);
    }
    const r = await kprof(['summary', join(tmp, 'straggler'), '--step-time']);
    expect(r.code).toBe(0);
    const rows = r.stdout.split('\n').filter((l) => /^\d+ +2 /.test(l));
    expect(rows).toHaveLength(32);
    // Rank 40 has its row, in rank order, and the first ranks on ties; rank 41 and on do not.
    expect(rows.map((l) => l.split(' ')[0])).toEqual([...Array.from({ length: 31 }, (_, i) => String(i)), '40']);
    expect(rows.at(-1)).toMatch(/^40 +2 +5\.00 ms/);
    expect(r.stdout).toContain(
      "The 32 of 48 ranks whose median wall span is farthest from the ranks' median have a row; all of them are in --format json.",
    );
  });
});

describe('summary JSON: step time reads back exactly', () => {
  const snap = (name: string): string => join(tmp, name);

  it('summary of the snapshot = summary of the profile; diff of snapshots = diff of the profiles', async () => {
    const b = snap('base.json');
    const p = snap('pr.json');
    expect((await kprof(['summary', BASE, '--step-time', '--format', 'json', '-o', b])).code).toBe(0);
    expect((await kprof(['summary', PR, '--step-time', '--format', 'json', '-o', p])).code).toBe(0);
    const again = await json<SummaryJson>(['summary', b, '--step-time']);
    const first = JSON.parse(readFileSync(b, 'utf8')) as SummaryJson;
    expect({ ...again, inputs: [] }).toEqual({ ...first, inputs: [] });
    const raw = await json<DiffJson>(['diff', BASE, PR, '--step-time']);
    const saved = await json<DiffJson>(['diff', b, p, '--step-time']);
    expect(saved.stepTime).toEqual(raw.stepTime);
    expect(saved.totals).toEqual(raw.totals);
    expect(saved.rows).toEqual(raw.rows);
  });

  it('kprof merge keeps the step time of per-rank snapshots', async () => {
    const whole = snap('whole.json');
    await kprof(['summary', BASE, '--step-time', '--format', 'json', '-o', whole]);
    const parts = ['0', '1'].map((r) => snap(`rank${r}.json`));
    for (const [i, f] of parts.entries()) await kprof(['summary', BASE, '--step-time', '--rank', String(i), '--format', 'json', '-o', f]);
    const merged = await kprof(['merge', ...parts]);
    expect(merged.code).toBe(0);
    const m = JSON.parse(merged.stdout) as SummaryJson;
    const w = JSON.parse(readFileSync(whole, 'utf8')) as SummaryJson;
    expect(m.perRank.map((r) => r.stepTime)).toEqual(w.perRank.map((r) => r.stepTime));
    expect(m.stepTime).toEqual(w.stepTime);
  });

  it('a snapshot made without --step-time says so', async () => {
    const b = snap('plain.json');
    await kprof(['summary', BASE, '--format', 'json', '-o', b]);
    const r = await kprof(['summary', b, '--step-time']);
    expect(r.stdout).toContain('ranks 0, 1: no step spans: a summary JSON made without --step-time.');
    const d = await json<DiffJson>(['diff', b, PR, '--step-time']);
    expect(d.stepTime!.gaps.base).toEqual([
      { rank: '0', gap: 'not-saved' },
      { rank: '1', gap: 'not-saved' },
    ]);
    expect(d.stepTime!.rows[0]).toMatchObject({ baseSteps: 0, significant: false, reason: 'no-samples', deltaUs: null });
  });

  it('an edited step time is refused, naming what is wrong', async () => {
    const b = snap('edit.json');
    await kprof(['summary', BASE, '--step-time', '--format', 'json', '-o', b]);
    const o = JSON.parse(readFileSync(b, 'utf8')) as SummaryJson;
    const cases: [string, (x: SummaryJson) => void, RegExp][] = [
      [
        'span',
        (x) => {
          x.perRank[0]!.stepTime!.steps[1]!.spanUs = 9_999;
          delete x.stepTime;
        },
        /"stepTime" of rank "0": its median, min, max or gap contradicts its steps/,
      ],
      ['step', (x) => void (x.perRank[0]!.stepTime!.steps[5]!.step = 60), /step 60 of the "stepTime" of rank "0" is not one of the rank's "steps"/],
      ['order', (x) => x.perRank[0]!.stepTime!.steps.reverse(), /not distinct and in order/],
      ['µs', (x) => void (x.perRank[0]!.stepTime!.steps[0]!.spanUs = 1.00001), /"spanUs" of 1\.00001, expected a number of µs/],
      [
        'values',
        (x) => void x.perRank[0]!.stepTime!.trace!.rows[0]!.values.pop(),
        /"values" that are not 8 numbers of µs \(0 or more, below 2\^51 ticks of 0\.1 ns .*\) or nulls/,
      ],
      [
        'negative',
        (x) => void (x.perRank[0]!.stepTime!.trace!.rows[0]!.values[0] = -5),
        /"values" that are not 8 numbers of µs \(0 or more, below 2\^51 ticks of 0\.1 ns .*\) or nulls/,
      ],
      ['top', (x) => void (x.stepTime!.medianUs = 1), /top-level "stepTime"/],
    ];
    for (const [name, edit, message] of cases) {
      const x = structuredClone(o);
      edit(x);
      const f = join(tmp, `edit-${name}.json`);
      writeFileSync(f, JSON.stringify(x));
      const r = await kprof(['summary', f, '--step-time']);
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toMatch(message);
    }
  });
});

describe('step_trace_time.csv from others', () => {
  it('a negative time or Step is a row warned of and counted; a word in Stage (a phase) is no time, quietly', async () => {
    const dir = join(tmp, 'negative', 'rank0_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(BASE, 'rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv'), join(dir, 'kernel_details.csv'));
    writeFileSync(join(dir, 'step_trace_time.csv'), 'Step,Computing,Stage,Free\n1,10,decode,2\n2,-5,1,1\n-7,1,1,1\n3,4,-2,1\n4,4,prefill x,1\n');
    const r = await kprof(['summary', join(tmp, 'negative'), '--step-time']);
    expect(r.code).toBe(0);
    // It was shown as it was (a negative Computing), or read as a step no --steps range selects (-7).
    expect(r.stderr).toMatch(/step_trace_time\.csv:3: Computing is negative \(-5\); step_trace row skipped/);
    expect(r.stderr).toMatch(/step_trace_time\.csv:4: Step is -7, expected a step number \(0 or more\); step_trace row skipped/);
    expect(r.stderr).toMatch(/step_trace_time\.csv:5: Stage is negative \(-2\); step_trace row skipped/);
    expect(r.stderr.match(/step_trace row skipped/g)).toHaveLength(3);
    const t = (await json<SummaryJson>(['summary', join(tmp, 'negative'), '--step-time'])).perRank[0]!.stepTime!.trace!;
    expect(t.rows).toEqual([
      { step: 1, values: [10, null, 2] },
      { step: 4, values: [4, null, 1] },
    ]);
    expect(t.rowsSkipped).toBe(3);
  });

  it('rows that cannot be read are warned of and counted; a column name is text, never markup or a line', async () => {
    const dir = join(tmp, 'hostile', 'rank0_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(BASE, 'rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv'), join(dir, 'kernel_details.csv'));
    writeFileSync(
      join(dir, 'step_trace_time.csv'),
      '\uFEFFStep,Computing,"<b>x\u001b[31m",Free\r\n1,10,1,2\r\nx,1,1,1\r\n2,1,1\r\n1,5,5,5\r\n3,abc,,1\r\n4,1,2,1e400\r\n3,1,,2\r\n',
    );
    const r = await kprof(['summary', join(tmp, 'hostile'), '--step-time']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/step_trace_time\.csv:3: Step is "x", expected a whole number; step_trace row skipped/);
    expect(r.stderr).toMatch(/:4: row has 3 cells, the header has 4/);
    expect(r.stderr).toMatch(/:5: step 1 is in the file twice/);
    // A time that is not a number of µs: it showed as -, unsaid. Each row warned of with its line, and counted.
    expect(r.stderr).toMatch(/step_trace_time\.csv:6: Computing is "abc", expected a number of µs; step_trace row skipped/);
    expect(r.stderr).toMatch(/step_trace_time\.csv:7: Free is "1e400", expected a number of µs; step_trace row skipped/);
    expect(r.stdout).toContain('5 step_trace_time.csv rows could not be read');
    expect(r.stdout).not.toMatch(/\u001b|<b>/);
    const s = await json<SummaryJson>(['summary', join(tmp, 'hostile'), '--step-time']);
    const t = s.perRank[0]!.stepTime!.trace!;
    expect(t.columns).toEqual(['Computing', '<b>x\u001b[31m', 'Free']);
    // An empty cell is no time given: null (shown as -), the row read.
    expect(t.rows).toEqual([
      { step: 1, values: [10, 1, 2] },
      { step: 3, values: [1, null, 2] },
    ]);
    expect(t.rowsSkipped).toBe(5);
    const md = await kprof(['diff', join(tmp, 'hostile'), join(tmp, 'hostile'), '--step-time', '--format', 'markdown']);
    expect(md.stdout).not.toMatch(/\u001b|<b>/);
  });

  it('a time past 2^51 ticks (1e308) is a row that cannot be read, in the file and in a summary JSON', async () => {
    const dir = join(tmp, 'huge', 'rank0_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(BASE, 'rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv'), join(dir, 'kernel_details.csv'));
    writeFileSync(join(dir, 'step_trace_time.csv'), 'Step,Computing,Free\n1,1e308,2\n2,225179981369,1\n3,225179981368,1\n');
    const r = await kprof(['summary', join(tmp, 'huge'), '--step-time']);
    expect(r.code).toBe(0);
    // It was read, and the table printed a number of 309 digits.
    expect(r.stderr).toMatch(
      /step_trace_time\.csv:2: Computing is 1e308, more than kprof takes of a time \(2\^51 ticks of 0\.1 ns .*\); step_trace row skipped/,
    );
    expect(r.stderr).toMatch(/step_trace_time\.csv:3: Computing is 225179981369, more than kprof takes of a time/);
    expect(r.stdout).not.toMatch(/000,000,000,000,000/);
    const s = await json<SummaryJson>(['summary', join(tmp, 'huge'), '--step-time']);
    const t = s.perRank[0]!.stepTime!.trace!;
    expect(t.rows).toEqual([{ step: 3, values: [225179981368, 1] }]);
    // A summary JSON edited to hold one: refused, as any figure it could not have written.
    t.rows[0]!.values[0] = 1e308;
    const file = join(tmp, 'huge.json');
    writeFileSync(file, JSON.stringify(s));
    const back = await kprof(['summary', file, '--step-time']);
    expect(back.code).toBe(2);
    expect(back.stderr).toMatch(/has "values" that are not 2 numbers of µs \(0 or more, below 2\^51 ticks of 0\.1 ns/);
  });

  it('a file with no Step column is warned of and not read', async () => {
    const dir = join(tmp, 'nostep', 'rank0_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(BASE, 'rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv'), join(dir, 'kernel_details.csv'));
    writeFileSync(join(dir, 'step_trace_time.csv'), 'Iteration,Computing\n1,2\n');
    const r = await kprof(['summary', join(tmp, 'nostep'), '--step-time', '--format', 'json']);
    expect(r.stderr).toMatch(/step_trace_time\.csv:1: no "Step" column \(found Iteration, Computing\)/);
    expect((JSON.parse(r.stdout) as SummaryJson).perRank[0]!.stepTime!.trace).toBeNull();
  });
});
