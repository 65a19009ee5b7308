// Cluster-sized profiles: a folder of summary JSONs (one per rank or per node) is one multi-rank profile for every
// command, and `kprof merge` makes one summary JSON of many. Transcripts of both, the errors (a rank in two files,
// snapshots made with other grouping or filters, a file in the folder that is not a snapshot, an empty folder),
// and the property that merging is associative and does not depend on the order of its inputs.

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { expectTranscript, kprof, ROOT, transcript } from './helpers.js';

const C = 'fixtures/cluster';
const RUNS = Number(process.env.KPROF_FUZZ_RUNS ?? 12);
const SEED = process.env.KPROF_FUZZ_SEED !== undefined ? Number(process.env.KPROF_FUZZ_SEED) : undefined;

const tmp = mkdtempSync(join(tmpdir(), 'kprof-cluster-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A JSON report with the fields that name the inputs taken out (they differ between a folder and its profile). */
function withoutInputs(text: string): unknown {
  const j = JSON.parse(text) as Record<string, unknown>;
  delete j.inputs;
  for (const side of ['base', 'pr']) {
    const s = j[side] as Record<string, unknown> | undefined;
    if (s && typeof s === 'object' && 'input' in s) {
      delete s.input;
      delete s.files;
    }
  }
  return j;
}

describe('a folder of summary JSONs is a multi-rank profile', () => {
  it('summary: ranks from each snapshot, counts and times added', async () => {
    const r = await expectTranscript('cluster-summary-folder', ['summary', `${C}/base`]);
    expect(r.code).toBe(0);
  });

  it('gives exactly what the profile it was made from gives (summary JSON, per-step cells included)', async () => {
    const folder = await kprof(['summary', `${C}/base`, '--format', 'json']);
    const profile = await kprof(['summary', 'fixtures/fusion-example/base', '--format', 'json']);
    expect(folder.code).toBe(0);
    expect(withoutInputs(folder.stdout)).toEqual(withoutInputs(profile.stdout));
  });

  it('diff of two folders: the diff of the two profiles', async () => {
    const r = await expectTranscript('cluster-diff-folders', ['diff', `${C}/base`, `${C}/pr`, '--per-step']);
    expect(r.code).toBe(0);
    // The rewrites section needs kernels in order, which summary JSONs do not hold (it says so): compared without it.
    const raw = await kprof([
      'diff',
      'fixtures/fusion-example/base',
      'fixtures/fusion-example/pr',
      '--per-step',
      '--format',
      'json',
      '--rewrites',
      'off',
    ]);
    const folders = await kprof(['diff', `${C}/base`, `${C}/pr`, '--per-step', '--format', 'json', '--rewrites', 'off']);
    expect(withoutInputs(folders.stdout)).toEqual(withoutInputs(raw.stdout));
  });

  it('check, rules and inspect take a folder too; --rank picks ranks out of it', async () => {
    const rules = join(tmp, 'cluster.rules.yaml');
    const made = await kprof(['rules', `${C}/base`, `${C}/pr`, '-o', rules]);
    expect(made.code).toBe(0);
    const check = await kprof(['check', `${C}/pr`, '--rules', rules, '--base', `${C}/base`]);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
    const reverted = await kprof(['check', `${C}/base`, '--rules', rules, '--base', `${C}/base`]);
    expect(reverted.code).toBe(1);
    await expectTranscript('cluster-inspect-folder', ['inspect', `${C}/small`]);
    const one = await kprof(['summary', `${C}/base`, '--rank', '1', '--format', 'json']);
    const direct = await kprof(['summary', `${C}/base/rank1.summary.json`, '--format', 'json']);
    expect(withoutInputs(one.stdout)).toEqual(withoutInputs(direct.stdout));
  });

  it('refuses a rank found in two files, naming both', async () => {
    const r = await expectTranscript('cluster-bad-duplicate-rank', ['summary', `${C}/bad-duplicate-rank`]);
    expect(r.code).toBe(2);
  });

  it('refuses snapshots made with different grouping or filters, with the command that regenerates one', async () => {
    const r = await expectTranscript('cluster-bad-mixed-grouping', ['diff', `${C}/bad-mixed-grouping`, `${C}/pr`]);
    expect(r.code).toBe(2);
  });

  it('--short-names is part of what made a snapshot: merged, diffed or read back only with it', async () => {
    // A trace's names shortened are other group keys than its full names: a snapshot made with --short-names
    // beside one made without would put one kernel under two keys, and a diff would call both "added".
    const w0 = 'fixtures/trace/kineto-ranks/worker0.1700000000.pt.trace.json';
    const w1 = 'fixtures/trace/kineto-ranks/worker1.1700000000.pt.trace.json';
    const full = join(tmp, 'sn-full.json');
    const short = join(tmp, 'sn-short.json');
    const short0 = join(tmp, 'sn-short0.json');
    expect((await kprof(['summary', w0, '--format', 'json', '-o', full])).code).toBe(0);
    expect((await kprof(['summary', w1, '--short-names', '--format', 'json', '-o', short])).code).toBe(0);
    expect((await kprof(['summary', w0, '--short-names', '--format', 'json', '-o', short0])).code).toBe(0);
    expect((JSON.parse(readFileSync(short, 'utf8')) as { selection: string }).selection).toBe('short-names');
    const merged = await kprof(['merge', full, short]);
    expect(merged.code).toBe(2);
    expect(merged.stderr).toContain('made with --by name and short-names, but');
    // The other order: the command that regenerates one says --short-names.
    expect((await kprof(['merge', short, full])).stderr).toContain('kprof summary <profile> --by name --short-names --format json');
    // Snapshots made alike merge, and read back only with --short-names.
    expect((await kprof(['merge', short0, short])).code).toBe(0);
    const plain = await kprof(['diff', w0, short0]);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('short-names');
    const same = await kprof(['diff', w0, short0, '--short-names', '--format', 'json']);
    expect(same.code).toBe(0);
    const rows = (JSON.parse(same.stdout) as { rows: { status: string }[] }).rows;
    expect(rows.filter((r) => r.status !== 'same')).toEqual([]);
  });

  it('refuses a JSON file in the folder that is not a summary JSON', async () => {
    const r = await expectTranscript('cluster-bad-not-snapshot', ['summary', `${C}/bad-not-snapshot`]);
    expect(r.code).toBe(2);
  });

  it('refuses an empty folder', async () => {
    const empty = join(tmp, 'empty');
    mkdirSync(empty);
    const args = ['summary', empty];
    const r = await kprof(args);
    expect(r.code).toBe(2);
    const shown = (s: string) => s.split(empty).join('<empty folder>');
    await expect(transcript(args.map(shown), { ...r, stderr: shown(r.stderr) })).toMatchFileSnapshot(
      join(ROOT, 'test/transcripts/cluster-bad-empty-folder.md'),
    );
  });

  it('a folder of profile folders: a JSON file beside them is not read, and inspect says so', async () => {
    const dir = join(tmp, 'mixed');
    cpSync(join(ROOT, 'fixtures/formats/multi-rank'), dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), '{"world_size": 2}');
    const r = await kprof(['inspect', dir, '--format', 'json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('config.json: not read (this folder holds profile folders');
    expect((await kprof(['summary', dir])).code).toBe(0);
  });
});

describe('kprof merge', () => {
  it('writes one summary JSON of many (transcript)', async () => {
    const r = await expectTranscript('cluster-merge', ['merge', `${C}/small/rank1.summary.json`, `${C}/small/rank0.summary.json`]);
    expect(r.code).toBe(0);
    const whole = await kprof(['summary', 'fixtures/formats/multi-rank', '--format', 'json']);
    expect(withoutInputs(r.stdout)).toEqual(withoutInputs(whole.stdout));
    expect((JSON.parse(r.stdout) as { inputs: string[] }).inputs).toEqual(['fixtures/formats/multi-rank']);
  });

  it('its output reads back exactly, and merges again (-o)', async () => {
    const a = join(tmp, 'merge-a.json');
    expect((await kprof(['merge', `${C}/base`, '-o', a])).code).toBe(0);
    const again = await kprof(['summary', a, '--format', 'json']);
    expect(withoutInputs(again.stdout)).toEqual(withoutInputs(readFileSync(a, 'utf8')));
    const once = await kprof(['merge', a]);
    expect(once.stdout).toBe(readFileSync(a, 'utf8'));
    // Byte for byte what kprof summary writes (the inputs are the same here).
    const one = `${C}/base/rank0.summary.json`;
    expect((await kprof(['merge', one])).stdout).toBe(readFileSync(join(ROOT, one), 'utf8'));
    const viaFile = join(tmp, 'one.json');
    expect((await kprof(['merge', one, '-o', viaFile])).code).toBe(0);
    expect(readFileSync(viaFile, 'utf8')).toBe(readFileSync(join(ROOT, one), 'utf8'));
    // -o never replaces an input.
    const over = await kprof(['merge', a, '-o', a]);
    expect(over.code).toBe(2);
    expect(over.stderr).toContain('an input of this run');
  });

  it('the rank of no id in two inputs is named "rank (no id)", not "rank -"', async () => {
    const one = join(tmp, 'no-id.json');
    const r = await kprof(['summary', 'fixtures/bad-bom', '--format', 'json', '-o', one]);
    expect(r.code, r.stderr).toBe(0);
    writeFileSync(join(tmp, 'no-id-copy.json'), readFileSync(one));
    const twice = await kprof(['merge', one, join(tmp, 'no-id-copy.json')]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/^kprof: rank \(no id\) is in both .*no-id\.json and .*no-id-copy\.json \(a rank of unknown id: /);
  });

  it('refuses a rank in two inputs, mixed grouping, and an input that is not a summary JSON', async () => {
    const dup = await expectTranscript('cluster-merge-bad-duplicate', ['merge', `${C}/base`, `${C}/base/rank0.summary.json`]);
    expect(dup.code).toBe(2);
    const mixed = await kprof(['merge', `${C}/base/rank0.summary.json`, `${C}/bad-mixed-grouping/rank0.summary.json`]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(
      /made with --by type and core=AI_CORE, but .*rank0\.summary\.json was made with --by type; .* --by type --format json -o /,
    );
    const raw = await expectTranscript('cluster-merge-bad-export', ['merge', `${C}/small/rank0.summary.json`, 'fixtures/formats/multi-rank']);
    expect(raw.code).toBe(2);
    const none = await kprof(['merge']);
    expect(none.code).toBe(2);
  });

  it('an empty folder: says it is empty and what to pass, not every format it looked for (exit 2)', async () => {
    const empty = join(tmp, 'merge-empty');
    mkdirSync(empty);
    for (const args of [
      ['merge', empty],
      ['merge', `${C}/small/rank0.summary.json`, empty],
    ]) {
      const r = await kprof(args);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr.split(empty).join('<empty>')).toBe(
        'kprof: <empty>: the folder is empty (no files). kprof merge combines summary JSONs: pass the files that ' +
          '`kprof summary <profile> --format json -o <file>` wrote, or a folder that holds them.\n',
      );
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// The property: any split of a set of ranks into files, merged flat in any order or in any tree, gives the same
// bytes, and that output reads back as itself.

interface GenGroup {
  key: string;
  extra: number;
  extraTicks: number;
  min: number;
  max: number;
  cells: { step: number; count: number; ticks: number }[];
}

interface GenRank {
  rank: string;
  steps: number[];
  groups: GenGroup[];
  rowsRead: number;
  skipped: number;
  filtered: number;
}

const cellArb = fc.record({ count: fc.integer({ min: 0, max: 50 }), ticks: fc.integer({ min: 0, max: 2 ** 40 }) });

const rankArb = (rank: string): fc.Arbitrary<GenRank> =>
  fc
    .record({
      steps: fc.uniqueArray(fc.integer({ min: 1, max: 8 }), { maxLength: 4 }).map((s) => s.sort((a, b) => a - b)),
      keys: fc.uniqueArray(fc.constantFrom('MatMulV3', 'Cast', 'RmsNorm', 'hcom_allReduce_', 'a "quoted" type'), { minLength: 1, maxLength: 4 }),
      rowsExtra: fc.nat(20),
      skipped: fc.nat(3),
      filtered: fc.nat(5),
    })
    .chain(({ steps, keys, rowsExtra, skipped, filtered }) =>
      fc
        .tuple(
          ...keys.map((key) =>
            fc
              .record({
                extra: fc.integer({ min: 1, max: 9 }),
                extraTicks: fc.integer({ min: 1, max: 2 ** 36 }),
                cells: fc.array(cellArb, { minLength: steps.length, maxLength: steps.length }),
                a: fc.double({ min: 0, max: 1, noNaN: true }),
                b: fc.double({ min: 0, max: 1, noNaN: true }),
              })
              .map((g) => {
                const cells = g.cells
                  .map((c, i) => ({ step: steps[i]!, count: c.count, ticks: c.count === 0 ? 0 : c.ticks }))
                  .filter((c) => c.count > 0);
                const ticks = g.extraTicks + cells.reduce((n, c) => n + c.ticks, 0);
                // Figures kernels can have: min ≤ mean (ticks ÷ count) ≤ max ≤ ticks.
                const mean = ticks / (g.extra + cells.reduce((n, c) => n + c.count, 0));
                const min = Math.floor(Math.min(g.a, g.b) * mean);
                const max = Math.ceil(mean) + Math.floor(Math.max(g.a, g.b) * (ticks - Math.ceil(mean)));
                return { key, extra: g.extra, extraTicks: g.extraTicks, min, max, cells };
              }),
          ),
        )
        .map((groups) => ({ rank, steps, groups, rowsRead: groups.length + rowsExtra, skipped, filtered })),
    );

/** A summary JSON as kprof writes it (only what the reader needs; it fills in the rest). */
function snapshotText(ranks: GenRank[], input: string): string {
  const us = (t: number) => t / 10_000;
  return JSON.stringify({
    schemaVersion: 1,
    kind: 'summary',
    groupBy: 'type',
    selection: '',
    inputs: [input],
    steps: new Set(ranks.flatMap((r) => r.steps)).size,
    perRank: ranks.map((r) => ({
      rank: r.rank,
      steps: r.steps,
      rowsRead: r.rowsRead,
      skippedRows: r.skipped,
      filteredKernels: r.filtered,
      groups: r.groups.map((g) => {
        const count = g.extra + g.cells.reduce((n, c) => n + c.count, 0);
        const ticks = g.extraTicks + g.cells.reduce((n, c) => n + c.ticks, 0);
        return {
          key: g.key,
          type: g.key,
          count,
          totalUs: us(ticks),
          minUs: us(g.min),
          maxUs: us(g.max),
          byStep: g.cells.map((c) => ({ step: c.step, count: c.count, totalUs: us(c.ticks) })),
        };
      }),
    })),
  });
}

/** A binary tree over the files: leaves are files, nodes are merges. */
type Tree = number | [Tree, Tree];

function treeArb(lo: number, hi: number): fc.Arbitrary<Tree> {
  if (lo === hi) return fc.constant(lo);
  return fc.integer({ min: lo, max: hi - 1 }).chain((mid) => fc.tuple(treeArb(lo, mid), treeArb(mid + 1, hi)));
}

const caseArb = fc
  .uniqueArray(fc.constantFrom('0', '1', '2', '3', '7', '12', 'node-a/x'), { minLength: 1, maxLength: 6 })
  .chain((ids) => fc.tuple(...ids.map(rankArb)))
  .chain((ranks) =>
    fc.record({
      ranks: fc.constant(ranks),
      // Which file each rank goes into (files that get no rank are dropped).
      fileOf: fc.array(fc.nat(3), { minLength: ranks.length, maxLength: ranks.length }),
      order: fc.shuffledSubarray(
        ranks.map((_, i) => i),
        { minLength: ranks.length, maxLength: ranks.length },
      ),
    }),
  )
  .chain((c) => {
    const files = [...new Set(c.fileOf)].sort();
    return fc.record({
      c: fc.constant(c),
      files: fc.constant(files),
      tree: treeArb(0, files.length - 1),
      perm: fc.shuffledSubarray(
        files.map((_, i) => i),
        { minLength: files.length, maxLength: files.length },
      ),
    });
  });

describe('merge is associative and order-independent', () => {
  it('flat in any order, or in any tree: the same bytes, which read back as themselves', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ c, files, tree, perm }) => {
        const dir = join(tmp, `case-${n++}`);
        mkdirSync(dir);
        const paths = files.map((f, i) => {
          const p = join(dir, `part${i}.json`);
          writeFileSync(
            p,
            snapshotText(
              c.order.map((j) => c.ranks[j]!).filter((_, j) => c.fileOf[c.order[j]!] === f),
              `node${f}`,
            ),
          );
          return p;
        });
        const merge = async (inputs: string[], out: string): Promise<string> => {
          const r = await kprof(['merge', ...inputs, '-o', out]);
          expect(r.stderr).toBe('');
          expect(r.code).toBe(0);
          return readFileSync(out, 'utf8');
        };
        const flat = await merge(paths, join(dir, 'flat.json'));
        const shuffled = await merge(
          perm.map((i) => paths[i]!),
          join(dir, 'shuffled.json'),
        );
        let k = 0;
        const walk = async (t: Tree): Promise<string> =>
          typeof t === 'number'
            ? paths[t]!
            : merge([await walk(t[0]), await walk(t[1])], join(dir, `tree${k++}.json`)).then(() => join(dir, `tree${k - 1}.json`));
        const treeOut = readFileSync(await walk(tree), 'utf8');
        expect(shuffled).toBe(flat);
        if (typeof tree !== 'number') expect(treeOut).toBe(flat);
        const folder = await kprof(['summary', dir.replace(/$/, ''), '--format', 'json']);
        // The folder now holds the merged files too (each rank more than once): refused.
        expect(folder.code).toBe(2);
        const back = await kprof(['summary', join(dir, 'flat.json'), '--format', 'json']);
        expect(withoutInputs(back.stdout)).toEqual(withoutInputs(flat));
        expect((JSON.parse(flat) as { inputs: string[] }).inputs).toEqual(files.map((f) => `node${f}`));
      }),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    );
  });
});

describe('the options that regenerate a snapshot', () => {
  it('are read back from its selection text', async () => {
    const { savedOptions } = await import('../src/util/savedOptions.js');
    expect(savedOptions('type', '')).toBe('--by type');
    expect(savedOptions('name', "steps=5-20; core=AI_CORE,MIX_AIC; match=/Mat|it's; x/; exclude=/^hcom_/; group attn=[/Attn/]")).toBe(
      "--by name --steps 5-20 --core AI_CORE,MIX_AIC --match 'Mat|it'\\''s; x' --exclude '^hcom_' --groups <the groups file it was made with>",
    );
    expect(savedOptions('type', 'match=/a\u001b[31m/')).toBe("--by type --match $'a\\x1b[31m'");
  });
});
