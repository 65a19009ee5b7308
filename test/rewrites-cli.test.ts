// The Fusion rewrites section of `kprof diff`, end to end: real exports (../shared/data/real msinsight-st-level2,
// ranks 0 and 2, one step of ~2,500 kernels each) written at test time as 3-step profiles, with fusions made up in
// the PR by editing the rows, read through the CLI (in read workers and in this thread) and checked in the JSON
// section against figures computed here with csv-parse: chains, counts, layers, ranks, not-fused sites, times and
// the conservation line. Then the text formats (transcripts), the unavailable cases and hostile kernel names.

import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { DiffJson, DiffRewritesJson, RewriteJson } from '../src/model/schema.js';
import { sharedPool } from '../src/input/read.js';
import { relPath } from '../src/util/paths.js';
import { REAL, ROOT, kprof, transcript, type Result, realData } from './helpers.js';
import { countsOf } from './rewrites-rows.js';

const HAS_REAL = realData(import.meta.url);

type Rec = Record<string, string>;

const SRC = (rank: string) => join(REAL, `msinsight-st-level2/rank_${rank}_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv`);
const RANKS = ['0', '2'] as const;
const STEPS = [13, 14, 15];

const ROPE = ['Cos', 'Mul', 'Cast', 'Sin', 'Mul', 'Cast', 'RotaryPositionEmbedding'];
const ROPE_GRAD = ['RotaryPositionEmbeddingGrad', 'ZerosLike', 'Add'];
const SELECT = ['Greater', 'MemSet', 'NonZero'];

let header: string[] = [];
const rows: Record<string, Rec[]> = {};

function load(rank: string): Rec[] {
  const text = readFileSync(SRC(rank), 'utf8');
  const recs = parse(text, { bom: true, columns: true, skip_empty_lines: true }) as Rec[];
  header = Object.keys(recs[0]!);
  return recs;
}

const isCompute = (r: Rec): boolean => {
  const core = (r['Accelerator Core'] ?? '').trim();
  const t = r.Type!.trim().toLowerCase();
  const n = r.Name!.trim().toLowerCase();
  return (
    core !== 'COMMUNICATION' && core !== 'HCCL' && !t.startsWith('hcom_') && !t.startsWith('lccl') && !n.startsWith('hcom_') && !n.startsWith('lccl')
  );
};
const typeOf = (r: Rec): string => r.Type!.trim();
const ticks = (r: Rec): number => Math.round(Number(r['Duration(us)']!.trim()) * 10_000);

/** Each occurrence of `chain` among the compute kernels replaced by one kernel `by` (5 µs), or by nothing, where `keep` says. */
function fuse(recs: Rec[], chain: string[], by: string | null, keep: (i: number) => boolean = () => true): Rec[] {
  const compute = recs.map((r, i) => (isCompute(r) ? i : -1)).filter((i) => i >= 0);
  const drop = new Set<number>();
  const insert = new Map<number, Rec>();
  let occurrence = 0;
  for (let c = 0; c + chain.length <= compute.length; ) {
    if (chain.every((t, j) => typeOf(recs[compute[c + j]!]!) === t)) {
      if (keep(occurrence++)) {
        for (let j = 0; j < chain.length; j++) drop.add(compute[c + j]!);
        const at = recs[compute[c]!]!;
        if (by !== null) insert.set(compute[c]!, { ...at, Name: `aclnn${by}_${by}`, Type: by, 'Duration(us)': '5.000' });
      }
      c += chain.length;
    } else c++;
  }
  const out: Rec[] = [];
  recs.forEach((r, i) => {
    const ins = insert.get(i);
    if (ins !== undefined) out.push(ins);
    if (!drop.has(i)) out.push(r);
  });
  return out;
}

/** Non-overlapping occurrences of a chain among the compute kernels of one step, and each one's summed ticks. */
function occurrences(recs: Rec[], chain: string[]): number[] {
  const c = recs.filter(isCompute);
  const out: number[] = [];
  for (let i = 0; i + chain.length <= c.length; ) {
    if (chain.every((t, j) => typeOf(c[i + j]!) === t)) {
      out.push(c.slice(i, i + chain.length).reduce((s, r) => s + ticks(r), 0));
      i += chain.length;
    } else i++;
  }
  return out;
}

function medianOf(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

function cell(v: string): string {
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** The step's rows as steps 13, 14 … (3 by default; start times 1 s apart, exact: shifted in the integer µs). */
function steps(recs: Rec[], n: number): Rec[] {
  return range(13, 13 + n - 1).flatMap((step, c) =>
    recs.map((r) => {
      const m = /^(\s*)(\d+)(.*)$/s.exec(r['Start Time(us)']!);
      const start = m === null ? r['Start Time(us)']! : `${m[1]}${BigInt(m[2]!) + BigInt(c * 1_000_000)}${m[3]}`;
      return { ...r, 'Step Id': String(step), 'Start Time(us)': start };
    }),
  );
}

let dir = '';

/** A profile folder of ranks 0 and 2, each rank's step edited by `edit` and repeated as 3 steps. */
function profile(name: string, edit: (rank: string, recs: Rec[]) => Rec[] = (_, r) => r, n = STEPS.length): string {
  const root = join(dir, name);
  for (const rank of RANKS) {
    const out = join(root, `rank${rank}_ascend_pt/ASCEND_PROFILER_OUTPUT`);
    mkdirSync(out, { recursive: true });
    const recs = steps(edit(rank, rows[rank]!), n);
    writeFileSync(
      join(out, 'kernel_details.csv'),
      `${[header.map(cell).join(','), ...recs.map((r) => header.map((h) => cell(r[h] ?? '')).join(','))].join('\n')}\n`,
    );
  }
  return root;
}

async function section(base: string, pr: string, extra: string[] = []): Promise<DiffRewritesJson> {
  const r = await kprof(['diff', base, pr, '--format', 'json', ...extra]);
  // (stderr says that ranks 0 and 2, two pipeline stages, changed differently: they run different layers)
  expect(r.code).toBe(0);
  const s = (JSON.parse(r.stdout) as DiffJson).rewrites!;
  expect(s.version).toBe(1);
  expect(s.status).toBe('ok');
  return s;
}

describe.skipIf(!HAS_REAL)('kprof diff: Fusion rewrites on real exports edited at test time', () => {
  let base = '';
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'kprof-rewrites-')));
    for (const rank of RANKS) rows[rank] = load(rank);
    base = profile('base');
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the real steps have what the scenarios need', () => {
    for (const rank of RANKS) {
      expect(occurrences(rows[rank]!, ROPE)).toHaveLength(56);
      expect(occurrences(rows[rank]!, ROPE_GRAD)).toHaveLength(56);
      expect(rows[rank]!.filter((r) => typeOf(r) === 'FlashAttentionScore')).toHaveLength(28);
    }
  });

  test('a chain replaced in every step: the chain, how often, every layer, both ranks, its time, all accounted for', async () => {
    const pr = profile('every-step', (_, r) => fuse(r, ROPE, 'RopeFused'));
    const s = await section(base, pr);
    expect(s.rewrites).toHaveLength(1);
    const w = s.rewrites[0]!;
    expect([w.removed, w.added, w.perStep, w.ranks, w.chains]).toEqual([ROPE, ['RopeFused'], { min: 56, max: 56 }, ['0', '2'], 336]);
    expect([w.removedChains, w.addedChains]).toEqual([
      { base: 336, pr: 0 },
      { base: 0, pr: 336 },
    ]);
    expect(s.marker).toEqual({ token: 'FlashAttentionScore', auto: true, equal: true });
    expect([w.layers, w.layerCount]).toEqual([range(0, 27), 28]);
    expect(w.notFused).toEqual([]);
    // One chain's time: the median over its 336 occurrences of its kernels' summed durations; the PR's kernel is 5 µs.
    const sums = RANKS.flatMap((rank) => occurrences(rows[rank]!, ROPE));
    expect(w.base!.medianUs).toBe(medianOf(sums) / 10_000);
    expect(w.base!.occurrences).toBe(336);
    expect(w.pr!.medianUs).toBe(5);
    expect(w.saving.perChainUs).toBe((50_000 - medianOf(sums)) / 10_000);
    // In all, measured: the 336 fused kernels' time less the 336 chains' (3 steps of the chains of `sums`), not the
    // median × 336.
    expect(w.saving.totalUs).toBeCloseTo((50_000 * 336 - 3 * sums.reduce((a, b) => a + b, 0)) / 10_000, 4);
    expect(s.conservation!.time.rewritesUs).toBeCloseTo(w.saving.totalUs, 4);
    expect([w.saving.significant, w.saving.samples]).toEqual([true, { base: 6, pr: 6 }]);
    expect(w.saving.p).toBeLessThan(0.05);
    expect(countsOf(s.conservation!)).toEqual({
      removed: 336 * 7,
      added: 336,
      removedAccounted: 336 * 7,
      addedAccounted: 336,
      removedUnpaired: 0,
      addedUnpaired: 0,
      rest: [],
    });
    // One compute stream per rank (Stream ID 2), every step of one shape.
    expect(s.lanes.map((l) => [l.rank, l.status, l.base?.repSteps, l.base?.steps, l.pr?.kernels])).toEqual([
      ['0', 'aligned', 3, 3, 2448 - 56 * 6],
      ['2', 'aligned', 3, 3, 2564 - 56 * 6],
    ]);
  });

  test('inputs large enough to be read in workers: the same rewrite over 12 steps', async () => {
    const pool = sharedPool()!;
    const before = pool.completed;
    const s = await section(
      profile('base-12', undefined, 12),
      profile('every-step-12', (_, r) => fuse(r, ROPE, 'RopeFused'), 12),
    );
    expect(pool.completed - before, 'ranks read in read workers').toBeGreaterThan(0);
    const w = s.rewrites[0]!;
    expect([s.rewrites.length, w.removed, w.chains, w.perStep, w.layers, w.notFused]).toEqual([
      1,
      ROPE,
      56 * 12 * 2,
      { min: 56, max: 56 },
      range(0, 27),
      [],
    ]);
    expect(w.base!.medianUs).toBe(medianOf(RANKS.flatMap((rank) => occurrences(rows[rank]!, ROPE))) / 10_000);
    expect(countsOf(s.conservation!)).toEqual({
      removed: 1344 * 7,
      added: 1344,
      removedAccounted: 1344 * 7,
      addedAccounted: 1344,
      removedUnpaired: 0,
      addedUnpaired: 0,
      rest: [],
    });
    // --steps applies to the section too (read in the workers as well): the chains of steps 15-17 only, and said so.
    const some = await section(profile('base-12', undefined, 12), join(dir, 'every-step-12'), ['--steps', '15-17', '--match', 'Rope']);
    expect(some.scope).toEqual({ steps: '15-17', notApplied: ['--match'] });
    expect([some.rewrites.length, some.rewrites[0]!.removed, some.rewrites[0]!.chains]).toEqual([1, ROPE, 56 * 3 * 2]);
    expect(some.lanes.map((l) => [l.base!.steps, l.pr!.steps])).toEqual([
      [3, 3],
      [3, 3],
    ]);
    const text = await kprof(['diff', join(dir, 'base-12'), join(dir, 'every-step-12'), '--steps', '15-17', '--match', 'Rope']);
    expect(text.stdout).toContain(
      'In steps 15-17 only (--steps), as the table above. --match does not apply to this section: it compares every compute kernel of the steps and ranks read.',
    );
  }, 300_000);

  test('a chain replaced in some layers only: those layers, and each site where it still runs', async () => {
    // Occurrences 0-27 of each step are layers 0-13 (two per layer).
    const pr = profile('some-layers', (_, r) => fuse(r, ROPE, 'RopeFused', (i) => i < 28));
    const w = (await section(base, pr)).rewrites[0]!;
    expect([w.chains, w.perStep, w.layers, w.removedChains]).toEqual([28 * 3 * 2, { min: 28, max: 28 }, range(0, 13), { base: 336, pr: 168 }]);
    expect(w.notFused).toHaveLength(2 * 28);
    for (const rank of RANKS) {
      const sites = w.notFused.filter((x) => x.rank === rank);
      expect(sites.map((x) => x.layer)).toEqual(range(14, 27).flatMap((l) => [l, l]));
      expect(sites.every((x) => x.steps.join() === STEPS.join() && x.edits === 0 && x.tokens.join() === ROPE.join() && x.layers === 28)).toBe(true);
    }
  });

  test('a chain replaced on one rank only: that rank, and every site of the other as not fused', async () => {
    const pr = profile('one-rank', (rank, r) => (rank === '2' ? fuse(r, ROPE, 'RopeFused') : r));
    const s = await section(base, pr);
    const w = s.rewrites[0]!;
    expect([w.ranks, w.chains, w.removedChains]).toEqual([['2'], 56 * 3, { base: 336, pr: 168 }]);
    expect(w.notFused.every((x) => x.rank === '0' && x.edits === 0 && x.steps.join() === STEPS.join())).toBe(true);
    expect(w.notFused.map((x) => x.layer)).toEqual(range(0, 27).flatMap((l) => [l, l]));
    expect(s.lanes.map((l) => [l.rank, l.edits])).toEqual([
      ['0', 0],
      ['2', 56 * 8],
    ]);
    const text = await kprof(['diff', base, pr]);
    expect(text.stdout).toContain('#1  7 → 1 · 56 per step · layers 0-27 of 0-27 · rank 2\n');
    expect(text.stdout).toContain('    not fused: layers 0-27 in every step of rank 0: the chain itself (2 sites in each)\n');
  });

  test('a chain removed with nothing in its place: removed, its time saved whole', async () => {
    const pr = profile('removed', (_, r) => fuse(r, SELECT, null));
    const w = (await section(base, pr)).rewrites[0]!;
    const per = RANKS.map((rank) => occurrences(rows[rank]!, SELECT).length);
    expect(per[0]).toBeGreaterThan(1);
    expect([w.removed, w.added, w.chains, w.perStep, w.pr]).toEqual([
      SELECT,
      [],
      3 * (per[0]! + per[1]!),
      { min: Math.min(...per), max: Math.max(...per) },
      null,
    ]);
    const sums = RANKS.flatMap((rank) => occurrences(rows[rank]!, SELECT));
    expect(w.saving.perChainUs).toBe(-medianOf(sums) / 10_000);
    expect(w.notFused).toEqual([]);
  });

  test('two fusions at once: two rewrites, the larger first, every kernel accounted for', async () => {
    const pr = profile('two', (_, r) => fuse(fuse(r, ROPE, 'RopeFused'), ROPE_GRAD, 'RopeGradFused'));
    const s = await section(base, pr);
    expect(s.rewrites.map((w: RewriteJson) => [w.removed, w.added, w.chains, w.perStep.min, w.ranks])).toEqual([
      [ROPE, ['RopeFused'], 336, 56, ['0', '2']],
      [ROPE_GRAD, ['RopeGradFused'], 336, 56, ['0', '2']],
    ]);
    expect(countsOf(s.conservation!)).toEqual({
      removed: 336 * 10,
      added: 336 * 2,
      removedAccounted: 336 * 10,
      addedAccounted: 336 * 2,
      removedUnpaired: 0,
      addedUnpaired: 0,
      rest: [],
    });
    // --layer-marker names another marker; --rewrites off leaves the section out.
    const marked = await section(base, pr, ['--layer-marker', 'MatMulV2']);
    expect(marked.marker).toEqual({ token: 'MatMulV2', auto: false });
    const off = await kprof(['diff', base, pr, '--format', 'json', '--rewrites', 'off']);
    expect((JSON.parse(off.stdout) as DiffJson).rewrites).toBeNull();
    expect((await kprof(['diff', base, pr, '--rewrites', 'off'])).stdout).not.toContain('Fusion rewrites');
  });
});

describe('kprof diff: the Fusion rewrites section in each format', () => {
  let tmp = '';
  beforeAll(() => {
    tmp = realpathSync(mkdtempSync(join(tmpdir(), 'kprof-rewrites-fmt-')));
  }, 60_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  async function golden(name: string, args: string[]): Promise<Result> {
    const r = await kprof(args);
    // The CLI shows a temp path relative to the repo or, three folders up or more, as given: both read <tmp>.
    const shown = (s: string) => s.split(relPath(tmp)).join('<tmp>').split(tmp).join('<tmp>');
    await expect(transcript(args.map(shown), { ...r, stdout: shown(r.stdout), stderr: shown(r.stderr) })).toMatchFileSnapshot(
      join(ROOT, 'test/transcripts', `${name}.md`),
    );
    return r;
  }

  test('a summary JSON or an op_statistic: unavailable, and why, in the table, Markdown and JSON', async () => {
    const snap = join(tmp, 'base.json');
    expect((await kprof(['summary', 'fixtures/fusion-example/base', '--format', 'json', '-o', snap])).code).toBe(0);
    await golden('rewrites-unavailable-markdown', ['diff', snap, 'fixtures/fusion-example/pr', '--format', 'markdown', '--only', 'added']);
    const stat = 'fixtures/formats/op-statistic-no-device';
    await golden('rewrites-unavailable-table', ['diff', stat, stat, '--top', '2']);
    const j = JSON.parse((await kprof(['diff', snap, 'fixtures/fusion-example/pr', '--format', 'json'])).stdout) as DiffJson;
    expect(j.rewrites).toEqual({
      version: 1,
      status: 'unavailable',
      groupBy: 'type',
      unavailable: [{ side: 'base', file: relPath(snap), reason: 'summary-json' }],
      ranksPaired: null,
      scope: null,
      marker: null,
      lanes: [],
      rewrites: [],
      conservation: null,
      unverified: null,
      notes: [],
    });
  });

  test.skipIf(!HAS_REAL)('a Level0 export (Type N/A) by type: unavailable, and why; by name the section is there', async () => {
    const level = (n: number) => join(REAL, `msinsight-torchnpu/level${n}`);
    const byType = JSON.parse((await kprof(['diff', level(0), level(1), '--format', 'json'])).stdout) as DiffJson;
    expect(byType.rewrites).toMatchObject({ status: 'unavailable', unavailable: [{ side: 'base', file: relPath(level(0)), reason: 'no-types' }] });
    const text = await kprof(['diff', level(0), level(1)]);
    expect(text.stdout).toContain('has no kernel types (Type is N/A in every row: a Level0 export)');
    expect(text.stdout).toContain('compare with --by name');
    const byName = JSON.parse((await kprof(['diff', level(0), level(1), '--format', 'json', '--by', 'name'])).stdout) as DiffJson;
    expect(byName.rewrites?.status).not.toBe('unavailable');
  });

  test('hostile kernel names: escaped in the chains exactly as in the other sections', async () => {
    // The README pair with the fused kernel and a kernel of the chain renamed to text that would open markup,
    // end a table cell, start a workflow command or move the cursor.
    const evil = '`<img src=x>|##[error]\u001b[31m';
    const fused = '::warning::Fused\u202e';
    for (const side of ['base', 'pr']) cpSync(join('fixtures/fusion-example', side), join(tmp, side), { recursive: true });
    for (const [side, from, to] of [
      ['base', 'DynamicBlockQuant', evil],
      ['pr', 'MlaPrologV3', fused],
      ['pr', 'DynamicBlockQuant', evil],
    ] as const) {
      for (const rank of readdirSync(join(tmp, side)).filter((d) => d.endsWith('_ascend_pt'))) {
        const file = join(tmp, side, rank, 'ASCEND_PROFILER_OUTPUT/kernel_details.csv');
        writeFileSync(file, readFileSync(file, 'utf8').split(`,${from},`).join(`,"${to}",`));
      }
    }
    const args = (f: string) => ['diff', join(tmp, 'base'), join(tmp, 'pr'), '--only', 'added', '--format', f];
    const table = await golden('rewrites-hostile-table', args('table'));
    const md = await golden('rewrites-hostile-markdown', args('markdown'));
    for (const out of [table.stdout, md.stdout]) {
      expect(out).toContain('Fusion rewrites');
      // No raw control character, bidirectional control, workflow command or markup from the names.
      expect(out).not.toMatch(/[\u001b\u202e]/);
      expect(out).not.toContain('##[error]');
      expect(out).not.toMatch(/^\s*::/m);
    }
    expect(table.stdout).toContain('InterleaveRope ×2 · Cast ×2 · `<img src=x>|\\x23#[error]\\x1b[31m · ScatterNdUpdate ×2');
    expect(table.stdout).toContain('    PR     \\x3a:warning::Fused\\u202e\n');
    // In Markdown, every name is in a code span (where nothing opens markup), `|` escaped in table cells.
    expect(md.stdout).toContain('`` `<img src=x>|\\x23#[error]\\x1b[31m ``');
    expect(md.stdout.split('<img').length).toBe(md.stdout.split('`` `<img').length);
    expect(md.stdout).toContain('| 1 | 13 kernels → `\\x3a:warning::Fused\\u202e` |');
  });

  test('by type+core, a kernel of no core is labelled in the chains as in the count table: RmsNorm @ (empty)', async () => {
    // The README pair with the Accelerator Core cell of every RmsNorm emptied (a column the export leaves blank).
    const dir = join(tmp, 'no-core');
    for (const side of ['base', 'pr']) {
      cpSync(join('fixtures/fusion-example', side), join(dir, side), { recursive: true });
      for (const rank of readdirSync(join(dir, side)).filter((d) => d.endsWith('_ascend_pt'))) {
        const file = join(dir, side, rank, 'ASCEND_PROFILER_OUTPUT/kernel_details.csv');
        writeFileSync(file, readFileSync(file, 'utf8').split(',RmsNorm,dynamic,AI_VECTOR_CORE,').join(',RmsNorm,dynamic,,'));
      }
    }
    const args = (f: string) => ['diff', join(dir, 'base'), join(dir, 'pr'), '--by', 'type+core', '--format', f];
    const table = await kprof(args('table'));
    const md = await kprof(args('markdown'));
    const html = await kprof(args('html'));
    const json = JSON.parse((await kprof(args('json'))).stdout) as DiffJson;
    for (const r of [table, md, html]) expect(r.code, r.stderr).toBe(0);
    expect(table.stdout).toContain('RmsNorm @ (empty)    ');
    expect(table.stdout).toContain('QuantBatchMatmulV3 @ AI_CORE · RmsNorm @ (empty) ×2 · DynamicQuant @ AI_VECTOR_CORE');
    expect(md.stdout).toContain('| `RmsNorm @ (empty)` |');
    expect(md.stdout).toContain('`QuantBatchMatmulV3 @ AI_CORE` · `RmsNorm @ (empty)` ×2 ·');
    expect(html.stdout).toContain('<code>RmsNorm @ (empty)</code><span class="times"> ×2</span>');
    // No chain element ends with the bare separator; the JSON (also the one inside the HTML page) keeps the key.
    for (const out of [table.stdout, md.stdout]) expect(out).not.toMatch(/\bRmsNorm @ [^(]/);
    expect(html.stdout).not.toMatch(/<code>RmsNorm @ <\/code>/);
    expect(json.rewrites?.rewrites[0]?.removed).toContain('RmsNorm @ ');
  });
});
