// Hostile and damaged Chrome traces (kineto, trace_view.json), each built here in a temporary folder: what kprof
// says of them names the file and the place, and reads as the other messages do.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'kprof-traces-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A kineto kernel event, its ts and dur written as given (JSON text). */
function kernel(name: string, ts: string, dur: string): string {
  return `{"ph":"X","cat":"kernel","name":${JSON.stringify(name)},"pid":0,"tid":7,"ts":${ts},"dur":${dur}}`;
}

function trace(dir: string, name: string, events: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `{"traceEvents":[${events.join(',')}]}`);
  return path;
}

describe('hostile traces', () => {
  it('inspect names the first warning of a trace by its file and byte, not a line 0', async () => {
    const dir = tmp();
    trace(dir, 'huge.json', [kernel('a', '1', '1'), kernel('b', '2', '1e400')]);
    const r = await kprof(['inspect', 'huge.json'], {}, dir);
    expect(r.code).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.includes('warnings'));
    expect(line).toMatch(/\(first: huge\.json: byte \d+: kernel event 1 has dur 1e400/);
    expect(r.stdout).not.toContain('huge.json:0');
  });

  it('a gzip trace names its byte offsets as of the unpacked data', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'cut.json.gz'), gzipSync(`{"traceEvents":[${kernel('a', '1', '1')},${kernel('b', '2', '1')}`));
    const r = await kprof(['summary', 'cut.json.gz'], {}, dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^kprof: cut\.json\.gz: byte \d+ of the unpacked data: the file ends inside the array of trace events/);
    expect(r.stderr).not.toContain('    at ');
  });

  for (const engine of ['js', 'simd']) {
    it(`a gzip bomb of white space stops at the item limit, not at its end (${engine} engine)`, async () => {
      const dir = tmp();
      // 65 MiB of spaces between two events unpack from some 65 KB; the limit is 64 MiB. A bomb of gigabytes
      // would be read to its end without the limit (memory stays bounded either way: white space is not kept).
      const blank = Buffer.alloc(65 << 20, 32);
      const head = Buffer.from(`{"traceEvents":[${kernel('a', '1', '1')},`);
      const tail = Buffer.from(`${kernel('b', '2', '1')}]}`);
      writeFileSync(join(dir, 'bomb.json.gz'), gzipSync(Buffer.concat([head, blank, tail]), { level: 1 }));
      const r = await kprof(['summary', 'bomb.json.gz'], { KPROF_ENGINE: engine }, dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /^kprof: bomb\.json\.gz: byte \d+ of the unpacked data: more than 64 MiB of white space in a row, the limit \(no profiler writes that much between two items of a trace\)/,
      );
    });
  }

  it('white space just under the limit, over many chunks, is read', async () => {
    const dir = tmp();
    const blank = Buffer.alloc((64 << 20) - 16, 10);
    const head = Buffer.from(`{"traceEvents":[${kernel('a', '1', '1')},`);
    writeFileSync(join(dir, 'padded.json.gz'), gzipSync(Buffer.concat([head, blank, Buffer.from(`${kernel('b', '2', '1')}]}`)]), { level: 1 }));
    const r = await kprof(['summary', 'padded.json.gz', '--format', 'json'], {}, dir);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).totals.count).toBe(2);
  });

  it('a member named twice in the top-level object is refused: JSON readers differ on which one counts', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'two.json'), `{"traceEvents":[${kernel('a', '1', '1')}],"traceEvents":[${kernel('b', '1', '1')}]}`);
    writeFileSync(join(dir, 'ranks.json'), `{"distributedInfo":{"rank":3},"traceEvents":[${kernel('a', '1', '1')}],"distributedInfo":{"rank":5}}`);
    for (const engine of ['js', 'simd']) {
      const two = await kprof(['summary', 'two.json'], { KPROF_ENGINE: engine }, dir);
      expect(two.code).toBe(2);
      expect(two.stderr).toMatch(
        /^kprof: two\.json: byte 85: a second "traceEvents" member in the top-level object \(JSON readers differ on which one counts\); expected one\./,
      );
      const ranks = await kprof(['summary', 'ranks.json'], { KPROF_ENGINE: engine }, dir);
      expect(ranks.code).toBe(2);
      expect(ranks.stderr).toContain('a second "distributedInfo" member');
    }
  });

  it('a distributedInfo.rank that is no rank id is said, and the rank taken from the file name (or none)', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'a_rank3.pt.trace.json'), `{"distributedInfo":{"rank":1e29},"traceEvents":[${kernel('k', '1', '2')}]}`);
    writeFileSync(join(dir, 'b.pt.trace.json'), `{"distributedInfo":{"rank":"x\\u001b[31m"},"traceEvents":[${kernel('k', '1', '2')}]}`);
    const r = await kprof(['summary', '.', '--format', 'json'], {}, dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'kprof: warning: a_rank3.pt.trace.json: distributedInfo.rank is 1e29, not a rank id (a whole number from 0 to 999,999,999); the rank is taken from the file name\n',
    );
    expect(r.stderr).toContain(
      'kprof: warning: b.pt.trace.json: distributedInfo.rank is "x\\x5cu001b[31m", not a rank id (a whole number from 0 to 999,999,999); the trace has no rank id\n',
    );
    expect(JSON.parse(r.stdout).ranks).toEqual(['3', '-']);
  });

  it('two traces of one rank in a folder are said to be traces, not profile folders', async () => {
    const dir = tmp();
    for (const f of ['a.pt.trace.json', 'b.pt.trace.json']) {
      writeFileSync(join(dir, f), `{"distributedInfo":{"rank":1},"traceEvents":[${kernel('k', '1', '1')}]}`);
    }
    const r = await kprof(['summary', '.'], {}, dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/rank 1 found twice: .*a\.pt\.trace\.json \(rank from distributedInfo\.rank\) and .*b\.pt\.trace\.json/);
    expect(r.stderr).toContain(
      "Expected one trace per rank, all of one run. If these are two runs, pass a folder of one run's traces, or one trace itself;",
    );
    expect(r.stderr).not.toContain('folder per rank');
  });

  it('a top-level member cut by a chunk boundary is not taken for a second one', async () => {
    const dir = tmp();
    // distributedInfo's value spans the first 1 MiB chunk's end: it is scanned again once the window grows.
    const pad = 'x'.repeat(1 << 20);
    writeFileSync(join(dir, 'long.pt.trace.json'), `{"traceEvents":[${kernel('a', '1', '1')}],"distributedInfo":{"rank":3,"pad":"${pad}"}}`);
    const r = await kprof(['summary', 'long.pt.trace.json', '--format', 'json'], {}, dir);
    expect(r.stderr).not.toContain('second');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).ranks).toEqual(['3']);
  });

  it("inspect's span says how many kernels have no start it reads, in text and JSON", async () => {
    const dir = tmp();
    trace(dir, 'starts.json', [kernel('a', '10', '1'), kernel('b', '-5', '1'), kernel('c', '2e1', '1'), kernel('d', String(2 ** 60), '1')]);
    const text = await kprof(['inspect', 'starts.json'], {}, dir);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      '  span     1.00 µs from the first kernel start to the last kernel end; 3 kernels of 4 have no start time kprof reads (empty, 0, negative, in exponent form, or too far from the first), and are not in it\n',
    );
    const json = await kprof(['inspect', 'starts.json', '--format', 'json'], {}, dir);
    expect(JSON.parse(json.stdout).ranks[0]).toMatchObject({ spanUs: 1, kernelsOutsideSpan: 3 });
    // Every start read: no count.
    trace(dir, 'fine.json', [kernel('a', '10', '1'), kernel('b', '20', '1')]);
    const fine = await kprof(['inspect', 'fine.json', '--format', 'json'], {}, dir);
    expect(JSON.parse(fine.stdout).ranks[0].kernelsOutsideSpan).toBeUndefined();
  });

  it('a diff of traces without steps says they hold no ProfilerStep#N events, not that they lack a Step Id column', async () => {
    const dir = tmp();
    trace(dir, 'a.json', [kernel('a', '10', '1'), kernel('b', '20', '1')]);
    trace(dir, 'b.json', [kernel('a', '10', '1')]);
    const r = await kprof(['diff', 'a.json', 'b.json'], {}, dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "Fusion rewrites: unavailable: the base's a.json and the PR's b.json hold no ProfilerStep#N events, so their steps cannot be told apart.",
    );
    expect(r.stdout).not.toContain('Step Id column');
  });

  it('an NVTX report beside a cuda_gpu_trace whose ProfilerStep#N ranges are no times is said, not taken for no report', async () => {
    const dir = tmp();
    const head =
      'Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name';
    writeFileSync(join(dir, 'cuda_gpu_trace.csv'), `${head}\n1000,500,1,1,1,1,1,1,1,32,0,0,,,,,NVIDIA A100 (0),1,,7,k1\n`);
    const nvtx =
      'Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),Orig Duration (ns),Style,PID,TID,NumGPUOps,Lvl,NumChild,RangeId,ParentId,RangeStack';
    writeFileSync(
      join(dir, 'nvtx_gpu_proj_trace.csv'),
      `${nvtx}\nProfilerStep#1,900,1e400,990000,900000,PushPop,1,1,6,0,12,1,,:1\nProfilerStep#2,900,abc,990000,900000,PushPop,1,1,6,0,12,1,,:1\n`,
    );
    const r = await kprof(['inspect', 'cuda_gpu_trace.csv'], {}, dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  steps    none (no ProfilerStep#N range in nvtx_gpu_proj_trace.csv beside it)');
    expect(r.stdout).toContain(
      '2 ProfilerStep#N ranges of nvtx_gpu_proj_trace.csv (the first at line 2) have a start or duration that is no time: not used as steps',
    );
    expect(r.stdout).not.toContain('no NVTX report');
  });

  it('NaN and Infinity (which Python writes) are refused with what they are and what to do', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'nan.json'), `{"traceEvents":[${kernel('a', '1', 'NaN')}]}`);
    writeFileSync(join(dir, 'inf.json'), `{"traceEvents":[{"ph":"X","cat":"kernel","name":"a","ts":1,"dur":1,"args":{"x":-Infinity}}]}`);
    for (const engine of ['js', 'simd']) {
      for (const [file, at] of [
        ['nan.json', 'byte 81: expected a value'],
        ['inf.json', 'byte 80: not a valid number'],
      ] as const) {
        const r = await kprof(['summary', file], { KPROF_ENGINE: engine }, dir);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`kprof: ${file}: ${at}`);
        expect(r.stderr).toContain("(NaN and Infinity are not JSON; Python's json module writes them for a float NaN or infinity: write null there");
      }
    }
  });
});
