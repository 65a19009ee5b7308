// A rank whose two sides share no Step Id is compared as it is: its steps in order, the first with the first. When
// one side profiled more of them, the steps past the other side's last are compared with nothing, as a step whose
// Step Id the other side lacks: they count in no chain, no "per step" and no saving (generator's truth:
// test/decodeGen.ts, the PR numbering its steps from 101). Before, each was a step of its own, compared with an
// empty step: `0-8 per step` where every step compared replaced 8, and the saving took in the extra steps' kernels.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { findRewrites, type Rewrite } from '../src/analysis/rewrites/rewrites.js';
import { CHAIN, type DecodeSpec, decodePair, FUSED, fusedChainTicks, writeDecodeCsv } from './decodeGen.js';
import { kprof } from './helpers.js';

const HEADER = 'Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';

/** Base steps 1..n[0], PR steps 101..100+n[1]: no Step Id in common. */
function apart(n: [number, number], more: Partial<DecodeSpec> = {}): DecodeSpec {
  return {
    layers: 8,
    dense: 1,
    mtp: false,
    dup: false,
    ranks: 2,
    steps: Math.max(n[0], n[1]),
    missing: (side, _rank, step) => step >= n[side],
    stepId: (side, step) => (side === 0 ? step + 1 : step + 101),
    ...more,
  };
}

/** The rewrite's measured change in the steps both sides profiled (the PR's fused kernels less the chains they replaced). */
function chainTicks(pair: ReturnType<typeof decodePair>, spec: DecodeSpec): number {
  const t = fusedChainTicks(pair, spec);
  return t.pr - t.base;
}

function main(rewrites: Rewrite[]): Rewrite {
  return rewrites.find((w) => w.added.length === 1 && w.added[0] === FUSED)!;
}

describe.each([
  ['the base profiled 10 steps, the PR 8', [10, 8]],
  ['the base profiled 8 steps, the PR 10', [8, 10]],
] as const)('2 ranks, 8 layers, no Step Id in common: %s', (_, n) => {
  const spec = apart([n[0], n[1]]);
  const pair = decodePair(spec);
  const r = findRewrites(pair.base, pair.pr);
  const w = main(r.rewrites);

  test('the chains, per step and ranks are those of the 8 steps each rank compared', () => {
    expect([w.removed, w.chains, w.perStep, w.ranks]).toEqual([CHAIN, 2 * 8 * 8, { min: 8, max: 8 }, ['0', '1']]);
    expect([pair.truth.chains, pair.truth.perStep]).toEqual([2 * 8 * 8, { min: 8, max: 8 }]);
  });

  test('the saving is the measured change of the steps compared, not of the 2 extra steps of each rank', () => {
    expect(w.totalSavingTicks).toBe(chainTicks(pair, spec));
  });

  test('the extra steps are counted apart in the conservation line, and the note names them', () => {
    const c = r.conservation;
    expect([c.rest, c.removedAccounted + c.removedUnpaired, c.addedAccounted + c.addedUnpaired]).toEqual([[], c.removed, c.added]);
    const longer = n[0] > n[1] ? 'base' : 'pr';
    expect(longer === 'base' ? c.removedUnpaired : c.addedUnpaired).toBeGreaterThan(0);
    const ids = (side: 0 | 1) => [...Array(n[side]).keys()].map((s) => spec.stepId!(side, s));
    expect(r.notes.filter((x) => x.kind === 'no-common-steps')).toEqual(
      ['0', '1'].map((rank) => ({ kind: 'no-common-steps', rank, base: ids(0), pr: ids(1) })),
    );
    // The steps left out are the no-common-steps note's to say: no note of Step Ids the other side lacks besides.
    expect(r.notes.filter((x) => x.kind === 'unpaired-steps')).toEqual([]);
  });
});

describe('kprof diff, the base 10 steps and the PR 8 on each of 2 ranks, no Step Id in common: every format says the same', () => {
  const spec = apart([10, 8]);
  const pair = decodePair(spec);
  const dir = mkdtempSync(join(tmpdir(), 'kprof-apart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeDecodeCsv(dir, HEADER, pair.steps, spec.stepId);
  const args = [join(dir, 'base'), join(dir, 'pr')];
  const note = (code: (x: string) => string, rank: number) =>
    `rank ${code(`node_${rank}_ascend_pt`)}: the base's steps 1-10 and the PR's 101-108 have no Step Id in common and differ in number (10 against 8), so they are ` +
    "compared in order, the first with the first, and the base's last 2 steps (9-10) are compared with nothing: no chain in them counts as replaced, and their kernels are counted apart in the line above";

  test('table, Markdown, HTML and JSON: 128 chains, 8 per step, the saving of the steps compared, and the note', async () => {
    const json = await kprof(['diff', ...args, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const rw = JSON.parse(json.stdout).rewrites;
    const w = rw.rewrites[0];
    expect([w.removed, w.added, w.chains, w.perStep, w.undone]).toEqual([CHAIN, [FUSED], 128, { min: 8, max: 8 }, { ranks: [], chains: 0 }]);
    expect(rw.notes.filter((n: { kind: string }) => n.kind === 'unpaired-steps')).toEqual([]);
    const saved = `measured over 128 chains`;
    const table = (await kprof(['diff', ...args])).stdout;
    expect(table).toMatch(/#1 {2}13 → 1 · 8 per step · layers 0-7 of 0-7 · ranks /);
    expect(table).toContain(saved);
    for (const rank of [0, 1]) expect(table).toContain(`Note: ${note((x) => x, rank)}.`);
    const md = (await kprof(['diff', ...args, '--format', 'markdown'])).stdout;
    expect(md).toMatch(/\| 1 \| 13 kernels → `MlaPrologV3` \| 8 per step \| layers 0-7 of 0-7 \| .* \| 128 \| /);
    for (const rank of [0, 1]) expect(md).toContain(`- Note: ${note((x) => `\`${x}\``, rank)}.`);
    const html = (await kprof(['diff', ...args, '--format', 'html'])).stdout;
    expect(html).toContain('data-min="8" data-max="8" class="rw-per-step"><dt>how often</dt><dd>8 per step</dd>');
    expect(html).toContain('data-chains="128"');
    expect(html).toContain(`data-total="${w.saving.totalUs}"`);
    for (const rank of [0, 1]) expect(html).toContain(note((x) => `<code>${x}</code>`, rank).replace(/'/g, '&#39;'));
  });
});

test("a rank of one step on the base and two on the PR: the base's step, the PR's last step compared with nothing", async () => {
  const spec = apart([1, 2], { ranks: 1 });
  const pair = decodePair(spec);
  const dir = mkdtempSync(join(tmpdir(), 'kprof-apart-one-'));
  try {
    writeDecodeCsv(dir, HEADER, pair.steps, spec.stepId);
    const r = await kprof(['diff', join(dir, 'base'), join(dir, 'pr')]);
    expect(r.stdout).toContain('#1  13 → 1 · 8 per step · layers 0-7 of 0-7 · rank (no id)\n');
    expect(r.stdout).toContain(
      "Note: rank (no id): the base's step 1 and the PR's 101-102 have no Step Id in common and differ in number (1 against 2), so they are compared in order, the first with the first, and the PR's last step (102) is compared with nothing: no chain in it counts as replaced, and its kernels are counted apart in the line above.",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('property: ranks compared as they are, of any step counts and partial fusion: chains, per step and saving are the steps compared', () => {
  fc.assert(
    fc.property(
      fc.record({
        base: fc.integer({ min: 1, max: 6 }),
        pr: fc.integer({ min: 1, max: 6 }),
        ranks: fc.integer({ min: 1, max: 3 }),
        layers: fc.integer({ min: 2, max: 10 }),
        offStep: fc.integer({ min: 0, max: 6 }),
        offLayer: fc.integer({ min: 0, max: 9 }),
      }),
      (s) => {
        const spec = apart([s.base, s.pr], {
          ranks: s.ranks,
          layers: s.layers,
          // One step of rank 0 keeps one layer unfused (when both sides profiled it, per step is a range).
          fused: (rank, step, layer) => !(rank === 0 && step === s.offStep && layer === s.offLayer % s.layers),
        });
        const pair = decodePair(spec);
        const r = findRewrites(pair.base, pair.pr);
        const w = main(r.rewrites);
        const compared = Math.min(s.base, s.pr);
        expect(w.chains).toBe(pair.truth.chains);
        expect(w.perStep).toEqual(pair.truth.perStep);
        expect(w.perStep.min * compared * s.ranks).toBeLessThanOrEqual(w.chains);
        expect(w.chains).toBeLessThanOrEqual(w.perStep.max * compared * s.ranks);
        expect(w.totalSavingTicks).toBe(chainTicks(pair, spec));
        expect(r.conservation.rest).toEqual([]);
      },
    ),
    { numRuns: 60, seed: 2407 },
  );
});
