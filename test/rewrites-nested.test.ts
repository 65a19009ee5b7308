// Rewrites inside one another: the PR fuses the whole MLA-prolog chain into MlaPrologV3 in some layers and only its
// middle (INNER: InterleaveRope · InterleaveRope · Cast · Cast) into InterleaveRopeCast in others (generator:
// test/decodeGen.ts, `inner`). Each rewrite's saving is the time of exactly the chains it replaced: the base's
// chains of the layers it fused, less the PR's fused kernels there. Before, the longer rewrite took the base's time
// of every layer's chain, the shorter one's included, so the shorter one's saving was its fused kernel's time alone
// (a loss) and the longer one's too large by as much; the two summed right.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { findRewrites, type Rewrite, type Rewrites } from '../src/analysis/rewrites/rewrites.js';
import { timeText } from '../src/report/diff/rewrites.js';
import { CHAIN, type DecodeSpec, decodePair, FUSED, INNER, INNER_FUSED, writeDecodeCsv } from './decodeGen.js';
import { kprof } from './helpers.js';

const HEADER = 'Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';

/**
 * The truth, layer by layer in the steps both sides profiled: per rewrite, Σ of the PR's fused kernel less the base's
 * kernels it replaced in that layer (the l-th chain of the base's step is layer l's). A layer the PR left as it was
 * runs the rewrite's chain on both sides: its change is neither rewrite's (it is outside them).
 */
function truth(pair: ReturnType<typeof decodePair>, spec: DecodeSpec): { whole: number; inner: number; chains: [number, number] } {
  const out = { whole: 0, inner: 0, chains: [0, 0] as [number, number] };
  pair.steps[0].forEach((perStep, rank) =>
    perStep.forEach((base, step) => {
      if (spec.missing?.(0, rank, step) === true || spec.missing?.(1, rank, step) === true) return;
      const pr = pair.steps[1][rank]![step]!;
      const bd = pair.durations[0][rank]![step]!;
      const pd = pair.durations[1][rank]![step]!;
      const chains: number[] = [];
      for (let i = 0; i < base.length; i++) if (CHAIN.every((k, j) => base[i + j] === k)) chains.push(i);
      const whole = pr.flatMap((k, i) => (k === FUSED ? [i] : []));
      const inner = pr.flatMap((k, i) => (k === INNER_FUSED ? [i] : []));
      const sum = (ds: number[], from: number, n: number) => ds.slice(from, from + n).reduce((a, d) => a + d, 0);
      for (let l = 0; l < spec.layers; l++) {
        if (spec.fused?.(rank, step, l) ?? true) {
          out.whole += pd[whole.shift()!]! - sum(bd, chains[l]!, CHAIN.length);
          out.chains[0]++;
        } else if (spec.inner?.(rank, step, l) === true) {
          out.inner += pd[inner.shift()!]! - sum(bd, chains[l]! + 6, INNER.length);
          out.chains[1]++;
        }
      }
    }),
  );
  return out;
}

/** The generator's small decode model: one dense layer, no MTP layer, no duplicated chain. */
const SMALL = { dense: 1, mtp: false, dup: false } as const;

function of(r: Rewrites, added: string): Rewrite | undefined {
  return r.rewrites.find((w) => w.added.length === 1 && w.added[0] === added);
}

function adds(r: Rewrites): void {
  const t = r.conservation.time;
  expect(t.rewrites).toBe(r.rewrites.reduce((a, x) => a + x.totalSavingTicks, 0));
  expect(t.rewrites + t.outside + t.unpaired).toBeCloseTo(t.named, 3);
}

describe('8 layers, 2 ranks × 4 steps: odd layers fused whole, even layers their middle only', () => {
  const spec: DecodeSpec = {
    ...SMALL,
    layers: 8,
    ranks: 2,
    steps: 4,
    fixed: true,
    fused: (_r, _s, l) => l % 2 === 1,
    inner: (_r, _s, l) => l % 2 === 0,
  };
  const pair = decodePair(spec);
  const r = findRewrites(pair.base, pair.pr);
  test('each rewrite saves the time of its own chains', () => {
    const t = truth(pair, spec);
    const whole = of(r, FUSED)!;
    const inner = of(r, INNER_FUSED)!;
    expect([whole.removed, whole.chains, inner.removed, inner.chains]).toEqual([CHAIN, 32, INNER, 32]);
    expect({ whole: whole.totalSavingTicks, inner: inner.totalSavingTicks, chains: [whole.chains, inner.chains] }).toEqual(t);
    adds(r);
  });
});

/** What the PR did to a layer's chain: fused it whole, its middle only, or left it. */
type Fate = 'whole' | 'inner' | 'none';

test("property: over depth, ranks, steps and which layers take which rewrite, each saving is its chains' time", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 10 }),
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 1, max: 4 }),
      fc.boolean(),
      fc.array(fc.constantFrom<Fate>('whole', 'inner', 'none'), { minLength: 30, maxLength: 30 }),
      fc.integer({ min: 1, max: 1000 }),
      fc.option(fc.tuple(fc.constantFrom<0 | 1>(0, 1), fc.nat(2), fc.nat(3)), { nil: null }),
      (layers, ranks, steps, fixed, fates, seed, lost) => {
        // Alike in every step of a rank: the rewrites are read from a rank's most frequent step.
        const fate = (rank: number, layer: number): Fate => fates[(rank * layers + layer) % fates.length]!;
        const spec: DecodeSpec = {
          ...SMALL,
          layers,
          ranks,
          steps,
          fixed,
          seed,
          // A step one side did not profile (when the rank has another): in no chain and no saving.
          missing: (side, rank, step) => lost !== null && steps > 1 && lost[0] === side && lost[1] === rank && lost[2] % steps === step,
          fused: (r, _s, l) => fate(r, l) === 'whole',
          inner: (r, _s, l) => fate(r, l) === 'inner',
        };
        const pair = decodePair(spec);
        const r = findRewrites(pair.base, pair.pr);
        const t = truth(pair, spec);
        const whole = of(r, FUSED);
        const inner = of(r, INNER_FUSED);
        expect({
          whole: whole?.totalSavingTicks ?? 0,
          inner: inner?.totalSavingTicks ?? 0,
          chains: [whole?.chains ?? 0, inner?.chains ?? 0],
        }).toEqual(t);
        expect(r.rewrites.length).toBe((t.chains[0] > 0 ? 1 : 0) + (t.chains[1] > 0 ? 1 : 0));
        adds(r);
      },
    ),
    { numRuns: 150, seed: 24 },
  );
});

test('a base step shape of more steps than its samples hold, on ranks that replaced different chains: split by rank, and said', () => {
  const spec: DecodeSpec = {
    ...SMALL,
    layers: 4,
    ranks: 2,
    steps: 40,
    fused: (r, _s, l) => r === 0 || l % 2 === 1,
    inner: (r, _s, l) => r === 1 && l % 2 === 0,
  };
  const pair = decodePair(spec);
  const r = findRewrites(pair.base, pair.pr);
  expect(r.conservation.time).toMatchObject({ ranksSplit: true, exact: true });
  expect(timeText(r)).toContain('(the sum of their savings; a step shape of ranks that replaced different chains split between them by its mean)');
  adds(r);
  // With fewer steps (all sampled) the same pair is timed per rank exactly.
  const few = { ...spec, steps: 8 };
  const exact = findRewrites(decodePair(few).base, decodePair(few).pr);
  expect(exact.conservation.time.ranksSplit).toBe(false);
  const t = truth(decodePair(few), few);
  expect([of(exact, FUSED)!.totalSavingTicks, of(exact, INNER_FUSED)!.totalSavingTicks]).toEqual([t.whole, t.inner]);
});

test("table, Markdown, HTML and JSON: each rewrite's saving is its own chains' time, from the files written", async () => {
  const spec: DecodeSpec = {
    ...SMALL,
    layers: 8,
    ranks: 2,
    steps: 4,
    fused: (_r, _s, l) => l % 2 === 1,
    inner: (_r, _s, l) => l % 2 === 0,
  };
  const pair = decodePair(spec);
  const dir = mkdtempSync(join(tmpdir(), 'kprof-nested-'));
  try {
    writeDecodeCsv(dir, HEADER, pair.steps);
    // The durations as written (µs), step by step: the truth is reckoned from the files.
    const durations = ([0, 1] as const).map((side) =>
      pair.steps[side].map((_, rank) => {
        const rows = readFileSync(
          join(dir, side === 0 ? 'base' : 'pr', `node_${rank}_ascend_pt`, 'ASCEND_PROFILER_OUTPUT', 'kernel_details.csv'),
          'utf8',
        )
          .trim()
          .split('\r\n')
          .slice(1)
          .map((l) => l.split(','));
        return Array.from({ length: spec.steps }, (_, step) => rows.filter((c) => c[0] === String(step + 1)).map((c) => Number(c[10])));
      }),
    ) as [number[][][], number[][][]];
    const t = truth({ ...pair, durations }, spec);
    const args = [join(dir, 'base'), join(dir, 'pr')];
    const json = await kprof(['diff', ...args, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const rw = JSON.parse(json.stdout).rewrites;
    const saved = (added: string) => rw.rewrites.find((w: { added: string[] }) => w.added[0] === added).saving.totalUs;
    expect(saved(FUSED)).toBeCloseTo(t.whole, 6);
    expect(saved(INNER_FUSED)).toBeCloseTo(t.inner, 6);
    // Before: -3.91 ms and +283.91 µs (the shorter one's base chains in the longer one's saving).
    expect([t.whole, t.inner].map((x) => x.toFixed(2))).toEqual(['-1413.40', '-227.79']);
    const table = (await kprof(['diff', ...args])).stdout;
    expect(table).toContain('saved  -1.41 ms measured over 32 chains');
    expect(table).toContain('saved  -227.79 µs measured over 32 chains');
    expect(table).toContain('-1.64 ms in these rewrites (the sum of their savings) and +2.01 µs outside their chains.');
    const md = (await kprof(['diff', ...args, '--format', 'markdown'])).stdout;
    expect(md).toContain('-1.41 ms');
    expect(md).toContain('-227.79 µs');
    const html = (await kprof(['diff', ...args, '--format', 'html'])).stdout;
    expect(html).toContain(`data-total="${saved(FUSED)}"`);
    expect(html).toContain(`data-total="${saved(INNER_FUSED)}"`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
