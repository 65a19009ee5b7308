// The fused: rule kind of kprof check: "entry X is fused in every decoder layer of every step" (and per phase), on
// generated profiles of known truth (test/auditGen.ts) and the README example: it passes where every site is fused,
// fails (exit 1) naming the rank, phase, layer, steps and row of each site where the unfused chain ran, fails where
// it saw neither the fused kernel nor the chain, and a bad rule is an input error naming file:line.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { generate } from './auditGen.js';
import { fallbackText } from '../src/rules/checks/fused.js';
import { kprof } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'kprof-fused-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function rules(name: string, text: string): string {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
}

const clean = join(tmp, 'clean');
generate(clean, { seed: 11, depth: 6, ranks: 2, steps: 3, mtp: true, clean: true, mtpFused: true });
const decodeFallback = join(tmp, 'decode-fallback');
generate(decodeFallback, {
  seed: 12,
  depth: 6,
  ranks: 2,
  steps: 4,
  mtp: true,
  clean: true,
  mtpFused: true,
  fallback: (r, s, l) => r === 1 && s === 3 && l === 4,
});
const mtpFallback = join(tmp, 'mtp-fallback');
generate(mtpFallback, { seed: 13, depth: 6, ranks: 1, steps: 3, mtp: true, clean: true });

describe('fused: rules', () => {
  test('pass where every site is fused, in every phase form', async () => {
    const r = rules(
      'all.yaml',
      'rules:\n  - fused: mla-prolog\n  - fused: MlaPrologV3\n    phase: decode\n  - fused: { entry: mla-prolog, phase: prefill }\n  - fused: mla-prolog\n    phase: mtp\n  - fused: mla-prolog\n    phase: all\n',
    );
    const res = await kprof(['check', clean, '--rules', r, '-q']);
    expect(res.stdout).toMatch(/check passed/);
    expect(res.code).toBe(0);
  });

  test('fail on one unfused chain in one decoder layer, naming rank, phase, layer, step and row, in every format', async () => {
    const r = rules(
      'decoder.yaml',
      'rules:\n  - fused: mla-prolog\n  - fused: mla-prolog\n    phase: mtp\n  - fused: mla-prolog\n    phase: prefill\n',
    );
    const text = await kprof(['check', decodeFallback, '--rules', r, '-q']);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/FAIL .*decoder\.yaml:2 .*unfused chain at rank node_1_ascend_pt decode layer 4 step 3 \(kernel_details\.csv:\d+\)/);
    expect(text.stdout).toMatch(/pass .*decoder\.yaml:3/);
    expect(text.stdout).toMatch(/pass .*decoder\.yaml:5/);
    const json = JSON.parse((await kprof(['check', decodeFallback, '--rules', r, '--format', 'json', '-q'])).stdout);
    const f = json.results[0].fallbacks;
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ rank: 'node_1_ascend_pt', phase: 'decode', layer: 4, steps: [3], chains: 1 });
    expect(f[0].first.line).toBeGreaterThan(1);
    expect(json.results[0].stepsBroken).toEqual([3]);
    expect(json.results[1].fallbacks).toEqual([]);
    for (const format of ['markdown', 'junit', 'github']) {
      const res = await kprof(['check', decodeFallback, '--rules', r, '--format', format, '-q']);
      expect(res.code).toBe(1);
      expect(res.stdout).toMatch(/decode layer 4 step 3 \(`?kernel_details\.csv`?:\d+\)/);
    }
  });

  test('steps: limits the rule: the fallback of step 3 is outside steps 1-2', async () => {
    const r = rules('steps.yaml', 'rules:\n  - fused: mla-prolog\n    steps: 1-2\n  - fused: mla-prolog\n    phase: decode\n    steps: 3-4\n');
    const res = await kprof(['check', decodeFallback, '--rules', r, '--format', 'json', '-q']);
    expect(res.code).toBe(1);
    const json = JSON.parse(res.stdout);
    expect(json.results.map((x: { passed: boolean }) => x.passed)).toEqual([true, false]);
    expect(json.results[1].fallbacks).toMatchObject([{ phase: 'decode', layer: 4, steps: [3], chains: 1 }]);
    expect(json.results[1].rule).toContain('fused in every decoder layer of every decode step');
  });

  test('a decoder layer that ran neither the fused kernel nor a known chain breaks the rule: its step has fewer sites', async () => {
    const dir = join(tmp, 'dropped');
    generate(dir, { seed: 14, depth: 6, ranks: 1, steps: 4, mtp: false, clean: true, drop: (_r, s, l) => s === 3 && l === 2 });
    const r = rules('dropped.yaml', 'rules:\n  - fused: mla-prolog\n');
    const res = await kprof(['check', dir, '--rules', r, '--format', 'json', '-q']);
    expect(res.code).toBe(1);
    const result = JSON.parse(res.stdout).results[0];
    expect(result.fallbacks).toEqual([]);
    expect(result.short).toEqual([{ rank: '-', phase: 'decode', step: 3, sites: 5, most: 6 }]);
    expect(result.message).toContain(
      'fewer sites than the other steps of their phase (a layer ran neither the fused kernel nor a known chain): decode step 3 (5 of 6)',
    );
    const clean = await kprof(['check', join(tmp, 'clean'), '--rules', r, '--format', 'json', '-q']);
    expect(JSON.parse(clean.stdout).results[0].short).toEqual([]);
  });

  test('the MTP layer apart: the decoder rule holds, the mtp rule breaks', async () => {
    const r = rules('mtp.yaml', 'rules:\n  - fused: mla-prolog\n  - fused: mla-prolog\n    phase: mtp\n');
    const res = await kprof(['check', mtpFallback, '--rules', r, '-q']);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/pass .*mtp\.yaml:2/);
    expect(res.stdout).toMatch(/FAIL .*mtp\.yaml:3 .*unfused chain at rank \(no id\) MTP layer steps 1,2,3/);
  });

  test('a rule that saw neither the fused kernel nor its chain does not pass', async () => {
    const r = rules('none.yaml', 'rules:\n  - fused: fused-infer-attention-score\n  - fused: mla-prolog\n    phase: prefill\n');
    const res = await kprof(['check', 'fixtures/fusion-example/pr', '--rules', r, '-q']);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/FAIL .*none\.yaml:2 .*a gate that saw nothing does not pass/);
    // The README example has no prefill step: a prefill rule saw nothing.
    expect(res.stdout).toMatch(/FAIL .*none\.yaml:3 .*a gate that saw nothing does not pass/);
  });

  test('the README example: the decoder layers are fused, the MTP layer is not', async () => {
    const r = rules('readme.yaml', 'rules:\n  - fused: mla-prolog\n  - fused: mla-prolog\n    phase: mtp\n');
    const res = await kprof(['check', 'fixtures/fusion-example/pr', '--rules', r, '-q']);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/pass .*readme\.yaml:2/);
    expect(res.stdout).toContain(
      'unfused chain at rank 0 MTP layer steps 21,22,23,24 (kernel_details.csv:49), rank 1 MTP layer steps 21,22,23,24 (kernel_details.csv:49)',
    );
  });

  test('a rule limited to some steps cites the row of the chain in the first of them, not in an earlier step', async () => {
    const r = rules('steps.yaml', 'rules:\n  - fused: mla-prolog\n    phase: mtp\n    steps: 23-24\n');
    const res = await kprof(['check', 'fixtures/fusion-example/pr', '--rules', r, '-q']);
    expect(res.code).toBe(1);
    // Row 209 of each rank's kernel_details.csv is the chain's first kernel in step 23; row 49 is step 21's.
    expect(res.stdout).toContain(
      'unfused chain at rank 0 MTP layer steps 23,24 (kernel_details.csv:209), rank 1 MTP layer steps 23,24 (kernel_details.csv:209)',
    );
    const json = JSON.parse((await kprof(['check', 'fixtures/fusion-example/pr', '--rules', r, '-q', '--format', 'json'])).stdout);
    expect(json.results[0].fallbacks[0].first).toMatchObject({ step: 23, line: 209 });
  });

  test('bad rules are input errors naming file:line', async () => {
    const cases: [string, RegExp][] = [
      ['rules:\n  - fused: mla-prolg\n', /bad\.yaml:2:\d+: fused: no catalogue entry "mla-prolg".*Did you mean "mla-prolog"\?/],
      ['rules:\n  - fused: { entry: mla-prolog, phases: decode }\n', /bad\.yaml:2:\d+: unknown key "phases" in fused.*Did you mean "phase"\?/],
      ['rules:\n  - fused: mla-prolog\n    phase: decoding\n', /bad\.yaml:3:\d+: fused: phase: expected decoder, prefill, decode, mtp, all/],
      ['rules:\n  - type: A\n    absent: true\n    phase: decode\n', /bad\.yaml:4:\d+: phase: belongs to a fused: rule/],
      ['rules:\n  - type: MlaPrologV3\n    fused: mla-prolog\n', /bad\.yaml:2:\d+: fused looks at the kernels of its catalogue entry/],
      ['rules:\n  - fused: { entry: mla-prolog, phase: mtp }\n    phase: decode\n', /bad\.yaml:3:\d+: phase: is given twice/],
    ];
    for (const [text, message] of cases) {
      const res = await kprof(['check', 'fixtures/fusion-example/pr', '--rules', rules('bad.yaml', text)]);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(message);
    }
  });

  test('a profile without steps cannot answer a fused rule: an input error (exit 2) saying what it lacks and what to do, as for sequence rules', async () => {
    // A file of no Step Id column, and a rule limited to steps: on it (which was told to use per: total, which a fused rule has not).
    for (const text of ['rules:\n  - fused: mla-prolog\n', 'rules:\n  - fused: mla-prolog\n    steps: 21-22\n']) {
      const res = await kprof(['check', 'fixtures/rules/no-steps', '--rules', rules('stepless.yaml', text)]);
      expect(res.code, text).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr, text).toMatch(
        /^kprof: .*stepless\.yaml:2: the rule \(fused: mla-prolog\) looks for the entry's unfused chain and fused kernel in each step, in the order the kernels ran, but fixtures\/rules\/no-steps\/kernel_details\.csv has no Step Id column, so its steps cannot be told apart\. Check an export of the run that lists every kernel in the order it ran, with its steps \(kernel_details\.csv, /,
      );
      expect(res.stderr).not.toContain('per: total');
    }
  });
});

describe('a fallback as a fused rule names it', () => {
  test('a layer that is not known is not named (it read "layer ?"); a rank of no id is "rank (no id)"', () => {
    const first = { step: 13, stream: '2', index: 30, file: 'run/kernel_details.csv', line: 34 };
    const q = (x: string): string => x;
    expect(fallbackText({ rank: '0', phase: 'step', layer: null, steps: [13], chains: 54, timeUs: 1, first }, q)).toBe(
      'rank 0 step 13 (kernel_details.csv:34)',
    );
    expect(fallbackText({ rank: '-', phase: 'decode', layer: null, steps: [1, 2], chains: 2, timeUs: 1, first }, q)).toBe(
      'rank (no id) decode steps 1,2 (kernel_details.csv:34)',
    );
    expect(fallbackText({ rank: '1', phase: 'decode', layer: 4, steps: [3], chains: 1, timeUs: 1, first }, q)).toBe(
      'rank 1 decode layer 4 step 3 (kernel_details.csv:34)',
    );
  });
});
