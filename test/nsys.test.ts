// Nsight Systems CSV readers on our fixtures (fixtures/nsys/, written from FORMATS.md §14): preamble lines, each
// unit variant, the older report names, NVTX steps, and bad input.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decimalTicks, NsysCsvReader, type NsysOptions } from '../src/input/formats/trace/nsys/nsysCsv.js';
import { NvtxStepsReader } from '../src/input/formats/trace/nsys/nvtxSteps.js';
import { CsvRecords } from '../src/input/formats/trace/nsys/csvRecords.js';
import type { StatisticRecord, TraceRecord } from '../src/input/formats/trace/record.js';
import { isKprofError } from '../src/util/errors.js';
import { kprof, ROOT } from './helpers.js';

const FIX = join(ROOT, 'fixtures/nsys');

function read(file: string, chunk = 1 << 20, withSteps = false) {
  const records: TraceRecord[] = [];
  const stats: StatisticRecord[] = [];
  const warnings: string[] = [];
  let steps: NsysOptions | undefined;
  if (withSteps) {
    const n = new NvtxStepsReader('nvtx.csv');
    n.push(readFileSync(join(FIX, 'nvtx-steps/nvtx_gpu_proj_trace.csv')));
    const s = n.finish();
    steps = { steps: s.windows, stepSource: s.source };
  }
  const r = new NsysCsvReader(
    file,
    { kernel: (k) => records.push({ ...k }), statistic: (s) => stats.push({ ...s }), warn: (w, m) => warnings.push(`${w}: ${m}`) },
    steps,
  );
  const bytes = readFileSync(join(FIX, file));
  for (let i = 0; i < bytes.length; i += chunk) r.push(bytes.subarray(i, i + chunk));
  return { info: r.finish(), records, stats, warnings };
}

const VEC =
  'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)';

describe('cuda_gpu_trace', () => {
  it('skips the preamble lines, reads each row in order, memcpy/memset apart, exact ticks', () => {
    const { info, records, warnings } = read('gpu-trace-preamble/cuda_gpu_trace.csv');
    expect(warnings).toEqual([]);
    expect(records.map((r) => [r.kind, r.name, r.stream, r.step, r.startUs, r.ticks])).toEqual([
      ['memcpy', '[CUDA memcpy Host-to-Device]', '7', null, 1000, 32000],
      ['kernel', VEC, '7', null, 1010, 52500],
      ['kernel', VEC, '7', null, 1020, 55000],
      ['kernel', 'ampere_sgemm_128x64_nn', '7', null, 1030, 400010],
      ['communication', 'ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)', '20', null, 1080, 1200000],
      ['memset', '[CUDA memset]', '7', null, 1090, 9000],
      ['kernel', VEC, '7', null, 2010, 53000],
      ['kernel', 'ampere_sgemm_128x64_nn', '7', null, 2030, 399990],
    ]);
    expect(info).toMatchObject({
      format: 'nsys_gpu_trace',
      kernels: 6,
      events: 8,
      skipped: 0,
      steps: [],
      answers: { names: true, types: false, cores: false, steps: false, order: true, ranks: false },
    });
    expect(info.traits).toEqual(['nsys stats cuda_gpu_trace', 'times in ns', '4 lines before the header skipped']);
    expect([...info.apart]).toEqual([
      ['memcpy', { count: 1, ticks: 32000 }],
      ['memset', { count: 1, ticks: 9000 }],
    ]);
    expect(info.notes).toEqual(['no steps: cuda_gpu_trace has no step column (give the NVTX ranges of ProfilerStep#N for steps)']);
  });

  it('gives the same records whatever the chunks (7 bytes at a time)', () => {
    expect(read('gpu-trace-preamble/cuda_gpu_trace.csv', 7).records).toEqual(read('gpu-trace-preamble/cuda_gpu_trace.csv').records);
  });

  it('steps where NVTX says so: ProfilerStep#N ranges projected onto the GPU', () => {
    const { info, records } = read('gpu-trace-preamble/cuda_gpu_trace.csv', 1 << 20, true);
    expect(records.map((r) => r.step)).toEqual([1, 1, 1, 1, 1, 1, 2, 2]);
    expect(info.steps).toEqual([1, 2]);
    expect(info.answers.steps).toBe(true);
    expect(info.stepSource).toBe('NVTX ranges ProfilerStep#N projected onto the GPU');
    expect(info.notes).toEqual([]);
  });

  it('the older gputrace with times in µs, sizes in bytes, MB/s, no GreenCtx, CRLF; a bad row is skipped and said', () => {
    const { info, records, warnings } = read('gpu-trace-us-bytes/gputrace.csv');
    expect(records.map((r) => [r.kind, r.name, r.startUs, r.ticks])).toEqual([
      ['memcpy', '[CUDA memcpy HtoD]', 1000, 32000],
      ['kernel', 'void add_kernel<float>(float*, float const*, int)', 1010, 52500],
      ['kernel', 'void add_kernel<float>(float*, float const*, int)', 1020, 55005],
    ]);
    expect(warnings).toEqual(['line 5: Duration is "n/a", expected a number; row skipped']);
    expect(info).toMatchObject({ kernels: 2, skipped: 1, events: 4 });
    expect(info.traits).toEqual(['nsys stats cuda_gpu_trace', 'times in us']);
  });

  it('a kernel whose Device names no GPU (N/A, empty) is skipped and said, never put on the GPU of the row before', () => {
    const records: TraceRecord[] = [];
    const warnings: string[] = [];
    const r = new NsysCsvReader('x.csv', { kernel: (k) => records.push({ ...k }), warn: (w, m) => warnings.push(`${w}: ${m}`) });
    r.push(
      Buffer.from(
        'Start (ns),Duration (ns),Device,Strm,Name\n' +
          '1,10,NVIDIA A100-SXM4-80GB (1),7,a\n' +
          '2,20,N/A,7,b\n' +
          '3,30,,7,c\n' +
          '4,40,N/A,7,[CUDA memset]\n' +
          '5,50,0,7,d\n',
      ),
    );
    const info = r.finish();
    expect(records.map((k) => [k.name, k.device])).toEqual([
      ['a', 1],
      ['[CUDA memset]', null],
      ['d', 0],
    ]);
    expect(warnings).toEqual([
      'line 3: Device is "N/A", expected a GPU (NVIDIA A100-SXM4-80GB (0)) or its number; row skipped',
      'line 4: Device is "", expected a GPU (NVIDIA A100-SXM4-80GB (0)) or its number; row skipped',
    ]);
    expect(info).toMatchObject({ kernels: 2, skipped: 2, events: 5 });
  });

  it('end to end: the row of Device N/A is a skipped row of the report, in no rank (rows read = kernels + skipped)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-nsys-'));
    try {
      cpSync(join(FIX, 'gpu-trace-two-gpus'), dir, { recursive: true });
      const csv = join(dir, 'cuda_gpu_trace.csv');
      const lines = readFileSync(csv, 'utf8').split('\n');
      // The kernel at 1010500 ns, of GPU 1, written after one of GPU 0.
      const at = lines.findIndex((l) => l.startsWith('1010500,'));
      expect(lines[at]).toContain(',NVIDIA A100-SXM4-80GB (1),');
      lines[at] = lines[at]!.replace(',NVIDIA A100-SXM4-80GB (1),', ',N/A,');
      writeFileSync(csv, lines.join('\n'));
      type Out = { totals: { count: number }; skippedRows: number; perRank: { rank: string; totals: { count: number } }[] };
      const json = async (p: string): Promise<Out> => JSON.parse((await kprof(['summary', p, '--format', 'json'])).stdout);
      const [was, now] = [await json('fixtures/nsys/gpu-trace-two-gpus'), await json(dir)];
      expect(now.skippedRows).toBe(1);
      expect(now.totals.count).toBe(was.totals.count - 1);
      // GPU 0 keeps its own kernels (before, it gained the row of N/A); GPU 1 lost the one it ran.
      const count = (o: Out, rank: string) => o.perRank.find((r) => r.rank === rank)?.totals.count;
      expect([count(now, '0'), count(now, '1')]).toEqual([count(was, '0'), count(was, '1')! - 1]);
      const r = await kprof(['summary', dir]);
      expect(r.stderr).toContain(
        `cuda_gpu_trace.csv:${at + 1}: Device is "N/A", expected a GPU (NVIDIA A100-SXM4-80GB (0)) or its number; row skipped`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('cuda_gpu_kern_sum (aggregated: names only)', () => {
  it('one statistic per name, with count, total, min and max in ticks', () => {
    const { info, records, stats, warnings } = read('kern-sum/cuda_gpu_kern_sum.csv');
    expect(warnings).toEqual([]);
    expect(records).toEqual([]);
    expect(stats).toEqual([
      { kind: 'kernel', name: 'ampere_sgemm_128x64_nn', count: 2, ticks: 800000, minTicks: 399990, maxTicks: 400010 },
      { kind: 'kernel', name: VEC, count: 3, ticks: 160500, minTicks: 52500, maxTicks: 55000 },
    ]);
    expect(info).toMatchObject({ format: 'nsys_kern_sum', kernels: 5, answers: { names: true, steps: false, order: false, types: false } });
    expect(info.traits).toEqual(['nsys stats cuda_gpu_kern_sum (aggregated)', 'times in ns', '2 lines before the header skipped']);
  });

  it('the older gpukernsum: Time(%), µs, Average/Minimum/Maximum without a unit', () => {
    const { stats, info } = read('kern-sum-old-us/gpukernsum.csv');
    expect(stats).toEqual([
      { kind: 'kernel', name: 'volta_sgemm_128x64_nn', count: 2, ticks: 800005, minTicks: 399990, maxTicks: 400015 },
      { kind: 'kernel', name: 'void add_kernel<float>(float*, float const*, int)', count: 3, ticks: 160500, minTicks: 52500, maxTicks: 55000 },
    ]);
    expect(info.traits).toEqual(['nsys stats cuda_gpu_kern_sum (aggregated)', 'times in us']);
  });
});

describe('bad input', () => {
  function error(text: string): string {
    try {
      const r = new NsysCsvReader('dir/x.csv', { kernel() {}, warn() {} });
      r.push(Buffer.from(text));
      r.finish();
    } catch (e) {
      if (isKprofError(e)) return e.message;
      throw e;
    }
    throw new Error('no error');
  }

  it('a CSV that is not an nsys report names the file and what was expected', () => {
    expect(error('Step Id,Name,Type\n1,a,b\n')).toMatch(
      /^dir\/x\.csv: no nsys stats header in the first 2 lines; expected the CSV of `nsys stats --report cuda_gpu_trace/,
    );
    expect(error('x\n'.repeat(60))).toMatch(/^dir\/x\.csv: no nsys stats header in the first 50 lines \(line 51 is not one\)/);
  });

  it('a report nsys skipped (its console output saved as the CSV) says what nsys said', () => {
    const text =
      'Processing [report.sqlite] with [/opt/nvidia/nsight-systems/2024.5.1/host-linux-x64/reports/cuda_gpu_trace.py]... \n' +
      'SKIPPED: report.sqlite does not contain CUDA trace data.\n';
    expect(error(text)).toBe(
      'dir/x.csv: nsys wrote no table here: it says "SKIPPED: report.sqlite does not contain CUDA trace data." ' +
        'Profile with CUDA tracing on (`nsys profile --trace=cuda`, the default) and run `nsys stats` again.',
    );
  });

  it('a duration or total past what kprof sums exactly is a skipped row, said as such; the rows beside it are read', () => {
    const rows = (text: string) => {
      const records: TraceRecord[] = [];
      const stats: StatisticRecord[] = [];
      const warnings: string[] = [];
      const r = new NsysCsvReader('x.csv', {
        kernel: (k) => records.push({ ...k }),
        statistic: (t) => stats.push({ ...t }),
        warn: (w, m) => warnings.push(`${w}: ${m}`),
      });
      r.push(Buffer.from(text));
      return { info: r.finish(), records, stats, warnings };
    };
    const limit = 'more than kprof sums exactly (2^51 ticks of 0.1 ns (225,179,981,368 µs, about 62 hours)); row skipped';
    const trace = rows('Start (ns),Duration (ns),Strm,Name\n1,225179981368525,7,a\n2,99999999999999999999,7,b\n3,225179981368524,7,c\n');
    expect(trace.records.map((r) => [r.name, r.ticks])).toEqual([['c', 2251799813685240]]);
    expect(trace.warnings).toEqual([`line 2: Duration is 225179981368525, ${limit}`, `line 3: Duration is 99999999999999999999, ${limit}`]);
    const sum = rows('Total Time (ns),Instances,Name\n225179981368525,2,a\n5,1,b\n');
    expect(sum.stats.map((t) => [t.name, t.count])).toEqual([['b', 1]]);
    expect(sum.warnings).toEqual([`line 2: Total Time is 225179981368525, ${limit}`]);
  });

  it('a time unit kprof does not know is refused with the column', () => {
    expect(error('Start (cycles),Duration (cycles),Name\n1,2,k\n')).toBe(
      'dir/x.csv:1: the column "Start (cycles)" is in "cycles", not a unit of time kprof knows (ns, us, µs, ms, s). Export it again with `nsys stats --timeunit nsec`.',
    );
  });
});

describe('a duration of -0', () => {
  it('is zero, in an Nsight CSV as in a kineto trace: the kernel is read, not skipped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-negzero-'));
    try {
      const head =
        'Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name';
      const row = (start: number, dur: string, name: string) => `${start},${dur},1,1,1,1,1,1,1,32,0,0,,,,,NVIDIA A100-SXM4-80GB (0),1,,7,${name}`;
      writeFileSync(
        join(dir, 'report_cuda_gpu_trace.csv'),
        [head, row(1000, '3200', 'kA'), row(5000, '-0', 'kB'), row(6000, '-0.0', 'kC')].join('\n'),
      );
      const ev = (ts: number, dur: string, name: string) =>
        `{"ph":"X","cat":"kernel","name":"${name}","pid":0,"tid":7,"ts":${ts},"dur":${dur},"args":{"device":0,"stream":7,"correlation":${ts}}}`;
      writeFileSync(join(dir, 'k.pt.trace.json'), `{"traceEvents":[${[ev(1, '3.2', 'kA'), ev(5, '-0', 'kB'), ev(6, '-0.0', 'kC')].join(',')}]}`);
      for (const f of ['report_cuda_gpu_trace.csv', 'k.pt.trace.json']) {
        const r = await kprof(['summary', join(dir, f), '--format', 'json']);
        expect(r.stderr).not.toMatch(/skipped|warning/);
        expect(r.code).toBe(0);
        const j = JSON.parse(r.stdout) as {
          skippedRows: number;
          totals: { count: number; totalUs: number };
          groups: { key: string; totalUs: number }[];
        };
        expect(j.skippedRows).toBe(0);
        expect(j.totals).toEqual({ count: 3, totalUs: 3.2 });
        expect(j.groups.map((g) => [g.key, g.totalUs])).toEqual([
          ['kA', 3.2],
          ['kB', 0],
          ['kC', 0],
        ]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('decimalTicks and CsvRecords', () => {
  it.each([
    ['3200', 1, 32000],
    ['5.5005', 4, 55005],
    ['0.00005', 4, 1],
    ['0.00004', 4, 0],
    ['1.5', 7, 15000000],
    ['2', 10, 20000000000],
    ['-1', 1, Number.NaN],
    ['-0.5', 4, Number.NaN],
    ['-0', 1, 0],
    [' -0.000 ', 4, 0],
    ['1e3', 1, Number.NaN],
    ['', 1, Number.NaN],
  ])('%s × 10^%i', (text, shift, ticks) => {
    expect(decimalTicks(text, shift)).toBe(ticks);
  });

  it('splits quoted cells, doubled quotes and CRLF wherever the chunks are cut', () => {
    const text = 'a,"b,""c""",d\r\n"x\ny",,"€"\n\nlast';
    const want: [string[], number][] = [
      [['a', 'b,"c"', 'd'], 1],
      [['x\ny', '', '€'], 2],
      [[''], 4],
      [['last'], 5],
    ];
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const got: [string[], number][] = [];
      const r = new CsvRecords(
        (cells, line) => got.push([cells, line]),
        () => {
          throw new Error('too long');
        },
      );
      r.push(bytes.subarray(0, cut));
      r.push(bytes.subarray(cut));
      r.finish();
      expect(got, `cut at ${cut}`).toEqual(want);
    }
  });
});

describe('every time unit of the headers', () => {
  it.each([
    ['ns', '2500', 25000],
    ['us', '2.5', 25000],
    ['µs', '2.5', 25000],
    ['ms', '0.0025', 25000],
    ['s', '0.0000025', 25000],
  ])('Duration (%s)', (unit, value, ticks) => {
    const got: TraceRecord[] = [];
    const r = new NsysCsvReader('x.csv', { kernel: (k) => got.push({ ...k }), warn() {} });
    r.push(Buffer.from(`Start (${unit}),Duration (${unit}),Strm,Name\n${value},${value},7,k\n`));
    const info = r.finish();
    expect(got.map((k) => [k.ticks, k.startUs])).toEqual([[ticks, 2.5]]);
    expect(info.traits).toContain(`times in ${unit}`);
  });
});
