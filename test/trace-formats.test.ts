// The trace formats as inputs of every command: torch_npu trace_view.json, PyTorch kineto traces (plain and
// gzip, a folder of per-rank traces) and Nsight Systems CSV (cuda_gpu_trace with and without NVTX steps,
// cuda_gpu_kern_sum), through resolve, the registry, the readers and the reports (fixtures/trace/, fixtures/nsys/).

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { formatOf } from '../src/input/formats/registry.js';
import { registerFormat } from '../src/input/formats/readers.js';
import { TOY } from './toyFormat.js';
import { resolveInput } from '../src/input/formats/resolve.js';
import { readProfile } from '../src/input/read.js';
import type { KernelTarget } from '../src/input/formats/registry.js';
import { readChromeTraceFile, readNsysFile } from '../src/input/formats/trace/files.js';
import { deviceNumber } from '../src/input/formats/trace/nsys/nsysCsv.js';
import { expectTranscript, kprof, ROOT } from './helpers.js';

const TV = 'fixtures/trace/trace-view-steps';
const KR = 'fixtures/trace/kineto-ranks';
const KR_PR = 'fixtures/trace/kineto-ranks-pr';
const KGZ = 'fixtures/trace/kineto-no-step-gz/rank-2.pt.trace.json.gz';
const NSYS = 'fixtures/nsys/gpu-trace-nvtx';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-traces-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('what the registry says each trace format can answer', () => {
  it('names only; order for trace_view, kineto and cuda_gpu_trace; no steps, no order for cuda_gpu_kern_sum', () => {
    for (const id of ['trace_view', 'kineto', 'nsys_gpu_trace']) {
      expect(formatOf(id).answers).toMatchObject({ names: 'yes', types: 'no', cores: 'no', shapes: 'no', steps: 'column', order: 'yes' });
    }
    expect(formatOf('nsys_kern_sum')).toMatchObject({ holds: 'totals', answers: { names: 'yes', types: 'no', steps: 'no', order: 'no' } });
  });

  it('finds each format by name and content, and a kineto rank in distributedInfo or the file name', () => {
    const plan = (p: string) => resolveInput(join(ROOT, p)).ranks.map((r) => [r.format, r.rank, r.rankSource]);
    expect(plan(TV)).toEqual([['trace_view', '-', 'not found']]);
    expect(plan(KR)).toEqual([
      ['kineto', '0', 'distributedInfo.rank'],
      ['kineto', '1', 'distributedInfo.rank'],
    ]);
    expect(plan(KGZ)).toEqual([['kineto', '2', 'distributedInfo.rank']]);
    expect(plan(NSYS)).toEqual([['nsys_gpu_trace', '-', 'not found']]);
    expect(plan('fixtures/nsys/kern-sum-old-us')).toEqual([['nsys_kern_sum', '-', 'not found']]);
    // No distributedInfo: the rank in the file name; an nsys CSV under a name of its own, by its header.
    const noInfo = join(tmp, 'named');
    mkdirSync(noInfo);
    writeFileSync(join(noInfo, 'sampled_rank-3.json'), '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2}]}\n');
    expect(resolveInput(noInfo).ranks.map((r) => [r.format, r.rank, r.rankSource])).toEqual([['kineto', '3', 'file name sampled_rank-3.json']]);
    // trace_view.json is read only where the profile folder has no kernel table with op types.
    const out = join(tmp, 'rank0_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(out, { recursive: true });
    copyFileSync(join(ROOT, TV, 'trace_view.json'), join(out, 'trace_view.json'));
    expect(resolveInput(join(tmp, 'rank0_ascend_pt')).ranks[0]!.format).toBe('trace_view');
    copyFileSync(
      join(ROOT, 'fixtures/formats/torch-level0/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv'),
      join(out, 'kernel_details.csv'),
    );
    expect(resolveInput(join(tmp, 'rank0_ascend_pt')).ranks[0]!.format).toBe('kernel_details');
    // Whatever the registry order: a format added later that has op types is preferred to trace_view.json.
    rmSync(join(out, 'kernel_details.csv'));
    writeFileSync(join(out, 'run.typed'), 'matmul,1\n');
    const unregister = registerFormat({
      ...TOY,
      id: 'toy_typed',
      recognise: { names: [/\.typed$/], places: ['framework'], takes: 'first' },
      answers: { ...TOY.answers, types: 'yes' },
    });
    try {
      expect(resolveInput(join(tmp, 'rank0_ascend_pt')).ranks[0]!.format).toBe('toy_typed');
    } finally {
      unregister();
    }
    copyFileSync(join(ROOT, 'fixtures/nsys/gpu-trace-preamble/cuda_gpu_trace.csv'), join(tmp, 'gpu.csv'));
    expect(resolveInput(join(tmp, 'gpu.csv')).ranks[0]!.format).toBe('nsys_gpu_trace');
  });
});

describe('every command on every trace format (transcripts)', () => {
  const cases: [string, string[]][] = [
    ['trace-view-summary', ['summary', TV]],
    ['trace-view-inspect', ['inspect', TV]],
    ['trace-view-by-type', ['summary', TV, '--by', 'type']],
    ['kineto-summary-short', ['summary', KR, '--short-names', '--steps', '2']],
    ['kineto-inspect', ['inspect', KR]],
    ['kineto-gz-summary', ['summary', KGZ, '--format', 'json']],
    ['kineto-diff', ['diff', KR, KR_PR, '--short-names', '--per-step']],
    ['kineto-rules', ['rules', KR, KR_PR, '--short-names']],
    ['kineto-check-pass', ['check', KR_PR, '--rules', 'fixtures/trace/rules/by-name.yaml', '--short-names']],
    ['kineto-check-fail', ['check', KR, '--rules', 'fixtures/trace/rules/by-name.yaml', '--short-names']],
    ['kineto-check-type-rule', ['check', KR, '--rules', 'fixtures/trace/rules/by-type.yaml']],
    ['trace-view-check', ['check', TV, '--rules', 'fixtures/trace/rules/trace-view.yaml']],
    ['trace-view-check-nothing', ['check', TV, '--rules', 'fixtures/trace/rules/by-name.yaml']],
    ['trace-view-diff', ['diff', TV, 'fixtures/trace/trace-view-pr']],
    ['trace-view-rules', ['rules', TV, 'fixtures/trace/trace-view-pr']],
    ['nsys-summary-nvtx', ['summary', NSYS, '--short-names', '--by', 'name']],
    ['nsys-rules', ['rules', NSYS, 'fixtures/nsys/gpu-trace-pr', '--short-names']],
    ['nsys-check-pass', ['check', 'fixtures/nsys/gpu-trace-pr', '--rules', 'fixtures/nsys/rules.yaml', '--short-names']],
    ['nsys-check-fail', ['check', NSYS, '--rules', 'fixtures/nsys/rules.yaml', '--short-names']],
    ['nsys-inspect-nvtx', ['inspect', NSYS]],
    ['nsys-inspect-us-bytes', ['inspect', 'fixtures/nsys/gpu-trace-us-bytes']],
    ['nsys-kern-sum-summary', ['summary', 'fixtures/nsys/kern-sum']],
    ['nsys-kern-sum-old-us-inspect', ['inspect', 'fixtures/nsys/kern-sum-old-us']],
    ['nsys-kern-sum-steps', ['summary', 'fixtures/nsys/kern-sum', '--steps', '1']],
    ['nsys-diff-trace-vs-sum', ['diff', 'fixtures/nsys/kern-sum', 'fixtures/nsys/gpu-trace-preamble']],
  ];
  for (const [name, args] of cases) {
    it(name, async () => {
      const r = await expectTranscript(name, args);
      expect(r.stderr).not.toMatch(/internal error|at .*\.ts:\d+/);
      expect([0, 1, 2]).toContain(r.code);
    });
  }
});

describe('grouping an input of kernel names only', () => {
  it('the note names the file whole, however deep it lies', async () => {
    const deep = join(tmp, 'a-folder-with-a-long-name-of-the-run', 'rank0_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(deep, { recursive: true });
    copyFileSync(join(ROOT, 'fixtures/trace/trace-view-steps/trace_view.json'), join(deep, 'trace_view.json'));
    const r = await kprof(['summary', join(deep, '..')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /grouped by name: [^\n]*a-folder-with-a-long-name-of-the-run\/rank0_ascend_pt\/ASCEND_PROFILER_OUTPUT\/trace_view\.json names/,
    );
  });

  it('is by name when --by is not given, with a note; --by type is refused with exit 2 and what to pass', async () => {
    for (const input of [TV, KR, NSYS, 'fixtures/nsys/kern-sum']) {
      const d = await kprof(['summary', input, '--format', 'json']);
      expect(d.code, d.stderr).toBe(0);
      expect(JSON.parse(d.stdout).groupBy).toBe('name');
      expect(d.stderr).toContain('kprof: note: grouped by name:');
      for (const by of ['type', 'core', 'type+core', 'type+shapes']) {
        const t = await kprof(['summary', input, '--by', by]);
        expect(t.code).toBe(2);
        expect(t.stderr).toMatch(/needs kernel types|needs core types|needs input shapes/);
        expect(t.stderr).toContain('names its kernels only');
      }
    }
    // A kernel table with types keeps the default (type), and so does a diff of it with a trace when --by is given.
    const csv = await kprof(['summary', 'fixtures/formats/torch-level0', '--format', 'json']);
    expect(JSON.parse(csv.stdout).groupBy).toBe('type');
    expect(csv.stderr).not.toContain('grouped by name');
  });

  it('a summary JSON of a trace reads back by name (it was made by name), alone and against the trace', async () => {
    const out = join(tmp, 'kineto-summary.json');
    expect((await kprof(['summary', KR, '--format', 'json', '-o', out])).code).toBe(0);
    const alone = await kprof(['diff', out, out, '--format', 'json']);
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stderr).toContain('grouped by name, as');
    const against = await kprof(['diff', out, KR, '--format', 'json']);
    expect(against.code, against.stderr).toBe(0);
    expect(JSON.parse(against.stdout).totals.base.count).toBe(JSON.parse(against.stdout).totals.pr.count);
  });

  it('--short-names merges the template instances of a kernel into its qualified name', async () => {
    const long = JSON.parse((await kprof(['summary', KR, '--format', 'json'])).stdout);
    const short = JSON.parse((await kprof(['summary', KR, '--format', 'json', '--short-names'])).stdout);
    expect(long.groups.map((g: { key: string }) => g.key)).toHaveLength(4);
    expect(short.groups.map((g: { key: string; count: number }) => [g.key, g.count])).toEqual([
      ['ncclKernel_AllReduce_RING_LL_Sum_float', 4],
      ['ampere_sgemm_128x64_nn', 4],
      ['at::native::vectorized_elementwise_kernel', 8],
    ]);
    expect(short.totals).toEqual(long.totals);
  });
});

describe('read in worker threads', () => {
  it('gives the ranks, groups, files and notes of this thread', async () => {
    for (const input of [KR, NSYS, 'fixtures/nsys/kern-sum']) {
      const opts = { withShapes: false, ranks: null, shortNames: true } as const;
      const here = await readProfile(join(ROOT, input), { ...opts, threads: 'off' });
      const there = await readProfile(join(ROOT, input), { ...opts, threads: 'on' });
      const view = (p: typeof here) =>
        p.ranks.map((r) => ({
          rank: r.rank,
          files: r.files,
          kernels: r.kernels,
          stepIds: r.stepIds,
          groups: [...r.groups.values()].map((g) => [g.name, g.total]),
        }));
      expect(view(there)).toEqual(view(here));
      expect(here.ranks[0]!.files[0]!.notes?.length).toBeGreaterThan(0);
    }
  });
});

describe('a folder of kineto traces with another JSON file in it', () => {
  it('is exit 2 naming that file, and says that every *.json of such a folder is read', async () => {
    const dir = join(tmp, 'kineto-and-config');
    mkdirSync(dir);
    for (const f of ['worker0.1700000000.pt.trace.json', 'worker1.1700000000.pt.trace.json']) copyFileSync(join(ROOT, KR, f), join(dir, f));
    writeFileSync(join(dir, 'config.json'), '{"model": "x"}\n');
    const r = await kprof(['summary', dir]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/config\.json: not a kprof summary JSON: no "kind" field\./);
    expect(r.stderr).toContain(
      `(In a folder of summary JSONs or PyTorch kineto traces every *.json file is read as one or the other: move other JSON files out of ${dir}.)`,
    );
  });
});

describe('steps of a trace', () => {
  it('from ProfilerStep#N; a trace without them has none, and --steps is refused', async () => {
    const tv = JSON.parse((await kprof(['inspect', TV, '--format', 'json'])).stdout);
    expect(tv.ranks[0].steps).toEqual([7, 8]);
    const none = await kprof(['summary', KGZ, '--steps', '1']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--steps needs steps, but the file has none (it holds no ProfilerStep#N events, so no kernel is in a step)');
    const inspect = await kprof(['inspect', KGZ]);
    expect(inspect.stdout).toContain('missing  op types, core types, input shapes, steps (no ProfilerStep#N)');
  });
});

describe('bad trace input: exit 2 and one message naming the file', () => {
  const cut = (name: string, bytes: Buffer): string => {
    const p = join(tmp, name);
    writeFileSync(p, bytes);
    return p;
  };
  const whole = readFileSync(join(ROOT, KR, 'worker0.1700000000.pt.trace.json'));
  const cases: [string, () => string, RegExp][] = [
    ['a JSON that is not a trace', () => join(ROOT, 'fixtures/trace/bad-not-a-trace/config.json'), /config\.json: not a kprof summary JSON/],
    ['a truncated JSON trace', () => cut('cut.pt.trace.json', whole.subarray(0, 2000)), /cut\.pt\.trace\.json: byte \d+: .*cut short/],
    ['a truncated .json.gz', () => cut('cut.json.gz', gzipSync(whole).subarray(0, 300)), /cut\.json\.gz: the gzip data ends early/],
    [
      'a trace with no kernel',
      () => cut('cpu.pt.trace.json', Buffer.from('{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 1, "dur": 2}]}')),
      /cpu\.pt\.trace\.json: no kernels in the file \(found 1 events; no kernel events/,
    ],
    [
      'a kineto trace saved as UTF-16 (with its byte order mark)',
      () => cut('u16.pt.trace.json', Buffer.from(`\ufeff${whole.toString('utf8')}`, 'utf16le')),
      /u16\.pt\.trace\.json: the file is UTF-16LE text, not UTF-8; .*iconv -f UTF-16LE -t UTF-8 FILE > NEW\.json/,
    ],
    [
      'a JSON file in UTF-16BE without a byte order mark',
      () => cut('u16be.json', Buffer.from(whole.toString('utf8'), 'utf16le').swap16()),
      /u16be\.json: the file is UTF-16BE text, not UTF-8/,
    ],
    [
      'an nsys CSV cut in its header',
      () => cut('x_cuda_gpu_trace.csv', Buffer.from('Processing [a.sqlite]...\n\n')),
      /x_cuda_gpu_trace\.csv: no nsys stats header/,
    ],
  ];
  for (const [what, path, message] of cases) {
    it(what, async () => {
      const p = path();
      const r = await kprof(['summary', p]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/internal error|at .*\.ts:\d+/);
    });
  }
});

describe('an Nsight CSV of several GPUs (its Device column)', () => {
  const TWO = 'fixtures/nsys/gpu-trace-two-gpus';
  it('is one rank per GPU, as an msprof op_summary is one rank per Device_id', async () => {
    const r = await kprof(['summary', TWO, '--format', 'json', '--short-names']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.perRank.map((x: { rank: string; totals: { count: number } }) => [x.rank, x.totals.count])).toEqual([
      ['0', 6],
      ['1', 5],
    ]);
    expect(j.rowsRead).toBe(11);
    // The file's copies and sets are said once, not once per rank.
    expect(r.stderr).toContain('not kernels, left out of the figures: 2 memcpy (6.40 µs), 2 memset (1.80 µs)');
    const inspect = (await kprof(['inspect', TWO])).stdout;
    expect(inspect).toContain('rank id  from Device 1 (the file holds the rows of 2 devices)');
    expect(inspect).toContain('rows of 2 devices (0, 1): one rank per Device');
    expect(inspect).toMatch(/rows {5}11 read, 0 skipped\n {2}device {3}5 of those rows are this rank's/);
    // A rank is known only once the file is read, as for msprof's Device_id.
    const one = await kprof(['summary', TWO, '--rank', '1', '--short-names']);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('5 kernels, 176.05 µs kernel time, 2 steps, 1 rank (1), 0 rows skipped');
    // Checked rank by rank: the GPU that runs the add twice in step 1 breaks the rule.
    const check = await kprof(['check', TWO, '--rules', 'fixtures/nsys/rules.yaml', '--short-names']);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('broken on 2 of 2 ranks (0, 1)');
  });

  it('reads the device of a cell as nsys writes it, or a bare number', () => {
    expect(['NVIDIA A100-SXM4-80GB (0)', 'NVIDIA H100 80GB HBM3 (12) ', '3', 'NVIDIA A100', '', 'GPU (x)'].map(deviceNumber)).toEqual([
      0,
      12,
      3,
      null,
      null,
      null,
    ]);
  });
});

describe('NVTX steps of an Nsight CSV from the push-pop report', () => {
  it('where no nvtx_gpu_proj_trace is beside it: the host ranges of nvtx_pushpop_trace, said so; the projected one first', async () => {
    const dir = join(tmp, 'nvtx-pushpop');
    mkdirSync(dir);
    copyFileSync(join(ROOT, 'fixtures/nsys/gpu-trace-preamble/cuda_gpu_trace.csv'), join(dir, 'report_cuda_gpu_trace.csv'));
    // As `nsys stats --report nvtx_pushpop_trace --format csv` writes it: host ranges with Start, End and Duration.
    writeFileSync(
      join(dir, 'report_nvtx_pushpop_trace.csv'),
      [
        'Processing [report.sqlite] with [/opt/nvidia/nsight-systems/2024.5.1/host-linux-x64/reports/nvtx_pushpop_trace.py]... ',
        '',
        'Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,ParentId,RangeStack,NameTree',
        '1000000,1025000,25000,8000,17000,ProfilerStep#1,4242,4242,0,1,1,,:1,ProfilerStep#1',
        '1010000,1018000,8000,0,8000,aten::add,4242,4242,1,0,2,1,:1:2, aten::add',
        '2000000,2900000,900000,0,900000,ProfilerStep#2,4242,4242,0,0,3,,:3,ProfilerStep#2',
        '',
      ].join('\n'),
    );
    const r = await kprof(['summary', dir, '--format', 'json', '--short-names']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.stepIds).toEqual([1, 2]);
    // The host's step 1 ends at 1025 µs: the GEMM that starts on the GPU at 1030 µs is in no step.
    const perStep = (key: string) =>
      (j.groups as { key: string; byStep: { step: number; count: number }[] }[]).find((g) => g.key === key)!.byStep.map((s) => [s.step, s.count]);
    expect(perStep('at::native::vectorized_elementwise_kernel')).toEqual([
      [1, 2],
      [2, 1],
    ]);
    expect(perStep('ampere_sgemm_128x64_nn')).toEqual([[2, 1]]);
    expect((await kprof(['inspect', dir])).stdout).toContain('NVTX ranges ProfilerStep#N of the host (report_nvtx_pushpop_trace.csv)');
    // With the projected report beside it too, that one is read.
    copyFileSync(join(ROOT, 'fixtures/nsys/nvtx-steps/nvtx_gpu_proj_trace.csv'), join(dir, 'report_nvtx_gpu_proj_trace.csv'));
    expect((await kprof(['inspect', dir])).stdout).toContain('NVTX ranges ProfilerStep#N projected onto the GPU (report_nvtx_gpu_proj_trace.csv)');
  });
  it('a gzipped report finds the plain NVTX report of its run beside it, and a plain one a gzipped NVTX report', async () => {
    const dir = join(tmp, 'nvtx-gz');
    mkdirSync(dir);
    const trace = readFileSync(join(ROOT, 'fixtures/nsys/gpu-trace-nvtx/cuda_gpu_trace.csv'));
    const nvtx = readFileSync(join(ROOT, 'fixtures/nsys/nvtx-steps/nvtx_gpu_proj_trace.csv'));
    writeFileSync(join(dir, 'a_cuda_gpu_trace.csv.gz'), gzipSync(trace));
    writeFileSync(join(dir, 'a_nvtx_gpu_proj_trace.csv'), nvtx);
    writeFileSync(join(dir, 'b_cuda_gpu_trace.csv'), trace);
    writeFileSync(join(dir, 'b_nvtx_gpu_proj_trace.csv.gz'), gzipSync(nvtx));
    for (const [file, report] of [
      ['a_cuda_gpu_trace.csv.gz', 'a_nvtx_gpu_proj_trace.csv'],
      ['b_cuda_gpu_trace.csv', 'b_nvtx_gpu_proj_trace.csv.gz'],
    ]) {
      const r = await kprof(['inspect', join(dir, file!)]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`steps from NVTX ranges ProfilerStep#N projected onto the GPU (${report})`);
      expect(r.stdout).toMatch(/steps {4}2 \(1-2\)/);
    }
  });
});

describe('a UTF-8 byte order mark before a trace', () => {
  it('is read as the trace without it (an editor that saved it again added the mark)', async () => {
    const file = join(ROOT, KR, 'worker0.1700000000.pt.trace.json');
    const p = join(tmp, 'bom.pt.trace.json');
    writeFileSync(p, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(file)]));
    const [plain, bom] = [await kprof(['summary', file, '--format', 'json']), await kprof(['summary', p, '--format', 'json'])];
    expect(bom.code).toBe(0);
    const figures = (out: string) => JSON.parse(out).groups;
    expect(figures(bom.stdout)).toEqual(figures(plain.stdout));
  });
});

describe('exact start ticks and stream ids, for sinks that want them (the sequence view)', () => {
  /** A KernelTarget that records what the reader gives it. */
  function recorder() {
    const got = { origins: [] as number[], kernels: [] as [string, number | null, number, number, number][], names: new Map<number, string>() };
    const into: KernelTarget = {
      wantsStarts: true,
      wantsStreams: true,
      begin: () => {},
      origin: (us) => got.origins.push(us),
      bind: (id, kind) => got.names.set(id, kind.name!),
      addBatch: () => {
        throw new Error('no batches from a trace');
      },
      addKernel: (id, step, ticks, startTicks, stream) => got.kernels.push([got.names.get(id)!, step, ticks, startTicks, stream]),
      addAggregated: () => {},
      rowsRead: 0,
      rowsSkipped: 0,
      skip: () => {},
      warn: () => {},
    };
    return { got, into };
  }

  it('trace_view.json: µs with a fraction as written, after a whole-µs origin told first; the "Stream N" thread', async () => {
    const { got, into } = recorder();
    await readChromeTraceFile(join(ROOT, TV, 'trace_view.json'), into, { withShapes: false });
    // ts "1736408883000100.120" is the origin's µs and 1,200 ticks; "…0200.000" is 100 µs later.
    expect(got.origins).toEqual([1736408883000100]);
    expect(got.kernels.slice(0, 3)).toEqual([
      ['aclnnMul_MulAiCore_Mul', 7, 62801, 1200, 2],
      ['MatMulV2', 7, 506210, 1_000_000, 2],
      ['aclnnMul_MulAiCore_Mul', 8, 63000, 10_004_000 + 1000, 2],
    ]);
  });

  it('kineto: numeric ts, args.stream; nsys: Start (ns), Strm', async () => {
    const k = recorder();
    await readChromeTraceFile(join(ROOT, KR, 'worker0.1700000000.pt.trace.json'), k.into, { withShapes: false });
    // The memcpy at ts 10050 is the first start read: the origin (it is not a kernel, so not handed on).
    expect(k.got.origins).toEqual([10050]);
    expect(k.got.kernels.slice(0, 2).map(([n, , , s, st]) => [n.slice(0, 22), s, st])).toEqual([
      ['ampere_sgemm_128x64_nn', 500_000, 7],
      ['void at::native::vecto', 2_500_000, 7],
    ]);
    const n = recorder();
    await readNsysFile(join(ROOT, NSYS, 'cuda_gpu_trace.csv'), n.into, { withShapes: false });
    // The memcpy at 1,000,000 ns is the first start (1 ns is 10 ticks).
    expect(n.got.origins).toEqual([1000]);
    expect(n.got.kernels.map(([, , , s, st]) => [s, st])).toEqual([
      [100_000, 7],
      [200_000, 7],
      [300_000, 7],
      [800_000, 20],
      [10_100_000, 7],
      [10_300_000, 7],
    ]);
  });
});
