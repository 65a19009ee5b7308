// The registries of rule kinds and reporters: what they hold drives the rules file's keys and --format's
// choices; the compiler holds them exhaustive (test/types/registries.ts, checked by `npm run typecheck`).

import { describe, expect, it } from 'vitest';
import {
  CHECK_FORMAT_NAMES,
  DIFF_FORMAT_NAMES,
  INSPECT_FORMAT_NAMES,
  SUMMARY_FORMAT_NAMES,
  canonicalFormat,
  CHECK_FORMATS,
  SUMMARY_FORMATS,
} from '../src/report/choices.js';
import { REPORTERS } from '../src/report/registry.js';
import { CHECK_KEYS, CHECKS } from '../src/rules/checks/registry.js';
import { parseRules } from '../src/rules/parse.js';

describe('the rule kinds', () => {
  it('the keys a rule takes are the registered kinds, in their order', () => {
    expect(CHECK_KEYS).toEqual(Object.keys(CHECKS));
    expect(() => parseRules('r.yaml', 'rules:\n  - type: Cast\n    order: true\n')).toThrow(
      `unknown key "order" in a rule; expected one of: rule, type, name, group, match, kernels, ${CHECK_KEYS.join(', ')}, phase, ranks, steps, severity, why, evidence.`,
    );
  });

  it('each kind reads its own kind back, and says whether it needs a base', () => {
    const set = parseRules(
      'r.yaml',
      [
        'rules:',
        '  - { type: A, absent: true }',
        '  - { type: A, present: true }',
        '  - { type: A, count: { max: 1 } }',
        '  - { type: A, time: { max: 1ms } }',
        '  - { type: A, count-vs-base: { fell-by-at-least: 10% } }',
        '  - { type: A, time-vs-base: { rose-by-at-most: 5% } }',
        '  - { no-new-types: true }',
        '  - { type: [A, B], sequence: { max: 0 } }',
        '  - { fused: mla-prolog }',
      ].join('\n'),
    );
    expect(set.rules.map((r) => r.check.kind)).toEqual(CHECK_KEYS);
    expect(CHECK_KEYS.filter((k) => CHECKS[k].needsBase)).toEqual(['count-vs-base', 'time-vs-base', 'no-new-types']);
  });
});

describe('the reporters', () => {
  it("--format's choices are the registry's formats, each plain-text format followed by its other name", () => {
    expect(SUMMARY_FORMAT_NAMES).toEqual(Object.keys(REPORTERS.summary).flatMap((f) => (f === 'table' ? ['table', 'text'] : [f])));
    expect(DIFF_FORMAT_NAMES).toEqual(Object.keys(REPORTERS.diff).flatMap((f) => (f === 'table' ? ['table', 'text'] : [f])));
    expect(CHECK_FORMAT_NAMES).toEqual(Object.keys(REPORTERS.check).flatMap((f) => (f === 'text' ? ['text', 'table'] : [f])));
    expect(INSPECT_FORMAT_NAMES).toEqual(Object.keys(REPORTERS.inspect).flatMap((f) => (f === 'text' ? ['text', 'table'] : [f])));
    expect(canonicalFormat(SUMMARY_FORMATS, 'text')).toBe('table');
    expect(canonicalFormat(CHECK_FORMATS, 'table')).toBe('text');
    expect(canonicalFormat(CHECK_FORMATS, 'junit')).toBe('junit');
  });

  it('every entry loads a reporter function', async () => {
    for (const registry of Object.values(REPORTERS)) {
      for (const load of Object.values(registry)) expect(typeof (await load())).toBe('function');
    }
  });
});
