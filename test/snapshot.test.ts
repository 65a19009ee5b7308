// Summary JSON snapshots read back exactly. Properties over generated multi-rank profiles (ranks with different
// steps, empty Step Ids, user groups), written as CSV files in a temporary folder: for every --by, with and
// without --groups and filters, summary → JSON → summary gives the same JSON, and diff and check on the snapshot
// give what they give on the profile. Then the values a snapshot may not hold, which are refused.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP_BYS, type GroupBy } from '../src/model.js';
import { kprof, type Result } from './helpers.js';

const RUNS = Number(process.env.KPROF_FUZZ_RUNS ?? 12);
const SEED = process.env.KPROF_FUZZ_SEED !== undefined ? Number(process.env.KPROF_FUZZ_SEED) : undefined;

interface Row {
  step: number | null;
  name: string;
  type: string;
  core: string;
  ticks: number;
  shapes: string;
}

const TYPES = ['MatMulV3', 'Cast', 'InterleaveRope', 'RmsNorm', 'hcom_allReduce'];
const CORES = ['AI_CORE', 'AI_VECTOR_CORE', 'MIX_AIC'];
const SHAPES = ['"1,4096;8"', '"2,16"', 'N/A'];

const rowArb: fc.Arbitrary<Row> = fc.record({
  step: fc.option(fc.integer({ min: 1, max: 6 }), { freq: 4 }),
  name: fc.constantFrom('k_a', 'k_b', 'k_c'),
  type: fc.constantFrom(...TYPES),
  core: fc.constantFrom(...CORES),
  ticks: fc.oneof(fc.integer({ min: 0, max: 5_000_000 }), fc.integer({ min: 2 ** 31 - 2, max: 2 ** 31 + 5 })),
  shapes: fc.constantFrom(...SHAPES),
});

/** A profile: rank id → rows (ranks have their own steps and kernels). */
const profileArb = fc.dictionary(fc.constantFrom('0', '1', '2', '5'), fc.array(rowArb, { minLength: 1, maxLength: 25 }), { minKeys: 1, maxKeys: 3 });

/** User groups with disjoint exact members (a kernel's group is then the same under every reading of a rule). */
const groupsArb = fc.option(
  fc.shuffledSubarray(TYPES, { minLength: 1, maxLength: 4 }).chain((types) =>
    fc.integer({ min: 1, max: Math.min(2, types.length) }).map((n) => {
      const out: Record<string, string[]> = {};
      types.forEach((t, i) => (out[`g${i % n}`] ??= []).push(t));
      return out;
    }),
  ),
);

const filterArb = fc.record({
  steps: fc.option(fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 3 })).map(([a, n]) => `${a}-${a + n}`)),
  exclude: fc.option(fc.constantFrom('^hcom_', 'Cast', 'k_b')),
  core: fc.option(fc.constantFrom('AI_CORE', 'AI_CORE,MIX_AIC')),
});

function us(ticks: number): string {
  return `${Math.floor(ticks / 10_000)}.${String(ticks % 10_000).padStart(4, '0')}`;
}

function writeProfile(dir: string, profile: Record<string, Row[]>): void {
  for (const [rank, rows] of Object.entries(profile)) {
    const out = join(dir, `rank_${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT');
    mkdirSync(out, { recursive: true });
    const lines = ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Input Shapes'];
    rows.forEach((r, i) => lines.push(`${r.step ?? ''},${r.name},${r.type},${r.core},${1000 + i},${us(r.ticks)},"${r.shapes.replace(/"/g, '""')}"`));
    writeFileSync(join(out, 'kernel_details.csv'), `${lines.join('\n')}\n`);
  }
}

function groupsYaml(groups: Record<string, string[]>): string {
  return Object.entries(groups)
    .map(([g, m]) => `${g}: [${m.join(', ')}]`)
    .join('\n');
}

let tmp: string;
let n = 0;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'kprof-snap-'));
});
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

function ok(r: Result): Result {
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
  return r;
}

interface Case {
  dir: string;
  p: string;
  pr: string;
  opts: string[];
}

function setUp(base: Record<string, Row[]>, pr: Record<string, Row[]>, by: GroupBy, groups: Record<string, string[]> | null, filters: string[]): Case {
  const dir = join(tmp, `c${n++}`);
  writeProfile(join(dir, 'base-prof'), base);
  writeProfile(join(dir, 'pr-prof'), pr);
  const opts = ['--by', by, ...filters];
  if (groups) {
    writeFileSync(join(dir, 'g.yaml'), `${groupsYaml(groups)}\n`);
    opts.push('--groups', join(dir, 'g.yaml'));
  }
  return { dir, p: join(dir, 'base-prof'), pr: join(dir, 'pr-prof'), opts };
}

function filterArgs(f: { steps: string | null; exclude: string | null; core: string | null }): string[] {
  const out: string[] = [];
  if (f.steps !== null) out.push('--steps', f.steps);
  if (f.exclude !== null) out.push('--exclude', f.exclude);
  if (f.core !== null) out.push('--core', f.core);
  return out;
}

/** Summary JSON without the argument it was given. */
function summaryOf(r: Result): Record<string, unknown> {
  const j = JSON.parse(ok(r).stdout) as Record<string, unknown>;
  return { ...j, inputs: null };
}

describe('a summary JSON reads back exactly', () => {
  it('summary → JSON → summary is the same, and diff on the snapshot is diff on the profile', async () => {
    await fc.assert(
      fc.asyncProperty(profileArb, profileArb, fc.constantFrom(...GROUP_BYS), groupsArb, filterArb, async (base, pr, by, groups, f) => {
        const c = setUp(base, pr, by, groups, filterArgs(f));
        const snap = join(c.dir, 's.json');
        const first = await kprof(['summary', c.p, ...c.opts, '--format', 'json', '-o', snap]);
        // Every filter may leave nothing: that is an error on both sides alike.
        if (first.code !== 0) {
          expect(first.code).toBe(2);
          return;
        }
        const saved = JSON.parse(readFileSync(snap, 'utf8')) as Record<string, unknown>;
        expect(summaryOf(await kprof(['summary', snap, ...c.opts, '--format', 'json']))).toEqual({ ...saved, inputs: null });
        // And again from the copy: a fixed point.
        const snap2 = join(c.dir, 's2.json');
        ok(await kprof(['summary', snap, ...c.opts, '--format', 'json', '-o', snap2]));
        expect({ ...JSON.parse(readFileSync(snap2, 'utf8')), inputs: null }).toEqual({ ...saved, inputs: null });

        for (const perStep of [[], ['--per-step']]) {
          const fromProfile = await kprof(['diff', c.p, c.pr, ...c.opts, ...perStep, '--format', 'json']);
          const fromSnap = await kprof(['diff', snap, c.pr, ...c.opts, ...perStep, '--format', 'json']);
          expect(fromSnap.code).toBe(fromProfile.code);
          if (fromProfile.code !== 0) continue; // e.g. --per-step where every Step Id is empty: refused on both
          const a = JSON.parse(fromProfile.stdout);
          const b = JSON.parse(fromSnap.stdout);
          for (const d of [a, b]) d.base = { ...d.base, input: null, files: null };
          expect(b).toEqual(a);
          // The table a user reads, too.
          const ta = await kprof(['diff', c.p, c.pr, ...c.opts, ...perStep]);
          const tb = await kprof(['diff', snap, c.pr, ...c.opts, ...perStep]);
          // (but for the number of files read: a snapshot is one)
          const text = (t: string, p: string): string => t.split(p).join('<P>').replace(/<P> \(\d+ files?;/, '<P> (files;');
          expect(text(tb.stdout, snap)).toBe(text(ta.stdout, c.p));
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('check on snapshots gives the verdicts and figures check gives on the profiles', async () => {
    await fc.assert(
      fc.asyncProperty(profileArb, profileArb, groupsArb, fc.integer({ min: 0, max: 6 }), async (base, pr, groups, max) => {
        const c = setUp(base, pr, 'type', groups, []);
        const rules = [
          'version: 1',
          ...(groups ? ['groups:', ...groupsYaml(groups).split('\n').map((l) => `  ${l}`)] : []),
          'rules:',
          '  - kernels: all',
          `    count: { per: step, max: ${max * 3} }`,
          '  - kernels: all',
          '    count-vs-base: { per: step, fell-by-at-least: 10% }',
          '  - kernels: all',
          '    time-vs-base: { per: total, rose-by-at-most: 5% }',
          // Rules on a user group only with one: a snapshot answers them for the user groups it holds, and a kernel
          // saved in one user group may (as far as the snapshot can tell) match another's members too.
          ...(groups && Object.keys(groups).length > 1 ? [] : Object.keys(groups ?? {})).flatMap((g) => [`  - group: ${g}`, `    count: { per: step, max: ${max} }`, `  - group: ${g}`, '    count-vs-base: { per: total, rose-by-at-most: 0% }']),
          ...(groups ? [] : ['  - type: Cast', `    count: { per: step, max: ${max} }`]),
        ];
        const rulesFile = join(c.dir, 'r.yaml');
        writeFileSync(rulesFile, `${rules.join('\n')}\n`);
        const sp = join(c.dir, 'p.json');
        const sb = join(c.dir, 'b.json');
        ok(await kprof(['summary', c.pr, ...c.opts, '--format', 'json', '-o', sp]));
        ok(await kprof(['summary', c.p, ...c.opts, '--format', 'json', '-o', sb]));
        const fromProfile = await kprof(['check', c.pr, '--rules', rulesFile, '--base', c.p, '--format', 'json']);
        const fromSnap = await kprof(['check', sp, '--rules', rulesFile, '--base', sb, '--format', 'json']);
        expect([fromSnap.code, fromSnap.stderr]).toEqual([fromProfile.code, expect.any(String)]);
        if (fromProfile.code === 2) return; // e.g. a per-step rule on a rank whose Step Ids are all empty
        const norm = (s: string, p: string, b: string): unknown => {
          const j = JSON.parse(s.split(p).join('<P>').split(b).join('<B>'));
          return { ...j, profile: null, base: null };
        };
        expect(norm(fromSnap.stdout, sp, sb)).toEqual(norm(fromProfile.stdout, c.pr, c.p));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe('a summary JSON made with --groups', () => {
  const EX = 'fixtures/fusion-example';
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kprof-snapg-'));
    writeFileSync(join(dir, 'g.yaml'), 'rope: [InterleaveRope, DynamicBlockQuant, ScatterNdUpdate]\nattention: [FlashAttentionScore, RmsNorm]\n');
    writeFileSync(
      join(dir, 'r.yaml'),
      ['version: 1', 'rules:', '  - kernels: all', '    count: { per: step, max: 100 }', '  - kernels: all', '    count-vs-base: { per: step, fell-by-at-least: 10% }', ''].join('\n'),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps each user group of a rank apart, with its own steps', async () => {
    const g = join(dir, 'g.yaml');
    ok(await kprof(['summary', `${EX}/base`, '--groups', g, '--format', 'json', '-o', join(dir, 'base.json')]));
    ok(await kprof(['summary', `${EX}/pr`, '--groups', g, '--format', 'json', '-o', join(dir, 'pr.json')]));
    const fromProfile = JSON.parse(ok(await kprof(['diff', `${EX}/base`, `${EX}/pr`, '--groups', g, '--format', 'json'])).stdout);
    const fromSnap = JSON.parse(ok(await kprof(['diff', join(dir, 'base.json'), `${EX}/pr`, '--groups', g, '--format', 'json'])).stdout);
    const rope = (d: { rows: { key: string; deltaCountPct: number }[] }): number | undefined => d.rows.find((r) => r.key === 'rope')?.deltaCountPct;
    expect(rope(fromProfile)).toBeCloseTo(-76.9, 1);
    expect(rope(fromSnap)).toBe(rope(fromProfile));
    for (const d of [fromProfile, fromSnap]) d.base = { ...d.base, input: null, files: null };
    expect(fromSnap).toEqual(fromProfile);
    // check's per-step figures on the snapshots are those of the profiles
    const r = join(dir, 'r.yaml');
    const a = JSON.parse((await kprof(['check', `${EX}/pr`, '--rules', r, '--base', `${EX}/base`, '--format', 'json'])).stdout);
    const b = JSON.parse((await kprof(['check', join(dir, 'pr.json'), '--rules', r, '--base', join(dir, 'base.json'), '--format', 'json'])).stdout);
    expect(b.results).toEqual(a.results);
  });
});
