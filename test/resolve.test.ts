// The folder walk: a folder reached twice (through a symbolic link, or a link back up: a loop) is read once,
// by its real path, and the walk says so.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveInput } from '../src/input/formats/resolve.js';
import { kprof } from './helpers.js';

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
