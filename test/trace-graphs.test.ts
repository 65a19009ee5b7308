// Kineto traces with CUDA graph launches: one cudaGraphLaunch (a cuda_runtime event of args.correlation C) runs
// many kernels that all carry correlation C. Every one of them is in the step its launch falls in (HTA's rule),
// whatever the order of the launch and its kernels in the file, and whatever their own start times. On the real
// kineto traces (../shared/data/real/hta-kineto) the steps kprof gives each kernel are compared, kernel for
// kernel, with an independent reading of the same rule written here.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ChromeTraceReader } from '../src/input/formats/trace/chromeTrace.js';
import { kprof, REAL, realData } from './helpers.js';

const HAS_REAL = realData(import.meta.url);

type Event = Record<string, unknown>;

const dir = mkdtempSync(join(tmpdir(), 'kprof-graphs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const step = (n: number, ts: number): Event => ({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${n}`, pid: 1, tid: 1, ts, dur: 100 });
const launch = (corr: number, ts: number, name = 'cudaGraphLaunch', cat = 'cuda_runtime'): Event => ({
  ph: 'X',
  cat,
  name,
  pid: 1,
  tid: 1,
  ts,
  dur: 3,
  args: { correlation: corr },
});
const kernel = (name: string, corr: number, ts: number, stream = 7): Event => ({
  ph: 'X',
  cat: 'kernel',
  name,
  pid: 0,
  tid: stream,
  ts,
  dur: 4,
  args: { stream, correlation: corr },
});
const flow = (corr: number, ts: number, ph: 's' | 'f'): Event => ({ ph, id: corr, pid: 1, tid: 1, ts, cat: 'ac2g', name: 'ac2g' });

/**
 * Steps 1-3 of 100 µs from 1000. Graph 10 is launched at 1090 (step 1) and runs 6 kernels from 1095 to 1250 (by
 * their own start: steps 1, 2, 2, 2, 3, 3); graph 11 at 1150 (step 2) runs 4 kernels on two streams up to 1290;
 * graph 12 at 1290 (step 3) runs 3 kernels after the last step ended; kernel 13 is a plain launch in step 1
 * running in step 2. Per step by launch: 1 -> 7, 2 -> 4, 3 -> 3.
 */
const EXPECTED = new Map([
  [1, 7],
  [2, 4],
  [3, 3],
]);
function graphTrace(): { steps: Event[]; launches: Map<number, Event>; kernels: Map<number, Event[]> } {
  const kernels = new Map<number, Event[]>([
    [10, [1095, 1120, 1140, 1160, 1210, 1250].map((t, i) => kernel(`g10_k${i}`, 10, t))],
    [11, [1160, 1165, 1220, 1290].map((t, i) => kernel(`g11_k${i}`, 11, t, i % 2 === 0 ? 7 : 8))],
    [12, [1305, 1310, 1320].map((t, i) => kernel(`g12_k${i}`, 12, t))],
    [13, [kernel('plain', 13, 1105)]],
  ]);
  const launches = new Map<number, Event>([
    [10, launch(10, 1090)],
    [11, launch(11, 1150)],
    [12, launch(12, 1290, 'cuGraphLaunch', 'cuda_driver')],
    [13, launch(13, 1099, 'cudaLaunchKernel')],
  ]);
  return { steps: [step(1, 1000), step(2, 1100), step(3, 1200)], launches, kernels };
}

/** The events in one of the orders kineto (or a merge of traces) may write them. */
function ordered(order: 'launch first' | 'launch last' | 'launch amid' | 'interleaved' | 'steps last'): Event[] {
  const { steps, launches, kernels } = graphTrace();
  const out: Event[] = [];
  const head = order === 'steps last' ? [] : steps;
  out.push(...head);
  if (order === 'interleaved') {
    // Kernels of graphs 10 and 11 alternate, their launches come after all of them, flows between.
    const a = kernels.get(10)!;
    const b = kernels.get(11)!;
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i < a.length) out.push(a[i]!);
      if (i < b.length) out.push(b[i]!, flow(11, 1150, 'f'));
    }
    out.push(launches.get(11)!, launches.get(10)!, flow(10, 1090, 's'));
    out.push(...kernels.get(12)!, launches.get(12)!, launches.get(13)!, ...kernels.get(13)!);
    return out;
  }
  for (const [corr, ks] of kernels) {
    const l = launches.get(corr)!;
    if (order === 'launch first' || order === 'steps last') out.push(l, flow(corr, 0, 's'), ...ks);
    else if (order === 'launch last') out.push(...ks, flow(corr, 0, 'f'), l);
    else out.push(...ks.slice(0, 2), l, ...ks.slice(2));
  }
  if (order === 'steps last') out.push(...steps);
  return out;
}

function write(events: Event[]): string {
  const sub = join(dir, `t${files++}`);
  mkdirSync(sub);
  const file = join(sub, 'rank-0.pt.trace.json');
  writeFileSync(file, JSON.stringify({ schemaVersion: 1, traceEvents: events }));
  return file;
}

/** Step of each kernel by name, and the notes, from the reader alone (steps first, or read again as files.ts does). */
function readSteps(text: string): { steps: Map<string, number | null>; notes: string[] } {
  const once = (windows?: ChromeTraceReader['steps']) => {
    const steps = new Map<string, number | null>();
    const r = new ChromeTraceReader('t.json', { kernel: (k) => steps.set(k.name, k.step), warn: () => undefined }, { steps: windows });
    r.push(Buffer.from(text));
    const info = r.finish();
    return { r, steps, notes: info.notes };
  };
  const first = once();
  return first.r.lateSteps ? once(first.r.steps) : first;
}

function perStep(steps: Map<string, number | null>): Map<number | null, number> {
  const n = new Map<number | null, number>();
  for (const s of steps.values()) n.set(s, (n.get(s) ?? 0) + 1);
  return n;
}

describe('CUDA graph launches: every kernel in the step of its launch', () => {
  for (const order of ['launch first', 'launch last', 'launch amid', 'interleaved', 'steps last'] as const) {
    it(`${order}: exact per-step counts, no kernel placed by its own start`, () => {
      const { steps, notes } = readSteps(JSON.stringify({ traceEvents: ordered(order) }));
      expect(steps.size).toBe(14);
      expect(perStep(steps)).toEqual(EXPECTED);
      for (const [name, s] of steps) {
        const want = name.startsWith('g10') || name === 'plain' ? 1 : name.startsWith('g11') ? 2 : 3;
        expect([name, s]).toEqual([name, want]);
      }
      // (The kernels of two graphs on one stream overlap in time: the note on the order of a stream may come.)
      expect(notes.filter((n) => n.includes('own start time'))).toEqual([]);
    });
  }

  it('any order of the events gives the same step to every kernel (property)', () => {
    const events = ordered('launch first');
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: events.length, maxLength: events.length }), (keys) => {
        const order = events.map((e, i) => [keys[i]!, i, e] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        const { steps } = readSteps(JSON.stringify({ traceEvents: order.map(([, , e]) => e) }));
        expect(perStep(steps)).toEqual(EXPECTED);
      }),
      { numRuns: 200 },
    );
  });

  it('a graph launch further than the reader waits: its kernels go by their own start, and inspect counts them', () => {
    // 20000 plain launches and kernels between the graph's kernels and its launch (the reader holds back at most
    // 4 x 4096 device events behind a kernel that waits).
    const events: Event[] = [step(1, 1000), step(2, 1100), kernel('far_a', 1, 1150, 8), kernel('far_b', 1, 1160, 8)];
    for (let i = 0; i < 20000; i++) events.push(launch(100 + i, 1001, 'cudaLaunchKernel'), kernel('near', 100 + i, 1002));
    events.push(launch(1, 1010));
    const { steps, notes } = readSteps(JSON.stringify({ traceEvents: events }));
    expect([steps.get('far_a'), steps.get('far_b'), steps.get('near')]).toEqual([2, 2, 1]);
    expect(notes).toEqual([
      '2 of 20002 device events (kernels, memcpy, memset) were placed in a step by their own start time: no launch event of their args.correlation is in the file, or it is too far from them for the reader to wait for it',
    ]);
  });

  it('a launch stays known for kernels of it written long after it, up to 16384 correlation ids later', () => {
    // Graph 7 launched in step 1, 10000 plain launches and kernels, then its kernels (running in step 2).
    const events: Event[] = [step(1, 1000), step(2, 1100), launch(7, 1010)];
    for (let i = 0; i < 10000; i++) events.push(launch(100 + i, 1001, 'cudaLaunchKernel'), kernel('near', 100 + i, 1002));
    events.push(kernel('late_a', 7, 1150, 8), kernel('late_b', 7, 1160, 8));
    const { steps, notes } = readSteps(JSON.stringify({ traceEvents: events }));
    expect([steps.get('late_a'), steps.get('late_b'), steps.get('near')]).toEqual([1, 1, 1]);
    expect(notes).toEqual([]);
  });

  it('summary --steps and inspect on the file: per-step counts of the launches, no "not found" note', async () => {
    for (const order of ['launch first', 'launch last', 'steps last'] as const) {
      const file = write(ordered(order));
      for (const [s, n] of EXPECTED) {
        const r = await kprof(['summary', file, '--steps', String(s), '--format', 'json']);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout)).toMatchObject({ stepIds: [s], totals: { count: n } });
      }
      const range = await kprof(['summary', file, '--steps', '2-3', '--format', 'json']);
      expect(JSON.parse(range.stdout)).toMatchObject({ stepIds: [2, 3], totals: { count: 7 } });
      const i = await kprof(['inspect', file]);
      expect(i.code).toBe(0);
      expect(i.stdout).not.toContain('own start time');
      expect(i.stdout).toMatch(/ {2}steps {4}3 \(1-3\)/);
    }
  });
});

// ----- real traces: an independent reading of HTA's rule -----

interface RealKernel {
  name: string;
  ts: number;
  step: number | null;
  byLaunch: boolean;
}

/**
 * HTA's attribution, read apart from kprof: a kernel (cat "kernel") is in the ProfilerStep#N window [ts, ts+dur)
 * that holds the start of its launch, the cuda_runtime / cuda_driver event of the same args.correlation; several
 * kernels may share one launch. A kernel without a launch in the file goes by its own start (kprof's rule; HTA
 * leaves it out of every iteration).
 */
function attribute(events: Event[]): RealKernel[] {
  const windows: [number, number, number][] = [];
  const launchTs = new Map<number, number>();
  for (const e of events) {
    if (e.ph !== 'X') continue;
    const m = typeof e.name === 'string' ? /^ProfilerStep#(\d+)$/.exec(e.name) : null;
    if (m && e.cat !== 'gpu_user_annotation') windows.push([Number(e.ts), Number(e.ts) + Number(e.dur ?? 0), Number(m[1])]);
    const corr = (e.args as { correlation?: number } | undefined)?.correlation;
    if ((e.cat === 'cuda_runtime' || e.cat === 'cuda_driver') && typeof corr === 'number') launchTs.set(corr, Number(e.ts));
  }
  const at = (t: number): number | null => {
    let best: [number, number, number] | null = null;
    for (const w of windows) if (w[0] <= t && t < w[1] && (best === null || w[0] >= best[0])) best = w;
    return best === null ? null : best[2];
  };
  const out: RealKernel[] = [];
  for (const e of events) {
    if (e.ph !== 'X' || e.cat !== 'kernel') continue;
    const corr = (e.args as { correlation?: number } | undefined)?.correlation;
    const l = typeof corr === 'number' ? launchTs.get(corr) : undefined;
    out.push({ name: String(e.name), ts: Number(e.ts), step: at(l ?? Number(e.ts)), byLaunch: l !== undefined });
  }
  return out;
}

const REAL_TRACES = [
  'hta-kineto/trace_filter/sampled_rank-0.json',
  'hta-kineto/trace_filter/sampled_rank-1.json',
  'hta-kineto/trace_compare/base/base.json.gz',
  'hta-kineto/trace_compare/test/test.json.gz',
  'hta-kineto/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz',
  'hta-kineto/alexnet/benchmark_result_2869224_1695835535_trace.json.gz',
  'hta-kineto/critical_path_simple_add/benchmark_result_493459_1694039959_trace.json',
];

describe.skipIf(!HAS_REAL)('real kineto traces: kprof agrees with the launch rule kernel for kernel', () => {
  for (const rel of REAL_TRACES) {
    it(rel, async () => {
      const raw = readFileSync(join(REAL, rel));
      const text = rel.endsWith('.gz') ? gunzipSync(raw) : raw;
      const doc = JSON.parse(text.toString('utf8')) as { traceEvents: Event[] };
      const want = attribute(doc.traceEvents);
      const got: RealKernel[] = [];
      const once = (windows?: ChromeTraceReader['steps']) => {
        got.length = 0;
        const r = new ChromeTraceReader(
          rel,
          {
            kernel: (k) => {
              if (k.kind === 'kernel' || k.kind === 'communication') got.push({ name: k.name, ts: k.startUs, step: k.step, byLaunch: false });
            },
            warn: () => undefined,
          },
          { steps: windows },
        );
        r.push(text);
        r.finish();
        return r;
      };
      const first = once();
      if (first.lateSteps) once(first.steps);
      const key = (k: RealKernel) => `${k.ts.toFixed(3)} ${k.name} ${k.step}`;
      expect(got.map(key).sort()).toEqual(want.map(key).sort());
      expect(got.length).toBe(want.length);
    });
  }

  it('summary --steps on the real trace with steps counts the kernels launched in them', async () => {
    const rel = 'hta-kineto/trace_filter/sampled_rank-0.json';
    const want = attribute((JSON.parse(readFileSync(join(REAL, rel), 'utf8')) as { traceEvents: Event[] }).traceEvents);
    const n = (s: number) => want.filter((k) => k.step === s).length;
    expect(n(551) + n(552)).toBe(want.length);
    for (const [arg, ids, count] of [
      ['551', [551], n(551)],
      ['552', [552], n(552)],
      ['551-552', [551, 552], n(551) + n(552)],
    ] as const) {
      const r = await kprof(['summary', join(REAL, rel), '--steps', arg, '--format', 'json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ stepIds: ids, totals: { count } });
    }
  });
});
