// Chrome traces whose ProfilerStep#N events come after kernels they hold (merged or post-processed traces, other
// writers): every kernel is in the step the trace says, whatever the order of the events in the file.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Accumulator } from '../src/input/accumulator.js';
import { ReadAgain } from '../src/input/formats/registry.js';
import { ChromeTraceReader, readChromeTrace } from '../src/input/formats/trace/chromeTrace.js';
import { LateSteps, readChromeTraceFile } from '../src/input/formats/trace/files.js';
import { isKprofError } from '../src/util/errors.js';
import { kprof, maskPath, ROOT } from './helpers.js';

type Event = Record<string, unknown>;

const dir = mkdtempSync(join(tmpdir(), 'kprof-late-steps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const isStep = (e: Event): boolean => typeof e.name === 'string' && e.name.startsWith('ProfilerStep#');

/** A kineto trace: three steps of 100 µs; kernels launched late in a step run in the next step's window. */
function kinetoEvents(): Event[] {
  const step = (n: number, ts: number): Event => ({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${n}`, pid: 1, tid: 1, ts, dur: 100 });
  const launch = (corr: number, ts: number): Event => ({
    ph: 'X',
    cat: 'cuda_runtime',
    name: 'cudaLaunchKernel',
    pid: 1,
    tid: 1,
    ts,
    dur: 2,
    args: { correlation: corr },
  });
  const kernel = (name: string, corr: number, ts: number, dur: number, cat = 'kernel'): Event => ({
    ph: 'X',
    cat,
    name,
    pid: 0,
    tid: 7,
    ts,
    dur,
    args: { stream: 7, correlation: corr },
  });
  const events: Event[] = [step(1, 1000), step(2, 1100), step(3, 1200)];
  let corr = 1;
  for (const [t, name, dur] of [
    [1010, 'gemm', 40],
    [1050, 'relu', 5.5],
    [1095, 'gemm', 41],
    [1110, 'relu', 5],
    [1190, 'ncclKernel_AllReduce', 20],
    [1205, 'gemm', 39.5],
    [1290, 'softmax', 3],
    [1400, 'after_the_steps', 1],
  ] as const) {
    events.push(launch(corr, t), kernel(name, corr, t + 8, dur));
    corr++;
  }
  events.push(launch(corr, 1120), kernel('Memcpy HtoD', corr, 1125, 3, 'gpu_memcpy'));
  return events;
}

function traceViewEvents(): Event[] {
  return JSON.parse(readFileSync(join(ROOT, 'fixtures/trace/trace-view-steps/trace_view.json'), 'utf8')) as Event[];
}

/** The steps moved to the end, or to the middle of the other events. */
function stepsAt(events: Event[], where: 'end' | 'middle'): Event[] {
  const steps = events.filter(isStep);
  const rest = events.filter((e) => !isStep(e));
  if (where === 'end') return [...rest, ...steps];
  const half = Math.floor(rest.length / 2);
  return [...rest.slice(0, half), ...steps, ...rest.slice(half)];
}

function write(events: Event[], kind: 'kineto' | 'trace_view', gz = false): string {
  const sub = join(dir, `t${files++}`);
  const name = kind === 'kineto' ? `rank-0.pt.trace.json${gz ? '.gz' : ''}` : 'trace_view.json';
  const text = kind === 'kineto' ? JSON.stringify({ schemaVersion: 1, traceEvents: events }) : JSON.stringify(events);
  mkdirSync(sub);
  const file = join(sub, name);
  writeFileSync(file, gz ? gzipSync(text) : text);
  return file;
}

/** The figures of `summary --format json`: totals, steps and each group per step (paths left out). */
async function figures(file: string): Promise<{ code: number; figures: unknown; stderr: string }> {
  const r = await kprof(['summary', file, '--format', 'json']);
  if (r.code !== 0) return { code: r.code, figures: null, stderr: r.stderr };
  const j = JSON.parse(r.stdout) as Record<string, unknown>;
  return {
    code: r.code,
    figures: { steps: j.steps, stepIds: j.stepIds, rowsRead: j.rowsRead, skippedRows: j.skippedRows, totals: j.totals, groups: j.groups },
    stderr: maskPath(r.stderr, file, 'FILE'),
  };
}

describe('ProfilerStep events after the kernels they hold', () => {
  for (const kind of ['kineto', 'trace_view'] as const) {
    const events = kind === 'kineto' ? kinetoEvents : traceViewEvents;
    for (const where of ['end', 'middle'] as const) {
      it(`${kind}, steps at the ${where}: the same figures per step as in the usual order`, async () => {
        const usual = await figures(write(events(), kind));
        expect(usual.code).toBe(0);
        expect((usual.figures as { stepIds: number[] }).stepIds).toEqual(kind === 'kineto' ? [1, 2, 3] : [7, 8]);
        const late = await figures(write(stepsAt(events(), where), kind));
        expect(late).toEqual(usual);
      });
    }
  }

  it('a gzipped kineto trace is read again too', async () => {
    const usual = await figures(write(kinetoEvents(), 'kineto', true));
    expect(await figures(write(stepsAt(kinetoEvents(), 'end'), 'kineto', true))).toEqual(usual);
  });

  it('inspect says where the steps come from and that the file was read twice, and agrees with summary', async () => {
    const late = write(stepsAt(traceViewEvents(), 'end'), 'trace_view');
    const r = await kprof(['inspect', late]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('steps from ProfilerStep#N windows of the host (cpu_op events)');
    expect(r.stdout).toContain(
      'ProfilerStep#N events come after kernels they hold: the file was read twice, the second time with the step windows known from the start',
    );
    expect(r.stdout).toMatch(/ {2}steps {4}2 \(7-8\); 1 row with an empty Step Id/);
    expect(r.stdout).not.toContain('came before the first ProfilerStep');
    const usual = await kprof(['inspect', write(traceViewEvents(), 'trace_view')]);
    expect(usual.stdout).not.toContain('read twice');
    const s = await kprof(['summary', late, '--steps', '8', '--format', 'json']);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ stepIds: [8], totals: { count: 2 } });
  });

  it('the reader says when a window came after a kernel it holds, and not in the usual order', async () => {
    const read = async (events: Event[]) => {
      const steps: (number | null)[] = [];
      const text = JSON.stringify({ traceEvents: events });
      const reader = { kernel: (r: { step: number | null }) => steps.push(r.step), warn: () => undefined };
      const r = new ChromeTraceReader('t.json', reader);
      r.push(Buffer.from(text));
      r.finish();
      return { steps, late: r.lateSteps, windows: r.steps };
    };
    const usual = await read(kinetoEvents());
    expect(usual.late).toBe(false);
    const late = await read(stepsAt(kinetoEvents(), 'end'));
    expect(late.late).toBe(true);
    // Read again with the windows of the first read: the steps of the usual order, the file's steps not added twice.
    const again: (number | null)[] = [];
    await readChromeTrace(
      't.json',
      [Buffer.from(JSON.stringify({ traceEvents: stepsAt(kinetoEvents(), 'end') }))],
      {
        kernel: (r) => again.push(r.step),
        warn: () => undefined,
      },
      { steps: late.windows },
    );
    expect(again).toEqual(usual.steps);
    expect(late.windows.size).toBe(3);
  });

  it('any order of the events of a small trace gives the same figures per step (property)', async () => {
    for (const kind of ['kineto', 'trace_view'] as const) {
      const events = kind === 'kineto' ? kinetoEvents() : traceViewEvents();
      const usual = (await figures(write(events, kind))).figures;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat(), { minLength: events.length, maxLength: events.length }), async (keys) => {
          const order = events.map((e, i) => [keys[i]!, i, e] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
          const got = await figures(
            write(
              order.map(([, , e]) => e),
              kind,
            ),
          );
          expect(got.code).toBe(0);
          expect(got.figures).toEqual(usual);
        }),
        { numRuns: 50 },
      );
    }
  });
});

describe('the second read', () => {
  it('throws ReadAgain with what the first read learnt; a file that changed in between is an input error naming it', async () => {
    const file = write(stepsAt(kinetoEvents(), 'end'), 'kineto');
    const fields = { name: true, type: true, core: true, shapes: false, steps: true };
    const e = await readChromeTraceFile(file, new Accumulator(fields), { withShapes: false }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ReadAgain);
    const known = (e as ReadAgain).known as LateSteps;
    expect(known.windows.size).toBe(3);
    expect(known.bytes).toBe(statSync(file).size);
    const again = await readChromeTraceFile(file, new Accumulator(fields), { withShapes: false, known });
    expect(again.notes).toContain(
      'ProfilerStep#N events come after kernels they hold: the file was read twice, the second time with the step windows known from the start',
    );
    const changed = await readChromeTraceFile(file, new Accumulator(fields), { withShapes: false, known: new LateSteps(known.windows, 10) }).catch(
      (x: unknown) => x,
    );
    expect(isKprofError(changed)).toBe(true);
    expect((changed as Error).message).toContain(`${file}: 10 bytes when read first, `);
    expect((changed as Error).message).toContain('the file changed while kprof read it.');
  });
});

describe('a trace without any ProfilerStep event', () => {
  it('summary says "no steps"; --steps names what is missing in plain words', async () => {
    const file = join(ROOT, 'fixtures/trace/kineto-no-step/rank-2.pt.trace.json');
    const s = await kprof(['summary', file]);
    expect(s.code).toBe(0);
    expect(s.stdout).toContain('no steps');
    const r = await kprof(['summary', file, '--steps', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--steps needs steps, but the file has none (it holds no ProfilerStep#N events, so no kernel is in a step). Drop that option, or profile with steps (prof.step() each iteration).',
    );
    expect(r.stderr).not.toContain('(columns: ');
  });
});
