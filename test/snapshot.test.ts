// Summary JSON snapshots read back exactly. Properties over generated multi-rank profiles (ranks with different
// steps, empty Step Ids, user groups), written as CSV files in a temporary folder: for every --by, with and
// without --groups and filters, summary → JSON → summary gives the same JSON, and diff and check on the snapshot
// give what they give on the profile. Then the values a snapshot may not hold, which are refused.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accumulator } from '../src/input/accumulator.js';
import { readTable } from '../src/input/formats/ascend/readTable.js';
import { MAX_SNAPSHOT_BYTES, readSnapshot } from '../src/input/formats/summary/snapshot.js';
import { KprofError } from '../src/util/errors.js';
import { relPath } from '../src/util/paths.js';
import { GROUP_BYS, PackedSteps, type GroupBy } from '../src/model/model.js';
import { readProfile } from '../src/input/read.js';
import { kprof, ROOT, type Result } from './helpers.js';

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
  match: fc.option(fc.constantFrom('Mat|Rope', 'k_[ab]')),
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

function setUp(
  base: Record<string, Row[]>,
  pr: Record<string, Row[]>,
  by: GroupBy,
  groups: Record<string, string[]> | null,
  filters: string[],
): Case {
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

function filterArgs(f: { steps: string | null; exclude: string | null; match: string | null; core: string | null }): string[] {
  const out: string[] = [];
  if (f.match !== null) out.push('--match', f.match);
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

type Value<A> = A extends fc.Arbitrary<infer T> ? T : never;
const STEP_ON_ANOTHER_RANK: [
  Record<string, Row[]>,
  Record<string, Row[]>,
  (typeof GROUP_BYS)[number],
  Value<typeof groupsArb>,
  Value<typeof filterArb>,
] = [
  {
    '0': [{ step: null, name: 'k_a', type: 'MatMulV3', core: 'AI_CORE', ticks: 2147483646, shapes: '"1,4096;8"' }],
    '2': [{ step: 1, name: 'k_a', type: 'MatMulV3', core: 'AI_CORE', ticks: 2147483646, shapes: '"1,4096;8"' }],
  },
  {
    '0': [
      { step: 1, name: 'k_a', type: 'MatMulV3', core: 'AI_CORE', ticks: 0, shapes: '"1,4096;8"' },
      { step: null, name: 'k_a', type: 'MatMulV3', core: 'AI_CORE', ticks: 0, shapes: '"1,4096;8"' },
    ],
  },
  'type',
  null,
  { steps: '1-1', exclude: null, match: null, core: null },
];

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
        // The rows add up, for the profile and for each rank.
        type Figures = { rowsRead: number; skippedRows: number; filteredKernels: number; totals: { count: number } };
        for (const f of [saved as unknown as Figures, ...(saved.perRank as Figures[])])
          expect(f.rowsRead).toBe(f.totals.count + f.filteredKernels + f.skippedRows);
        expect(summaryOf(await kprof(['summary', snap, ...c.opts, '--format', 'json']))).toEqual({ ...saved, inputs: null });
        // And again from the copy: a fixed point.
        const snap2 = join(c.dir, 's2.json');
        ok(await kprof(['summary', snap, ...c.opts, '--format', 'json', '-o', snap2]));
        expect({ ...JSON.parse(readFileSync(snap2, 'utf8')), inputs: null }).toEqual({ ...saved, inputs: null });

        // Both sides snapshots, one rank of several, per step or not.
        const prSnap = join(c.dir, 'pr.json');
        const bothSnaps = (await kprof(['summary', c.pr, ...c.opts, '--format', 'json', '-o', prSnap])).code === 0;
        const oneRank = ['--rank', Object.keys(base)[0]!];
        for (const [extra, prSide] of [
          [[], c.pr],
          [['--per-step'], c.pr],
          [oneRank, c.pr],
          [['--per-step'], bothSnaps ? prSnap : c.pr],
        ] as const) {
          const perStep = [...extra];
          // The rewrites section needs kernels in order, which a summary JSON does not hold (it says so): left out.
          const fromProfile = await kprof(['diff', c.p, c.pr, ...c.opts, ...perStep, '--format', 'json', '--rewrites', 'off']);
          const fromSnap = await kprof(['diff', snap, prSide, ...c.opts, ...perStep, '--format', 'json', '--rewrites', 'off']);
          expect(fromSnap.code).toBe(fromProfile.code);
          if (fromProfile.code !== 0) continue; // e.g. --per-step where every Step Id is empty: refused on both
          const a = JSON.parse(fromProfile.stdout);
          const b = JSON.parse(fromSnap.stdout);
          for (const d of [a, b]) {
            d.base = { ...d.base, input: null, files: null };
            d.pr = { ...d.pr, input: null, files: null };
          }
          expect(b).toEqual(a);
          // The table a user reads, too (but for the number of files read: a snapshot is one).
          const ta = await kprof(['diff', c.p, c.pr, ...c.opts, ...perStep, '--rewrites', 'off']);
          const tb = await kprof(['diff', snap, prSide, ...c.opts, ...perStep, '--rewrites', 'off']);
          // The CLI shows a temporary path relative to the working directory, or as given three folders up or more.
          const text = (t: string, p: string, q: string): string =>
            t
              .split(relPath(p))
              .join('<P>')
              .split(p)
              .join('<P>')
              .split(relPath(q))
              .join('<Q>')
              .split(q)
              .join('<Q>')
              .replace(/<P> \(\d+ files?;/, '<P> (files;')
              .replace(/<Q> \(\d+ files?;/, '<Q> (files;');
          expect(text(tb.stdout, snap, prSide)).toBe(text(ta.stdout, c.p, c.pr));
        }
      }),
      // Always run too: the base's first rank has no kernel of the step selected, the snapshot of the whole base
      // has one (a --steps check that left the snapshot's ranks out passed the snapshot's diff, refused the
      // profile's).
      { numRuns: RUNS, seed: SEED, examples: [STEP_ON_ANOTHER_RANK] },
    );
  });

  it('check on snapshots gives the verdicts and figures check gives on the profiles', async () => {
    await fc.assert(
      fc.asyncProperty(profileArb, profileArb, groupsArb, fc.integer({ min: 0, max: 6 }), async (base, pr, groups, max) => {
        const c = setUp(base, pr, 'type', groups, []);
        const rules = [
          'version: 1',
          ...(groups
            ? [
                'groups:',
                ...groupsYaml(groups)
                  .split('\n')
                  .map((l) => `  ${l}`),
              ]
            : []),
          'rules:',
          '  - kernels: all',
          `    count: { per: step, max: ${max * 3} }`,
          '  - kernels: all',
          '    count-vs-base: { per: step, fell-by-at-least: 10% }',
          '  - kernels: all',
          '    time-vs-base: { per: total, rose-by-at-most: 5% }',
          // Rules on a user group only with one: a snapshot answers them for the user groups it holds, and a kernel
          // saved in one user group may (as far as the snapshot can tell) match another's members too.
          ...(groups && Object.keys(groups).length > 1 ? [] : Object.keys(groups ?? {})).flatMap((g) => [
            `  - group: ${g}`,
            `    count: { per: step, max: ${max} }`,
            `  - group: ${g}`,
            '    count-vs-base: { per: total, rose-by-at-most: 0% }',
          ]),
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

describe('summary JSONs read without --by', () => {
  it('are grouped as they were made, with a note, when every input is one made alike; else refused with the fix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-snapby-'));
    try {
      const EX = 'fixtures/fusion-example';
      const [b, p, t] = ['b.json', 'p.json', 't.json'].map((f) => join(dir, f));
      expect((await kprof(['summary', `${EX}/base`, '--by', 'type+core', '-o', b!])).code).toBe(0);
      expect((await kprof(['summary', `${EX}/pr`, '--by', 'type+core', '-o', p!])).code).toBe(0);
      expect((await kprof(['summary', `${EX}/pr`, '-o', t!])).code).toBe(0);
      const note = `kprof: note: grouped by type+core, as ${relPath(b!)} was made; pass --by to choose.\n`;
      const alone = await kprof(['summary', b!, '--format', 'json']);
      expect([alone.code, alone.stderr]).toEqual([0, note]);
      expect(alone.stdout).toBe((await kprof(['summary', b!, '--by', 'type+core', '--format', 'json'])).stdout);
      const diff = await kprof(['diff', b!, p!, '--format', 'json']);
      expect([diff.code, diff.stderr]).toEqual([0, note]);
      const whole = JSON.parse((await kprof(['diff', `${EX}/base`, `${EX}/pr`, '--by', 'type+core', '--format', 'json'])).stdout);
      const saved = JSON.parse(diff.stdout);
      expect([saved.groupBy, saved.rows, saved.totals]).toEqual(['type+core', whole.rows, whole.totals]);
      // Made otherwise than each other: refused, naming both and what to pass; beside a profile: the default
      // grouping, refused with the fix.
      const mixed = await kprof(['diff', b!, t!]);
      expect(mixed.code).toBe(2);
      expect(mixed.stderr).toBe(
        `kprof: ${relPath(b!)} was made with --by type+core and ${relPath(t!)} with --by type; summary JSONs are compared only when made with the same grouping. Pass --by to choose one, and regenerate the others with it (kprof summary <profile> --by type+core --format json).\n`,
      );
      expect((await kprof(['diff', b!, `${EX}/pr`])).code).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
      [
        'version: 1',
        'rules:',
        '  - kernels: all',
        '    count: { per: step, max: 100 }',
        '  - kernels: all',
        '    count-vs-base: { per: step, fell-by-at-least: 10% }',
        '',
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps each user group of a rank apart, with its own steps', async () => {
    const g = join(dir, 'g.yaml');
    ok(await kprof(['summary', `${EX}/base`, '--groups', g, '--format', 'json', '-o', join(dir, 'base.json')]));
    ok(await kprof(['summary', `${EX}/pr`, '--groups', g, '--format', 'json', '-o', join(dir, 'pr.json')]));
    const fromProfile = JSON.parse(
      ok(await kprof(['diff', `${EX}/base`, `${EX}/pr`, '--groups', g, '--format', 'json', '--rewrites', 'off'])).stdout,
    );
    const fromSnap = JSON.parse(
      ok(await kprof(['diff', join(dir, 'base.json'), `${EX}/pr`, '--groups', g, '--format', 'json', '--rewrites', 'off'])).stdout,
    );
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

/** The warnings kept when reading a profile, as `line: message`. */
async function warningsOf(path: string): Promise<string[]> {
  const p = await readProfile(path, { withShapes: false, ranks: null, threads: 'off' });
  return p.ranks.flatMap((r) => r.warnings.map((w) => `${w.line}: ${w.message}`));
}

describe('values that are not finite or not exact', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kprof-exact-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function table(name: string, rows: string[]): string {
    const d = join(dir, name);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'kernel_details.csv'), ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)', ...rows, ''].join('\n'));
    return d;
  }

  it('a duration or Step Id that is not finite or not exact is an unreadable row, never an Infinity', async () => {
    const p = table('huge', [
      '1,a,Add,AI_CORE,1,2.5',
      '1,b,Add,AI_CORE,2,1e400',
      '1,c,Add,AI_CORE,3,1e308',
      '1,c,Add,AI_CORE,4,1e308',
      '1,d,Add,AI_CORE,5,225179981368.5248',
      '1,e,Add,AI_CORE,6,99999999999999999999999',
      '99999999999999999999,f,Add,AI_CORE,7,1.0',
      '2,g,Add,AI_CORE,8,225179981368.5247',
    ]);
    // (the largest duration read, alone: with any other kernel the sum would pass the limit)
    const r = await kprof(['summary', p, '--format', 'json', '--steps', '2']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.totals).toEqual({ count: 1, totalUs: 225179981368.5247 });
    expect(j.filteredKernels).toBe(1);
    expect(j.skippedRows).toBe(6);
    expect(j.rowsRead).toBe(8);
    expect(r.stderr).toMatch(
      /kernel_details\.csv:3: Duration\(us\) is 1e400, more than kprof sums exactly \(2\^51 ticks of 0\.1 ns \(225,179,981,368 µs, about 62 hours\)\); row skipped/,
    );
    expect(await warningsOf(p)).toContain('8: Step Id is 99999999999999999999, past 2^53 (Step Ids that large are not exact); row skipped');
    // and it reads back
    const snap = join(dir, 'huge.json');
    ok(await kprof(['summary', p, '--format', 'json', '--steps', '2', '-o', snap]));
    expect({ ...JSON.parse(ok(await kprof(['summary', snap, '--format', 'json', '--steps', '2'])).stdout), inputs: null }).toEqual({
      ...j,
      inputs: null,
    });
    // all steps: past the limit
    expect((await kprof(['summary', p])).code).toBe(2);
  });

  it('both scanning engines skip the same rows for the same reasons', async () => {
    const p = table('engines', [
      ...Array.from({ length: 40 }, (_, i) => `${i % 3},k${i % 4},Add,AI_CORE,${i},${i * 1.5}`),
      '1,b,Add,AI_CORE,1,1e400',
      '1,c,Add,AI_CORE,2,225179981368.5248',
      '1,c,Add,AI_CORE,2,225179981368.5247',
      '1,c,Add,AI_CORE,2,214748.3648',
      '1234567890,f,Add,AI_CORE,7,1.0',
      '9007199254740993,f,Add,AI_CORE,7,1.0',
      '99999999999999999999,f,Add,AI_CORE,7,1.0',
    ]);
    const read = async (engine: 'simd' | 'js'): Promise<unknown> => {
      const acc = new Accumulator({ name: true, type: true, core: true, shapes: false, steps: true });
      await readTable(join(p, 'kernel_details.csv'), acc, { withShapes: false, engine });
      const r = acc.toRankData('0', []);
      return { groups: [...r.groups.entries()].map(([k, g]) => [k, g.total, [...g.steps.entries()]]).sort(), warnings: r.warnings, steps: r.stepIds };
    };
    const simd = await read('simd');
    expect(simd).toEqual(await read('js'));
    expect((simd as { warnings: unknown[] }).warnings).toHaveLength(4);
  });

  it('a start time that is not finite leaves the span as the other rows make it', async () => {
    const p = table('span', ['1,a,Add,AI_CORE,1e400,2.5', '1,a,Add,AI_CORE,100,2.5', '1,a,Add,AI_CORE,110,5']);
    const r = await kprof(['inspect', p, '--format', 'json']);
    expect(JSON.parse(ok(r).stdout).ranks[0].spanUs).toBe(15);
    expect((await kprof(['inspect', p])).stdout).not.toContain('∞');
  });

  it('kernels that add up to 2^51 ticks are refused, not summed inexactly', async () => {
    const one = ['1,a,Add,AI_CORE,1,200000000000', '1,b,Add,AI_CORE,2,25179981368.5248'];
    const p = table('sum', one);
    const r = await kprof(['summary', p]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the kernels kept add up to 225179981368\.5248 µs, at or past 2\^51 ticks .* Read fewer ranks or steps/);
    expect(r.stdout).toBe('');
    // just below: read, and exact
    const q = table('below', ['1,a,Add,AI_CORE,1,200000000000', '1,b,Add,AI_CORE,2,25179981368.5247']);
    expect(JSON.parse(ok(await kprof(['summary', q, '--format', 'json'])).stdout).totals.totalUs).toBe(225179981368.5247);
  });

  it('op_statistic rows whose figures cannot be true are skipped with a warning', async () => {
    const d = join(dir, 'stat');
    mkdirSync(d, { recursive: true });
    writeFileSync(
      join(d, 'op_statistic.csv'),
      [
        'OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)',
        'MatMul,AI_CORE,2,10,4,5,6,50',
        'Cast,AI_CORE,2,10,6,5,4,50',
        'Add,AI_CORE,99999999999999999999,10,1,1,1,1',
        'Mul,AI_CORE,1,1e400,1,1,1,1',
        'Sub,AI_CORE,0,5,,,,1',
        'Div,AI_CORE,1,5,-1,5,5,1',
        'Exp,AI_CORE,1,5,5,5,9,1',
        'Log,AI_CORE,3,3,N/A,1,N/A,1',
      ].join('\n'),
    );
    const r = await kprof(['summary', join(d, 'op_statistic.csv'), '--format', 'json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.groups.map((g: { key: string }) => g.key).sort()).toEqual(['Log', 'MatMul']);
    expect(j.skippedRows).toBe(6);
    expect(r.stderr).toContain('op_statistic.csv:3: Min Time(us) (6) is more than Max Time(us) (4); row skipped');
    expect(r.stderr).toContain('op_statistic.csv:4: Count is 99999999999999999999, past 2^53 (not an exact count); row skipped');
    expect(r.stderr).toContain('op_statistic.csv:5: Total Time(us) is 1e400, more than kprof sums exactly');
    expect(r.stderr).toContain('op_statistic.csv:6: Count is 0 but Total Time(us) is 5; row skipped');
    expect(r.stderr).toContain('op_statistic.csv:7: Min Time(us) is -1, negative; row skipped');
    expect(await warningsOf(join(d, 'op_statistic.csv'))).toContain('8: Max Time(us) is 9, more than Total Time(us) (5); row skipped');
    const snap = join(d, 's.json');
    ok(await kprof(['summary', join(d, 'op_statistic.csv'), '--by', 'type', '--format', 'json', '-o', snap]));
    expect({ ...JSON.parse(ok(await kprof(['summary', snap, '--format', 'json'])).stdout), inputs: null }).toEqual({ ...j, inputs: null });
  });
});

describe('a summary JSON that kprof could not have written is refused', () => {
  let dir: string;
  let good: Record<string, unknown>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kprof-badsnap-'));
    writeFileSync(join(dir, 'g.yaml'), 'rope: [InterleaveRope, DynamicBlockQuant]\n');
    const r = ok(await kprof(['summary', 'fixtures/fusion-example/base', '--groups', join(dir, 'g.yaml'), '--format', 'json']));
    good = JSON.parse(r.stdout);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  type J = {
    perRank: { rank: string; groups: Record<string, unknown>[]; totals: { count: number } & Record<string, number> }[];
    totals: { count: number } & Record<string, number>;
  } & Record<string, unknown>;
  async function refused(edit: (j: J) => void, text = ''): Promise<string> {
    const j = structuredClone(good) as J;
    edit(j);
    const f = join(dir, `bad${n++}.json`);
    writeFileSync(f, text || JSON.stringify(j));
    const r = await kprof(['summary', f, '--groups', join(dir, 'g.yaml')]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/not a kprof summary JSON: .*\. Expected the output of `kprof summary <profile> --format json`; regenerate it/);
    expect(r.stderr).not.toMatch(/\n./); // one line
    return r.stderr;
  }
  const g0 = (j: J): Record<string, unknown> => j.perRank[0]!.groups[0]!;

  it('reads back as it is', async () => {
    const f = join(dir, 'good.json');
    writeFileSync(f, JSON.stringify(good));
    expect({ ...summaryOf(await kprof(['summary', f, '--groups', join(dir, 'g.yaml'), '--format', 'json'])) }).toEqual({ ...good, inputs: null });
  });

  it('without its derived figures (avgUs, sharePct, countPerStep) reads back as with them: they are computed again', async () => {
    // The contract of the reader (savedSummary.ts): what is read is each rank's counts, times and step cells; the
    // derived figures, where the file has them, must be what kprof computes (refused otherwise, below).
    const lean = structuredClone(good) as J;
    for (const g of [...(lean.groups as Record<string, unknown>[]), ...lean.perRank.flatMap((r) => r.groups)]) {
      delete g.avgUs;
      delete g.sharePct;
      delete g.countPerStep;
    }
    const f = join(dir, 'lean.json');
    writeFileSync(f, JSON.stringify(lean));
    expect({ ...summaryOf(await kprof(['summary', f, '--groups', join(dir, 'g.yaml'), '--format', 'json'])) }).toEqual({ ...good, inputs: null });
  });

  it('counts and times that are not whole, finite or exact', async () => {
    expect(await refused((j) => (g0(j).count = 1e300))).toMatch(/has a "count" of 1e\+300, expected a whole number from 0 to 2\^53 - 1/);
    expect(await refused((j) => (g0(j).count = 2.5))).toMatch(/"count" of 2\.5/);
    expect(await refused(() => {}, JSON.stringify(good).replace(/"totalUs":[0-9.]+/, '"totalUs":1e400'))).toMatch(
      /has a "totalUs" of a number too large to read \(past 1\.8e308\), expected a number of µs/,
    );
    expect(await refused((j) => (g0(j).count = { deep: [1, 2] } as unknown as number))).toMatch(/has a "count" of an object, expected/);
    expect(await refused((j) => (g0(j).totalUs = 1.23456))).toMatch(/"totalUs" of 1\.23456, expected a number of µs of at most 4 decimals/);
    expect(await refused((j) => (g0(j).totalUs = 3e11))).toMatch(/"totalUs" of 300000000000/);
    expect(await refused((j) => (g0(j).minUs = 1e9))).toMatch(/"minUs" 1000000000 above "maxUs"/);
    expect(await refused((j) => (g0(j).maxUs = -1))).toMatch(/"minUs" or "maxUs" that is not a number of µs/);
  });

  it('a group without "minUs" or "maxUs" (kprof writes both, null where the source has none)', async () => {
    // The rank whose minimum (maximum) is not the profile's: without the field it read as unknown (shown as -),
    // and the profile's figure, taken from the other rank alone, still agreed with the top level.
    for (const [f, worse] of [
      ['minUs', (a: number, b: number) => a > b],
      ['maxUs', (a: number, b: number) => a < b],
    ] as const) {
      const message = await refused((j) => {
        const [r0, r1] = j.perRank as { groups: Record<string, number>[] }[];
        const g = r0!.groups.find((x) => {
          const y = r1!.groups.find((z) => z.key === x.key);
          return y !== undefined && worse(x[f]!, y[f]!);
        })!;
        delete g[f];
      });
      expect(message).toMatch(
        new RegExp(`group "\\w+" in rank "0" has a "${f}" of nothing, expected a number of µs .*, or null where its source gives none`),
      );
    }
  });

  it('per-step cells or totals that contradict the counts', async () => {
    expect(
      await refused((j) => {
        const s = (g0(j).byStep as { count: number }[])[0]!;
        s.count += Number(g0(j).count);
      }),
    ).toMatch(/the "byStep" cells of group "\w+" in rank "0" add up to \d+ kernels and [0-9.]+ µs, which contradicts its "count"/);
    expect(
      await refused((j) => {
        const b = g0(j).byStep as { step: number }[];
        b.push({ ...b[0]! });
      }),
    ).toMatch(/is in its "byStep" twice/);
    expect(await refused((j) => ((g0(j).byStep as { step: number }[])[0]!.step = 999))).toMatch(
      /step 999 of group .* is not one of the rank's "steps"/,
    );
    // A negative step: no kernel table's row gives one (it is a skipped row), and no --steps range selects one.
    expect(await refused((j) => ((j.perRank[0] as unknown as { steps: number[] }).steps[0] = -5))).toMatch(
      /the "steps" of rank "0" are not a list of step numbers \(whole numbers, 0 or more\)/,
    );
    expect(await refused((j) => ((g0(j).byStep as { step: number }[])[0]!.step = -5))).toMatch(
      /a "byStep" entry of group .* has a "step" of -5, expected a step number \(a whole number, 0 or more\)/,
    );
    expect(await refused((j) => (j.perRank[0]!.totals.count += 1))).toMatch(/the "totals" of rank "0" .* are not the sum of its groups/);
    expect(await refused((j) => (j.totals.count += 1))).toMatch(/the top-level "totals" .* are not the sum of the ranks' groups/);
    expect(await refused((j) => (j.rowsRead = Number(j.rowsRead) + 1))).toMatch(/the top-level "rowsRead" \d+ is not the sum of the ranks'/);
  });

  it('top-level figures that contradict "perRank", and derived figures that contradict the counts', async () => {
    type G = Record<string, unknown> & { key: string; count: number };
    const top = (j: J): G => (j.groups as G[]).find((g) => g.key === g0(j).key)!;
    expect(await refused((j) => (top(j).count += 1))).toMatch(
      /the top-level group "\w+": its "count" \d+ is not what its ranks in "perRank" add up to/,
    );
    for (const bad of [1e300, -1, '18', null]) {
      expect(await refused((j) => ((top(j) as Record<string, unknown>).count = bad))).toMatch(/the top-level group "\w+": its "count" /);
    }
    expect(await refused((j) => ((top(j) as Record<string, unknown>).countPerStep = 99))).toMatch(/its "countPerStep" 99 is not what/);
    expect(await refused((j) => (top(j).type = 'Z'))).toMatch(/its "type" is not what/);
    // A list is named, not quoted as "a list" (`its "byStep" a list is not what …` read as garbled).
    expect(await refused((j) => (top(j).byStep = (top(j).byStep as unknown[]).slice(1)))).toMatch(
      /the top-level group "\w+": its "byStep" is not what its ranks in "perRank" add up to/,
    );
    expect(await refused((j) => (j.groups as G[]).pop())).toMatch(/the top-level "groups" lack the group/);
    expect(await refused((j) => (j.groups as G[]).push({ ...top(j), key: 'Nowhere' }))).toMatch(/the top-level group "Nowhere" is in no rank/);
    expect(await refused((j) => (j.ranks = ['0', '1', '2']))).toMatch(/the top-level "ranks" are not the ranks of "perRank" \("0", "1"\)/);
    expect(await refused((j) => (j.steps = Number(j.steps) + 1))).toMatch(/the top-level "steps" \d+ is not the number of the ranks' distinct steps/);
    expect(await refused((j) => (j.stepIds = [...(j.stepIds as number[])].reverse()))).toMatch(
      /the top-level "stepIds" are not the steps of the ranks/,
    );
    expect(await refused((j) => (g0(j).avgUs = 12345))).toMatch(/group "\w+" in rank "0": its "avgUs" 12345 contradicts its other figures/);
    expect(await refused((j) => (g0(j).sharePct = 99.5))).toMatch(/in rank "0": its "sharePct" 99\.5 contradicts/);
  });

  it('a key that does not fit its fields, a field the grouping does not keep, a rank that is not text', async () => {
    const plain = (j: J): Record<string, unknown> => j.perRank[0]!.groups.find((g) => g.userGroup === undefined)!;
    expect(await refused((j) => (plain(j).type = 'Z'))).toMatch(
      /group "\w+" in rank "0" has the fields of the group "Z" under --by type; its "key" and its fields disagree/,
    );
    expect(await refused((j) => (plain(j).name = 'aclnnX'))).toMatch(/in rank "0" has a "name", which a summary grouped by type does not keep/);
    const ug = (j: J): Record<string, unknown> => j.perRank[0]!.groups.find((g) => g.userGroup !== undefined)!;
    expect(await refused((j) => (ug(j).userGroup = 'other'))).toMatch(/holds the user group "other", whose key is its name/);
    expect(await refused((j) => ((j.perRank[0] as unknown as Record<string, unknown>).rank = 0))).toMatch(
      /a "perRank" entry has a "rank" of 0, expected a rank id as text/,
    );
    expect(await refused((j) => (j.perRank[0]!.rank = ''))).toMatch(/a "perRank" entry has a "rank" of "", expected a rank id as text/);
  });

  it('a rank or a group twice', async () => {
    expect(await refused((j) => j.perRank.push(structuredClone(j.perRank[0]!)))).toMatch(/rank "0" is in "perRank" twice/);
    expect(await refused((j) => j.perRank[1]!.groups.push(structuredClone(j.perRank[1]!.groups[0]!)))).toMatch(
      /group "\w+" in rank "1" is in that rank twice/,
    );
  });
});

describe('a summary JSON that writes a key twice in one object', () => {
  it('is refused (exit 2) naming the file, the line and column of the second, the key escaped and clipped, and what to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-dupkey-'));
    try {
      const made = ok(await kprof(['summary', 'fixtures/fusion-example/base', '--format', 'json'])).stdout;
      const j = JSON.parse(made) as { perRank: { groups: Record<string, unknown>[] }[] };
      const g = j.perRank[0]!.groups[0]!;
      const count = `"count": ${String(g.count)}`;
      // The text as kprof writes it (indented), with one key written again: at the top level, in a group, in a
      // per-step cell, as an escape of the same key, and a long key with a control character.
      const cases: [string, RegExp][] = [
        [
          made.replace('"kind": "summary",', '"kind": "summary",\n  "kind": "summary",'),
          /:4:3: .*the key "kind" is written twice in one object \(first at 3:3\)/,
        ],
        [made.replace(count, `${count}, ${count}`), /:\d+:\d+: .*the key "count" is written twice in one object/],
        [made.replace('"step": ', '"st\\u0065p": 0, "step": '), /the key "step" is written twice/],
        [
          made.replace('"kind": "summary",', `"kind": "summary", "\\u001b${'x'.repeat(50)}": 1, "\\u001b${'x'.repeat(50)}": 2,`),
          /the key "\\x1bx{20,39}…" is written twice/,
        ],
      ];
      for (const [i, [text, want]] of cases.entries()) {
        expect(text).not.toBe(made);
        const f = join(dir, `dup${i}.json`);
        writeFileSync(f, text);
        for (const args of [
          ['summary', f],
          ['diff', f, f],
          ['merge', f],
        ]) {
          const r = await kprof(args);
          expect(r.code, r.stderr).toBe(2);
          expect(r.stderr).toMatch(want);
          expect(r.stderr).toContain(`kprof: ${f}:`);
          expect(r.stderr).toMatch(/JSON readers differ on which one counts.*Remove one of the two, or regenerate it/);
          expect(r.stderr).not.toMatch(/\n./); // one line
        }
      }
      // Gzipped alike, and the same text without the second key reads.
      const gz = join(dir, 'dup.json.gz');
      writeFileSync(gz, gzipSync(cases[1]![0]));
      expect((await kprof(['summary', gz])).stderr).toMatch(/the key "count" is written twice/);
      writeFileSync(join(dir, 'good.json'), made);
      ok(await kprof(['summary', join(dir, 'good.json')]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a summary JSON written before ranks kept their own row figures', () => {
  it('reads back with the saved top-level figures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-old-'));
    try {
      const j = JSON.parse(ok(await kprof(['summary', 'fixtures/fusion-example/base', '--steps', '22-23', '--format', 'json'])).stdout);
      for (const r of j.perRank) for (const f of ['rowsRead', 'skippedRows', 'filteredKernels']) delete r[f];
      const f = join(dir, 'old.json');
      writeFileSync(f, JSON.stringify(j));
      const back = JSON.parse(ok(await kprof(['summary', f, '--steps', '22-23', '--format', 'json'])).stdout);
      for (const k of ['rowsRead', 'skippedRows', 'filteredKernels', 'totals']) expect(back[k]).toEqual(j[k]);
      expect(back.rowsRead).toBe(back.totals.count + back.filteredKernels + back.skippedRows);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('per-step cells read back', () => {
  it('hold no min or max of their own (a summary JSON keeps none per step), read as the empty cell, and take their own when merged into', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-stepcells-'));
    try {
      const snap = {
        schemaVersion: 1,
        kind: 'summary',
        groupBy: 'type',
        steps: 2,
        perRank: [
          {
            rank: '0',
            steps: [1, 2],
            groups: [
              {
                key: 'Cast',
                type: 'Cast',
                count: 3,
                totalUs: 3.5,
                minUs: 1,
                maxUs: 1.5,
                byStep: [
                  { step: 1, count: 1, totalUs: 1 },
                  { step: 2, count: 2, totalUs: 2.5 },
                ],
              },
            ],
          },
        ],
      };
      writeFileSync(join(dir, 's.json'), JSON.stringify(snap));
      const p = await readProfile(join(dir, 's.json'), { withShapes: false, ranks: null, threads: 'off' });
      const cell = [...p.ranks[0]!.groups.values()][0]!.steps.get(2)!;
      expect(Object.keys(cell)).toEqual(['count', 'ticks']);
      expect([cell.count, cell.ticks, cell.minTicks, cell.maxTicks]).toEqual([2, 25_000, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
      const other = [...p.ranks[0]!.groups.values()][0]!.steps.get(1)!;
      cell.minTicks = 7;
      expect([cell.minTicks, other.minTicks]).toEqual([7, Number.POSITIVE_INFINITY]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are packed: the groups of a file share one buffer, read as a Map that cannot be written, in step order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-packed-'));
    try {
      const cast = {
        key: 'Cast',
        type: 'Cast',
        count: 6,
        totalUs: 6.5,
        minUs: 1,
        maxUs: 1.5,
        byStep: [
          { step: 2, count: 2, totalUs: 2.5 },
          { step: 4, count: 3, totalUs: 3 },
          { step: 9, count: 1, totalUs: 1 },
        ],
      };
      const mm = {
        key: 'MatMul',
        type: 'MatMul',
        count: 2,
        totalUs: 4,
        minUs: 2,
        maxUs: 2,
        byStep: [
          { step: 2, count: 1, totalUs: 2 },
          { step: 4, count: 1, totalUs: 2 },
        ],
      };
      const empty = { key: 'Mul', type: 'Mul', count: 1, totalUs: 1, minUs: 1, maxUs: 1 };
      const snap = {
        schemaVersion: 1,
        kind: 'summary',
        groupBy: 'type',
        steps: 3,
        perRank: [
          { rank: '0', steps: [2, 4, 9], groups: [cast, mm, empty] },
          { rank: '1', steps: [2, 4], groups: [mm] },
        ],
      };
      writeFileSync(join(dir, 's.json'), JSON.stringify(snap));
      const p = await readProfile(join(dir, 's.json'), { withShapes: false, ranks: null, threads: 'off' });
      const [c, m, e] = [...p.ranks[0]!.groups.values()].map((g) => g.steps);
      const m1 = [...p.ranks[1]!.groups.values()][0]!.steps;
      for (const steps of [c, m, e, m1]) expect(steps).toBeInstanceOf(PackedSteps);
      expect([...c!.keys()]).toEqual([2, 4, 9]);
      expect([...c!].map(([s, x]) => [s, x.count, x.ticks])).toEqual([
        [2, 2, 25_000],
        [4, 3, 30_000],
        [9, 1, 10_000],
      ]);
      expect([c!.get(4)?.count, c!.get(9)?.count, c!.get(3), c!.has(2), c!.has(5), c!.size]).toEqual([3, 1, undefined, true, false, 3]);
      expect([m!.get(2)?.ticks, m!.get(4)?.ticks, m!.get(9), m1.get(4)?.count, e!.size, [...e!.values()]]).toEqual([
        20_000,
        20_000,
        undefined,
        1,
        0,
        [],
      ]);
      const seen: number[] = [];
      c!.forEach((x, s) => seen.push(s, x.count));
      expect(seen).toEqual([2, 2, 4, 3, 9, 1]);
      // Steps out of order (a file refuses them, but the store does not rely on it) are found one by one.
      const loose = new PackedSteps(Float64Array.from([0, 0, 0, 9, 1, 10, 2, 2, 20, 4, 3, 30]), 1, 3);
      expect([...loose.keys()]).toEqual([9, 2, 4]);
      expect([loose.get(2)?.ticks, loose.get(4)?.count, loose.get(0), loose.has(9)]).toEqual([20, 3, undefined, true]);
      expect(() => c!.set(1, c!.get(2)!)).toThrow(/read-only/);
      expect(() => c!.delete(2)).toThrow(/read-only/);
      // And they read back as the file says (summary of the snapshot gives its per-step figures again).
      const r = await kprof(['summary', join(dir, 's.json'), '--format', 'json']);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { perRank: { groups: { key: string; byStep: unknown[] }[] }[] };
      expect(out.perRank[0]!.groups.find((g) => g.key === 'Cast')!.byStep).toEqual([
        { step: 2, count: 2, totalUs: 2.5 },
        { step: 4, count: 3, totalUs: 3 },
        { step: 9, count: 1, totalUs: 1 },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a summary JSON larger than kprof reads back', () => {
  it('is refused (exit 2) naming the file, the limit and what to do, plain or gzipped (the cap made small here)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-big-'));
    try {
      const path = join(dir, 'big.summary.json');
      const r = await kprof(['summary', 'fixtures/formats/multi-rank', '--by', 'name', '--format', 'json', '-o', path]);
      expect(r.code, r.stderr).toBe(0);
      const size = readFileSync(path).length;
      expect(readSnapshot(path, size).length).toBeGreaterThan(0);
      const err = (f: () => unknown): KprofError => {
        try {
          f();
        } catch (e) {
          return e as KprofError;
        }
        throw new Error('not refused');
      };
      const e = err(() => readSnapshot(path, 1024));
      expect(e).toBeInstanceOf(KprofError);
      expect(e.kind).toBe('input');
      expect(e.message).toBe(
        `${path}: is more than 1 KiB, the largest summary JSON kprof reads back (it is parsed whole, as one string). ` +
          'Summarise fewer steps (--steps 100-109) or fewer ranks per file (--rank), and put the files in one folder: a folder of summary JSONs is read as one profile.',
      );
      const gz = join(dir, 'big.summary.json.gz');
      writeFileSync(gz, gzipSync(readFileSync(path)));
      expect(readFileSync(gz).length).toBeLessThan(size);
      const z = err(() => readSnapshot(gz, readFileSync(gz).length + 1));
      expect(z.kind).toBe('input');
      expect(z.message).toMatch(/big\.summary\.json\.gz: unpacks to more than [0-9.]+ KiB, the largest summary JSON kprof reads back[\s\S]*--steps/);
      expect(MAX_SNAPSHOT_BYTES).toBe(256 << 20);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a summary JSON is opened by the byte layer (src/input/bytes/)', () => {
  it("a gzipped one cut short or damaged: the byte layer's gzip message, naming the file, with what to do for a summary JSON", () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-gz-'));
    try {
      const r = readFileSync(join(ROOT, 'fixtures/cluster/base/rank0.summary.json'));
      const whole = gzipSync(r);
      const cut = join(dir, 'cut.json.gz');
      writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
      expect(() => readSnapshot(cut)).toThrow(
        `${cut}: the gzip data ends early (cut short, e.g. a partial copy or a full disk); expected a complete gzip file. Copy the file again or regenerate it.`,
      );
      const bad = Buffer.from(whole);
      bad[bad.length - 6]! ^= 0xff; // the CRC-32 at the end
      const damaged = join(dir, 'damaged.json.gz');
      writeFileSync(damaged, bad);
      expect(() => readSnapshot(damaged)).toThrow(
        /damaged\.json\.gz: the gzip checksum at the end of the file does not match the data .*Copy the file again or regenerate it\.$/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a FIFO is refused at once (where mkfifo exists), before any read could block', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-fifo-'));
    try {
      const fifo = join(dir, 'pipe.json');
      if (spawnSync('mkfifo', [fifo]).status !== 0) return;
      expect(() => readSnapshot(fifo)).toThrow(/pipe\.json: a FIFO \(named pipe\), not a regular file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a summary JSON larger than kprof reads back is never written', () => {
  it('summary -o refuses it (exit 2, the file left as it was); one of exactly the limit is written and reads back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kprof-big-write-'));
    try {
      const args = ['summary', 'fixtures/formats/multi-rank', '--by', 'name', '--format', 'json'];
      const whole = await kprof(args);
      expect(whole.code).toBe(0);
      const size = Buffer.byteLength(whole.stdout);
      const path = join(dir, 'base.json');
      writeFileSync(path, 'the previous baseline\n');
      const over = await kprof([...args, '-o', path], { KPROF_SNAPSHOT_LIMIT: String(size - 1) });
      expect(over.code).toBe(2);
      expect(over.stderr).toMatch(
        /^kprof: .*base\.json: the summary JSON would be more than [0-9.]+ KiB, the largest summary JSON kprof reads back, so nothing was written\. Make it smaller: group by type rather than name \(--by type\); or summarise fewer ranks per file \(--rank 0, one file per rank\)/,
      );
      expect(readFileSync(path, 'utf8')).toBe('the previous baseline\n');
      // The writer's limit is the reader's: a file of exactly the limit is written, and read back.
      const at = await kprof([...args, '-o', path], { KPROF_SNAPSHOT_LIMIT: String(size) });
      expect(at.code, at.stderr).toBe(0);
      expect(readFileSync(path, 'utf8')).toBe(whole.stdout);
      expect(readSnapshot(path, size).length).toBeGreaterThan(0);
      // On stdout it is stopped there, and said.
      const out = await kprof(args, { KPROF_SNAPSHOT_LIMIT: String(size - 1) });
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/^kprof: The summary JSON on stdout would be more than .* so it was stopped there and is cut short\./);
      expect(Buffer.byteLength(out.stdout)).toBeLessThan(size);
      // merge writes summary JSONs too.
      const merged = await kprof(['merge', path, '-o', join(dir, 'merged.json')], { KPROF_SNAPSHOT_LIMIT: String(size - 1) });
      expect(merged.code).toBe(2);
      expect(merged.stderr).toMatch(/merged\.json: the summary JSON would be more than/);
      // The variable only lowers the limit.
      const raised = await kprof(args, { KPROF_SNAPSHOT_LIMIT: String(MAX_SNAPSHOT_BYTES * 2) });
      expect(raised.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
