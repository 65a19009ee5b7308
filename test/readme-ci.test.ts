// The README's CI recipes are complete and agree with the code: the action's inputs and outputs, the diff's
// marker that finds the sticky comment, the JUnit file GitLab reads; and every `npx kprof …` they run works on the
// example pair (paths of the recipes mapped onto the fixtures).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DIFF_MARKDOWN_MARKER } from '../src/report/diff/markdown.js';
import { docSection, kprof, ROOT } from './helpers.js';

interface Step {
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
}
type Workflow = { jobs: Record<string, { steps: Step[] }> };

const ci = docSection('ci');
const blocks = [...ci.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1]!) as unknown);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; repository: { url: string } };
const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { required: boolean }>;
  outputs: Record<string, unknown>;
};

/** The `npx kprof …` commands of some shell lines, as argument lists (up to a redirection or `||`). */
function kprofCommands(lines: string[]): string[][] {
  return lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.includes('npx kprof '))
    .map((l) =>
      l
        .slice(l.indexOf('npx kprof ') + 'npx kprof '.length)
        .split(/\s+(?:>>|\|\||#)\s/)[0]!
        .trim()
        .split(/\s+/),
    );
}

const steps = (w: unknown): Step[] => Object.values((w as Workflow).jobs).flatMap((j) => j.steps);

let tmp = '';
let snapshot = '';
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'kprof-readme-ci-'));
  snapshot = join(tmp, 'baseline.summary.json');
  expect((await kprof(['summary', 'fixtures/fusion-example/base', '--format', 'json', '-o', snapshot])).code).toBe(0);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Run a recipe's command on the example pair: the recipe's paths become the fixtures', -o a temporary file. */
async function runOnExample(args: string[]) {
  const mapped = args.map((a, i) => {
    if (args[i - 1] === '-o') return join(tmp, a);
    if (a === 'profiles/baseline.summary.json') return snapshot;
    if (/^profiles\/(pr|mr)$/.test(a)) return 'fixtures/fusion-example/pr';
    if (a === 'kprof.rules.yaml') return 'fixtures/fusion-example/kprof.rules.yaml';
    return a;
  });
  return kprof(mapped);
}

describe('README: In CI', () => {
  it('has three YAML recipes: the action, a plain GitHub workflow, GitLab CI', () => {
    expect(blocks).toHaveLength(3);
    expect(ci).toContain('**1. The kprof GitHub Action**');
    expect(ci).toContain('**2. A plain workflow with one sticky pull request comment.**');
    expect(ci).toContain('**3. GitLab CI**');
  });

  it('1: uses this repository’s action at this version, with its inputs, reading its outputs', () => {
    const repo = pkg.repository.url.replace(/^git\+https:\/\/github\.com\//, '').replace(/\.git$/, '');
    const step = steps(blocks[0]).find((s) => s.uses?.startsWith(`${repo}@`))!;
    expect(step.uses).toBe(`${repo}@v${pkg.version}`);
    const given = Object.keys(step.with ?? {});
    for (const [name, i] of Object.entries(action.inputs)) if (i.required) expect(given).toContain(name);
    for (const name of given) expect(Object.keys(action.inputs)).toContain(name);
    const used = [...JSON.stringify(blocks[0]).matchAll(new RegExp(`steps\\.${step.id}\\.outputs\\.([\\w-]+)`, 'g'))].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(0);
    for (const name of used) expect(Object.keys(action.outputs)).toContain(name);
    // The README's tables of inputs and outputs name every one of action.yml's.
    for (const name of [...Object.keys(action.inputs), ...Object.keys(action.outputs)]) expect(ci).toContain(`| \`${name}\` |`);
  });

  it('2: finds the sticky comment by the diff’s marker and writes the diff the workflow made', async () => {
    const all = steps(blocks[1]);
    const find = all.find((s) => s.uses?.startsWith('peter-evans/find-comment@'))!;
    expect(find.with!['body-includes']).toBe(DIFF_MARKDOWN_MARKER);
    const write = all.find((s) => s.uses?.startsWith('peter-evans/create-or-update-comment@'))!;
    expect(write.with!['comment-id']).toBe(`\${{ steps.${find.id}.outputs.comment-id }}`);
    const diff = kprofCommands(all.map((s) => s.run ?? '')).find((c) => c[0] === 'diff')!;
    expect(diff.slice(diff.indexOf('-o'))).toEqual(['-o', write.with!['body-path']]);
    const r = await runOnExample(diff);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(tmp, String(write.with!['body-path'])), 'utf8').split('\n')[0]).toBe(DIFF_MARKDOWN_MARKER);
  });

  it('2: on a pull request from a fork (a read-only token, so writing a comment fails) the gate still runs', () => {
    // The runner's rules: a step runs when its `if` holds, by default `success()` (no earlier step failed, but for
    // one with continue-on-error); a comment written with a read-only token fails the step.
    const fork = { 'github.event.pull_request.head.repo.full_name == github.repository': false };
    const holds = (s: Step, failed: boolean): boolean => {
      const cond = (s.if ?? 'success()').replace(/^\$\{\{\s*|\s*\}\}$/g, '').trim();
      if (/^always\(\)/.test(cond)) return true;
      if (cond === 'success()') return !failed;
      if (cond in fork) return !failed && fork[cond as keyof typeof fork];
      throw new Error(`the simulation does not know the condition "${cond}"`);
    };
    let failed = false;
    const ran: Step[] = [];
    for (const s of steps(blocks[1])) {
      if (!holds(s, failed)) continue;
      ran.push(s);
      const fails = s.uses?.startsWith('peter-evans/create-or-update-comment@') === true;
      if (fails && (s as { 'continue-on-error'?: boolean })['continue-on-error'] !== true) failed = true;
    }
    const gate = ran.find((s) => /kprof check[\s\S]*--format github/.test(s.run ?? ''));
    expect(gate, 'the gate step is skipped on a fork').toBeDefined();
    expect(failed, 'a step fails on a fork for want of a token, not for the kernels').toBe(false);
    // On a pull request from the repository itself every step runs.
    fork['github.event.pull_request.head.repo.full_name == github.repository'] = true;
    expect(steps(blocks[1]).every((s) => holds(s, false))).toBe(true);
  });

  it('3: GitLab reads the JUnit file the check writes, also when it fails', async () => {
    const job = Object.values(blocks[2] as Record<string, { script: string[]; artifacts: { when: string; reports: { junit: string } } }>)[0]!;
    expect(job.artifacts.when).toBe('always');
    const check = kprofCommands(job.script).find((c) => c[0] === 'check')!;
    expect(check).toEqual(expect.arrayContaining(['--format', 'junit']));
    expect(check[check.indexOf('-o') + 1]).toBe(job.artifacts.reports.junit);
    const r = await runOnExample(check);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(tmp, job.artifacts.reports.junit), 'utf8')).toMatch(/^<\?xml[\s\S]*<testsuite/);
  });

  it('every kprof command of the recipes runs on the example pair', async () => {
    const lines = [...steps(blocks[1]).map((s) => s.run ?? ''), ...Object.values(blocks[2] as Record<string, { script: string[] }>)[0]!.script];
    const commands = kprofCommands(lines);
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const c of commands) {
      const r = await runOnExample(c);
      expect(r.code, `${c.join(' ')}\n${r.stderr}`).toBe(0);
    }
  });
});
