// The folder walk: a folder reached twice (through a symbolic link, or a link back up: a loop) is read once,
// by its real path, and the walk says so.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveInput } from '../src/input/formats/resolve.js';
import { shellWord } from '../src/util/inputText.js';
import { kprof, ROOT } from './helpers.js';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'kprof-walk-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function rank(dir: string, name: string, rows: string[]): string {
  const out = join(dir, name, 'ASCEND_PROFILER_OUTPUT');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'kernel_details.csv'), ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)', ...rows, ''].join('\n'));
  return join(dir, name);
}

function run(name: string): string {
  const dir = join(tmp, name);
  rank(dir, 'rank_0_ascend_pt', ['1,a,Add,AI_CORE,1,2.5']);
  rank(dir, 'rank_1_ascend_pt', ['1,a,Add,AI_CORE,1,3.5', '1,b,Mul,AI_CORE,2,1']);
  return dir;
}

async function ranksOf(dir: string): Promise<{ ranks: string[]; count: number }> {
  const r = await kprof(['summary', dir, '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  const j = JSON.parse(r.stdout);
  return { ranks: j.ranks, count: j.totals.count };
}

describe('a folder reached twice', () => {
  it('a link beside the folder it points to: one rank, read by the direct path', async () => {
    const dir = run('beside');
    symlinkSync('rank_0_ascend_pt', join(dir, 'latest'));
    expect(await ranksOf(dir)).toEqual({ ranks: ['0', '1'], count: 3 });
    const notes = resolveInput(dir).notes;
    expect(notes).toEqual([
      `${join(dir, 'latest')}: the same folder as ${join(dir, 'rank_0_ascend_pt')} (a symbolic link); read once, as ${join(dir, 'rank_0_ascend_pt')}`,
    ]);
    expect((await kprof(['inspect', dir])).stdout).toContain('note: ');
  });

  it('the direct path wins whichever comes first, also a level down', async () => {
    const dir = run('deeper');
    mkdirSync(join(dir, 'a'));
    symlinkSync(join('..', 'rank_1_ascend_pt'), join(dir, 'a', 'copy'));
    symlinkSync('rank_0_ascend_pt', join(dir, '0-link'));
    const plans = resolveInput(dir).ranks;
    expect(plans.map((p) => [p.rank, p.root]).sort()).toEqual([
      ['0', join(dir, 'rank_0_ascend_pt')],
      ['1', join(dir, 'rank_1_ascend_pt')],
    ]);
  });

  it('a link back to a folder above (a loop) is not followed, and said', async () => {
    const dir = run('loop');
    mkdirSync(join(dir, 'sub'));
    symlinkSync('..', join(dir, 'sub', 'up'));
    symlinkSync('.', join(dir, 'self'));
    expect(await ranksOf(dir)).toEqual({ ranks: ['0', '1'], count: 3 });
    const notes = resolveInput(dir).notes;
    expect(
      notes.some((n) => n.startsWith(`${join(dir, 'self')}: a symbolic link back to `) && n.endsWith('a folder it is in (a loop); not followed')),
    ).toBe(true);
    expect(notes.some((n) => n.startsWith(`${join(dir, 'sub', 'up')}: a symbolic link back to `))).toBe(true);
  });

  it('two links to one folder, and a kernel table linked into another rank folder, are read once', async () => {
    const dir = run('links');
    const all = join(tmp, 'all');
    mkdirSync(all);
    symlinkSync(join(dir, 'rank_1_ascend_pt'), join(all, 'rank_1_a'));
    symlinkSync(join(dir, 'rank_1_ascend_pt'), join(all, 'rank_1_b'));
    expect(await ranksOf(all)).toEqual({ ranks: ['1'], count: 2 });
    const twin = join(tmp, 'twin');
    rank(twin, 'rank_0_ascend_pt', ['1,a,Add,AI_CORE,1,2.5']);
    mkdirSync(join(twin, 'rank_3_ascend_pt', 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    symlinkSync(
      join(twin, 'rank_0_ascend_pt', 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'),
      join(twin, 'rank_3_ascend_pt', 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'),
    );
    expect(await ranksOf(twin)).toEqual({ ranks: ['0'], count: 1 });
    expect(resolveInput(twin).notes.join('\n')).toMatch(
      /rank_3_ascend_pt\/ASCEND_PROFILER_OUTPUT\/kernel_details\.csv: the same file as .*rank_0_ascend_pt.*; read once, as rank 0/,
    );
  });
});

const OP_SUMMARY_HEAD =
  'Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),Task Duration(us),Task Wait Time(us)';

/** An msprof PROF_ folder (new layout) with one op_summary of `rows` kernels. */
function prof(dir: string, name: string, rows = 1): string {
  const out = join(dir, name, 'mindstudio_profiler_output');
  mkdirSync(out, { recursive: true });
  const body = Array.from({ length: rows }, (_, i) => `0,1,${i},2,m${i},MatMul,dynamic,AI_CORE,${10 + i},4,0`);
  writeFileSync(join(out, 'op_summary_20260101000000.csv'), [OP_SUMMARY_HEAD, ...body, ''].join('\n'));
  return join(dir, name);
}

const P1 = 'PROF_000001_20260101000000000_ABCDEFGHIJKLMNOP';
const P2 = 'PROF_000002_20260101000000000_ABCDEFGHIJKLMNOP';

describe('no profile folder skipped in silence', () => {
  it('an msprof PROF_ folder beside a torch_npu rank folder: both read, as when each is a level down', async () => {
    const flat = join(tmp, 'mixed-flat');
    prof(flat, P1, 2);
    rank(flat, 'rank9_ascend_pt', ['1,a,Add,AI_CORE,1,2.5']);
    const nested = join(tmp, 'mixed-nested');
    prof(join(nested, 'a'), P1, 2);
    rank(join(nested, 'b'), 'rank9_ascend_pt', ['1,a,Add,AI_CORE,1,2.5']);
    const a = await ranksOf(flat);
    expect(a).toEqual({ ranks: ['9', '-'], count: 3 });
    expect(await ranksOf(nested)).toEqual(a);
  });

  it('several msprof PROF_ folders in one folder (several processes): each is a rank', async () => {
    const dir = join(tmp, 'two-prof');
    prof(dir, P1, 1);
    prof(dir, P2, 2);
    const plans = resolveInput(dir).ranks;
    expect(plans.map((p) => p.root)).toEqual([join(dir, P1), join(dir, P2)]);
    expect((await ranksOf(dir)).count).toBe(3);
  });

  it('a rank folder that holds a rank folder: the inner one is said, not skipped in silence', () => {
    const dir = join(tmp, 'inner');
    const outer = rank(dir, 'rank_0_ascend_pt', ['1,a,Add,AI_CORE,1,2.5']);
    rank(outer, 'rank_1_ascend_pt', ['1,a,Add,AI_CORE,1,2.5']);
    const r = resolveInput(outer);
    expect(r.ranks.map((p) => p.rank)).toEqual(['0']);
    expect(r.notes).toEqual([
      `${join(outer, 'rank_1_ascend_pt')}: a profile folder inside the profile folder ${outer}; not read (pass it by itself)`,
    ]);
  });

  it('a framework folder with two PROF_ folders and no ASCEND_PROFILER_OUTPUT: the one not read is said', () => {
    const dir = join(tmp, 'fw-two-prof', 'rank_4_ascend_pt');
    prof(dir, P1, 1);
    prof(dir, P2, 1);
    const r = resolveInput(dir);
    expect(r.ranks.map((p) => [p.rank, p.files.length])).toEqual([['4', 1]]);
    expect(r.notes).toEqual([
      `${join(dir, P2)}: kernel data not read (the profile folder ${dir} is read from ${P1}, its first PROF_ folder with kernel data)`,
    ]);
  });

  it('a rank folder with no ASCEND_PROFILER_OUTPUT (or one that is not a folder) and no PROF_: said', async () => {
    const dir = join(tmp, 'no-out');
    rank(dir, 'rank_0_ascend_pt', ['1,a,Add,AI_CORE,1,2.5']);
    mkdirSync(join(dir, 'rank_1_ascend_pt', 'FRAMEWORK'), { recursive: true });
    mkdirSync(join(dir, 'rank_2_ascend_pt'));
    symlinkSync('missing', join(dir, 'rank_2_ascend_pt', 'ASCEND_PROFILER_OUTPUT'));
    const r = resolveInput(dir);
    expect(r.ranks.map((p) => p.rank)).toEqual(['0']);
    expect(r.notes).toEqual([
      `${join(dir, 'rank_1_ascend_pt')}: no ASCEND_PROFILER_OUTPUT folder and no PROF_* folder; rank 1 left out`,
      `${join(dir, 'rank_2_ascend_pt')}: its ASCEND_PROFILER_OUTPUT is not a folder and no PROF_* folder; rank 2 left out`,
    ]);
    expect((await kprof(['inspect', dir])).stdout).toContain(`rank_1_ascend_pt: no ASCEND_PROFILER_OUTPUT folder`);
    // summary and diff say it on stderr too (one line per profile), their figures unchanged.
    const line = `kprof: note: ${r.notes[0]} (and 1 more); kprof inspect ${shellWord(dir)} lists them.\n`;
    const summary = await kprof(['summary', dir]);
    expect(summary.code).toBe(0);
    expect(summary.stderr).toBe(line);
    const diff = await kprof(['diff', dir, dir]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stderr).toBe(line + line);
  });

  // Linux keeps a name's bytes as they are; other systems may refuse a name that is not UTF-8.
  it.runIf(process.platform === 'linux')('a rank folder whose name is not UTF-8 (GBK) is said, not left out unsaid', async () => {
    const dir = join(tmp, 'gbk');
    rank(dir, 'rank_0_ascend_pt', ['1,a,Add,AI_CORE,1,2.5']);
    // "rank_1_测试_ascend_pt" in GBK: Node.js reads the name with U+FFFD for its bytes, a path that does not exist.
    const gbk = Buffer.concat([Buffer.from(`${dir}/rank_1_`), Buffer.from([0xb2, 0xe2, 0xca, 0xd4]), Buffer.from('_ascend_pt')]);
    const out = Buffer.concat([gbk, Buffer.from('/ASCEND_PROFILER_OUTPUT')]);
    mkdirSync(out, { recursive: true });
    writeFileSync(
      Buffer.concat([out, Buffer.from('/kernel_details.csv')]),
      'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n1,a,Add,AI_CORE,1,3.5\n',
    );
    const r = resolveInput(dir);
    expect(r.ranks.map((p) => p.rank)).toEqual(['0']);
    const note = `${join(dir, 'rank_1_\udcb2\udce2\udcca\udcd4_ascend_pt')}: its name is not UTF-8 (GBK? Latin-1?), so it cannot be opened by name; not read. Rename it (convmv -f gbk -t utf-8)`;
    expect(r.notes).toEqual([note]);
    expect(r.unread).toEqual([note]);
    const summary = await kprof(['summary', dir]);
    expect(summary.code).toBe(0);
    expect(summary.stderr).toBe(
      `kprof: note: ${join(dir, 'rank_1_\\xB2\\xE2\\xCA\\xD4_ascend_pt')}: its name is not UTF-8 (GBK? Latin-1?), so it cannot be opened by name; not read. Rename it (convmv -f gbk -t utf-8); kprof inspect ${shellWord(dir)} lists it.\n`,
    );
    // Alone in its folder: the folder is not said to be empty.
    rmSync(join(dir, 'rank_0_ascend_pt'), { recursive: true });
    const alone = await kprof(['summary', dir]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('found: no name it can open; ');
    expect(alone.stderr).toContain('rank_1_\\xB2\\xE2\\xCA\\xD4_ascend_pt: its name is not UTF-8');
    // Given on the command line, where its bytes reach kprof as U+FFFD: said for what it is.
    const given = await kprof(['summary', join(dir, 'rank_1_\ufffd\ufffd\ufffd\ufffd_ascend_pt')]);
    expect(given.code).toBe(2);
    expect(given.stderr).toContain('which holds U+FFFD where the command line had bytes that are not UTF-8');
  });

  it('a rank folder left out whose rank is not known is "rank (no id)", not "rank -"', () => {
    const dir = join(tmp, 'no-id');
    rank(dir, 'rank_0_ascend_pt', ['1,a,Add,AI_CORE,1,2.5']);
    mkdirSync(join(dir, 'other_ascend_pt'));
    mkdirSync(join(dir, 'empty_ascend_pt', 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    expect(resolveInput(dir).notes).toEqual([
      expect.stringMatching(/empty_ascend_pt: no kernel data \(no .*\); rank \(no id\) left out$/),
      `${join(dir, 'other_ascend_pt')}: no ASCEND_PROFILER_OUTPUT folder and no PROF_* folder; rank (no id) left out`,
    ]);
  });

  it('a PROF_ folder with no output and no device_*, and a device with no summary: said', () => {
    const dir = join(tmp, 'prof-empty');
    prof(dir, P1, 1);
    mkdirSync(join(dir, P2, 'host'), { recursive: true });
    const old = join(dir, 'PROF_000003_20260101000000000_ABCDEFGHIJKLMNOP');
    mkdirSync(join(old, 'device_0', 'summary'), { recursive: true });
    writeFileSync(join(old, 'device_0', 'summary', 'op_summary_0_1_1.csv'), `${OP_SUMMARY_HEAD}\n0,1,0,2,a,Add,dynamic,AI_CORE,1,2,0\n`);
    mkdirSync(join(old, 'device_1', 'data'), { recursive: true });
    const r = resolveInput(dir);
    expect(r.ranks.map((p) => p.root)).toEqual([join(dir, P1), join(old, 'device_0')]);
    expect(r.notes).toEqual([
      `${join(dir, P2)}: no mindstudio_profiler_output folder, no msprof_*.db and no device_* folder; left out`,
      `${join(old, 'device_1')}: no device_1/summary folder; device 1 left out`,
    ]);
  });

  it('a folder named PROF_ by hand that holds PROF_ folders is walked into, with no note', () => {
    const dir = join(tmp, 'by-hand');
    prof(join(dir, 'PROF_MemoryL0'), P1, 1);
    prof(join(dir, 'PROF_L2Cache'), P2, 1);
    const r = resolveInput(dir);
    expect(r.ranks.map((p) => p.root)).toEqual([join(dir, 'PROF_L2Cache', P2), join(dir, 'PROF_MemoryL0', P1)]);
    expect(r.notes).toEqual([]);
  });

  it("the folder above one such PROF_ folder (vllm-ascend's prof_unpack/PROF_GROUP_…) is walked into, with no note", async () => {
    const dir = join(tmp, 'unpack');
    prof(join(dir, 'PROF_GROUP_1', 'PROF_MemoryL0'), P1, 1);
    prof(join(dir, 'PROF_GROUP_1', 'PROF_L2Cache'), P2, 2);
    const r = resolveInput(dir);
    expect(r.ranks.map((p) => p.rank)).toEqual([`PROF_GROUP_1/PROF_L2Cache/${P2}`, `PROF_GROUP_1/PROF_MemoryL0/${P1}`]);
    // It said the group had no mindstudio_profiler_output and the folder's rank was "left out", of a run read whole.
    expect(r.notes).toEqual([]);
    expect((await kprof(['summary', dir])).stderr).toBe('');
  });

  it('a folder with two exports of a format read one a folder: the first by name is read, the other said', () => {
    const dir = join(tmp, 'loose-two-gpu-traces');
    mkdirSync(dir);
    const trace = readFileSync(join(ROOT, 'fixtures/nsys/gpu-trace-preamble/cuda_gpu_trace.csv'));
    for (const name of ['b_cuda_gpu_trace.csv', 'a_cuda_gpu_trace.csv']) writeFileSync(join(dir, name), trace);
    const r = resolveInput(dir);
    expect(r.ranks.map((p) => p.files)).toEqual([[join(dir, 'a_cuda_gpu_trace.csv')]]);
    expect(r.notes).toEqual([
      `${dir}: holds b_cuda_gpu_trace.csv (cuda_gpu_trace) beside a_cuda_gpu_trace.csv; not read (one cuda_gpu_trace is read per rank, the first by name; pass b_cuda_gpu_trace.csv by itself to read it)`,
    ]);
    expect(r.unread).toEqual(r.notes);
  });

  it('a folder with kernel_details.csv and an op_summary: one is read, the other said', () => {
    const dir = join(tmp, 'loose-both');
    mkdirSync(dir);
    writeFileSync(join(dir, 'kernel_details.csv'), 'Name,Type,Accelerator Core,Start Time(us),Duration(us)\na,Add,AI_CORE,1,2\n');
    writeFileSync(join(dir, 'op_summary_20260101000000.csv'), `${OP_SUMMARY_HEAD}\n0,1,0,2,a,Add,dynamic,AI_CORE,1,2,0\n`);
    const r = resolveInput(dir);
    expect(r.ranks.map((p) => p.files)).toEqual([[join(dir, 'kernel_details.csv')]]);
    expect(r.notes).toEqual([
      `${dir}: holds op_summary_20260101000000.csv (op_summary) beside kernel_details.csv; not read (one kernel table is read per rank; pass op_summary_20260101000000.csv by itself to read it)`,
    ]);
  });
});

describe('two folders that say the same rank', () => {
  it('names where each says so (profiler_info or folder name) and what to do for two runs and for one', async () => {
    const dir = join(tmp, 'same-rank');
    // Two runs side by side, each rank 0 by its profiler_info; and a folder whose name says rank 0 too.
    for (const name of ['run-a_ascend_pt', 'run-b_ascend_pt']) {
      rank(dir, name, ['1,a,Add,AI_CORE,1,2.5']);
      writeFileSync(join(dir, name, 'profiler_info_0.json'), '{"rank_id": 0}');
    }
    const r = await kprof(['summary', dir]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /: rank 0 found twice: \S*run-a_ascend_pt \(rank from profiler_info_0\.json rank_id\) and \S*run-b_ascend_pt \(rank from profiler_info_0\.json rank_id\)\. /,
    );
    expect(r.stderr).toContain(
      "Expected one profile folder per rank, all of one run. If these are two runs, pass the folder of one run, or one rank's folder " +
        'itself; if they are ranks of one run, one of them names the wrong rank: correct it where it says so.\n',
    );
    const other = join(tmp, 'same-rank-by-name');
    rank(other, 'x_ascend_pt', ['1,a,Add,AI_CORE,1,2.5']);
    writeFileSync(join(other, 'x_ascend_pt', 'profiler_info_0.json'), '{"rank_id": 0}');
    rank(other, 'rank0_copy_ascend_pt', ['1,a,Add,AI_CORE,1,2.5']);
    const byName = await kprof(['summary', other]);
    expect(byName.code).toBe(2);
    expect(byName.stderr).toMatch(/\(rank from folder name rank0_copy_ascend_pt\)/);
    expect(byName.stderr).toMatch(/\(rank from profiler_info_0\.json rank_id\)/);
  });
});
