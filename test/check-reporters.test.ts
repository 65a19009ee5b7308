// The check reporters are pure: a verdict in, a string out.

import { describe, expect, it } from 'vitest';
import { checkGithub } from '../src/report/check/github.js';
import { checkJunit } from '../src/report/check/junit.js';
import { ruleTitle, valueText, verdictLine } from '../src/report/check/shared.js';
import { checkText } from '../src/report/check/text.js';
import type { RuleResult, Verdict } from '../src/rules/model.js';
import { parseRules } from '../src/rules/parse.js';
import { kprof } from './helpers.js';

function verdictOf(file: string, text: string, passed: boolean[]): Verdict {
  const rules = parseRules(file, text).rules;
  const results: RuleResult[] = rules.map((rule, i) => ({
    rule,
    passed: passed[i]!,
    observed: 3,
    bound: { op: '<=', value: 1 },
    unit: 'kernels',
    per: 'total',
    rank: passed[i] ? null : '0',
    step: null,
    ranksChecked: ['0'],
    ranksBroken: passed[i] ? [] : ['0'],
    stepsChecked: 0,
    stepsBroken: 0,
    brokenSteps: [],
    compared: null,
    newTypes: [],
    unmatched: [],
  }));
  const failedErrors = results.filter((r) => !r.passed && r.rule.severity === 'error').length;
  const failedWarnings = results.filter((r) => !r.passed && r.rule.severity === 'warn').length;
  return { results, passed: failedErrors === 0, failedErrors, failedWarnings, warnings: [], unmatched: 0 };
}

const CTX = { profile: 'p', base: null, rules: 'ci/rules, v1: main.yaml', read: { kernels: 3, skippedRows: 0 }, baseRead: null };

describe('check reporters', () => {
  it('github: escapes %, line breaks, and : and , in properties; a line break from the rules file is shown as \\x0a', () => {
    const v = verdictOf(
      'ci/rules, v1: main.yaml',
      'rules:\n  - rule: "100% fused: no Cast, ever"\n    type: Cast\n    count: { max: 1 }\n    why: "line one\\nline two"\n',
      [false],
    );
    expect(checkGithub(v, CTX)).toBe(
      '::error file=ci/rules%2C v1%3A main.yaml,line=2,col=5,title=kprof check%3A 100%25 fused%3A no Cast%2C ever::' +
        'rank 0: 3 kernels; bound: at most 1 in total%0Awhy: line one\\x0aline two\n' +
        'read: 3 kernels, 0 rows skipped\n' +
        'check failed: 1 of 1 rule broken; 0 held.\n',
    );
  });

  it('github: a rules file whose name starts with :: is named by its file= property (each : as %3A), control characters escaped', () => {
    for (const [name, file] of [
      ['::error::x.yaml', '%3A%3Aerror%3A%3Ax.yaml'],
      ['  ::x.yaml', '  %3A%3Ax.yaml'],
      ['::a\x1bb.yaml', '%3A%3Aa\\x1bb.yaml'],
      ['dir/::x.yaml', 'dir/%3A%3Ax.yaml'],
    ]) {
      const v = verdictOf(name!, 'rules:\n  - type: Cast\n    count: { max: 1 }\n', [false]);
      expect(checkGithub(v, { ...CTX, rules: name! }).split('\n')[0]).toMatch(
        new RegExp(`^::error file=${file!.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')},line=2,`),
      );
    }
  });

  it('junit: a warn-level break is not a failure', () => {
    const v = verdictOf('r.yaml', 'rules:\n  - type: Cast\n    count: { max: 1 }\n    severity: warn\n', [false]);
    const xml = checkJunit(v, CTX);
    expect(xml).toContain('tests="1" failures="0"');
    expect(xml).not.toContain('<failure');
    expect(xml).toContain('<system-out>warning: rank 0: 3 kernels; bound: at most 1 in total');
    expect(verdictLine(v)).toBe('check passed: 0 of 1 rule held; 1 warning.');
  });

  it('new kernel types are listed as the reports label them: (empty) for an empty type, a type named (empty) in quotes', () => {
    const r = {
      ...verdictOf('r.yaml', 'rules:\n  - no-new-types: true\n', [false]).results[0]!,
      unit: 'types' as const,
      newTypes: ['', '(empty)', 'Cast'],
    };
    expect(valueText(r, 3, (t) => t)).toBe('3 new types: (empty), "(empty)", Cast');
  });

  it('a rule without a label is named by its selector and bound', () => {
    const v = verdictOf('r.yaml', 'rules:\n  - match: /rope/i\n    count: { per: step, min: 1, max: 3 }\n    steps: 2-9\n    ranks: [0, 1]\n', [
      true,
    ]);
    expect(ruleTitle(v.results[0]!.rule)).toBe('/rope/i: between 1 and 3 per step in steps 2-9 on ranks 0, 1');
  });

  it('text: colour only when asked for', () => {
    const v = verdictOf('r.yaml', 'rules:\n  - type: Cast\n    absent: true\n', [false]);
    expect(checkText(v, CTX, { color: false })).not.toContain('\u001b[');
    expect(checkText(v, CTX, { color: true })).toContain('\u001b[31mFAIL\u001b[39m');
  });

  it('the CLI colours text on a TTY only, and never with NO_COLOR', async () => {
    const args = ['check', 'fixtures/rules/multi-rank-one-breaks/profile', '--rules', 'fixtures/rules/multi-rank-one-breaks/kprof.rules.yaml'];
    expect((await kprof(args)).stdout).not.toContain('\u001b[');
    expect((await kprof(args, { NO_COLOR: undefined, FORCE_COLOR: '1' })).stdout).toContain('\u001b[31mFAIL\u001b[39m');
    expect((await kprof([...args, '--format', 'json'], { NO_COLOR: undefined, FORCE_COLOR: '1' })).stdout).not.toContain('\u001b[');
  });
});
