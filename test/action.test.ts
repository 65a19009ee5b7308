// The GitHub Action (action.yml) and its script, scripts/action.mjs, run as the runner runs it: inputs in
// INPUT_* variables, GITHUB_STEP_SUMMARY and GITHUB_OUTPUT files, RUNNER_TEMP, GITHUB_ACTION_PATH (this clone,
// built by npm test). What it wrote to the log, the summary and the outputs is checked.

import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kprof, ROOT } from './helpers.js';

const EX = 'fixtures/fusion-example';
const BREAKS = 'fixtures/rules/multi-rank-one-breaks';

interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  summary: string;
  outputs: Record<string, string>;
}

/** GITHUB_OUTPUT's `name<<DELIMITER` blocks. */
function readOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^([\w-]+)<<(\S+)\n([\s\S]*?)\n?\2\n/gm)) out[m[1]!] = m[3]!;
  return out;
}

let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'kprof-action-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Run the action's step with these inputs, from the repo root (the workspace). */
function runAction(inputs: Record<string, string>, extraEnv: Record<string, string> = {}): ActionRun {
  const dir = mkdtempSync(join(tmp, 'run-'));
  const summaryFile = join(dir, 'summary.md');
  const outputFile = join(dir, 'output');
  writeFileSync(summaryFile, '');
  writeFileSync(outputFile, '');
  mkdirSync(join(dir, 'runner-temp'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmp,
    GITHUB_ACTIONS: 'true',
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_OUTPUT: outputFile,
    RUNNER_TEMP: join(dir, 'runner-temp'),
    GITHUB_ACTION_PATH: ROOT,
    GITHUB_WORKSPACE: ROOT,
    ...extraEnv,
  };
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase().replace(/-/g, '_')}`] = v;
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/action.mjs')], { cwd: ROOT, env, encoding: 'utf8' });
  return {
    code: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    summary: readFileSync(summaryFile, 'utf8'),
    outputs: readOutputs(readFileSync(outputFile, 'utf8')),
  };
}

/** Lines of the log that the runner reads as workflow commands. */
const commands = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('::'));

describe('the action: a check that passes', () => {
  it('exits 0, writes the Markdown check and diff reports to the summary, passed=true', async () => {
    const inputs = { profile: `${EX}/pr`, rules: `${EX}/kprof.rules.yaml`, base: `${EX}/base`, 'diff-base': `${EX}/base` };
    const r = runAction(inputs);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('check passed: 8 of 8 rules held.');
    expect(commands(r.stdout)).toEqual([]);
    const check = await kprof(['check', `${EX}/pr`, '--rules', `${EX}/kprof.rules.yaml`, '--base', `${EX}/base`, '--format', 'markdown']);
    const diff = await kprof(['diff', `${EX}/base`, `${EX}/pr`, '--format', 'markdown']);
    expect(r.summary).toBe(`${check.stdout}\n### kprof diff\n\n${diff.stdout}\n`);
    expect(r.summary).toContain('<!-- kprof:diff -->\n**Kernel diff:** `MlaPrologV3` appears (+16)');
    expect(r.outputs).toEqual({
      passed: 'true',
      'report-path': expect.stringMatching(/kprof-check\.md$/),
      'diff-report-path': expect.stringMatching(/kprof-diff\.md$/),
      'exit-code': '0',
    });
    expect(readFileSync(r.outputs['report-path']!, 'utf8')).toBe(check.stdout);
    expect(readFileSync(r.outputs['diff-report-path']!, 'utf8')).toBe(diff.stdout);
  });

  it('without diff-base writes the check report only', () => {
    const r = runAction({ profile: `${EX}/pr`, rules: `${EX}/kprof.rules.yaml`, base: `${EX}/base` });
    expect(r.code).toBe(0);
    expect(r.summary).toMatch(/^### kprof check: passed\n/);
    expect(r.summary).not.toContain('kprof diff');
    expect(r.outputs['diff-report-path']).toBe('');
  });
});

describe('the action: a rule that breaks (exit code 1)', () => {
  it('fails the step with exit code 1, annotates the rule on its line, passed=false, the report in the summary', async () => {
    const r = runAction({ profile: `${BREAKS}/profile`, rules: `${BREAKS}/kprof.rules.yaml` });
    expect(r.code).toBe(1);
    expect(commands(r.stdout)).toEqual([
      expect.stringMatching(
        /^::error file=fixtures\/rules\/multi-rank-one-breaks\/kprof\.rules\.yaml,line=3,col=5,title=kprof check%3A exactly one Cast per step::rank 1, step 2/,
      ),
    ]);
    const check = await kprof(['check', `${BREAKS}/profile`, '--rules', `${BREAKS}/kprof.rules.yaml`, '--format', 'markdown']);
    expect(check.code).toBe(1);
    expect(r.summary).toBe(`${check.stdout}\n`);
    expect(r.summary).toMatch(/^### kprof check: failed\n/);
    expect(r.outputs).toEqual({
      passed: 'false',
      'report-path': expect.stringMatching(/kprof-check\.md$/),
      'diff-report-path': '',
      'exit-code': '1',
    });
    expect(readFileSync(r.outputs['report-path']!, 'utf8')).toBe(check.stdout);
  });

  it('a diff that cannot be made is a warning; the verdict stays the check’s', () => {
    const r = runAction({ profile: `${BREAKS}/profile`, rules: `${BREAKS}/kprof.rules.yaml`, 'diff-base': 'fixtures/no-such-base' });
    expect(r.code).toBe(1);
    expect(commands(r.stdout)[1]).toBe('::warning title=kprof diff::kprof: fixtures/no-such-base: no such file or folder. Check the path.');
    expect(r.summary).toContain(
      '### kprof diff: not made (exit code 2)\n\n```text\nkprof: fixtures/no-such-base: no such file or folder. Check the path.\n```\n',
    );
    expect(r.outputs['diff-report-path']).toBe('');
    expect(r.outputs.passed).toBe('false');
  });
});

describe('the action: bad input (exit code 2)', () => {
  it('fails the step with exit code 2 when the rules file is missing; the error is annotated and in the summary', () => {
    const r = runAction({ profile: `${EX}/pr`, rules: `${EX}/no-such.rules.yaml` });
    expect(r.code).toBe(2);
    const message = `kprof: ${EX}/no-such.rules.yaml: no such file or folder. Check the path.`;
    // kprof's own annotation of its error (--format github), on stderr; the runner reads both streams.
    expect(commands(r.stdout)).toEqual([]);
    expect(commands(r.stderr)).toEqual([`::error title=kprof%3A input error::${EX}/no-such.rules.yaml: no such file or folder. Check the path.`]);
    // One run of the check: the annotation in the log, the same message as plain text in the summary.
    expect(r.summary).toBe(`### kprof check: bad rules or input (exit code 2)\n\n\`\`\`text\n${message}\n\`\`\`\n\n`);
    expect(r.outputs).toEqual({ passed: 'false', 'report-path': '', 'diff-report-path': '', 'exit-code': '2' });
  });

  it('exits 2 when rules that compare have no base', () => {
    const r = runAction({ profile: `${EX}/pr`, rules: `${EX}/kprof.rules.yaml` });
    expect(r.code).toBe(2);
    expect(commands(r.stderr)).toEqual([
      expect.stringMatching(/^::error file=fixtures\/fusion-example\/kprof\.rules\.yaml,line=26,title=kprof%3A usage error::.*pass --base/),
    ]);
    expect(r.summary).toMatch(
      /^### kprof check: bad rules or input \(exit code 2\)\n\n```text\nkprof: fixtures\/fusion-example\/kprof\.rules\.yaml:26: .*pass --base/,
    );
    expect(r.outputs.passed).toBe('false');
  });

  it.each([
    [{ rules: `${EX}/kprof.rules.yaml` }, 'profile: required'],
    [{ profile: `${EX}/pr`, rules: '  ' }, 'rules: required'],
  ])('exits 2 without running kprof when a required input is missing (%o)', (inputs, message) => {
    const r = runAction(inputs);
    expect(r.code).toBe(2);
    expect(commands(r.stdout)).toEqual([expect.stringContaining(`::error title=kprof action::${message}`)]);
    expect(r.summary).toMatch(/^### kprof check: not run\n/);
    expect(r.outputs).toEqual({ passed: 'false', 'report-path': '', 'diff-report-path': '', 'exit-code': '2' });
  });
});

describe('the action: inputs are data, never code', () => {
  it('runs on paths that hold shell syntax, and runs none of it', () => {
    const dir = mkdtempSync(join(tmp, 'hostile-'));
    const profile = join(dir, '$(touch pwned-1) `touch pwned-2`; touch pwned-3 "\'');
    cpSync(join(ROOT, BREAKS, 'profile'), profile, { recursive: true });
    const rules = join(dir, 'rules $HOME ${PATH} |x&.yaml');
    cpSync(join(ROOT, BREAKS, 'kprof.rules.yaml'), rules);
    const r = runAction({ profile, rules, 'diff-base': profile });
    expect(r.code, r.stderr).toBe(1);
    expect(r.outputs.passed).toBe('false');
    expect(r.summary).toContain('### kprof diff');
    for (const where of [ROOT, dir, tmp]) expect(readdirSync(where).filter((f) => f.startsWith('pwned'))).toEqual([]);
  });

  it('a message that carries line breaks cannot start a workflow command of its own', () => {
    const r = runAction({ profile: `${EX}/pr`, rules: `${EX}/x\n::error::injected\r\n::add-mask::x\n\`\`\`\n# heading.yaml` });
    expect(r.code).toBe(2);
    const lines = commands(`${r.stdout}${r.stderr}`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^::error title=kprof%3A input error::/);
    expect(`${r.stdout}\n${r.stderr}`).not.toMatch(/^::(error::injected|add-mask)/m);
    // In the summary the message sits in a fenced block longer than any run of backticks in it.
    expect(r.summary).toMatch(
      /\n````text\nkprof: fixtures\/fusion-example\/x\\x0a::error::injected[^\n]*```[^\n]*# heading\.yaml: no such file[^\n]*\n````\n/,
    );
  });

  it('a version input is no way to run a package fetched by name: the action has no such input, and npm never installs kprof', () => {
    const bin = mkdtempSync(join(tmp, 'bin-'));
    const npmLog = join(bin, 'npm.log');
    writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho "$@" >> '${npmLog}'\n`);
    chmodSync(join(bin, 'npm'), 0o755);
    const r = runAction(
      { profile: `${EX}/pr`, rules: `${EX}/kprof.rules.yaml`, base: `${EX}/base`, version: '1.0.0' },
      { PATH: `${bin}:${process.env.PATH}` },
    );
    expect(r.code).toBe(0);
    expect(existsSync(npmLog)).toBe(false);
  });

  it('runs the check once: one kprof check process writes the annotations and the Markdown report', () => {
    // A node stand-in on PATH is not what runs kprof (process.execPath is); count the check runs by a wrapper of
    // the bundle instead: GITHUB_ACTION_PATH at a copy whose bin/kprof.js logs its arguments, then runs the bundle.
    const copy = mkdtempSync(join(tmp, 'action-copy-'));
    mkdirSync(join(copy, 'bin'));
    mkdirSync(join(copy, 'dist/bundle'), { recursive: true });
    writeFileSync(join(copy, 'dist/bundle/cli.js'), '');
    const log = join(copy, 'runs.log');
    writeFileSync(
      join(copy, 'bin/kprof.js'),
      `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(log)}, process.argv.slice(2).join(' ') + '\\n');\nawait import(${JSON.stringify(pathToFileURL(join(ROOT, 'bin/kprof.js')).href)});\n`,
    );
    const r = runAction({ profile: `${BREAKS}/profile`, rules: `${BREAKS}/kprof.rules.yaml` }, { GITHUB_ACTION_PATH: copy });
    expect(r.code).toBe(1);
    const runs = readFileSync(log, 'utf8').trimEnd().split('\n');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(/^check .* --format github --markdown-out .*kprof-check\.md$/);
    expect(r.summary).toMatch(/^### kprof check: failed\n/);
  });

  it('builds the action’s own copy when it has no bundle, and exits 2 when that fails', () => {
    const bin = mkdtempSync(join(tmp, 'bin-'));
    const npmLog = join(bin, 'npm.log');
    writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho "$@ in $PWD" >> '${npmLog}'\nexit 1\n`);
    chmodSync(join(bin, 'npm'), 0o755);
    const clone = mkdtempSync(join(tmp, 'action-clone-'));
    const r = runAction({ profile: `${EX}/pr`, rules: `${EX}/kprof.rules.yaml` }, { PATH: `${bin}:${process.env.PATH}`, GITHUB_ACTION_PATH: clone });
    expect(r.code).toBe(2);
    // No install scripts: nothing native is compiled, so a runner without a compiler builds it too.
    expect(readFileSync(npmLog, 'utf8')).toBe(`ci --ignore-scripts --no-audit --no-fund in ${clone}\n`);
    expect(commands(r.stdout)).toContain(`::error title=kprof action::could not build kprof in ${clone} (npm ci exited 1).`);
    expect(r.outputs.passed).toBe('false');
  });
});

describe('action.yml', () => {
  const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
    name: string;
    description: string;
    inputs: Record<string, { required: boolean; default?: string }>;
    outputs: Record<string, { value: string }>;
    runs: { using: string; steps: { id: string; shell: string; env: Record<string, string>; run: string }[] };
  };

  it('is a composite action with the inputs and outputs the script uses', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual(['profile', 'rules', 'base', 'diff-base']);
    expect(action.inputs.profile!.required).toBe(true);
    expect(action.inputs.rules!.required).toBe(true);
    for (const name of ['base', 'diff-base']) expect(action.inputs[name]).toMatchObject({ required: false, default: '' });
    for (const [name, o] of Object.entries(action.outputs)) expect(o.value).toBe(`\${{ steps.check.outputs.${name} }}`);
    expect(Object.keys(action.outputs)).toEqual(expect.arrayContaining(['passed', 'report-path']));
  });

  it('passes the inputs in the environment, never into the shell script', () => {
    const [step] = action.runs.steps;
    expect(action.runs.steps).toHaveLength(1);
    expect(step!.run).toBe('node "$GITHUB_ACTION_PATH/scripts/action.mjs"');
    expect(step!.run).not.toContain('${{');
    for (const name of Object.keys(action.inputs)) {
      expect(step!.env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`]).toBe(`\${{ inputs.${name} }}`);
    }
  });
});
