// A rewrite's `N-M per step` is taken over the steps of the ranks where it replaced chains and of those where the PR
// ran the chain more often than the base (their steps undo as many of the others': `chains` is the sum over every
// rank). The second kind is not among the rewrite's ranks, so the range says whose steps it covers and how many
// chains they undid; min × those steps ≤ chains ≤ max × those steps (generator's truth: test/decodeGen.ts, the base
// fusing some layers already). Before, `0-8 per step · rank 0` read as if a step of rank 0 had replaced none.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { findRewrites, type Rewrite } from '../src/analysis/rewrites/rewrites.js';
import { CHAIN, type DecodeSpec, decodePair, FUSED, writeDecodeCsv } from './decodeGen.js';
import { kprof } from './helpers.js';

/** The generator's small decode model: one dense layer, no MTP layer, no duplicated chain. */
const SMALL = { dense: 1, mtp: false, dup: false } as const;

function main(rewrites: Rewrite[]): Rewrite | undefined {
  return rewrites.find((w) => w.removed.join() === CHAIN.join() && w.added.join() === FUSED);
}

const HEADER = 'Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';

describe('8 layers, 2 ranks × 10 steps: rank 0 fused every layer, rank 1 unfused layer 0, which its base had fused', () => {
  const spec: DecodeSpec = {
    ...SMALL,
    layers: 8,
    ranks: 2,
    steps: 10,
    fused: (rank) => rank === 0,
    baseFused: (rank, _step, layer) => rank === 1 && layer === 0,
  };
  const pair = decodePair(spec);
  const dir = mkdtempSync(join(tmpdir(), 'kprof-undone-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeDecodeCsv(dir, HEADER, pair.steps);
  const args = [join(dir, 'base'), join(dir, 'pr')];
  /** The range as each format writes it, rank names in `code`. */
  const range = (code: (x: string) => string): string =>
    `0-8 per step over ranks ${code('node_0_ascend_pt')}, ${code('node_1_ascend_pt')} (rank ${code('node_1_ascend_pt')} undid 10 chains: the PR ran the chain more often there)`;
  const RANGE = range((x) => x);

  test('the engine: 80 chains on rank 0 less the 10 of rank 1; the range covers both ranks, and says so', () => {
    const r = findRewrites(pair.base, pair.pr);
    const w = main(r.rewrites)!;
    expect([w.chains, w.ranks, w.undone, w.perStep]).toEqual([70, ['0'], { ranks: ['1'], chains: 10 }, { min: 0, max: 8 }]);
    expect(w.perStep.min * 20).toBeLessThanOrEqual(w.chains);
    expect(w.chains).toBeLessThanOrEqual(w.perStep.max * 20);
  });

  test('table, Markdown, HTML and JSON carry the same figures', async () => {
    const table = await kprof(['diff', ...args]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(`#1  13 → 1 · ${RANGE} · layers 0-7 of 0-7 · rank node_0_ascend_pt\n`);
    expect(table.stdout).toContain('measured over 70 chains');
    const md = (await kprof(['diff', ...args, '--format', 'markdown'])).stdout;
    const mdRange = range((x) => `\`${x}\``);
    expect(md).toContain(`| 1 | 13 kernels → \`MlaPrologV3\` | ${mdRange} | layers 0-7 of 0-7 | \`node_0_ascend_pt\` | `);
    expect(md).toMatch(/\| 70 \| -[\d.]+ ms \|\n/);
    expect(md).toContain(`**#1** 13 → 1 · ${mdRange} · layers 0-7 of 0-7 · rank \`node_0_ascend_pt\``);
    const html = (await kprof(['diff', ...args, '--format', 'html'])).stdout;
    expect(html).toContain(`data-min="0" data-max="8" class="rw-per-step"><dt>how often</dt><dd>${range((x) => `<code>${x}</code>`)}</dd>`);
    expect(html).toContain('data-chains="70"');
    // The rules written from the diff say it in their comment.
    const rules = await kprof(['rules', ...args]);
    expect(rules.code, rules.stderr).toBe(0);
    expect(rules.stdout).toContain(
      '0 to 8 per step over ranks node_0_ascend_pt, node_1_ascend_pt, replaced on rank node_0_ascend_pt (70 chains; rank node_1_ascend_pt undid 10: the PR ran the chain more often there);',
    );
    const json = JSON.parse((await kprof(['diff', ...args, '--format', 'json'])).stdout).rewrites.rewrites[0];
    expect([json.chains, json.perStep, json.ranks, json.undone]).toEqual([
      70,
      { min: 0, max: 8 },
      ['node_0_ascend_pt'],
      { ranks: ['node_1_ascend_pt'], chains: 10 },
    ]);
  });
});

test('property: the range covers the steps of the ranks listed and of those that undid chains, and min × steps ≤ chains ≤ max × steps', () => {
  fc.assert(
    fc.property(
      fc.record({
        layers: fc.integer({ min: 2, max: 8 }),
        steps: fc.integer({ min: 1, max: 4 }),
        ranks: fc.integer({ min: 1, max: 4 }),
        // Per rank: the layers (a bit mask) the PR fused and those the base fused already, and a step that differs.
        pr: fc.array(fc.nat(255), { minLength: 4, maxLength: 4 }),
        base: fc.array(fc.nat(255), { minLength: 4, maxLength: 4 }),
        odd: fc.array(fc.nat(7), { minLength: 4, maxLength: 4 }),
      }),
      (s) => {
        const on = (mask: number, layer: number) => ((mask >> layer) & 1) === 1;
        // Rank 0 fuses every layer the base did not, in every step: the rewrite is found.
        const prFused = (rank: number, step: number, layer: number) =>
          rank === 0 ? true : on(step === s.odd[rank]! % s.steps ? s.pr[rank]! ^ 1 : s.pr[rank]!, layer);
        const baseFused = (rank: number, _step: number, layer: number) => rank !== 0 && on(s.base[rank]!, layer);
        const spec: DecodeSpec = { ...SMALL, layers: s.layers, ranks: s.ranks, steps: s.steps, fused: prFused, baseFused };
        const pair = decodePair(spec);
        const w = main(findRewrites(pair.base, pair.pr).rewrites);
        // The truth: a step replaced (PR's fused layers) − (base's fused layers); a rank's steps sum.
        const perStep = (rank: number, step: number) =>
          [...Array(s.layers).keys()].filter((l) => prFused(rank, step, l)).length -
          [...Array(s.layers).keys()].filter((l) => baseFused(rank, step, l)).length;
        const sums = [...Array(s.ranks).keys()].map((rank) => [...Array(s.steps).keys()].reduce((a, step) => a + perStep(rank, step), 0));
        const chains = Math.max(
          0,
          sums.reduce((a, b) => a + b, 0),
        );
        expect(w?.chains ?? 0).toBe(chains);
        if (w === undefined) return;
        const ranks = sums.flatMap((v, r) => (v > 0 ? [String(r)] : []));
        const undone = sums.flatMap((v, r) => (v < 0 ? [String(r)] : []));
        expect([w.ranks, w.undone]).toEqual([ranks, { ranks: undone, chains: sums.filter((v) => v < 0).reduce((a, b) => a - b, 0) }]);
        const covered = sums.flatMap((v, r) => (v !== 0 ? [...Array(s.steps).keys()].map((step) => perStep(r, step)) : []));
        expect(w.perStep).toEqual({ min: Math.max(0, Math.min(...covered)), max: Math.max(0, ...covered) });
        expect(w.perStep.min * covered.length).toBeLessThanOrEqual(w.chains);
        expect(w.chains).toBeLessThanOrEqual(w.perStep.max * covered.length);
        // Without a rank that undid chains, the range covers the ranks listed alone.
        if (undone.length === 0) expect(covered.length).toBe(ranks.length * s.steps);
      },
    ),
    { numRuns: 80, seed: 2408 },
  );
});
