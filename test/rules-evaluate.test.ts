import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../src/model/model.js';
import { readProfile } from '../src/input/read.js';
import { evaluate, exitCodeOf } from '../src/rules/evaluate.js';
import type { RuleResult } from '../src/rules/model.js';
import { parseRules, readRulesFile } from '../src/rules/parse.js';
import { ROOT } from './helpers.js';

const F = (p: string): string => resolve(ROOT, 'fixtures/rules', p);
const read = (p: string): Promise<Profile> => readProfile(F(p), { withShapes: false, ranks: null });

let base: Profile;
let pr: Profile;
let regressed: Profile;
let twoRanks: Profile;

beforeAll(async () => {
  [base, pr, regressed, twoRanks] = await Promise.all([
    read('one-rank/base'),
    read('one-rank/pr'),
    read('one-rank/regressed'),
    read('multi-rank-one-breaks/profile'),
  ]);
});

function run(profile: Profile, text: string, against: Profile | null = null): RuleResult[] {
  return evaluate(profile, against, parseRules('r.yaml', text)).results;
}

function one(profile: Profile, text: string, against: Profile | null = null): RuleResult {
  return run(profile, `rules:\n${text}`, against)[0]!;
}

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect((e as Error).name).toBe('KprofError');
    return (e as Error).message;
  }
  throw new Error('expected an input error');
}

describe('every rule kind holds on the PR and breaks on a regression', () => {
  const rules = () => readRulesFile(F('one-rank/every-kind.rules.yaml'), 'every-kind.rules.yaml');

  it('holds on pr/ against base/', () => {
    const v = evaluate(pr, base, rules());
    expect(v.results.map((r) => [r.rule.line, r.passed])).toEqual(v.results.map((r) => [r.rule.line, true]));
    expect(v.results).toHaveLength(13);
    expect(v).toMatchObject({ passed: true, failedErrors: 0, failedWarnings: 0 });
    expect(exitCodeOf(v)).toBe(0);
  });

  it('breaks rule by rule on regressed/, naming the step that broke it', () => {
    const v = evaluate(regressed, base, rules());
    const byLabel = new Map(v.results.map((r) => [r.rule.label, r]));
    const at = (label: string) => {
      const r = byLabel.get(label)!;
      return { passed: r.passed, observed: r.observed, step: r.step, stepsBroken: r.stepsBroken, severity: r.rule.severity };
    };
    expect(v.results.every((r) => !r.passed)).toBe(true);
    expect(at('InterleaveRope stays removed')).toMatchObject({ observed: 1, step: null });
    expect(at('the rope chain stays fused')).toMatchObject({ observed: 1 });
    expect(at('MlaPrologV3 runs in the last step')).toMatchObject({ observed: 0 });
    expect(at('MlaPrologV3 at least once per step')).toMatchObject({ observed: 0, step: 3, stepsBroken: 1 });
    expect(at('exactly one Cast per step')).toMatchObject({ observed: 2, step: 2, stepsBroken: 1 });
    expect(at('at most six MatMul calls in the run')).toMatchObject({ observed: 7 });
    expect(at('MatMul time per step')).toMatchObject({ observed: 180, step: 3, stepsBroken: 3 });
    expect(at('kernel time of the run')).toMatchObject({ observed: 509 });
    expect(at('at most five kernels per step')).toMatchObject({ observed: 7, step: 2, stepsBroken: 2 });
    expect(at('Cast count cut against the base')).toMatchObject({ observed: -50 });
    expect(byLabel.get('Cast count cut against the base')!.compared).toEqual({ base: 10, profile: 5 });
    expect(byLabel.get('no new kernel types')!.newTypes).toEqual(['Transpose']);
    expect(at('norm time per step')).toMatchObject({ observed: 7, severity: 'warn' });
    expect(v).toMatchObject({ passed: false, failedErrors: 12, failedWarnings: 1 });
    expect(exitCodeOf(v)).toBe(1);
  });

  it('a broken warn-level rule does not fail the gate', () => {
    const v = evaluate(
      regressed,
      null,
      parseRules('r.yaml', 'rules:\n  - type: AddRmsNorm\n    time: { per: step, max: 5us }\n    severity: warn\n'),
    );
    expect(v).toMatchObject({ passed: true, failedErrors: 0, failedWarnings: 1 });
    expect(exitCodeOf(v)).toBe(0);
  });
});

describe('steps', () => {
  it('rows with an empty Step Id are in the total, not in any step', () => {
    // pr/ has one Cast per step in steps 1-3 and one more Cast with an empty Step Id.
    expect(one(pr, '  - type: Cast\n    count: { max: 3 }\n')).toMatchObject({ passed: false, observed: 4 });
    expect(one(pr, '  - type: Cast\n    count: { per: step, max: 1 }\n')).toMatchObject({ passed: true, observed: 1 });
    expect(one(pr, '  - type: Cast\n    count: { max: 3 }\n    steps: 1-3\n')).toMatchObject({ passed: true, observed: 3 });
  });

  it('a step in which the kernel does not run counts as zero', () => {
    expect(one(regressed, '  - type: Transpose\n    count: { per: step, min: 1 }\n')).toMatchObject({
      passed: false,
      observed: 0,
      step: 1,
      stepsBroken: 2,
      stepsChecked: 3,
    });
  });

  it('steps: limits a rule to a step range', () => {
    expect(one(regressed, '  - type: Cast\n    count: { per: step, exactly: 1 }\n    steps: 3\n')).toMatchObject({ passed: true });
    expect(one(regressed, '  - type: Cast\n    count: { per: step, exactly: 1 }\n    steps: 2-3\n')).toMatchObject({
      passed: false,
      step: 2,
      stepsChecked: 2,
    });
  });

  it('a per-step rule on a source without Step Id is an input error', async () => {
    const noSteps = await read('no-steps/kernel_details.csv');
    expect(errorOf(() => one(noSteps, '  - type: Cast\n    count: { per: step, max: 1 }\n'))).toBe(
      `r.yaml:2: the rule checks each step, but ${F('no-steps/kernel_details.csv')} has no Step Id. Use per: total and drop steps:, or profile with a step schedule.`,
    );
    expect(one(noSteps, '  - type: Cast\n    count: { max: 1 }\n')).toMatchObject({ passed: true, observed: 1 });
  });

  it('a step range the profile does not have is an input error', () => {
    expect(errorOf(() => one(pr, '  - type: Cast\n    count: { per: step, max: 1 }\n    steps: 40-50\n'))).toBe(
      `r.yaml:2: the rule checks each step, but ${F('one-rank/pr/kernel_details.csv')} has no steps in 40-50 (it has Step Id 1-3). Fix steps: in the rule, or leave it out for every step.`,
    );
    // A rule of the total: per: total is no way out (it is one already), and was not said as one.
    expect(errorOf(() => one(pr, '  - type: Cast\n    count: { max: 1 }\n    steps: 40-50\n'))).toBe(
      `r.yaml:2: the rule is limited to steps 40-50, but ${F('one-rank/pr/kernel_details.csv')} has no steps in 40-50 (it has Step Id 1-3). Fix steps: in the rule, or leave it out for every step.`,
    );
  });

  it('a step of the list that the profile does not have is an input error, as in --steps: the others would hide the typo', () => {
    for (const check of ['count: { max: 9 }', 'count: { per: step, max: 9 }', 'absent: true']) {
      expect(errorOf(() => one(pr, `  - type: Cast\n    ${check}\n    steps: 1,3,99-100\n`))).toBe(
        'r.yaml:2: steps: 1,3,99-100: rank (no id) has no step in 99-100; its steps are 1-3. Fix steps: in the rule.',
      );
    }
    expect(errorOf(() => one(twoRanks, '  - type: Cast\n    count: { max: 9 }\n    steps: 2,5-\n'))).toBe(
      'r.yaml:2: steps: 2,5-: ranks 0, 1 have no step from 5 on; their steps are 1-3. Fix steps: in the rule.',
    );
    expect(one(pr, '  - type: Cast\n    count: { max: 9 }\n    steps: 1,3\n')).toMatchObject({ passed: true });
  });
});

describe('several ranks: a rule must hold on every rank', () => {
  it('fails when one rank breaks it, naming the rank and the step', () => {
    const [all, rank0, mla] = evaluate(twoRanks, null, readRulesFile(F('multi-rank-one-breaks/kprof.rules.yaml'))).results;
    expect(all).toMatchObject({
      passed: false,
      rank: '1',
      step: 2,
      observed: 2,
      ranksChecked: ['0', '1'],
      ranksBroken: ['1'],
      stepsBroken: 1,
      stepsChecked: 3,
    });
    expect(rank0).toMatchObject({ passed: true, ranksChecked: ['0'], rank: null, step: null });
    expect(mla).toMatchObject({ passed: true, observed: 1, ranksChecked: ['0', '1'] });
  });

  it('a rank the profile does not have is an input error', () => {
    expect(errorOf(() => one(twoRanks, '  - type: Cast\n    absent: true\n    ranks: [0, 7]\n'))).toBe(
      `r.yaml:2: the rule applies to rank 7, but ${F('multi-rank-one-breaks/profile')} has ranks 0, 1. Fix ranks: in the rule, or pass the profile of every rank.`,
    );
  });

  it('a rank id too large to be exact is named as written, not as the number it parses to', () => {
    expect(errorOf(() => one(twoRanks, '  - type: Cast\n    absent: true\n    ranks: [99999999999999999999]\n'))).toContain(
      'the rule applies to rank 99999999999999999999, but',
    );
    expect(one(twoRanks, '  - type: Cast\n    count: { max: 9 }\n    ranks: [01]\n')).toMatchObject({ ranksChecked: ['1'] });
  });

  it('against a base, ranks are paired by id', () => {
    expect(errorOf(() => one(twoRanks, '  - type: Cast\n    count-vs-base: { rose-by-at-most: 0% }\n', pr))).toBe(
      `r.yaml:2: the base ${F('one-rank/pr')} has no rank 0 to compare with (it has one rank, of no id). Compare profiles of the same ranks, or limit the rule with ranks:.`,
    );
    const r = one(twoRanks, '  - type: Cast\n    count-vs-base: { rose-by-at-most: 0% }\n', twoRanks);
    expect(r).toMatchObject({ passed: true, observed: 0 });
  });
});

describe('rules against the base', () => {
  it('a kernel the base lacks is an unbounded rise; nothing can fall from zero', () => {
    const rose = one(pr, '  - type: MlaPrologV3\n    count-vs-base: { rose-by-at-most: 50% }\n', base);
    expect(rose).toMatchObject({ passed: false, observed: null, compared: { base: 0, profile: 3 } });
    const fell = one(pr, '  - type: Transpose\n    count-vs-base: { fell-by-at-least: 10% }\n', base);
    expect(fell).toMatchObject({ passed: false, observed: null, compared: { base: 0, profile: 0 } });
    const same = one(pr, '  - type: Transpose\n    count-vs-base: { rose-by-at-most: 0% }\n', base);
    expect(same).toMatchObject({ passed: true, observed: 0 });
  });

  it('rose-by-at-most and fell-by-at-least on the same value', () => {
    // Kernel time per step: base 137.67 µs, pr 127.67 µs (-7.3%).
    expect(one(pr, '  - kernels: all\n    time-vs-base: { per: step, rose-by-at-most: 0% }\n', base)).toMatchObject({ passed: true });
    expect(one(pr, '  - kernels: all\n    time-vs-base: { per: step, fell-by-at-least: 8% }\n', base)).toMatchObject({ passed: false });
    expect(one(base, '  - kernels: all\n    time-vs-base: { per: step, rose-by-at-most: 0% }\n', pr)).toMatchObject({ passed: false });
  });

  it('no-new-types lists the new types and honours the allow-list', () => {
    expect(one(pr, '  - no-new-types: true\n', base)).toMatchObject({ passed: false, observed: 1, newTypes: ['MlaPrologV3'] });
    expect(one(regressed, '  - no-new-types: { allow: ["/^Mla/"] }\n', base)).toMatchObject({ passed: false, newTypes: ['Transpose'] });
    expect(one(regressed, '  - no-new-types: { allow: [Transpose, MlaPrologV3] }\n', base)).toMatchObject({ passed: true });
  });

  it('a rule against the base without --base is an input error', () => {
    expect(errorOf(() => one(pr, '  - no-new-types: true\n'))).toBe(
      'r.yaml:2: the rule compares against a base; pass --base <profile or summary.json>.',
    );
  });
});

describe('selectors', () => {
  it('selects by type, name, regular expression on name or type, and group', () => {
    expect(one(base, '  - type: [InterleaveRope, Cast]\n    count: { max: 0 }\n').observed).toBe(16);
    expect(one(base, '  - name: aclnnCast_Cast_Cast\n    count: { max: 0 }\n').observed).toBe(10);
    expect(one(base, '  - match: ^aclnnMm_\n    count: { max: 0 }\n').observed).toBe(6);
    expect(one(base, '  - match: /^interleaverope$/i\n    count: { max: 0 }\n').observed).toBe(6);
    const grouped = run(
      base,
      'groups:\n  quant-and-scatter: ["/Quant/", ScatterNdUpdate]\nrules:\n  - group: quant-and-scatter\n    count: { max: 0 }\n',
    );
    expect(grouped[0]!.observed).toBe(6);
    expect(one(base, '  - kernels: all\n    count: { max: 1 }\n').observed).toBe(31);
  });
});

describe('summary JSON snapshots', () => {
  let snapPr: Profile;
  let snapBase: Profile;
  beforeAll(async () => {
    [snapPr, snapBase] = await Promise.all([read('snapshot-by-type/pr.summary.json'), read('snapshot-by-type/base.summary.json')]);
  });

  it('answers rules by type, group and kernels: all, per step too', () => {
    const set = readRulesFile(F('snapshot-by-type/by-type.rules.yaml'));
    expect(evaluate(snapPr, snapBase, set).results.map((r) => r.passed)).toEqual([true, true, true, true, true]);
    expect(evaluate(snapBase, snapBase, set).results.map((r) => r.passed)).toEqual([false, false, false, false, true]);
    // The same answers as from the profiles themselves.
    expect(evaluate(snapPr, snapBase, set).results.map((r) => r.observed)).toEqual(evaluate(pr, base, set).results.map((r) => r.observed));
  });

  it('a rule by name on a snapshot grouped by type is an input error', () => {
    expect(errorOf(() => one(snapPr, '  - name: aclnnCast_Cast_Cast\n    absent: true\n'))).toBe(
      `r.yaml:2: the rule selects kernels by name, but ${F('snapshot-by-type/pr.summary.json')} is a summary JSON grouped by type, which keeps no kernel names. ` +
        'Regenerate it with kprof summary <profile> --by name --format json, or pass the profile itself.',
    );
  });
});
