// The Chrome-trace reader on the real exports of ../shared/data/real, against independent reads:
// - torch_npu trace_view.json against the kernel_details.csv of the same run (read with csv-parse);
// - kineto traces against a plain JSON.parse of the same file (and HTA's way of finding a kernel's step).

import { spawnSync } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { readChromeTrace } from '../src/input/formats/trace/chromeTrace.js';
import type { TraceRecord } from '../src/input/formats/trace/record.js';
import { traceChunks } from '../src/input/bytes/chunks.js';
import { expectTranscript, kprof, REAL, REAL_REL, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

interface Tally {
  count: number;
  ticks: number;
  steps: Map<number | null, number>;
}

async function read(file: string, shortNames = false) {
  const byName = new Map<string, Tally>();
  const kinds = new Map<string, number>();
  const records: TraceRecord[] = [];
  const warnings: string[] = [];
  const info = await readChromeTrace(
    file,
    traceChunks(file),
    {
      kernel(r) {
        records.push({ ...r });
        kinds.set(r.kind, (kinds.get(r.kind) ?? 0) + 1);
        if (r.kind === 'memcpy' || r.kind === 'memset') return;
        let t = byName.get(r.name);
        if (!t) byName.set(r.name, (t = { count: 0, ticks: 0, steps: new Map() }));
        t.count++;
        t.ticks += r.ticks;
        t.steps.set(r.step, (t.steps.get(r.step) ?? 0) + 1);
      },
      warn(where, message) {
        warnings.push(`${where}: ${message}`);
      },
    },
    { shortNames },
  );
  return { info, byName, kinds, records, warnings };
}

/** µs as written (a JSON number or a decimal string) → ticks of 0.1 ns, exactly, from the decimal digits. */
function ticksOf(text: string): number {
  const [i, f = ''] = text.split('.');
  const frac = `${f}00000`.slice(0, 5);
  return Number(i) * 10_000 + Math.floor(Number(frac) / 10) + (Number(frac[4]) >= 5 ? 1 : 0);
}

const LEVELS = ['level0', 'level1'];
const RANKS = ['rank0_ascend_pt', 'rank1_ascend_pt'];

describe.skipIf(!HAS_REAL)('torch_npu trace_view.json equals kernel_details.csv of the same run', () => {
  for (const level of LEVELS) {
    for (const rank of RANKS) {
      const trace = join(REAL, 'msinsight-torchnpu-trace', level, rank, 'ASCEND_PROFILER_OUTPUT/trace_view.json');
      const csv = join(REAL, 'msinsight-torchnpu', level, rank, 'ASCEND_PROFILER_OUTPUT/kernel_details.csv');
      it(`${level}/${rank}: per name, the same kernels, steps and durations`, async () => {
        expect(existsSync(trace) && existsSync(csv)).toBe(true);
        const rows = parse(readFileSync(csv), { columns: true, bom: true }) as Record<string, string>[];
        const expected = new Map<string, Tally>();
        for (const row of rows) {
          const name = row.Name!;
          let t = expected.get(name);
          if (!t) expected.set(name, (t = { count: 0, ticks: 0, steps: new Map() }));
          t.count++;
          t.ticks += ticksOf(row['Duration(us)']!.trim());
          const step = row['Step Id']!.trim() === '' ? null : Number(row['Step Id']);
          t.steps.set(step, (t.steps.get(step) ?? 0) + 1);
        }
        const { info, byName, kinds, warnings } = await read(trace);
        expect(warnings).toEqual([]);
        expect(info.format).toBe('trace_view');
        expect(info.kernels).toBe(rows.length);
        expect(kinds.get('kernel')).toBe(187);
        expect(kinds.get('communication')).toBe(4);
        expect([...byName.keys()].sort()).toEqual([...expected.keys()].sort());
        for (const [name, want] of expected) {
          const got = byName.get(name)!;
          expect({ name, count: got.count, steps: [...got.steps] }).toEqual({ name, count: want.count, steps: [...want.steps] });
          // kernel_details prints each duration to the ns; trace_view gives the clock's finer digits
          // (6.280125 µs there is 6.280 here, 2489.52971875 is 2489.529, 7839.336625 is 7839.336, 3.0685 is 3.069):
          // each kernel differs by less than 1 ns, never more.
          expect(Math.abs(got.ticks - want.ticks), name).toBeLessThan(10 * want.count);
        }
        expect(info.answers).toMatchObject({ names: true, types: false, cores: false, steps: true, order: true, ranks: false });
        expect(info.steps).toEqual([50]);
        expect(info.stepSource).toMatch(/host/);
        // Device tasks that are not kernels are counted apart, never as kernels.
        expect(info.apart.get('Notify Wait')?.count).toBe(112);
        expect(info.notes).toEqual([]);
      });
    }
  }
});

interface RawEvent {
  ph?: string;
  cat?: string;
  name?: string;
  ts?: number;
  dur?: number;
  args?: Record<string, unknown>;
}

function rawEvents(file: string): { events: RawEvent[]; top: Record<string, unknown> } {
  let bytes = readFileSync(file);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  const doc = JSON.parse(bytes.toString('utf8')) as Record<string, unknown> | RawEvent[];
  return Array.isArray(doc) ? { events: doc, top: {} } : { events: doc.traceEvents as RawEvent[], top: doc };
}

/** HTA's step of a kernel: the ProfilerStep#N window its launch (cuda_runtime of the same correlation) is in. */
function htaSteps(events: RawEvent[]): Map<string, Map<number | null, number>> {
  const windows = events
    .filter((e) => e.ph === 'X' && e.cat === 'user_annotation' && /^ProfilerStep#\d+$/.test(e.name ?? ''))
    .map((e) => ({ id: Number(e.name!.slice(13)), from: e.ts!, to: e.ts! + e.dur! }));
  const at = (ts: number) => windows.find((w) => ts >= w.from && ts < w.to)?.id ?? null;
  const launches = new Map<unknown, number>();
  for (const e of events) if (e.cat === 'cuda_runtime' && e.args?.correlation !== undefined) launches.set(e.args.correlation, e.ts!);
  const out = new Map<string, Map<number | null, number>>();
  for (const e of events) {
    if (e.ph !== 'X' || e.cat !== 'kernel') continue;
    const launch = launches.get(e.args?.correlation);
    const step = at(launch ?? e.ts!);
    let m = out.get(e.name!);
    if (!m) out.set(e.name!, (m = new Map()));
    m.set(step, (m.get(step) ?? 0) + 1);
  }
  return out;
}

const KINETO = [
  'alexnet/benchmark_result_2869224_1695835535_trace.json.gz',
  'amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz',
  'critical_path_simple_add/benchmark_result_493459_1694039959_trace.json',
  'trace_compare/base/base.json.gz',
  'trace_compare/test/test.json.gz',
  'trace_filter/sampled_rank-0.json',
  'trace_filter/sampled_rank-1.json',
];

describe.skipIf(!HAS_REAL)('kineto traces: counts per name equal a plain JSON.parse of the same file', () => {
  for (const sample of KINETO) {
    const file = join(REAL, 'hta-kineto', sample);
    it(sample, async () => {
      const { events, top } = rawEvents(file);
      const want = new Map<string, { count: number; ticks: number }>();
      const apart = new Map<string, number>();
      for (const e of events) {
        if (e.ph !== 'X') continue;
        if (e.cat === 'gpu_memcpy' || e.cat === 'gpu_memset') apart.set(e.cat.slice(4), (apart.get(e.cat.slice(4)) ?? 0) + 1);
        if (e.cat !== 'kernel') continue;
        const t = want.get(e.name!) ?? { count: 0, ticks: 0 };
        t.count++;
        t.ticks += ticksOf(String(e.dur));
        want.set(e.name!, t);
      }
      const { info, byName, warnings } = await read(file);
      expect(warnings).toEqual([]);
      expect(info.format).toBe('kineto');
      expect(new Map([...byName].map(([n, t]) => [n, { count: t.count, ticks: t.ticks }]))).toEqual(want);
      expect(new Map([...info.apart].map(([k, v]) => [k, v.count]))).toEqual(apart);
      const rank = (top.distributedInfo as { rank?: number } | undefined)?.rank;
      expect(info.rank).toBe(rank === undefined ? null : String(rank));
      // Steps: as HTA finds them (through the launch; by the kernel's own start where the launch is missing).
      const steps = htaSteps(events);
      for (const [name, t] of byName) expect({ name, steps: new Map(t.steps) }).toEqual({ name, steps: steps.get(name) });
      expect(info.answers.steps).toBe(events.some((e) => /^ProfilerStep#/.test(e.name ?? '') && e.cat === 'user_annotation'));
    });
  }

  it('trace_compare base vs test: the kernel that changed shows in the counts per name', async () => {
    const changed = async (shortNames: boolean) => {
      const base = await read(join(REAL, 'hta-kineto/trace_compare/base/base.json.gz'), shortNames);
      const test = await read(join(REAL, 'hta-kineto/trace_compare/test/test.json.gz'), shortNames);
      const names = new Set([...base.byName.keys(), ...test.byName.keys()]);
      return [...names]
        .map((n) => ({ name: n, base: base.byName.get(n)?.count ?? 0, test: test.byName.get(n)?.count ?? 0 }))
        .filter((d) => d.base !== d.test);
    };
    const full = await changed(false);
    expect(full).toHaveLength(1);
    expect(full[0]).toMatchObject({ base: 3, test: 2 });
    expect(full[0]!.name).toMatch(/^void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<int>, /);
    // Shortened, the three vectorized_elementwise_kernel instances are one name.
    expect(await changed(true)).toEqual([{ name: 'at::native::vectorized_elementwise_kernel', base: 6, test: 5 }]);
  });

  it('sampled_rank-0: two steps, every kernel in one of them through its launch', async () => {
    const { info, records } = await read(join(REAL, 'hta-kineto/trace_filter/sampled_rank-0.json'));
    expect(info.steps).toEqual([551, 552]);
    expect(info.notes).toEqual(["device events that start before the one written before them on the same stream: 4 (the order kept is the file's)"]);
    const kernels = records.filter((r) => r.kind === 'kernel' || r.kind === 'communication');
    expect(kernels.length).toBe(1154);
    expect(kernels.filter((r) => r.step === null)).toEqual([]);
    expect(new Set(kernels.map((r) => r.stream)).size).toBeGreaterThan(1);
  });
});

describe.skipIf(!HAS_REAL)('an older torch_npu trace_view.json whose tasks all read Task Type "Other"', () => {
  it('msprof-analyze timeline_advice: the compute tasks are kernels, copies apart, and the note says so', async () => {
    const file = join(REAL, 'msprof-analyze/timeline_advice/trace_view.json');
    const { events } = rawEvents(file);
    const hw = new Set(
      events.filter((e) => e.ph === 'M' && e.name === 'process_name' && e.args?.name === 'Ascend Hardware').map((e) => (e as { pid?: unknown }).pid),
    );
    const want = new Map<string, number>();
    for (const e of events) {
      if (e.ph !== 'X' || !hw.has((e as { pid?: unknown }).pid) || e.name === 'MEMCPY_ASYNC') continue;
      want.set(e.name!, (want.get(e.name!) ?? 0) + 1);
    }
    const { info, byName, warnings } = await read(file);
    expect(warnings).toEqual([]);
    expect(new Map([...byName].map(([n, t]) => [n, t.count]))).toEqual(want);
    expect(info.kernels).toBe(274);
    expect([...info.apart]).toEqual([['MEMCPY_ASYNC', { count: 2, ticks: expect.any(Number) as number }]]);
    expect(info.notes).toEqual(['device tasks read as kernels though their Task Type is not a known kernel type: Other (272)']);
    expect(info.steps).toEqual([1]);
  });
});

// ----- The same, end to end: kprof summary on the files (resolve, registry, sink, accumulator, report) -----

interface SummaryGroup {
  key: string;
  count: number;
  totalUs: number;
  byStep: { step: number; count: number }[];
}

async function summaryJson(args: string[]): Promise<{ groupBy: string; ranks: string[]; groups: SummaryGroup[] }> {
  const r = await kprof(['summary', ...args, '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe.skipIf(!HAS_REAL)('kprof summary of trace_view.json equals kprof summary of kernel_details.csv of the same run', () => {
  for (const level of LEVELS) {
    for (const rank of RANKS) {
      it(`${level}/${rank}: per name, the same counts per step, times within the ns kernel_details rounds to`, async () => {
        const trace = join(REAL, 'msinsight-torchnpu-trace', level, rank);
        const csv = join(REAL, 'msinsight-torchnpu', level, rank);
        const t = await summaryJson([trace]);
        const c = await summaryJson([csv, '--by', 'name']);
        expect(t.groupBy).toBe('name');
        expect(t.ranks).toEqual(c.ranks);
        const byKey = (s: typeof t) => new Map(s.groups.map((g) => [g.key, g]));
        const tg = byKey(t);
        const cg = byKey(c);
        expect([...tg.keys()].sort()).toEqual([...cg.keys()].sort());
        for (const [key, want] of cg) {
          const got = tg.get(key)!;
          expect({ key, count: got.count, byStep: got.byStep.map((s) => [s.step, s.count]) }).toEqual({
            key,
            count: want.count,
            byStep: want.byStep.map((s) => [s.step, s.count]),
          });
          expect(Math.abs(got.totalUs - want.totalUs), key).toBeLessThan(0.001 * want.count);
        }
      });
    }
  }

  it('a folder of trace_view ranks reads as the kernel_details folder does', async () => {
    const t = await summaryJson([join(REAL, 'msinsight-torchnpu-trace/level1')]);
    const c = await summaryJson([join(REAL, 'msinsight-torchnpu/level1'), '--by', 'name']);
    expect(t.ranks).toEqual(['0', '1']);
    expect(t.groups.map((g) => [g.key, g.count])).toEqual(c.groups.map((g) => [g.key, g.count]));
  });
});

/** Kernel events per name of a kineto file, counted by Python's json module (as HTA reads it); null without python3. */
function pythonCounts(file: string): Map<string, number> | null {
  const script = [
    'import gzip, json, sys',
    'b = open(sys.argv[1], "rb").read()',
    'b = gzip.decompress(b) if b[:2] == b"\\x1f\\x8b" else b',
    'd = json.loads(b)',
    'ev = d if isinstance(d, list) else d["traceEvents"]',
    'c = {}',
    'for e in ev:',
    '    if e.get("ph") == "X" and e.get("cat") == "kernel": c[e["name"]] = c.get(e["name"], 0) + 1',
    'print(json.dumps(c))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', script, file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error !== undefined || r.status !== 0) return null;
  return new Map(Object.entries(JSON.parse(r.stdout) as Record<string, number>));
}

describe.skipIf(!HAS_REAL)('kprof summary of each kineto sample: counts per name equal an independent count', () => {
  for (const sample of KINETO) {
    it(sample, async () => {
      const file = join(REAL, 'hta-kineto', sample);
      // Python's json module when there is python3, else a plain JSON.parse: neither shares code with kprof.
      const want =
        pythonCounts(file) ??
        rawEvents(file).events.reduce(
          (m, e) => (e.ph === 'X' && e.cat === 'kernel' ? m.set(e.name!, (m.get(e.name!) ?? 0) + 1) : m),
          new Map<string, number>(),
        );
      const s = await summaryJson([file]);
      expect(s.groupBy).toBe('name');
      expect(new Map(s.groups.map((g) => [g.key, g.count]))).toEqual(want);
    });
  }

  it('a folder of per-rank traces is one profile of those ranks', async () => {
    const s = await summaryJson([join(REAL, 'hta-kineto/trace_filter')]);
    expect(s.ranks).toEqual(['0', '1']);
  });

  it('kprof diff trace_compare/base trace_compare/test shows the kernel that changed (transcript)', async () => {
    const args = ['diff', `${REAL_REL}/hta-kineto/trace_compare/base`, `${REAL_REL}/hta-kineto/trace_compare/test`];
    const r = await expectTranscript('real-kineto-diff', args);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<int>.* -33\.3% \(3 → 2\)\./);
  });
});
