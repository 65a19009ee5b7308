// kprof check at a rule's bound exactly: a kernel time or a change equal to the bound holds (at most, at least),
// whatever the floating-point error of reading the bound (1.001ms) or of dividing the change (2 → 2.2 per step).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckJson } from '../src/model/schema.js';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-exact-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HEADER = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';

let n = 0;
function file(text: string, ext = 'csv'): string {
  const p = join(tmp, `f${n++}.${ext}`);
  writeFileSync(p, text);
  return p;
}

/** A kernel_details.csv of Cast kernels: `perStep[i]` kernels of `us` µs each in step i + 1. */
function profile(perStep: number[], us: string): string {
  const rows = perStep.flatMap((count, i) => Array.from({ length: count }, (_, k) => `${i + 1},Cast,Cast,AI_CORE,${i * 100 + k},${us},0,1`));
  return file(`${HEADER}\n${rows.join('\n')}\n`);
}

async function check(pr: string, rules: string, base?: string): Promise<CheckJson> {
  const r = await kprof(['check', pr, '--rules', file(rules, 'yaml'), ...(base ? ['--base', base] : []), '--format', 'json', '-q']);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as CheckJson;
}

describe('a kernel time equal to the bound', () => {
  it.each(['1.001ms', '0.001001s', '1001us', '1001μs'])('%s holds as max: and as min: for exactly 1,001 µs', async (t) => {
    const j = await check(profile([1], '1001'), `rules:\n  - type: Cast\n    time: { max: ${t} }\n  - type: Cast\n    time: { min: ${t} }\n`);
    expect(j.results.map((r) => r.passed)).toEqual([true, true]);
    expect(j.passed).toBe(true);
  });
});

describe('a change against the base equal to the bound', () => {
  it('a mean of 2 → 2.2 kernels per step (uneven step counts) rose by exactly 10%: holds rose-by-at-most: 10%', async () => {
    const j = await check(
      profile([2, 2, 2, 2, 3], '1'),
      'rules:\n  - type: Cast\n    count-vs-base: { per: step, rose-by-at-most: 10% }\n',
      profile([2, 2], '1'),
    );
    expect(j.results[0]!.observed).toBe(10);
    expect(j.passed).toBe(true);
  });

  it('1 µs → 1.1 µs rose by exactly 10%, in total and per step; 1.1 µs → 0.99 µs fell by exactly 10%', async () => {
    const rose = await check(
      profile([1], '1.1'),
      'rules:\n  - type: Cast\n    time-vs-base: { rose-by-at-most: 10% }\n  - type: Cast\n    time-vs-base: { per: step, rose-by-at-most: 10% }\n',
      profile([1], '1'),
    );
    expect(rose.results.map((r) => [r.passed, r.observed])).toEqual([
      [true, 10],
      [true, 10],
    ]);
    const fell = await check(profile([1], '0.99'), 'rules:\n  - type: Cast\n    time-vs-base: { fell-by-at-least: 10% }\n', profile([1], '1.1'));
    expect(fell.results.map((r) => [r.passed, r.observed])).toEqual([[true, -10]]);
  });

  it('a change past the bound still breaks it', async () => {
    const j = await check(profile([1], '1.1001'), 'rules:\n  - type: Cast\n    time-vs-base: { rose-by-at-most: 10% }\n', profile([1], '1'));
    expect(j.results[0]!.passed).toBe(false);
    expect(j.passed).toBe(false);
  });
});

/** The text lines of the rules' results. */
async function lines(pr: string, rules: string, base?: string): Promise<string[]> {
  const r = await kprof(['check', pr, '--rules', file(rules, 'yaml'), ...(base ? ['--base', base] : []), '-q']);
  return r.stdout.split('\n').filter((l) => /^(pass|FAIL) /.test(l));
}

describe('a figure beside its bound is shown on its side of it', () => {
  it('a bound is shown as written: max: 1001us is 1.001 ms, rose-by-at-most: 0.01% is 0.01%', async () => {
    const out = await lines(
      profile([1], '1001.5'),
      'rules:\n  - type: Cast\n    time: { max: 1001us }\n  - type: Cast\n    time-vs-base: { rose-by-at-most: 0.01% }\n',
      profile([1], '1001.3'),
    );
    // Broken, each was "1.00 ms; bound: time at most 1.00 ms" and "(0.0%); bound: … at most 0.0%".
    expect(out[0]).toMatch(/ type Cast: 1\.002 ms; bound: time at most 1\.001 ms in total$/);
    expect(out[1]).toMatch(/ type Cast: 1\.00 ms → 1\.00 ms \(\+0\.02%\); bound: time rose by at most 0\.01% against the base$/);
  });

  it('a value that held is not shown past its bound (1,005.5 µs against at most 1,006 µs is not "1.01 ms")', async () => {
    const out = await lines(profile([1], '1005.5'), 'rules:\n  - type: Cast\n    time: { max: 1006us }\n  - type: Cast\n    time: { max: 2ms }\n');
    expect(out[0]).toMatch(/^pass .* type Cast: 1\.006 ms; bound: time at most 1\.006 ms in total$/);
    // Away from the bound, two decimals as ever.
    expect(out[1]).toMatch(/^pass .* type Cast: 1\.01 ms; bound: time at most 2\.00 ms in total$/);
  });

  it('a change just past its bound shows the decimals that tell it from the bound', async () => {
    const out = await lines(profile([1], '1.1001'), 'rules:\n  - type: Cast\n    time-vs-base: { rose-by-at-most: 10% }\n', profile([1], '1'));
    expect(out[0]).toMatch(/^FAIL .*\(\+10\.01%\); bound: time rose by at most 10\.0% against the base$/);
  });
});
