// Fine groups grow with kernel groups, not rows: a real export gives every communication row a raw name of its
// own (the counter counts calls), and those rows are one fine group per normalised name unless a pattern of the
// run tells their raw names apart, where they select exactly the kernels they did when kept per raw name.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Accumulator } from '../src/input/accumulator.js';
import { rawNameTests } from '../src/input/rawNames.js';
import { readProfile } from '../src/input/read.js';
import { summarize } from '../src/aggregate/group.js';
import { StepCells, type Selection } from '../src/model/model.js';
import { GrowingSteps } from '../src/model/growingSteps.js';
import { namesLeftOut, namesNeeded } from '../src/commands/options.js';
import { kprof } from './helpers.js';

const NONE: Selection = { ranks: null, steps: null, cores: null, match: null, exclude: null, groups: [] };

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
      expect(names).toEqual(['aclnnCast_Cast_Cast', 'hcom_allGather__*', 'hcom_allReduce__*']);
    }
  });

  it('inspect counts kernel combinations, not rows; the summary JSON figures are those of the rows', async () => {
    const r = await kprof(['inspect', LARGE, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/"distinctKernels": 3\b/);
    const s = await summaryJson(LARGE);
    expect(s.groups.map((g) => g.key).sort()).toEqual(['aclnnCast_Cast_Cast', 'hcom_allGather__*', 'hcom_allReduce__*']);
    expect(s.perRank[0]!.groups).toHaveLength(3);
    const reduce = s.groups.find((g) => g.key === 'hcom_allReduce__*')!;
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
      'hcom_allReduce__*': wanted.filter((c) => c % 2 === 0).length,
      'hcom_allGather__*': wanted.filter((c) => c % 2 === 1).length,
    });
    const excluded = await summaryJson(LARGE, ['--exclude', '^hcom_allReduce__612_0_1$']);
    expect(excluded.groups.find((g) => g.key === 'hcom_allReduce__*')!.count).toBe(3999);
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
    const a = plain.groupIndex('hcom_x__*_1', 'T', 'C', null, 'hcom_x__5_1');
    expect(plain.groupIndex('hcom_x__*_1', 'T', 'C', null, 'hcom_x__6_1')).toBe(a);
    expect(plain.groups.at(a).rawName).toBe('hcom_x__5_1');
    expect(plain.groups.size).toBe(1);
    const split = new Accumulator(fields, { rawNames: rawNameTests([/__6_/], []) });
    const b = split.groupIndex('hcom_x__*_1', 'T', 'C', null, 'hcom_x__5_1');
    expect(split.groupIndex('hcom_x__*_1', 'T', 'C', null, 'hcom_x__6_1')).not.toBe(b);
    expect(split.groupIndex('hcom_x__*_1', 'T', 'C', null, 'hcom_x__7_1')).toBe(b);
    expect(split.groups.size).toBe(2);
  });
});

describe('per-call communication counters', () => {
  // As a decode run writes them: the communicator's counter, then the call's (`hcom_allReduce__445_17`).
  function perCall(n: number): string {
    const out = [HEAD];
    for (let i = 0; i < n; i++) {
      out.push(`${1 + (i % 3)},hcom_allReduce__445_${i},hcom_allReduce_,HCCL,${1000 + 2 * i}.0,${5 + (i % 4)}.0`);
      out.push(`${1 + (i % 3)},hcom_broadcast__328_${i}_1,hcom_broadcast_,HCCL,${1001 + 2 * i}.0,2.5`);
    }
    const p = join(dir, `calls${n}.csv`);
    writeFileSync(p, `${out.join('\n')}\n`);
    return p;
  }

  it('fold into one group per collective, shown folded; a pattern on a raw name still selects exactly its rows', async () => {
    const f = perCall(3000);
    const p = await readProfile(f, { withShapes: false, ranks: null, threads: 'off' });
    expect(p.ranks[0]!.groups.size).toBe(2);
    const s = await summaryJson(f);
    expect(Object.fromEntries(s.groups.map((g) => [g.key, g.count]))).toEqual({ 'hcom_allReduce__*': 3000, 'hcom_broadcast__*': 3000 });
    const one = await summaryJson(f, ['--match', '^hcom_allReduce__445_17$']);
    expect(one.groups.map((g) => [g.key, g.count, g.totalUs])).toEqual([['hcom_allReduce__*', 1, 5 + (17 % 4)]]);
  });
});

describe('a read that keeps no kernel names (kernelNames: false)', () => {
  it('groups kernels with a type without their name; kernels without a type keep it', () => {
    const acc = new Accumulator({ name: true, type: true, core: true, shapes: false, steps: true }, { names: false });
    const a = acc.groupIndex('aclnnA_Op1', 'Op1', 'AI_CORE', null);
    expect(acc.groupIndex('aclnnB_Op1', 'Op1', 'AI_CORE', null)).toBe(a);
    expect(acc.groups.at(a).name).toBeNull();
    expect(acc.groupIndex('aclnnB_Op1', 'Op1', 'AI_VECTOR_CORE', null)).not.toBe(a);
    expect(acc.group('kernelOfATrace', null, null, null).name).toBe('kernelOfATrace');
    expect(acc.groups.size).toBe(3);
  });

  // 5,000 distinct names of 7 types on 2 cores, in 5 steps.
  const distinct = join(dir, 'distinct.csv');
  const lines = [HEAD];
  for (let i = 0; i < 5000; i++)
    lines.push(`${1 + (i % 5)},aclnnKernel${i}_Op${i % 7},Op${i % 7},${i % 3 ? 'AI_CORE' : 'AI_VECTOR_CORE'},${1000 + i}.0,${1 + (i % 11)}.25`);
  writeFileSync(distinct, `${lines.join('\n')}\n`);

  it('gives the same summary by type, core and type+core as a read with the names, from far fewer fine groups', async () => {
    const f = distinct;
    for (const threads of ['off', 'on'] as const) {
      const named = await readProfile(f, { withShapes: false, ranks: null, threads });
      const nameless = await readProfile(f, { withShapes: false, ranks: null, threads, kernelNames: false });
      expect(named.ranks[0]!.groups.size).toBe(5000);
      expect(nameless.ranks[0]!.groups.size).toBe(14);
      for (const by of ['type', 'core', 'type+core'] as const) {
        // Step cells in step order (a group of several fine groups meets its steps in another order).
        const plain = (x: unknown) =>
          JSON.parse(
            JSON.stringify(x, (_k, v) =>
              v instanceof Map || v instanceof StepCells || v instanceof GrowingSteps
                ? [...v].sort((m, n) => (m[0] as number) - (n[0] as number))
                : v,
            ),
          );
        const a = summarize(named, { by, selection: NONE });
        const b = summarize(nameless, { by, selection: NONE });
        const withSteps = (x: typeof a) => ({
          ...x,
          // Field by field: a group of one fine group reads its row (fineGroups.ts), which a spread would not copy.
          perRank: x.perRank.map((r) => ({
            ...r,
            groups: r.groups.map((g) => ({
              key: g.key,
              type: g.type,
              name: g.name,
              core: g.core,
              shapes: g.shapes,
              userGroup: g.userGroup,
              total: g.total,
              steps: g.steps,
            })),
          })),
        });
        expect(plain(withSteps(b))).toEqual(plain(withSteps(a)));
      }
    }
  });

  it('is asked for only when no grouping or selection reads a name, and a read that left names out is told', async () => {
    expect(namesNeeded('type', NONE)).toBe(false);
    expect(namesNeeded('type+core', NONE)).toBe(false);
    expect(namesNeeded('name', NONE)).toBe(true);
    expect(namesNeeded('type', { ...NONE, match: /x/ })).toBe(true);
    expect(namesNeeded('core', { ...NONE, exclude: /x/ })).toBe(true);
    expect(namesNeeded('type', { ...NONE, groups: [{ name: 'g', exact: new Set(['a']), patterns: [] }] })).toBe(true);
    const f = distinct;
    expect(namesLeftOut([await readProfile(f, { withShapes: false, ranks: null, threads: 'off', kernelNames: false })])).toBe(true);
    expect(namesLeftOut([await readProfile(f, { withShapes: false, ranks: null, threads: 'off' })])).toBe(false);
    // A trace's kernels have no type: their names are kept whatever the option, and nothing was left out.
    expect(namesLeftOut([await readProfile('fixtures/trace/kineto-no-step', { withShapes: false, ranks: null, kernelNames: false })])).toBe(false);
  });

  it('summary --by type keeps no names; --by name and --match read them', async () => {
    const f = distinct;
    const byType = await kprof(['summary', f, '--by', 'type', '--format', 'json']);
    const byTypeMatched = await kprof(['summary', f, '--by', 'type', '--match', 'aclnnKernel1_', '--format', 'json']);
    expect(JSON.parse(byTypeMatched.stdout).totals.count).toBe(1);
    // A pattern that every kernel matches reads the names: the same groups, figures and steps as without it.
    const byTypeAll = await kprof(['summary', f, '--by', 'type', '--match', '^aclnnKernel', '--format', 'json']);
    expect(JSON.parse(byType.stdout).totals.count).toBe(5000);
    for (const k of ['groups', 'perRank', 'totals', 'stepIds'] as const)
      expect(JSON.parse(byType.stdout)[k]).toEqual(JSON.parse(byTypeAll.stdout)[k]);
    const byName = await summaryJson(f);
    expect(byName.groups).toHaveLength(5000);
  });
});

describe('fine group keys', () => {
  it('keep apart kinds whose fields differ only in where a separator-like character falls', () => {
    const acc = new Accumulator({ name: true, type: true, core: true, shapes: false, steps: true });
    const unit = '\u001f';
    const a = acc.groupIndex(`a${unit}b`, 'c', 'AI_CORE', null);
    const b = acc.groupIndex('a', `b${unit}c`, 'AI_CORE', null);
    const c = acc.groupIndex('a', 'b', `c${unit}AI_CORE`, null);
    const d = acc.groupIndex('12:a', 'b', 'AI_CORE', null);
    const e = acc.groupIndex('1', '2:ab', 'AI_CORE', null);
    expect(new Set([a, b, c, d, e]).size).toBe(5);
    expect(acc.groupIndex(`a${unit}b`, 'c', 'AI_CORE', null)).toBe(a);
    expect(acc.groups.size).toBe(5);
  });
});
