// `kprof check --format junit` keeps to the common JUnit schema that CI dashboards read (Jenkins' junit-10.xsd,
// https://github.com/jenkinsci/xunit-plugin/blob/master/src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd):
// its elements, in their places, with their attributes only, the required ones present, and the counts true.
// The schema's content model is written out below and checked with a streaming XML parser (saxes).

import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { kprof } from './helpers.js';

interface ElementRule {
  /** The attributes the schema declares, and which of them are required. */
  attributes: string[];
  required: string[];
  /** The elements it may hold. */
  children: string[];
  /** Whether it holds text. */
  text: boolean;
}

const JUNIT_10: Record<string, ElementRule> = {
  testsuites: { attributes: ['name', 'time', 'tests', 'failures', 'disabled', 'errors'], required: [], children: ['testsuite'], text: false },
  testsuite: {
    attributes: [
      'name',
      'tests',
      'failures',
      'errors',
      'time',
      'disabled',
      'skipped',
      'timestamp',
      'hostname',
      'id',
      'package',
      'file',
      'log',
      'url',
      'version',
    ],
    required: ['name', 'tests'],
    children: ['properties', 'testcase', 'system-out', 'system-err'],
    text: false,
  },
  properties: { attributes: [], required: [], children: ['property'], text: false },
  property: { attributes: ['name', 'value'], required: ['name', 'value'], children: [], text: false },
  testcase: {
    attributes: ['name', 'assertions', 'time', 'classname', 'status'],
    required: ['name'],
    children: ['skipped', 'error', 'failure', 'system-out', 'system-err'],
    text: false,
  },
  skipped: { attributes: ['message'], required: [], children: [], text: true },
  error: { attributes: ['message', 'type'], required: [], children: [], text: true },
  failure: { attributes: ['message', 'type'], required: [], children: [], text: true },
  'system-out': { attributes: [], required: [], children: [], text: true },
  'system-err': { attributes: [], required: [], children: [], text: true },
};

/** What in `xml` the schema does not allow (empty when it is valid), and the counts seen. */
function validate(xml: string): { problems: string[]; testcases: number; failures: number; root: Record<string, string> } {
  const problems: string[] = [];
  const stack: string[] = [];
  let testcases = 0;
  let failures = 0;
  let root: Record<string, string> = {};
  const parser = new SaxesParser();
  parser.on('error', (e) => problems.push(`not well-formed: ${e.message}`));
  parser.on('opentag', (tag) => {
    const rule = JUNIT_10[tag.name];
    const parent = stack.at(-1);
    if (rule === undefined) problems.push(`<${tag.name}> is not an element of the schema`);
    else {
      for (const a of Object.keys(tag.attributes)) if (!rule.attributes.includes(a)) problems.push(`<${tag.name}> has no attribute ${a}`);
      for (const a of rule.required) if (!(a in tag.attributes)) problems.push(`<${tag.name}> lacks the required attribute ${a}`);
    }
    if (parent === undefined) {
      if (tag.name !== 'testsuites') problems.push(`the root is <${tag.name}>, not <testsuites>`);
      root = tag.attributes as Record<string, string>;
    } else if (!JUNIT_10[parent]?.children.includes(tag.name)) problems.push(`<${tag.name}> inside <${parent}>`);
    if (tag.name === 'testcase') testcases++;
    if (tag.name === 'failure') failures++;
    stack.push(tag.name);
  });
  parser.on('closetag', () => stack.pop());
  parser.on('text', (t) => {
    const at = stack.at(-1);
    if (at !== undefined && t.trim() !== '' && !JUNIT_10[at]?.text) problems.push(`text inside <${at}>`);
  });
  parser.write(xml).close();
  return { problems, testcases, failures, root };
}

const R = 'fixtures/rules';

describe('kprof check --format junit against the common JUnit schema', () => {
  it('the schema check finds what the schema does not allow', () => {
    const bad = validate(
      '<testsuites skipped="0"><testsuite tests="1"><testcase name="a" file="x" line="3"><failure>f</failure></testcase></testsuite></testsuites>',
    );
    expect(bad.problems).toEqual([
      '<testsuites> has no attribute skipped',
      '<testsuite> lacks the required attribute name',
      '<testcase> has no attribute file',
      '<testcase> has no attribute line',
    ]);
  });

  for (const [what, args] of [
    [
      'rules that break, hold and warn, against a base',
      ['check', `${R}/one-rank/regressed`, '--rules', `${R}/one-rank/every-kind.rules.yaml`, '--base', `${R}/one-rank/base`],
    ],
    [
      'rules that all hold, some matching nothing',
      ['check', 'fixtures/fusion-example/pr', '--rules', 'fixtures/fusion-example/kprof.rules.yaml', '--base', 'fixtures/fusion-example/base'],
    ],
    ['several ranks, one breaking', ['check', `${R}/multi-rank-one-breaks/profile`, '--rules', `${R}/multi-rank-one-breaks/kprof.rules.yaml`]],
    [
      'a rules file that cannot be read (the report of why kprof stopped)',
      ['check', `${R}/one-rank/pr`, '--rules', `${R}/bad-rules/unknown-group.yaml`],
    ],
  ] as const) {
    it(`${what}: valid, with true counts`, async () => {
      const r = await kprof([...args, '--format', 'junit']);
      expect([0, 1, 2]).toContain(r.code);
      const v = validate(r.stdout);
      expect(v.problems).toEqual([]);
      expect(Number(v.root.tests)).toBe(v.testcases);
      expect(Number(v.root.failures)).toBe(v.failures);
      expect(v.failures > 0).toBe(r.code !== 0);
    });
  }
});
