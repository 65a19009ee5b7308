// The Fusion rewrites section in uneven cases, end to end on small kernel_details.csv pairs written here: a fused
// kernel on a stream the other side does not run (placed by start time, or said to be unknown), a representative
// step that stands for few of the steps (noted in every format), step counts that differ (every kernel accounted
// for), and a sequence rule against a summary JSON base.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { DiffJson, DiffRewritesJson } from '../src/model/schema.js';
import { kprof } from './helpers.js';
import { countsOf } from './rewrites-rows.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-rw-uneven-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** One kernel: its stream, type and duration (µs); `at`: its start in µs after the step's start (else one after another). */
interface K {
  stream: string;
  type: string;
  dur: number;
  at?: number;
}

const HEADER = 'Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';

/** A kernel_details.csv of the given steps (`kernels(i)` for the i-th), written under tmp/name; returns the folder. */
function profile(name: string, stepIds: number[], kernels: (i: number) => K[]): string {
  const lines = [HEADER];
  let t = 1000;
  stepIds.forEach((id, i) => {
    const step = t;
    for (const k of kernels(i)) {
      const start = k.at === undefined ? t : step + k.at;
      lines.push([id, k.stream, `${k.type}_kernel`, k.type, 'AI_CORE', start.toFixed(3), k.dur.toFixed(3), 0, 8].join(','));
      t = Math.max(t, start + k.dur + 1);
    }
    t += 100;
  });
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kernel_details.csv'), `${lines.join('\n')}\n`);
  return dir;
}

const k = (stream: string, type: string, dur: number, at?: number): K => (at === undefined ? { stream, type, dur } : { stream, type, dur, at });
const times = <T>(n: number, make: () => T[]): T[] => Array.from({ length: n }, make).flat();
/** The base of most cases: A · B · C · D · E three times per step, on stream 2. */
const BASE = (): K[] => times(3, () => [k('2', 'A', 10), k('2', 'B', 5), k('2', 'C', 6), k('2', 'D', 7), k('2', 'E', 3)]);

async function rewrites(base: string, pr: string): Promise<DiffRewritesJson> {
  const r = await kprof(['diff', base, pr, '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as DiffJson).rewrites!;
}

describe('a fused kernel on a stream the other side does not run', () => {
  test('the PR runs the fused kernel on a new stream: the rewrite is the chain → the kernel, placed by start time', async () => {
    const base = profile('moved/base', [0, 1, 2, 3], BASE);
    const pr = profile('moved/pr', [0, 1, 2, 3], () => times(3, () => [k('2', 'A', 10), k('5', 'BC', 8), k('2', 'D', 7), k('2', 'E', 3)]));
    const s = await rewrites(base, pr);
    expect(s.rewrites.map((w) => [w.removed, w.added, w.chains, w.moved, w.unplaced])).toEqual([
      [['B', 'C'], ['BC'], 12, { side: 'pr', streams: ['5'] }, []],
    ]);
    // Its time is the fused kernel's, not nothing: 11 µs → 8 µs.
    expect([s.rewrites[0]!.base!.medianUs, s.rewrites[0]!.pr!.medianUs]).toEqual([11, 8]);
    expect(countsOf(s.conservation!)).toEqual({
      removed: 24,
      added: 12,
      removedAccounted: 24,
      addedAccounted: 12,
      removedUnpaired: 0,
      addedUnpaired: 0,
      rest: [],
    });
    const text = await kprof(['diff', base, pr]);
    expect(text.stdout).toContain("note   The PR's part ran on stream 5, which only the PR runs");
    expect(text.stdout).toContain(
      'rank (no id) stream 5: on the PR only (4 steps), not compared (but its kernels in the place of rewrite #1, by start time)',
    );
    const md = await kprof(['diff', base, pr, '--format', 'markdown']);
    expect(md.stdout).toContain('| 1 | `B` · `C` → `BC` (stream `5`) |');
  });

  test('the base ran the chain on a stream of its own, the PR the fused kernel in its place: placed the other way', async () => {
    const base = profile('moved-back/base', [0, 1, 2, 3], () =>
      times(3, () => [k('2', 'A', 10), k('7', 'B', 5), k('7', 'C', 6), k('2', 'D', 7), k('2', 'E', 3)]),
    );
    const pr = profile('moved-back/pr', [0, 1, 2, 3], () => times(3, () => [k('2', 'A', 10), k('2', 'BC', 8), k('2', 'D', 7), k('2', 'E', 3)]));
    const s = await rewrites(base, pr);
    expect(s.rewrites.map((w) => [w.removed, w.added, w.chains, w.moved])).toEqual([[['B', 'C'], ['BC'], 12, { side: 'base', streams: ['7'] }]]);
    expect(s.conservation!.rest).toEqual([]);
  });

  test('the new stream runs its kernels elsewhere in the step: what replaced the chain is not claimed, and no saving', async () => {
    const base = profile('unplaced/base', [0, 1, 2, 3], BASE);
    // Stream 5 runs its three kernels after every kernel of stream 2 of the step.
    const pr = profile('unplaced/pr', [0, 1, 2, 3], () => [
      ...times(3, () => [k('2', 'A', 10), k('2', 'D', 7), k('2', 'E', 3)]),
      ...times(3, () => [k('5', 'BC', 8)]),
    ]);
    const s = await rewrites(base, pr);
    const w = s.rewrites[0]!;
    expect([w.removed, w.added, w.moved, w.unplaced]).toEqual([['B', 'C'], [], null, ['5']]);
    expect([w.saving.significant, w.saving.reason, w.saving.totalUs]).toEqual([false, 'unplaced', 0]);
    const text = await kprof(['diff', base, pr]);
    expect(text.stdout).toContain('saved  ~ (not known: a stream of the PR only may run it) per chain × 12 chains');
    expect(text.stdout).toContain("what ran in the chain's place there cannot be told from the start times, so no saving is given");
  });
});

describe('a representative step that stands for few steps', () => {
  // Each step runs one kernel of its own (V0 … V9): ten step shapes, each the shape of one step.
  const base = profile('coverage/base', [...Array(10).keys()], (i) => [
    ...times(2, () => [k('2', 'A', 10), k('2', 'B', 5), k('2', 'C', 6), k('2', 'D', 7)]),
    k('2', `V${i}`, 3),
  ]);
  const pr = profile('coverage/pr', [...Array(10).keys()], (i) => [
    ...times(2, () => [k('2', 'A', 10), k('2', 'BC', 8), k('2', 'D', 7)]),
    k('2', `V${i}`, 3),
  ]);
  const NOTE = 'the most frequent step of each side stands for only 1 of its 10 steps on rank (no id) stream 2 (10 different kernel sequences)';

  test('noted in JSON, the table, Markdown and HTML, under the heading', async () => {
    const s = await rewrites(base, pr);
    expect(s.notes).toEqual([{ kind: 'low-coverage', side: 'both', lanes: 1, rank: '-', stream: '2', repSteps: 1, steps: 10, shapes: 10 }]);
    const text = (await kprof(['diff', base, pr])).stdout.split('\n');
    const head = text.findIndex((l) => l.startsWith('Fusion rewrites ('));
    expect(text[head + 1]).toBe(
      `Note: ${NOTE}: the rewrites are read from that step (and from the most frequent step of each other kind of step that pairs with one of the other side), and a change of the other steps of its kind shows only in the line of what is accounted for (chains are counted in every step both sides profiled).`,
    );
    const md = (await kprof(['diff', base, pr, '--format', 'markdown'])).stdout;
    expect(md).toMatch(
      new RegExp(
        `\\*\\*Fusion rewrites\\*\\* \\(.*\\n\\n\\*\\*Note:\\*\\* ${NOTE.replace(/[()]/g, '\\$&')
          .replace(/-/g, '`-`')
          .replace(/stream 2/, 'stream `2`')}`,
      ),
    );
    const html = (await kprof(['diff', base, pr, '--format', 'html'])).stdout;
    expect(html).toMatch(/<p class="note rw-coverage">Note: the most frequent step of each side stands for only 1 of its 10 steps/);
  });

  test('not noted when the representative step has half of the steps or more', async () => {
    const even = profile('coverage-half/pr', [...Array(10).keys()], (i) => [
      ...times(2, () => [k('2', 'A', 10), k('2', 'BC', 8), k('2', 'D', 7)]),
      k('2', i < 5 ? 'V' : `V${i}`, 3),
    ]);
    const s = await rewrites(base, even);
    expect(s.notes).toEqual([{ kind: 'low-coverage', side: 'base', lanes: 1, rank: '-', stream: '2', repSteps: 1, steps: 10, shapes: 10 }]);
  });
});

describe('uneven steps: every kernel accounted for', () => {
  const FUSED = (): K[] => times(3, () => [k('2', 'A', 10), k('2', 'BC', 8), k('2', 'D', 7), k('2', 'E', 3)]);

  test('the base profiled a step more: its kernels are counted apart, and no chain of it counts as replaced', async () => {
    const base = profile('steps/base', [0, 1, 2, 3], BASE);
    const pr = profile('steps/pr', [0, 1, 2], FUSED);
    const s = await rewrites(base, pr);
    expect(s.rewrites.map((w) => [w.removed, w.added, w.chains, w.removedChains])).toEqual([[['B', 'C'], ['BC'], 9, { base: 9, pr: 0 }]]);
    expect(countsOf(s.conservation!)).toEqual({
      removed: 33,
      added: 9,
      removedAccounted: 18,
      addedAccounted: 9,
      removedUnpaired: 15,
      addedUnpaired: 0,
      rest: [],
    });
    expect(s.notes).toEqual([{ kind: 'unpaired-steps', side: 'base', steps: 1, kernels: 15, ranks: ['-'], stepIds: [3] }]);
    const text = (await kprof(['diff', base, pr])).stdout;
    expect(text).toContain(
      'Accounted for: 18 of 33 removed and 9 of 9 added kernels are in rewrites; 15 removed ran in steps only the base profiled.',
    );
    expect(text).toContain(
      'Note: the base profiled 1 step that the PR did not (step 3 of rank (no id); 15 compute kernels): it is compared with nothing',
    );
    expect(text).not.toContain('Not accounted for');
  });

  test('a chain removed with nothing in its place, the PR a step longer: the chains are those of the steps both ran', async () => {
    const base = profile('steps-del/base', [0, 1, 2], BASE);
    const pr = profile('steps-del/pr', [0, 1, 2, 3], () => times(3, () => [k('2', 'A', 10), k('2', 'D', 7), k('2', 'E', 3)]));
    const s = await rewrites(base, pr);
    expect(s.rewrites.map((w) => [w.removed, w.added, w.chains])).toEqual([[['B', 'C'], [], 9]]);
    expect(countsOf(s.conservation!)).toEqual({
      removed: 18,
      added: 9,
      removedAccounted: 18,
      addedAccounted: 0,
      removedUnpaired: 0,
      addedUnpaired: 9,
      rest: [],
    });
  });

  test("no Step Id in common and a step more: compared in order, the step past the other side's last with nothing, and said", async () => {
    const base = profile('steps-apart/base', [50, 51, 52, 53], BASE);
    const pr = profile('steps-apart/pr', [10, 11, 12], FUSED);
    const s = await rewrites(base, pr);
    expect(s.notes).toEqual([{ kind: 'no-common-steps', rank: '-', base: [50, 51, 52, 53], pr: [10, 11, 12] }]);
    // As with Step Ids in common (the first case): step 53 is compared with nothing, its kernels counted apart.
    expect(s.rewrites.map((w) => [w.removed, w.added, w.chains, w.perStep])).toEqual([[['B', 'C'], ['BC'], 9, { min: 3, max: 3 }]]);
    expect(countsOf(s.conservation!)).toMatchObject({ removedAccounted: 18, addedAccounted: 9, removedUnpaired: 15, rest: [] });
    const text = (await kprof(['diff', base, pr])).stdout;
    expect(text).toContain(
      "Note: rank (no id): the base's steps 50-53 and the PR's 10-12 have no Step Id in common and differ in number (4 against 3), so they are compared in order, the first with the first, and the base's last step (53) is compared with nothing: no chain in it counts as replaced, and its kernels are counted apart in the line above.",
    );
    expect(text).toContain('15 removed ran in steps only the base profiled');
  });

  test('steps that differ in content: the kernel no rewrite explains is listed with its counts', async () => {
    const base = profile('content/base', [0, 1, 2, 3], BASE);
    const pr = profile('content/pr', [0, 1, 2, 3], (i) => [...FUSED(), ...(i === 2 ? [k('2', 'X', 4)] : [])]);
    const s = await rewrites(base, pr);
    expect(countsOf(s.conservation!)).toEqual({
      removed: 24,
      added: 13,
      removedAccounted: 24,
      addedAccounted: 12,
      removedUnpaired: 0,
      addedUnpaired: 0,
      rest: [{ token: 'X', base: 0, pr: 1, observed: 1, explained: 0, unpaired: 0 }],
    });
  });
});
