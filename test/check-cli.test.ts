// kprof check, end to end: every output format, the exit codes, --out, and the errors of bad rules or input.

import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckJson } from '../src/model/schema.js';
import { docSection, expectTranscript, kprof, ROOT } from './helpers.js';

const R = 'fixtures/rules';
const EVERY = [`${R}/one-rank/regressed`, '--rules', `${R}/one-rank/every-kind.rules.yaml`, '--base', `${R}/one-rank/base`];
const MULTI = [`${R}/multi-rank-one-breaks/profile`, '--rules', `${R}/multi-rank-one-breaks/kprof.rules.yaml`];

const tmp = mkdtempSync(join(tmpdir(), 'kprof-check-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('kprof check: output formats', () => {
  it('text: every rule holds → exit 0', async () => {
    const r = await expectTranscript('check-pass', [
      'check',
      `${R}/one-rank/pr`,
      '--rules',
      `${R}/one-rank/every-kind.rules.yaml`,
      '--base',
      `${R}/one-rank/base`,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\ncheck passed: 13 of 13 rules held\.\n$/);
    expect(r.stdout).not.toContain('FAIL');
    // The PR's one Cast with an empty Step Id is in no step: the two per-step rules that select it say so.
    expect(r.stderr.split('\n')).toEqual([
      'kprof: warning: fixtures/rules/one-rank/every-kind.rules.yaml:21: 1 kernel the rule selects has an empty Step Id: in no step, so the rule, per step, did not count it. per: total counts every kernel.',
      'kprof: warning: fixtures/rules/one-rank/every-kind.rules.yaml:34: 1 kernel the rule selects has an empty Step Id: in no step, so the rule, per step, did not count it. per: total counts every kernel.',
      '',
    ]);
  });

  it('text: broken rules → exit 1, with the value, the bound, the step, the rule line and its why', async () => {
    const r = await expectTranscript('check-fail-text', ['check', ...EVERY]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'FAIL  fixtures/rules/one-rank/every-kind.rules.yaml:21  exactly one Cast per step: step 2: 2 kernels; bound: exactly 1 per step; broken in 1 of 3 steps\n' +
        '                                                      why: the other Casts were folded into MlaPrologV3\n',
    );
    expect(r.stdout).toContain('warn  fixtures/rules/one-rank/every-kind.rules.yaml:45  norm time per step: step 1: 7.00 µs');
    expect(r.stdout).toMatch(/\ncheck failed: 12 of 13 rules broken; 1 warning; 0 held; 1 matched no kernel\.\n$/);
  });

  it('text: several ranks, one of which breaks a rule', async () => {
    const r = await expectTranscript('check-multi-rank', ['check', ...MULTI]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'exactly one Cast per step: rank 1, step 2: 2 kernels; bound: exactly 1 per step; broken in 1 of 3 steps of rank 1; broken on 1 of 2 ranks (1)',
    );
    expect(r.stdout).toContain('pass  fixtures/rules/multi-rank-one-breaks/kprof.rules.yaml:7   exactly one Cast per step on rank 0:');
  });

  it('json: the declared schema, results in file order', async () => {
    const r = await expectTranscript('check-json', ['check', ...MULTI, '--format', 'json']);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout) as CheckJson;
    expect(j).toMatchObject({ schemaVersion: 1, kind: 'check', passed: false, rules: `${R}/multi-rank-one-breaks/kprof.rules.yaml` });
    expect(j.results.map((x) => [x.line, x.passed, x.rank, x.step, x.observed])).toEqual([
      [3, false, '1', 2, 2],
      [7, true, null, null, 1],
      [11, true, null, null, 1],
    ]);
    expect(j.results[0]).toEqual({
      rule: 'exactly one Cast per step',
      file: `${R}/multi-rank-one-breaks/kprof.rules.yaml`,
      line: 3,
      severity: 'error',
      passed: false,
      observed: 2,
      bound: { op: '<=', value: 1 },
      unit: 'kernels',
      per: 'step',
      rank: '1',
      step: 2,
      ranksBroken: ['1'],
      stepsBroken: [2],
      site: null,
      message: 'rank 1, step 2: 2 kernels; bound: exactly 1 per step; broken in 1 of 3 steps of rank 1; broken on 1 of 2 ranks (1)',
      why: 'the other Casts were folded into MlaPrologV3',
      unmatched: [],
      evidence: null,
    });
  });

  it('junit: one test case per rule; warn-level breaks are not failures', async () => {
    const r = await expectTranscript('check-junit', ['check', ...EVERY, '--format', 'junit']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="kprof check" tests="13" failures="12" errors="0">/);
    expect(r.stdout.match(/<testcase /g)).toHaveLength(13);
    expect(r.stdout.match(/<failure /g)).toHaveLength(12);
    expect(r.stdout).toContain('<system-out>warning: step 1: 7.00 µs; bound: time at most 5.00 µs per step');
  });

  it('github: ::error and ::warning annotations on the rules file', async () => {
    const r = await expectTranscript('check-github', ['check', ...EVERY, '--format', 'github']);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('::error '))).toHaveLength(12);
    expect(lines.filter((l) => l.startsWith('::warning '))).toHaveLength(1);
    expect(lines).toContain(
      '::error file=fixtures/rules/one-rank/every-kind.rules.yaml,line=21,col=5,title=kprof check%3A exactly one Cast per step::' +
        'step 2: 2 kernels; bound: exactly 1 per step; broken in 1 of 3 steps%0Awhy: the other Casts were folded into MlaPrologV3',
    );
    expect(lines.at(-1)).toBe('check failed: 12 of 13 rules broken; 1 warning; 0 held; 1 matched no kernel.');
  });

  it('github: rows that could not be read are ::warning annotations on their file and line, on stderr', async () => {
    const d = mkdtempSync(join(tmp, 'gh-warn-'));
    const csv = join(d, 'kernel_details.csv');
    writeFileSync(
      csv,
      'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n1,k1,A,AI_CORE,1.0,2.0\n1,k2,A,AI_CORE,3.0,5%0A\u001b\n1,k3,A\n',
    );
    const rules = join(d, 'r.yaml');
    writeFileSync(rules, 'rules:\n  - type: A\n    count: { max: 5 }\n');
    const r = await kprof(['check', csv, '--rules', rules, '--format', 'github'], { GITHUB_WORKSPACE: d });
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n')).toEqual([
      '::warning file=kernel_details.csv,line=3,title=kprof%3A read warning::Duration(us) is "5%250A\\x1b", expected a number of µs; row skipped',
      '::warning file=kernel_details.csv,line=4,title=kprof%3A read warning::row has 3 cells, the header has 6; row skipped',
      "kprof: 2 rows could not be read and were skipped (counted in the report's skipped rows).",
      '',
    ]);
    // Other formats keep the plain lines.
    const text = await kprof(['check', csv, '--rules', rules], { GITHUB_WORKSPACE: d });
    expect(text.stderr).toMatch(/^kprof: warning: .*kernel_details\.csv:3: Duration\(us\) is "5%0A\\x1b", expected a number of µs; row skipped$/m);
  });

  it('github: no ::error when every rule holds; the rules warnings are ::warning annotations', async () => {
    const r = await kprof([
      'check',
      `${R}/one-rank/pr`,
      '--rules',
      `${R}/one-rank/every-kind.rules.yaml`,
      '--base',
      `${R}/one-rank/base`,
      '--format',
      'github',
    ]);
    expect(r).toEqual({
      code: 0,
      stdout: 'read: 16 kernels, 0 rows skipped; base: 31 kernels, 0 rows skipped\ncheck passed: 13 of 13 rules held.\n',
      stderr: [21, 34]
        .map(
          (line) =>
            `::warning file=fixtures/rules/one-rank/every-kind.rules.yaml,line=${line},title=kprof%3A rule warning::fixtures/rules/one-rank/every-kind.rules.yaml:${line}: 1 kernel the rule selects has an empty Step Id: in no step, so the rule, per step, did not count it. per: total counts every kernel.\n`,
        )
        .join(''),
    });
  });

  it('markdown: a table for a job summary', async () => {
    const r = await expectTranscript('check-markdown', ['check', ...MULTI, '--format', 'markdown']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^### kprof check: failed\n/);
    expect(r.stdout).toContain(
      '| ❌ | `exactly one Cast per step` | rank `1`, step 2: 2 kernels; broken in 1 of 3 steps of rank `1`; broken on 1 of 2 ranks (`1`) | exactly 1 per step |',
    );
  });

  it('--out writes the report also when the check fails, and says the verdict on stderr', async () => {
    const out = join(tmp, 'check.xml');
    const r = await kprof(['check', ...MULTI, '--format', 'junit', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^kprof: check failed: 1 of 3 rules broken; 2 held\. Report written to .*check\.xml\.\n$/);
    expect(readFileSync(out, 'utf8')).toMatch(/<failure message="rank 1, step 2: 2 kernels;/);
  });

  it('--format junit -o -: the report, and the JUnit report of an error, go to stdout (no file named "-")', async () => {
    const r = await kprof(['check', ...MULTI, '--format', 'junit', '-o', '-']);
    expect(r.code).toBe(1);
    expect(existsSync(join(ROOT, '-'))).toBe(false);
    expect(r.stdout).toMatch(/<failure message="rank 1, step 2: 2 kernels;/);
    const e = await kprof(['check', join(tmp, 'nothing-here'), '--rules', join(tmp, 'nothing.yaml'), '--format', 'junit', '-o', '-'], {}, tmp);
    expect(e.code).toBe(2);
    expect(e.stdout).toMatch(/^<\?xml[\s\S]*<failure message=".*no such file or folder[\s\S]*type="kprof\.input"/);
    expect(existsSync(join(tmp, '-'))).toBe(false);
  });

  it('--format junit -o a folder: the error is said once (the JUnit error report cannot be written there either)', async () => {
    const r = await kprof(['check', ...MULTI, '--format', 'junit', '-o', tmp]);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr.match(/cannot write the report \(it is a folder\)/g)).toHaveLength(1);
    expect(r.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1);
  });

  it('--format junit -o an input (the rules file): the refusal is said once, and the file is left as it was', async () => {
    // In a folder whose name holds the message's own words.
    mkdirSync(join(tmp, 'x Pass -o y'), { recursive: true });
    const rulesFile = join(tmp, 'x Pass -o y', 'junit-onto.rules.yaml');
    copyFileSync(`${R}/multi-rank-one-breaks/kprof.rules.yaml`, rulesFile);
    const before = readFileSync(rulesFile, 'utf8');
    for (const flag of ['-o', '--out']) {
      const r = await kprof(['check', `${R}/multi-rank-one-breaks/profile`, '--rules', rulesFile, '--format', 'junit', flag, rulesFile]);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(
        r.stderr.split('\n').filter((l) => l !== ''),
        r.stderr,
      ).toHaveLength(1);
      expect(r.stderr).toMatch(/this is an input of this run; writing the report there would destroy it/);
      expect(readFileSync(rulesFile, 'utf8')).toBe(before);
    }
  });

  it('a summary JSON stands in for the profile and the base', async () => {
    const S = `${R}/snapshot-by-type`;
    const r = await expectTranscript('check-snapshot', [
      'check',
      `${S}/pr.summary.json`,
      '--rules',
      `${S}/by-type.rules.yaml`,
      '--base',
      `${S}/base.summary.json`,
    ]);
    expect(r.code).toBe(0);
  });
});

describe('kprof check: --markdown-out and --html-out', () => {
  it('write the Markdown and the HTML report of the same check beside the report of --format', async () => {
    const md = join(tmp, 'same.md');
    const html = join(tmp, 'same.html');
    const r = await kprof(['check', ...MULTI, '--format', 'github', '--markdown-out', md, '--html-out', html]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^::error /m);
    expect(readFileSync(md, 'utf8')).toBe((await kprof(['check', ...MULTI, '--format', 'markdown'])).stdout);
    expect(readFileSync(html, 'utf8')).toBe((await kprof(['check', ...MULTI, '--format', 'html'])).stdout);
  });

  it('two reports to one file: refused before the check runs, and nothing is written', async () => {
    const same = join(tmp, 'one-file.out');
    for (const args of [
      ['--format', 'junit', '-o', same, '--html-out', same],
      ['--format', 'json', '-o', same, '--markdown-out', join(tmp, '.', 'one-file.out')],
      ['--markdown-out', same, '--html-out', same],
    ]) {
      const r = await kprof(['check', ...MULTI, ...args]);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(
        /^kprof: --(html|markdown)-out .*one-file\.out: the same file as (-o|--markdown-out); each report needs a file of its own/,
      );
      if (args[1] === 'junit') {
        // Under --format junit the error itself is the report of -o (a JUnit error), never the HTML report.
        expect(readFileSync(same, 'utf8')).toMatch(/^<\?xml[\s\S]*the same file as -o/);
        rmSync(same);
      } else expect(existsSync(same)).toBe(false);
    }
  });

  it('two reports to one file through a link that does not lead anywhere yet: refused too', async () => {
    const target = join(tmp, 'later.md');
    const link = join(tmp, 'to-later.md');
    symlinkSync(target, link);
    const r = await kprof(['check', ...MULTI, '-o', target, '--markdown-out', link]);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^kprof: --markdown-out .*to-later\.md: the same file as -o; each report needs a file of its own/);
    expect(existsSync(target)).toBe(false);
  });

  it('--markdown-out or --html-out naming a folder, or a file in a folder that does not exist: refused before the check runs, by its own flag', async () => {
    for (const flag of ['--markdown-out', '--html-out']) {
      const r = await kprof(['check', ...MULTI, flag, tmp]);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(
        new RegExp(`^kprof: ${flag} .*: cannot write the report \\(it is a folder\\); nothing was written. Pass ${flag} a file path`),
      );
      const gone = await kprof(['check', ...MULTI, flag, join(tmp, 'no-such-folder', 'r.out')]);
      expect(gone).toMatchObject({ code: 2, stdout: '' });
      expect(gone.stderr).toMatch(new RegExp(`^kprof: ${flag} .*r\\.out: cannot write the report \\(the folder .*no-such-folder does not exist\\)`));
    }
  });

  it('--markdown-out or --html-out naming the rules file: refused before the check runs, the rules kept', async () => {
    const rules = join(tmp, 'kept.rules.yaml');
    const text = readFileSync(resolve(ROOT, MULTI[2]!), 'utf8');
    writeFileSync(rules, text);
    for (const flag of ['--markdown-out', '--html-out']) {
      const r = await kprof(['check', MULTI[0]!, '--rules', rules, flag, rules]);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(
        new RegExp(`^kprof: ${flag} .*kept\\.rules\\.yaml: this is an input of this run; writing the report there would destroy it`),
      );
      expect(readFileSync(rules, 'utf8')).toBe(text);
    }
  });

  it("--markdown-out or --html-out naming a file inside the profile's folder: refused by its own flag, before -o's report is written", async () => {
    const profile = join(tmp, 'inside-profile');
    cpSync(resolve(ROOT, MULTI[0]!), profile, { recursive: true });
    const csv = join(
      profile,
      readdirSync(profile, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('kernel_details.csv'))
        .sort()[0]!,
    );
    const text = readFileSync(csv, 'utf8');
    for (const flag of ['--markdown-out', '--html-out']) {
      const out = join(tmp, `inside${flag}.txt`);
      const r = await kprof(['check', profile, '--rules', MULTI[2]!, '-o', out, flag, csv]);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(
        new RegExp(
          `^kprof: ${flag} .*kernel_details\\.csv: this is an input of this run; writing the report there would destroy it, so nothing was written\\. Pass ${flag} another path\\.\\n$`,
        ),
      );
      expect(existsSync(out)).toBe(false);
      expect(readFileSync(csv, 'utf8')).toBe(text);
    }
  });
});

describe('kprof check: bad rules or input exit 2', () => {
  it('an unknown key, with file:line:col and what was expected', async () => {
    const r = await expectTranscript('check-error-unknown-key', ['check', `${R}/one-rank/pr`, '--rules', `${R}/bad-rules/unknown-key.yaml`]);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^kprof: fixtures\/rules\/bad-rules\/unknown-key\.yaml:9:5: unknown key "max" in a rule; /);
  });

  it('a wrong type', async () => {
    const r = await expectTranscript('check-error-wrong-type', ['check', `${R}/one-rank/pr`, '--rules', `${R}/bad-rules/wrong-type.yaml`]);
    expect(r.code).toBe(2);
  });

  it('a bad regular expression', async () => {
    const r = await kprof(['check', `${R}/one-rank/pr`, '--rules', `${R}/bad-rules/bad-regex.yaml`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^kprof: fixtures\/rules\/bad-rules\/bad-regex\.yaml:4:12: match: bad regular expression Rope\(: missing closing \): `Rope\(`\.\n$/,
    );
  });

  it('an unknown group', async () => {
    const r = await expectTranscript('check-error-unknown-group', ['check', `${R}/one-rank/pr`, '--rules', `${R}/bad-rules/unknown-group.yaml`]);
    expect(r.code).toBe(2);
  });

  it('the rules are validated before the profile is read', async () => {
    const r = await kprof(['check', 'fixtures/does-not-exist', '--rules', `${R}/bad-rules/unknown-group.yaml`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^kprof: fixtures\/rules\/bad-rules\/unknown-group\.yaml:/);
  });

  it('a rule against the base without --base', async () => {
    const r = await expectTranscript('check-error-no-base', ['check', `${R}/one-rank/pr`, '--rules', `${R}/one-rank/every-kind.rules.yaml`]);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'kprof: fixtures/rules/one-rank/every-kind.rules.yaml:37: this rule and 2 more compare against a base; pass --base <profile or summary.json>.\n',
    });
  });

  it('a rule by name on a summary JSON grouped by type', async () => {
    const r = await expectTranscript('check-error-names-on-type-snapshot', [
      'check',
      `${R}/snapshot-by-type/pr.summary.json`,
      '--rules',
      `${R}/one-rank/every-kind.rules.yaml`,
      '--base',
      `${R}/snapshot-by-type/base.summary.json`,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'every-kind.rules.yaml:14: the rule selects kernels by name, but fixtures/rules/snapshot-by-type/pr.summary.json is a summary JSON grouped by type',
    );
  });

  it('--rules is required; an unknown --format is a usage error', async () => {
    expect((await kprof(['check', `${R}/one-rank/pr`])).code).toBe(2);
    expect((await kprof(['check', `${R}/one-rank/pr`, '--rules', `${R}/one-rank/every-kind.rules.yaml`, '--format', 'xml'])).code).toBe(2);
  });
});

describe('the fusion example of the README', () => {
  const FE = 'fixtures/fusion-example';
  const has = existsSync(resolve(ROOT, `${FE}/pr`));

  it.skipIf(!has)('its rules hold on the PR and break on the base', async () => {
    const pass = await expectTranscript('check-fusion-example', ['check', `${FE}/pr`, '--rules', `${FE}/kprof.rules.yaml`, '--base', `${FE}/base`]);
    expect(pass.code).toBe(0);
    const fail = await expectTranscript('check-fusion-example-reverted', [
      'check',
      `${FE}/base`,
      '--rules',
      `${FE}/kprof.rules.yaml`,
      '--base',
      `${FE}/base`,
    ]);
    expect(fail.code).toBe(1);
    expect(fail.stdout).toMatch(/\ncheck failed: 6 of 8 rules broken; 2 held; 1 matched no kernel\.\n$/);
  });

  it.skipIf(!has)('the README shows the checked-in rules file and the output kprof prints', async () => {
    const section = docSection('check');
    const rulesFile = readFileSync(resolve(ROOT, `${FE}/kprof.rules.yaml`), 'utf8');
    const yamlBlock = /```yaml\n(version: 1\ngroups:[\s\S]*?)```/.exec(section)![1]!;
    expect(rulesFile.endsWith(yamlBlock)).toBe(true);
    const blocks = [...section.matchAll(/```console\n\$ kprof (check [^\n]*)\n([\s\S]*?)```/g)];
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const [, command, shown] of blocks) {
      const r = await kprof(command!.split(' '));
      expect(r.stdout + r.stderr).toBe(shown);
    }
  });
});

describe('kprof check: rule warnings name ranks escaped once', () => {
  it('a rank folder with a line break in its name reads r\\x0a1 in the empty-Step-Id warning, text and github', async () => {
    const run = join(tmp, 'escaped-once');
    const header = 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim';
    for (const rank of ['r\n1_ascend_pt', 'r2_ascend_pt']) {
      const d = join(run, rank, 'ASCEND_PROFILER_OUTPUT');
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'kernel_details.csv'), `${header}\n1,c,Cast,AI_CORE,1,1,0,1\n,c,Cast,AI_CORE,2,1,0,1\n`);
    }
    const rules = join(tmp, 'escaped-once.rules.yaml');
    writeFileSync(rules, 'version: 1\nrules:\n  - type: Cast\n    count: {per: step, max: 5}\n');
    for (const format of ['text', 'github']) {
      const r = await kprof(['check', run, '--rules', rules, '--format', format, '-q']);
      expect(r.code, r.stderr).toBe(0);
      const line = r.stderr.split('\n').find((l) => l.includes('empty Step Id'))!;
      expect(line).toContain('on ranks r\\x0a1_ascend_pt, r2_ascend_pt');
      expect(line).not.toContain('\\x5c');
    }
  });
});
