// Each input is read once per command: the grouping of an input of kernel names only (a trace: --by defaults to
// name for it) is chosen from its rank plans before the read, so the kernel sequences the diff and rules read
// beside the kernels are keyed by it from the start, not read again once the grouping is known.

import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { observeReads } from '../src/input/read.js';
import { kprof } from './helpers.js';

/** The reads of each `<profile>` argument, by the path given. */
const reads = new Map<string, number>();
beforeEach(() => observeReads((input) => reads.set(input, (reads.get(input) ?? 0) + 1)));
afterEach(() => observeReads(null));

const KR = 'fixtures/trace/kineto-ranks';
const KR_PR = 'fixtures/trace/kineto-ranks-pr';
const TV = 'fixtures/trace/trace-view-steps';
const TV_PR = 'fixtures/trace/trace-view-pr';
const NSYS = 'fixtures/nsys/gpu-trace-nvtx';
const NSYS_PR = 'fixtures/nsys/gpu-trace-pr';

/** Run kprof and give how many times each input was read. */
async function readsOf(args: string[]): Promise<{ code: number; stderr: string; counts: number[]; inputs: number }> {
  reads.clear();
  const r = await kprof(args);
  return { code: r.code, stderr: r.stderr, counts: [...reads.values()], inputs: reads.size };
}

describe('each input is read once', () => {
  it.each([
    ['diff of kineto traces', ['diff', KR, KR_PR], 2],
    ['diff of trace_view.json', ['diff', TV, TV_PR], 2],
    ['diff of Nsight CSVs', ['diff', NSYS, NSYS_PR], 2],
    ['rules of kineto traces', ['rules', KR, KR_PR], 2],
    ['summary of kineto traces', ['summary', KR], 1],
    ['check of kineto traces', ['check', KR, '--rules', 'fixtures/trace/rules/by-name.yaml', '--base', KR_PR, '--short-names'], 2],
    ['inspect of kineto traces', ['inspect', KR], 1],
  ])('%s', async (_what, args, inputs) => {
    const r = await readsOf(args);
    expect(r.code, r.stderr).toBeLessThan(2);
    expect(r.inputs).toBe(inputs);
    expect(r.counts.every((n) => n === 1)).toBe(true);
  });

  it('the grouping is still said, once, and the sequences follow it', async () => {
    const r = await readsOf(['diff', KR, KR_PR, '--short-names']);
    expect(r.stderr.match(/note: grouped by name/g)).toHaveLength(1);
    expect(r.counts).toEqual([1, 1]);
    const out = await kprof(['diff', KR, KR_PR, '--short-names', '--format', 'json']);
    expect(JSON.parse(out.stdout).rewrites.groupBy).toBe('name');
  });

  it('a diff of summary JSONs made with --by name reads each once (they hold no sequences to key again)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-read-once-'));
    try {
      const b = join(dir, 'base.json');
      const p = join(dir, 'pr.json');
      expect((await kprof(['summary', KR, '--by', 'name', '--format', 'json', '-o', b])).code).toBe(0);
      expect((await kprof(['summary', KR_PR, '--by', 'name', '--format', 'json', '-o', p])).code).toBe(0);
      const r = await readsOf(['diff', b, p]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('note: grouped by name, as');
      expect(r.counts).toEqual([1, 1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--by type on a trace is refused after one read', async () => {
    const r = await readsOf(['diff', KR, KR_PR, '--by', 'type']);
    expect(r.code).toBe(2);
    expect(r.counts.every((n) => n === 1)).toBe(true);
  });
});

describe('where only the read tells the grouping, the sequences are read again by it', () => {
  // A folder of ranks: an msprof op_summary holding devices 0 and 1 (ranks known once read) and a trace_view.json
  // rank. --rank 1 keeps the op_summary's device 1 only, which the plans cannot tell: they hold a trace of kernel
  // names only, so the sequences are first keyed by name, and the grouping chosen once read is type.
  const dir = mkdtempSync(join(tmpdir(), 'kprof-read-once-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const side = (name: string, kernels: [string, string][]): string => {
    const prof = join(dir, name, 'a', 'PROF_000001_20260605155111872_ABCDEFGHIJKLMNOP', 'mindstudio_profiler_output');
    mkdirSync(prof, { recursive: true });
    const rows = ['Device_id,Step ID,Stream ID,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us)'];
    for (const device of [0, 1]) {
      let t = 1000;
      for (const step of [1, 2]) {
        for (const [n, type] of kernels) {
          rows.push(`${device},${step},5,${n},${type},AI_CORE,${t}.000,10.000`);
          t += 20;
        }
      }
    }
    writeFileSync(join(prof, 'op_summary_20260605155140.csv'), `${rows.join('\n')}\n`);
    const trace = join(dir, name, 'b', 'rank9_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(trace, { recursive: true });
    copyFileSync(join(TV, 'trace_view.json'), join(trace, 'trace_view.json'));
    return join(dir, name);
  };
  const base = side('base', [
    ['aclnnMatmul_MatMulV3', 'MatMulV3'],
    ['aclnnAdd_AddAiCore', 'Add'],
    ['aclnnMul_MulAiCore', 'Mul'],
  ]);
  const pr = side('pr', [
    ['aclnnMatmul_MatMulV3', 'MatMulV3'],
    ['aclnnAddMul_Fused', 'AddMul'],
  ]);
  const rewrites = (out: string): string => out.slice(out.indexOf('Fusion rewrites'), out.indexOf('Accounted for'));

  it('grouped by type, the rewrites by type as the op_summary alone gives them', async () => {
    const r = await readsOf(['diff', base, pr, '--rank', '1']);
    expect(r.code, r.stderr).toBe(0);
    // Each side: read, then again with the sequences keyed by type.
    expect(r.counts).toEqual([2, 2]);
    const mixed = await kprof(['diff', base, pr, '--rank', '1']);
    const alone = await kprof(['diff', join(base, 'a'), join(pr, 'a'), '--rank', '1']);
    expect(mixed.stdout).toContain('Grouped by type');
    expect(rewrites(mixed.stdout)).toContain('base   Add · Mul');
    expect(rewrites(mixed.stdout)).toBe(rewrites(alone.stdout));
  });
});

describe("a side read again says its warnings once (the first read's are not said beside the second's)", () => {
  // As above: an op_summary of devices 0 and 1 beside a trace_view.json rank, --rank 1, so that each side is read
  // twice (the sequences keyed by name, then by type). Device 1 of the base has a row that cannot be read.
  const dir = mkdtempSync(join(tmpdir(), 'kprof-read-once-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const side = (name: string, bad: boolean): string => {
    const prof = join(dir, name, 'a', 'PROF_000001_20260605155111872_ABCDEFGHIJKLMNOP', 'mindstudio_profiler_output');
    mkdirSync(prof, { recursive: true });
    const rows = ['Device_id,Step ID,Stream ID,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us)'];
    for (const device of [0, 1]) {
      for (const step of [1, 2]) rows.push(`${device},${step},5,aclnnMatmul_MatMulV3,MatMulV3,AI_CORE,${1000 + step * 20}.000,10.000`);
    }
    if (bad) rows.push('1,2,5,aclnnAdd_AddAiCore,Add,AI_CORE,1100.000,abc');
    writeFileSync(join(prof, 'op_summary_20260605155140.csv'), `${rows.join('\n')}\n`);
    const trace = join(dir, name, 'b', 'rank9_ascend_pt', 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(trace, { recursive: true });
    copyFileSync(join(TV, 'trace_view.json'), join(trace, 'trace_view.json'));
    return join(dir, name);
  };
  const base = side('base', true);
  const pr = side('pr', false);

  it.each([['diff'], ['rules']])('%s --rank 1: each side read twice, the skipped row is said once', async (command) => {
    const r = await readsOf([command, base, pr, '--rank', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.counts).toEqual([2, 2]);
    expect(r.stderr.match(/Task Duration\(us\) is "abc", expected a number of µs; row skipped/g)).toHaveLength(1);
    expect(r.stderr.match(/1 row could not be read and was skipped/g)).toHaveLength(1);
  });
});
