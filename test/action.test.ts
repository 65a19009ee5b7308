// The GitHub Action (action.yml) and its script, scripts/action.mjs, run as the runner runs it: inputs in
// INPUT_* variables, GITHUB_STEP_SUMMARY and GITHUB_OUTPUT files, RUNNER_TEMP, GITHUB_ACTION_PATH (this clone,
// built by npm test). What it wrote to the log, the summary and the outputs is checked.

import { spawn, spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
      'html-report-path': expect.stringMatching(/kprof-check\.html$/),
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
      'html-report-path': expect.stringMatching(/kprof-check\.html$/),
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
    expect(r.outputs).toEqual({ passed: 'false', 'report-path': '', 'html-report-path': '', 'diff-report-path': '', 'exit-code': '2' });
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
    expect(r.outputs).toEqual({ passed: 'false', 'report-path': '', 'html-report-path': '', 'diff-report-path': '', 'exit-code': '2' });
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

  it.each([
    ['profile', { profile: '--help', rules: `${BREAKS}/kprof.rules.yaml` }, '--help: no such file or folder'],
    ['rules', { profile: `${EX}/pr`, rules: '--version' }, '--version: no such file or folder'],
    ['base', { profile: `${EX}/pr`, rules: `${EX}/kprof.rules.yaml`, base: '-q' }, '-q: no such file or folder'],
  ])('a %s input that starts with a dash is a path, never an option of kprof: no gate passes on it', (_, inputs, message) => {
    // `profile: --help` printed the usage, exit 0: passed=true on a check of nothing.
    const r = runAction(inputs);
    expect(r.code).toBe(2);
    expect(r.outputs.passed).toBe('false');
    expect(r.summary).toContain(message);
  });

  it('a version input is no way to run a package fetched by name: the action has no such input, and npm never installs kprof', () => {
    const bin = mkdtempSync(join(tmp, 'bin-'));
    const npmLog = join(bin, 'npm.log');
    // The log's path is the stand-in's environment, not its text: a temporary path may hold a quote.
    writeFileSync(join(bin, 'npm'), '#!/bin/sh\necho "$@" >> "$NPM_LOG"\n');
    chmodSync(join(bin, 'npm'), 0o755);
    const r = runAction(
      { profile: `${EX}/pr`, rules: `${EX}/kprof.rules.yaml`, base: `${EX}/base`, version: '1.0.0' },
      { PATH: `${bin}:${process.env.PATH}`, NPM_LOG: npmLog },
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
    writeFileSync(join(copy, 'dist/bundle/cli.cjs'), '');
    const log = join(copy, 'runs.log');
    writeFileSync(
      join(copy, 'bin/kprof.js'),
      `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(log)}, process.argv.slice(2).join(' ') + '\\n');\nawait import(${JSON.stringify(pathToFileURL(join(ROOT, 'bin/kprof.js')).href)});\n`,
    );
    const r = runAction({ profile: `${BREAKS}/profile`, rules: `${BREAKS}/kprof.rules.yaml` }, { GITHUB_ACTION_PATH: copy });
    expect(r.code).toBe(1);
    const runs = readFileSync(log, 'utf8').trimEnd().split('\n');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(/^check --rules=.* --format github --markdown-out .*kprof-check\.md --html-out .*kprof-check\.html -- .*\/profile$/);
    expect(r.summary).toMatch(/^### kprof check: failed\n/);
  });

  it('builds the action’s own copy when it has no bundle, and exits 2 when that fails', () => {
    const bin = mkdtempSync(join(tmp, 'bin-'));
    const npmLog = join(bin, 'npm.log');
    writeFileSync(join(bin, 'npm'), '#!/bin/sh\necho "$@ in $PWD" >> "$NPM_LOG"\nexit 1\n');
    chmodSync(join(bin, 'npm'), 0o755);
    const clone = mkdtempSync(join(tmp, 'action-clone-'));
    const r = runAction(
      { profile: `${EX}/pr`, rules: `${EX}/kprof.rules.yaml` },
      { PATH: `${bin}:${process.env.PATH}`, GITHUB_ACTION_PATH: clone, NPM_LOG: npmLog },
    );
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
    expect(Object.keys(action.inputs)).toEqual(['profile', 'rules', 'base', 'diff-base', 'comment', 'github-token']);
    expect(action.inputs.profile!.required).toBe(true);
    expect(action.inputs.rules!.required).toBe(true);
    for (const name of ['base', 'diff-base']) expect(action.inputs[name]).toMatchObject({ required: false, default: '' });
    for (const [name, o] of Object.entries(action.outputs)) expect(o.value).toBe(`\${{ steps.check.outputs.${name} }}`);
    expect(Object.keys(action.outputs)).toEqual(expect.arrayContaining(['passed', 'report-path', 'html-report-path']));
  });

  it('passes the inputs in the environment, never into the shell script', () => {
    const [step, upload, comment] = action.runs.steps as {
      id: string;
      shell: string;
      env: Record<string, string>;
      run: string;
      uses?: string;
      if?: string;
    }[];
    expect(action.runs.steps.map((s) => s.id)).toEqual(['check', 'upload', 'comment']);
    expect(step!.run).toBe('node "$GITHUB_ACTION_PATH/scripts/action.mjs"');
    for (const s of [step!, comment!]) expect(s.run).not.toContain('${{');
    for (const name of ['profile', 'rules', 'base', 'diff-base']) {
      expect(step!.env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`]).toBe(`\${{ inputs.${name} }}`);
    }
    // The HTML report is uploaded, and the comment posted, also when the check failed; the comment gets the token
    // in its environment.
    expect(upload!.uses).toBe('actions/upload-artifact@v4');
    expect(upload!.if).toMatch(/^always\(\) && /);
    expect(comment!.if).toMatch(/^always\(\) && inputs\.comment == 'true'/);
    expect(comment!.run).toBe('node "$GITHUB_ACTION_PATH/scripts/action.mjs" comment');
    expect(comment!.env.INPUT_GITHUB_TOKEN).toBe('${{ inputs.github-token }}');
  });
});

describe('the action: one sticky comment on the pull request (against a GitHub API stand-in on 127.0.0.1)', () => {
  const MARKER = '<!-- kprof-check: sticky comment of the kprof GitHub Action; it is updated, not added to -->';
  interface Call {
    method: string;
    url: string;
    auth: string;
    body: string;
  }

  /** A comment as the API lists it: its author a bot (the workflow's token posts as github-actions[bot]) or a user. */
  interface Listed {
    id: number;
    body: string;
    user?: { login: string; type: 'Bot' | 'User' };
  }
  const BOT = { login: 'github-actions[bot]', type: 'Bot' } as const;

  /**
   * A server answering the comment API: `comments` is what GET lists; `status` forces an error status. GET /user
   * answers 403, as it does to the workflow's own token, unless `login` is given (a personal token's user).
   */
  async function api(comments: Listed[], status = 200, login?: string): Promise<{ url: string; calls: Call[]; close: () => void }> {
    const calls: Call[] = [];
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString('utf8');
      });
      req.on('end', () => {
        calls.push({ method: req.method ?? '', url: req.url ?? '', auth: String(req.headers.authorization ?? ''), body });
        const user = req.url === '/user';
        const code = user && login === undefined ? 403 : status;
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(
          code !== 200
            ? '{"message":"Resource not accessible by integration"}'
            : user
              ? JSON.stringify({ login })
              : req.method === 'GET'
                ? JSON.stringify(comments)
                : '{}',
        );
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, calls, close: () => server.close() };
  }

  /** The comment step, run as action.yml runs it (asynchronously, so that the stand-in can answer). */
  async function comment(
    apiUrl: string,
    opts: { report: string; head?: string; token?: string; artifact?: string },
  ): Promise<{ code: number | null; stdout: string }> {
    const dir = mkdtempSync(join(tmp, 'comment-'));
    const report = join(dir, 'kprof-check.md');
    writeFileSync(report, opts.report);
    const event = join(dir, 'event.json');
    writeFileSync(event, JSON.stringify({ pull_request: { number: 42, head: { repo: { full_name: opts.head ?? 'acme/model' } } } }));
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      GITHUB_API_URL: apiUrl,
      GITHUB_REPOSITORY: 'acme/model',
      GITHUB_EVENT_PATH: event,
      GITHUB_SERVER_URL: 'https://github.example',
      GITHUB_RUN_ID: '7',
      INPUT_GITHUB_TOKEN: opts.token ?? 'the-token',
      INPUT_REPORT_PATH: report,
      INPUT_ARTIFACT_URL: opts.artifact ?? '',
    };
    const child = spawn(process.execPath, [join(ROOT, 'scripts/action.mjs'), 'comment'], { cwd: ROOT, env });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    const code = await new Promise<number | null>((ok) => child.on('close', ok));
    return { code, stdout };
  }

  it('posts one comment when the pull request has none: the marker first, the report, the link to the HTML report', async () => {
    const s = await api([{ id: 3, body: 'a reviewer wrote this', user: { login: 'reviewer', type: 'User' } }]);
    try {
      const r = await comment(s.url, {
        report: '### kprof check: passed\n\n8 of 8 rules held.\n',
        artifact: 'https://github.example/acme/model/actions/runs/7/artifacts/9',
      });
      expect(r.code).toBe(0);
      expect(s.calls.map((c) => `${c.method} ${c.url}`)).toEqual([
        'GET /user',
        'GET /repos/acme/model/issues/42/comments?per_page=100&page=1',
        'POST /repos/acme/model/issues/42/comments',
      ]);
      expect(s.calls.every((c) => c.auth === 'Bearer the-token')).toBe(true);
      const body = (JSON.parse(s.calls[2]!.body) as { body: string }).body;
      expect(body.startsWith(`${MARKER}\n### kprof check: passed\n`)).toBe(true);
      expect(body).toContain('[The HTML report](https://github.example/acme/model/actions/runs/7/artifacts/9)');
      expect(r.stdout).toContain('posted a comment on pull request #42');
    } finally {
      s.close();
    }
  });

  it('updates the comment it posted before (found by its marker), and posts no second one', async () => {
    const s = await api([
      { id: 3, body: 'a reviewer wrote this', user: { login: 'reviewer', type: 'User' } },
      { id: 11, body: `${MARKER}\n### kprof check: failed\n`, user: BOT },
    ]);
    try {
      const r = await comment(s.url, { report: '### kprof check: passed\n' });
      expect(r.code).toBe(0);
      expect(s.calls.map((c) => `${c.method} ${c.url}`)).toEqual([
        'GET /user',
        'GET /repos/acme/model/issues/42/comments?per_page=100&page=1',
        'PATCH /repos/acme/model/issues/comments/11',
      ]);
      // Without an artifact, the link is to the run.
      expect((JSON.parse(s.calls[2]!.body) as { body: string }).body).toContain('[The run](https://github.example/acme/model/actions/runs/7)');
    } finally {
      s.close();
    }
  });

  it('a comment that starts with the marker but was written by someone else is left alone: a new one is posted', async () => {
    // Anyone may comment on a pull request; a planted comment must not become the one the action writes to.
    const s = await api([{ id: 5, body: `${MARKER}\nplanted`, user: { login: 'stranger', type: 'User' } }]);
    try {
      expect((await comment(s.url, { report: '### kprof check: passed\n' })).code).toBe(0);
      expect(s.calls.map((c) => `${c.method} ${c.url}`).slice(1)).toEqual([
        'GET /repos/acme/model/issues/42/comments?per_page=100&page=1',
        'POST /repos/acme/model/issues/42/comments',
      ]);
    } finally {
      s.close();
    }
  });

  it("with a personal token, the comment of the token's user is updated, and a bot's is not", async () => {
    const s = await api(
      [
        { id: 6, body: `${MARKER}\nanother workflow's`, user: BOT },
        { id: 7, body: `${MARKER}\nours`, user: { login: 'ci-user', type: 'User' } },
      ],
      200,
      'ci-user',
    );
    try {
      expect((await comment(s.url, { report: '### kprof check: passed\n' })).code).toBe(0);
      expect(s.calls.map((c) => `${c.method} ${c.url}`).at(-1)).toBe('PATCH /repos/acme/model/issues/comments/7');
    } finally {
      s.close();
    }
  });

  it('cuts a report longer than a comment holds, at a line end, and says so', async () => {
    const s = await api([]);
    try {
      const long = `### kprof check: failed\n${'| `Kernel` | 1 |\n'.repeat(8000)}`;
      expect((await comment(s.url, { report: long })).code).toBe(0);
      const body = (JSON.parse(s.calls.at(-1)!.body) as { body: string }).body;
      expect(body.length).toBeLessThan(65_536);
      expect(body).toMatch(/\| 1 \|\n\n… the report is longer than a comment holds \(60,000 characters\)/);
    } finally {
      s.close();
    }
  });

  it('a pull request from a fork: no call at all, a notice, exit 0', async () => {
    const s = await api([]);
    try {
      const r = await comment(s.url, { report: '### kprof check: passed\n', head: 'stranger/model' });
      expect(r.code).toBe(0);
      expect(s.calls).toEqual([]);
      expect(r.stdout).toContain('::notice title=kprof comment::a pull request from the fork stranger/model');
    } finally {
      s.close();
    }
  });

  it('a token that cannot write (HTTP 403): a warning, exit 0 (the gate is the check step)', async () => {
    const s = await api([], 403);
    try {
      const r = await comment(s.url, { report: '### kprof check: passed\n' });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(
        '::warning title=kprof comment::could not post the comment (GET /repos/acme/model/issues/42/comments?per_page=100&page=1: HTTP 403)',
      );
    } finally {
      s.close();
    }
  });

  it('the check step writes the HTML report of the same check and names it in html-report-path', () => {
    const r = runAction({ profile: `${EX}/pr`, rules: `${EX}/kprof.rules.yaml`, base: `${EX}/base` });
    expect(r.code).toBe(0);
    expect(r.outputs['html-report-path']).toMatch(/kprof-check\.html$/);
    expect(readFileSync(r.outputs['html-report-path']!, 'utf8')).toMatch(/^<!DOCTYPE html>/);
  });
});
