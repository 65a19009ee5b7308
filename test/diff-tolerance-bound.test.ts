// kprof diff --time-tolerance and kprof rules --cut-threshold at their bound: a change of exactly the threshold
// counts as within it (diff) or as a cut (rules), whatever the floating-point error of dividing the change.

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

it('kprof rules: a cut of exactly --cut-threshold is a cut (1 → 0.8 per step is -19.999999999999996% unrounded)', async () => {
  const p = (name: string, rows: string[]): string => {
    const f = join(tmp, `${name}.csv`);
    writeFileSync(f, `${HEADER}\n${rows.join('\n')}\n`);
    return f;
  };
  const base = p('cut-base', ['1,Cast,Cast,AI_CORE,1,1,0,1', '1,Add,Add,AI_CORE,10,1,0,1']);
  const pr = p('cut-pr', [
    ...[1, 2, 3, 4].map((s) => `${s},Cast,Cast,AI_CORE,${s * 100},1,0,1`),
    ...[1, 2, 3, 4, 5].map((s) => `${s},Add,Add,AI_CORE,${s * 100 + 10},1,0,1`),
  ]);
  const r = await kprof(['rules', base, pr, '-q']);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(
    "# Cut by 20% or more: they must stay at the PR's level.\n  # Cast: base 1 in every step, PR 0 to 1 in a step (-20.0% per step).\n",
  );
  expect(r.stdout).not.toContain('no kernel type removed, added or cut');
});
