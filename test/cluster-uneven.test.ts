// Clusters whose truth is known: a generator writes N rank folders (`rank_N/ASCEND_PROFILER_OUTPUT/kernel_details.csv`
// with a profiler_info) of kernels whose durations are exact ticks, with uneven ranks (one lost a step, one has
// offset Step Ids, one has no kernel row), and keeps what every figure must be. The summaries, the per-node
// snapshots merged, and the checks against them are compared with it.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-uneven-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** type, core, base duration in ticks of 0.1 ns, kernels per step. */
const TYPES: [string, string, number, number][] = [
  ['MatMulV3', 'AI_CORE', 1205120, 3],
  ['Cast', 'AI_VECTOR_CORE', 82500, 5],
  ['FlashAttentionScore', 'MIX_AIC', 4020030, 2],
  ['hcom_allReduce_', 'COMMUNICATION', 22817600, 1],
];

interface Truth {
  count: number;
  ticks: number;
  ranks: Map<number, { steps: number[]; count: number; byType: Map<string, { count: number; ticks: number }> }>;
}

const us = (ticks: number): string => `${Math.floor(ticks / 1e4)}.${String(ticks % 1e4).padStart(4, '0')}`;

/** Writes the cluster under `dir` and returns its truth. Rank 3 lost step 3, rank 5 counts from 101, rank 7 is empty. */
function cluster(dir: string, ranks: number): Truth {
  const truth: Truth = { count: 0, ticks: 0, ranks: new Map() };
  for (let r = 0; r < ranks; r++) {
    const steps = r === 7 ? [] : r === 3 ? [1, 2, 4, 5] : r === 5 ? [101, 102, 103, 104, 105] : [1, 2, 3, 4, 5];
    const rank = { steps, count: 0, byType: new Map<string, { count: number; ticks: number }>() };
    const lines = ['Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)'];
    let start = 10_000_000_000;
    for (const s of steps) {
      for (const [type, core, base, per] of TYPES) {
        for (let i = 0; i < per; i++) {
          const d = base + ((r * 7 + s * 13 + i * 3) % 1000);
          start += 200000;
          lines.push([s, `aclnn${type}_${type}`, type, core, us(start), us(d)].join(','));
          const t = rank.byType.get(type) ?? { count: 0, ticks: 0 };
          t.count++;
          t.ticks += d;
          rank.byType.set(type, t);
          rank.count++;
          truth.ticks += d;
        }
      }
    }
    truth.count += rank.count;
    truth.ranks.set(r, rank);
    mkdirSync(join(dir, `rank_${r}`, 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    writeFileSync(join(dir, `rank_${r}`, `profiler_info_${r}.json`), JSON.stringify({ rank_id: r }));
    writeFileSync(join(dir, `rank_${r}`, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'), `${lines.join('\r\n')}\r\n`);
  }
  return truth;
}

const RUN = join(tmp, 'run');
const TRUTH = cluster(RUN, 16);
const RULES = join(tmp, 'rules.yaml');
writeFileSync(RULES, 'rules:\n  - kernels: all\n    time-vs-base: { rose-by-at-most: 1% }\n');

interface SummaryJson {
  totals: { count: number; totalUs: number };
  groups: { key: string; count: number; totalUs: number; countPerStep: number | null }[];
  perRank: { rank: string; steps: number[]; totals: { count: number; totalUs: number } }[];
}

describe('a generated cluster of uneven ranks', () => {
  it('summary: every figure is the truth, ranks in numeric order', async () => {
    const r = await kprof(['summary', RUN, '--format', 'json', '-q']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as SummaryJson;
    expect(s.totals.count).toBe(TRUTH.count);
    expect(Math.round(s.totals.totalUs * 1e4)).toBe(TRUTH.ticks);
    expect(s.perRank.map((x) => x.rank)).toEqual([...TRUTH.ranks.keys()].map(String));
    for (const pr of s.perRank) {
      const t = TRUTH.ranks.get(Number(pr.rank))!;
      expect(pr.steps).toEqual(t.steps);
      expect(pr.totals.count).toBe(t.count);
    }
    // Per step: each rank by its own steps, the empty rank adding nothing.
    for (const g of s.groups) {
      const per = TYPES.find((t) => t[0] === g.key)![3];
      expect(g.countPerStep).toBe(per * (TRUTH.ranks.size - 1));
    }
  });
});

describe('the rank with no kernel row, alone', () => {
  it('is refused as the profile is, saved or not, naming the rank, why, and the --rank that reads the others', async () => {
    const snap = join(tmp, 'whole.json');
    expect((await kprof(['summary', RUN, '--format', 'json', '-q', '-o', snap])).code).toBe(0);
    const others = '--rank 0-6,8-15';
    const from = await kprof(['summary', RUN, '--rank', '7', '--format', 'json', '-o', join(tmp, 'r7.json')]);
    expect(from.code).toBe(2);
    expect(from.stderr).toMatch(/: no kernel rows on rank 7 \(--rank\): .*rank_7.*kernel_details\.csv has a header but no data\./);
    expect(from.stderr).toContain(
      `--rank left out the input's other ranks 0–6, 8–15: ${others} reads them; read whole, the profile shows rank 7 with no kernels.`,
    );
    for (const args of [
      ['summary', snap, '--rank', '7'],
      ['diff', snap, snap, '--rank', '7'],
    ]) {
      const r = await kprof(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(
        /whole\.json: no kernel rows on rank 7 \(--rank\): .*whole\.json holds rank 7 with no kernel row \(the profile it was made from had none for it\)/,
      );
      expect(r.stderr).toMatch(/a profile of no kernel row is read by no command, saved or not/);
      expect(r.stderr).toContain(`${others} reads them; read whole, the profile shows rank 7 with no kernels.`);
      expect(r.stderr).not.toMatch(/\n./);
    }
    // Read whole, the snapshot holds the rank as the profile does: no kernels, its totals 0.
    const back = await kprof(['summary', snap, '--format', 'json', '-q']);
    const rank7 = (JSON.parse(back.stdout) as SummaryJson).perRank.find((x) => x.rank === '7')!;
    expect(rank7).toMatchObject({ steps: [], totals: { count: 0, totalUs: 0 } });
  });
});

describe('check against a base: both sides seen through the same filters', () => {
  const snap = join(tmp, 'ai-core.summary.json');
  const rules = RULES;
  const ranks = ['--rank', '0,1,2,3,4,5,6,8'];
  beforeAll(async () => {
    const made = await kprof(['summary', RUN, '--core', 'AI_CORE', ...ranks, '--format', 'json', '-q', '-o', snap]);
    expect(made.code).toBe(0);
  });

  it('a summary JSON made with --core is refused against a base of every kernel, naming both and the fix', async () => {
    const r = await kprof(['check', snap, '--base', RUN, '--rules', rules, ...ranks, '-q']);
    // Before, every kernel of the base but the AI_CORE ones counted as removed and the time rule held.
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `${RUN} (the base) holds every kernel (made with no filter), but ${snap} (the profile) holds only the kernels of core=AI_CORE`,
    );
    expect(r.stderr).toContain('pass them on the command (--core AI_CORE)');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('with the filters it was made with on the command, it is checked against the base alike', async () => {
    // A summary JSON by type keeps no core: --core was not applied to it again (it left no kernel before).
    const ok = await kprof(['check', snap, '--base', RUN, '--rules', rules, ...ranks, '--core', 'AI_CORE', '-q']);
    expect(ok.stderr).not.toContain('leaves no kernel');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('1 rule held');
    const gen = await kprof(['rules', RUN, snap, ...ranks, '--core', 'AI_CORE', '-q']);
    expect(gen.stderr).not.toContain('leaves no kernel');
    expect(gen.code).toBe(0);
  });

  it('a summary JSON made with --short-names is refused against a base read without it', async () => {
    const short = join(tmp, 'short.summary.json');
    expect((await kprof(['summary', RUN, ...ranks, '--short-names', '--format', 'json', '-q', '-o', short])).code).toBe(0);
    const r = await kprof(['check', short, '--base', RUN, '--rules', rules, ...ranks, '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${short} holds kernel names shortened by --short-names, but ${RUN} holds them whole`);
    expect((await kprof(['check', short, '--base', RUN, '--rules', rules, ...ranks, '--short-names', '-q'])).code).toBe(0);
  });

  it('two summary JSONs of other filters are refused', async () => {
    const other = join(tmp, 'steps.summary.json');
    expect((await kprof(['summary', RUN, '--core', 'AI_CORE', '--steps', '1-2', ...ranks, '--format', 'json', '-q', '-o', other])).code).toBe(0);
    const r = await kprof(['check', other, '--base', snap, '--rules', rules, ...ranks, '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('holds only the kernels of steps=1-2; core=AI_CORE');
    expect(r.stderr).toContain('regenerate one summary JSON with the options of the other');
  });
});

describe('-o into a folder of summary JSONs that the run reads', () => {
  it('is refused: the next read would find the merged ranks twice', async () => {
    const nodes = join(tmp, 'nodes');
    mkdirSync(nodes);
    for (const [node, ranks] of [
      ['a', '0,1,2,3'],
      ['b', '4,5,6,8'],
    ] as const) {
      const r = await kprof(['summary', RUN, '--rank', ranks, '--format', 'json', '-q', '-o', join(nodes, `${node}.summary.json`)]);
      expect(r.code).toBe(0);
    }
    const into = join(nodes, 'all.json');
    const merged = await kprof(['merge', nodes, '-o', into]);
    expect(merged.code).toBe(2);
    expect(merged.stderr).toContain(`${into}: in ${nodes}, a folder of summary JSONs this run reads`);
    expect(merged.stderr).toContain('nothing was written');
    const summary = await kprof(['summary', nodes, '--format', 'json', '-q', '-o', join(nodes, 'all.json.gz')]);
    expect(summary.code).toBe(2);
    // Before, the folder then held every rank twice: refused at its next read.
    expect((await kprof(['merge', nodes])).code).toBe(0);
    // Outside the folder, or a hidden name (not read as a snapshot), it is written.
    expect((await kprof(['merge', nodes, '-o', join(tmp, 'all.json')])).code).toBe(0);
    expect((await kprof(['merge', nodes, '-o', join(nodes, '.all.json')])).code).toBe(0);
    expect((await kprof(['merge', nodes])).code).toBe(0);
  });
});

describe('merge in a script', () => {
  it('takes -q as the commands that make the snapshots do', async () => {
    const a = join(tmp, 'q.summary.json');
    expect((await kprof(['summary', RUN, '--rank', '0,1', '--format', 'json', '-q', '-o', a])).code).toBe(0);
    const r = await kprof(['merge', a, '-q']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('ranks of a format without Step Id beside ranks with steps', () => {
  it('the last line says which ranks have no Step Id, not that the run has no steps', async () => {
    const mixed = join(tmp, 'mixed');
    cluster(mixed, 4);
    // Rank 2 as msprof wrote it: an op_summary in a PROF_* folder, which has no Step Id column.
    rmSync(join(mixed, 'rank_2', 'ASCEND_PROFILER_OUTPUT'), { recursive: true });
    const out = join(mixed, 'rank_2', 'PROF_000001_20260605155111872_ABCDEFGHIJKLMNOP', 'mindstudio_profiler_output');
    mkdirSync(out, { recursive: true });
    const rows = ['Device_id,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us)', '2,aclnnCast_Cast,Cast,AI_VECTOR_CORE,1000.0,8.25'];
    writeFileSync(join(out, 'op_summary_20260605155140.csv'), `${rows.join('\n')}\n`);
    const r = await kprof(['summary', mixed, '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('5 steps on ranks 0, 1, no Step Id on rank 2, 4 steps on rank 3, 4 ranks (0–3)');
    expect(r.stdout).not.toContain('no steps');
    // --per-step names that rank, not the first rank's file as having no Step Id column.
    const d = await kprof(['diff', mixed, RUN, '--per-step', '--rank', '0-3', '-q']);
    expect(d.code).toBe(2);
    expect(d.stderr).toContain(`${mixed}: --per-step divides each rank by its own number of steps, but rank 2 of the base has no Step Id`);
    expect(d.stderr).toContain('Leave it out with --rank 0,1,3, or drop --per-step.');
  });
});

describe('--steps that name none of the steps of a rank', () => {
  it('the last line says that rank kept no kernel, not that it has no Step Id', async () => {
    // Rank 5 counts its steps from 101: --steps 1-5 keeps none of its kernels; rank 7 has none at all.
    const r = await kprof(['summary', RUN, '--steps', '1-5', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('no kernel kept on rank 5');
    expect(r.stdout).toContain('no kernels on rank 7');
    expect(r.stdout).not.toContain('no Step Id');
    // Saved so, the rank is in the summary JSON with no kernel: alone, it is said to be what the filters left.
    const snap = join(tmp, 'steps-1-5.json');
    expect((await kprof(['summary', RUN, '--steps', '1-5', '--format', 'json', '-q', '-o', snap])).code).toBe(0);
    const alone = await kprof(['summary', snap, '--steps', '1-5', '--rank', '5']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toBe(
      `kprof: --steps 1-5: ${snap} holds no kernel in any step: it was made with steps=1-5, which left out every kernel of rank 5. ` +
        'Pass the profile it was made from, or a summary JSON made with other filters.\n',
    );
  });
});

describe('--rank A-B: leaving one rank of a large run out', () => {
  it('a range names the ranks in it, as the list of them does; the messages suggest it', async () => {
    // Rank 7 has no kernel: per step, it cannot be divided by its steps.
    const refused = await kprof(['diff', RUN, RUN, '--per-step', '-q']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Leave it out with --rank 0-6,8-15, or drop --per-step.');
    const list = await kprof(['diff', RUN, RUN, '--per-step', '--format', 'json', '-q', '--rank', '0,1,2,3,4,5,6,8,9,10,11,12,13,14,15']);
    expect(list.code).toBe(0);
    for (const rank of ['0-6,8-15', '0\u20136, 8\u201315', '0-6,8-15,3']) {
      const r = await kprof(['diff', RUN, RUN, '--per-step', '--format', 'json', '-q', '--rank', rank]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(list.stdout);
    }
    const gate = await kprof(['check', RUN, '--rules', RULES, '--base', RUN, '-q']);
    expect(gate.code).toBe(2);
    expect(gate.stderr).toContain('leave it out with --rank 0-6,8-15.');
  });

  it('a range the wrong way round, or of a billion ranks, is a usage error', async () => {
    const back = await kprof(['summary', RUN, '--rank', '9-3', '-q']);
    expect(back.code).toBe(2);
    expect(back.stderr).toContain('found "9-3". Write the range the other way round');
    const huge = await kprof(['summary', RUN, '--rank', '0-999999999', '-q']);
    expect(huge.code).toBe(2);
    expect(huge.stderr).toContain('of at most 65,536 ranks');
    const past = await kprof(['summary', RUN, '--rank', '14-17', '-q']);
    expect(past.code).toBe(2);
    expect(past.stderr).toContain('ranks 16, 17 not found');
  });
});

describe('step time of many ranks', () => {
  it('ranks without spans for one reason are one line per side, not one per rank', async () => {
    const snap = join(tmp, 'no-step-time.summary.json');
    expect((await kprof(['summary', RUN, '--format', 'json', '-q', '-o', snap])).code).toBe(0);
    const d = await kprof(['diff', snap, snap, '--step-time', '--rewrites', 'off', '-q']);
    expect(d.code).toBe(0);
    const lines = d.stdout.split('\n').filter((l) => l.includes('no step spans'));
    expect(lines).toEqual([
      'base ranks 0–15: no step spans: a summary JSON made without --step-time.',
      'PR ranks 0–15: no step spans: a summary JSON made without --step-time.',
    ]);
    const s = await kprof(['summary', snap, '--step-time', '-q']);
    expect(s.stdout.split('\n').filter((l) => l.includes('no step spans'))).toEqual([
      'ranks 0–15: no step spans: a summary JSON made without --step-time.',
    ]);
  });
});

describe('a change on many ranks', () => {
  it('ranks of one change are one item of the list, not one each', async () => {
    // The PR: every even rank from 8 lost its Casts of step 2.
    const pr = join(tmp, 'pr-many');
    cluster(pr, 16);
    for (const r of [8, 10, 12, 14]) {
      const f = join(pr, `rank_${r}`, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv');
      writeFileSync(
        f,
        `${readFileSync(f, 'utf8')
          .split('\r\n')
          .filter((l) => !l.startsWith('2,aclnnCast'))
          .join('\r\n')}`,
      );
    }
    const r = await kprof(['diff', RUN, pr, '--rank', '0-6,8-15', '--rewrites', 'off', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  Cast: same on 11 of 15 ranks; ranks 8, 10, 12, 14 -5 (-20.0%): 25 → 20\n');
  });
});

describe('a summary JSON edited to name a rank twice', () => {
  it('a rank number with leading zeros ("00" beside "0") is refused, not merged as one more rank', async () => {
    const folder = join(tmp, 'zeros');
    mkdirSync(folder);
    const a = join(folder, 'a.summary.json');
    expect((await kprof(['summary', RUN, '--rank', '0', '--format', 'json', '-q', '-o', a])).code).toBe(0);
    const s = JSON.parse(readFileSync(a, 'utf8')) as { ranks: string[]; perRank: { rank: string }[] };
    s.ranks = ['00'];
    s.perRank[0]!.rank = '00';
    const b = join(folder, 'b.summary.json');
    writeFileSync(b, JSON.stringify(s));
    const r = await kprof(['merge', folder]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${b}: not a kprof summary JSON: rank "00" is not a rank id as kprof writes it`);
  });
});
