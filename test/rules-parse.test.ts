import { describe, expect, it } from 'vitest';
import { parseRules } from '../src/rules/parse.js';

/** The message of the input error a rules text raises. */
function error(text: string): string {
  try {
    parseRules('r.yaml', text);
  } catch (e) {
    expect((e as Error).name).toBe('KprofError');
    return (e as Error).message;
  }
  throw new Error('expected the rules to be rejected');
}

describe('parseRules: a valid file', () => {
  it("keeps the durations written without a unit (read as µs), with the rule's line", () => {
    const set = parseRules('r.yaml', 'rules:\n  - type: Cast\n    time: { min: 100us, max: 150 }\n  - type: Add\n    time: { exactly: 2s }\n');
    expect(set.rules[0]!.check).toEqual({ kind: 'time', per: 'total', bounds: { min: 100, max: 150 } });
    expect(set.bareDurations).toEqual([{ line: 2, what: 'time: max', written: '150', us: 150 }]);
  });

  it('reads a duration with a unit as the number written with the point moved, exactly (1.001ms is 1001 µs)', () => {
    // 1.001 × 1000 is 1000.9999999999999 in floating point: a kernel time of exactly 1.001 ms broke max: 1.001ms.
    const set = parseRules(
      'r.yaml',
      'rules:\n  - type: Cast\n    time: { min: 0.000123s, max: 1.001ms }\n  - type: Add\n    time: { exactly: 0.0041ms }\n  - type: Mul\n    time: { max: 1.5\u03bcs }\n',
    );
    expect(set.rules.map((r) => r.check)).toEqual([
      { kind: 'time', per: 'total', bounds: { min: 123, max: 1001 } },
      { kind: 'time', per: 'total', bounds: { min: 4.1, max: 4.1 } },
      // µs with the Greek mu (U+03BC), which looks the same as the micro sign (U+00B5)
      { kind: 'time', per: 'total', bounds: { min: null, max: 1.5 } },
    ]);
    expect(set.bareDurations).toEqual([]);
  });

  it('reads every rule kind with its position, scope, severity and why', () => {
    const set = parseRules(
      'kprof.rules.yaml',
      [
        'version: 1',
        'groups:',
        '  rope-chain: [InterleaveRope, "/Rope/"]',
        'rules:',
        '  - rule: InterleaveRope stays removed',
        '    type: InterleaveRope',
        '    absent: true',
        '    why: fused into MlaPrologV3',
        '  - name: [a, b]',
        '    present: true',
        '    ranks: [0, 3]',
        '    steps: 5-20',
        '  - group: rope-chain',
        '    count: { per: step, exactly: 1 }',
        '    severity: warn',
        '  - match: /cast/i',
        '    time: { min: 1.5ms, max: 2s }',
        '  - kernels: all',
        '    count-vs-base: { per: step, fell-by-at-least: 20%, rose-by-at-most: 0 }',
        '  - kernels: all',
        '    time-vs-base: { rose-by-at-most: 5% }',
        '  - no-new-types: { allow: [MlaPrologV3, "/^Mla/"] }',
        '  - no-new-types: true',
        '    ranks: 1',
        '    steps: 7',
      ].join('\n'),
    );
    expect(set.groups.map((g) => g.name)).toEqual(['rope-chain']);
    const [r0, r1, r2, r3, r4, r5, r6, r7] = set.rules;
    expect(r0).toMatchObject({
      label: 'InterleaveRope stays removed',
      file: 'kprof.rules.yaml',
      line: 5,
      col: 5,
      selector: { kind: 'type', values: ['InterleaveRope'] },
      check: { kind: 'absent' },
      ranks: null,
      steps: null,
      severity: 'error',
      why: 'fused into MlaPrologV3',
    });
    expect(r1).toMatchObject({
      line: 9,
      label: null,
      selector: { kind: 'name', values: ['a', 'b'] },
      check: { kind: 'present' },
      ranks: ['0', '3'],
      steps: [{ from: 5, to: 20 }],
    });
    expect(r2).toMatchObject({ selector: { kind: 'group' }, check: { kind: 'count', per: 'step', bounds: { min: 1, max: 1 } }, severity: 'warn' });
    expect(r3!.selector).toMatchObject({ kind: 'match' });
    expect(r3!.selector!.kind === 'match' && r3!.selector!.re.flags).toBe('i');
    expect(r3!.check).toEqual({ kind: 'time', per: 'total', bounds: { min: 1500, max: 2_000_000 } });
    expect(r4!.check).toEqual({ kind: 'count-vs-base', per: 'step', change: { fellByAtLeastPct: 20, roseByAtMostPct: 0 } });
    expect(r5!.check).toEqual({ kind: 'time-vs-base', per: 'total', change: { fellByAtLeastPct: null, roseByAtMostPct: 5 } });
    expect(r6!.selector).toBeNull();
    expect(r6!.check.kind === 'no-new-types' && r6!.check.allow.map(String)).toEqual(['MlaPrologV3', '/^Mla/']);
    expect(r7).toMatchObject({ check: { kind: 'no-new-types', allow: [] }, ranks: ['1'], steps: [{ from: 7, to: 7 }] });
  });

  it("takes a quoted rank id of any text a profile names a rank by (a PROF_ folder's path); a plain one is a word", () => {
    const set = parseRules('r.yaml', 'rules:\n  - type: Cast\n    absent: true\n    ranks: [0, "PROF_L2Cache/PROF_000001_x", \'run a: b\']\n');
    expect(set.rules[0]!.ranks).toEqual(['0', 'PROF_L2Cache/PROF_000001_x', 'run a: b']);
    expect(() => parseRules('r.yaml', 'rules:\n  - type: Cast\n    absent: true\n    ranks: [PROF_a/b]\n')).toThrow(/ranks: expected a rank id/);
    for (const bad of ['""', '" 0"', '"all"'])
      expect(() => parseRules('r.yaml', `rules:\n  - type: Cast\n    absent: true\n    ranks: [${bad}]\n`), bad).toThrow(/ranks: expected a rank id/);
  });

  it('reads the same rules written as JSON', () => {
    const set = parseRules('r.json', '{"rules": [{"type": "Cast", "count": {"per": "step", "max": 1}}]}');
    expect(set.rules[0]).toMatchObject({ line: 1, col: 12, check: { kind: 'count', per: 'step', bounds: { min: null, max: 1 } } });
  });
});

describe('parseRules: validation errors name file:line:col and what was expected', () => {
  const cases: [string, string, string][] = [
    [
      'an unknown key, with a suggestion',
      'rules:\n  - type: Cast\n    cuont: { max: 1 }\n',
      'r.yaml:3:5: unknown key "cuont" in a rule; expected one of: rule, type, name, group, match, kernels, absent, present, count, time, count-vs-base, time-vs-base, no-new-types, sequence, fused, phase, ranks, steps, severity, why, evidence. Did you mean "count"?',
    ],
    [
      'an unknown top-level key',
      'rule:\n  - type: Cast\n    absent: true\n',
      'r.yaml:1:1: unknown key "rule" in the rules file; expected one of: version, groups, steps, rules. Did you mean "rules"?',
    ],
    [
      'an unknown key in JSON',
      '{\n  "rules": [\n    { "type": "Cast", "count": { "maxx": 1 } }\n  ]\n}\n',
      'r.yaml:3:34: unknown key "maxx" in count (a mapping with min:, max: or exactly:, and per:); expected one of: per, min, max, exactly. Did you mean "max"?',
    ],
    [
      'a wrong type',
      'rules:\n  - type: Cast\n    count: { max: one }\n',
      'r.yaml:3:19: count: max: expected a whole number of kernels (0 or more, below 2^53); found "one".',
    ],
    [
      'a count too large to be exact (it would be read as 1e20)',
      'rules:\n  - type: Cast\n    count: { min: 99999999999999999999 }\n',
      'r.yaml:3:19: count: min: expected a whole number of kernels (0 or more, below 2^53); found 99999999999999999999.',
    ],
    [
      'a number past a double, quoted as the file writes it (not as the Infinity it parses to)',
      'rules:\n  - type: Cast\n    count: { max: 1e400 }\n',
      'r.yaml:3:19: count: max: expected a whole number of kernels (0 or more, below 2^53); found 1e400.',
    ],
    [
      'an unknown group',
      'groups:\n  rope: [InterleaveRope]\nrules:\n  - group: rop\n    absent: true\n',
      'r.yaml:4:12: group "rop" is not defined; the groups: section defines rope. Did you mean "rope"?',
    ],
    [
      'a group without a groups: section',
      'rules:\n  - group: rope\n    absent: true\n',
      'r.yaml:2:12: group "rope" is not defined; the file has no groups: section.',
    ],
    [
      'a bad groups: entry',
      'groups:\n  rope: { a: 1 }\nrules:\n  - type: Cast\n    absent: true\n',
      'r.yaml:2:9: group "rope" should list kernel types, names or /regular expressions/; found a mapping.',
    ],
    [
      'not YAML',
      'rules:\n  - type: [Cast\n    absent: true\n',
      'r.yaml:3:5: not valid YAML or JSON: Flow sequence in block collection must be sufficiently indented and end with a ]. Fix the file there (YAML or JSON).',
    ],

    [
      'no check',
      'rules:\n  - type: Cast\n    why: x\n',
      'r.yaml:2:5: the rule has no check; expected one of: absent, present, count, time, count-vs-base, time-vs-base, no-new-types, sequence, fused.',
    ],
    [
      'two checks',
      'rules:\n  - type: Cast\n    absent: true\n    present: true\n',
      'r.yaml:4:5: one check per rule, found absent and present; split them into two rules.',
    ],
    [
      'two selectors',
      'rules:\n  - type: Cast\n    name: aclnnCast\n    absent: true\n',
      'r.yaml:3:5: one kernel selector per rule, found type and name; use a group for several kernels.',
    ],
    [
      'no selector',
      'rules:\n  - absent: true\n',
      'r.yaml:2:5: the rule does not say which kernels it is about; expected one of: type, name, group, match, kernels (kernels: all for every kernel).',
    ],
    [
      'a selector on no-new-types',
      'rules:\n  - type: Cast\n    no-new-types: true\n',
      'r.yaml:2:5: no-new-types looks at every kernel type; drop "type:" (use allow: to permit new types).',
    ],
    [
      'absent: false',
      'rules:\n  - type: Cast\n    absent: false\n',
      'r.yaml:3:13: absent: expected true; found false. For "must run", write present: true.',
    ],
    [
      'a %YAML 1.1 directive, which would make yes true and 010 eight',
      '# kprof rules\n%YAML 1.1\n---\nrules:\n  - type: Cast\n    count: { max: 010 }\n',
      'r.yaml:2:1: %YAML 1.1: kprof reads YAML 1.2 only, where yes, no, on and off are texts and 010 is ten, not the booleans and octal numbers of YAML 1.1. Remove the %YAML line, and write true or false where you meant them.',
    ],
    [
      'a YAML tag kprof does not read (the value would be read as a text, the tag dropped)',
      'rules:\n  - type: !custom Cast\n    present: true\n',
      'r.yaml:2:11: the YAML tag "!custom" is not one kprof reads (it reads plain YAML 1.2 values). Remove the tag and write the value alone.',
    ],
    [
      'a YAML tag the library reads (!!binary: bytes, shown as their base64)',
      'rules:\n  - type: !!binary Q2FzdA==\n    present: true\n',
      'r.yaml:2:11: the YAML tag "!!binary" is not one kprof reads (it reads plain YAML 1.2 values). Remove the tag and write the value alone.',
    ],
    [
      'a YAML tag the library reads (!!int), as one it does not (!!float)',
      'rules:\n  - type: Cast\n    count: { max: !!int 5 }\n  - type: Mul\n    count: { max: !!float 5 }\n',
      'r.yaml:3:19: the YAML tag "!!int" is not one kprof reads (it reads plain YAML 1.2 values). Remove the tag and write the value alone.',
    ],
    [
      'two YAML documents',
      'rules:\n  - type: Cast\n    absent: true\n---\nrules:\n  - type: Mul\n    absent: true\n',
      'r.yaml:4:1: a second YAML document (a --- line, or what follows a ... line); kprof reads one document a file. Remove it, or move what it holds into the first.',
    ],
    [
      'absent: yes (YAML 1.1)',
      'rules:\n  - type: Cast\n    absent: yes\n',
      'r.yaml:3:13: absent: expected true; found "yes" (YAML 1.1 read it as true; kprof reads YAML 1.2, where it is a text: write true). For "must run", write present: true.',
    ],
    [
      'present: on (YAML 1.1)',
      'rules:\n  - type: Cast\n    present: On\n',
      'r.yaml:3:14: present: expected true; found "On" (YAML 1.1 read it as true; kprof reads YAML 1.2, where it is a text: write true). For "must not run", write absent: true.',
    ],
    [
      'present: no (YAML 1.1): no hint to write false, which present: does not take',
      'rules:\n  - type: Cast\n    present: no\n',
      'r.yaml:3:14: present: expected true; found "no". For "must not run", write absent: true.',
    ],
    [
      'a bad severity',
      'rules:\n  - type: Cast\n    absent: true\n    severity: fatal\n',
      'r.yaml:4:15: severity: expected error or warn; found "fatal".',
    ],
    ['a bad per', 'rules:\n  - type: Cast\n    count: { per: steps, max: 1 }\n', 'r.yaml:3:19: count: per: expected total or step; found "steps".'],
    [
      'a bad duration',
      'rules:\n  - type: Cast\n    time: { max: 5 sec }\n',
      'r.yaml:3:18: time: max: expected a duration such as 150us, 1.5ms or 2s (a bare number is µs); found "5 sec".',
    ],
    [
      'a duration of 400 digits (Infinity)',
      `rules:\n  - type: Cast\n    time: { max: "1${'0'.repeat(400)}us" }\n`,
      `r.yaml:3:18: time: max: expected a duration of at most 2^51 ticks of 0.1 ns (225,179,981,368 µs, about 62 hours), the most kernel time kprof sums; found "1${'0'.repeat(39)}…".`,
    ],
    [
      'a duration larger than any kernel time kprof sums',
      'rules:\n  - type: Cast\n    time: { max: 1e300 }\n',
      'r.yaml:3:18: time: max: expected a duration of at most 2^51 ticks of 0.1 ns (225,179,981,368 µs, about 62 hours), the most kernel time kprof sums; found 1e300.',
    ],
    [
      'a duration above 0 and below 0.1 ns (a tick: no time kprof can tell from 0)',
      'rules:\n  - type: Cast\n    time: { min: 1e-9 }\n',
      'r.yaml:3:18: time: min: expected 0 or a duration of at least 0.1 ns (0.0001 µs), the finest time kprof reads; found 1e-9.',
    ],
    [
      'a percentage of 400 digits (Infinity)',
      `rules:\n  - type: Cast\n    count-vs-base: { rose-by-at-most: "1${'0'.repeat(400)}%" }\n`,
      `r.yaml:3:39: count-vs-base: rose-by-at-most: expected a percentage below 2^53; found "1${'0'.repeat(39)}…".`,
    ],
    [
      'a percentage of 2^53 or more, written as a number (it bounds nothing, and would be 309 digits in the report)',
      'rules:\n  - type: Cast\n    count-vs-base: { rose-by-at-most: 1e308 }\n',
      'r.yaml:3:39: count-vs-base: rose-by-at-most: expected a percentage below 2^53; found 1e308.',
    ],
    [
      'a bad percentage',
      'rules:\n  - type: Cast\n    count-vs-base: { fell-by-at-least: lots }\n',
      'r.yaml:3:40: count-vs-base: fell-by-at-least: expected a percentage such as 20%; found "lots".',
    ],
    [
      'a fall of more than 100%',
      'rules:\n  - type: Cast\n    count-vs-base: { fell-by-at-least: 120% }\n',
      'r.yaml:3:40: count-vs-base: fell-by-at-least: expected a percentage above 0% and at most 100%; found "120%".',
    ],
    ['min above max', 'rules:\n  - type: Cast\n    count: { min: 3, max: 1 }\n', 'r.yaml:3:19: count: min is larger than max; no run can pass.'],
    [
      'min: 0 alone (every run holds it)',
      'rules:\n  - type: Cast\n    count: { per: step, min: 0 }\n',
      'r.yaml:3:30: count: min: 0 with no max: holds for every run, so the rule can never break. Write min: 1 for "runs at least once", or give a max:.',
    ],
    [
      'time min: 0us alone',
      'rules:\n  - type: Cast\n    time: { min: 0us }\n',
      'r.yaml:3:18: time: min: 0 with no max: holds for every run, so the rule can never break. Write a min: above 0, or give a max:.',
    ],
    [
      'sequence min: 0 alone',
      'rules:\n  - type: [Cast, Cast]\n    sequence: { per: step, min: 0 }\n',
      'r.yaml:3:33: sequence: min: 0 with no max: holds for every run, so the rule can never break. Write min: 1 for "runs at least once", or give a max:.',
    ],
    [
      'kernels: all with absent: true, which no run can pass',
      'rules:\n  - rule: nothing runs\n    kernels: all\n    absent: true\n',
      'r.yaml:2:5: kernels: all with absent: true can never hold: it asks that no kernel at all runs, and a profile where no kernel was read ' +
        'stops the check with exit 2, so every run would break the rule. To keep kernels out, name them (type: InterleaveRope with absent: true, ' +
        'or a group: or match:); to cap every kernel, give a bound above 0 (kernels: all with count: { per: step, max: 80 }).',
    ],
    [
      'kernels: all with a count of at most 0',
      'rules:\n  - type: Cast\n    absent: true\n  - kernels: all\n    count: { per: step, exactly: 0 }\n',
      'r.yaml:4:5: kernels: all with a count of exactly 0 per step can never hold: it asks that no kernel at all runs, and a profile where no kernel was read ' +
        'stops the check with exit 2, so every run would break the rule. To keep kernels out, name them (type: InterleaveRope with absent: true, ' +
        'or a group: or match:); to cap every kernel, give a bound above 0 (kernels: all with count: { per: step, max: 80 }).',
    ],
    [
      'kernels: all with min: 0, max: 0, said as the bound reads (not as exactly:, which the file does not write)',
      'rules:\n  - kernels: all\n    count: { min: 0, max: 0 }\n',
      'r.yaml:2:5: kernels: all with a count of exactly 0 in total can never hold: it asks that no kernel at all runs, and a profile where no kernel was read ' +
        'stops the check with exit 2, so every run would break the rule. To keep kernels out, name them (type: InterleaveRope with absent: true, ' +
        'or a group: or match:); to cap every kernel, give a bound above 0 (kernels: all with count: { per: step, max: 80 }).',
    ],
    [
      'kernels: all with max: 0 per step',
      'rules:\n  - kernels: all\n    count: { per: step, max: 0 }\n',
      'r.yaml:2:5: kernels: all with a count of at most 0 per step can never hold: it asks that no kernel at all runs, and a profile where no kernel was read ' +
        'stops the check with exit 2, so every run would break the rule. To keep kernels out, name them (type: InterleaveRope with absent: true, ' +
        'or a group: or match:); to cap every kernel, give a bound above 0 (kernels: all with count: { per: step, max: 80 }).',
    ],
    [
      'kernels: all with present: true, which no run can break',
      'rules:\n  - kernels: all\n    present: true\n',
      'r.yaml:2:5: kernels: all with present: true holds for every run, so the rule can never break: a profile where no kernel was read ' +
        'stops the check with exit 2 before any rule is evaluated. To ask that a kernel runs, name it (type: MlaPrologV3 with present: true); ' +
        'to ask for a number of kernels, give a min: above 1 or a max: (kernels: all with count: { per: step, min: 40, max: 80 }).',
    ],
    [
      'kernels: all with a count of at least 1 per step and no max',
      'rules:\n  - type: Cast\n    absent: true\n  - kernels: all\n    count: { per: step, min: 1 }\n',
      'r.yaml:4:5: kernels: all with a count of at least 1 per step holds for every run, so the rule can never break: a profile where no kernel was read ' +
        'stops the check with exit 2 before any rule is evaluated. To ask that a kernel runs, name it (type: MlaPrologV3 with present: true); ' +
        'to ask for a number of kernels, give a min: above 1 or a max: (kernels: all with count: { per: step, min: 40, max: 80 }).',
    ],
    [
      'exactly with min',
      'rules:\n  - type: Cast\n    count: { exactly: 1, min: 1 }\n',
      'r.yaml:3:14: count: exactly: cannot be combined with min: or max:.',
    ],
    ['no bound', 'rules:\n  - type: Cast\n    count: { per: step }\n', 'r.yaml:3:12: count: expected min:, max: or exactly:.'],
    ['an empty rules list', 'rules: []\n', 'r.yaml:1:8: rules: the list is empty; a gate with no rules cannot fail. Add at least one rule.'],
    [
      'a file of one long text: quoted as any input, escaped and cut',
      `${'x'.repeat(100)}\\x1b \u0007\n`,
      `r.yaml:1:1: the rules file should be a mapping (key: value); found "${'x'.repeat(40)}…".`,
    ],
    [
      'a text with ESC and a text of its own \\x1b in it',
      'rules:\n  - type: Cast\n    absent: true\n    severity: "a\\e\\\\x1b"\n',
      'r.yaml:4:15: severity: expected error or warn; found "a\\x1b\\x5cx1b".',
    ],
    ['rules not a list', 'rules:\n  type: Cast\n', 'r.yaml:2:3: rules: expected a list of rules (each item starting with "- "); found a mapping.'],
    [
      'an empty file',
      '',
      'r.yaml:1:1: the rules file is empty; expected a mapping with a "rules:" list, such as: rules: [{ type: InterleaveRope, absent: true }].',
    ],
    [
      'a bad rank',
      'rules:\n  - type: Cast\n    absent: true\n    ranks: [0, a b]\n',
      'r.yaml:4:16: ranks: expected a rank id, a list of them ([0, 1]) or all; found "a b".',
    ],
    [
      'a rank listed twice (plain and quoted alike)',
      'rules:\n  - type: Cast\n    absent: true\n    ranks: [0, 2, "0"]\n',
      'r.yaml:4:19: ranks: rank "0" is listed twice (a slip for another?); expected each rank once, as in [0, 1].',
    ],
    [
      'a reversed step range',
      'rules:\n  - type: Cast\n    absent: true\n    steps: 9-3\n',
      'r.yaml:4:12: steps: the range ends before it starts (write it as 3-9); found "9-3". Expected a Step Id (7), a range (5-20), an open range (14- or -8) or a list of them (13,15,20-30).',
    ],
    [
      'an empty item in a step list',
      'rules:\n  - type: Cast\n    absent: true\n    steps: "7,"\n',
      'r.yaml:4:12: steps: an empty item in the list (a stray comma?); found "7,". Expected a Step Id (7), a range (5-20), an open range (14- or -8) or a list of them (13,15,20-30).',
    ],
    ['an unknown version', 'version: 2\nrules:\n  - type: Cast\n    absent: true\n', 'r.yaml:1:10: version: expected 1; found 2.'],
    [
      'kernels: other than all',
      'rules:\n  - kernels: some\n    absent: true\n',
      'r.yaml:2:14: kernels: expected "all" (every kernel); found "some".',
    ],
  ];
  for (const [what, text, message] of cases) {
    it(what, () => {
      expect(error(text)).toBe(message);
    });
  }

  // The tail of these messages is the JavaScript engine's own description of the syntax error.
  it('a bad regular expression in match:', () => {
    expect(error('rules:\n  - match: "(unclosed"\n    absent: true\n')).toMatch(
      /^r\.yaml:2:12: match: bad regular expression \(unclosed: missing closing \): `\(unclosed`\.$/,
    );
  });
  it('a bad regular expression in allow:', () => {
    expect(error('rules:\n  - no-new-types: { allow: ["/(x/"] }\n')).toMatch(
      /^r\.yaml:2:29: allow: bad regular expression \/\(x\/: missing closing \): `\(x`\.$/,
    );
  });
  // `/rope/g` is how JavaScript writes a regular expression with a flag: read as a name (or, in match:, as the
  // pattern "/rope/g"), it would match no kernel, and an absent: rule on it would pass.
  it('a /regular expression/ with a JavaScript flag kprof does not take (g, y, d, v) in match:, allow: and a group', () => {
    // (x is no JavaScript flag: `/usr/x` stays a name.)
    expect(error('rules:\n  - match: /rope/g\n    absent: true\n')).toBe(
      'r.yaml:2:12: match: bad regular expression /rope/g: the flag g is not one kprof takes (it takes i, m, s and u); remove it.',
    );
    expect(error('rules:\n  - no-new-types: { allow: ["/^Mla/gi"] }\n')).toMatch(
      /^r\.yaml:2:29: allow: bad regular expression \/\^Mla\/gi: the flag g is not/,
    );
    expect(error('groups:\n  g: ["/Rope/y"]\nrules:\n  - group: g\n    absent: true\n')).toMatch(
      /^r\.yaml:2:7: group "g": bad regular expression \/Rope\/y: the flag y is not one kprof takes/,
    );
    // A name with slashes stays a name; /…/ with the flags kprof takes is a pattern.
    expect(parseRules('r.yaml', 'rules:\n  - type: "/a/b/1"\n    absent: true\n').rules[0]!.selector).toEqual({ kind: 'type', values: ['/a/b/1'] });
    expect(parseRules('r.yaml', 'groups:\n  g: ["/usr/x"]\nrules:\n  - group: g\n    absent: true\n').groups[0]!.exact).toEqual(new Set(['/usr/x']));
    expect(parseRules('r.yaml', 'rules:\n  - match: /rope/is\n    absent: true\n').rules[0]!.selector).toMatchObject({ kind: 'match' });
  });
  it('a type or name YAML reads as a number is the text as written (1.10, 0x10, 007)', () => {
    expect(parseRules('r.yaml', 'rules:\n  - type: 1.10\n    absent: true\n').rules[0]!.selector).toEqual({ kind: 'type', values: ['1.10'] });
    expect(parseRules('r.yaml', 'rules:\n  - name: [0x10, 007, 1e3, 12]\n    absent: true\n').rules[0]!.selector).toEqual({
      kind: 'name',
      values: ['0x10', '007', '1e3', '12'],
    });
    expect(parseRules('r.json', '{"rules": [{"type": 1.10, "absent": true}]}').rules[0]!.selector).toEqual({ kind: 'type', values: ['1.10'] });
    // A group named by a number is named as written, and a rule finds it by that name.
    for (const name of ['1', '01', '1.10']) {
      const set = parseRules('r.yaml', `groups:\n  ${name}: [Cast]\nrules:\n  - group: ${name}\n    absent: true\n`);
      expect(set.groups.map((g) => g.name)).toEqual([name]);
      expect(set.rules[0]!.selector).toMatchObject({ kind: 'group' });
    }
  });
  it('a bad regular expression in a group', () => {
    expect(error('groups:\n  g: ["/[/"]\nrules:\n  - group: g\n    absent: true\n')).toMatch(
      /^r\.yaml:2:7: group "g": bad regular expression \/\[\/: .+\.$/,
    );
  });
});

describe('parseRules: lists nested past what the YAML parser reads', () => {
  it('say so at the line, not as a stack overflow', () => {
    // Where the parser's stack runs out depends on the thread's stack size: the column is not fixed.
    expect(() => parseRules('r.yaml', `rules:\n  - type: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`)).toThrow(
      /^r\.yaml:2:\d+: lists or mappings nested too deeply to read \(hundreds of levels; a rules or groups file needs a few\)\. Flatten the file there\.$/,
    );
  });
});

describe('parseRules: steps: takes what --steps takes', () => {
  it('open ranges and lists, sorted and merged', () => {
    const set = parseRules(
      'r.yaml',
      'steps: "20-30,13,15"\nrules:\n  - type: Cast\n    absent: true\n  - type: Mul\n    absent: true\n    steps: 14-\n',
    );
    expect(set.rules[0]!.steps).toEqual([
      { from: 13, to: 13 },
      { from: 15, to: 15 },
      { from: 20, to: 30 },
    ]);
    expect(set.rules[1]!.steps).toEqual([{ from: 14, to: Number.POSITIVE_INFINITY }]);
  });
});

describe('parseRules: YAML 1.2', () => {
  it('a %YAML 1.2 directive is read as a file without one', () => {
    const text = 'rules:\n  - type: Cast\n    count: { max: 010 }\n';
    const [rule] = parseRules('r.yaml', `%YAML 1.2\n---\n${text}`).rules;
    expect(rule?.check).toEqual(parseRules('r.yaml', text).rules[0]?.check);
    expect(rule?.check).toMatchObject({ kind: 'count', bounds: { max: 10 } });
  });
});
