// kprof diff --time-tolerance at its bound: a time change of exactly the tolerance is within it (±2% includes 2%),
// whatever the floating-point error of dividing the change (1.00 µs → 1.02 µs is +2.0000000000000018% unrounded).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { DiffJson } from '../src/model/schema.js';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-tol-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HEADER = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';

function profile(name: string, cast: string, add: string): string {
  const p = join(tmp, `${name}.csv`);
  writeFileSync(p, `${HEADER}\n1,Cast,Cast,AI_CORE,1,${cast},0,1\n1,Add,Add,AI_CORE,5,${add},0,1\n`);
  return p;
}

it('a time change of exactly the tolerance is within it; one past it is not', async () => {
  const r = await kprof(['diff', profile('base', '1', '1.47'), profile('pr', '1.02', '1.5'), '--rewrites', 'off', '--format', 'json', '-q']);
  expect(r.code).toBe(0);
  const rows = (JSON.parse(r.stdout) as DiffJson).rows.map((x) => [x.key, x.timeWithinTolerance, x.timeNoise]);
  expect(rows).toEqual(
    expect.arrayContaining([
      ['Cast', true, true], // +2% exactly
      ['Add', false, false], // +2.04%
    ]),
  );
});
