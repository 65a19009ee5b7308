// The Chrome-trace reader on our own fixtures (fixtures/trace/, written from FORMATS.md §9 and §13), and the
// kernel-name shortening option.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readChromeTrace } from '../src/input/formats/trace/chromeTrace.js';
import type { TraceRecord } from '../src/input/formats/trace/record.js';
import { shortenName } from '../src/input/formats/trace/shortName.js';
import { sniffChromeTrace, sniffNsysCsv } from '../src/input/formats/trace/detect.js';
import { traceChunks } from '../src/input/bytes/chunks.js';
import { isKprofError } from '../src/util/errors.js';
import { ROOT } from './helpers.js';

const FIX = join(ROOT, 'fixtures/trace');

async function read(file: string, shortNames = false) {
  const records: TraceRecord[] = [];
  const warnings: string[] = [];
  const info = await readChromeTrace(
    file,
    traceChunks(file),
    { kernel: (r) => records.push({ ...r }), warn: (w, m) => warnings.push(`${w}: ${m}`) },
    { shortNames },
  );
  return { info, records, warnings };
}

describe('kineto trace without ProfilerStep, plain and gzip', () => {
  for (const file of ['kineto-no-step/rank-2.pt.trace.json', 'kineto-no-step-gz/rank-2.pt.trace.json.gz']) {
    it(file, async () => {
      const { info, records, warnings } = await read(join(FIX, file));
      expect(warnings).toEqual([]);
      expect(records.map((r) => [r.kind, r.name.slice(0, 40), r.stream, r.step, r.ticks])).toEqual([
        ['kernel', 'void at::native::vectorized_elementwise_', '7', null, 52500],
        ['kernel', 'void at::native::vectorized_elementwise_', '7', null, 55000],
        ['kernel', 'ampere_sgemm_128x64_nn', '7', null, 400001],
        ['communication', 'ncclKernel_AllReduce_RING_LL_Sum_float(n', '20', null, 1200000],
        ['memcpy', 'Memcpy HtoD (Pageable -> Device)', '7', null, 30000],
        ['memset', 'Memset (Device)', '7', null, 10000],
      ]);
      expect(records[0]!.startUs).toBe(1010);
      expect(info).toMatchObject({
        format: 'kineto',
        rank: '2',
        rankSource: 'distributedInfo.rank',
        kernels: 4,
        events: 10,
        steps: [],
        stepSource: null,
        answers: { names: true, types: false, cores: false, shapes: false, steps: false, order: true, ranks: true },
      });
      expect([...info.apart]).toEqual([
        ['memcpy', { count: 1, ticks: 30000 }],
        ['memset', { count: 1, ticks: 10000 }],
      ]);
      // The memcpy at ts 990, written after a kernel of stream 7 at 1030, is said.
      expect(info.notes).toEqual([
        "device events that start before the one written before them on the same stream: 1 (the order kept is the file's)",
      ]);
    });
  }

  it('with the shortening option, template arguments, parameters and the return type are stripped', async () => {
    const { records, info } = await read(join(FIX, 'kineto-no-step/rank-2.pt.trace.json'), true);
    expect(records.map((r) => r.name)).toEqual([
      'at::native::vectorized_elementwise_kernel',
      'at::native::vectorized_elementwise_kernel',
      'ampere_sgemm_128x64_nn',
      'ncclKernel_AllReduce_RING_LL_Sum_float',
      'Memcpy HtoD (Pageable -> Device)',
      'Memset (Device)',
    ]);
    expect(info.traits).toContain('kernel names shortened');
  });
});

describe('kineto: a kernel is in the step of its launch, as HTA places it', () => {
  it('whether the launch is written before or after the kernel; a kernel without a launch event by its own start', async () => {
    const step = (n: number, ts: number) => ({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${n}`, pid: 1, tid: 1, ts, dur: 100 });
    const launch = (corr: number, ts: number) => ({
      ph: 'X',
      cat: 'cuda_runtime',
      name: 'cudaLaunchKernel',
      pid: 1,
      tid: 1,
      ts,
      dur: 2,
      args: { correlation: corr },
    });
    const kernel = (name: string, corr: number | null, ts: number) => ({
      ph: 'X',
      cat: 'kernel',
      name,
      pid: 0,
      tid: 7,
      ts,
      dur: 5,
      args: corr === null ? { stream: 7 } : { stream: 7, correlation: corr },
    });
    // Step 1 is [1000, 1100) on the host, step 2 [1100, 1200). Each kernel below was launched in step 1 and runs
    // on the device in step 2's window: its own start would put it in step 2.
    const events = [
      step(1, 1000),
      step(2, 1100),
      launch(11, 1090),
      kernel('launched_before', 11, 1150),
      kernel('launched_after', 12, 1160),
      launch(12, 1095),
      kernel('no_launch_event', null, 1170),
    ];
    const dir = mkdtempSync(join(tmpdir(), 'kprof-trace-'));
    try {
      const file = join(dir, 'rank-0.pt.trace.json');
      writeFileSync(file, JSON.stringify({ schemaVersion: 1, traceEvents: events }));
      const { info, records, warnings } = await read(file);
      expect(warnings).toEqual([]);
      expect(records.map((r) => [r.name, r.step])).toEqual([
        ['launched_before', 1],
        ['launched_after', 1],
        ['no_launch_event', 2],
      ]);
      expect(info.steps).toEqual([1, 2]);
      expect(info.notes).toEqual([
        '1 of 3 device events (kernels, memcpy, memset) were placed in a step by their own start time: no launch event of their args.correlation is in the file, or it is too far from them for the reader to wait for it',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('torch_npu trace_view.json with ProfilerStep windows', () => {
  it('device kernels and HCCL ops, with host-side steps; other device tasks apart', async () => {
    const { info, records, warnings } = await read(join(FIX, 'trace-view-steps/trace_view.json'));
    expect(warnings).toEqual([]);
    expect(records.map((r) => [r.kind, r.name, r.type, r.category, r.stream, r.step, r.ticks])).toEqual([
      ['kernel', 'aclnnMul_MulAiCore_Mul', null, 'AI_VECTOR_CORE', '2', 7, 62801],
      ['kernel', 'MatMulV2', null, 'AI_CORE', '2', 7, 506210],
      ['kernel', 'aclnnMul_MulAiCore_Mul', null, 'AI_VECTOR_CORE', '2', 8, 63000],
      ['communication', 'hcom_allReduce__586_0_1', null, 'HCCL', '0', 8, 795000],
      ['kernel', 'aclnnCast_Cast_Cast', null, 'AI_VECTOR_CORE', '2', null, 20000],
    ]);
    expect(info).toMatchObject({ format: 'trace_view', kernels: 5, steps: [7, 8], rank: null, answers: { steps: true, types: false, ranks: false } });
    expect(info.stepSource).toMatch(/^ProfilerStep#N windows of the host/);
    expect([...info.apart]).toEqual([['Notify Wait', { count: 1, ticks: 125000 }]]);
    expect(info.traits).toEqual(['torch_npu trace_view.json', 'JSON array of events']);
  });
});

describe('a JSON file that is not a trace', () => {
  it('fails with an input error naming the file', async () => {
    const file = join(FIX, 'bad-not-a-trace/config.json');
    const e = await read(file).then(
      () => null,
      (err: unknown) => err,
    );
    expect(isKprofError(e)).toBe(true);
    expect((e as Error).message).toBe(
      `${file}: a JSON object without a "traceEvents" array: not a Chrome trace. Expected a PyTorch profiler trace (*.pt.trace.json) or torch_npu trace_view.json.`,
    );
  });

  it('a missing file is an input error naming it', async () => {
    const file = join(FIX, 'no-such.json');
    await expect(read(file)).rejects.toThrow(`${file}: no such file or folder`);
  });
});

describe('shortenName', () => {
  it.each([
    [
      'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)',
      'at::native::vectorized_elementwise_kernel',
    ],
    [
      'void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float const*, long)',
      'at::native::(anonymous namespace)::max_pool_forward_nchw',
    ],
    [
      'void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)',
      'cutlass::Kernel',
    ],
    ['ampere_sgemm_128x64_nn', 'ampere_sgemm_128x64_nn'],
    ['void f<[](int) -> int { return 0; }>(int)', 'f'],
    ['std::foo<int>::operator()(int) const', 'std::foo::operator()'],
    // Unbalanced or emptied: kept as written.
    ['void broken<int(int)', 'void broken<int(int)'],
    ['<int>', '<int>'],
    ['(anonymous namespace)::k(int)', '(anonymous namespace)::k'],
  ])('%s', (name, short) => {
    expect(shortenName(name)).toBe(short);
  });
});

describe('sniffing (what the registry asks before choosing a reader)', () => {
  const head = (file: string) => {
    const b = readFileSync(file);
    return b[0] === 0x1f ? gunzipSync(b) : b;
  };
  it('tells Chrome traces and nsys CSVs from other files', () => {
    expect(sniffChromeTrace(head(join(FIX, 'kineto-no-step/rank-2.pt.trace.json')))).toBe(true);
    expect(sniffChromeTrace(head(join(FIX, 'kineto-no-step-gz/rank-2.pt.trace.json.gz')))).toBe(true);
    expect(sniffChromeTrace(head(join(FIX, 'trace-view-steps/trace_view.json')))).toBe(true);
    expect(sniffChromeTrace(head(join(FIX, 'bad-not-a-trace/config.json')))).toBe(false);
    expect(sniffChromeTrace(Buffer.from(' [ ] '))).toBe(true);
    expect(sniffChromeTrace(Buffer.from('[1, 2]'))).toBe(false);
    expect(sniffChromeTrace(Buffer.from('Name,Type\n'))).toBe(false);
    const nsys = join(ROOT, 'fixtures/nsys');
    expect(sniffNsysCsv(head(join(nsys, 'gpu-trace-preamble/cuda_gpu_trace.csv')))).toBe('nsys_gpu_trace');
    expect(sniffNsysCsv(head(join(nsys, 'gpu-trace-us-bytes/gputrace.csv')))).toBe('nsys_gpu_trace');
    expect(sniffNsysCsv(head(join(nsys, 'kern-sum/cuda_gpu_kern_sum.csv')))).toBe('nsys_kern_sum');
    expect(sniffNsysCsv(head(join(nsys, 'kern-sum-old-us/gpukernsum.csv')))).toBe('nsys_kern_sum');
    expect(sniffNsysCsv(Buffer.from('Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n'))).toBe(null);
    expect(sniffNsysCsv(head(join(FIX, 'kineto-no-step/rank-2.pt.trace.json')))).toBe(null);
  });
});

describe('cut and damaged files on disk', () => {
  it('a gzip trace cut short, and a plain one, fail with input errors naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-trace-'));
    try {
      const gz = readFileSync(join(FIX, 'kineto-no-step-gz/rank-2.pt.trace.json.gz'));
      const cutGz = join(dir, 'cut.pt.trace.json.gz');
      writeFileSync(cutGz, gz.subarray(0, gz.length - 30));
      const e1 = await read(cutGz).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isKprofError(e1)).toBe(true);
      expect((e1 as Error).message).toMatch(new RegExp(`^${cutGz.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the gzip data ends early`));
      const plain = readFileSync(join(FIX, 'kineto-no-step/rank-2.pt.trace.json'));
      const cut = join(dir, 'cut.pt.trace.json');
      writeFileSync(cut, plain.subarray(0, 700));
      const e2 = await read(cut).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isKprofError(e2)).toBe(true);
      expect((e2 as Error).message).toMatch(
        /cut\.pt\.trace\.json: byte 700: the file ends inside trace event 2 \(which starts at byte \d+\): the file is cut short\./,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
