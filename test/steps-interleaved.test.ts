// A kernel_details.csv whose Step Ids alternate row by row (two steps' rows interleaved, as after sorting the file by
// another column in a spreadsheet), every kernel of a type of its own: each run of a Step Id is a step of the
// Fusion rewrites, thousands of places a Step Id a side. The chain count held every pair of them (quadratic memory:
// 10,000 rows took 2.4 GB, 20,000 rows (700 KB) aborted at 4 GB with no message); it now makes a place's partners
// when asked. Run under a heap cap, so that a quadratic hold fails here rather than on a user's machine.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const tmp = mkdtempSync(join(tmpdir(), 'kprof-interleaved-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function profile(name: string, rows: number, step: (i: number) => number): string {
  const dir = join(tmp, name);
  mkdirSync(dir);
  const lines = ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim'];
  for (let i = 0; i < rows; i++) lines.push(`${step(i)},k${i},T${i},AI_CORE,${2 * i},1,0,1`);
  writeFileSync(join(dir, 'kernel_details.csv'), `${lines.join('\n')}\n`);
  return dir;
}

/** `kprof diff p p --format json` with the heap capped at `mb` MB. */
function diffCapped(dir: string, mb: number) {
  return spawnSync(process.execPath, [`--max-old-space-size=${mb}`, join(ROOT, 'bin/kprof.js'), 'diff', dir, dir, '--format', 'json', '-q'], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 1 << 28,
  });
}

describe('steps cut into thousands of runs', () => {
  it('Step Ids alternating row by row (6,000 rows): the diff runs in a 256 MB heap, its rewrites none', () => {
    const r = diffCapped(
      profile('alternating', 6000, (i) => i % 2),
      256,
    );
    expect(r.status, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout);
    expect(d.rewrites.status).toBe('ok');
    expect(d.rewrites.rewrites).toEqual([]);
    expect(d.rewrites.lanes[0].base.steps).toBe(6000);
  });
});
