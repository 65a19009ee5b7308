// Runs `kprof diff`, `kprof rules` and `kprof check` on pairs written by test/fusionTruth.ts, and holds what the
// Fusion rewrites section must say against the generator's truth.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { FUSIONS, type FusionId, type FusionTruth, type Generated, generate, median, type SideSpec, writeSide } from './fusionTruth.js';
import { kprof } from './helpers.js';
import type { DiffRewritesJson, RewriteConservationJson, RewriteJson } from '../src/model/schema.js';

export interface Pair {
  base: string;
  pr: string;
  b: Generated;
  p: Generated;
}

/** Generates and writes a base and a PR under `root/name`. */
export function writePair(root: string, name: string, base: SideSpec, pr: SideSpec): Pair {
  const b = generate(base);
  const p = generate(pr);
  return { base: writeSide(join(root, name, 'base'), b, 2841907), pr: writeSide(join(root, name, 'pr'), p, 3019544), b, p };
}

// The JSON of the section, as docs/diff.md declares it (src/model/schema.ts), of a pair that has one (section()
// asserts its conservation is there).
export type SectionJson = Omit<DiffRewritesJson, 'conservation'> & { conservation: RewriteConservationJson };

/** `kprof diff --format json`'s rewrites section (exit 0 asserted). */
export async function section(pair: Pair, extra: string[] = []): Promise<SectionJson> {
  const r = await kprof(['diff', pair.base, pair.pr, '--format', 'json', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  const s = JSON.parse(r.stdout).rewrites as DiffRewritesJson;
  expect(s.conservation).not.toBeNull();
  return s as SectionJson;
}

/** The rewrite of fusion `f` (its chain → its fused kernel), which must be listed once. */
export function rewriteOf(s: SectionJson, f: FusionId): RewriteJson {
  const chain: readonly string[] = FUSIONS[f].chain;
  const found = s.rewrites.filter((w) => w.added.includes(FUSIONS[f].fused) || w.removed.join(' ') === chain.join(' '));
  expect(found.length, `one rewrite of ${f}: ${JSON.stringify(s.rewrites.map((w) => [w.removed, w.added]))}`).toBe(1);
  return found[0]!;
}

const us = (ns: number): number => Math.round(ns) / 1000;

/**
 * The rewrite of `f` against the truth: the chain whole (not one kernel more or less) → the fused kernel alone, the
 * chains, the range per step, the ranks, the layers, the sites not fused (rank and layer; their steps include the
 * truth's, unless `steps: false`: Step Ids that differ), and the saving to the nanosecond (PR minus base over the sites
 * the PR fused, in the steps both sides have: neither overstated nor understated; a site left unfused is outside it). `layers: false` leaves the layers out (asserted apart).
 */
export function expectFusion(s: SectionJson, f: FusionId, t: FusionTruth, opts: { layers?: boolean; steps?: boolean } = {}): RewriteJson {
  const w = rewriteOf(s, f);
  expect([w.removed, w.added]).toEqual([[...FUSIONS[f].chain], [FUSIONS[f].fused]]);
  expect({ chains: w.chains, perStep: w.perStep, ranks: w.ranks }).toEqual({ chains: t.chains, perStep: t.perStep, ranks: t.ranks });
  if (opts.layers !== false) expect(w.layers).toEqual(t.layers);
  // A site may be listed once per step shape: gather its steps.
  const gathered = new Map<string, number[]>();
  for (const n of w.notFused) gathered.set(`${n.rank}/${n.layer}`, [...(gathered.get(`${n.rank}/${n.layer}`) ?? []), ...n.steps]);
  if (opts.layers !== false) expect([...gathered.keys()].sort()).toEqual(t.notFused.map((n) => `${n.rank}/${n.layer}`).sort());
  if (opts.layers !== false && opts.steps !== false)
    for (const n of t.notFused) expect(gathered.get(`${n.rank}/${n.layer}`)).toEqual(expect.arrayContaining(n.steps));
  expect(w.notFused.every((n) => n.edits === 0)).toBe(true);
  expect(w.saving.totalUs).toBeCloseTo(us(t.fusedSavingNs), 3);
  // One chain's time: the median of the base's chains and of the PR's fused kernels, within the noise of the sites.
  expect(w.base!.medianUs).toBeGreaterThanOrEqual(us(Math.min(...t.baseChainNs)) * 0.97);
  expect(w.base!.medianUs).toBeLessThanOrEqual(us(Math.max(...t.baseChainNs)) * 1.03);
  expect(Math.abs(w.base!.medianUs - us(median(t.baseChainNs)))).toBeLessThan(us(median(t.baseChainNs)) * 0.03);
  expect(Math.abs(w.pr!.medianUs - us(median(t.prFusedNs)))).toBeLessThan(us(median(t.prFusedNs)) * 0.03);
  expect(w.saving.significant).toBe(true);
  return w;
}

/** Every kernel the PR lost or gained is in a rewrite, and the Time line adds up. */
export function expectAllAccounted(s: SectionJson, change: { removed: number; added: number }): void {
  const c = s.conservation;
  expect({ removed: c.removed, added: c.added, rest: c.rest }).toEqual({ ...change, rest: [] });
  expect([c.removedAccounted, c.addedAccounted]).toEqual([c.removed, c.added]);
  expectTimeAddsUp(s);
}

export function expectTimeAddsUp(s: SectionJson): void {
  const t = s.conservation.time;
  expect(t.namedUs).toBeCloseTo(t.rewritesUs + t.outsideUs + t.unpairedUs, 2);
  expect(t.rewritesUs).toBeCloseTo(
    s.rewrites.reduce((a, w) => a + w.saving.totalUs, 0),
    2,
  );
}

export interface CheckResult {
  rule: string;
  severity: string;
  passed: boolean;
  rank: string | null;
  step: number | null;
  unit: string;
  site: { stream: string; index: number; of: number; layer: number | null; edits: number } | null;
}

export interface Gate {
  rules: string;
  /** Exit code and JSON report of `kprof check <profile> --rules <rules> --base <base>`. */
  check(profile: string): Promise<{ code: number; broken: CheckResult[]; stderr: string }>;
}

/** `kprof rules base pr -o rules.yaml` (exit 0 asserted), and a check against it. */
export async function gate(pair: Pair, dir: string): Promise<Gate> {
  const rules = join(dir, 'kprof.rules.yaml');
  const r = await kprof(['rules', pair.base, pair.pr, '-o', rules]);
  expect(r.code, r.stderr).toBe(0);
  return {
    rules: readFileSync(rules, 'utf8'),
    async check(profile) {
      const c = await kprof(['check', profile, '--rules', rules, '--base', pair.base, '--format', 'json']);
      const broken = c.code === 2 ? [] : (JSON.parse(c.stdout).results as CheckResult[]).filter((x) => !x.passed && x.severity === 'error');
      return { code: c.code, broken, stderr: c.stderr };
    },
  };
}
