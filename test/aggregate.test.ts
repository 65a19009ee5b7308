// Fine groups grow with kernel groups, not rows: a real export gives every communication row a raw name of its
// own (the counter counts calls), and those rows are one fine group per normalised name unless a pattern of the
// run tells their raw names apart, where they select exactly the kernels they did when kept per raw name.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Accumulator, rawNameTests } from '../src/input/accumulator.js';
import { readProfile } from '../src/input/read.js';
import { kprof } from './helpers.js';

const HEAD = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)';

/**
 * `n` steps, each with one allReduce and one allGather whose counters never repeat (as a profiler writes them),
 * and a compute kernel; durations vary so that totals, min and max are checked too.
 */
function rows(n: number): string {
  const out = [HEAD];
  let t = 1000;
  for (let i = 0; i < n; i++) {
    const step = 1 + (i % 4);
    out.push(`${step},hcom_allReduce__${100 + 2 * i}_0_1,hcom_allReduce_,COMMUNICATION,${t++}.0,${10 + (i % 7)}.5`);
    out.push(`${step},hcom_allGather__${101 + 2 * i}_7_1,hcom_allGather_,COMMUNICATION,${t++}.0,${20 + (i % 5)}.25`);
    out.push(`${step},aclnnCast_Cast_Cast,Cast,AI_VECTOR_CORE,${t++}.0,${1 + (i % 3)}.0`);
  }
  return `${out.join('\n')}\n`;
}

const dir = mkdtempSync(join(tmpdir(), 'kprof-agg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function profile(n: number): string {
  const p = join(dir, `n${n}`);
  writeFileSync(`${p}.csv`, rows(n));
  return `${p}.csv`;
}

const SMALL = profile(40);
const LARGE = profile(4000);

async function summaryJson(
  input: string,
  args: string[] = [],
): Promise<{ groups: { key: string; count: number; totalUs: number }[]; perRank: { groups: unknown[] }[] }> {
  const r = await kprof(['summary', input, '--by', 'name', '--format', 'json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('communication rows with distinct raw names', () => {
  it('make one fine group per normalised name, however many rows there are (in this thread and in workers)', async () => {
    for (const threads of ['off', 'on'] as const) {
      const small = await readProfile(SMALL, { withShapes: false, ranks: null, threads });
      const large = await readProfile(LARGE, { withShapes: false, ranks: null, threads });
      expect(small.ranks[0]!.groups.size).toBe(3);
      expect(large.ranks[0]!.groups.size).toBe(3);
      expect(large.ranks[0]!.kernels).toBe(12_000);
      const names = [...large.ranks[0]!.groups.values()].map((g) => g.name).sort();
      expect(names).toEqual(['aclnnCast_Cast_Cast', 'hcom_allGather__*_7_1', 'hcom_allReduce__*_0_1']);
    }
  });

  it('inspect counts kernel combinations, not rows; the summary JSON figures are those of the rows', async () => {
    const r = await kprof(['inspect', LARGE, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/"distinctKernels": 3\b/);
    const s = await summaryJson(LARGE);
    expect(s.groups.map((g) => g.key).sort()).toEqual(['aclnnCast_Cast_Cast', 'hcom_allGather__*_7_1', 'hcom_allReduce__*_0_1']);
    expect(s.perRank[0]!.groups).toHaveLength(3);
    const reduce = s.groups.find((g) => g.key === 'hcom_allReduce__*_0_1')!;
    let us = 0;
    for (let i = 0; i < 4000; i++) us += 10 + (i % 7) + 0.5;
    expect(reduce.count).toBe(4000);
    expect(reduce.totalUs).toBeCloseTo(us, 6);
  });

  it('a pattern on the counter still selects exactly those rows, and adds only the groups it tells apart', async () => {
    // Counters 100..8099: those that start with 61 are 610-619 and 6100-6199.
    const wanted = Array.from({ length: 8000 }, (_, i) => 100 + i).filter((c) => String(c).startsWith('61'));
    const s = await summaryJson(LARGE, ['--match', '__61']);
    const count = Object.fromEntries(s.groups.map((g) => [g.key, g.count]));
    expect(count).toEqual({
      'hcom_allReduce__*_0_1': wanted.filter((c) => c % 2 === 0).length,
      'hcom_allGather__*_7_1': wanted.filter((c) => c % 2 === 1).length,
    });
    const excluded = await summaryJson(LARGE, ['--exclude', '^hcom_allReduce__612_0_1$']);
    expect(excluded.groups.find((g) => g.key === 'hcom_allReduce__*_0_1')!.count).toBe(3999);
    const tests = rawNameTests([/__61/], ['hcom_allReduce__612_0_1']);
    const p = await readProfile(LARGE, { withShapes: false, ranks: null, threads: 'off', rawNames: tests });
    // Cast, and per communication name: counters that match, and those that do not; plus the one exact name.
    expect(p.ranks[0]!.groups.size).toBe(6);
    const exact = [...p.ranks[0]!.groups.values()].find((g) => g.rawName === 'hcom_allReduce__612_0_1');
    expect(exact?.total.count).toBe(1);
  });

  it('an accumulator without tests keys raw names by their normalised name; with tests, by their class', () => {
    const fields = { name: true, type: true, core: true, shapes: false, steps: true };
    const plain = new Accumulator(fields);
    const a = plain.group('hcom_x__*_1', 'T', 'C', null, 'hcom_x__5_1');
    expect(plain.group('hcom_x__*_1', 'T', 'C', null, 'hcom_x__6_1')).toBe(a);
    expect(a.rawName).toBe('hcom_x__5_1');
    const split = new Accumulator(fields, { rawNames: rawNameTests([/__6_/], []) });
    const b = split.group('hcom_x__*_1', 'T', 'C', null, 'hcom_x__5_1');
    expect(split.group('hcom_x__*_1', 'T', 'C', null, 'hcom_x__6_1')).not.toBe(b);
    expect(split.group('hcom_x__*_1', 'T', 'C', null, 'hcom_x__7_1')).toBe(b);
  });
});

describe('fine group keys', () => {
  it('keep apart kinds whose fields differ only in where a separator-like character falls', () => {
    const acc = new Accumulator({ name: true, type: true, core: true, shapes: false, steps: true });
    const unit = '\u001f';
    const a = acc.group(`a${unit}b`, 'c', 'AI_CORE', null);
    const b = acc.group('a', `b${unit}c`, 'AI_CORE', null);
    const c = acc.group('a', 'b', `c${unit}AI_CORE`, null);
    const d = acc.group('12:a', 'b', 'AI_CORE', null);
    const e = acc.group('1', '2:ab', 'AI_CORE', null);
    expect(new Set([a, b, c, d, e]).size).toBe(5);
    expect(acc.group(`a${unit}b`, 'c', 'AI_CORE', null)).toBe(a);
    expect(acc.groups.size).toBe(5);
  });
});
