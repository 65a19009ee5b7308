// Removed kernels stay removed in CI, through the whole life of a fusion: the rules `kprof rules` writes fail
// before the fusion, pass on the PR, keep passing (quietly) once the fusion has landed and the baseline is
// refreshed to a profile without the removed kernels, and fail when a later change brings them back. A rule that
// matches nothing passes on evidence that its kernels ran once (`evidence:`), not on matching something today;
// without evidence it is a warning, an error under --strict, and a misspelt name close to a running kernel stays
// an error. Profiles and baselines are written at test time into a temp folder.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-steady-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const BASE = 'fixtures/fusion-example/base';
const PR = 'fixtures/fusion-example/pr';
const rules = join(tmp, 'kprof.rules.yaml');
const before = join(tmp, 'base.summary.json');
const refreshed = join(tmp, 'refreshed.summary.json');
/** A later change that brings the ScatterNdUpdate of one layer back on rank 0: the PR with 1 row retyped per step. */
const regressed = join(tmp, 'regressed');

beforeAll(async () => {
  expect((await kprof(['rules', BASE, PR, '-o', rules, '-q'])).code).toBe(0);
  expect((await kprof(['summary', BASE, '--format', 'json', '-o', before, '-q'])).code).toBe(0);
  expect((await kprof(['summary', PR, '--format', 'json', '-o', refreshed, '-q'])).code).toBe(0);
  cpSync(PR, regressed, { recursive: true });
  const rank0 = join(regressed, 'node-07_3019544_20260312141047205_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv');
  const lines = readFileSync(rank0, 'utf8').split('\r\n');
  let seen = new Set<string>();
  const edited = lines.map((line) => {
    const cells = line.split(',');
    // The first ScatterPaKvCache of each step (the MTP layer's cache write) becomes a ScatterNdUpdate again.
    if (cells[6] !== 'ScatterPaKvCache' || seen.has(cells[0]!)) return line;
    seen.add(cells[0]!);
    cells[5] = 'aclnnScatterNdUpdate_ScatterNdUpdate_ScatterNdUpdate';
    cells[6] = 'ScatterNdUpdate';
    return cells.join(',');
  });
  expect(seen.size).toBe(4);
  seen = new Set();
  writeFileSync(rank0, edited.join('\r\n'));
});

describe('the steady state of a fusion, end to end', () => {
  it('kprof rules records where each removed kernel and chain ran', () => {
    const text = readFileSync(rules, 'utf8');
    // ScatterNdUpdate: 4 per step on 2 ranks in 4 steps; the chain: 2 per step on 2 ranks in 4 steps.
    expect(text).toMatch(/type: ScatterNdUpdate\n {4}absent: true\n {4}evidence: \{ base-count: 32 \}\n/);
    expect(text).toMatch(/sequence: \{ per: step, max: 0, layer-marker: LightningIndexer \}\n {4}evidence: \{ base-count: 16 \}\n/);
  });

  it('before the fusion: the base build breaks the rules (exit 1)', async () => {
    const r = await kprof(['check', BASE, '--rules', rules, '--base', before]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL .*ScatterNdUpdate stays removed/m);
  });

  it('the PR: every rule holds against the base (exit 0), nothing to warn of', async () => {
    const r = await kprof(['check', PR, '--rules', rules, '--base', before]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('after the merge, against the refreshed baseline: the removed kernels run on neither side, and the gate passes quietly', async () => {
    for (const format of ['text', 'github', 'json', 'junit'] as const) {
      const r = await kprof(['check', PR, '--rules', rules, '--base', refreshed, '--format', format]);
      expect(r.code, format).toBe(0);
      expect(r.stderr, format).toBe('');
      expect(r.stdout, format).not.toMatch(/::warning/);
    }
    const text = await kprof(['check', PR, '--rules', rules, '--base', refreshed]);
    expect(text.stdout).toMatch(
      /^pass .*ScatterNdUpdate stays removed: .*; type ScatterNdUpdate matches no kernel in the profile or the base; evidence that it ran: 32 in the base the rule was written from$/m,
    );
    const json = JSON.parse((await kprof(['check', PR, '--rules', rules, '--base', refreshed, '--format', 'json'])).stdout);
    const absent = json.results.find((x: { rule: string }) => x.rule === 'ScatterNdUpdate stays removed');
    expect(absent).toMatchObject({ passed: true, unmatched: ['ScatterNdUpdate'], evidence: { baseCount: 32, note: null } });
    // And --strict asks nothing more of rules with evidence.
    expect((await kprof(['check', PR, '--rules', rules, '--base', refreshed, '--strict'])).code).toBe(0);
    // With no base at all (the baseline dropped): the same.
    expect((await kprof(['check', PR, '--rules', rules])).code).toBe(0);
  });

  it('a later regression brings ScatterNdUpdate back: the gate fails (exit 1) against the refreshed baseline', async () => {
    const r = await kprof(['check', regressed, '--rules', rules, '--base', refreshed]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL .*ScatterNdUpdate stays removed: rank 0: 4 kernels; bound: absent; broken on 1 of 2 ranks \(0\)$/m);
    expect(r.stdout).toMatch(/stays gone: .*evidence that it ran: 16 in the base the rule was written from$/m);
  });

  it('a later change that removes the rest of a cut kernel passes quietly, also under --strict', async () => {
    // The MTP layer's InterleaveRope (the 2 per step the rules keep as a maximum) fused too: a profile, and a
    // baseline refreshed from it, where InterleaveRope runs nowhere.
    const done = join(tmp, 'done');
    cpSync(PR, done, { recursive: true });
    for (const rank of ['node-07_3019544_20260312141047205_ascend_pt', 'node-07_3019545_20260312141047331_ascend_pt']) {
      const file = join(done, rank, 'ASCEND_PROFILER_OUTPUT/kernel_details.csv');
      const lines = readFileSync(file, 'utf8').split('\r\n');
      writeFileSync(file, lines.filter((line) => line.split(',')[6] !== 'InterleaveRope').join('\r\n'));
    }
    const doneSummary = join(tmp, 'done.summary.json');
    expect((await kprof(['summary', done, '--format', 'json', '-o', doneSummary, '-q'])).code).toBe(0);
    // 6 per step on 2 ranks in 4 steps ran in the base.
    expect(readFileSync(rules, 'utf8')).toMatch(/type: InterleaveRope\n {4}count: \{ per: step, max: 2 \}\n {4}evidence: \{ base-count: 48 \}\n/);
    const r = await kprof(['check', done, '--rules', rules, '--base', doneSummary, '--strict']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^pass .*InterleaveRope stays at most 2 per step: .*evidence that it ran: 48 in the base the rule was written from$/m);
  });

  it('a file of only rules with evidence, of kernels that run nowhere: passes (the steady state), fails when they return', async () => {
    const only = join(tmp, 'only-absent.yaml');
    writeFileSync(
      only,
      'version: 1\nrules:\n  - rule: ScatterNdUpdate stays removed\n    type: ScatterNdUpdate\n    absent: true\n    evidence: { base-count: 32 }\n',
    );
    const ok = await kprof(['check', PR, '--rules', only]);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
    expect((await kprof(['check', regressed, '--rules', only])).code).toBe(1);
    // A profile where nothing was read still fails: absence of everything proves nothing.
    expect((await kprof(['check', 'fixtures/bad-header-only', '--rules', only])).code).toBe(2);
  });
});

describe('a hand-written rule that matches nothing', () => {
  const write = (name: string, body: string): string => {
    const p = join(tmp, name);
    writeFileSync(p, `version: 1\nrules:\n${body}  - rule: MlaPrologV3 runs\n    type: MlaPrologV3\n    present: true\n`);
    return p;
  };

  it('without evidence: a warning on stderr (a ::warning under github) that says how to silence it; exit 0', async () => {
    const f = write('no-evidence.yaml', '  - rule: RopeQuant stays removed\n    type: RopeQuant\n    absent: true\n');
    const r = await kprof(['check', PR, '--rules', f]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^kprof: warning: .*no-evidence\.yaml:3: type RopeQuant matches no kernel in the profile, and the rule gives no evidence that it ever ran; a misspelt name would match nothing too\. .*evidence: \{ note: "…" \}.*--strict makes this an error\.\n$/,
    );
    const gh = await kprof(['check', PR, '--rules', f, '--format', 'github']);
    expect(gh.code).toBe(0);
    expect(gh.stdout).toMatch(/^::warning file=[^,]*no-evidence\.yaml,line=3,/m);
  });

  it('without evidence, under --strict: exit 2 naming the rule', async () => {
    const f = write('strict.yaml', '  - rule: RopeQuant stays removed\n    type: RopeQuant\n    absent: true\n');
    const r = await kprof(['check', PR, '--rules', f, '--strict']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/strict\.yaml:3: type RopeQuant matches no kernel .*Under --strict a rule that matches nothing needs evidence\./);
  });

  it('with a note as evidence: silent, also under --strict', async () => {
    const f = write(
      'noted.yaml',
      '  - rule: RopeQuant stays removed\n    type: RopeQuant\n    absent: true\n    evidence: { note: "fused into MlaPrologV3 by the MLA prolog change" }\n',
    );
    for (const args of [[], ['--strict']]) {
      const r = await kprof(['check', PR, '--rules', f, ...args]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
    }
  });

  it('a name close to a kernel that runs: a warning with "did you mean" (exit 2 under --strict), silent with evidence', async () => {
    const typo = write('typo.yaml', '  - rule: InterleaveRope stays removed\n    type: InterleaveRop\n    absent: true\n');
    const warned = await kprof(['check', PR, '--rules', typo]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/^kprof: warning: .*typo\.yaml:3: type "InterleaveRop" matches no kernel .*did you mean "InterleaveRope"\?.*\n$/);
    const r = await kprof(['check', PR, '--rules', typo, '--strict']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/did you mean "InterleaveRope"\?/);
    const meant = write(
      'meant.yaml',
      '  - rule: InterleaveRop stays removed\n    type: InterleaveRop\n    absent: true\n    evidence: { note: "a kernel of the old build" }\n',
    );
    expect((await kprof(['check', PR, '--rules', meant])).code).toBe(0);
  });

  it('valid YAML that means something else: a text with commas for a list, a * for a pattern: a warning saying what to write', async () => {
    for (const [value, want] of [
      [
        'InterleaveRope, Cast',
        /type "InterleaveRope, Cast" matches no kernel .*a text with commas is one type, not a list; did you mean type: \[InterleaveRope, Cast\]\?/,
      ],
      [
        'Interleave*',
        /type "Interleave\*" matches no kernel .*\* is no wildcard in type: \(it matches whole values\); did you mean match: "\^Interleave"\?/,
      ],
      ['*Rope', /did you mean match: "Rope\$"\?/],
      ['Inter*Rope', /did you mean match: "\^Inter\.\*Rope\$"\?/],
    ] as const) {
      const f = write('shape.yaml', `  - rule: the rope stays removed\n    type: "${value}"\n    absent: true\n`);
      const r = await kprof(['check', PR, '--rules', f]);
      expect(r.code, value).toBe(0);
      expect(r.stderr, value).toMatch(want);
      expect((await kprof(['check', PR, '--rules', f, '--strict'])).code, value).toBe(2);
    }
    // A glob of many stars is matched without a regular expression (nothing to backtrack); it meets no kernel here.
    const many = write('stars.yaml', `  - rule: stars\n    type: "${'a*'.repeat(40)}b"\n    absent: true\n`);
    expect((await kprof(['check', PR, '--rules', many])).stderr).not.toContain('wildcard');
  });

  it('a hand-written file of absent rules alone, on a profile without those kernels: passes with a warning (exit 2 under --strict)', async () => {
    const f = join(tmp, 'nothing.yaml');
    writeFileSync(f, 'version: 1\nrules:\n  - rule: RopeQuant stays removed\n    type: RopeQuant\n    absent: true\n');
    const r = await kprof(['check', PR, '--rules', f]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('check passed: 1 of 1 rule held; 1 matched no kernel.');
    expect(r.stderr).toMatch(/^kprof: warning: .*nothing\.yaml:3: type RopeQuant matches no kernel .*evidence: \{ note: "…" \}/);
    const strict = await kprof(['check', PR, '--rules', f, '--strict']);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain('Under --strict a rule that matches nothing needs evidence.');
  });

  it('a name rule against a baseline summary by type (the CI recipe): a name that runs nowhere is said, not passed in silence', async () => {
    // The baseline holds no kernel names: it cannot show the name ever ran, so the rule matched nothing.
    const f = write('by-name.yaml', '  - rule: the rope kernel stays removed\n    name: aclnnRopeQuant_RopeQuant_RopeQuant\n    absent: true\n');
    const r = await kprof(['check', PR, '--rules', f, '--base', refreshed]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('check passed: 2 of 2 rules held; 1 matched no kernel.');
    expect(r.stderr).toMatch(/by-name\.yaml:3: name aclnnRopeQuant_RopeQuant_RopeQuant matches no kernel .*--strict makes this an error\./);
    expect((await kprof(['check', PR, '--rules', f, '--base', refreshed, '--strict'])).code).toBe(2);
  });

  it('evidence: must say something; base-count is a whole number of 1 or more', async () => {
    for (const [ev, want] of [
      ['{}', /evidence: expected base-count: \(how many ran in the base\) or note:/],
      ['{ base-count: 0 }', /base-count: expected a whole number of 1 or more .*found 0\./],
      ['{ base-count: "many" }', /base-count: expected a whole number of 1 or more .*found "many"\./],
      ['{ count: 3 }', /unknown key "count" in evidence; expected one of: base-count, note\./],
      ['yes', /evidence: expected a mapping such as \{ base-count: 32 \}/],
    ] as const) {
      const f = write('bad-evidence.yaml', `  - rule: X stays removed\n    type: RopeQuant\n    absent: true\n    evidence: ${ev}\n`);
      const r = await kprof(['check', PR, '--rules', f]);
      expect(r.code, ev).toBe(2);
      expect(r.stderr, ev).toMatch(want);
    }
  });
});
